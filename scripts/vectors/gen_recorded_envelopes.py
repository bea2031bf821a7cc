#!/usr/bin/env python3
"""Rewrites the `vectors` of Vectors/envelopes/recorded.json from its `bodies`: response bodies recorded from the
network by PubNub SDKs' integration tests (their HTTP cassettes), with their messages encrypted in place by the real
PubNub Python SDK (pubnub==10.8.0).

    scripts/build/make_venv.sh                                  # once: .venv with pubnub==10.8.0
    .venv/bin/python scripts/vectors/gen_recorded_envelopes.py    # rewrites the vectors of Vectors/envelopes/recorded.json

`bodies` holds each recorded body as the cassette stored it (text: key order, spacing, numbers and timetoken
strings as the server sent them), with `format` (v3 for fetch messages and history with actions, subscribe) and
`recorded_by` (which SDK's integration tests recorded it). Nothing here changes a body: each encrypted field (v3:
each item's `message`; subscribe: `d` of messages, no `e` or `e` 0 or 4, not on a `-pnpres` channel) is found by
its byte range, and its value, as JSON, is the plain message the SDK encrypts (its publish body, `"<Base64>"`).

Per body with at least one encrypted field, three vectors: the SDK's fixed IV (`legacy`), random IV
(`legacy-random-iv`) and `acrh`. With two fields or more, the middle one is encrypted with another key (the
foreign message) and is the one entry of `failures`; with one field there is no foreign message. A body without
encrypted fields (presence events, objects) is one vector whose `encrypted` is the body itself.

`encrypted` is the recorded body with each field's bytes replaced by its ciphertext. `decrypted` is what pncrypt
gives under passthrough: the recorded body with the foreign field replaced by its ciphertext, written without
insignificant whitespace (pncrypt writes responses compactly; the spacing of the recorded `rb-subscribe-spaced`
shows it). Every ciphertext is checked: the SDK decrypts it back to its message with the vector's key, and the
foreign one does not decrypt to its message with it.

Vector fields as in Vectors/envelopes/envelopes.json (scripts/vectors/gen_envelope_vectors.py), plus `body` (the id of the
recorded body).
"""

import json
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_envelope_vectors as gen  # noqa: E402  (the SDK, its schemes and its checks)

ROOT = os.path.dirname(os.path.dirname(HERE))
PATH = os.path.join(ROOT, "Vectors", "envelopes", "recorded.json")
WS = b" \t\r\n"


class Scanner:
    """A JSON value's structure with the byte range of every value (the bodies are valid JSON: json.loads checks)."""

    def __init__(self, text):
        self.b = text
        self.i = 0

    def ws(self):
        while self.i < len(self.b) and self.b[self.i] in WS:
            self.i += 1

    def value(self):
        """(kind, start, end, children): children is a list of (key, node) for objects, of nodes for arrays."""
        self.ws()
        start = self.i
        c = self.b[self.i:self.i + 1]
        if c == b"{":
            self.i += 1
            members = []
            self.ws()
            if self.b[self.i:self.i + 1] == b"}":
                self.i += 1
                return ("object", start, self.i, members)
            while True:
                self.ws()
                key = self.value()
                self.ws()
                assert self.b[self.i:self.i + 1] == b":"
                self.i += 1
                members.append((json.loads(self.b[key[1]:key[2]]), self.value()))
                self.ws()
                c = self.b[self.i:self.i + 1]
                self.i += 1
                if c == b"}":
                    return ("object", start, self.i, members)
                assert c == b","
        if c == b"[":
            self.i += 1
            items = []
            self.ws()
            if self.b[self.i:self.i + 1] == b"]":
                self.i += 1
                return ("array", start, self.i, items)
            while True:
                items.append(self.value())
                self.ws()
                c = self.b[self.i:self.i + 1]
                self.i += 1
                if c == b"]":
                    return ("array", start, self.i, items)
                assert c == b","
        if c == b'"':
            self.i += 1
            while self.b[self.i:self.i + 1] != b'"':
                self.i += 2 if self.b[self.i:self.i + 1] == b"\\" else 1
            self.i += 1
            return ("string", start, self.i, None)
        while self.i < len(self.b) and self.b[self.i:self.i + 1] not in (b",", b"}", b"]") \
                and self.b[self.i] not in WS:
            self.i += 1
        return ("scalar", start, self.i, None)


def member(node, key):
    for k, v in node[3]:
        if k == key:
            return v
    return None


def text_of(body, node):
    return json.loads(body[node[1]:node[2]]) if node else None


def fields(body):
    """The encrypted fields in document order: (start, end, location) with location as statuses report it."""
    root = Scanner(body).value()
    out = []
    if member(root, "channels") is not None:
        for name, items in member(root, "channels")[3]:
            for index, item in enumerate(items[3]):
                message = member(item, "message")
                out.append((message[1], message[2],
                            {"index": index, "channel": name, "timetoken": text_of(body, member(item, "timetoken"))}))
        return out
    for index, item in enumerate(member(root, "m")[3]):
        channel = text_of(body, member(item, "c"))
        kind = text_of(body, member(item, "e"))
        if (channel or "").endswith("-pnpres") or kind not in (None, 0, 4):
            continue
        d = member(item, "d")
        p = member(item, "p")
        out.append((d[1], d[2], {"index": index, "channel": channel,
                                 "timetoken": text_of(body, member(p, "t")) if p else None}))
    return out


def splice(body, replacements):
    """`body` with each (start, end, bytes) replaced, ranges in document order."""
    out, at = [], 0
    for start, end, new in replacements:
        out.append(body[at:start])
        out.append(new)
        at = end
    out.append(body[at:])
    return b"".join(out)


def compact(text):
    """`text` without insignificant whitespace (outside strings), every other byte kept."""
    out, in_string, escaped = bytearray(), False, False
    for byte in text:
        if in_string:
            out.append(byte)
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte not in WS:
            out.append(byte)
            in_string = byte == 0x22
    return bytes(out)


def vectors_for(recorded):
    body = recorded["body"].encode("utf-8")
    json.loads(body)
    found = fields(body)
    base = {"body": recorded["id"], "format": recorded["format"], "key": gen.KEY}
    if not found:
        return [dict(base, id=f"rec-{recorded['id']}", scheme="none", encrypted=recorded["body"],
                     decrypted=compact(body).decode("utf-8"), failures=[])]
    foreign = len(found) // 2 if len(found) >= 2 else None
    vectors = []
    for scheme in gen.SCHEMES:
        wire = []
        for number, (start, end, _) in enumerate(found):
            message = json.loads(body[start:end])
            key = gen.FOREIGN_KEY if number == foreign else gen.KEY
            sealed = gen.encrypt_message(scheme, key, message)
            if number == foreign:
                cfg, pubnub = gen.sdk(gen.KEY, scheme[1], scheme[2])
                pubnub.stop()
                try:
                    back = gen.decrypt(cfg, gen.KEY, scheme[1], scheme[2], sealed[1:-1])
                except Exception:
                    back = None
                assert back != message, "the foreign message decrypts with the vector's key"
            wire.append((start, end, sealed.encode("ascii")))
        encrypted = splice(body, wire)
        decrypted = compact(splice(body, [wire[foreign]] if foreign is not None else []))
        json.loads(encrypted)
        json.loads(decrypted)
        failures = [{k: v for k, v in found[foreign][2].items() if v is not None}] if foreign is not None else []
        vectors.append(dict(base, id=f"rec-{recorded['id']}-{scheme[0]}", scheme=scheme[0],
                            encrypted=encrypted.decode("utf-8"), decrypted=decrypted.decode("utf-8"),
                            failures=failures))
    return vectors


def main():
    with open(PATH, encoding="utf-8") as f:
        document = json.load(f)
    vectors = [v for recorded in document["bodies"] for v in vectors_for(recorded)]
    document["source"] = gen.SDK
    document["foreign_key"] = gen.FOREIGN_KEY
    document["vectors"] = vectors
    with open(PATH, "w", encoding="utf-8") as f:
        json.dump(document, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"recorded.json: {len(document['bodies'])} recorded bodies, {len(vectors)} vectors verified and written")


if __name__ == "__main__":
    main()
