module pncrypt.example/pubnub-go-peer

go 1.25

// A checkout of pubnub/go, put in by go mod edit -replace on a copy of this folder (main.go says how).
require github.com/pubnub/go/v9 v9.0.3
