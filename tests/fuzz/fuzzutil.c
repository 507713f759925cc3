/*
 * Helpers of the library's fuzz targets; see fuzzutil.h.
 */
#include "fuzzutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rijn_gcm.h"
#include "rijn_poly1305.h"

#ifdef RIJN_FUZZ_OPENSSL
#include <openssl/evp.h>
#include <openssl/params.h>
#endif

/* ---- input reader ---------------------------------------------------- */

uint8_t fz_u8(fz_in *in)
{
    if (in->n == 0)
        return 0;
    in->n--;
    return *in->p++;
}

uint16_t fz_u16(fz_in *in)
{
    uint16_t v = fz_u8(in);
    return (uint16_t)(v | (uint16_t)fz_u8(in) << 8);
}

uint32_t fz_u32(fz_in *in)
{
    uint32_t v = fz_u16(in);
    return v | (uint32_t)fz_u16(in) << 16;
}

uint64_t fz_u64(fz_in *in)
{
    uint64_t v = fz_u32(in);
    return v | (uint64_t)fz_u32(in) << 32;
}

size_t fz_range(fz_in *in, size_t lo, size_t hi)
{
    uint64_t span = (uint64_t)(hi - lo), v = 0;
    if (span == 0)
        return lo;
    for (uint64_t m = span; m != 0; m >>= 8)
        v = v << 8 | fz_u8(in);
    return lo + (size_t)(span == UINT64_MAX ? v : v % (span + 1));
}

void fz_bytes(fz_in *in, uint8_t *dst, size_t n)
{
    size_t k = n < in->n ? n : in->n;
    memcpy(dst, in->p, k);
    memset(dst + k, 0, n - k);
    in->p += k;
    in->n -= k;
}

size_t fz_left(const fz_in *in)
{
    return in->n;
}

/* ---- failures --------------------------------------------------------- */

void fz_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("FUZZ ORACLE FAILURE: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

void fz_check_eq(const uint8_t *got, const uint8_t *want, size_t n,
                 const char *what)
{
    if (memcmp(got, want, n) == 0)
        return;
    size_t i = 0;
    while (got[i] == want[i])
        i++;
    fz_fail("%s: differs at byte %zu of %zu (got %02x, want %02x)", what, i,
            n, got[i], want[i]);
}

int fz_all_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

/* ---- implementations this CPU runs ------------------------------------- */

static void fill(fz_list *l, size_t count,
                 int (*get)(size_t, rijn_impl_info *))
{
    rijn_impl_info info;
    l->n = 0;
    for (size_t i = 0; i < count && l->n < 32; i++)
        if (get(i, &info) == 0 && info.available)
            l->name[l->n++] = info.name;
    if (l->n == 0)
        fz_fail("no implementation available");
}

const fz_list *fz_aes_backends(void)
{
    static fz_list l;
    if (l.n == 0)
        fill(&l, rijn_impl_count(), rijn_impl_get);
    return &l;
}

const fz_list *fz_ghash_engines(void)
{
    static fz_list l;
    if (l.n == 0)
        fill(&l, rijn_gcm_impl_count(), rijn_gcm_impl_get);
    return &l;
}

const fz_list *fz_poly_engines(void)
{
    static fz_list l;
    if (l.n == 0)
        fill(&l, rijn_poly1305_impl_count(), rijn_poly1305_impl_get);
    return &l;
}

/* ---- GF(2^128) -------------------------------------------------------- */

static uint64_t be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
}

/* SP 800-38D Algorithm 1, bit by bit (variable time: a test oracle). */
void fz_gf_mul(uint8_t z[16], const uint8_t x[16], const uint8_t y[16])
{
    uint64_t x0 = be64(x), x1 = be64(x + 8), v0 = be64(y), v1 = be64(y + 8);
    uint64_t r0 = 0, r1 = 0;
    for (int i = 0; i < 128; i++) {
        uint64_t xb = i < 64 ? x0 >> (63 - i) : x1 >> (127 - i);
        if (xb & 1) {
            r0 ^= v0;
            r1 ^= v1;
        }
        uint64_t lsb = v1 & 1;
        v1 = v1 >> 1 | v0 << 63;
        v0 >>= 1;
        if (lsb)
            v0 ^= UINT64_C(0xe1) << 56;
    }
    put_be64(z, r0);
    put_be64(z + 8, r1);
}

/* x^(2^128 - 2) */
void fz_gf_inv(uint8_t z[16], const uint8_t x[16])
{
    uint8_t t[16];
    memcpy(t, x, 16);
    for (int i = 1; i < 127; i++) { /* t = x^(2^(i+1) - 1) */
        fz_gf_mul(t, t, t);
        fz_gf_mul(t, t, x);
    }
    fz_gf_mul(z, t, t);
}

/* ---- oracles ------------------------------------------------------------ */

#ifdef RIJN_FUZZ_OPENSSL

const char *fz_oracle_name(void)
{
    return "EVP";
}

static EVP_CIPHER_CTX *evp_ctx(void)
{
    static EVP_CIPHER_CTX *x;
    if (x == NULL && (x = EVP_CIPHER_CTX_new()) == NULL)
        fz_fail("EVP_CIPHER_CTX_new");
    EVP_CIPHER_CTX_reset(x);
    return x;
}

static const EVP_CIPHER *pick(size_t key_len, const EVP_CIPHER *a128,
                              const EVP_CIPHER *a192, const EVP_CIPHER *a256)
{
    return key_len == 16 ? a128 : key_len == 24 ? a192 : a256;
}

void fz_oracle_ctr(const uint8_t *key, size_t key_len, const uint8_t iv[16],
                   uint8_t *out, const uint8_t *in, size_t len)
{
    EVP_CIPHER_CTX *x = evp_ctx();
    int n, ok = EVP_EncryptInit_ex(x, pick(key_len, EVP_aes_128_ctr(),
                                            EVP_aes_192_ctr(),
                                            EVP_aes_256_ctr()),
                                   NULL, key, iv) == 1;
    if (len)
        ok &= EVP_EncryptUpdate(x, out, &n, in, (int)len) == 1;
    ok &= EVP_EncryptFinal_ex(x, out + len, &n) == 1;
    FZ_CHECK(ok, "OpenSSL AES-CTR failed");
}

void fz_oracle_gcm(const uint8_t *key, size_t key_len, const uint8_t *iv,
                   size_t iv_len, const uint8_t *aad, size_t aad_len,
                   const uint8_t *pt, size_t len, uint8_t *ct, uint8_t tag[16])
{
    EVP_CIPHER_CTX *x = evp_ctx();
    int n, ok = EVP_EncryptInit_ex(x, pick(key_len, EVP_aes_128_gcm(),
                                            EVP_aes_192_gcm(),
                                            EVP_aes_256_gcm()),
                                   NULL, NULL, NULL) == 1;
    ok &= EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_IVLEN, (int)iv_len, NULL) == 1;
    ok &= EVP_EncryptInit_ex(x, NULL, NULL, key, iv) == 1;
    if (aad_len)
        ok &= EVP_EncryptUpdate(x, NULL, &n, aad, (int)aad_len) == 1;
    if (len)
        ok &= EVP_EncryptUpdate(x, ct, &n, pt, (int)len) == 1;
    ok &= EVP_EncryptFinal_ex(x, ct + len, &n) == 1;
    ok &= EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
    FZ_CHECK(ok, "OpenSSL AES-GCM failed (iv_len %zu)", iv_len);
}

void fz_oracle_ecb(const uint8_t *key, size_t key_len, const uint8_t *in,
                   uint8_t *out, size_t nblocks)
{
    EVP_CIPHER_CTX *x = evp_ctx();
    int n = 0, ok = EVP_EncryptInit_ex(x, pick(key_len, EVP_aes_128_ecb(),
                                                EVP_aes_192_ecb(),
                                                EVP_aes_256_ecb()),
                                       NULL, key, NULL) == 1;
    ok &= EVP_CIPHER_CTX_set_padding(x, 0) == 1;
    if (nblocks)
        ok &= EVP_EncryptUpdate(x, out, &n, in, (int)(16 * nblocks)) == 1;
    FZ_CHECK(ok && (size_t)n == 16 * nblocks, "OpenSSL AES-ECB failed");
}

void fz_oracle_aes(const uint8_t *key, size_t key_len, const uint8_t in[16],
                   uint8_t out[16])
{
    fz_oracle_ecb(key, key_len, in, out, 1);
}

void fz_oracle_poly1305(const uint8_t key[32], const uint8_t *m, size_t len,
                        uint8_t tag[16])
{
    static EVP_MAC *mac;
    EVP_MAC_CTX *x;
    size_t n = 0;
    int ok;

    if (mac == NULL && (mac = EVP_MAC_fetch(NULL, "POLY1305", NULL)) == NULL)
        fz_fail("EVP_MAC_fetch(POLY1305)");
    x = EVP_MAC_CTX_new(mac);
    FZ_CHECK(x != NULL, "EVP_MAC_CTX_new");
    ok = EVP_MAC_init(x, key, 32, NULL) == 1;
    ok &= EVP_MAC_update(x, m, len) == 1;
    ok &= EVP_MAC_final(x, tag, &n, 16) == 1;
    EVP_MAC_CTX_free(x);
    FZ_CHECK(ok && n == 16, "OpenSSL Poly1305 failed");
}

#else /* rijn's ref backend and the code below */

const char *fz_oracle_name(void)
{
    return "ref";
}

static void ref_key(rijn_aes_key *k, const uint8_t *key, size_t key_len)
{
    FZ_CHECK(rijn_aes_setkey_impl(k, key, key_len, "ref") == 0,
             "ref key setup failed");
}

void fz_oracle_ecb(const uint8_t *key, size_t key_len, const uint8_t *in,
                   uint8_t *out, size_t nblocks)
{
    rijn_aes_key k;
    ref_key(&k, key, key_len);
    for (size_t i = 0; i < nblocks; i++) /* one block per call */
        rijn_aes_encrypt_blocks(&k, out + 16 * i, in + 16 * i, 1);
}

void fz_oracle_aes(const uint8_t *key, size_t key_len, const uint8_t in[16],
                   uint8_t out[16])
{
    fz_oracle_ecb(key, key_len, in, out, 1);
}

/* one block at a time, the counter incremented byte by byte */
static void ref_ctr(const rijn_aes_key *k, uint8_t ctr[16], int inc32,
                    uint8_t *out, const uint8_t *in, size_t len)
{
    uint8_t ks[16];
    for (size_t off = 0; off < len; off += 16) {
        rijn_aes_encrypt_blocks(k, ks, ctr, 1);
        for (size_t j = 0; j < 16 && off + j < len; j++)
            out[off + j] = in[off + j] ^ ks[j];
        for (int j = 15; j >= (inc32 ? 12 : 0); j--)
            if (++ctr[j] != 0)
                break;
    }
}

void fz_oracle_ctr(const uint8_t *key, size_t key_len, const uint8_t iv[16],
                   uint8_t *out, const uint8_t *in, size_t len)
{
    rijn_aes_key k;
    uint8_t ctr[16];
    ref_key(&k, key, key_len);
    memcpy(ctr, iv, 16);
    ref_ctr(&k, ctr, 0, out, in, len);
}

/* y = (y ^ each 16-byte block of p, zero padded) * h */
static void ghash(uint8_t y[16], const uint8_t h[16], const uint8_t *p,
                  size_t n)
{
    for (size_t off = 0; off < n; off += 16) {
        for (size_t j = 0; j < 16 && off + j < n; j++)
            y[j] ^= p[off + j];
        fz_gf_mul(y, y, h);
    }
}

void fz_oracle_gcm(const uint8_t *key, size_t key_len, const uint8_t *iv,
                   size_t iv_len, const uint8_t *aad, size_t aad_len,
                   const uint8_t *pt, size_t len, uint8_t *ct, uint8_t tag[16])
{
    static const uint8_t zero[16];
    rijn_aes_key k;
    uint8_t h[16], j0[16] = {0}, ctr[16], y[16] = {0}, lens[16];

    ref_key(&k, key, key_len);
    rijn_aes_encrypt_blocks(&k, h, zero, 1);
    if (iv_len == 12) {
        memcpy(j0, iv, 12);
        j0[15] = 1;
    } else {
        ghash(j0, h, iv, iv_len);
        memset(lens, 0, 8);
        put_be64(lens + 8, (uint64_t)iv_len * 8);
        ghash(j0, h, lens, 16);
    }
    memcpy(ctr, j0, 16);
    for (int j = 15; j >= 12; j--) /* inc32 */
        if (++ctr[j] != 0)
            break;
    ref_ctr(&k, ctr, 1, ct, pt, len);
    ghash(y, h, aad, aad_len);
    ghash(y, h, ct, len);
    put_be64(lens, (uint64_t)aad_len * 8);
    put_be64(lens + 8, (uint64_t)len * 8);
    ghash(y, h, lens, 16);
    rijn_aes_encrypt_blocks(&k, tag, j0, 1);
    for (int j = 0; j < 16; j++)
        tag[j] ^= y[j];
}

/* Poly1305 in base 2^8 (TweetNaCl's crypto_onetimeauth, public domain). */
static void add1305(uint32_t h[17], const uint32_t c[17])
{
    uint32_t u = 0;
    for (int j = 0; j < 17; j++) {
        u += h[j] + c[j];
        h[j] = u & 255;
        u >>= 8;
    }
}

void fz_oracle_poly1305(const uint8_t key[32], const uint8_t *m, size_t len,
                        uint8_t tag[16])
{
    static const uint32_t minusp[17] = {5, 0, 0, 0, 0, 0, 0, 0, 0,
                                        0, 0, 0, 0, 0, 0, 0, 252};
    uint32_t s, u, x[17], r[17], h[17], c[17], g[17];
    int i, j;

    for (j = 0; j < 17; j++)
        r[j] = h[j] = 0;
    for (j = 0; j < 16; j++)
        r[j] = key[j];
    r[3] &= 15; r[4] &= 252; r[7] &= 15; r[8] &= 252;
    r[11] &= 15; r[12] &= 252; r[15] &= 15;
    while (len > 0) {
        for (j = 0; j < 17; j++)
            c[j] = 0;
        for (j = 0; j < 16 && (size_t)j < len; ++j)
            c[j] = m[j];
        c[j] = 1;
        m += j;
        len -= (size_t)j;
        add1305(h, c);
        for (i = 0; i < 17; i++) {
            x[i] = 0;
            for (j = 0; j < 17; j++)
                x[i] += h[j] * (j <= i ? r[i - j] : 320 * r[i + 17 - j]);
        }
        for (i = 0; i < 17; i++)
            h[i] = x[i];
        u = 0;
        for (j = 0; j < 16; j++) {
            u += h[j];
            h[j] = u & 255;
            u >>= 8;
        }
        u += h[16];
        h[16] = u & 3;
        u = 5 * (u >> 2);
        for (j = 0; j < 16; j++) {
            u += h[j];
            h[j] = u & 255;
            u >>= 8;
        }
        u += h[16];
        h[16] = u;
    }
    for (j = 0; j < 17; j++)
        g[j] = h[j];
    add1305(h, minusp);
    s = 0u - (h[16] >> 7);
    for (j = 0; j < 17; j++)
        h[j] ^= s & (g[j] ^ h[j]);
    for (j = 0; j < 16; j++)
        c[j] = key[j + 16];
    c[16] = 0;
    add1305(h, c);
    for (j = 0; j < 16; j++)
        tag[j] = (uint8_t)h[j];
}

#endif /* RIJN_FUZZ_OPENSSL */
