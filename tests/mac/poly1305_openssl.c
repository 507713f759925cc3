/*
 * Differential test against OpenSSL, once per engine:
 *
 *   test_poly1305_openssl ENGINE VECTOR_DIR [--seed N]
 *
 * OpenSSL computes raw Poly1305 with EVP_MAC "POLY1305" and the
 * Poly1305-AES pad with EVP AES-128-ECB. Checked: raw Poly1305 and
 * Poly1305-AES (one-shot, verify and incremental with random multi-way
 * splits) on random keys, nonces and messages of every length 0..4096 and
 * some up to 64 KiB; random keys with extreme limbs (all-0xff r and s);
 * and the records of poly1305_long_ff.txt, whose MACs were computed with
 * Python, recomputed by OpenSSL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/core_names.h>

#include "mutil.h"

static EVP_MAC *g_mac;
static EVP_MAC_CTX *g_mctx;
static EVP_CIPHER *g_aes;
static EVP_CIPHER_CTX *g_cctx;

static void ossl_poly1305(uint8_t tag[16], const uint8_t *m, size_t len,
                          const uint8_t key[32])
{
    size_t outl = 0;
    if (EVP_MAC_init(g_mctx, key, 32, NULL) != 1 ||
        EVP_MAC_update(g_mctx, m, len) != 1 ||
        EVP_MAC_final(g_mctx, tag, &outl, 16) != 1 || outl != 16) {
        printf("%s: FAIL: OpenSSL EVP_MAC POLY1305 failed\n", mt_name());
        exit(1);
    }
}

static void ossl_poly1305aes(uint8_t tag[16], const uint8_t kr[32],
                             const uint8_t n[16], const uint8_t *m,
                             size_t len)
{
    uint8_t key[32];
    int l = 0;
    memcpy(key, kr + 16, 16);
    if (EVP_EncryptInit_ex2(g_cctx, g_aes, kr, NULL, NULL) != 1 ||
        EVP_CIPHER_CTX_set_padding(g_cctx, 0) != 1 ||
        EVP_EncryptUpdate(g_cctx, key + 16, &l, n, 16) != 1 || l != 16) {
        printf("%s: FAIL: OpenSSL AES-128-ECB failed\n", mt_name());
        exit(1);
    }
    ossl_poly1305(tag, m, len, key);
}

static void random_split(tu_rng *rng, rijn_poly1305_ctx *ctx,
                         const uint8_t *m, size_t len)
{
    size_t off = 0;
    while (off < len) {
        size_t max = tu_rng_below(rng, 3) == 0 ? 1024 : 48;
        size_t c = (size_t)tu_rng_below(rng, max + 1);
        if (c > len - off)
            c = len - off;
        rijn_poly1305_update(ctx, m + off, c);
        off += c;
    }
}

static unsigned long g_bad;

static void cmp(const uint8_t *got, const uint8_t *want, const char *what,
                size_t len)
{
    if (memcmp(got, want, 16) != 0) {
        g_bad++;
        mt_fail("%s, len %zu: rijn %s", what, len, tu_hex(got, 16));
        mt_note("   openssl %s", tu_hex(want, 16));
    }
}

static void test_random(tu_rng *rng)
{
    enum { MAX = 65536 + 64 };
    uint8_t *buf = malloc(MAX);
    uint8_t key[32], kr[32], n[16], want[16], got[16];
    rijn_poly1305_ctx ctx;
    unsigned long cases = 0;

    if (buf == NULL)
        exit(1);
    for (size_t i = 0; i <= 4096 + 40; i++) {
        size_t len = i <= 4096 ? i : (size_t)tu_rng_below(rng, 65536) + 1;
        size_t align = (size_t)tu_rng_below(rng, 64);
        uint8_t *m = buf + align;
        tu_rng_fill(rng, m, len);
        tu_rng_fill(rng, key, 32);
        tu_rng_fill(rng, kr, 32);
        tu_rng_fill(rng, n, 16);
        switch (i % 11) { /* extreme keys and messages now and then */
        case 3: memset(key, 0xff, 32); memset(kr + 16, 0xff, 16); break;
        case 7: memset(m, 0xff, len); break;
        case 9: memset(key, 0xff, 16); memset(m, 0xff, len); break;
        default: break;
        }
        /* raw Poly1305 (r clamped by both) */
        ossl_poly1305(want, m, len, key);
        rijn_poly1305(got, m, len, key);
        cmp(got, want, "raw one-shot", len);
        rijn_poly1305_init(&ctx, key);
        random_split(rng, &ctx, m, len);
        rijn_poly1305_final(&ctx, got);
        cmp(got, want, "raw incremental", len);
        /* Poly1305-AES; OpenSSL clamps r inside Poly1305 as rijn does */
        ossl_poly1305aes(want, kr, n, m, len);
        rijn_poly1305aes_authenticate(got, kr, n, m, len);
        cmp(got, want, "Poly1305-AES authenticate", len);
        if (rijn_poly1305aes_verify(want, kr, n, m, len) != 1) {
            g_bad++;
            mt_fail("verify rejects OpenSSL's tag, len %zu", len);
        }
        rijn_poly1305aes_init(&ctx, kr, n);
        random_split(rng, &ctx, m, len);
        rijn_poly1305_final(&ctx, got);
        cmp(got, want, "Poly1305-AES incremental", len);
        cases++;
    }
    free(buf);
    if (g_bad == 0)
        mt_pass();
    mt_note("random: %lu lengths (0..4096 and 40 up to 64 KiB), 4 tags "
            "each, %lu mismatches", cases, g_bad);
}

static void check_ff(const uint8_t key[32], const uint8_t *msg, size_t len,
                     const uint8_t mac[16], int line, void *arg)
{
    uint8_t want[16], got[16];
    char what[64];
    (void)arg;
    ossl_poly1305(want, msg, len, key);
    snprintf(what, sizeof what, "poly1305_long_ff.txt:%d vs OpenSSL", line);
    mt_eq(mac, want, 16, what);
    rijn_poly1305(got, msg, len, key);
    snprintf(what, sizeof what, "poly1305_long_ff.txt:%d rijn", line);
    mt_eq(got, want, 16, what);
}

int main(int argc, char **argv)
{
    uint64_t seed = tu_seed_from_args(&argc, argv);
    tu_rng rng;

    if (argc != 3) {
        fprintf(stderr, "usage: %s ENGINE VECTOR_DIR [--seed N]\n", argv[0]);
        return 2;
    }
    mt_begin("poly1305_openssl", argv[1]);
    mt_note("seed %llu", (unsigned long long)seed);
    g_mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
    g_aes = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);
    g_mctx = g_mac ? EVP_MAC_CTX_new(g_mac) : NULL;
    g_cctx = EVP_CIPHER_CTX_new();
    if (g_mctx == NULL || g_aes == NULL || g_cctx == NULL) {
        printf("%s: FAIL: OpenSSL lacks POLY1305 or AES-128-ECB\n",
               mt_name());
        return 1;
    }
    tu_rng_seed(&rng, seed);
    test_random(&rng);
    mt_note("poly1305_long_ff.txt: %zu records",
            mt_poly_vectors(argv[2], "poly1305_long_ff.txt", check_ff, NULL));
    EVP_MAC_CTX_free(g_mctx);
    EVP_MAC_free(g_mac);
    EVP_CIPHER_CTX_free(g_cctx);
    EVP_CIPHER_free(g_aes);
    return mt_end();
}
