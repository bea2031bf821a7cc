#ifndef PNCRYPT_CLIBCRYPTO_SHIM_H
#define PNCRYPT_CLIBCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#endif
