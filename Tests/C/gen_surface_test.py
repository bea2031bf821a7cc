#!/usr/bin/env python3
"""Writes a C program that calls every function of include/pncrypt.h with every shape of argument in its table
(NULL pointers, zero lengths, one-byte inputs, lengths that do not match, NULL or given outputs) and checks the
header's conventions after each call (issue 46):

- every int-returning call returns 0 or one of the header's PNCRYPT_E_ codes (no crash, no abort; the program
  runs under AddressSanitizer and valgrind in scripts/checks/test_c.sh, so a bad read or write is a failure too);
- a call with a bad argument (each shape's `bad` cases: a NULL module, map, required output or string, a NULL
  pointer with a length, a SIZE_MAX length, a NUL byte inside a text, batch lengths that do not add up, an unknown
  scheme, style, format, pointer or policy) fails with PNCRYPT_E_ARGUMENT, as the header's conventions say;
- on failure every output the caller gave is NULL (buffers), 0 (lengths) or PNCRYPT_REKEY_FAILED (outcomes), and
  `err` holds the code returned and one NUL-terminated line;
- on success the outputs are released (pncrypt_free, pncrypt_module_free), so a leak is reported.

    python3 Tests/C/gen_surface_test.py include/pncrypt.h > surface.c
    cc -std=c99 ... surface.c $(pkg-config --cflags --libs pncrypt) && ./a.out WORKDIR

The functions are read from the header (every `PNCRYPT_API` declaration). Each must have an entry in SHAPES below
naming a shape for each of its parameters, by the header's parameter names: a function added to the header
without one, one whose parameters changed, or an entry for a function the header no longer has, stops the
generator with a message naming it (exit status 1), so the surface test cannot silently leave a function out.
"""
import copy
import re
import sys


def c_string(value):
    """A C string literal for `value` (bytes or str), or NULL for None."""
    if value is None:
        return "NULL"
    raw = value.encode("utf-8") if isinstance(value, str) else value
    return '"' + "".join(chr(b) if 32 <= b < 127 and chr(b) not in '"\\?' else f"\\{b:03o}" for b in raw) + '"'


class Shape:
    """The values one parameter (or a group of parameters that go together, as a pointer and its length) takes.
    `types` are the header's types of those parameters (a changed type stops the generator). Each case is C code
    that sets the variables named by `args`."""
    types = ()

    def __init__(self):
        self.var = None

    def bind(self, var):
        self.var = var

    def decls(self):
        return []

    def cases(self):
        raise NotImplementedError

    def args(self):
        raise NotImplementedError

    def on_failure(self):
        """C conditions that must hold when the call failed (each a (condition, description))."""
        return []

    def on_success(self):
        """C statements after a successful call (releasing what it returned)."""
        return []

    def after(self):
        """C statements after every call."""
        return []

    def describe(self):
        """C expression (a string) describing the current case, for failure messages."""
        return None

    def bad(self):
        """The indexes of the cases that are bad arguments, which the header says the call refuses with
        PNCRYPT_E_ARGUMENT (a NULL pointer where one is required, a length that does not match the text or the
        batch, an unknown scheme or policy)."""
        return []


class Shared(Shape):
    """An object the call only reads (a pointer of `types`' one type): NULL, a bad argument, or each of `shared`,
    the names of C variables made once."""
    shared = ()

    def decls(self):
        return [f"{self.types[0]}{self.var} = NULL;"]

    def cases(self):
        return [f"{self.var} = NULL;"] + [f"{self.var} = {name};" for name in self.shared]

    def args(self):
        return [self.var]

    def bad(self):
        return [0]


class Fresh:
    """Mixed into a Shared shape the call may change or release: NULL, or `make` (C code that sets `{var}` to a
    new one for this call); `owned`: the call releases it, else `free` (a C function) releases it after the
    call."""
    make = None
    free = None

    def __init__(self, owned=False):
        super().__init__()
        self.owned = owned

    def cases(self):
        return [f"{self.var} = NULL;", self.make.format(var=self.var)]

    def after(self):
        return [] if self.owned else [f"{self.free}({self.var});"]


class Module(Shared):
    """A module: NULL, an acrh module, a legacy33 module (made once; the call only reads it)."""
    types = ("pncrypt_module *",)
    shared = ("shared_acrh", "shared_legacy33")


class FreshModule(Fresh, Module):
    """A module the call may change or release: NULL, or a new acrh module for this call; `owned`: the call
    releases it (pncrypt_module_free), else it is freed after the call."""
    make = '{var} = new_module("acrh");'
    free = "pncrypt_module_free"


class ChannelMap(Shared):
    """A channel-key map: NULL, an empty one, one whose "*" has an acrh module's key (made once; read only)."""
    types = ("pncrypt_channel_keys *",)
    shared = ("shared_empty_map", "shared_map")


class FreshChannelMap(Fresh, ChannelMap):
    """A map the call may change or release: NULL, or a new empty map; `owned`: the call releases it."""
    make = "{var} = NULL; pncrypt_channel_keys_new(&{var}, NULL);"
    free = "pncrypt_channel_keys_free"


class Values(Shape):
    """One variable set to each of `values` in turn, written in C by `literal`."""

    def __init__(self, values):
        super().__init__()
        self.values = values

    def literal(self, value):
        return value

    def cases(self):
        return [f"{self.var} = {self.literal(v)};" for v in self.values]

    def args(self):
        return [self.var]


class String(Values):
    """A NUL-terminated string (scheme, style, format, key, path): each of `values` (None: NULL)."""

    def __init__(self, values, ctype="const char *", bad=()):
        super().__init__(values)
        self.types = (ctype,)
        self.bad_values = bad

    def decls(self):
        return [f"const char *{self.var} = NULL;"]

    def literal(self, value):
        return c_string(value)

    def describe(self):
        return f'{self.var} ? {self.var} : "(NULL)"'

    def bad(self):
        return [i for i, v in enumerate(self.values) if v in self.bad_values]


class Path(String):
    """A path: NULL, "", a missing file, the one-byte file, or (outputs) a file in the work folder."""

    def __init__(self, output):
        super().__init__([None, ""], bad=[None])
        self.output = output

    def cases(self):
        base = super().cases()
        if self.output:
            return base + [f"{self.var} = out_path;"]
        return base + [f"{self.var} = missing_path;", f"{self.var} = one_byte_path;"]


# Pointer and length: NULL or not, length 0, 1, or SIZE_MAX (a size_t above the largest signed size).
BYTE_CASES = [(None, "0"), (None, "1"), (b"", "0"), (b"x", "1"), (b"\0", "1"), (b"x", "SIZE_MAX")]


class Bytes(Shape):
    """A pointer and its length, `ptype` `const uint8_t *` or `const char *`; `extra` more (bytes, length) cases."""

    def __init__(self, ptype, extra=()):
        super().__init__()
        self.types = (ptype, "size_t")
        self.ptype = ptype
        self.values = BYTE_CASES + list(extra)

    def decls(self):
        return [f"{self.ptype}{self.var} = NULL;", f"size_t {self.var}_len = 0;"]

    def cases(self):
        return [f"{self.var} = ({self.ptype}){c_string(p)}; {self.var}_len = {n};" for p, n in self.values]

    def args(self):
        return [self.var, f"{self.var}_len"]

    def describe(self):
        return f'{self.var} ? "data" : "(NULL)"'

    def bad(self):
        """NULL with a length, a length beyond any buffer; for a text (`const char *`), a NUL byte inside it."""
        text = self.ptype.startswith("const char")
        return [i for i, (p, n) in enumerate(self.values)
                if (p is None and n != "0") or n == "SIZE_MAX" or (text and p is not None and b"\0" in p)]


# A batch: data, data_len, lengths (count entries), count. The items of each case: NULL lengths when None.
BATCH_CASES = [
    (None, "0", None, "0"),           # nothing
    (None, "1", None, "0"),           # data NULL, data_len 1
    (b"x", "1", None, "1"),           # lengths NULL, count 1
    (b"x", "1", ["1"], "1"),          # one one-byte item
    (b"", "0", ["0"], "1"),           # one empty item
    (b"", "0", ["0", "0"], "2"),      # two empty items
    (b"\0", "1", ["1"], "1"),         # a NUL byte inside an item
    (b"xy", "2", ["1"], "1"),         # lengths add up to less than data_len
    (b"x", "1", ["SIZE_MAX"], "1"),   # a length above the largest signed size
    (b"x", "1", ["1", "0"], "2"),     # one byte, then an empty item
]


class Batch(Shape):
    """data, data_len, lengths, count (the batch functions). `count` is also the size of the arrays below."""

    def __init__(self, ptype):
        super().__init__()
        self.types = (ptype, "size_t", "const size_t *", "size_t")
        self.ptype = ptype

    def decls(self):
        return [f"{self.ptype}{self.var} = NULL;", f"size_t {self.var}_len = 0;",
                f"size_t {self.var}_lengths[2] = {{0, 0}};", f"const size_t *{self.var}_lp = NULL;",
                f"size_t batch_count = 0;"]

    def cases(self):
        out = []
        for data, n, lengths, count in BATCH_CASES:
            code = f"{self.var} = ({self.ptype}){c_string(data)}; {self.var}_len = {n}; batch_count = {count};"
            if lengths is None:
                code += f" {self.var}_lp = NULL;"
            else:
                code += "".join(f" {self.var}_lengths[{i}] = {v};" for i, v in enumerate(lengths))
                code += f" {self.var}_lp = {self.var}_lengths;"
            out.append(code)
        return out

    def args(self):
        return [self.var, f"{self.var}_len", f"{self.var}_lp", "batch_count"]

    def bad(self):
        """NULL data with a length, NULL lengths with a count, lengths that do not add up to data_len, a length
        beyond any buffer."""
        bad = []
        for i, (data, n, lengths, count) in enumerate(BATCH_CASES):
            if data is None and n != "0":
                bad.append(i)
            elif lengths is None and count != "0":
                bad.append(i)
            elif lengths is not None and ("SIZE_MAX" in lengths or sum(map(int, lengths)) != int(n)):
                bad.append(i)
        return bad


class Array(Shape):
    """An array of `batch_count + extra` items the call writes (offsets, codes, outcomes), NULL or given: on the
    heap, exactly that size, so that a write past it is an AddressSanitizer report."""

    def __init__(self, ctype, extra, required=False):
        super().__init__()
        self.types = (ctype,)
        self.ctype = ctype
        self.extra = extra
        self.required = required

    def decls(self):
        return [f"{self.ctype}{self.var} = NULL;"]

    def cases(self):
        item = self.ctype.rstrip(" *")
        return [f"{self.var} = NULL;",
                f"{self.var} = malloc(sizeof({item}) * (batch_count + {self.extra}) + (batch_count + {self.extra} == 0));"]

    def args(self):
        return [self.var]

    def after(self):
        return [f"free({self.var});"]

    def bad(self):
        return [0] if self.required else []


class Out(Shape):
    """An output buffer pointer (`T **`): NULL or the address of a variable set to a sentinel. On failure it must
    be NULL; on success it is released with `release`."""

    def __init__(self, ctype, release="pncrypt_free", optional=False):
        super().__init__()
        self.types = (ctype,)
        self.item = ctype[: ctype.rindex("*")].rstrip()
        self.release = release
        self.optional = optional

    def decls(self):
        return [f"{self.item} {self.var}_value = NULL;", f"{self.item} *{self.var} = NULL;"]

    def cases(self):
        return [f"{self.var} = NULL;",
                f"{self.var} = &{self.var}_value; {self.var}_value = ({self.item})(void *)&sentinel;"]

    def args(self):
        return [self.var]

    def on_failure(self):
        return [(f"{self.var} == NULL || {self.var}_value == NULL", f"{self.var} not NULL after a failure")]

    def bad(self):
        return [] if self.optional else [0]

    def on_success(self):
        # A success may leave an optional output NULL (nothing to say); a required one is set.
        return [f"if ({self.var} && {self.var}_value != ({self.item})(void *)&sentinel) "
                f"{self.release}({self.var}_value);",
                f"if ({self.var} && {self.var}_value == ({self.item})(void *)&sentinel) "
                f"fail_call(\"{self.var} not set by a successful call\");"]


class OutValue(Shape):
    """An output number (`size_t *` length, `int *` outcome): NULL or given (set to junk first); on failure it
    must be `failed`."""

    def __init__(self, ctype, failed):
        super().__init__()
        self.types = (ctype,)
        self.item = ctype.rstrip(" *")
        self.failed = failed

    def decls(self):
        return [f"{self.item} {self.var}_value = 0;", f"{self.item} *{self.var} = NULL;"]

    def cases(self):
        return [f"{self.var} = NULL;", f"{self.var} = &{self.var}_value; {self.var}_value = ({self.item})77;"]

    def args(self):
        return [self.var]

    def on_failure(self):
        return [(f"{self.var} == NULL || {self.var}_value == {self.failed}", f"{self.var} not {self.failed}")]


class Err(Shape):
    """`pncrypt_error *`: NULL, or a record filled with junk first. After the call its message is one
    NUL-terminated line; after a failure its code is the one returned and its message is not empty."""
    types = ("pncrypt_error *",)

    def decls(self):
        return [f"pncrypt_error {self.var}_value;", f"pncrypt_error *{self.var} = NULL;"]

    def cases(self):
        return [f"{self.var} = NULL;",
                f"{self.var} = &{self.var}_value; memset({self.var}, 'Z', sizeof *{self.var}); "
                f"{self.var}->code = 12345;"]

    def args(self):
        return [self.var]

    def after_check(self):
        return (f"{self.var} == NULL || (memchr({self.var}->message, 0, sizeof {self.var}->message) != NULL "
                f"&& strchr({self.var}->message, '\\n') == NULL && {self.var}->code != 12345)")

    def on_failure(self):
        return [(f"{self.var} == NULL || ({self.var}->code == rc && {self.var}->message[0] != 0)",
                 f"{self.var} does not hold the code returned")]


class Int(Values):
    """An int (a policy): each of `values` (C expressions)."""
    types = ("int",)

    def decls(self):
        return [f"int {self.var} = 0;"]

    def bad(self):
        """Policies that are not PNCRYPT_ON_ERROR_ values."""
        return [i for i, v in enumerate(self.values) if not v.startswith("PNCRYPT_ON_ERROR_")]


class Buffer(Shape):
    """A buffer for pncrypt_free: NULL, or one the library returned (pncrypt_encrypt's)."""
    types = ("void *",)

    def decls(self):
        return [f"char *{self.var} = NULL;"]

    def cases(self):
        return [f"{self.var} = NULL;",
                f'{self.var} = NULL; pncrypt_encrypt(shared_acrh, (const uint8_t *)"x", 1, &{self.var}, NULL);']

    def args(self):
        return [self.var]


SCHEMES = [None, "", "x", "auto", "acrh", "legacy", "legacy-random-iv", "legacy33"]
BAD_SCHEMES = ["", "x"]
# What the decrypting calls' `scheme` and pncrypt_module_set_reading() take: a scheme, or a list of readings.
READINGS = SCHEMES + ["auto,legacy33", "legacy,legacy33", "auto,auto", "auto,legacy", "auto,"]
BAD_READINGS = BAD_SCHEMES + ["auto,auto", "auto,legacy", "auto,"]
POLICIES = ["-1", "PNCRYPT_ON_ERROR_MARKER", "PNCRYPT_ON_ERROR_PASSTHROUGH", "PNCRYPT_ON_ERROR_FAIL", "3"]
# The record calls also take the library's default (3): their unknown policy is 4.
FIELD_POLICIES = POLICIES[:-1] + ["PNCRYPT_ON_ERROR_DEFAULT", "4"]
JSON_EXTRA = [(b"1", "1"), (b'""', "2")]
# The record functions: NULL, an invalid pointer, the whole record, a field; a record with and without it.
POINTERS = [None, "x", "", "/a"]
RECORD_EXTRA = [(b'{"a":""}', "8"), (b'{"b":1}', "7")]

# The argument shapes of every function of the header, by parameter name, in order. A group of parameters that
# go together (a pointer and its length, a batch) is one tuple of names.
SHAPES = {
    "pncrypt_version": {"returns": "version"},
    "pncrypt_version_number": {"returns": "version_number"},
    "pncrypt_module_new": {"params": [
        ("cipher_key", String([None, "", "k", b"\xff"], bad=[None])), ("scheme", String(SCHEMES, bad=BAD_SCHEMES)),
        ("out", Out("pncrypt_module **", release="pncrypt_module_free")), ("err", Err())]},
    "pncrypt_module_free": {"params": [("module", FreshModule(owned=True))]},
    "pncrypt_module_add_key": {"params": [
        ("module", FreshModule()), ("key", String([None, "", "k", b"\xff", "surface"], bad=[None])), ("err", Err())]},
    "pncrypt_module_set_reading": {"params": [
        ("module", FreshModule()), ("scheme", String(READINGS, bad=BAD_READINGS)), ("err", Err())]},
    "pncrypt_module_set_plaintext": {"params": [
        ("module", FreshModule()), ("plaintext", String([None, "", "x", "json", "text"], bad=[None, "", "x"])),
        ("err", Err())]},
    "pncrypt_encrypt": {"params": [
        ("m", Module()), (("data", "len"), Bytes("const uint8_t *")), ("base64_out", Out("char **")),
        ("err", Err())]},
    "pncrypt_decrypt": {"params": [
        ("m", Module()), ("scheme", String(READINGS, bad=BAD_READINGS)), (("base64", "len"), Bytes("const char *", [(b"AAAA", "4")])),
        ("out", Out("uint8_t **")), ("out_len", OutValue("size_t *", "0")), ("err", Err())]},
    "pncrypt_decrypt_text": {"same": "pncrypt_decrypt"},
    "pncrypt_encrypt_many": {"params": [
        ("m", Module()), (("data", "data_len", "lengths", "count"), Batch("const uint8_t *")),
        ("base64_out", Out("char **")), ("base64_len", OutValue("size_t *", "0")),
        ("codes", Array("int *", 0)), ("status", Err())]},
    "pncrypt_decrypt_many": {"params": [
        ("m", Module()), ("scheme", String(READINGS, bad=BAD_READINGS)),
        (("data", "data_len", "lengths", "count"), Batch("const char *")), ("out", Out("uint8_t **")),
        ("offsets", Array("size_t *", 1, required=True)), ("codes", Array("int *", 0)), ("status", Err())]},
    "pncrypt_decrypt_many_text": {"same": "pncrypt_decrypt_many"},
    "pncrypt_rekey": {"params": [
        ("from", Module()), ("to", Module()), (("text", "len"), Bytes("const char *", [(b" ", "1"), (b'""', "2")])),
        ("text_out", Out("char **")), ("outcome", OutValue("int *", "PNCRYPT_REKEY_FAILED")), ("err", Err())]},
    "pncrypt_rekey_many": {"params": [
        ("from", Module()), ("to", Module()), (("data", "data_len", "lengths", "count"), Batch("const char *")),
        ("out", Out("char **")), ("offsets", Array("size_t *", 1, required=True)), ("outcomes", Array("int *", 0, required=True)),
        ("codes", Array("int *", 0)), ("status", Err())]},
    "pncrypt_encrypt_file": {"params": [
        ("m", Module()), ("in_path", Path(False)), ("out_path", Path(True)), ("err", Err())]},
    "pncrypt_decrypt_file": {"same": "pncrypt_encrypt_file"},
    "pncrypt_decrypt_file_scheme": {"params": [
        ("m", Module()), ("scheme", String(SCHEMES, bad=BAD_SCHEMES)), ("in_path", Path(False)), ("out_path", Path(True)),
        ("err", Err())]},
    "pncrypt_message_encrypt": {"params": [
        ("m", Module()), (("json", "len"), Bytes("const char *", JSON_EXTRA)), ("json_out", Out("char **")),
        ("err", Err())]},
    "pncrypt_message_encrypt_style": {"params": [
        ("m", Module()), ("style", String([None, "", "x", "compact", "python", "kotlin"], bad=[None, "", "x"])),
        (("json", "len"), Bytes("const char *", JSON_EXTRA)), ("json_out", Out("char **")), ("err", Err())]},
    "pncrypt_message_decrypt": {"params": [
        ("m", Module()), (("json", "len"), Bytes("const char *", JSON_EXTRA)), ("policy", Int(POLICIES)),
        ("json_out", Out("char **")), ("status", Err())]},
    "pncrypt_message_decrypt_status": {"params": [
        ("m", Module()), (("json", "len"), Bytes("const char *", JSON_EXTRA)), ("policy", Int(POLICIES)),
        ("json_out", Out("char **")), ("status_json_out", Out("char **", optional=True)), ("status", Err())]},
    "pncrypt_envelope_decrypt": {"params": [
        ("m", Module()), ("format", String([None, "", "x", "history", "v2", "subscribe"], bad=["", "x"])),
        (("json", "len"), Bytes("const char *", JSON_EXTRA + [(b"[]", "2")])), ("policy", Int(POLICIES)),
        ("json_out", Out("char **")), ("statuses_out", Out("char **", optional=True)), ("status", Err())]},
    "pncrypt_field_encrypt": {"params": [
        ("m", Module()), ("pointer", String(POINTERS, bad=[None, "x"])), ("style", String([None, "x", "compact"], bad=["x"])),
        (("json", "len"), Bytes("const char *", RECORD_EXTRA)), ("json_out", Out("char **")), ("err", Err())]},
    "pncrypt_field_decrypt": {"params": [
        ("m", Module()), ("pointer", String(POINTERS, bad=[None, "x"])), (("json", "len"), Bytes("const char *", RECORD_EXTRA)),
        ("policy", Int(FIELD_POLICIES)), ("json_out", Out("char **")),
        ("status_json_out", Out("char **", optional=True)), ("status", Err())]},
    "pncrypt_field_rekey": {"params": [
        ("from", Module()), ("to", Module()), ("pointer", String(POINTERS, bad=[None, "x"])),
        (("json", "len"), Bytes("const char *", RECORD_EXTRA)), ("json_out", Out("char **")),
        ("outcome", OutValue("int *", "PNCRYPT_REKEY_FAILED")), ("err", Err())]},
    "pncrypt_field_encrypt_many": {"params": [
        ("m", Module()), ("pointer", String(POINTERS, bad=[None, "x"])), ("style", String([None, "x"], bad=["x"])),
        (("data", "data_len", "lengths", "count"), Batch("const char *")), ("out", Out("char **")),
        ("offsets", Array("size_t *", 1, required=True)), ("codes", Array("int *", 0)), ("status", Err())]},
    "pncrypt_field_decrypt_many": {"params": [
        ("m", Module()), ("pointer", String(POINTERS, bad=[None, "x"])),
        (("data", "data_len", "lengths", "count"), Batch("const char *")), ("policy", Int(FIELD_POLICIES)),
        ("out", Out("char **")), ("offsets", Array("size_t *", 1, required=True)), ("codes", Array("int *", 0)),
        ("status", Err())]},
    "pncrypt_field_rekey_many": {"params": [
        ("from", Module()), ("to", Module()), ("pointer", String(POINTERS, bad=[None, "x"])),
        (("data", "data_len", "lengths", "count"), Batch("const char *")), ("out", Out("char **")),
        ("offsets", Array("size_t *", 1, required=True)), ("outcomes", Array("int *", 0, required=True)), ("codes", Array("int *", 0)),
        ("status", Err())]},
    "pncrypt_channel_keys_new": {"params": [
        ("out", Out("pncrypt_channel_keys **", release="pncrypt_channel_keys_free")), ("err", Err())]},
    "pncrypt_channel_keys_add": {"params": [
        ("map", FreshChannelMap()), ("pattern", String([None, "", "a*b", "*", "ch", b"\xff"], bad=[None, "", "a*b"])),
        ("module", Module()), ("err", Err())]},
    "pncrypt_channel_keys_free": {"params": [("map", FreshChannelMap(owned=True))]},
    "pncrypt_envelope_decrypt_channels": {"params": [
        ("map", ChannelMap()), ("format", String([None, "x", "v2"], bad=["x"])), ("channel", String([None, "ch"])),
        (("json", "len"), Bytes("const char *", JSON_EXTRA + [(b"[[],1,2]", "8")])),
        ("policy", Int(["-1", "PNCRYPT_ON_ERROR_PASSTHROUGH", "PNCRYPT_ON_ERROR_FAIL"])),
        ("json_out", Out("char **")), ("statuses_out", Out("char **", optional=True)), ("status", Err())]},
    "pncrypt_envelope_rekey_channels": {"params": [
        ("map", ChannelMap()), ("format", String([None, "x"], bad=["x"])), ("channel", String([None, "ch"])),
        ("only_channel", String([None, "ch"])), ("to", Module()),
        (("json", "len"), Bytes("const char *", JSON_EXTRA + [(b"[[],1,2]", "8")])),
        ("json_out", Out("char **")), ("statuses_out", Out("char **", optional=True)), ("status", Err())]},
    "pncrypt_field_decrypt_channels": {"params": [
        ("map", ChannelMap()), ("pointer", String(POINTERS, bad=[None, "x"])),
        ("channel_pointer", String([None, "x", "/a"], bad=["x"])),
        (("json", "len"), Bytes("const char *", RECORD_EXTRA)), ("policy", Int(FIELD_POLICIES)),
        ("json_out", Out("char **")), ("status_json_out", Out("char **", optional=True)), ("status", Err())]},
    "pncrypt_field_rekey_channels": {"params": [
        ("map", ChannelMap()), ("to", Module()), ("pointer", String(POINTERS, bad=[None, "x"])),
        ("channel_pointer", String([None, "x", "/a"], bad=["x"])),
        (("json", "len"), Bytes("const char *", RECORD_EXTRA)), ("json_out", Out("char **")),
        ("outcome", OutValue("int *", "PNCRYPT_REKEY_FAILED")), ("err", Err())]},
    "pncrypt_field_decrypt_channels_many": {"params": [
        ("map", ChannelMap()), ("pointer", String(POINTERS, bad=[None, "x"])),
        ("channel_pointer", String([None, "x"], bad=["x"])),
        (("data", "data_len", "lengths", "count"), Batch("const char *")), ("policy", Int(FIELD_POLICIES)),
        ("out", Out("char **")), ("offsets", Array("size_t *", 1, required=True)), ("codes", Array("int *", 0)),
        ("status", Err())]},
    "pncrypt_field_rekey_channels_many": {"params": [
        ("map", ChannelMap()), ("to", Module()), ("pointer", String(POINTERS, bad=[None, "x"])),
        ("channel_pointer", String([None, "x"], bad=["x"])),
        (("data", "data_len", "lengths", "count"), Batch("const char *")), ("out", Out("char **")),
        ("offsets", Array("size_t *", 1, required=True)), ("outcomes", Array("int *", 0, required=True)),
        ("codes", Array("int *", 0)), ("status", Err())]},
    "pncrypt_free": {"params": [("buffer", Buffer())]},
}

# The promise "a message that was not decrypted always has a status" (issue 55, item 2), over every function of the
# header that decrypts (its name says decrypt or rekey): each is called with input that was never encrypted (a JSON
# object and a number where a message goes, plain text where Base64 goes, a plain file) under every policy it takes,
# and must report it: a non-zero return, or `status->code` (and the status JSON, the item codes) saying why, with the
# original kept under PNCRYPT_ON_ERROR_PASSTHROUGH. A decrypting function without an entry stops the generator, so the
# next entry point inherits the promise. Each entry is the C body of one check; `POLICY` loops over the policies.
# A Base64 function (pncrypt_decrypt and its text form, one signature) on a JSON object and on Base64 of plain text.
NEVER_ENCRYPTED_BASE64 = r"""
        for (int i = 0; i < 2; i++) {
            const char *t = i ? PLAIN_BASE64 : PLAIN_OBJECT; uint8_t *out = NULL; size_t n = 0; pncrypt_error e = {0};
            int rc = FUNCTION(shared_acrh, NULL, t, strlen(t), &out, &n, &e);
            promise(rc != 0 && e.code == rc && out == NULL, "plain text decrypted");
            pncrypt_free(out);
        }"""
# A Base64 batch function (pncrypt_decrypt_many and its text form) on the same two items.
NEVER_ENCRYPTED_BATCH = r"""
        { uint8_t *out = NULL; size_t offsets[3]; int codes[2] = {0, 0}; pncrypt_error e = {0};
          size_t lengths[2] = {strlen(PLAIN_OBJECT), strlen(PLAIN_BASE64)};
          char data[128]; snprintf(data, sizeof data, "%s%s", PLAIN_OBJECT, PLAIN_BASE64);
          int rc = FUNCTION(shared_acrh, NULL, data, strlen(data), lengths, 2, &out, offsets, codes, &e);
          promise(rc == 0 && codes[0] != 0 && codes[1] != 0 && e.code == codes[0], "an item without a code");
          pncrypt_free(out); }"""
# A rekey batch (`CALL` its call up to the data) on two never-encrypted items, FIRST and SECOND.
NEVER_ENCRYPTED_REKEY_BATCH = r"""
        { char *out = NULL; size_t offsets[3]; int outcomes[2] = {-1, -1}, codes[2] = {0, 0}; pncrypt_error e = {0};
          size_t lengths[2] = {strlen(FIRST), strlen(SECOND)};
          char data[256]; snprintf(data, sizeof data, "%s%s", FIRST, SECOND);
          int rc = CALL data, strlen(data), lengths, 2, &out, offsets, outcomes, codes, &e);
          promise(rc == 0 && codes[0] != 0 && codes[1] != 0 && e.code == codes[0]
                  && outcomes[0] == PNCRYPT_REKEY_FAILED && outcomes[1] == PNCRYPT_REKEY_FAILED, "an item rekeyed");
          pncrypt_free(out); }"""
# The record calls' checks, module or channel map (CALL: the function and its arguments before the record).
NEVER_ENCRYPTED_FIELD = r"""
        POLICY for (int i = 0; i < 2; i++) {
            const char *t = i ? PLAIN_RECORD_NUMBER : PLAIN_RECORD;
            char *out = NULL, *json = NULL; pncrypt_error e = {0};
            int rc = CALL t, strlen(t), policy, &out, &json, &e);
            promise_policy(policy, rc, e.code, out, t, "a plain field delivered as decrypted");
            promise(rc != 0 || (json != NULL && strstr(json, "\"notEncrypted\"") != NULL), "no status JSON");
            pncrypt_free(out); pncrypt_free(json);
        }"""
NEVER_ENCRYPTED_FIELD_REKEY = r"""
        { char *out = NULL; int outcome = -1; pncrypt_error e = {0};
          int rc = CALL PLAIN_RECORD, strlen(PLAIN_RECORD), &out, &outcome, &e);
          promise(rc == PNCRYPT_E_NOT_ENCRYPTED && outcome == PNCRYPT_REKEY_FAILED && out == NULL,
                  "a plain field rekeyed");
          pncrypt_free(out); }"""
NEVER_ENCRYPTED_FIELD_BATCH = r"""
        for (int p = 0; p < 2; p++) {
            int policy = p ? PNCRYPT_ON_ERROR_PASSTHROUGH : PNCRYPT_ON_ERROR_MARKER;
            char *out = NULL; size_t offsets[3]; int codes[2] = {0, 0}; pncrypt_error e = {0};
            size_t lengths[2] = {strlen(PLAIN_RECORD), strlen(PLAIN_RECORD_NUMBER)};
            char data[256]; snprintf(data, sizeof data, "%s%s", PLAIN_RECORD, PLAIN_RECORD_NUMBER);
            int rc = CALL data, strlen(data), lengths, 2, policy, &out, offsets, codes, &e);
            promise(rc == 0 && codes[0] == PNCRYPT_E_NOT_ENCRYPTED && codes[1] == PNCRYPT_E_NOT_ENCRYPTED
                    && e.code == PNCRYPT_E_NOT_ENCRYPTED, "a plain field without a code");
            promise(rc != 0 || !p || (out != NULL && offsets[1] - offsets[0] == strlen(PLAIN_RECORD)
                                      && memcmp(out, PLAIN_RECORD, strlen(PLAIN_RECORD)) == 0),
                    "passthrough did not keep the record");
            pncrypt_free(out);
        }"""
NEVER_ENCRYPTED = {
    "pncrypt_decrypt": NEVER_ENCRYPTED_BASE64.replace("FUNCTION", "pncrypt_decrypt"),
    "pncrypt_decrypt_text": NEVER_ENCRYPTED_BASE64.replace("FUNCTION", "pncrypt_decrypt_text"),
    "pncrypt_decrypt_many": NEVER_ENCRYPTED_BATCH.replace("FUNCTION", "pncrypt_decrypt_many"),
    "pncrypt_decrypt_many_text": NEVER_ENCRYPTED_BATCH.replace("FUNCTION", "pncrypt_decrypt_many_text"),
    "pncrypt_rekey": r"""
        for (int i = 0; i < 2; i++) {
            const char *t = i ? PLAIN_NUMBER : PLAIN_OBJECT; char *out = NULL; int outcome = -1; pncrypt_error e = {0};
            int rc = pncrypt_rekey(shared_acrh, shared_acrh, t, strlen(t), &out, &outcome, &e);
            promise(rc != 0 && e.code == rc && outcome == PNCRYPT_REKEY_FAILED && out == NULL,
                    "a plain message rekeyed");
            pncrypt_free(out);
        }""",
    "pncrypt_rekey_many": NEVER_ENCRYPTED_REKEY_BATCH.replace("FIRST", "PLAIN_OBJECT")
    .replace("SECOND", "PLAIN_NUMBER").replace("CALL", "pncrypt_rekey_many(shared_acrh, shared_acrh,"),
    "pncrypt_decrypt_file": r"""
        { pncrypt_error e = {0};
          int rc = pncrypt_decrypt_file(shared_acrh, plain_path, out_path, &e);
          promise(rc != 0 && e.code == rc, "a plain file decrypted"); remove(out_path); }""",
    "pncrypt_decrypt_file_scheme": r"""
        { pncrypt_error e = {0};
          int rc = pncrypt_decrypt_file_scheme(shared_acrh, "auto", plain_path, out_path, &e);
          promise(rc != 0 && e.code == rc, "a plain file decrypted"); remove(out_path); }""",
    "pncrypt_message_decrypt": r"""
        POLICY for (int i = 0; i < 2; i++) {
            const char *t = i ? PLAIN_NUMBER : PLAIN_OBJECT; char *out = NULL; pncrypt_error e = {0};
            int rc = pncrypt_message_decrypt(m, t, strlen(t), policy, &out, &e);
            promise_policy(policy, rc, e.code, out, t, "a plain message delivered as decrypted");
            pncrypt_free(out);
        }""",
    "pncrypt_message_decrypt_status": r"""
        POLICY for (int i = 0; i < 2; i++) {
            const char *t = i ? PLAIN_NUMBER : PLAIN_OBJECT; char *out = NULL, *json = NULL; pncrypt_error e = {0};
            int rc = pncrypt_message_decrypt_status(m, t, strlen(t), policy, &out, &json, &e);
            promise_policy(policy, rc, e.code, out, t, "a plain message delivered as decrypted");
            promise(rc != 0 || (json != NULL && strstr(json, "\"notEncrypted\"") != NULL), "no status JSON");
            pncrypt_free(out); pncrypt_free(json);
        }""",
    "pncrypt_envelope_decrypt": r"""
        POLICY {
            const char *t = PLAIN_HISTORY; char *out = NULL, *lines = NULL; pncrypt_error e = {0};
            int rc = pncrypt_envelope_decrypt(m, NULL, t, strlen(t), policy, &out, &lines, &e);
            promise_envelope(policy, rc, e.code, out, lines, "a plain message of a response without a status");
            pncrypt_free(out); pncrypt_free(lines);
        }""",
    "pncrypt_field_decrypt": NEVER_ENCRYPTED_FIELD.replace("CALL", 'pncrypt_field_decrypt(m, "/message",'),
    "pncrypt_field_decrypt_channels": NEVER_ENCRYPTED_FIELD
    .replace("CALL", 'pncrypt_field_decrypt_channels(shared_map, "/message", NULL,'),
    "pncrypt_field_rekey": NEVER_ENCRYPTED_FIELD_REKEY
    .replace("CALL", 'pncrypt_field_rekey(shared_acrh, shared_acrh, "/message",'),
    "pncrypt_field_rekey_channels": NEVER_ENCRYPTED_FIELD_REKEY
    .replace("CALL", 'pncrypt_field_rekey_channels(shared_map, shared_acrh, "/message", NULL,'),
    "pncrypt_field_decrypt_many": NEVER_ENCRYPTED_FIELD_BATCH
    .replace("CALL", 'pncrypt_field_decrypt_many(shared_acrh, "/message",'),
    "pncrypt_field_decrypt_channels_many": NEVER_ENCRYPTED_FIELD_BATCH
    .replace("CALL", 'pncrypt_field_decrypt_channels_many(shared_map, "/message", NULL,'),
    "pncrypt_field_rekey_many": NEVER_ENCRYPTED_REKEY_BATCH.replace("FIRST", "PLAIN_RECORD")
    .replace("SECOND", "PLAIN_RECORD_NUMBER")
    .replace("CALL", 'pncrypt_field_rekey_many(shared_acrh, shared_acrh, "/message",'),
    "pncrypt_field_rekey_channels_many": NEVER_ENCRYPTED_REKEY_BATCH.replace("FIRST", "PLAIN_RECORD")
    .replace("SECOND", "PLAIN_RECORD_NUMBER")
    .replace("CALL", 'pncrypt_field_rekey_channels_many(shared_map, shared_acrh, "/message", NULL,'),
    "pncrypt_envelope_decrypt_channels": r"""
        POLICY {
            const char *t = PLAIN_HISTORY; char *out = NULL, *lines = NULL; pncrypt_error e = {0};
            int rc = pncrypt_envelope_decrypt_channels(shared_map, NULL, "ch", t, strlen(t), policy, &out, &lines, &e);
            promise_envelope(policy, rc, e.code, out, lines, "a plain message of a response without a status");
            pncrypt_free(out); pncrypt_free(lines);
        }""",
    "pncrypt_envelope_rekey_channels": r"""
        { const char *t = PLAIN_HISTORY; char *out = NULL, *lines = NULL; pncrypt_error e = {0};
          int rc = pncrypt_envelope_rekey_channels(shared_map, NULL, "ch", NULL, shared_acrh, t, strlen(t), &out,
                                                   &lines, &e);
          promise(rc == 0 && e.code == PNCRYPT_E_NOT_ENCRYPTED && lines != NULL && count_lines(lines) == 2,
                  "a plain message of a response rekeyed without a status");
          pncrypt_free(out); pncrypt_free(lines); }""",
}

PROMISE_PRELUDE = r'''
/* Never-encrypted input (issue 55): a JSON object and a number where a message goes, plain text where Base64 goes. */
#define PLAIN_OBJECT "{\"cmd\":\"transfer\"}"
#define PLAIN_NUMBER "42"
#define PLAIN_BASE64 "aGVsbG8gd29ybGQ="
#define PLAIN_HISTORY "[[{\"cmd\":\"transfer\"},42],1,2]"
#define PLAIN_RECORD "{\"channel\":\"ch\",\"message\":{\"cmd\":\"transfer\"},\"timetoken\":\"1\"}"
#define PLAIN_RECORD_NUMBER "{\"channel\":\"ch\",\"message\":42}"
static char plain_path[4096];

static void promise(int kept, const char *what) {
    calls++;
    if (!kept) fail_call(what);
}

static int count_lines(const char *text) {
    int n = 0;
    for (; text != NULL && *text; text++) n += *text == '\n';
    return n;
}

/* A message call under `policy` on never-encrypted `input`: MARKER delivers "DECRYPTION_ERROR" and PASSTHROUGH the
 * input as it was, both returning 0 with PNCRYPT_E_NOT_ENCRYPTED in the status; FAIL returns it. */
static void promise_policy(int policy, int rc, int code, const char *out, const char *input, const char *what) {
    if (policy == PNCRYPT_ON_ERROR_FAIL) {
        promise(rc == PNCRYPT_E_NOT_ENCRYPTED && code == rc && out == NULL, what);
    } else {
        promise(rc == 0 && code == PNCRYPT_E_NOT_ENCRYPTED && out != NULL, what);
        /* Every input here is compact JSON: passthrough gives it back as it was. */
        if (rc == 0 && out != NULL && policy == PNCRYPT_ON_ERROR_PASSTHROUGH)
            promise(strcmp(out, input) == 0, "passthrough did not keep the message as it was");
    }
}

/* A response of two never-encrypted messages: two status lines, the first's code in the status. */
static void promise_envelope(int policy, int rc, int code, const char *out, const char *lines, const char *what) {
    if (policy == PNCRYPT_ON_ERROR_FAIL) {
        promise(rc == PNCRYPT_E_NOT_ENCRYPTED && code == rc && out == NULL, what);
    } else {
        promise(rc == 0 && code == PNCRYPT_E_NOT_ENCRYPTED && count_lines(lines) == 2, what);
        if (rc == 0 && policy == PNCRYPT_ON_ERROR_PASSTHROUGH)
            promise(out != NULL && strcmp(out, PLAIN_HISTORY) == 0, "passthrough did not keep the response");
    }
}
'''

POLICY_LOOP = ("for (int mi = 0; mi < 2; mi++) for (int p = 0; p < 3; p++) { "
               "pncrypt_module *m = mi ? shared_legacy : shared_acrh; (void)m; "
               "int policy = p == 0 ? PNCRYPT_ON_ERROR_MARKER : p == 1 ? PNCRYPT_ON_ERROR_PASSTHROUGH "
               ": PNCRYPT_ON_ERROR_FAIL;")


def decrypting(name):
    """Whether a header function decrypts (the promise's functions): its name says decrypt or rekey."""
    return re.search(r"decrypt|rekey", name) is not None


def never_encrypted(names):
    """The C functions of the promise, one per decrypting function of the header, and their names."""
    out = []
    for name in names:
        if not decrypting(name):
            continue
        if name not in NEVER_ENCRYPTED:
            fail(f"{name} (include/pncrypt.h) decrypts and has no entry in NEVER_ENCRYPTED "
                 f"(Tests/C/gen_surface_test.py): call it with never-encrypted input and check that it reports a "
                 f"status")
        body = NEVER_ENCRYPTED[name]
        if "POLICY" in body:
            body = body.replace("POLICY", POLICY_LOOP, 1) + " }"
        out.append(f"static void never_encrypted_{name}(void) {{\n"
                   f"    current = \"never encrypted: {name}\";{body}\n}}\n\n")
    for name in NEVER_ENCRYPTED:
        if name not in names:
            fail(f"NEVER_ENCRYPTED has an entry for {name}, which include/pncrypt.h does not declare: remove it")
    return out


def normalize(ctype):
    ctype = re.sub(r"\s+", " ", ctype.strip())
    return re.sub(r"\s*\*", " *", ctype).replace("* *", "**")


def parse_header(text):
    """[(return type, name, [(type, name)])] of every PNCRYPT_API function, in header order."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    functions = []
    for match in re.finditer(r"PNCRYPT_API\s+([^;()]*?)\b(pncrypt_\w+)\s*\(([^;]*?)\)\s*;", text, flags=re.S):
        ret, name, params = normalize(match.group(1)), match.group(2), match.group(3).strip()
        parsed = []
        if params != "void":
            for param in params.split(","):
                m = re.match(r"(.*?)(\w+)\s*$", param.strip(), flags=re.S)
                parsed.append((normalize(m.group(1)), m.group(2)))
        functions.append((ret, name, parsed))
    return functions


def fail(message):
    sys.stderr.write(f"gen_surface_test.py: {message}\n")
    sys.exit(1)


def check_entry(ret, name, params, entry):
    """The entry's shapes, bound to variables, after checking them against the header's parameters."""
    if "same" in entry:
        entry = SHAPES[entry["same"]]
    shapes = entry.get("params", [])
    names = []
    types = []
    bound = []
    for index, (group, shape) in enumerate(shapes):
        group = group if isinstance(group, tuple) else (group,)
        if len(group) != len(shape.types):
            fail(f"{name}: the shape of {', '.join(group)} takes {len(shape.types)} parameters")
        names += group
        types += [normalize(t) for t in shape.types]
        shape = copy.deepcopy(shape)
        shape.bind(f"a{index}")
        bound.append(shape)
    header_names = [n for _, n in params]
    header_types = [t for t, _ in params]
    if names != header_names:
        fail(f"{name}: the header's parameters are ({', '.join(header_names)}), the table's "
             f"({', '.join(names)}): update SHAPES in Tests/C/gen_surface_test.py")
    if types != header_types:
        fail(f"{name}: the header's parameter types are ({', '.join(header_types)}), the table's "
             f"({', '.join(types)}): update SHAPES in Tests/C/gen_surface_test.py")
    if "returns" not in entry and ret not in ("int", "void"):
        fail(f"{name} returns {ret}: give its entry a 'returns' check")
    return bound


PRELUDE = r'''/* Generated by Tests/C/gen_surface_test.py from include/pncrypt.h: do not edit. */
#define _POSIX_C_SOURCE 200809L
#include <pncrypt.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long calls;
static long failures;
static const char *current;
static char sentinel;
static pncrypt_module *shared_acrh;
static pncrypt_module *shared_legacy33;
static pncrypt_module *shared_legacy;
static pncrypt_channel_keys *shared_empty_map;
static pncrypt_channel_keys *shared_map;
static char missing_path[4096];
static char one_byte_path[4096];
static char out_path[4096];

static void fail_call(const char *what) {
    failures++;
    if (failures <= 50) printf("FAIL %s: %s\n", current, what);
}

static pncrypt_module *new_module(const char *scheme) {
    pncrypt_module *m = NULL;
    if (pncrypt_module_new("surface", scheme, &m, NULL) != 0) fail_call("cannot make a module");
    return m;
}
'''


def generate(header_text):
    functions = parse_header(header_text)
    if not functions:
        fail("no PNCRYPT_API function in the header")
    header_names = {name for _, name, _ in functions}
    for name in SHAPES:
        if name not in header_names:
            fail(f"SHAPES has an entry for {name}, which include/pncrypt.h does not declare: remove it")
    codes = sorted({int(v) for v in re.findall(r"#define PNCRYPT_E_\w+\s+\((-\d+)\)", header_text)})
    out = [PRELUDE, PROMISE_PRELUDE]
    out.append("static int known_code(int rc) {\n    switch (rc) {\n")
    out.append("".join(f"    case {c}:\n" for c in [0] + codes))
    out.append("        return 1;\n    default:\n        return 0;\n    }\n}\n\n")
    runners = []
    for ret, name, params in functions:
        if name not in SHAPES:
            fail(f"{name} (include/pncrypt.h) has no entry in SHAPES (Tests/C/gen_surface_test.py): give each of its "
                 f"parameters an argument shape, so that the surface test calls it")
        shapes = check_entry(ret, name, params, SHAPES[name])
        runners.append(name)
        out.append(f"static void surface_{name}(void) {{\n    current = \"{name}\";\n")
        if not shapes:
            check = SHAPES[name].get("returns")
            if check == "version":
                out.append(f"    calls++;\n    const char *v = {name}();\n"
                           "    if (v == NULL || strcmp(v, PNCRYPT_VERSION_STRING) != 0) fail_call(\"version\");\n")
            elif check == "version_number":
                out.append(f"    calls++;\n    if ({name}() != PNCRYPT_VERSION_NUMBER) fail_call(\"version number\");\n")
            else:
                fail(f"{name}: no parameters and no 'returns' check")
            out.append("}\n\n")
            continue
        counts = [len(s.cases()) for s in shapes]
        for i, count in enumerate(counts):
            out.append(f"    for (int c{i} = 0; c{i} < {count}; c{i}++) {{\n")
        body = []
        for s in shapes:
            body += s.decls()
        for i, s in enumerate(shapes):
            body.append(f"switch (c{i}) {{")
            for k, case in enumerate(s.cases()):
                body.append(f"case {k}: {case} break;")
            body.append("}")
        args = ", ".join(a for s in shapes for a in s.args())
        body.append("calls++;")
        body.append("char label[160];")
        body.append("snprintf(label, sizeof label, \"%s case " + " ".join(["%d"] * len(shapes)) + "\", \"" + name
                    + "\", " + ", ".join(f"c{i}" for i in range(len(shapes))) + ");")
        body.append("current = label;")
        errs = [s for s in shapes if isinstance(s, Err)]
        bad = " || ".join(f"c{i} == {k}" for i, s in enumerate(shapes) for k in s.bad())
        if ret == "int":
            body.append(f"int rc = {name}({args});")
            body.append("if (!known_code(rc)) fail_call(\"a code the header does not define\");")
            if bad:
                body.append(f"if (({bad}) && rc != PNCRYPT_E_ARGUMENT) {{ char why[96]; snprintf(why, sizeof why, "
                            "\"a bad argument did not fail with PNCRYPT_E_ARGUMENT (%d)\", rc); fail_call(why); }")
            body.append("if (rc != 0) {")
            for s in shapes:
                for condition, what in s.on_failure():
                    body.append(f"    if (!({condition})) fail_call(\"{what}\");")
            body.append("} else {")
            for s in shapes:
                body += ["    " + line for line in s.on_success()]
            body.append("}")
            for s in errs:
                body.append(f"if (!({s.after_check()})) fail_call(\"the error record is not one line\");")
        else:
            body.append(f"{name}({args});")
        for s in shapes:
            body += s.after()
        out.append("".join("        " + line + "\n" for line in body))
        out.append("    " + "}" * len(shapes) + "\n}\n\n")
    promises = never_encrypted([name for _, name, _ in functions])
    out += promises
    out.append("int main(int argc, char **argv) {\n")
    out.append("    if (argc != 2) { fprintf(stderr, \"usage: surface WORKDIR\\n\"); return 2; }\n")
    out.append("    snprintf(missing_path, sizeof missing_path, \"%s/missing\", argv[1]);\n")
    out.append("    snprintf(one_byte_path, sizeof one_byte_path, \"%s/one-byte\", argv[1]);\n")
    out.append("    snprintf(out_path, sizeof out_path, \"%s/out\", argv[1]);\n")
    out.append("    FILE *f = fopen(one_byte_path, \"wb\");\n    if (!f || fputc('x', f) == EOF || fclose(f) != 0) "
               "{ perror(one_byte_path); return 2; }\n")
    out.append("    snprintf(plain_path, sizeof plain_path, \"%s/plain\", argv[1]);\n")
    out.append("    FILE *p = fopen(plain_path, \"wb\");\n"
               "    if (!p || fputs(\"hello world, never encrypted\", p) == EOF"
               " || fclose(p) != 0) { perror(plain_path); return 2; }\n")
    out.append("    current = \"setup\";\n    shared_acrh = new_module(\"acrh\");\n"
               "    shared_legacy33 = new_module(\"legacy33\");\n    shared_legacy = new_module(\"legacy\");\n"
               "    if (pncrypt_channel_keys_new(&shared_empty_map, NULL) != 0 || pncrypt_channel_keys_new(&shared_map,"
               " NULL) != 0\n        || pncrypt_channel_keys_add(shared_map, \"*\", shared_acrh, NULL) != 0)"
               " fail_call(\"cannot make the channel maps\");\n")
    for name in runners:
        out.append(f"    long before_{name} = calls;\n    surface_{name}();\n"
                   f"    printf(\"surface: {name}: %ld calls\\n\", calls - before_{name});\n")
    out.append("    long before_promises = calls;\n")
    for name in NEVER_ENCRYPTED:
        out.append(f"    never_encrypted_{name}();\n")
    out.append(f"    printf(\"never encrypted: {len(NEVER_ENCRYPTED)} functions, %ld checks\\n\", "
               "calls - before_promises);\n")
    out.append("    pncrypt_module_free(shared_acrh);\n    pncrypt_module_free(shared_legacy33);\n"
               "    pncrypt_module_free(shared_legacy);\n"
               "    pncrypt_channel_keys_free(shared_empty_map);\n    pncrypt_channel_keys_free(shared_map);\n")
    out.append(f"    printf(\"surface: {len(runners)} functions, %ld calls, %ld failed\\n\", calls, failures);\n")
    out.append("    return failures == 0 ? 0 : 1;\n}\n")
    return "".join(out)


def main():
    if len(sys.argv) != 2:
        fail("usage: gen_surface_test.py include/pncrypt.h > surface.c")
    with open(sys.argv[1], encoding="utf-8") as header:
        sys.stdout.write(generate(header.read()))


if __name__ == "__main__":
    main()
