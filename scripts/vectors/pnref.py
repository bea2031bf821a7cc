"""Independent reference model of the pncrypt byte formats (docs/formats.md sections 1-3), built on the
`cryptography` package. Used by the vector generators to compute and to verify every vector.

Nothing here is copied from a PubNub SDK: it is written from docs/formats.md and the rules in
Vectors/README.md, so that vectors produced by an SDK can be checked against something independent.

    encrypt_bytes(scheme, key, plaintext, iv) -> output bytes of the scheme
    decrypt_bytes(scheme, key, data)          -> plaintext bytes, or raises PNError(category, reason)
    decrypt_text(scheme, key, b64text)        -> as decrypt_bytes, after strict Base64 decoding
"""

import base64
import binascii
import hashlib
import re

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

IV0 = b"0123456789012345"
SCHEMES = ("legacy", "legacy-random-iv", "acrh", "legacy33")
SENTINEL = b"PNED"
ACRH_ID = b"ACRH"
LEGACY_ID = b"\x00\x00\x00\x00"

# expect values and the reasons that go with them
DECRYPTION = "decryption_error"
UNKNOWN = "unknown_cryptor"
ENCRYPTION = "encryption_error"


class PNError(Exception):
    """A failure in the model: `category` is the vector `expect` value, `reason` the Swift error code name."""

    def __init__(self, category, reason, message):
        super().__init__(f"{category}/{reason}: {message}")
        self.category = category
        self.reason = reason


# ---------------------------------------------------------------------------------------------- keys
def legacy_key(cipher_key: str) -> bytes:
    """First 32 chars of lowercase hex SHA-256, as 32 ASCII bytes (AES-256)."""
    return hashlib.sha256(cipher_key.encode("utf-8")).hexdigest()[:32].encode("ascii")


def acrh_key(cipher_key: str) -> bytes:
    """Raw 32-byte SHA-256 (AES-256)."""
    return hashlib.sha256(cipher_key.encode("utf-8")).digest()


def legacy33_key(cipher_key: str) -> bytes:
    """Raw 16-byte MD5 (AES-128)."""
    return hashlib.md5(cipher_key.encode("utf-8")).digest()


def scheme_key(scheme: str, cipher_key: str) -> bytes:
    if scheme in ("legacy", "legacy-random-iv"):
        return legacy_key(cipher_key)
    if scheme == "acrh":
        return acrh_key(cipher_key)
    if scheme == "legacy33":
        return legacy33_key(cipher_key)
    raise ValueError(f"no key for scheme {scheme}")


# -------------------------------------------------------------------------------------------- cipher
def cbc_encrypt(key: bytes, iv: bytes, plaintext: bytes) -> bytes:
    assert len(key) in (16, 32) and len(iv) == 16
    padder = padding.PKCS7(128).padder()
    padded = padder.update(plaintext) + padder.finalize()
    enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return enc.update(padded) + enc.finalize()


def cbc_encrypt_raw(key: bytes, iv: bytes, blocks: bytes) -> bytes:
    """CBC without padding: used to build ciphertexts whose padding is deliberately invalid."""
    assert len(blocks) % 16 == 0
    enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return enc.update(blocks) + enc.finalize()


def cbc_decrypt_raw(key: bytes, iv: bytes, ct: bytes) -> bytes:
    dec = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    return dec.update(ct) + dec.finalize()


def cbc_decrypt(key: bytes, iv: bytes, ct: bytes) -> bytes:
    """AES-CBC + strict PKCS#7. Any failure is wrongKeyOrCorrupt."""
    if len(ct) == 0:
        raise PNError(DECRYPTION, "wrongKeyOrCorrupt", "empty ciphertext")
    if len(ct) % 16:
        raise PNError(DECRYPTION, "wrongKeyOrCorrupt", f"ciphertext length {len(ct)} is not a multiple of 16")
    padded = cbc_decrypt_raw(key, iv, ct)
    unpadder = padding.PKCS7(128).unpadder()
    try:
        return unpadder.update(padded) + unpadder.finalize()
    except ValueError:
        raise PNError(DECRYPTION, "wrongKeyOrCorrupt", "bad PKCS#7 padding") from None


# -------------------------------------------------------------------------------------------- header
def make_header(meta: bytes, cryptor_id: bytes = ACRH_ID, version: int = 1, long_form: bool = False) -> bytes:
    """PNED header. long_form writes the length as 0xFF + big-endian uint16 even when it would fit in a byte."""
    if long_form or len(meta) >= 255:
        length = b"\xff" + len(meta).to_bytes(2, "big")
    else:
        length = bytes([len(meta)])
    return SENTINEL + bytes([version]) + cryptor_id + length + meta


def parse_header(data: bytes):
    """Returns None when there is no header (rule 1), else (cryptor_id, metadata, header_length).
    Raises PNError for rules 2 and 3."""
    if len(data) < 4 or data[:4] != SENTINEL:
        return None
    if len(data) < 5:
        raise PNError(DECRYPTION, "malformedHeader", "header cut before the version byte")
    if data[4] != 1:
        raise PNError(UNKNOWN, "unknownCryptor", f"unsupported header version {data[4]}")
    if len(data) < 9:
        raise PNError(DECRYPTION, "malformedHeader", "header cut inside the cryptor id")
    cryptor_id = data[5:9]
    if len(data) < 10:
        raise PNError(DECRYPTION, "malformedHeader", "header cut before the metadata length")
    pos = 10
    meta_len = data[9]
    if meta_len == 0xFF:
        if len(data) < 12:
            raise PNError(DECRYPTION, "malformedHeader", "0xFF length form cut short")
        meta_len = int.from_bytes(data[10:12], "big")
        pos = 12
    if len(data) < pos + meta_len:
        raise PNError(DECRYPTION, "malformedHeader", f"header announces {meta_len} metadata bytes, fewer remain")
    return cryptor_id, data[pos:pos + meta_len], pos + meta_len


# ------------------------------------------------------------------------------------------- schemes
def encrypt_bytes(scheme: str, cipher_key: str, plaintext: bytes, iv: bytes = None) -> bytes:
    """Encrypts as pncrypt does: empty data is an encryption error in every scheme (docs/formats.md section 3)."""
    if len(plaintext) == 0:
        raise PNError(ENCRYPTION, "emptyPlaintext", f"{scheme} cannot encrypt empty data")
    return seal(scheme, cipher_key, plaintext, iv)


def seal(scheme: str, cipher_key: str, plaintext: bytes, iv: bytes = None) -> bytes:
    """The scheme's output bytes for any plaintext, empty included (what older clients wrote for empty data)."""
    if iv is None:
        if scheme in ("legacy", "legacy33"):
            iv = IV0
        else:
            raise ValueError(f"{scheme} needs an explicit IV in the model (no randomness here)")
    key = scheme_key(scheme, cipher_key)
    if scheme in ("legacy", "legacy33"):
        assert iv == IV0, "legacy and legacy33 always use IV0"
        return cbc_encrypt(key, iv, plaintext)
    if scheme == "legacy-random-iv":
        return iv + cbc_encrypt(key, iv, plaintext)
    if scheme == "acrh":
        return make_header(iv) + cbc_encrypt(key, iv, plaintext)
    raise ValueError(scheme)


def _decrypt_acrh_payload(cipher_key, meta, ct):
    if len(meta) != 16:
        raise PNError(DECRYPTION, "malformedHeader", f"ACRH metadata must be a 16-byte IV, got {len(meta)}")
    if len(ct) == 0:
        raise PNError(DECRYPTION, "wrongKeyOrCorrupt", "empty ciphertext after the header")
    # Data that decrypts to nothing is read as empty: PubNub's contract scenarios decrypt such files.
    return cbc_decrypt(acrh_key(cipher_key), meta, ct)


def decrypt_bytes(scheme: str, cipher_key: str, data: bytes) -> bytes:
    if scheme == "legacy":
        return cbc_decrypt(legacy_key(cipher_key), IV0, data)
    if scheme == "legacy33":
        return cbc_decrypt(legacy33_key(cipher_key), IV0, data)
    if scheme == "legacy-random-iv":
        if len(data) < 16:
            raise PNError(DECRYPTION, "wrongKeyOrCorrupt", "shorter than the 16-byte IV")
        return cbc_decrypt(legacy_key(cipher_key), data[:16], data[16:])
    if scheme in ("acrh", "auto"):
        header = parse_header(data)
        if header is None:
            if scheme == "acrh":
                # Only the acrh cryptor: headerless data would be the legacy cryptor's, which is not there
                # (PubNub's contract scenarios: unknown cryptor). Empty data is a decryption error.
                if not data:
                    raise PNError(DECRYPTION, "malformedHeader", "no PNED header")
                raise PNError(UNKNOWN, "unknownCryptor", "no PNED header: legacy data, and no legacy cryptor")
            return cbc_decrypt(legacy_key(cipher_key), IV0, data)  # auto: legacy fixed IV
        cryptor_id, meta, hlen = header
        ct = data[hlen:]
        if cryptor_id == ACRH_ID:
            return _decrypt_acrh_payload(cipher_key, meta, ct)
        if cryptor_id == LEGACY_ID and scheme == "auto":
            # Swift and Go SDKs: the legacy cryptor (id 00000000) gets the bytes after the header.
            return cbc_decrypt(legacy_key(cipher_key), IV0, ct)
        raise PNError(UNKNOWN, "unknownCryptor", f"cryptor id {cryptor_id!r} is not known to scheme {scheme}")
    raise ValueError(scheme)


_B64 = re.compile(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$")


def b64decode_strict(text: str) -> bytes:
    """Standard alphabet, '=' padding required, no whitespace."""
    if not _B64.match(text):
        raise PNError(DECRYPTION, "notBase64", "not standard padded Base64")
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        raise PNError(DECRYPTION, "notBase64", "not standard padded Base64") from None


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def decrypt_text(scheme: str, cipher_key: str, b64text: str) -> bytes:
    return decrypt_bytes(scheme, cipher_key, b64decode_strict(b64text))


# ------------------------------------------------------------------------------------------ checking
def plaintext_of(vector) -> bytes:
    if "plaintext" in vector:
        return vector["plaintext"].encode("utf-8")
    return base64.b64decode(vector["plaintext_b64"], validate=True)


def check_vector(v):
    """Verifies one vector against the model; raises AssertionError when the model disagrees."""
    scheme, key, expect = v["scheme"], v["key"], v["expect"]
    assert scheme in SCHEMES + ("auto",), v["id"]
    assert expect in ("ok", DECRYPTION, UNKNOWN, ENCRYPTION), v["id"]
    if expect == "ok":
        pt = decrypt_text(scheme, key, v["ciphertext"])
        assert pt == plaintext_of(v), f"{v['id']}: decrypt mismatch"
        if "iv" in v and plaintext_of(v):  # empty plaintext: decrypt only (it cannot be encrypted)
            assert scheme != "auto", v["id"]
            out = encrypt_bytes(scheme, key, plaintext_of(v), bytes.fromhex(v["iv"]))
            assert b64(out) == v["ciphertext"], f"{v['id']}: encrypt mismatch"
        return
    if expect == ENCRYPTION:
        try:
            encrypt_bytes(scheme, key, plaintext_of(v), bytes.fromhex(v.get("iv", "00" * 16)))
        except PNError as e:
            assert e.category == ENCRYPTION and e.reason == v.get("reason", e.reason), f"{v['id']}: {e}"
            return
        raise AssertionError(f"{v['id']}: encryption did not fail")
    try:
        decrypt_text(scheme, key, v["ciphertext"])
    except PNError as e:
        assert e.category == expect, f"{v['id']}: expected {expect}, model says {e}"
        assert e.reason == v.get("reason", e.reason), f"{v['id']}: expected reason {v.get('reason')}, model says {e}"
        return
    raise AssertionError(f"{v['id']}: decryption did not fail")
