#ifndef PNCRYPT_CZLIB_SHIM_H
#define PNCRYPT_CZLIB_SHIM_H
#include <zlib.h>

/* deflateInit2 and inflateInit2 are function-like macros (they pass ZLIB_VERSION and sizeof(z_stream)),
   which Swift cannot import: wrap them. */
static inline int pncrypt_deflateInit2(z_streamp strm, int level, int method, int windowBits, int memLevel,
                                       int strategy) {
    return deflateInit2(strm, level, method, windowBits, memLevel, strategy);
}

static inline int pncrypt_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
#endif
