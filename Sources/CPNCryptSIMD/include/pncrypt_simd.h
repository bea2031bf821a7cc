// The byte loops of PNCryptCore that have a vector form: SSSE3 on x86-64, chosen at run time. Not part of the C
// library's interface (include/pncrypt.h): PNCryptCore calls these and keeps its Swift loops for every other CPU.
// Named pnsimd_, not pncrypt_: libpncrypt exports every pncrypt_ symbol (Sources/CPNCrypt/libpncrypt.map) and
// nothing else, so these stay hidden.
#ifndef PNCRYPT_SIMD_H
#define PNCRYPT_SIMD_H

#include <stddef.h>
#include <stdint.h>

/// This CPU's answer to `pnsimd_available`, -1 until it is asked (by `pnsimd_detect`, once).
extern int pnsimd_level;

/// Asks the CPU, stores the answer in `pnsimd_level` and returns it.
int pnsimd_detect(void);

/// 1 when this CPU runs the functions below (x86-64 with SSSE3), 0 otherwise: then they must not be called. After
/// the first call, a load: the callers ask it before every loop.
static inline int pnsimd_available(void) {
    int level = __atomic_load_n(&pnsimd_level, __ATOMIC_RELAXED);
    return level >= 0 ? level : pnsimd_detect();
}

/// 1 when the `count` bytes at `bytes` are valid UTF-8 (RFC 3629), 0 otherwise. Every byte is read whatever it
/// holds and no branch depends on a byte: the time depends on `count` alone.
int pnsimd_utf8_valid(const uint8_t *bytes, size_t count);

/// `pnsimd_utf8_valid` of the `count` bytes (returned) and of the bytes after the first `split` (in `*tail`), in one
/// pass when `split` is a multiple of 16 (the blocks after the one at `split` are the same for both), in two
/// otherwise. The time depends on `count` and `split` alone.
int pnsimd_utf8_valid_split(const uint8_t *bytes, size_t count, size_t split, int *tail);

/// Decodes whole blocks of 16 Base64 alphabet characters (`A-Z a-z 0-9 + /`) from `input` into `output`, 12 bytes a
/// block, stopping before the first block that holds any other byte; stores `*written` bytes and returns the
/// characters read. Each block's store is 16 bytes wide: `output` must have room for `room` bytes, and blocks run
/// while `*written + 16 <= room`.
size_t pnsimd_base64_decode(const uint8_t *input, size_t count, uint8_t *output, size_t room, size_t *written);

/// Encodes whole blocks of 12 bytes from `input` into 16 Base64 characters each (standard alphabet), while 16 bytes
/// are left to load (each block reads 16, uses 12); writes to `output` and returns the bytes read (the characters
/// written are 4/3 of it).
size_t pnsimd_base64_encode(const uint8_t *input, size_t count, uint8_t *output);

#endif
