/*
 * pncrypt.h: the C interface of libpncrypt, PubNub cipherKey encryption for any language.
 *
 * libpncrypt encrypts and decrypts PubNub messages and files byte-compatibly with the PubNub SDKs, in the four
 * schemes of docs/formats.md section 1: "acrh" (the CryptoModule header; recommended for new data), "legacy"
 * (fixed IV), "legacy-random-iv" and "legacy33" (iOS 3.3). It is a thin layer over the Swift library PNCrypt:
 * the formats, the decryption rules and the error codes are PNCrypt's own.
 *
 *     pncrypt_module *m = NULL;
 *     pncrypt_error err;
 *     char *text = NULL;
 *     if (pncrypt_module_new("enigma", "acrh", &m, &err) != 0) { puts(err.message); return 1; }
 *     if (pncrypt_encrypt(m, (const uint8_t *)"hello", 5, &text, &err) == 0) { puts(text); pncrypt_free(text); }
 *     pncrypt_module_free(m);
 *
 * Conventions (as libgit2 and zstd):
 * - Every int-returning function returns 0 (PNCRYPT_OK) on success, or one of the negative PNCRYPT_E_ codes
 *   below. When `err` is not NULL it receives the code and one line of text naming the cause (NUL-terminated,
 *   at most 255 bytes of UTF-8); on success its code is 0 and its message empty. `err` may always be NULL.
 * - Output pointers (`**out`) are set to NULL (and lengths to 0) first, then, on success, to a buffer the
 *   library allocated: release each with pncrypt_free() exactly once. Text outputs are NUL-terminated.
 * - Arguments the library can check are checked: a NULL pointer where one is required, a length that does not
 *   match the text (a NUL byte inside it), an unknown scheme or policy. These return PNCRYPT_E_ARGUMENT, before
 *   anything else (a bad argument is the error whatever else is wrong: an invalid key, a legacy33 target, a map
 *   with no keys); nothing in this interface crashes the calling process on data or arguments it can check.
 * - A pncrypt_module is read-only once shared: add its extra keys (pncrypt_module_add_key) first, while no other
 *   call uses it, then share it between threads freely (every other call only reads it). pncrypt_module_free()
 *   during another thread's call leaves that call its module until it returns (see there).
 * - Certain or nothing: every decryption goes through the library's one decision procedure (PNCrypt's
 *   KeyRing): each (key, scheme) reading the call allows is tried, and a plaintext is delivered only when exactly
 *   one reading qualifies: valid padding; for the _text functions also valid UTF-8; for messages and rekey also
 *   JSON. None qualifying is the one decryption failure (PNCRYPT_E_WRONG_KEY_OR_CORRUPT: `pncrypt diagnose`,
 *   given the same key and the encrypted text, says locally which check failed); several is
 *   PNCRYPT_E_AMBIGUOUS, naming the readings (name the scheme to choose). CBC has no integrity check: on bytes
 *   (where "auto" settles one key's two headerless readings to one, see pncrypt_decrypt()), a wrong key or a
 *   foreign ciphertext still passes the padding check about once in 256 and its garbage is returned with
 *   success. The _text functions narrow that to garbage
 *   that is also UTF-8, messages to JSON text (docs/security.md has the measured figures per mode).
 * - Keys are exact: a cipher key is its bytes up to the NUL, which must be valid UTF-8; anything else is refused
 *   with PNCRYPT_E_INVALID_KEY naming the offset of the first bad byte (never decoded lossily).
 * - The codes are stable across versions: a code keeps its number and meaning; new codes may be added, so
 *   treat an unknown negative code as its category (its tens: -1x encryption, -2x decryption, ...).
 */
#ifndef PNCRYPT_H
#define PNCRYPT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the exported functions. Everything else in the library is hidden (scripts/build/install_lib.sh links it with
 * a version script that exports only the pncrypt_ symbols). */
#ifndef PNCRYPT_API
#  if defined(__GNUC__) && __GNUC__ >= 4
#    define PNCRYPT_API __attribute__((visibility("default")))
#  else
#    define PNCRYPT_API
#  endif
#endif

/* ---- Version ---------------------------------------------------------------------------------------------- */

/* Copies of Sources/PNCrypt/Version.swift, the one place the version is set (VersionTests and the C tests check
 * that they agree, and scripts/build/install_lib.sh refuses to install when they do not). */
#define PNCRYPT_VERSION_MAJOR 0
#define PNCRYPT_VERSION_MINOR 2
#define PNCRYPT_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH: compare with pncrypt_version_number() to check that the library loaded
 * is the one this header describes (same MAJOR: same interface). */
#define PNCRYPT_VERSION_NUMBER (PNCRYPT_VERSION_MAJOR * 10000 + PNCRYPT_VERSION_MINOR * 100 + PNCRYPT_VERSION_PATCH)
#define PNCRYPT_VERSION_STRING "0.2.0"

/* The loaded library's version as "MAJOR.MINOR.PATCH". Static storage: never free it. */
PNCRYPT_API const char *pncrypt_version(void);

/* The loaded library's PNCRYPT_VERSION_NUMBER. */
PNCRYPT_API unsigned pncrypt_version_number(void);

/* ---- Errors ----------------------------------------------------------------------------------------------- */

/* The outcome of a call: code 0 is success. `message` is one NUL-terminated line of UTF-8. */
typedef struct {
    int code;
    char message[256];
} pncrypt_error;

#define PNCRYPT_OK 0

/* Arguments (not from PNCrypt: the C interface's own checks). */
#define PNCRYPT_E_ARGUMENT            (-1)   /* NULL pointer, length mismatch, unknown scheme or policy */
#define PNCRYPT_E_NOMEM               (-2)   /* out of memory */

/* Encryption (PNCryptError category "encryption"). */
#define PNCRYPT_E_ENCRYPTION          (-10)  /* an encryption failure without a more specific code */
#define PNCRYPT_E_EMPTY_PLAINTEXT     (-11)  /* emptyPlaintext: nothing to encrypt (acrh refuses empty data) */
#define PNCRYPT_E_NOT_ENCRYPTABLE     (-12)  /* notEncryptable: e.g. a non-string leaf in a legacy33 message */
#define PNCRYPT_E_ENCRYPTION_FAILED   (-13)  /* encryptionFailed: the cipher or random generator failed */

/* Decryption (category "decryption"). */
#define PNCRYPT_E_DECRYPTION          (-20)  /* a decryption failure without a more specific code */
#define PNCRYPT_E_NOT_BASE64          (-21)  /* notBase64: the text is not Base64 */
#define PNCRYPT_E_WRONG_KEY_OR_CORRUPT (-22) /* wrongKeyOrCorrupt: wrong key or scheme, corrupt, truncated */
#define PNCRYPT_E_INVALID_UTF8        (-23)  /* retired, never returned: non-UTF-8 text is WRONG_KEY_OR_CORRUPT */
#define PNCRYPT_E_MALFORMED_HEADER    (-24)  /* malformedHeader: a PNED header cut short */
#define PNCRYPT_E_NOT_ENCRYPTED       (-25)  /* notEncrypted: e.g. a message that is not a JSON string */
#define PNCRYPT_E_AMBIGUOUS           (-26)  /* ambiguous: several (key, scheme) readings qualify; none is taken */

/* Unknown cryptor (category "unknownCryptor"). */
#define PNCRYPT_E_UNKNOWN_CRYPTOR     (-30)  /* unknownCryptor: a PNED header of unknown version or cryptor */

/* Invalid values (category "invalidArgument"). */
#define PNCRYPT_E_INVALID_ARGUMENT    (-40)  /* an invalid value without a more specific code */
#define PNCRYPT_E_INVALID_KEY         (-41)  /* invalidKey: the cipher key is empty or not valid UTF-8 */
#define PNCRYPT_E_INVALID_IV          (-42)  /* invalidIV */
#define PNCRYPT_E_INVALID_VALUE       (-43)  /* invalidValue: e.g. legacy33 for a file (it has no file format) */

/* JSON (category "json"). */
#define PNCRYPT_E_JSON                (-50)  /* a JSON failure without a more specific code */
#define PNCRYPT_E_INVALID_JSON        (-51)  /* invalidJSON: the text does not parse */
#define PNCRYPT_E_JSON_TOO_DEEP       (-52)  /* jsonTooDeep */

/* Compression (category "compression"). */
#define PNCRYPT_E_COMPRESSION         (-60)  /* a compression failure without a more specific code */
#define PNCRYPT_E_CORRUPT_COMPRESSED  (-61)  /* corruptCompressedData */
#define PNCRYPT_E_OUTPUT_LIMIT        (-62)  /* outputLimitExceeded */

/* Input and output (category "io"). */
#define PNCRYPT_E_IO                  (-70)  /* io: a file could not be read or written */
#define PNCRYPT_E_FILE_NOT_FOUND      (-71)  /* fileNotFound: the input file does not exist */

/* A failure the library could not classify (a bug: please report it). */
#define PNCRYPT_E_INTERNAL            (-99)

/* ---- Modules ---------------------------------------------------------------------------------------------- */

/* A cipher key with its derived AES keys and the scheme to encrypt with, and the extra keys tried on decryption.
 * Opaque; safe to share between threads once its keys are added. */
typedef struct pncrypt_module pncrypt_module;

/*
 * Makes a module for `cipher_key` (a NUL-terminated string of valid UTF-8, taken byte for byte) that encrypts
 * with `scheme`: "acrh", "legacy", "legacy-random-iv" or "legacy33"; NULL means "acrh".
 * Ownership: on success *out is a new module: release it with pncrypt_module_free(). The key is copied.
 * Errors: PNCRYPT_E_ARGUMENT (cipher_key or out NULL, unknown scheme); PNCRYPT_E_INVALID_KEY (empty key, or
 * not valid UTF-8: the message names the first bad byte).
 */
PNCRYPT_API int pncrypt_module_new(const char *cipher_key, const char *scheme, pncrypt_module **out,
                                   pncrypt_error *err);

/*
 * Releases the caller's reference to a module; NULL is ignored. Do not start a call with the module after. A call
 * on it that another thread is running keeps the module, and its keys, until that call returns: it finishes as if
 * nothing had happened, and the module is freed (its keys wiped) when the last such call returns. Only a call
 * that is already running is covered: one that starts while, or after, pncrypt_module_free() runs uses freed
 * memory, so order the free after the start of every call (a binding counts its calls in flight, as the Python
 * binding's close() does).
 */
PNCRYPT_API void pncrypt_module_free(pncrypt_module *module);

/*
 * Adds `key` (as pncrypt_module_new() takes it) to the keys the module decrypts with, for key rotation: every
 * decryption then tries each key, in every reading the call allows, and delivers a plaintext only when exactly
 * one (key, scheme) reading qualifies (two that do are PNCRYPT_E_AMBIGUOUS). The module still encrypts with its
 * first key only. Call it before the module is shared: no other call may use the module while a key is added.
 * Errors: PNCRYPT_E_ARGUMENT (NULL module or key; a key the module already has); PNCRYPT_E_INVALID_KEY (empty,
 * or not valid UTF-8).
 */
PNCRYPT_API int pncrypt_module_add_key(pncrypt_module *module, const char *key, pncrypt_error *err);

/*
 * Sets how the module reads received messages (pncrypt_message_decrypt() and _status, and the field, record,
 * batch and envelope decryptions): `scheme` as the `scheme` of pncrypt_decrypt(). NULL or "auto" is the default
 * (a PNED header, else both legacy readings; a legacy33 module reads iOS 3.3 string leaves); one scheme reads only
 * it; a list of readings joined by commas, such as "auto,legacy33", reads an archive that mixes iOS 3.3 messages
 * with later ones in one pass: a JSON string is read by every reading of the list at once and delivered only when
 * exactly one (key, scheme) reading qualifies (today's messages as JSON text, a legacy33 string leaf as UTF-8
 * text; two that do are the one decryption failure), and an array or object by its string leaves (legacy33). The
 * module still encrypts with its own scheme. Call it before the module is shared, as pncrypt_module_add_key().
 * Errors: PNCRYPT_E_ARGUMENT (NULL module; an unknown scheme; a list with an empty item, a name given twice, or
 * beside "auto" a scheme auto already reads: the message says what to change).
 */
PNCRYPT_API int pncrypt_module_set_reading(pncrypt_module *module, const char *scheme, pncrypt_error *err);

/*
 * What the module's message calls (pncrypt_message_decrypt, _status, pncrypt_field_decrypt, _many,
 * pncrypt_envelope_decrypt) require of a plaintext, for every reading alike: "json" (the default: UTF-8 JSON
 * text, which a wrong key practically never gives) or "text" (UTF-8: a plaintext that is not JSON, from a
 * publisher that encrypted a raw string, is delivered as a JSON string, as the SDKs return it; a wrong key
 * passes this more often: docs/security.md, "Residual risk"). `pncrypt message decrypt --plaintext`. Call it
 * before the module is shared, as pncrypt_module_add_key().
 * Errors: PNCRYPT_E_ARGUMENT (NULL module or plaintext, an unknown name).
 */
PNCRYPT_API int pncrypt_module_set_plaintext(pncrypt_module *module, const char *plaintext, pncrypt_error *err);

/* ---- Bytes <-> Base64 text -------------------------------------------------------------------------------- */

/*
 * Encrypts `len` bytes at `data` with the module's scheme (a fresh random IV where the scheme has one) and
 * returns standard padded Base64: legacy: ciphertext; legacy-random-iv: IV || ciphertext; acrh: PNED header ||
 * ciphertext. `data` may be NULL only when `len` is 0.
 * Ownership: *base64_out is a NUL-terminated string for pncrypt_free().
 * Errors: PNCRYPT_E_ARGUMENT; PNCRYPT_E_EMPTY_PLAINTEXT (acrh and len 0); PNCRYPT_E_ENCRYPTION_FAILED.
 */
PNCRYPT_API int pncrypt_encrypt(pncrypt_module *m, const uint8_t *data, size_t len, char **base64_out,
                                pncrypt_error *err);

/*
 * Decrypts `len` bytes of Base64 text at `base64` (no NUL inside; surrounding whitespace and JSON quotes are
 * accepted, as by the CLI) with every key of the module, as bytes: a reading qualifies by its padding alone.
 * `scheme` "auto" or NULL tries every reading the data allows: a PNED header when there is one; without one,
 * both legacy readings, legacy (fixed IV) and legacy-random-iv (IV first), as `pncrypt decrypt` with no
 * --legacy-scheme (a legacy33 module reads headerless data as legacy33, its own format). Both legacy readings of
 * data of two blocks or more have valid padding or neither has, so as bytes the headerless rule decides, as for
 * files: the random-IV reading when the fixed-IV reading's first block is a decrypted IV (noise), else the
 * fixed-IV reading. One key's two readings are never PNCRYPT_E_AMBIGUOUS as bytes: the answer is the plaintext or
 * PNCRYPT_E_WRONG_KEY_OR_CORRUPT, as with the scheme named (two keys that both qualify still are ambiguous).
 * Binary data written with the fixed IV looks like random-IV data here and comes back 16 bytes short: name the
 * scheme for it. An explicit scheme reads only its own format (with every key). A list of readings joined by
 * commas ("auto,legacy33": iOS 3.3 data beside later data) tries every reading each item allows at once, and a
 * plaintext is delivered only when exactly one qualifies (two are PNCRYPT_E_AMBIGUOUS); a list names every reading
 * itself (the module's own scheme adds none), and one that names a reading twice is PNCRYPT_E_ARGUMENT.
 * Ownership: *out holds *out_len plaintext bytes (followed by one NUL byte not counted in *out_len, for
 * convenience), for pncrypt_free().
 * Errors: PNCRYPT_E_ARGUMENT; PNCRYPT_E_NOT_BASE64; the decryption codes (-2x, PNCRYPT_E_AMBIGUOUS among them);
 * PNCRYPT_E_UNKNOWN_CRYPTOR.
 */
PNCRYPT_API int pncrypt_decrypt(pncrypt_module *m, const char *scheme, const char *base64, size_t len,
                                uint8_t **out, size_t *out_len, pncrypt_error *err);

/*
 * pncrypt_decrypt() for text: a reading qualifies only when its plaintext is also valid UTF-8, whether one
 * reading or several were possible (so a random-IV legacy message is told from its fixed-IV reading, whose first
 * block is garbage). *out is the UTF-8 text, NUL-terminated, *out_len bytes long without the NUL.
 */
PNCRYPT_API int pncrypt_decrypt_text(pncrypt_module *m, const char *scheme, const char *base64, size_t len,
                                     uint8_t **out, size_t *out_len, pncrypt_error *err);

/* ---- Batches: many texts in one call ---------------------------------------------------------------------- */

/*
 * The batch functions do what pncrypt_encrypt() and pncrypt_decrypt() do, for `count` items in one call, so a
 * binding pays its per-call cost (ctypes, JNI, cgo, ...) once per batch instead of once per message.
 *
 * Input: the items back to back in the `data_len` bytes at `data`; item i is `lengths[i]` bytes long, and the
 * lengths must add up to `data_len` exactly (PNCRYPT_E_ARGUMENT otherwise, before any item is touched). `data`
 * may be NULL only when `data_len` is 0; `lengths` only when `count` is 0. Memory: the output is about the size
 * of the input (for encryption 4/3 of it plus up to 60 bytes an item; for decryption at most the input's
 * length), held whole until pncrypt_free(): split very large jobs into batches.
 *
 * Failures, two ways, chosen by `codes`:
 * - `codes` NULL: all or nothing. The first item that fails fails the call: its code is returned, the message
 *   starts with "item N: " (N counts from 0), and nothing is returned.
 * - `codes` an array of `count` ints: every item is tried and codes[i] receives item i's outcome (0, or the code
 *   pncrypt_encrypt()/pncrypt_decrypt() would have returned for it). A failed item is empty in the output. The
 *   call returns 0 (unless an argument of the call itself is wrong) and, as pncrypt_message_decrypt(), sets
 *   `status->code` to 0 when every item succeeded, else to the first failed item's code, with "item N: ".
 *   Did every item succeed? `status->code == 0` answers it for every batch call (pncrypt_rekey_many too). Only
 *   the first failure's message is written: a failed item costs about what a good one does.
 */

/*
 * Encrypts `count` plaintexts with the module's scheme (each with its own fresh IV where the scheme has one).
 * Ownership: *base64_out is the `count` Base64 texts joined by '\n' (none after the last; Base64 has no '\n'),
 * NUL-terminated, *base64_len long without the NUL, for pncrypt_free(). count 0 gives an empty string.
 * Errors: PNCRYPT_E_ARGUMENT; per item, as pncrypt_encrypt() (PNCRYPT_E_EMPTY_PLAINTEXT for an empty item).
 */
PNCRYPT_API int pncrypt_encrypt_many(pncrypt_module *m, const uint8_t *data, size_t data_len, const size_t *lengths,
                                     size_t count, char **base64_out, size_t *base64_len, int *codes,
                                     pncrypt_error *status);

/*
 * Decrypts `count` Base64 texts, each read as pncrypt_decrypt() reads one with `scheme` ("auto" or NULL, or an
 * explicit scheme). An item with a NUL byte inside its length fails with PNCRYPT_E_ARGUMENT.
 * Ownership: *out holds the plaintexts back to back, followed by one NUL byte, for pncrypt_free(). The caller's
 * `offsets` array (count + 1 entries) receives where each starts: item i is the bytes
 * out[offsets[i]] .. out[offsets[i + 1] - 1]; offsets[count] is the total length.
 * Errors: PNCRYPT_E_ARGUMENT (also for a NULL `offsets`); per item, as pncrypt_decrypt().
 */
PNCRYPT_API int pncrypt_decrypt_many(pncrypt_module *m, const char *scheme, const char *data, size_t data_len,
                                     const size_t *lengths, size_t count, uint8_t **out, size_t *offsets,
                                     int *codes, pncrypt_error *status);

/* pncrypt_decrypt_many() with the rule of pncrypt_decrypt_text(): an item qualifies only as valid UTF-8. */
PNCRYPT_API int pncrypt_decrypt_many_text(pncrypt_module *m, const char *scheme, const char *data,
                                          size_t data_len, const size_t *lengths, size_t count, uint8_t **out,
                                          size_t *offsets, int *codes, pncrypt_error *status);

/* ---- Rekey: moving wire texts to a new key and scheme ------------------------------------------------------ */

/* What pncrypt_rekey() and pncrypt_rekey_many() did with an item. */
#define PNCRYPT_REKEY_FAILED  0  /* not certainly decryptable as a message: left unchanged (the code says why) */
#define PNCRYPT_REKEY_REKEYED 1  /* decrypted, then encrypted again under `to`'s key and scheme */
#define PNCRYPT_REKEY_CURRENT 2  /* already under `to`'s key in `to`'s scheme: left as it is */

/*
 * Moves one wire text (Base64, with or without its JSON quotes; surrounding white space allowed) from the keys
 * of `from` (all of them, pncrypt_module_add_key() included) to the first key and the scheme of `to`, with the
 * library's rules (PNCrypt's MessageRekey): every key of `from` and `to`'s key are tried, a PNED header or both
 * legacy readings, and the text is taken only when exactly one reading qualifies as a message (valid padding,
 * UTF-8, JSON text). That reading being `to`'s key in `to`'s scheme means already current. The plaintext is
 * encrypted again byte for byte, with a fresh IV where the scheme has one.
 * Ownership: on success *text_out is the new text (in the item's form: quoted when it was), or a copy of the
 * item when it was already current, NUL-terminated, for pncrypt_free(). `outcome` (may be NULL) receives
 * PNCRYPT_REKEY_REKEYED, _CURRENT, or _FAILED (with *text_out NULL) on failure.
 * Errors: PNCRYPT_E_ARGUMENT; PNCRYPT_E_INVALID_VALUE (`to` is a legacy33 module: not a scheme to move to); the
 * decryption codes (-2x): an item that is not certainly a message under one reading.
 */
PNCRYPT_API int pncrypt_rekey(pncrypt_module *from, pncrypt_module *to, const char *text, size_t len,
                              char **text_out, int *outcome, pncrypt_error *err);

/*
 * pncrypt_rekey() for `count` texts in one call (the batch conventions above). Every item is tried. *out holds
 * the resulting texts back to back, NUL-terminated, for pncrypt_free(); item i is out[offsets[i]] ..
 * out[offsets[i + 1] - 1] (`offsets`: count + 1 entries). A failed item is copied unchanged. `outcomes` (count
 * ints, required) receives each item's PNCRYPT_REKEY_ value; `codes` (count ints, or NULL) each item's code (0
 * unless it failed). The call returns 0 unless an argument of the call itself is wrong; `status->code` is 0 when
 * no item failed, else the first failed item's code with "item N: ".
 */
PNCRYPT_API int pncrypt_rekey_many(pncrypt_module *from, pncrypt_module *to, const char *data, size_t data_len,
                                   const size_t *lengths, size_t count, char **out, size_t *offsets,
                                   int *outcomes, int *codes, pncrypt_error *status);

/* ---- Files ------------------------------------------------------------------------------------------------ */

/*
 * Encrypts the file at `in_path` into `out_path`, streamed in constant memory, in the file format that
 * `pncrypt encrypt --binary --scheme <the module's scheme>` writes (acrh: PNED header || ciphertext;
 * legacy-random-iv: IV || ciphertext; legacy: the ciphertext alone, under the fixed IV). All or nothing, as the
 * CLI's -o (one implementation): the output is written to a file with no name (O_TMPFILE, mode 0600; a named
 * 0600 temporary where the file system has none) in the folder of `out_path` and put in place only on success,
 * keeping a replaced file's owner, group, mode and extended attributes (ACLs), or failing with it unchanged (a
 * new file is 0600); on
 * failure nothing is left and `out_path` is as it was. A symbolic link in a sticky world-writable folder that
 * neither the caller nor the folder's owner owns is not followed (PNCRYPT_E_IO); an `out_path` that is not a
 * regular file (a device, a FIFO) is refused (PNCRYPT_E_ARGUMENT).
 * Errors: PNCRYPT_E_ARGUMENT (NULL path, output path naming the input file); PNCRYPT_E_FILE_NOT_FOUND;
 * PNCRYPT_E_IO; PNCRYPT_E_INVALID_VALUE (a legacy33 module: legacy33 has no file format);
 * PNCRYPT_E_EMPTY_PLAINTEXT (an empty file: empty data cannot be encrypted in any scheme).
 */
PNCRYPT_API int pncrypt_encrypt_file(pncrypt_module *m, const char *in_path, const char *out_path,
                                     pncrypt_error *err);

/*
 * Decrypts the file at `in_path` into `out_path` as `pncrypt decrypt --binary` does (the format read from the
 * data: a PNED header, otherwise the module's legacy file format: the fixed-IV format for a "legacy" module, the
 * random-IV format for the others), streamed, all or nothing as pncrypt_encrypt_file(). With extra keys
 * (pncrypt_module_add_key()) the key is chosen on the file's head and last blocks before anything is written:
 * exactly one key must give valid padding (two that do: PNCRYPT_E_AMBIGUOUS);
 * no plaintext is left anywhere when the data turns out to be wrong (bad padding, wrong key, truncated). An
 * `in_path` that is not a regular file (a FIFO, a device) is first copied, as the CLI does, into an unlinked 0600
 * temporary file in TMPDIR (else /tmp): it holds ciphertext only. A regular file is read as the snapshot it was
 * when it was opened: its length is taken once, the key chosen on the last blocks at that length, and bytes
 * another process appends meanwhile are never read (a file that gets shorter is PNCRYPT_E_IO). The same holds
 * for pncrypt_encrypt_file(): it reads the file to the length it had when the stream began.
 * Errors: as pncrypt_encrypt_file(), and the decryption codes (-2x) and PNCRYPT_E_UNKNOWN_CRYPTOR.
 */
PNCRYPT_API int pncrypt_decrypt_file(pncrypt_module *m, const char *in_path, const char *out_path,
                                     pncrypt_error *err);

/*
 * pncrypt_decrypt_file() reading exactly one format: `scheme` as `pncrypt decrypt --binary --scheme`
 * ("auto" or NULL: as pncrypt_decrypt_file(); "acrh"; "legacy"; "legacy-random-iv").
 * Errors: as pncrypt_decrypt_file(); PNCRYPT_E_ARGUMENT for an unknown scheme.
 */
PNCRYPT_API int pncrypt_decrypt_file_scheme(pncrypt_module *m, const char *scheme, const char *in_path,
                                            const char *out_path, pncrypt_error *err);

/* ---- Messages (JSON text) --------------------------------------------------------------------------------- */

/*
 * Encrypts a message for publishing: `len` bytes of JSON text at `json` (it must parse) are encrypted exactly
 * as given with the module's scheme, and *json_out is the JSON text to send, a string literal "<Base64>" (for
 * legacy33, the message's shape with every string leaf encrypted).
 * Ownership: *json_out is NUL-terminated, for pncrypt_free().
 * Errors: PNCRYPT_E_ARGUMENT; PNCRYPT_E_INVALID_JSON; PNCRYPT_E_NOT_ENCRYPTABLE (legacy33, non-string leaf).
 */
PNCRYPT_API int pncrypt_message_encrypt(pncrypt_module *m, const char *json, size_t len, char **json_out,
                                        pncrypt_error *err);

/*
 * pncrypt_message_encrypt() with the message parsed and written again as `style` says before it is encrypted,
 * as `pncrypt message encrypt --style`: "compact", "apple", "python", "ascii", "go", "ruby", "php" or "kotlin"
 * (each SDK's publish bytes; docs/sdk-styles.md; "kotlin" is the Kotlin and Java SDKs' Gson). The SDK styles
 * can change a message (Go: characters outside the BMP; PHP: integers beyond 64 bits; Kotlin: object members
 * whose value is null are dropped); nothing is reported here: `pncrypt message encrypt` warns.
 * Ownership and errors: as pncrypt_message_encrypt(); PNCRYPT_E_ARGUMENT for a NULL or unknown style.
 */
PNCRYPT_API int pncrypt_message_encrypt_style(pncrypt_module *m, const char *style, const char *json, size_t len,
                                              char **json_out, pncrypt_error *err);

/* What pncrypt_message_decrypt() delivers for a message it cannot decrypt. */
#define PNCRYPT_ON_ERROR_MARKER      0  /* the string "DECRYPTION_ERROR" (iOS 3.4); non-strings too */
#define PNCRYPT_ON_ERROR_PASSTHROUGH 1  /* the original message (current SDKs); non-strings too, as NOT_ENCRYPTED */
#define PNCRYPT_ON_ERROR_FAIL        2  /* nothing: the call returns the error (non-strings are errors) */
/* The library's default for the record calls (pncrypt_field_decrypt, _many): _PASSTHROUGH, the field kept as it
 * was (the marker would destroy a record's original value), as `pncrypt message decrypt --field` does. */
#define PNCRYPT_ON_ERROR_DEFAULT     3

/*
 * Decrypts a received message: `len` bytes of JSON text at `json`. A JSON string is decrypted with every key (a
 * PNED header when present, otherwise both legacy readings) and a reading qualifies only when its plaintext is
 * UTF-8 JSON text (or the PHP SDK's raw string form), whether one reading was possible or several; exactly one
 * must qualify. A plaintext that is not JSON text (bytes some client encrypted without JSON) is the one
 * decryption failure, PNCRYPT_E_WRONG_KEY_OR_CORRUPT, as a wrong key is: read such data with
 * pncrypt_decrypt_text(). A legacy33 module reads iOS 3.3 messages: each string leaf is raw UTF-8 text, never
 * parsed; every leaf must decrypt, and a message with no string leaf ({} or []) is PNCRYPT_E_NOT_ENCRYPTED.
 * With PNCRYPT_ON_ERROR_MARKER or _PASSTHROUGH the call returns 0 and fills *json_out with the message to
 * deliver (compact JSON); `status->code` is 0 when the message was decrypted, else the decryption failure's
 * code with its message: a message that was not decrypted always has one, a message that is not a JSON string
 * (never encrypted: an object, a number) PNCRYPT_E_NOT_ENCRYPTED, under _PASSTHROUGH too (delivered as it was).
 * With PNCRYPT_ON_ERROR_FAIL a failure is returned as the error.
 * Ownership: *json_out is NUL-terminated, for pncrypt_free().
 * Errors (returned): PNCRYPT_E_ARGUMENT (also for an unknown policy); PNCRYPT_E_INVALID_JSON (the text does
 * not parse, whatever the policy); with _FAIL, the decryption codes.
 */
PNCRYPT_API int pncrypt_message_decrypt(pncrypt_module *m, const char *json, size_t len, int policy,
                                        char **json_out, pncrypt_error *status);

/*
 * As pncrypt_message_decrypt(), and *status_json_out (required) receives the status of a message delivered with
 * a failure as one line of JSON, the one status form of every shell (docs/formats.md section 4.2):
 * {"category":"decryption","reason":"wrongKeyOrCorrupt","message":"...","original":...}; NULL when the message
 * was decrypted (and on any error).
 * Ownership: *status_json_out is NUL-terminated, for pncrypt_free() (it holds the original message).
 */
PNCRYPT_API int pncrypt_message_decrypt_status(pncrypt_module *m, const char *json, size_t len, int policy,
                                               char **json_out, char **status_json_out, pncrypt_error *status);

/* ---- Records: one field of a JSON record ------------------------------------------------------------------ */

/*
 * An export holds one record per message, e.g. {"channel":"ch","message":"<Base64>","timetoken":"1700..."}. These
 * calls encrypt, decrypt or rekey one field of a record, named by `pointer`, an RFC 6901 JSON Pointer ("/message",
 * "/payload/text", "/items/0"; in a key "~1" stands for '/' and "~0" for '~'; "" is the whole record), as
 * `pncrypt message encrypt|decrypt|rekey --field POINTER` do: every other byte of the record is kept exactly (key
 * order, spacing, number spellings, escapes). A key repeated in one object: the last member counts (as
 * JavaScript's JSON.parse and Python's json.loads read it). The record must parse (PNCRYPT_E_INVALID_JSON);
 * pointers are at most 1024 bytes and 64 tokens. An invalid pointer is PNCRYPT_E_ARGUMENT, its message saying
 * what a pointer looks like; a record without the field (a missing key, an index out of range, a token that
 * meets a string, number or literal) is PNCRYPT_E_INVALID_VALUE, its message naming the pointer.
 */

/*
 * Encrypts the field's value as pncrypt_message_encrypt() encrypts a message (`style` NULL: its bytes exactly
 * as they are in the record) or pncrypt_message_encrypt_style() does (`style` a style's name: written again in
 * that style), and puts the wire JSON ("<Base64>") in its place.
 * Ownership: *json_out is the record, NUL-terminated, for pncrypt_free().
 * Errors: PNCRYPT_E_ARGUMENT; PNCRYPT_E_INVALID_JSON; PNCRYPT_E_INVALID_VALUE (no such field);
 * PNCRYPT_E_NOT_ENCRYPTABLE (legacy33, non-string leaf).
 */
PNCRYPT_API int pncrypt_field_encrypt(pncrypt_module *m, const char *pointer, const char *style, const char *json,
                                      size_t len, char **json_out, pncrypt_error *err);

/*
 * Decrypts the field, which must be a JSON string holding the ciphertext, as pncrypt_message_decrypt() decrypts
 * a message, and puts the decrypted message (compact JSON) in its place. A field that is not a string is
 * PNCRYPT_E_NOT_ENCRYPTED, a decryption failure like the others: with PNCRYPT_ON_ERROR_MARKER or _PASSTHROUGH
 * (or _DEFAULT, which is _PASSTHROUGH here) the call returns 0 with the record whose field is "DECRYPTION_ERROR"
 * or as it was, `status->code` saying why;
 * with PNCRYPT_ON_ERROR_FAIL the failure is returned. *status_json_out (NULL to skip) receives the status as
 * pncrypt_message_decrypt_status() gives it, NULL when the field was decrypted.
 * Ownership: *json_out and *status_json_out are NUL-terminated, for pncrypt_free().
 * Errors (returned): PNCRYPT_E_ARGUMENT; PNCRYPT_E_INVALID_JSON; PNCRYPT_E_INVALID_VALUE (no such field, whatever
 * the policy); with _FAIL, the decryption codes.
 */
PNCRYPT_API int pncrypt_field_decrypt(pncrypt_module *m, const char *pointer, const char *json, size_t len,
                                      int policy, char **json_out, char **status_json_out, pncrypt_error *status);

/*
 * Moves the field (a JSON string holding the ciphertext) to `to`'s key and scheme as pncrypt_rekey() moves a
 * quoted wire text. *json_out is the record with the new text in the field's place (PNCRYPT_REKEY_REKEYED), or a
 * copy of the record when the field was already current (PNCRYPT_REKEY_CURRENT); `outcome` (may be NULL) as
 * for pncrypt_rekey().
 * Ownership: *json_out is NUL-terminated, for pncrypt_free().
 * Errors: PNCRYPT_E_ARGUMENT; PNCRYPT_E_INVALID_JSON; PNCRYPT_E_INVALID_VALUE (no such field; or `to` is a
 * legacy33 module); PNCRYPT_E_NOT_ENCRYPTED (the field is not a string); the decryption codes (-2x).
 */
PNCRYPT_API int pncrypt_field_rekey(pncrypt_module *from, pncrypt_module *to, const char *pointer, const char *json,
                                    size_t len, char **json_out, int *outcome, pncrypt_error *err);

/*
 * The record calls for `count` records in one call (input as in the batch conventions above; each record one
 * item). Every item is tried; `codes` (count ints, or NULL) receives each item's code (0 unless it failed); the
 * call returns 0 unless an argument of the call itself is wrong, and `status->code` is 0 when no item failed,
 * else the first failed item's code with "item N: ". *out holds the resulting records back to back,
 * NUL-terminated, for pncrypt_free(); item i is out[offsets[i]] .. out[offsets[i + 1] - 1] (`offsets`: count + 1
 * entries). A failed item is: for encryption, empty (nothing of a plaintext is copied); for decryption, the
 * record with the field's failure delivered as `policy` says (PNCRYPT_ON_ERROR_MARKER, _PASSTHROUGH or _DEFAULT;
 * _FAIL is PNCRYPT_E_ARGUMENT here), or the record as it was when it has no such field; for rekey, the record unchanged
 * (`outcomes`, count ints, required, as for pncrypt_rekey_many()).
 */
PNCRYPT_API int pncrypt_field_encrypt_many(pncrypt_module *m, const char *pointer, const char *style,
                                           const char *data, size_t data_len, const size_t *lengths, size_t count,
                                           char **out, size_t *offsets, int *codes, pncrypt_error *status);

PNCRYPT_API int pncrypt_field_decrypt_many(pncrypt_module *m, const char *pointer, const char *data,
                                           size_t data_len, const size_t *lengths, size_t count, int policy,
                                           char **out, size_t *offsets, int *codes, pncrypt_error *status);

PNCRYPT_API int pncrypt_field_rekey_many(pncrypt_module *from, pncrypt_module *to, const char *pointer,
                                         const char *data, size_t data_len, const size_t *lengths, size_t count,
                                         char **out, size_t *offsets, int *outcomes, int *codes,
                                         pncrypt_error *status);

/* ---- Responses (envelopes) ------------------------------------------------------------------------------- */

/*
 * Decrypts every encrypted field of a response, `len` bytes of JSON text at `json` (docs/formats.md section 6):
 * a history (v2) response [[messages], start, end], a fetch messages (v3) / history-with-actions response
 * {"channels": {"name": [{"message": ..., "timetoken": "..."}]}, ...} (each item's "message"), or a subscribe
 * response {"t": {...}, "m": [...]} (each item's "d" for messages, no "e" or "e" 0, and file messages, "e" 4;
 * presence, signals, objects and message actions are never encrypted). `format` NULL reads any of them, told by
 * structure; "history" v2 or v3; "v2", "v3" or "subscribe" that one only. Each message is decrypted as
 * pncrypt_message_decrypt() decrypts one, under `policy`; everything else is kept: key order, exact numbers,
 * timetokens as they were.
 * With PNCRYPT_ON_ERROR_MARKER or _PASSTHROUGH the call returns 0 and fills *json_out with the response (compact
 * JSON); `status->code` is 0 when every message was decrypted, else the first failure's code, its message starting
 * "message N of channel \"name\": ". With PNCRYPT_ON_ERROR_FAIL the first failure is returned as the error.
 * *statuses_out (NULL to skip) receives one line of JSON per message not decrypted, each ending in "\n", in the one
 * status form with the message's place: {"index":N,"channel":"...","timetoken":"...","category":...} (channel
 * and timetoken when the response has them); NULL when every message was decrypted.
 * Ownership: *json_out and *statuses_out are NUL-terminated, for pncrypt_free().
 * Errors (returned): PNCRYPT_E_ARGUMENT (an unknown policy or format); PNCRYPT_E_INVALID_JSON (the text does not
 * parse or is none of the formats asked for); PNCRYPT_E_JSON_TOO_DEEP; with _FAIL, the decryption codes.
 */
PNCRYPT_API int pncrypt_envelope_decrypt(pncrypt_module *m, const char *format, const char *json, size_t len,
                                         int policy, char **json_out, char **statuses_out, pncrypt_error *status);

/* ---- Per-channel keys ----------------------------------------------------------------------------------- */

/* Each channel's own keys, for apps that give each channel its own cipher key (pubnub/swift#161): a response
 * that carries several channels is read message by message, each only with its channel's keys. Opaque; safe to
 * share between threads once its keys are added. */
typedef struct pncrypt_channel_keys pncrypt_channel_keys;

/*
 * Makes an empty map (every call that reads with it refuses it until a pattern has keys).
 * Ownership: on success *out is a new map: release it with pncrypt_channel_keys_free().
 * Errors: PNCRYPT_E_ARGUMENT (out NULL).
 */
PNCRYPT_API int pncrypt_channel_keys_new(pncrypt_channel_keys **out, pncrypt_error *err);

/*
 * Gives the channels of `pattern` (NUL-terminated UTF-8) the keys of `module` (every key it has, its first and
 * those added with pncrypt_module_add_key(); copied: the module may be freed after). `pattern` is a channel's
 * name, matched exactly; a name ending in "*", every channel whose name starts with the bytes before it
 * ("chat.*"); or "*" alone, every other channel. A channel is read with its own name's keys, else the longest
 * matching "name*", else "*"; never with another's. Two patterns may share a key. Only the module's keys are
 * taken: messages are read as pncrypt_envelope_decrypt() reads them with an acrh module (a PNED header when
 * present, otherwise both legacy readings, exactly one of which must qualify), whatever the module's scheme.
 * Call it before the map is shared.
 * Errors: PNCRYPT_E_ARGUMENT (a NULL argument; an empty pattern, or a "*" before its end; a pattern given
 * twice: add every key of one channel to one module).
 */
PNCRYPT_API int pncrypt_channel_keys_add(pncrypt_channel_keys *map, const char *pattern, pncrypt_module *module,
                                         pncrypt_error *err);

/* Releases a map and wipes its keys once no call uses it; NULL is ignored. */
PNCRYPT_API void pncrypt_channel_keys_free(pncrypt_channel_keys *map);

/*
 * pncrypt_envelope_decrypt() with each message read only with its channel's keys: v3 names each message's
 * channel (the list it is in), subscribe each item's ("c"); a v2 response names none, so `channel` (NUL-terminated,
 * the channel it was fetched from) is required for v2 and must be NULL for v3 and subscribe. A message under
 * another channel's key is the one decryption failure (PNCRYPT_E_WRONG_KEY_OR_CORRUPT), a message whose channel
 * has no keys is PNCRYPT_E_INVALID_KEY ("no key for channel ..."); each is counted, delivered and reported as
 * pncrypt_envelope_decrypt() does a failed message (its status line names the channel).
 * Ownership: as pncrypt_envelope_decrypt().
 * Errors (returned): as pncrypt_envelope_decrypt(); PNCRYPT_E_ARGUMENT for a NULL map, a v2 response without
 * `channel` or another with it; PNCRYPT_E_INVALID_VALUE for a map with no keys.
 */
PNCRYPT_API int pncrypt_envelope_decrypt_channels(pncrypt_channel_keys *map, const char *format,
                                                  const char *channel, const char *json, size_t len, int policy,
                                                  char **json_out, char **statuses_out, pncrypt_error *status);

/*
 * Moves every message of a response (as pncrypt_envelope_decrypt_channels() reads it) to the first key of `to`
 * in its scheme ("acrh", "legacy" or "legacy-random-iv"; a legacy33 module is refused), as `pncrypt history
 * rekey` does: a message is taken only when exactly one (key, scheme) reading of its channel's keys qualifies,
 * and one already under the new key in the new scheme is left as it is. `only_channel` (NULL: every channel)
 * moves only the messages of that channel (its exact name); every other message is copied as it is, not read.
 * A message that cannot be moved is left as it was, with a status line in *statuses_out (as
 * pncrypt_envelope_decrypt()); the call still returns 0, and `status->code` is the first such message's code
 * (0 when every message moved). *json_out is the response, compact JSON.
 * Ownership: *json_out and *statuses_out are NUL-terminated, for pncrypt_free().
 * Errors (returned): PNCRYPT_E_ARGUMENT (NULL map, module, json or json_out; unknown format; `channel` as for
 * pncrypt_envelope_decrypt_channels()); PNCRYPT_E_INVALID_VALUE (a legacy33 `to`, a map with no keys);
 * PNCRYPT_E_INVALID_JSON; PNCRYPT_E_JSON_TOO_DEEP.
 */
PNCRYPT_API int pncrypt_envelope_rekey_channels(pncrypt_channel_keys *map, const char *format, const char *channel,
                                                const char *only_channel, pncrypt_module *to, const char *json,
                                                size_t len, char **json_out, char **statuses_out,
                                                pncrypt_error *status);

/*
 * Records read with their channel's keys (an export: {"channel":"ch","message":"<Base64>","timetoken":"..."} a
 * record), as `pncrypt message decrypt|rekey --field POINTER --channel-key-file C=PATH` reads them: the record
 * calls (pncrypt_field_decrypt(), _rekey() and their _many batches) with each record's message read only with the
 * keys of the channel the record names, chosen as for a response's messages. `channel_pointer` is where each
 * record names its channel (a JSON Pointer; NULL for "/channel"); a record without it, or where it is not a JSON
 * string, is PNCRYPT_E_INVALID_VALUE naming that pointer (never read with another channel's keys). A message
 * under another channel's key is the one decryption failure (PNCRYPT_E_WRONG_KEY_OR_CORRUPT); a channel no
 * pattern matches is PNCRYPT_E_INVALID_KEY ("no key for channel ..."), delivered as a failed field is. A status
 * JSON names the record's channel ("channel"). Rekey moves each record to the first key of `to` in its scheme (a
 * legacy33 module is refused), as pncrypt_envelope_rekey_channels() does. Otherwise every argument, output,
 * ownership rule and error is the module-based call's; an invalid `channel_pointer` is PNCRYPT_E_ARGUMENT, a
 * NULL map PNCRYPT_E_ARGUMENT, a map with no keys PNCRYPT_E_INVALID_VALUE.
 */
PNCRYPT_API int pncrypt_field_decrypt_channels(pncrypt_channel_keys *map, const char *pointer,
                                               const char *channel_pointer, const char *json, size_t len,
                                               int policy, char **json_out, char **status_json_out,
                                               pncrypt_error *status);

PNCRYPT_API int pncrypt_field_rekey_channels(pncrypt_channel_keys *map, pncrypt_module *to, const char *pointer,
                                             const char *channel_pointer, const char *json, size_t len,
                                             char **json_out, int *outcome, pncrypt_error *err);

PNCRYPT_API int pncrypt_field_decrypt_channels_many(pncrypt_channel_keys *map, const char *pointer,
                                                    const char *channel_pointer, const char *data,
                                                    size_t data_len, const size_t *lengths, size_t count,
                                                    int policy, char **out, size_t *offsets, int *codes,
                                                    pncrypt_error *status);

PNCRYPT_API int pncrypt_field_rekey_channels_many(pncrypt_channel_keys *map, pncrypt_module *to,
                                                  const char *pointer, const char *channel_pointer,
                                                  const char *data, size_t data_len, const size_t *lengths,
                                                  size_t count, char **out, size_t *offsets, int *outcomes,
                                                  int *codes, pncrypt_error *status);

/* ---- Memory ----------------------------------------------------------------------------------------------- */

/* Wipes, then frees, a buffer the library returned (plaintext included). NULL is ignored. Pass each buffer
 * once, and only buffers from this library (not from malloc). */
PNCRYPT_API void pncrypt_free(void *buffer);

#ifdef __cplusplus
}
#endif

#endif /* PNCRYPT_H */
