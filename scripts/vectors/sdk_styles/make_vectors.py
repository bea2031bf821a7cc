#!/usr/bin/env python3
"""Runs the SDK harnesses on cases.json and writes Vectors/styles.json.

Needs go, ruby and php (Debian: golang-go ruby php-cli) and checkouts of the Ruby and PHP SDKs, which are not part
of this repository: PUBNUB_RUBY_LIB=<pubnub/ruby checkout>/lib PUBNUB_PHP_SRC=<pubnub/php checkout>/src; for
kotlin a JDK 19 or later and Gson (Debian: libgoogle-gson-java): JAVA=<java> GSON_JAR=<gson.jar>, and optionally
JAVA_OLD=<a JDK 18 or older's java> to note the numbers an older Double.toString writes otherwise.
`--styles kotlin` (or any comma list) runs only those harnesses and keeps the other styles' vectors from the file.
See Vectors/README.md (styles.json).
"""
import argparse, base64, json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
KEY = "enigma"
IV0 = "30313233343536373839303132333435"

SOURCES = {
    "go": "pubnub/go v9.0.3 publish path (utils.go serializeEncryptAndSerialize, encryptString, "
          "encodeNonASCIIChars) reproduced in scripts/vectors/sdk_styles/go_publish.go",
    "ruby": "pubnub/ruby v5.6.0 code run: Pubnub::Formatter.format_message + Crypto::LegacyCryptor "
            "(scripts/vectors/sdk_styles/ruby_publish.rb)",
    "php": "pubnub/php v9.0.3 code run: PubNubUtil::writeValueAsString + Crypto\\LegacyCryptor "
           "(scripts/vectors/sdk_styles/php_publish.php)",
    "kotlin": "pubnub/kotlin kotlin-v13.4.1 publish path (MapperManager's Gson, PublishEndpoint, CryptoModuleImpl, "
              "LegacyCryptor/AesCbcCryptor) reproduced around the real Gson in scripts/vectors/sdk_styles/kotlin_publish.java",
}
STYLES = list(SOURCES)


def run(command, env=None):
    out = subprocess.run(command, cwd=HERE, env={**os.environ, **(env or {})}, check=True,
                         capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.split("\n") if line.strip()]


def kotlin(cases):
    java = os.environ.get("JAVA", "java")
    gson = os.environ.get("GSON_JAR", "/usr/share/java/gson.jar")
    command = ["-cp", gson, "kotlin_publish.java", cases, KEY]
    rows = run([java] + command)
    major = int(re.match(r"java (\d+)", rows[0]["runtime"]).group(1))
    if major < 19:
        sys.exit(f"kotlin: {java} is Java {major}; the vectors are Double.toString as specified from JDK 19")
    if os.environ.get("JAVA_OLD"):
        # The same harness on an older JDK: where its Double.toString differs, the vector says so in a note.
        for row, old in zip(rows, run([os.environ["JAVA_OLD"]] + command)):
            if old["serialized_b64"] != row["serialized_b64"]:
                text = base64.b64decode(old["serialized_b64"]).decode("utf-8")
                version = re.match(r"java ([0-9.]+)", old["runtime"]).group(1)
                row["note"] = (f"JDK 18 and older (measured: Java {version}) write {text}: their Double.toString "
                               "(FloatingDecimal) does not always give the shortest, closest decimal")
    return rows


def vector(style, row, scheme, ciphertext, iv, suffix=""):
    serialized = base64.b64decode(row["serialized_b64"])
    vector = {"id": f"style-{style}-{suffix}{row['name']}", "scheme": scheme, "key": KEY, "iv": iv}
    try:
        vector["plaintext"] = serialized.decode("utf-8")
    except UnicodeDecodeError:
        vector["plaintext_b64"] = row["serialized_b64"]
    vector.update({"ciphertext": ciphertext, "expect": "ok", "style": style,
                   "message": row["message"], "source": SOURCES[style] + f"; {row['runtime']}"})
    if "note" in row:
        vector["note"] = row["note"]
    return vector


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--styles", default=",".join(STYLES), help="comma list of styles to run (default: all)")
    chosen = parser.parse_args().styles.split(",")
    subprocess.run([sys.executable, os.path.join(HERE, "make_cases.py")], check=True)
    cases = os.path.join(HERE, "cases.json")
    harnesses = {
        "go": lambda: run(["go", "run", "go_publish.go", cases, KEY], {"GOFLAGS": "-mod=mod", "GO111MODULE": "off"}),
        "ruby": lambda: run(["ruby", "ruby_publish.rb", cases, KEY]),
        "php": lambda: run(["php", "php_publish.php", cases, KEY]),
        "kotlin": lambda: kotlin(cases),
    }
    path = os.path.join(ROOT, "Vectors", "styles.json")
    kept = []
    if set(chosen) != set(STYLES):
        with open(path, encoding="utf-8") as f:
            kept = [v for v in json.load(f)["vectors"] if v["style"] not in chosen]
    vectors = []
    for style in STYLES:
        if style not in chosen:
            vectors += [v for v in kept if v["style"] == style]
            continue
        rows = harnesses[style]()
        vectors += [vector(style, row, "legacy", row["legacy"], IV0) for row in rows]
        if style == "kotlin":
            # The same bytes under the acrh cryptor (PNED header), with the IV the harness fixed for the case.
            vectors += [vector(style, row, "acrh", row["acrh"], row["acrh_iv"], "acrh-") for row in rows]
    document = {
        "description": "Each SDK's publish bytes for one message (style), and their legacy (fixed IV) ciphertext "
                       "with the key 'enigma' (kotlin: also acrh, with a fixed IV per message). 'message' is the "
                       "value given to the SDK, as JSON text; 'plaintext' is what the SDK encrypts. Regenerate: "
                       "scripts/vectors/sdk_styles/make_vectors.py (see Vectors/README.md).",
        "source": "generated: scripts/vectors/sdk_styles/make_vectors.py",
        "vectors": vectors,
    }
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"description": ' + json.dumps(document["description"]) + ', "source": '
                + json.dumps(document["source"]) + ', "vectors": [\n')
        f.write(",\n".join(json.dumps(v, ensure_ascii=False) for v in vectors))
        f.write("\n]}\n")
    print(f"{len(vectors)} vectors -> {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
