// The vector forms of PNCryptCore's byte loops (include/pncrypt_simd.h): SSSE3, compiled for it function by function
// (`target("ssse3")`) and called only when the CPU has it (`pnsimd_available`). No cipher here: AES is
// OpenSSL's. The algorithms are the published ones: UTF-8 validation by lookup of the nibbles of each byte and the
// one before it (Keiser and Lemire, "Validating UTF-8 In Less Than One Instruction Per Byte", 2021, as simdjson
// does it), Base64 with pshufb lookups and multiply-adds to move the 6-bit fields (Muła and Lemire, "Faster Base64
// Encoding and Decoding Using AVX2 Instructions", 2018, here with 16-byte vectors).
#include "pncrypt_simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <string.h>
#include <immintrin.h>

#define SSSE3 __attribute__((target("ssse3")))

int pnsimd_level = -1;

int pnsimd_detect(void) {
    __builtin_cpu_init();
    int level = __builtin_cpu_supports("ssse3") ? 1 : 0;
    __atomic_store_n(&pnsimd_level, level, __ATOMIC_RELAXED);
    return level;
}

// MARK: UTF-8

// The error classes of a byte and the one before it: a pair is an error when the classes of the earlier byte's high
// nibble, its low nibble and the later byte's high nibble share a bit.
enum {
    TOO_SHORT = 1 << 0,      // a lead byte or ASCII followed by a lead byte or ASCII, after a lead byte
    TOO_LONG = 1 << 1,       // ASCII followed by a continuation byte
    OVERLONG_3 = 1 << 2,     // E0 80-9F
    TOO_LARGE = 1 << 3,      // F4 90-BF, F5-FF 90-BF
    SURROGATE = 1 << 4,      // ED A0-BF
    OVERLONG_2 = 1 << 5,     // C0-C1 80-BF
    TOO_LARGE_1000 = 1 << 6, // F5-FF 80-8F
    OVERLONG_4 = 1 << 6,     // F0 80-8F
    TWO_CONTS = 1 << 7,      // a continuation byte after a continuation byte (an error unless 2 or 3 back is a lead)
    CARRY = TOO_SHORT | TOO_LONG | TWO_CONTS,
};

SSSE3 static inline __m128i utf8_block_errors(__m128i input, __m128i previous) {
    const __m128i low_nibble = _mm_set1_epi8(0x0F);
    __m128i prev1 = _mm_alignr_epi8(input, previous, 15);
    __m128i byte1_high = _mm_shuffle_epi8(
        _mm_setr_epi8(TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, (char)TWO_CONTS,
                      (char)TWO_CONTS, (char)TWO_CONTS, (char)TWO_CONTS, TOO_SHORT | OVERLONG_2, TOO_SHORT,
                      TOO_SHORT | OVERLONG_3 | SURROGATE, TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4),
        _mm_and_si128(_mm_srli_epi16(prev1, 4), low_nibble));
    __m128i byte1_low = _mm_shuffle_epi8(
        _mm_setr_epi8((char)(CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4), (char)(CARRY | OVERLONG_2), (char)CARRY,
                      (char)CARRY, (char)(CARRY | TOO_LARGE), (char)(CARRY | TOO_LARGE | TOO_LARGE_1000),
                      (char)(CARRY | TOO_LARGE | TOO_LARGE_1000), (char)(CARRY | TOO_LARGE | TOO_LARGE_1000),
                      (char)(CARRY | TOO_LARGE | TOO_LARGE_1000), (char)(CARRY | TOO_LARGE | TOO_LARGE_1000),
                      (char)(CARRY | TOO_LARGE | TOO_LARGE_1000), (char)(CARRY | TOO_LARGE | TOO_LARGE_1000),
                      (char)(CARRY | TOO_LARGE | TOO_LARGE_1000),
                      (char)(CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE),
                      (char)(CARRY | TOO_LARGE | TOO_LARGE_1000), (char)(CARRY | TOO_LARGE | TOO_LARGE_1000)),
        _mm_and_si128(prev1, low_nibble));
    __m128i byte2_high = _mm_shuffle_epi8(
        _mm_setr_epi8(TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
                      (char)(TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4),
                      (char)(TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE),
                      (char)(TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE),
                      (char)(TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE),
                      TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT),
        _mm_and_si128(_mm_srli_epi16(input, 4), low_nibble));
    __m128i special = _mm_and_si128(_mm_and_si128(byte1_high, byte1_low), byte2_high);
    // A continuation byte after a continuation byte is right only 2 bytes after an E0-FF lead or 3 after F0-FF:
    // bit 7 of the saturating differences says which must be one.
    __m128i prev2 = _mm_alignr_epi8(input, previous, 14);
    __m128i prev3 = _mm_alignr_epi8(input, previous, 13);
    __m128i must23 = _mm_or_si128(_mm_subs_epu8(prev2, _mm_set1_epi8(0xE0 - 0x80)),
                                  _mm_subs_epu8(prev3, _mm_set1_epi8((char)(0xF0 - 0x80))));
    return _mm_xor_si128(_mm_and_si128(must23, _mm_set1_epi8((char)0x80)), special);
}

// The block of 16 bytes at `i`; past `count`, zeros (ASCII): a character the text leaves unfinished is then an
// error at the first zero. Which way it loads depends on `count` alone.
SSSE3 static inline __m128i utf8_load(const uint8_t *bytes, size_t i, size_t count) {
    if (i + 16 <= count) return _mm_loadu_si128((const __m128i *)(bytes + i));
    uint8_t tail[16] = {0};
    memcpy(tail, bytes + i, count - i);
    return _mm_loadu_si128((const __m128i *)tail);
}

// The errors of the blocks from `i` to `count`, `*previous` the block before the first; leaves the last in it.
SSSE3 static inline __m128i utf8_run(const uint8_t *bytes, size_t i, size_t count, __m128i *previous) {
    __m128i error = _mm_setzero_si128();
    for (; i + 16 <= count; i += 16) {
        __m128i input = _mm_loadu_si128((const __m128i *)(bytes + i));
        error = _mm_or_si128(error, utf8_block_errors(input, *previous));
        *previous = input;
    }
    if (i < count) {
        __m128i input = utf8_load(bytes, i, count);
        error = _mm_or_si128(error, utf8_block_errors(input, *previous));
        *previous = input;
    }
    return error;
}

// A character begun in the last 3 bytes of the last block and not finished (a byte above the greatest that may
// stand there).
SSSE3 static inline __m128i utf8_unfinished(__m128i last) {
    return _mm_subs_epu8(last, _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, (char)(0xF0 - 1),
                                             (char)(0xE0 - 1), (char)(0xC0 - 1)));
}

SSSE3 static inline int utf8_none(__m128i error) {
    return _mm_movemask_epi8(_mm_cmpeq_epi8(error, _mm_setzero_si128())) == 0xFFFF;
}

SSSE3 int pnsimd_utf8_valid(const uint8_t *bytes, size_t count) {
    __m128i previous = _mm_setzero_si128();
    __m128i error = utf8_run(bytes, 0, count, &previous);
    return utf8_none(_mm_or_si128(error, utf8_unfinished(previous)));
}

SSSE3 int pnsimd_utf8_valid_split(const uint8_t *bytes, size_t count, size_t split, int *tail) {
    if (split % 16 != 0 || split > count) {
        *tail = pnsimd_utf8_valid(bytes + (split < count ? split : count), split < count ? count - split : 0);
        return pnsimd_utf8_valid(bytes, count);
    }
    __m128i previous = _mm_setzero_si128();
    __m128i head = utf8_run(bytes, 0, split, &previous);
    if (split == count) {
        *tail = 1;
        return utf8_none(_mm_or_si128(head, utf8_unfinished(previous)));
    }
    // The block at `split` after the head's last block (the whole) and after nothing (the rest alone); from there
    // on the two readings see the same bytes, so the blocks after it are checked once for both.
    __m128i first = utf8_load(bytes, split, count);
    __m128i whole = _mm_or_si128(head, utf8_block_errors(first, previous));
    __m128i rest = utf8_block_errors(first, _mm_setzero_si128());
    previous = first;
    __m128i shared = utf8_run(bytes, split + 16, count, &previous);
    shared = _mm_or_si128(shared, utf8_unfinished(previous));  // after the run: it leaves the last block in previous
    *tail = utf8_none(_mm_or_si128(rest, shared));
    return utf8_none(_mm_or_si128(whole, shared));
}

// MARK: Base64

SSSE3 size_t pnsimd_base64_decode(const uint8_t *input, size_t count, uint8_t *output, size_t room,
                                   size_t *written) {
    size_t i = 0, o = 0;
    const __m128i low_nibble = _mm_set1_epi8(0x0F);
    // For each low nibble, the high nibbles (bit n for nibble n, 0-7) that make an alphabet character with it: 2
    // with B (+) and F (/), 3 with 0-9, 4 and 6 with 1-F, 5 and 7 with 0-A.
    const __m128i valid_high = _mm_setr_epi8((char)0xA8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8,
                                             (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF8, (char)0xF0, 0x54, 0x50,
                                             0x50, 0x50, 0x54);
    const __m128i bit_of_high = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, (char)128, 0, 0, 0, 0, 0, 0, 0, 0);
    // What to add to a character of each high nibble for its value: + is 43 -> 62, / is 47 -> 63 (corrected
    // below), 0-9 are 48-57 -> 52-61, A-Z 65-90 -> 0-25, a-z 97-122 -> 26-51.
    const __m128i shift_of_high = _mm_setr_epi8(0, 0, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    while (i + 16 <= count && o + 16 <= room) {
        __m128i text = _mm_loadu_si128((const __m128i *)(input + i));
        __m128i high = _mm_and_si128(_mm_srli_epi16(text, 4), low_nibble);
        __m128i allowed = _mm_and_si128(_mm_shuffle_epi8(valid_high, _mm_and_si128(text, low_nibble)),
                                        _mm_shuffle_epi8(bit_of_high, high));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(allowed, _mm_setzero_si128())) != 0) break;
        __m128i slash = _mm_cmpeq_epi8(text, _mm_set1_epi8('/'));
        __m128i shift = _mm_add_epi8(_mm_shuffle_epi8(shift_of_high, high), _mm_and_si128(slash, _mm_set1_epi8(-3)));
        __m128i values = _mm_add_epi8(text, shift);
        // Each 4 values (6 bits each) to 24 bits, then the 3 bytes of each group, most significant first.
        __m128i pairs = _mm_maddubs_epi16(values, _mm_set1_epi32(0x01400140));
        __m128i groups = _mm_madd_epi16(pairs, _mm_set1_epi32(0x00011000));
        __m128i bytes = _mm_shuffle_epi8(groups, _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1));
        _mm_storeu_si128((__m128i *)(output + o), bytes);
        i += 16;
        o += 12;
    }
    *written = o;
    return i;
}

SSSE3 size_t pnsimd_base64_encode(const uint8_t *input, size_t count, uint8_t *output) {
    size_t i = 0, o = 0;
    while (i + 16 <= count) {
        __m128i in = _mm_loadu_si128((const __m128i *)(input + i));
        // Bytes a b c of each group to b a c b, so that each 16-bit half holds two of the four 6-bit fields.
        in = _mm_shuffle_epi8(in, _mm_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10));
        __m128i fields02 = _mm_mulhi_epu16(_mm_and_si128(in, _mm_set1_epi32(0x0FC0FC00)), _mm_set1_epi32(0x04000040));
        __m128i fields13 = _mm_mullo_epi16(_mm_and_si128(in, _mm_set1_epi32(0x003F03F0)), _mm_set1_epi32(0x01000010));
        __m128i indices = _mm_or_si128(fields02, fields13);
        // Index to character: 0-25 +65, 26-51 +71, 52-61 -4, 62 -19, 63 -16, by a lookup of a reduced index.
        __m128i reduced = _mm_subs_epu8(indices, _mm_set1_epi8(51));
        __m128i upper = _mm_cmpgt_epi8(_mm_set1_epi8(26), indices);
        reduced = _mm_or_si128(reduced, _mm_and_si128(upper, _mm_set1_epi8(13)));
        __m128i shift = _mm_shuffle_epi8(
            _mm_setr_epi8('a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                          '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0),
            reduced);
        _mm_storeu_si128((__m128i *)(output + o), _mm_add_epi8(shift, indices));
        i += 12;
        o += 16;
    }
    return i;
}

#else

int pnsimd_level = -1;

int pnsimd_detect(void) {
    __atomic_store_n(&pnsimd_level, 0, __ATOMIC_RELAXED);
    return 0;
}
int pnsimd_utf8_valid(const uint8_t *bytes, size_t count) { (void)bytes; (void)count; return 0; }
int pnsimd_utf8_valid_split(const uint8_t *bytes, size_t count, size_t split, int *tail) {
    (void)bytes; (void)count; (void)split;
    *tail = 0;
    return 0;
}
size_t pnsimd_base64_decode(const uint8_t *input, size_t count, uint8_t *output, size_t room, size_t *written) {
    (void)input; (void)count; (void)output; (void)room;
    *written = 0;
    return 0;
}
size_t pnsimd_base64_encode(const uint8_t *input, size_t count, uint8_t *output) {
    (void)input; (void)count; (void)output;
    return 0;
}

#endif
