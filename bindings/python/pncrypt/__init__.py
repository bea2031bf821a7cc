"""pncrypt: PubNub cipherKey encryption (messages and files), byte-compatible with the PubNub SDKs.

A ctypes binding of libpncrypt (include/pncrypt.h); no dependencies. The library is found through the
PNCRYPT_LIB environment variable (a path to libpncrypt.so; an override), then the copy bundled in this package
(wheels and `pip install ./bindings/python` put it there), then `pkg-config --variable=libdir pncrypt`, then the
system loader.

    m = CryptoModule("enigma")                 # encrypts with acrh; "legacy", "legacy-random-iv", "legacy33"
    wire = m.message_encrypt('{"text":"hi"}')   # the JSON to publish: '"UE5FRAFBQ1JI..."'
    value, status = m.message_decrypt(wire)     # messages as the SDKs publish them: ('{"text":"hi"}', None)
    text = m.encrypt("hello")                   # Base64 text
    assert m.decrypt(text) == "hello"           # text as the SDKs decrypt it: a str (text=False: bytes)
    m.add_key("older-key")                      # also tried on decryption (key rotation)
    moved = m.rekey_many(old_texts, to=CryptoModule("new-key"))   # .texts, .statuses, .ok, .failed

Read SDK messages with `message_decrypt` and SDK text with `decrypt()`, which reads text by default (as the CLI's
`pncrypt decrypt` and the C library's pncrypt_decrypt_text do): their JSON and text checks tell the two legacy
readings (fixed IV, random IV) apart. A binary plaintext is the explicit choice `decrypt(..., text=False)`, which
returns bytes and reads headerless data by the files' rule (a decrypted IV in the fixed-IV reading's first block
means random-IV data); binary data written with the fixed IV needs `scheme="legacy"` there.

Every failure raises `Error`, whose `.code` is the library's PNCRYPT_E_ constant and `.message` one line; a bad
cipher key raises `InvalidKeyError`, which is also a `ValueError`. Keys and texts may be `str` (UTF-8) or bytes
everywhere. Decryption delivers a plaintext only when exactly one (key, scheme) reading qualifies (the library's
one procedure; text, the default, adds valid UTF-8 to the rules). A CryptoModule may be shared between threads once its
keys are added (the library releases the GIL during each call); `close()` during other threads' calls waits for
none of them and frees the module when the last one returns.
"""
import array
import ctypes
import ctypes.util
import os
import subprocess
import threading

__all__ = ["ChannelKeys", "CryptoModule", "Error", "InvalidKeyError", "RekeyResult", "decrypt_many_channels",
           "envelope_decrypt_channels", "envelope_rekey_channels", "library_version", "message_decrypt_channels",
           "reason", "rekey_channels", "rekey_many_channels", "POLICIES", "__version__"]

# The error codes of pncrypt.h (stable across versions), E_ARGUMENT ... E_INTERNAL, and its other constants:
# generated from the header (scripts/build/gen_python_constants.py), never copied by hand.
from ._constants import *  # noqa: F401,F403 (E_..., OK, REKEY_..., ON_ERROR_..., ERROR_MESSAGE_SIZE)

# The library's name of each code (PNCryptError.Code, include/pncrypt.h): the "reason" of its status JSON. The
# retired E_INVALID_UTF8 is a key-dependent failure like bad padding: one public failure, wrongKeyOrCorrupt.
_REASONS = {
    E_ARGUMENT: "invalidArgument", E_NOMEM: "noMemory", E_ENCRYPTION: "encryption",
    E_EMPTY_PLAINTEXT: "emptyPlaintext", E_NOT_ENCRYPTABLE: "notEncryptable", E_ENCRYPTION_FAILED: "encryptionFailed",
    E_DECRYPTION: "decryption", E_NOT_BASE64: "notBase64", E_WRONG_KEY_OR_CORRUPT: "wrongKeyOrCorrupt",
    E_INVALID_UTF8: "wrongKeyOrCorrupt", E_MALFORMED_HEADER: "malformedHeader", E_NOT_ENCRYPTED: "notEncrypted",
    E_AMBIGUOUS: "ambiguous", E_UNKNOWN_CRYPTOR: "unknownCryptor", E_INVALID_ARGUMENT: "invalidArgument",
    E_INVALID_KEY: "invalidKey", E_INVALID_IV: "invalidIV", E_INVALID_VALUE: "invalidValue", E_JSON: "json",
    E_INVALID_JSON: "invalidJSON", E_JSON_TOO_DEEP: "jsonTooDeep", E_COMPRESSION: "compression",
    E_CORRUPT_COMPRESSED: "corruptCompressedData", E_OUTPUT_LIMIT: "outputLimitExceeded", E_IO: "io",
    E_FILE_NOT_FOUND: "fileNotFound", E_INTERNAL: "internal",
}


def reason(code):
    """The library's name of an error code (a PNCRYPT_E_ constant, e.g. `Error.code`), as the "reason" of its
    status JSON names it: "notBase64", "wrongKeyOrCorrupt", "ambiguous", ...; "failed" for a code it does not
    know. Every key-dependent failure is "wrongKeyOrCorrupt" (which check failed is never told)."""
    return _REASONS.get(code, "failed")


# message_decrypt's on_error values and the PNCRYPT_ON_ERROR_ constants they stand for.
POLICIES = {"marker": ON_ERROR_MARKER, "passthrough": ON_ERROR_PASSTHROUGH, "fail": ON_ERROR_FAIL}


class Error(Exception):
    """A libpncrypt failure: `code` (a negative PNCRYPT_E_ constant) and `message` (one line). From the batch
    methods, `index` is the position of the item that failed (None otherwise). The status of
    `message_decrypt` also has `json`: the status as one line of JSON text, the one status form of every shell
    (docs/formats.md section 4.2; None otherwise). The one decryption failure (code E_WRONG_KEY_OR_CORRUPT) does not
    say which check failed; `pncrypt diagnose`, given the same key and the encrypted text, says so locally."""

    def __init__(self, code, message, index=None, json=None):
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message
        self.index = index
        self.json = json


class InvalidKeyError(Error, ValueError):
    """A cipher key the library refuses: empty, not valid UTF-8 (bytes are never decoded lossily), or holding a
    NUL. Also a ValueError."""


class _Status(ctypes.Structure):
    """pncrypt_error: { int code; char message[ERROR_MESSAGE_SIZE]; }"""
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * ERROR_MESSAGE_SIZE)]

    def error(self):
        kind = InvalidKeyError if self.code == E_INVALID_KEY else Error
        return kind(self.code, _python_hints(self.message.decode("utf-8", "replace")))


# What the C library says to do when the headerless rule cannot tell the two legacy readings apart, and when a text
# function's plaintext may be binary, and the same in this binding's calls.
_HINTS = (
    (' (scheme "legacy" or "legacy-random-iv")', " (scheme='legacy' or 'legacy-random-iv')"),
    (" (read as text: a binary plaintext needs pncrypt_decrypt or pncrypt_decrypt_many)",
     " (read as text: a binary plaintext needs text=False)"),
)


def _python_hints(message):
    for c_hint, python_hint in _HINTS:
        if message.endswith(c_hint):
            return message[: -len(c_hint)] + python_hint
    return message


_BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libpncrypt.so.0")


def _find_library():
    """The libpncrypt to load, and where it came from: PNCRYPT_LIB (an override), then the library bundled in
    this package (a wheel, or `pip install ./bindings/python`), then `pkg-config pncrypt`, then the system
    loader. Returns (path or name, list of what was looked at, for the error message)."""
    tried = []
    path = os.environ.get("PNCRYPT_LIB")
    if path:
        return path, [f"PNCRYPT_LIB={path}"]
    if os.path.exists(_BUNDLED):
        return _BUNDLED, [f"the bundled {_BUNDLED}"]
    tried.append(f"no bundled library ({_BUNDLED})")
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "pncrypt"], capture_output=True, text=True,
                                check=True).stdout.strip()
        for name in ("libpncrypt.so.0", "libpncrypt.so", "libpncrypt.dylib"):
            if libdir and os.path.exists(os.path.join(libdir, name)):
                return os.path.join(libdir, name), tried + [f"pkg-config pncrypt: {libdir}/{name}"]
        tried.append(f"pkg-config pncrypt: no library in {libdir!r}")
    except (OSError, subprocess.CalledProcessError):
        tried.append("pkg-config pncrypt: not found")
    found = ctypes.util.find_library("pncrypt")
    return found or "libpncrypt.so.0", tried + [f"the system loader: {found or 'libpncrypt.so.0'}"]


def _load():
    path, tried = _find_library()
    try:
        lib = ctypes.CDLL(path)
    except OSError as error:
        raise ImportError(
            f"pncrypt: cannot load libpncrypt ({error}). Looked at: {'; '.join(tried)}. Install a pncrypt wheel "
            "(scripts/build/build_wheel.sh makes one), or `pip install ./bindings/python` from a pncrypt checkout with "
            "Swift installed, or build it with scripts/build/install_lib.sh PREFIX and set "
            "PNCRYPT_LIB=PREFIX/lib/libpncrypt.so.0. The library needs libcrypto (OpenSSL 3) and libz.") from error
    P = ctypes.POINTER
    status = P(_Status)
    out = P(ctypes.c_void_p)
    signatures = {
        "pncrypt_version": ([], ctypes.c_char_p),
        "pncrypt_version_number": ([], ctypes.c_uint),
        "pncrypt_module_new": ([ctypes.c_char_p, ctypes.c_char_p, out, status], ctypes.c_int),
        "pncrypt_module_free": ([ctypes.c_void_p], None),
        "pncrypt_encrypt": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, out, status], ctypes.c_int),
        "pncrypt_module_add_key": ([ctypes.c_void_p, ctypes.c_char_p, status], ctypes.c_int),
        "pncrypt_module_set_reading": ([ctypes.c_void_p, ctypes.c_char_p, status], ctypes.c_int),
        "pncrypt_module_set_plaintext": ([ctypes.c_void_p, ctypes.c_char_p, status], ctypes.c_int),
        "pncrypt_decrypt": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, out,
                             P(ctypes.c_size_t), status], ctypes.c_int),
        "pncrypt_decrypt_text": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, out,
                                  P(ctypes.c_size_t), status], ctypes.c_int),
        "pncrypt_decrypt_many_text": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                       ctypes.c_void_p, ctypes.c_size_t, out, ctypes.c_void_p, ctypes.c_void_p,
                                       status], ctypes.c_int),
        "pncrypt_rekey": ([ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, out,
                           P(ctypes.c_int), status], ctypes.c_int),
        "pncrypt_rekey_many": ([ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p,
                                ctypes.c_size_t, out, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, status],
                               ctypes.c_int),
        "pncrypt_encrypt_file": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, status], ctypes.c_int),
        "pncrypt_decrypt_file": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, status], ctypes.c_int),
        "pncrypt_decrypt_file_scheme": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                         status], ctypes.c_int),
        "pncrypt_message_encrypt": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, out, status], ctypes.c_int),
        "pncrypt_message_encrypt_style": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, out,
                                           status], ctypes.c_int),
        "pncrypt_message_decrypt": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int, out, status],
                                    ctypes.c_int),
        "pncrypt_message_decrypt_status": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int, out,
                                            out, status], ctypes.c_int),
        "pncrypt_envelope_decrypt": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int,
                                      out, out, status], ctypes.c_int),
        "pncrypt_encrypt_many": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t,
                                  out, P(ctypes.c_size_t), ctypes.c_void_p, status], ctypes.c_int),
        "pncrypt_decrypt_many": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p,
                                  ctypes.c_size_t, out, ctypes.c_void_p, ctypes.c_void_p, status], ctypes.c_int),
        "pncrypt_field_encrypt": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                   out, status], ctypes.c_int),
        "pncrypt_field_decrypt": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int,
                                   out, out, status], ctypes.c_int),
        "pncrypt_field_rekey": ([ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                 out, P(ctypes.c_int), status], ctypes.c_int),
        "pncrypt_field_encrypt_many": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                        ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, out, ctypes.c_void_p,
                                        ctypes.c_void_p, status], ctypes.c_int),
        "pncrypt_field_decrypt_many": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                        ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, out, ctypes.c_void_p,
                                        ctypes.c_void_p, status], ctypes.c_int),
        "pncrypt_field_rekey_many": ([ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                      ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, out, ctypes.c_void_p,
                                      ctypes.c_void_p, ctypes.c_void_p, status], ctypes.c_int),
        "pncrypt_channel_keys_new": ([out, status], ctypes.c_int),
        "pncrypt_channel_keys_add": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, status], ctypes.c_int),
        "pncrypt_channel_keys_free": ([ctypes.c_void_p], None),
        "pncrypt_envelope_decrypt_channels": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                               ctypes.c_size_t, ctypes.c_int, out, out, status], ctypes.c_int),
        "pncrypt_envelope_rekey_channels": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                             ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, out, out, status],
                                            ctypes.c_int),
        "pncrypt_field_decrypt_channels": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                            ctypes.c_size_t, ctypes.c_int, out, out, status], ctypes.c_int),
        "pncrypt_field_rekey_channels": ([ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                          ctypes.c_char_p, ctypes.c_size_t, out, P(ctypes.c_int), status],
                                         ctypes.c_int),
        "pncrypt_field_decrypt_channels_many": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                                 ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, out,
                                                 ctypes.c_void_p, ctypes.c_void_p, status], ctypes.c_int),
        "pncrypt_field_rekey_channels_many": ([ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                               ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, out,
                                               ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, status],
                                              ctypes.c_int),
        "pncrypt_free": ([ctypes.c_void_p], None),
    }
    for name, (argtypes, restype) in signatures.items():
        function = getattr(lib, name)
        function.argtypes = argtypes
        function.restype = restype
    return lib


_lib = _load()


def library_version():
    """The loaded library's version, e.g. "0.1.0"."""
    return _lib.pncrypt_version().decode("ascii")


#: The package's version: the version of the libpncrypt it runs on (`pncrypt_version()`), e.g. "0.2.0".
__version__ = library_version()


_local = threading.local()


def _scratch():
    """This thread's reusable (status, output pointer, length) records: no allocation per call."""
    try:
        return _local.records
    except AttributeError:
        _local.records = (_Status(), ctypes.c_void_p(), ctypes.c_size_t())
        return _local.records


_string_at = ctypes.string_at
_free = _lib.pncrypt_free


def _take(pointer, length=-1):
    """Copies a buffer the library returned (`length` bytes; -1: up to its NUL), then frees it (exactly once,
    whatever happens). The next call sets the pointer again (the library sets outputs to NULL first)."""
    address = pointer.value
    if not address:
        return b""
    try:
        return _string_at(address, length)
    finally:
        _free(address)


# Scheme names as the library takes them; "auto" is NULL (the library's default, no string to read).
_SCHEMES = {"auto": None, None: None, "acrh": b"acrh", "legacy": b"legacy",
            "legacy-random-iv": b"legacy-random-iv", "legacy33": b"legacy33"}


def _scheme(name):
    """A decryption scheme for the library: NULL for "auto" and None, else the name's bytes. A list of readings
    is a str joined by commas ("auto,legacy33") or a list or tuple of names (["auto", "legacy33"]); the library
    reads it (an Error E_ARGUMENT says what is wrong with one)."""
    if isinstance(name, (list, tuple)):
        name = ",".join(name)
    return _SCHEMES[name] if name in _SCHEMES else name.encode("utf-8")


def _policy(on_error):
    """The C policy of an on_error name ("marker", "passthrough", "fail")."""
    policy = POLICIES.get(on_error)
    if policy is None:
        raise Error(E_ARGUMENT, f"on_error must be one of {', '.join(POLICIES)}")
    return policy


def _utf8(text, name):
    if type(text) is str:
        return text.encode("utf-8")
    if isinstance(text, str):
        return text.encode("utf-8")
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text)
    raise TypeError(f"{name} must be str or bytes, not {type(text).__name__}")


def _pointer(field):
    """A `field=` argument: an RFC 6901 JSON Pointer ("/message", "/payload/text", "/items/0") as UTF-8 bytes."""
    if not isinstance(field, str):
        raise TypeError(f"field must be a str (a JSON Pointer such as \"/message\"), not {type(field).__name__}")
    return field.encode("utf-8")


def _record_batch(items, on_error, invoke):
    """One record batch call: the records (str), the codes, the outcomes (rekey) and the status. `invoke(data,
    lengths, count, out, offsets, outcomes, codes, status)` makes the library call (addresses for the arrays).
    on_error as for `CryptoModule.decrypt_many`: "raise" raises the first failed item's Error, "none" puts None in
    its place, "return" its Error, "keep" leaves what the library wrote."""
    data, lengths = _pack(items, "record")
    count = len(lengths)
    offsets = array.array(_SIZE_T, bytes(ctypes.sizeof(ctypes.c_size_t) * (count + 1)))
    codes = array.array(_INT, bytes(ctypes.sizeof(ctypes.c_int) * count))
    outcomes = array.array(_INT, bytes(ctypes.sizeof(ctypes.c_int) * count))
    status, out, _ = _scratch()
    code = invoke(data, _address(lengths), count, out, _address(offsets), _address(outcomes), _address(codes), status)
    if code != 0:
        raise status.error()
    records = _split_records(_take(out, offsets[count]), offsets, count)
    if status.code != 0 and on_error != "keep":
        errors = _item_errors(status, codes)
        if on_error == "raise":
            raise errors[0]
        for error in errors:
            records[error.index] = None if on_error == "none" else error
    return records, codes.tolist(), outcomes.tolist(), status


def _split_records(blob, offsets, count):
    """The records of a field batch's output, as str."""
    starts = offsets.tolist()
    return [blob[start:end].decode("utf-8") for start, end in zip(starts, starts[1:count + 1])]


def _key(key):
    """A cipher key's bytes: a str as UTF-8, bytes as they are (the library refuses bytes that are not UTF-8)."""
    if isinstance(key, str):
        raw = key.encode("utf-8")
    elif isinstance(key, (bytes, bytearray, memoryview)):
        raw = bytes(key)
    else:
        raise TypeError(f"a cipher key must be str or bytes, not {type(key).__name__}")
    if b"\0" in raw:
        raise InvalidKeyError(E_INVALID_KEY, "the cipher key has a NUL character")
    return raw


def _decode_items(blob, starts, codes, failed):
    """The items of a text batch as str (the library delivered valid UTF-8). All ASCII, the common case: one
    decode and slices by the byte offsets. Otherwise each item is decoded; one that is not UTF-8 (a library
    without the UTF-8 rule for single readings) is marked failed in `codes` as E_INVALID_UTF8, never returned.
    `failed`: some items failed; theirs are None."""
    if blob.isascii():
        whole = blob.decode("ascii")
        if failed:
            return [None if code else whole[start:end] for start, end, code in zip(starts, starts[1:], codes)]
        return [whole[start:end] for start, end in zip(starts, starts[1:])]
    items = []
    for index, (start, end) in enumerate(zip(starts, starts[1:])):
        try:
            items.append(blob[start:end].decode("utf-8"))
        except UnicodeDecodeError:
            codes[index] = E_INVALID_UTF8
            items.append(None)
    return items


class RekeyResult:
    """What `CryptoModule.rekey_many` did: `texts` (str, in order; a failed item unchanged), `statuses` ("rekeyed",
    "current" when already under the target's key and scheme, "failed"), `codes` (0, or the failed item's
    PNCRYPT_E_ code), `ok` (no item failed) and `failed` (how many did)."""

    __slots__ = ("texts", "statuses", "codes", "failed", "message")

    def __init__(self, texts, statuses, codes, failed, message):
        self.texts = texts
        self.statuses = statuses
        self.codes = codes
        self.failed = failed
        self.message = message

    @property
    def ok(self):
        """True when no item failed."""
        return self.failed == 0

    def __repr__(self):
        return f"RekeyResult({len(self.texts)} texts, {self.failed} failed)"


_OUTCOMES = ("failed", "rekeyed", "current")


def _path(path):
    return os.fsencode(os.fspath(path))


def _typecode(ctype, candidates):
    """The `array` typecode whose items are laid out as `ctype` (arrays are passed to the library by address)."""
    return next(c for c in candidates if array.array(c).itemsize == ctypes.sizeof(ctype))


_SIZE_T = _typecode(ctypes.c_size_t, "QLI")
_INT = _typecode(ctypes.c_int, "ihl")
# The names of the codes, for batch items after the first failure (the library's message is the first one's).
_CODE_NAMES = {value: name for name, value in globals().items() if name.startswith("E_")}


def _address(values):
    return values.buffer_info()[0]


def _pack(items, name):
    """A batch as the library takes it: the items' bytes back to back and an array of their byte lengths.
    str items are UTF-8; the common cases (all bytes, all ASCII str) take a few C-level passes, no Python loop."""
    if not isinstance(items, (list, tuple)):
        items = list(items)
    try:
        data = b"".join(items)
    except TypeError:
        try:
            text = "".join(items)
        except TypeError:
            text = None
        if text is not None:
            data = text.encode("utf-8")
            if len(data) == len(text):  # ASCII: each str's length is its byte length
                return data, array.array(_SIZE_T, map(len, items))
        items = [_utf8(item, name) for item in items]
        data = b"".join(items)
    lengths = array.array(_SIZE_T, map(len, items))
    if sum(lengths) != len(data):  # a memoryview of wider items: len() counts items, not bytes
        items = [bytes(item) for item in items]
        lengths = array.array(_SIZE_T, map(len, items))
    return data, lengths


def _item_errors(status, codes):
    """The batch items that failed, as Errors with their index; the first carries the library's message."""
    errors = []
    for index, code in enumerate(codes):
        if code:
            message = _python_hints(status.message.decode("utf-8", "replace")) if not errors else \
                f"item {index}: {_CODE_NAMES.get(code, 'failed')}"
            errors.append(Error(code, message, index))
    return errors


class _Handle:
    """A library object a Python object holds (a module, a channel-key map): each C call on it is counted in
    flight (`_call`), and close() during calls in other threads (ctypes releases the GIL during each one) leaves
    them the object: it is freed (`_FREE`, the header's function) when the last of them returns, and every call that
    begins after close() raises Error ("... is closed"). Every handle type of the binding is one of these
    (test_trust.py enumerates them against the header's `_free` functions)."""

    _FREE = None  # the name of the header's function that releases the object
    _CLOSED = "the object is closed"  # the message of a call after close()

    def _start(self):
        """Sets up the count before anything can fail (close() and __del__ then find it)."""
        self._handle = None
        # The calls in flight (each holds the object: close() during one frees it when the last returns), and a
        # handle close() left to the last of them.
        self._lock = threading.Lock()
        self._calls = 0
        self._closing = None

    def close(self):
        """Releases the object (also done when it is garbage-collected). Safe while other threads' calls on it
        are running: those finish normally (the object and its keys stay theirs), it is freed when the last of
        them returns, and every call that begins after close() raises Error ("... is closed")."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # __init__ failed before the object existed
            return
        with lock:
            handle, self._handle = self._handle, None
            if handle and self._calls:
                self._closing = handle
                return
        if handle:
            getattr(_lib, self._FREE)(handle)

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _enter(self):
        """The handle, counted in flight until `_leave`; Error when the object is closed."""
        with self._lock:
            handle = self._handle
            if not handle:
                raise Error(E_ARGUMENT, self._CLOSED)
            self._calls += 1
            return handle

    def _leave(self):
        with self._lock:
            self._calls -= 1
            handle = self._closing if self._calls == 0 else None
            if handle:
                self._closing = None
        if handle:  # close() came during the calls: the last one out frees the object
            getattr(_lib, self._FREE)(handle)

    def _call(self, function, *args):
        """`function(handle, *args)` with the object held for the call (ctypes releases the GIL during it, so
        another thread may call close() meanwhile: the object is freed only when no call uses it)."""
        handle = self._enter()
        try:
            return function(handle, *args)
        finally:
            self._leave()

    def _call_with(self, other, function, *args):
        """`function(handle, other's handle, *args)`, both objects held for the call."""
        handle = self._enter()
        try:
            return other._call(lambda other_handle: function(handle, other_handle, *args))
        finally:
            self._leave()


class CryptoModule(_Handle):
    """A cipher key (str, or bytes that are valid UTF-8) and the scheme to encrypt with ("acrh" by default,
    "legacy", "legacy-random-iv", "legacy33"), plus extra keys for decryption (`add_key`). Decryption reads a PNED
    header when there is one, as the pncrypt CLI does. For what the SDKs wrote: `message_decrypt` for messages,
    `decrypt(data)` for text (a str; `text=False` returns bytes). close() (or `with`) releases it, also while
    other threads' calls on it run (see _Handle.close)."""

    _FREE = "pncrypt_module_free"
    _CLOSED = "the module is closed"

    def __init__(self, cipher_key, scheme="acrh", reading=None, plaintext="json"):
        """`scheme` is the scheme to encrypt with. `reading` is how `message_decrypt` (and the message batches
        and envelopes) read messages: None or "auto" (a PNED header, else both legacy readings), one scheme, or a
        list of readings, "auto,legacy33" or ["auto", "legacy33"]: an archive mixing iOS 3.3 messages with later
        ones read in one pass, each message delivered only when exactly one reading of the list qualifies.
        `plaintext` is what the message methods (message_decrypt, envelope_decrypt, field=) require of a plaintext,
        for every reading alike: "json" (the default: UTF-8 JSON text, which a wrong key practically never gives) or
        "text" (UTF-8: a plaintext that is not JSON, from a publisher that encrypted a raw string, is returned as a
        JSON string, as the SDKs return it; a wrong key passes this more often: docs/security.md, "Residual
        risk"), as `pncrypt message decrypt --plaintext`."""
        self._start()
        status = _Status()
        handle = ctypes.c_void_p()
        key = _key(cipher_key)
        code = _lib.pncrypt_module_new(key, None if scheme is None else scheme.encode("ascii"),
                                       ctypes.byref(handle), ctypes.byref(status))
        if code != 0:
            raise status.error()
        self._handle = handle.value
        self.scheme = scheme or "acrh"
        if reading is not None and _lib.pncrypt_module_set_reading(self._handle, _scheme(reading),
                                                                   ctypes.byref(status)) != 0:
            error = status.error()
            self.close()
            raise error
        self.plaintext = plaintext
        if plaintext != "json":
            if self._call(_lib.pncrypt_module_set_plaintext, _utf8(plaintext, "plaintext"), ctypes.byref(status)):
                error = status.error()
                self.close()
                raise error

    def add_key(self, key):
        """Adds a key tried on decryption (str or UTF-8 bytes), for key rotation; the module still encrypts with
        its first key. Every decryption then delivers a plaintext only when exactly one (key, scheme) reading
        qualifies (two keys that both do: an Error with code E_AMBIGUOUS). Add keys before sharing the module
        between threads. Raises InvalidKeyError (a ValueError) for a bad key, Error for one already added."""
        status = _Status()
        if self._call(_lib.pncrypt_module_add_key, _key(key), ctypes.byref(status)) != 0:
            raise status.error()

    def encrypt(self, data):
        """Encrypts bytes (a str is encoded as UTF-8); returns standard Base64 text (acrh: header || ciphertext,
        ...)."""
        data = data.encode("utf-8") if type(data) is str else _utf8(data, "data")
        status, out, _ = _scratch()
        if self._call(_lib.pncrypt_encrypt, data, len(data), out, status) != 0:
            raise status.error()
        return _take(out).decode("ascii")

    def decrypt(self, data, scheme="auto", text=True):
        """Decrypts Base64 text (str or bytes) with every key of the module. For SDK messages use
        `message_decrypt(json_text)`. `decrypt(data)` reads text by default (text=True, as the SDKs decrypt
        text) and returns a str: a reading qualifies only as valid UTF-8, and the text tells the two legacy
        readings apart; a binary plaintext fails, with an error that names text=False, the explicit choice that
        returns bytes. `scheme` "auto" reads a PNED header when present, otherwise both legacy readings (fixed IV
        and IV first); exactly one reading must qualify. As bytes (text=False) there is no text to check, so
        headerless data of two blocks or more is read as files are: the random-IV reading (the SDKs' binary
        format) when the fixed-IV reading's first block is a decrypted IV (noise), otherwise the fixed-IV one;
        binary data written with the fixed IV therefore needs the scheme named ("legacy", "legacy-random-iv") to
        read exactly one. A list of readings, "auto,legacy33" or ["auto", "legacy33"], tries every reading of
        each (iOS 3.3 data beside later data) and exactly one must qualify. CBC has no integrity check: as bytes,
        where one reading is left (a PNED header, one headerless block, an explicit scheme), a wrong key or a foreign ciphertext passes the padding check about
        once in 256 and its garbage is returned; text (the default) narrows that to garbage that is also UTF-8
        (docs/security.md, "Residual risk")."""
        raw = data.encode("utf-8") if type(data) is str else _utf8(data, "data")
        status, out, length = _scratch()
        function = _lib.pncrypt_decrypt_text if text else _lib.pncrypt_decrypt
        code = self._call(function, None if scheme == "auto" else _scheme(scheme), raw, len(raw), out, length,
                        status)
        if code != 0:
            raise status.error()
        plaintext = _take(out, length.value)
        if not text:
            return plaintext
        try:
            return plaintext.decode("utf-8")
        except UnicodeDecodeError:  # only from a library without the UTF-8 rule for single readings
            raise Error(E_INVALID_UTF8, "the plaintext is not valid UTF-8") from None

    def encrypt_many(self, items, field=None):
        """Encrypts each item (bytes-like; a str is encoded as UTF-8) in one library call, each with its own IV
        where the scheme has one, and returns the Base64 texts in order: the batch form of `encrypt`, for
        throughput. All or nothing: if an item cannot be encrypted (an empty one), raises the Error of the first
        such item, with its `index`.
        With field= (a JSON Pointer, "/message"), each item is a JSON record: its field's value, exactly as given,
        is encrypted as a message (as `message_encrypt(..., field=)`), and the records are returned (str) with the
        field replaced by the wire JSON, every other byte kept; a record without the field raises (E_INVALID_VALUE,
        naming the pointer)."""
        if field is not None:
            return self._field_batch(_lib.pncrypt_field_encrypt_many, items, field, None, "raise")[0]
        data, lengths = _pack(items, "item")
        count = len(lengths)
        codes = array.array(_INT, bytes(ctypes.sizeof(ctypes.c_int) * count))
        status, out, length = _scratch()
        code = self._call(_lib.pncrypt_encrypt_many, data, len(data), _address(lengths), count, out, length,
                                         _address(codes), status)
        if code != 0:
            raise status.error()
        text = _take(out, length.value).decode("ascii")
        if status.code != 0:
            raise _item_errors(status, codes)[0]
        return text.split("\n") if count else []

    def _field_batch(self, function, items, field, extra, on_error, to=None):
        """One field batch call (pncrypt_field_encrypt_many / _decrypt_many / _rekey_many): the records (str), the
        codes, the outcomes (rekey) and the status. on_error as for `decrypt_many`: "raise" raises the first failed
        item's Error, "none" puts None in its place, "return" its Error, "keep" leaves what the library wrote."""
        pointer = _pointer(field)

        def invoke(data, lengths, count, out, offsets, outcomes, codes, status):
            if function is _lib.pncrypt_field_rekey_many:
                return self._call_with(to, function, pointer, data, len(data), lengths, count, out, offsets, outcomes,
                                       codes, status)
            if function is _lib.pncrypt_field_decrypt_many:
                return self._call(function, pointer, data, len(data), lengths, count, extra, out, offsets, codes,
                                  status)
            return self._call(function, pointer, extra, data, len(data), lengths, count, out, offsets, codes, status)

        return _record_batch(items, on_error, invoke)

    def decrypt_many(self, texts, scheme="auto", on_error="raise", text=True, field=None):
        """Decrypts each Base64 text (str or bytes) as `decrypt` does, in one library call, and returns the
        plaintexts in order (str, where an item qualifies only as valid UTF-8; bytes with text=False): the batch
        form of `decrypt`, for throughput.
        on_error="raise" (all or nothing): the first text that does not decrypt raises its Error, whose `index`
        says which; nothing is returned. on_error="none": such a text gives None in its place, and no exception
        object is made for it (a failed item costs about what a good one does); `None not in result` says that
        every item succeeded. on_error="return": such a text gives its Error (with `index`) in its place; the
        first failure's message is the library's, the others name their code.
        With field= (a JSON Pointer, "/message"), each text is a JSON record whose field holds the wire message
        (a JSON string of Base64): the records are returned (str) with the field replaced by the decrypted message
        (compact JSON), every other byte kept, as `message_decrypt(..., field=)` does; a record without the field
        (E_INVALID_VALUE, naming the pointer) or whose field does not decrypt fails as above (`scheme` and `text`
        do not apply: the field is read as a message)."""
        if on_error not in ("raise", "none", "return"):
            raise Error(E_ARGUMENT, 'on_error must be "raise", "none" or "return"')
        if field is not None:
            return self._field_batch(_lib.pncrypt_field_decrypt_many, texts, field, POLICIES["passthrough"],
                                     on_error)[0]
        plaintexts, codes, status = self._decrypt_batch(texts, scheme, text, with_status=True)
        if status.code == 0 or on_error == "none":
            return plaintexts
        errors = _item_errors(status, codes)
        if on_error == "raise":
            raise errors[0]
        for error in errors:
            plaintexts[error.index] = error
        return plaintexts

    def _decrypt_batch(self, texts, scheme="auto", text=False, with_status=False):
        """`decrypt_many`'s one library call: (plaintexts, codes), a failed item None in plaintexts and its
        PNCRYPT_E_ code in codes (an array; 0 for an item that succeeded); no exception object per failed item. With
        with_status, also this thread's status record (the first failure's code and message; code 0 when every
        item succeeded), valid until the next call."""
        data, lengths = _pack(texts, "text")
        count = len(lengths)
        offsets = array.array(_SIZE_T, bytes(ctypes.sizeof(ctypes.c_size_t) * (count + 1)))
        codes = array.array(_INT, bytes(ctypes.sizeof(ctypes.c_int) * count))
        status, out, _ = _scratch()
        function = _lib.pncrypt_decrypt_many_text if text else _lib.pncrypt_decrypt_many
        code = self._call(function, _scheme(scheme), data, len(data), _address(lengths), count, out,
                        _address(offsets), _address(codes), status)
        if code != 0:
            raise status.error()
        blob = _take(out, offsets[count])
        starts = offsets.tolist()
        failed = status.code != 0
        if text:
            plaintexts = _decode_items(blob, starts, codes, failed)
            if not failed and None in plaintexts:
                status.code = E_INVALID_UTF8
                status.message = b"the plaintext is not valid UTF-8"
                failed = True
            if failed:  # _decode_items gives a failed item's (empty) slice when the batch is not all ASCII
                plaintexts = [None if code else item for item, code in zip(plaintexts, codes)]
        elif failed:
            plaintexts = [None if code else blob[start:end] for start, end, code in zip(starts, starts[1:], codes)]
        else:
            plaintexts = [blob[start:end] for start, end in zip(starts, starts[1:])]
        return (plaintexts, codes, status) if with_status else (plaintexts, codes)

    def rekey(self, text, to, field=None):
        """Moves one wire text (Base64, str or bytes, with or without JSON quotes) from this module's keys to the
        first key and the scheme of `to` (a CryptoModule): its plaintext must qualify as a message under exactly
        one reading (every key, a PNED header or both legacy readings). Returns the new text, or the text itself
        when it is already under `to`'s key and scheme. Raises Error when it cannot be moved.
        With field= (a JSON Pointer, "/message"), `text` is a JSON record and its field (a JSON string of Base64)
        is moved; the record is returned with every other byte kept. A record without the field raises
        E_INVALID_VALUE naming the pointer."""
        raw = text.encode("utf-8") if type(text) is str else _utf8(text, "text")
        status, out, _ = _scratch()
        if field is not None:
            if self._call_with(to, _lib.pncrypt_field_rekey, _pointer(field), raw, len(raw), out, None, status) != 0:
                raise status.error()
            return _take(out).decode("utf-8")
        if self._call_with(to, _lib.pncrypt_rekey, raw, len(raw), out, None, status) != 0:
            raise status.error()
        return _take(out).decode("utf-8")

    def rekey_many(self, texts, to, field=None):
        """`rekey` for many texts in one library call; never raises for an item. Returns a RekeyResult: `.texts`
        (str; a failed item unchanged), `.statuses` ("rekeyed", "current", "failed"), `.codes`, `.ok` (no item
        failed), `.failed` (how many did). With field= (a JSON Pointer), the texts are JSON records and each one's
        field is moved (as `rekey(..., field=)`); a record without the field fails, unchanged."""
        if field is not None:
            return _rekey_result(self._field_batch(_lib.pncrypt_field_rekey_many, texts, field, None, "keep",
                                                   to=to))
        data, lengths = _pack(texts, "text")
        count = len(lengths)
        offsets = array.array(_SIZE_T, bytes(ctypes.sizeof(ctypes.c_size_t) * (count + 1)))
        outcomes = array.array(_INT, bytes(ctypes.sizeof(ctypes.c_int) * count))
        codes = array.array(_INT, bytes(ctypes.sizeof(ctypes.c_int) * count))
        status, out, _ = _scratch()
        code = self._call_with(to, _lib.pncrypt_rekey_many, data, len(data), _address(lengths), count, out,
                                       _address(offsets), _address(outcomes), _address(codes), status)
        if code != 0:
            raise status.error()
        blob = _take(out, offsets[count])
        starts = offsets.tolist()
        if blob.isascii():
            whole = blob.decode("ascii")
            texts = [whole[start:end] for start, end in zip(starts, starts[1:])]
        else:
            texts = [blob[start:end].decode("utf-8", "replace") for start, end in zip(starts, starts[1:])]
        failed = outcomes.count(0)
        message = status.message.decode("utf-8", "replace") if status.code else ""
        return RekeyResult(texts, [_OUTCOMES[o] for o in outcomes], codes.tolist(), failed, message)

    def encrypt_file(self, src, dst):
        """Encrypts the file `src` into `dst` (streamed; `dst` appears only when everything succeeded)."""
        status = _Status()
        if self._call(_lib.pncrypt_encrypt_file, _path(src), _path(dst), ctypes.byref(status)) != 0:
            raise status.error()

    def decrypt_file(self, src, dst, scheme="auto"):
        """Decrypts the file `src` into `dst`, streamed, all or nothing; `scheme` as `pncrypt decrypt --binary`."""
        status = _Status()
        code = self._call(_lib.pncrypt_decrypt_file_scheme, None if scheme is None else scheme.encode("ascii"),
                                                _path(src), _path(dst), ctypes.byref(status))
        if code != 0:
            raise status.error()

    def message_encrypt(self, json_text, style=None, field=None):
        """Encrypts a message's JSON text (it must parse); returns the JSON to publish, '"<Base64>"'. With a style
        ("compact", "apple", "python", "ascii", "go", "ruby", "php", "kotlin") the message is written again as that SDK
        writes it before it is encrypted; without one its text is encrypted exactly as given.
        With field= (an RFC 6901 JSON Pointer: "/message", "/payload/text", "/items/0"), `json_text` is a record
        (one line of an export) and only that field's value is the message: the record is returned with the field
        replaced by the wire JSON, every other byte kept. A record without the field raises E_INVALID_VALUE naming
        the pointer; an invalid pointer E_ARGUMENT."""
        raw = _utf8(json_text, "json_text")
        status, out, _ = _scratch()
        if field is not None:
            code = self._call(_lib.pncrypt_field_encrypt, _pointer(field),
                              None if style is None else _utf8(style, "style"), raw, len(raw), out, status)
        elif style is None:
            code = self._call(_lib.pncrypt_message_encrypt, raw, len(raw), out, status)
        else:
            code = self._call(_lib.pncrypt_message_encrypt_style, _utf8(style, "style"), raw, len(raw), out,
                                                      status)
        if code != 0:
            raise status.error()
        return _take(out).decode("utf-8")

    def message_decrypt(self, json_text, on_error=None, field=None):
        """Decrypts a received message's JSON text. Returns (json_text, status): status is None when it was
        decrypted, else an Error saying why, whose `json` is the status in the one status form
        ('{"category":"decryption","reason":...,"message":...,"original":...}'; the text is then
        "DECRYPTION_ERROR" for on_error="marker", the original for "passthrough"). on_error="fail" raises the Error
        instead. Text that does not parse raises.
        With field= (an RFC 6901 JSON Pointer: "/message"), `json_text` is a record (one line of an export) whose
        field holds the wire message (a JSON string of Base64): the record is returned with the field replaced by
        the decrypted message (compact JSON; or "DECRYPTION_ERROR", or the field as it was, as on_error says),
        every other byte kept. A record without the field raises E_INVALID_VALUE naming the pointer.
        on_error=None (the default) is "passthrough" for a message, and for a record the library's default
        (ON_ERROR_DEFAULT: the field kept as it was, as `pncrypt message decrypt --field` does)."""
        if on_error is None:
            policy = ON_ERROR_DEFAULT if field is not None else ON_ERROR_PASSTHROUGH
        else:
            policy = _policy(on_error)
        raw = _utf8(json_text, "json_text")
        status, out, _ = _scratch()
        status_json = ctypes.c_void_p()
        if field is not None:
            code = self._call(_lib.pncrypt_field_decrypt, _pointer(field), raw, len(raw), policy, out,
                              ctypes.byref(status_json), status)
        else:
            code = self._call(_lib.pncrypt_message_decrypt_status, raw, len(raw), policy, out,
                              ctypes.byref(status_json), status)
        return _decrypted_with_status(code, status, out, status_json)

    def envelope_decrypt(self, json_text, on_error="passthrough", format=None):
        """Decrypts every encrypted field of a response: a history (v2), fetch messages (v3) or subscribe
        response, told by its structure (format: "v2", "v3", "subscribe" or "history" to accept only those).
        Returns (json_text, statuses): the response with everything but its messages kept as it was, and one
        status JSON text per message not decrypted ('{"index":N,"channel":...,"timetoken":...,"category":...}'),
        in document order; empty when every message was decrypted. on_error="fail" raises the first failure's Error
        instead. Text that is none of the formats raises."""
        policy = _policy(on_error)
        raw = _utf8(json_text, "json_text")
        status, out, _ = _scratch()
        statuses = ctypes.c_void_p()
        code = self._call(_lib.pncrypt_envelope_decrypt, None if format is None else _utf8(format, "format"),
                                             raw, len(raw), policy, out, ctypes.byref(statuses), status)
        if code != 0:
            raise status.error()
        text = _take(out).decode("utf-8")
        lines = _take(statuses).decode("utf-8").splitlines() if statuses.value else []
        return text, lines


def _decrypted_with_status(code, status, out, status_json):
    """A message or record decryption's (text, status): raises the call's error; status None when decrypted, else
    the Error with its status JSON."""
    if code != 0:
        raise status.error()
    text = _take(out).decode("utf-8")
    if status.code == 0:
        return text, None
    error = status.error()
    error.json = _take(status_json).decode("utf-8") if status_json.value else None
    return text, error


def _rekey_result(batch):
    """A record rekey batch's (records, codes, outcomes, status) as a RekeyResult."""
    records, codes, outcomes, status = batch
    message = status.message.decode("utf-8", "replace") if status.code else ""
    return RekeyResult(records, [_OUTCOMES[o] for o in outcomes], codes, outcomes.count(0), message)


class ChannelKeys(_Handle):
    """Each channel's own cipher keys, for apps that give each channel its own key (pubnub/swift#161): a dict
    {pattern: keys}, where a pattern is a channel's name, "name*" (every channel starting with name) or "*" (every
    other channel), and keys are a key (str or UTF-8 bytes), a list of keys (rotation: all are tried), or a
    CryptoModule (its keys). A channel is read with its own name's keys, else the longest "name*", else "*";
    never with another channel's. Two channels may share a key. The envelope functions take the dict itself, or
    a ChannelKeys made once for many calls; close() it (or use `with`) when done: close() wipes its keys, and
    during other threads' calls it leaves them the map until the last returns (see _Handle.close)."""

    _FREE = "pncrypt_channel_keys_free"
    _CLOSED = "the channel keys are closed"

    def __init__(self, channel_keys):
        if not isinstance(channel_keys, dict):
            raise TypeError(f"channel_keys must be a dict, not {type(channel_keys).__name__}")
        self._start()
        status = _Status()
        handle = ctypes.c_void_p()
        if _lib.pncrypt_channel_keys_new(ctypes.byref(handle), ctypes.byref(status)) != 0:
            raise status.error()
        self._handle = handle.value
        try:
            for pattern, keys in channel_keys.items():
                self._add(pattern, keys)
        except BaseException:
            self.close()
            raise

    def _add(self, pattern, keys):
        status = _Status()
        name = _utf8(pattern, "a channel pattern")
        add = lambda handle, module: _lib.pncrypt_channel_keys_add(handle, name, module, ctypes.byref(status))
        if isinstance(keys, CryptoModule):
            code = self._call_with(keys, add)
        else:
            keys = [keys] if isinstance(keys, (str, bytes, bytearray, memoryview)) else list(keys)
            if not keys:
                raise Error(E_ARGUMENT, f"no key for the channel pattern {pattern!r}")
            with CryptoModule(keys[0]) as module:
                for key in keys[1:]:
                    module.add_key(key)
                code = self._call_with(module, add)
        if code != 0:
            raise status.error()


def _with_channel_keys(channel_keys, body):
    """`body(handle)` with the C map of `channel_keys` (a ChannelKeys, held for the call; or a dict made into one
    for the call)."""
    if isinstance(channel_keys, ChannelKeys):
        return channel_keys._call(body)
    with ChannelKeys(channel_keys) as made:
        return made._call(body)


def envelope_decrypt_channels(json_text, channel_keys, on_error="passthrough", format=None, channel=None):
    """CryptoModule.envelope_decrypt with each message read only with its channel's keys (`channel_keys`: a dict
    as ChannelKeys takes, or a ChannelKeys). v3 and subscribe responses name each message's channel; a v2
    response names none: give `channel` (the channel it was fetched from) for it, and only for it. A message
    under another channel's key fails (E_WRONG_KEY_OR_CORRUPT), as does one whose channel has no keys
    (E_INVALID_KEY, "no key for channel ..."); each has its status line, which names the channel. Returns
    (json_text, statuses) as envelope_decrypt does; on_error="fail" raises the first failure instead."""
    policy = _policy(on_error)
    raw = _utf8(json_text, "json_text")
    status, out, _ = _Status(), ctypes.c_void_p(), None
    statuses = ctypes.c_void_p()
    name = None if format is None else _utf8(format, "format")
    where = None if channel is None else _utf8(channel, "channel")
    code = _with_channel_keys(channel_keys, lambda handle: _lib.pncrypt_envelope_decrypt_channels(
        handle, name, where, raw, len(raw), policy, ctypes.byref(out), ctypes.byref(statuses), ctypes.byref(status)))
    if code != 0:
        raise status.error()
    text = _take(out).decode("utf-8")
    lines = _take(statuses).decode("utf-8").splitlines() if statuses.value else []
    return text, lines


def envelope_rekey_channels(json_text, channel_keys, to, only_channel=None, format=None, channel=None):
    """Moves every message of a response to the first key of `to` (a CryptoModule: its key and scheme, "acrh",
    "legacy" or "legacy-random-iv"), each read only with its channel's keys (`channel_keys` as for
    envelope_decrypt_channels; `channel` likewise for v2). `only_channel`: move only that channel's messages (its
    exact name) and copy every other message as it is, unread. Returns (json_text, statuses): one status JSON
    text per message left unchanged (not decryptable with certainty, or its channel has no keys)."""
    raw = _utf8(json_text, "json_text")
    status, out = _Status(), ctypes.c_void_p()
    statuses = ctypes.c_void_p()
    name = None if format is None else _utf8(format, "format")
    where = None if channel is None else _utf8(channel, "channel")
    only = None if only_channel is None else _utf8(only_channel, "only_channel")
    code = _with_channel_keys(channel_keys, lambda handle: to._call(
        lambda module: _lib.pncrypt_envelope_rekey_channels(handle, name, where, only, module, raw, len(raw),
                                                            ctypes.byref(out), ctypes.byref(statuses),
                                                            ctypes.byref(status))))
    if code != 0:
        raise status.error()
    text = _take(out).decode("utf-8")
    lines = _take(statuses).decode("utf-8").splitlines() if statuses.value else []
    return text, lines


def _channel_field(channel_field):
    """A `channel_field=` argument: None ("/channel") or a JSON Pointer."""
    return None if channel_field is None else _pointer(channel_field)


def message_decrypt_channels(json_text, channel_keys, field, on_error="passthrough", channel_field=None):
    """CryptoModule.message_decrypt(..., field=) with the record's message read only with the keys of the record's
    channel (`channel_keys`: a dict as ChannelKeys takes, or a ChannelKeys): the JSON string at `channel_field`
    (a JSON Pointer; default "/channel", as in an export). A message under another channel's key fails
    (E_WRONG_KEY_OR_CORRUPT), as does one whose channel has no keys (E_INVALID_KEY, "no key for channel ..."); the
    status JSON names the channel. A record without a channel there (or where it is not a string) raises
    E_INVALID_VALUE naming the pointer, as does one without the field. Returns (json_text, status) as
    message_decrypt does; on_error="fail" raises instead."""
    policy = _policy(on_error)
    raw = _utf8(json_text, "json_text")
    pointer, where = _pointer(field), _channel_field(channel_field)
    status, out = _Status(), ctypes.c_void_p()
    status_json = ctypes.c_void_p()
    code = _with_channel_keys(channel_keys, lambda handle: _lib.pncrypt_field_decrypt_channels(
        handle, pointer, where, raw, len(raw), policy, ctypes.byref(out), ctypes.byref(status_json),
        ctypes.byref(status)))
    return _decrypted_with_status(code, status, out, status_json)


def decrypt_many_channels(records, channel_keys, field, on_error="raise", channel_field=None):
    """CryptoModule.decrypt_many(..., field=) with each record read only with its channel's keys (as
    message_decrypt_channels reads one), in one library call: returns the records (str) with their field
    decrypted; on_error "raise", "none" or "return" as decrypt_many says for a failed record."""
    if on_error not in ("raise", "none", "return"):
        raise Error(E_ARGUMENT, 'on_error must be "raise", "none" or "return"')
    return _channel_batch(records, channel_keys, field, channel_field, on_error)[0]


def _channel_batch(records, channel_keys, field, channel_field, on_error, to=None):
    """One pncrypt_field_decrypt_channels_many (or, with `to`, _rekey_channels_many) call: as _record_batch."""
    pointer, where = _pointer(field), _channel_field(channel_field)

    def invoke(data, lengths, count, out, offsets, outcomes, codes, status):
        if to is None:
            return _with_channel_keys(channel_keys, lambda handle: _lib.pncrypt_field_decrypt_channels_many(
                handle, pointer, where, data, len(data), lengths, count, POLICIES["passthrough"], out, offsets, codes,
                status))
        return _with_channel_keys(channel_keys, lambda handle: to._call(
            lambda module: _lib.pncrypt_field_rekey_channels_many(handle, module, pointer, where, data, len(data),
                                                                  lengths, count, out, offsets, outcomes, codes,
                                                                  status)))

    return _record_batch(records, on_error, invoke)


def rekey_channels(json_text, channel_keys, to, field, channel_field=None):
    """CryptoModule.rekey(..., field=) with the record's message read only with the old keys of its channel (as
    message_decrypt_channels reads it), moved to the first key of `to` (a CryptoModule) in its scheme. Returns the
    record; raises Error when it cannot be moved (another channel's key, a channel with no keys: E_INVALID_KEY; no
    channel field: E_INVALID_VALUE)."""
    raw = _utf8(json_text, "json_text")
    pointer, where = _pointer(field), _channel_field(channel_field)
    status, out = _Status(), ctypes.c_void_p()
    code = _with_channel_keys(channel_keys, lambda handle: to._call(
        lambda module: _lib.pncrypt_field_rekey_channels(handle, module, pointer, where, raw, len(raw),
                                                         ctypes.byref(out), None, ctypes.byref(status))))
    if code != 0:
        raise status.error()
    return _take(out).decode("utf-8")


def rekey_many_channels(records, channel_keys, to, field, channel_field=None):
    """rekey_channels for many records in one library call; never raises for a record. Returns a RekeyResult, as
    CryptoModule.rekey_many(..., field=) does."""
    return _rekey_result(_channel_batch(records, channel_keys, field, channel_field, "keep", to=to))
