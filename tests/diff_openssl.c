/*
 * diff_openssl: CTR and ECB properties of one backend (see props.c),
 * checked against OpenSSL's libcrypto EVP aes-{128,192,256}-ctr and -ecb.
 * OpenSSL's CTR uses the same full 128-bit big-endian counter as rijn
 * (SP 800-38A), so counter wraps at 2^32, 2^64, 2^96 and 2^128 are
 * compared directly. Built only when CMake finds OpenSSL (native builds);
 * OpenSSL is a test-only dependency.
 *
 *   usage: test_diff_openssl BACKEND [--seed N]
 */
#include <limits.h>

#include <openssl/evp.h>
#include <openssl/opensslv.h>

#include "props.h"
#include "testutil.h"

static const EVP_CIPHER *cipher(size_t key_len, int ctr)
{
    switch (key_len) {
    case 16:
        return ctr ? EVP_aes_128_ctr() : EVP_aes_128_ecb();
    case 24:
        return ctr ? EVP_aes_192_ctr() : EVP_aes_192_ecb();
    case 32:
        return ctr ? EVP_aes_256_ctr() : EVP_aes_256_ecb();
    default:
        return NULL;
    }
}

static int evp_run(const EVP_CIPHER *c, const uint8_t *key,
                   const uint8_t *iv, uint8_t *out, const uint8_t *in,
                   size_t len)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok = ctx != NULL && c != NULL && len <= INT_MAX &&
             EVP_EncryptInit_ex(ctx, c, NULL, key, iv) == 1 &&
             EVP_CIPHER_CTX_set_padding(ctx, 0) == 1;
    int n = 0, m = 0;

    if (ok && len > 0)
        ok = EVP_EncryptUpdate(ctx, out, &n, in, (int)len) == 1;
    if (ok)
        ok = EVP_EncryptFinal_ex(ctx, out + n, &m) == 1 &&
             (size_t)(n + m) == len;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? 0 : -1;
}

static int ossl_ecb(const uint8_t *key, size_t key_len, uint8_t *out,
                    const uint8_t *in, size_t nblocks)
{
    return evp_run(cipher(key_len, 0), key, NULL, out, in, 16 * nblocks);
}

static int ossl_ctr(const uint8_t *key, size_t key_len, const uint8_t iv[16],
                    uint8_t *out, const uint8_t *in, size_t len)
{
    return evp_run(cipher(key_len, 1), key, iv, out, in, len);
}

static const props_oracle ossl_oracle = {
    "OpenSSL EVP aes-*-ctr / aes-*-ecb (" OPENSSL_VERSION_TEXT ")",
    ossl_ecb, ossl_ctr};

int main(int argc, char **argv)
{
    return props_main("diff_openssl", &ossl_oracle, argc, argv);
}
