#!/usr/bin/env python3
"""Writes Vectors/envelopes/envelopes.json: response bodies (v2 history, v3 fetch messages / history with actions,
subscribe) whose messages are encrypted in place by the real PubNub Python SDK (pubnub==10.8.0).

    scripts/build/make_venv.sh                                  # once: .venv with pubnub==10.8.0
    .venv/bin/python scripts/vectors/gen_envelope_vectors.py      # rewrites Vectors/envelopes/envelopes.json

The bodies follow the public shapes the SDK parses (pubnub/models/consumer/history.py, endpoints/fetch_messages.py,
models/server/subscribe.py, workers.py); they are written here as JSON text, so numbers and key order are exactly
as a server sends them (`1.50`, 20-digit integers, timetokens as strings in v3 and subscribe, integers in v2).
Each `$name` placeholder is a message: in `encrypted`, the SDK's ciphertext (its publish body, or for a file
message the payload of its publish-file-message call, `{"message", "file": {"id", "name"}}` encrypted whole); in
`decrypted`, the message's JSON text written compactly (what `pncrypt` writes). One message per body (`$foreign`)
is encrypted with another key: it stays as its ciphertext in `decrypted` (the passthrough policy) and is the one
entry of `failures`. Presence events, signals, objects and message actions are not encrypted and stay as written.

Every ciphertext is checked before it is written: the SDK must decrypt it back to its message with the vector's key
(and the foreign one must fail with it).

Vector fields: id, format (v2, v3, subscribe), scheme (how the SDK encrypted: legacy = fixed IV, legacy-random-iv,
acrh), key, encrypted (text), decrypted (text: what decryption with `key` gives under passthrough),
failures (one object per message not decrypted: index, and channel and timetoken when the body has them).
"""

import json
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pubnub_peer as peer  # noqa: E402  (imports the SDK in the right order, silences its logging)

from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule, PubNubCryptodome  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "Vectors", "envelopes", "envelopes.json")
SDK = f"pubnub (Python SDK) {peer.SDK_VERSION} from PyPI"
KEY = "enigma"
FOREIGN_KEY = "not-the-key"

MESSAGES = {
    "hello": {"text": "Hello, PubNub!", "n": 1, "ok": True, "nothing": None},
    "unicode": "Привет 世界 🔑",
    "list": ["seven", "eight", {"food": "Cheeseburger"}],
    "foreign": {"text": "from another key"},
}
FILE = {"message": "Look at this", "id": "d9515cb7-48a7-41a4-9284-f4bf331bc770", "name": "cat.jpg"}

BODIES = {
    "v2": [
        ("plain", '[[$hello,$unicode,$foreign,$list],17000000000000001,17000000000000004]',
         [{"index": 2}]),
        ("timetokens", '[[{"message":$hello,"timetoken":17000000000000001,"meta":{"price":1.50}},'
         '{"message":$unicode,"timetoken":17000000000000002},'
         '{"message":$foreign,"timetoken":17000000000000003,"meta":null}],17000000000000001,17000000000000003]',
         [{"index": 2, "timetoken": 17000000000000003}]),
    ],
    "v3": [
        ("actions", '{"status":200,"error":false,"error_message":"","channels":{"demo":['
         '{"message":$hello,"timetoken":"17000000000000001","uuid":"alice","message_type":null,'
         '"custom_message_type":"chat","meta":{"price":1.50,"big":12345678901234567890},'
         '"actions":{"reaction":{"smiley_face":[{"uuid":"bob","actionTimetoken":"17000000000000101"}]}}},'
         '{"message":$file,"timetoken":"17000000000000002","uuid":"alice","message_type":4},'
         '{"message":$unicode,"timetoken":"17000000000000003","uuid":"bob","message_type":null,"meta":""}],'
         '"demo-2":[{"message":$list,"timetoken":"17000000000000004","uuid":"carol"},'
         '{"message":$foreign,"timetoken":"17000000000000005","uuid":"mallory","message_type":null}]},'
         '"more":{"url":"/v3/history-with-actions/sub-key/sub-c-demo/channel/demo?start=17000000000000001&max=25",'
         '"start":"17000000000000001","max":25}}',
         [{"index": 1, "channel": "demo-2", "timetoken": "17000000000000005"}]),
    ],
    "subscribe": [
        ("mixed", '{"t":{"t":"17000000000000010","r":12},"m":['
         '{"a":"4","f":0,"i":"alice","p":{"t":"17000000000000001","r":12},"k":"sub-c-demo","c":"demo",'
         '"d":$hello,"u":{"price":1.50},"b":"demo"},'
         '{"a":"4","f":0,"e":1,"i":"bob","p":{"t":"17000000000000002","r":12},"k":"sub-c-demo","c":"demo",'
         '"d":"dHlwaW5nIGlzIGEgc2lnbmFs","cmt":"typing"},'
         '{"a":"4","f":0,"p":{"t":"17000000000000003","r":12},"k":"sub-c-demo","c":"demo-pnpres",'
         '"d":{"action":"join","uuid":"bob","timestamp":1700000000,"occupancy":2},"b":"demo-pnpres"},'
         '{"a":"4","f":0,"e":3,"i":"bob","p":{"t":"17000000000000004","r":12},"k":"sub-c-demo","c":"demo",'
         '"d":{"source":"actions","version":"1.0","data":{"messageTimetoken":"17000000000000001",'
         '"type":"reaction","actionTimetoken":"17000000000000004","value":"smiley_face"},"event":"added"}},'
         '{"a":"4","f":0,"e":2,"i":"alice","p":{"t":"17000000000000005","r":12},"k":"sub-c-demo","c":"demo",'
         '"d":{"source":"objects","version":"2.0","event":"set","type":"uuid","data":{"id":"alice",'
         '"name":"Alice","updated":"2023-11-14T22:13:20.000Z","eTag":"AbCdEf"}}},'
         '{"a":"4","f":0,"e":4,"i":"alice","p":{"t":"17000000000000006","r":12},"k":"sub-c-demo","c":"demo",'
         '"d":$file},'
         '{"a":"4","f":0,"e":0,"i":"carol","p":{"t":"17000000000000007","r":12},"k":"sub-c-demo","c":"demo",'
         '"d":$unicode,"cmt":"chat"},'
         '{"a":"4","f":0,"i":"mallory","p":{"t":"17000000000000008","r":12},"k":"sub-c-demo","c":"demo",'
         '"d":$foreign}]}',
         [{"index": 7, "channel": "demo", "timetoken": "17000000000000008"}]),
    ],
}

# (scheme, random IV, crypto module class or None for PubNubCryptodome with config.cipher_key)
SCHEMES = [
    ("legacy", False, None),
    ("legacy-random-iv", True, LegacyCryptoModule),
    ("acrh", True, AesCbcCryptoModule),
]


def sdk(key, random_iv, module_cls):
    cfg = peer.config_for("legacy-random-iv" if random_iv else "legacy", key)
    if module_cls is not None:
        cfg.crypto_module = module_cls(cfg)
    return cfg, peer.PubNub(cfg)


def decrypt(cfg, key, random_iv, module_cls, text):
    if module_cls is None:
        return PubNubCryptodome(cfg).decrypt(key, text, use_random_iv=random_iv)
    return module_cls(cfg).decrypt(text)


def encrypt_message(scheme, key, message):
    """The SDK's publish body for `message` ("<Base64>"), checked by decrypting it back."""
    _, random_iv, module_cls = scheme
    cfg, pubnub = sdk(key, random_iv, module_cls)
    try:
        body = pubnub.publish().channel("demo").message(message).use_post(True).build_data()
    finally:
        pubnub.stop()
    assert body[0] == body[-1] == '"', body
    assert decrypt(cfg, key, random_iv, module_cls, body[1:-1]) == message
    return body


def encrypt_file_message(scheme, key):
    """The SDK's publish-file-message payload: {"message", "file": {"id", "name"}} encrypted whole."""
    _, random_iv, module_cls = scheme
    cfg, pubnub = sdk(key, random_iv, module_cls)
    try:
        call = pubnub.publish_file_message().channel("demo").message(FILE["message"])
        payload = call.file_id(FILE["id"]).file_name(FILE["name"])._build_message()
    finally:
        pubnub.stop()
    assert isinstance(payload, str), payload
    expected = {"message": FILE["message"], "file": {"id": FILE["id"], "name": FILE["name"]}}
    assert decrypt(cfg, key, random_iv, module_cls, payload) == expected
    return json.dumps(payload), expected


def compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def fill(template, values):
    for name in sorted(values, key=len, reverse=True):
        template = template.replace("$" + name, values[name])
    assert "$" not in template, template
    return template


def main():
    vectors = []
    for scheme in SCHEMES:
        wire = {name: encrypt_message(scheme, KEY, m) for name, m in MESSAGES.items() if name != "foreign"}
        wire["foreign"] = encrypt_message(scheme, FOREIGN_KEY, MESSAGES["foreign"])
        cfg, pubnub = sdk(KEY, scheme[1], scheme[2])
        pubnub.stop()
        try:
            back = decrypt(cfg, KEY, scheme[1], scheme[2], wire["foreign"][1:-1])
        except Exception:
            back = None
        assert back != MESSAGES["foreign"], "the foreign message decrypts with the vector's key"
        wire["file"], file_message = encrypt_file_message(scheme, KEY)
        plain = {name: compact(m) for name, m in MESSAGES.items() if name != "foreign"}
        plain["foreign"] = wire["foreign"]
        plain["file"] = compact(file_message)
        for fmt, bodies in BODIES.items():
            for name, template, failures in bodies:
                encrypted = fill(template, wire)
                decrypted = fill(template, plain)
                json.loads(encrypted)
                json.loads(decrypted)
                vectors.append({"id": f"env-{fmt}-{name}-{scheme[0]}", "format": fmt, "scheme": scheme[0],
                                "key": KEY, "encrypted": encrypted, "decrypted": decrypted, "failures": failures})
    out = {
        "description": "Response bodies (v2 history, v3 fetch messages with actions, subscribe) with their messages "
                       "encrypted in place by the SDK; one message per body is encrypted with another key. "
                       "scripts/vectors/gen_envelope_vectors.py explains the fields.",
        "source": SDK,
        "foreign_key": FOREIGN_KEY,
        "vectors": vectors,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"envelopes.json: {len(vectors)} vectors verified and written")


if __name__ == "__main__":
    main()
