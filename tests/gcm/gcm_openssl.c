/*
 * gcm_openssl: AES-GCM on one AES backend and GHASH engine against
 * OpenSSL's EVP AES-GCM, an independent implementation of the whole mode
 * (the oracle of gcm_props shares rijn's mode code; this does not).
 *
 *   usage: test_gcm_openssl AES_BACKEND GHASH_ENGINE [--seed N] [--quick]
 *   ("default" as in test_gcm_vectors; --quick, under qemu: 10 of the 40
 *   long messages, which were 70% of its emulated time)
 *
 * Random key sizes; IV lengths 1..64 (12 on half the messages) and a few
 * long ones; AAD and data lengths 0..4096 (every data length once) and
 * long messages up to 1 MiB; rijn one shot, in place, at every alignment,
 * and streaming in random pieces; OpenSSL in one piece, the tag of both
 * compared, and each side's output decrypted by the other.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "ghash/ghash.h"
#include "gcm_pair.h"
#include "testutil.h"

static tu_rng g_rng;

/* OpenSSL encrypt (dir 1) or decrypt (0); returns 1 on success (and, on
 * decryption, a verified tag). */
static int ossl(int dir, const uint8_t *key, size_t kl, const uint8_t *iv,
                size_t il, const uint8_t *aad, size_t al, const uint8_t *in,
                size_t len, uint8_t *out, uint8_t tag[16])
{
    const EVP_CIPHER *c = kl == 16 ? EVP_aes_128_gcm()
                        : kl == 24 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    int n, ok = 1;

    ok &= EVP_CipherInit_ex(x, c, NULL, NULL, NULL, dir) == 1;
    ok &= EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IVLEN, (int)il, NULL) == 1;
    ok &= EVP_CipherInit_ex(x, NULL, NULL, key, iv, dir) == 1;
    if (al)
        ok &= EVP_CipherUpdate(x, NULL, &n, aad, (int)al) == 1;
    if (len)
        ok &= EVP_CipherUpdate(x, out, &n, in, (int)len) == 1;
    if (!dir)
        ok &= EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_TAG, 16, tag) == 1;
    ok &= EVP_CipherFinal_ex(x, out + len, &n) == 1;
    if (dir)
        ok &= EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
    EVP_CIPHER_CTX_free(x);
    return ok;
}

static const char *g_aes, *g_ghash;

static int one(size_t kl, size_t il, size_t al, size_t len, int mode)
{
    static uint8_t key[32], iv[256], aad[4200], pt[(1 << 20) + 64],
        a[(1 << 20) + 64], b[(1 << 20) + 64], d[(1 << 20) + 64];
    uint8_t ta[16], tb[16];
    rijn_gcm_key k;
    char what[128];
    int ok = 1;

    tu_rng_fill(&g_rng, key, kl);
    tu_rng_fill(&g_rng, iv, il);
    tu_rng_fill(&g_rng, aad, al);
    tu_rng_fill(&g_rng, pt, len);
    if (rijn_gcm_setkey_impl(&k, key, kl, g_aes, g_ghash) != 0) {
        tu_fail("key setup");
        return 0;
    }
    if (!ossl(1, key, kl, iv, il, aad, al, pt, len, b, tb)) {
        tu_fail("OpenSSL encrypt failed (iv %zu)", il);
        return 0;
    }
    snprintf(what, sizeof what, "AES-%zu iv %zu aad %zu len %zu mode %d",
             8 * kl, il, al, len, mode);
    if (mode == 0) { /* one shot */
        rijn_gcm_encrypt(&k, a, ta, 16, iv, il, aad, al, pt, len);
    } else if (mode == 1) { /* in place, at an odd offset */
        memmove(a + 3, pt, len);
        rijn_gcm_encrypt(&k, a + 3, ta, 16, iv, il, aad, al, a + 3, len);
        memmove(a, a + 3, len);
    } else { /* streaming, random pieces */
        rijn_gcm_ctx c;
        size_t at = 0, aat = 0;
        rijn_gcm_start(&c, &k, iv, il);
        while (aat < al) {
            size_t n = 1 + (size_t)tu_rng_below(&g_rng, al - aat);
            rijn_gcm_aad(&c, aad + aat, n);
            aat += n;
        }
        while (at < len) {
            size_t n = 1 + (size_t)tu_rng_below(&g_rng, len - at);
            if (tu_rng_below(&g_rng, 4) == 0 && n > 300)
                n = (size_t)tu_rng_below(&g_rng, 33);
            rijn_gcm_encrypt_update(&c, a + at, pt + at, n);
            at += n;
        }
        rijn_gcm_finish(&c, ta, 16);
    }
    ok &= tu_check_eq(a, b, len, what);
    ok &= tu_check_eq(ta, tb, 16, what);
    /* each side decrypts the other's output */
    if (ok && (!ossl(0, key, kl, iv, il, aad, al, a, len, d, ta) ||
               memcmp(d, pt, len) != 0)) {
        tu_fail("%s: OpenSSL rejects rijn's tag", what);
        ok = 0;
    }
    if (ok && (rijn_gcm_decrypt(&k, d, tb, 16, iv, il, aad, al, b, len) != 0 ||
               memcmp(d, pt, len) != 0)) {
        tu_fail("%s: rijn rejects OpenSSL's message", what);
        ok = 0;
    }
    rijn_gcm_key_wipe(&k);
    return ok;
}

int main(int argc, char **argv)
{
    uint64_t seed = tu_seed_from_args(&argc, argv);
    unsigned long n = 0, bad;
    static const size_t kls[] = {16, 24, 32};
    int longs = 40;

    if (argc == 4 && strcmp(argv[3], "--quick") == 0) {
        longs = 10;
        argc--;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: test_gcm_openssl AES GHASH [--seed N] "
                        "[--quick]\n");
        return 2;
    }
    g_aes = argv[1];
    g_ghash = argv[2];
    if (gcm_pair_begin("gcm_openssl", &g_aes, &g_ghash) == NULL)
        return tu_end();
    tu_rng_seed(&g_rng, seed);
    bad = tu_failures();
    for (size_t len = 0; len <= 4096 && tu_failures() == bad; len++, n++) {
        size_t il = tu_rng_below(&g_rng, 2) ? 12
                                            : 1 + (size_t)tu_rng_below(&g_rng, 64);
        one(kls[len % 3], il, (size_t)tu_rng_below(&g_rng, 4097), len,
            (int)(len % 3));
    }
    for (int i = 0; i < longs && tu_failures() == bad; i++, n++) {
        size_t len = (size_t)tu_rng_below(&g_rng, (1 << 20) + 1);
        /* (OpenSSL 3.0 takes IVs of up to 128 bytes) */
        size_t il = i % 4 == 0 ? 1 + (size_t)tu_rng_below(&g_rng, 128) : 12;
        one(kls[i % 3], il, (size_t)tu_rng_below(&g_rng, 100), len, i % 3);
    }
    tu_note("%lu messages compared with OpenSSL %s", n,
            OpenSSL_version(OPENSSL_VERSION));
    if (tu_failures() == bad)
        tu_pass();
    return tu_end();
}
