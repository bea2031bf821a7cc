// The C++ reference for pncrypt's message path (issue 34): the same work as pncrypt-bench's message figures,
// done with the best parts at hand, for scripts/bench/compare.sh.
//
//   encrypt: a parsed message (simdjson DOM) -> minify -> AES-256-CBC (OpenSSL EVP, one context, IV reset per
//            message) -> Base64 (EVP_EncodeBlock) -> a JSON string literal
//   decrypt: the JSON string literal -> Base64 (EVP_DecodeBlock) -> AES-256-CBC -> simdjson DOM parse (which
//            validates UTF-8)
//
// legacy: the key is the first 32 hex digits of SHA-256 of the cipher key, the IV is "0123456789012345".
// acrh: the key is the 32 bytes of SHA-256 of the cipher key; each message gets 16 random bytes (RAND_bytes,
// drawn 2 KiB at a time, as pncrypt does) as its IV, written after the header PNED 01 ACRH 10, before the
// ciphertext; decrypt checks the 10 header bytes and reads the IV from there.
// Usage: message_ref N [encrypt|decrypt|both] [legacy|acrh]  ->  {"encrypt": msg/s, "decrypt": msg/s} over N
// messages each way, timed once (with a direction, only that one runs N times: for profilers such as callgrind).
// Build: g++ -O2 -std=c++17 message_ref.cpp -o message_ref -lsimdjson -lcrypto
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static const char *kMessage = R"({"text":"Hello from pncrypt, message 42","user":"alice",)"
                              R"("timetoken":13406746729185766,"tags":["news","sport"],"ok":true})";
static const unsigned char kIV[16] = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '1', '2', '3', '4', '5'};
static const unsigned char kACRH[10] = {'P', 'N', 'E', 'D', 1, 'A', 'C', 'R', 'H', 16};

static void fail(const char *what) {
    std::fprintf(stderr, "message_ref: %s\n", what);
    std::exit(1);
}

static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int main(int argc, char **argv) {
    long count = argc > 1 ? std::atol(argv[1]) : 100000;
    const char *only = argc > 2 && std::strcmp(argv[2], "both") ? argv[2] : "";
    const char *scheme = argc > 3 ? argv[3] : "legacy";
    bool acrh = !std::strcmp(scheme, "acrh");
    if (count <= 0 || (*only && std::strcmp(only, "encrypt") && std::strcmp(only, "decrypt"))
        || (!acrh && std::strcmp(scheme, "legacy")))
        fail("usage: message_ref N [encrypt|decrypt|both] [legacy|acrh] (N > 0)");
    long encryptCount = std::strcmp(only, "decrypt") ? count : 1;
    long decryptCount = std::strcmp(only, "encrypt") ? count : 0;

    // The legacy key: the first 32 hex digits of SHA-256("bench-key"), as ASCII.
    unsigned char digest[32];
    unsigned int digestLength = 0;
    const char *cipherKey = "bench-key";
    if (!EVP_Digest(cipherKey, std::strlen(cipherKey), digest, &digestLength, EVP_sha256(), nullptr)) fail("sha256");
    unsigned char key[32];
    char hex[33];
    for (int i = 0; i < 16; i++) std::snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    std::memcpy(key, acrh ? digest : reinterpret_cast<unsigned char *>(hex), 32);
    // acrh's IVs: random bytes drawn 2 KiB at a time.
    unsigned char reserve[2048];
    size_t reserveUsed = sizeof reserve;
    unsigned char iv[16];
    std::memcpy(iv, kIV, 16);
    size_t prefix = acrh ? sizeof kACRH + 16 : 0;

    EVP_CIPHER_CTX *enc = EVP_CIPHER_CTX_new();
    EVP_CIPHER_CTX *dec = EVP_CIPHER_CTX_new();
    if (!enc || !dec || !EVP_EncryptInit_ex(enc, EVP_aes_256_cbc(), nullptr, key, kIV)
        || !EVP_DecryptInit_ex(dec, EVP_aes_256_cbc(), nullptr, key, kIV)) fail("EVP init");

    simdjson::dom::parser parser;
    simdjson::dom::element message;
    if (parser.parse(kMessage, std::strlen(kMessage)).get(message)) fail("the message does not parse");
    // The message stays parsed for encrypt (as pncrypt's JSONValue); decrypt parses with a parser of its own.
    simdjson::dom::parser receiver;

    std::vector<unsigned char> sealed(4096), wire(8192), opened(4096);
    std::string wireText;
    long sink = 0;

    // Encrypt: minify, encrypt, Base64, quote.
    auto start = std::chrono::steady_clock::now();
    for (long n = 0; n < encryptCount; n++) {
        std::string text = simdjson::minify(message);
        if (acrh) {
            if (reserveUsed == sizeof reserve) {
                if (RAND_bytes(reserve, sizeof reserve) != 1) fail("RAND_bytes");
                reserveUsed = 0;
            }
            std::memcpy(iv, reserve + reserveUsed, 16);
            std::memset(reserve + reserveUsed, 0, 16);
            reserveUsed += 16;
            std::memcpy(sealed.data(), kACRH, sizeof kACRH);
            std::memcpy(sealed.data() + sizeof kACRH, iv, 16);
        }
        int length = 0, tail = 0;
        if (!EVP_EncryptInit_ex(enc, nullptr, nullptr, nullptr, iv)
            || !EVP_EncryptUpdate(enc, sealed.data() + prefix, &length,
                                  reinterpret_cast<const unsigned char *>(text.data()), static_cast<int>(text.size()))
            || !EVP_EncryptFinal_ex(enc, sealed.data() + prefix + length, &tail)) fail("encrypt");
        wire[0] = '"';
        int encoded = EVP_EncodeBlock(wire.data() + 1, sealed.data(), static_cast<int>(prefix) + length + tail);
        wire[1 + encoded] = '"';
        sink += encoded + 2;
        if (n == 0) wireText.assign(reinterpret_cast<char *>(wire.data()), encoded + 2);
    }
    double encryptSeconds = seconds_since(start);

    // Decrypt: the string literal's content, Base64, decrypt, parse (UTF-8 checked by the parser).
    start = std::chrono::steady_clock::now();
    for (long n = 0; n < decryptCount; n++) {
        const char *text = wireText.data();
        size_t size = wireText.size();
        if (size < 2 || text[0] != '"' || text[size - 1] != '"') fail("not a JSON string");
        int decoded = EVP_DecodeBlock(sealed.data(), reinterpret_cast<const unsigned char *>(text + 1),
                                      static_cast<int>(size - 2));
        if (decoded < 0) fail("Base64");
        decoded -= (text[size - 2] == '=') + (text[size - 3] == '=');
        const unsigned char *body = sealed.data();
        const unsigned char *messageIV = kIV;
        if (acrh) {
            if (decoded < static_cast<int>(prefix) || std::memcmp(body, kACRH, sizeof kACRH)) fail("header");
            messageIV = body + sizeof kACRH;
            body += prefix;
            decoded -= static_cast<int>(prefix);
        }
        int length = 0, tail = 0;
        if (!EVP_DecryptInit_ex(dec, nullptr, nullptr, nullptr, messageIV)
            || !EVP_DecryptUpdate(dec, opened.data(), &length, body, decoded)
            || !EVP_DecryptFinal_ex(dec, opened.data() + length, &tail)) fail("decrypt");
        simdjson::dom::element value;
        // The parser needs SIMDJSON_PADDING readable bytes after the text: `opened` has them.
        if (receiver.parse(opened.data(), length + tail, false).get(value)) fail("the plaintext does not parse");
        sink += value.is_object();
    }
    double decryptSeconds = seconds_since(start);

    EVP_CIPHER_CTX_free(enc);
    EVP_CIPHER_CTX_free(dec);
    if (sink == 0) fail("nothing done");
    std::printf("{\"encrypt\": %.0f, \"decrypt\": %.0f}\n", encryptCount / encryptSeconds,
                decryptCount ? decryptCount / decryptSeconds : 0.0);
    return 0;
}
