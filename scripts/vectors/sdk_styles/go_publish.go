// The Go SDK's (pubnub/go v9) publish serialization, reproduced: the SDK itself needs Go 1.25 and its module
// dependencies, which this harness does not fetch. Run: go run go_publish.go cases.json KEY > go.ndjson
//
// What it reproduces (pubnub/go v9, utils.go): serializeEncryptAndSerialize -> json.Marshal(msg) ->
// encryptString -> encodeNonASCIIChars (every rune above 127 written as `\u` + lowercase hex of uint16(rune),
// zero-padded to 4) -> CryptoModule.Encrypt -> base64.StdEncoding. The message is what a Go program holds after
// decoding the case's JSON the usual way, except numbers: integer literals stay exact integers (int64, uint64 or
// *big.Int, all written as their digits), every other number is a float64. Objects are map[string]interface{}
// (encoding/json sorts their keys; a repeated key keeps its last value).
//
// Go 1.22 changed encoding/json to write U+0008 and U+000C as `\b` and `\f` (before: `\u0008`, `\u000c`); the SDK
// requires Go 1.25, so when this harness runs on an older Go it applies that change to the Marshal output.
package main

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"strconv"
	"strings"
)

type testCase struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// native turns a decoded value (UseNumber) into what a Go program would hold.
func native(v interface{}) interface{} {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i
			}
			if u, err := strconv.ParseUint(s, 10, 64); err == nil {
				return u
			}
			b, _ := new(big.Int).SetString(s, 10)
			return b
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			panic(err)
		}
		return f
	case []interface{}:
		for i := range x {
			x[i] = native(x[i])
		}
		return x
	case map[string]interface{}:
		for k := range x {
			x[k] = native(x[k])
		}
		return x
	}
	return v
}

// encodeNonASCII mirrors the SDK's encodeNonASCIIChars (utils.go).
func encodeNonASCII(message string) string {
	var out bytes.Buffer
	for _, r := range []rune(message) {
		unit := uint16(r)
		if unit > 127 {
			fmt.Fprintf(&out, `\u%04x`, unit)
		} else {
			out.WriteRune(rune(unit))
		}
	}
	return out.String()
}

// go122Escapes rewrites `\u0008` and `\u000c` escapes (not escaped backslashes) as Go 1.22+ writes them.
func go122Escapes(text []byte) []byte {
	var out bytes.Buffer
	for i := 0; i < len(text); i++ {
		if text[i] == '\\' && i+1 < len(text) {
			if text[i+1] == 'u' && i+5 < len(text) {
				switch string(text[i+2 : i+6]) {
				case "0008":
					out.WriteString(`\b`)
					i += 5
					continue
				case "000c":
					out.WriteString(`\f`)
					i += 5
					continue
				}
			}
			out.WriteByte(text[i])
			out.WriteByte(text[i+1])
			i++
			continue
		}
		out.WriteByte(text[i])
	}
	return out.Bytes()
}

func legacyEncrypt(key string, plaintext []byte) string {
	sum := sha256.Sum256([]byte(key))
	block, err := aes.NewCipher([]byte(hex.EncodeToString(sum[:])[:32]))
	if err != nil {
		panic(err)
	}
	pad := 16 - len(plaintext)%16
	padded := append(append([]byte{}, plaintext...), bytes.Repeat([]byte{byte(pad)}, pad)...)
	out := make([]byte, len(padded))
	cipher.NewCBCEncrypter(block, []byte("0123456789012345")).CryptBlocks(out, padded)
	return base64.StdEncoding.EncodeToString(out)
}

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	key := os.Args[2]
	var cases []testCase
	if err := json.Unmarshal(data, &cases); err != nil {
		panic(err)
	}
	// "go1.19.8" -> 19; a development build ("devel ...") is taken as new.
	minor := 1 << 30
	if parts := strings.Split(strings.TrimPrefix(runtime.Version(), "go1."), "."); len(parts) > 0 {
		if n, err := strconv.Atoi(parts[0]); err == nil {
			minor = n
		}
	}
	needsFix := minor < 22
	for _, c := range cases {
		dec := json.NewDecoder(strings.NewReader(c.Message))
		dec.UseNumber()
		var v interface{}
		if err := dec.Decode(&v); err != nil {
			panic(err)
		}
		marshalled, err := json.Marshal(native(v))
		if err != nil {
			panic(err)
		}
		if needsFix {
			marshalled = go122Escapes(marshalled)
		}
		serialized := encodeNonASCII(string(marshalled))
		line, _ := json.Marshal(map[string]string{
			"name": c.Name, "message": c.Message,
			"serialized_b64": base64.StdEncoding.EncodeToString([]byte(serialized)),
			"legacy":         legacyEncrypt(key, []byte(serialized)),
			"runtime":        runtime.Version(),
		})
		fmt.Println(string(line))
	}
}
