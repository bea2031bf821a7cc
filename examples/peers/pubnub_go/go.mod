module pncrypt.example/pubnub-go-peer

go 1.25

// A checkout of pubnub/go: go mod edit -replace github.com/pubnub/go/v9=/path/to/go (docs/conformance.md).
require github.com/pubnub/go/v9 v9.0.3
