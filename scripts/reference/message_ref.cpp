// The C++ reference for pncrypt's message path (issue 34): the same work as pncrypt-bench's message figures,
// done with the best parts at hand, for scripts/compare.sh.
//
//   encrypt: a parsed message (simdjson DOM) -> minify -> AES-256-CBC (OpenSSL EVP, one context, IV reset per
//            message) -> Base64 (EVP_EncodeBlock) -> a JSON string literal
//   decrypt: the JSON string literal -> Base64 (EVP_DecodeBlock) -> AES-256-CBC -> simdjson DOM parse (which
//            validates UTF-8)
//
// Legacy scheme: the key is the first 32 hex digits of SHA-256 of the cipher key, the IV is "0123456789012345".
// Usage: message_ref N [encrypt|decrypt]  ->  {"encrypt": msg/s, "decrypt": msg/s} over N messages each way, timed
// once (with a direction, only that one runs N times: for profilers such as callgrind).
// Build: g++ -O2 -std=c++17 message_ref.cpp -o message_ref -lsimdjson -lcrypto
#include <openssl/evp.h>
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

static void fail(const char *what) {
    std::fprintf(stderr, "message_ref: %s\n", what);
    std::exit(1);
}

static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int main(int argc, char **argv) {
    long count = argc > 1 ? std::atol(argv[1]) : 100000;
    const char *only = argc > 2 ? argv[2] : "";
    if (count <= 0 || (*only && std::strcmp(only, "encrypt") && std::strcmp(only, "decrypt")))
        fail("usage: message_ref N [encrypt|decrypt] (N > 0)");
    long encryptCount = std::strcmp(only, "decrypt") ? count : 1;
    long decryptCount = std::strcmp(only, "encrypt") ? count : 0;

    // The legacy key: the first 32 hex digits of SHA-256("bench-key"), as ASCII.
    unsigned char digest[32];
    unsigned int digestLength = 0;
    const char *cipherKey = "bench-key";
    if (!EVP_Digest(cipherKey, std::strlen(cipherKey), digest, &digestLength, EVP_sha256(), nullptr)) fail("sha256");
    unsigned char key[32];
    for (int i = 0; i < 16; i++) std::snprintf(reinterpret_cast<char *>(key) + 2 * i, 3, "%02x", digest[i]);

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
        int length = 0, tail = 0;
        if (!EVP_EncryptInit_ex(enc, nullptr, nullptr, nullptr, kIV)
            || !EVP_EncryptUpdate(enc, sealed.data(), &length, reinterpret_cast<const unsigned char *>(text.data()),
                                  static_cast<int>(text.size()))
            || !EVP_EncryptFinal_ex(enc, sealed.data() + length, &tail)) fail("encrypt");
        wire[0] = '"';
        int encoded = EVP_EncodeBlock(wire.data() + 1, sealed.data(), length + tail);
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
        int length = 0, tail = 0;
        if (!EVP_DecryptInit_ex(dec, nullptr, nullptr, nullptr, kIV)
            || !EVP_DecryptUpdate(dec, opened.data(), &length, sealed.data(), decoded)
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
