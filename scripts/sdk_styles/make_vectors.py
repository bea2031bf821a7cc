#!/usr/bin/env python3
"""Runs the three SDK harnesses on cases.json and writes Vectors/styles.json.

Needs go, ruby and php (Debian: golang-go ruby php-cli) and checkouts of the Ruby and PHP SDKs, which are not part
of this repository: PUBNUB_RUBY_LIB=<pubnub/ruby checkout>/lib PUBNUB_PHP_SRC=<pubnub/php checkout>/src.
See Vectors/README.md (styles.json).
"""
import base64, json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KEY = "enigma"
IV0 = "30313233343536373839303132333435"

SOURCES = {
    "go": "pubnub/go v9.0.3 publish path (utils.go serializeEncryptAndSerialize, encryptString, "
          "encodeNonASCIIChars) reproduced in scripts/sdk_styles/go_publish.go",
    "ruby": "pubnub/ruby v5.6.0 code run: Pubnub::Formatter.format_message + Crypto::LegacyCryptor "
            "(scripts/sdk_styles/ruby_publish.rb)",
    "php": "pubnub/php v9.0.3 code run: PubNubUtil::writeValueAsString + Crypto\\LegacyCryptor "
           "(scripts/sdk_styles/php_publish.php)",
}


def run(command, env=None):
    out = subprocess.run(command, cwd=HERE, env={**os.environ, **(env or {})}, check=True,
                         capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.split("\n") if line.strip()]


def main():
    subprocess.run([sys.executable, os.path.join(HERE, "make_cases.py")], check=True)
    cases = os.path.join(HERE, "cases.json")
    results = {
        "go": run(["go", "run", "go_publish.go", cases, KEY], {"GOFLAGS": "-mod=mod", "GO111MODULE": "off"}),
        "ruby": run(["ruby", "ruby_publish.rb", cases, KEY]),
        "php": run(["php", "php_publish.php", cases, KEY]),
    }
    vectors = []
    for style, rows in results.items():
        for row in rows:
            serialized = base64.b64decode(row["serialized_b64"])
            vector = {"id": f"style-{style}-{row['name']}", "scheme": "legacy", "key": KEY, "iv": IV0}
            try:
                vector["plaintext"] = serialized.decode("utf-8")
            except UnicodeDecodeError:
                vector["plaintext_b64"] = row["serialized_b64"]
            vector.update({"ciphertext": row["legacy"], "expect": "ok", "style": style,
                           "message": row["message"], "source": SOURCES[style] + f"; {row['runtime']}"})
            vectors.append(vector)
    document = {
        "description": "Each SDK's publish bytes for one message (style), and their legacy (fixed IV) ciphertext "
                       "with the key 'enigma'. 'message' is the value given to the SDK, as JSON text; 'plaintext' "
                       "is what the SDK encrypts. Regenerate: scripts/sdk_styles/make_vectors.py (see "
                       "Vectors/README.md).",
        "source": "generated: scripts/sdk_styles/make_vectors.py",
        "vectors": vectors,
    }
    path = os.path.join(ROOT, "Vectors", "styles.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"description": ' + json.dumps(document["description"]) + ', "source": '
                + json.dumps(document["source"]) + ', "vectors": [\n')
        f.write(",\n".join(json.dumps(v, ensure_ascii=False) for v in vectors))
        f.write("\n]}\n")
    print(f"{len(vectors)} vectors -> {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
