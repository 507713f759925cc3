/*
 * rijn.so: AES-{128,192,256}-CTR for OpenSSL 3 (see prov.h).
 *
 * OpenSSL 3.0's CTR context is a 16-byte counter block (the `updated-iv`),
 * the keystream block of the current partial block and `num`, the bytes of
 * it used; callers may read and set num (EVP_CIPHER_CTX_set_num) and re-init
 * with or without a key or IV at any point. The same three are kept here so
 * every sequence of calls gives OpenSSL's bytes: whole blocks go to
 * rijn_aes_ctr_key from the counter, which then moves on by their number
 * (the whole 128-bit block counts, as in rijn and OpenSSL); a tail makes one
 * keystream block with rijn_aes_encrypt_blocks.
 *
 * No random bytes are ever asked for here: OpenSSL's CTR-DRBG runs on this
 * cipher when rijn is preferred. Refused as OpenSSL 3.0.22 refuses them: a
 * num other than 0 (D3 in doc/provider.md) and any call before a key (D4);
 * refused where OpenSSL goes on: partially overlapping buffers (D5). The
 * TLS parameters of the generic cipher (tls-version,
 * tls-mac-size, tls-mac, use-bits, padding) are kept and answered as
 * OpenSSL does for a stream cipher.
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "prov.h"

/* Calls of up to this many blocks take their keystream from a batch made
 * ahead: one 8-block kernel call costs about what one 1-block call does
 * (the rounds' latency), so 16- and 64-byte calls (EVP_EncryptUpdate on
 * records, small reads) no longer pay it each time. */
#define KB_BLOCKS 8

typedef struct {
    rijn_aes_key key; /* first: 64-byte aligned */
    rijn_prov *prov;
    int alg;
    size_t keylen;
    unsigned char iv[16];  /* counter block of the next block */
    unsigned char oiv[16]; /* the IV as set */
    unsigned char ks[16];  /* keystream of the current partial block */
    /* Keystream made ahead for short calls: blocks kb[pos..n) are those of
     * counters iv, iv + 1, ... (none when pos == n). */
    unsigned char kb[16 * KB_BLOCKS];
    unsigned int kb_pos, kb_n;
    unsigned int num;      /* bytes of ks used */
    unsigned int pad, use_bits, tlsversion;
    size_t tlsmacsize;
    unsigned char *tlsmac; /* into the caller's last output */
    int enc, key_set;
} ctr_pctx;

static void *ctr_newctx(void *provctx, size_t keylen, int alg)
{
    ctr_pctx *c = rp_alloc(sizeof *c);

    if (c == NULL)
        return NULL;
    c->prov = provctx;
    c->alg = alg;
    c->keylen = keylen;
    c->pad = 1;
    return c;
}

static void ctr_freectx(void *vctx)
{
    ctr_pctx *c = vctx;

    if (c != NULL)
        rp_free(c, sizeof *c);
}

static void *ctr_dupctx(void *vctx)
{
    ctr_pctx *c = rp_alloc(sizeof *c);

    if (c != NULL)
        memcpy(c, vctx, sizeof *c);
    return c;
}

static int ctr_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    static const char *const names[] = {
        OSSL_CIPHER_PARAM_PADDING, OSSL_CIPHER_PARAM_USE_BITS,
        OSSL_CIPHER_PARAM_TLS_VERSION, OSSL_CIPHER_PARAM_TLS_MAC_SIZE,
        OSSL_CIPHER_PARAM_NUM};
    const OSSL_PARAM *f[5];
    ctr_pctx *c = vctx;
    const OSSL_PARAM *p;
    unsigned int u;

    rp_params_find(params, names, 5, f);
    if (params == NULL)
        return 1;
    if ((p = f[0]) != NULL) {
        if (!OSSL_PARAM_get_uint(p, &u))
            goto get_failed;
        c->pad = u ? 1 : 0;
    }
    if ((p = f[1]) != NULL) {
        if (!OSSL_PARAM_get_uint(p, &u))
            goto get_failed;
        c->use_bits = u ? 1 : 0;
    }
    if ((p = f[2]) != NULL && !OSSL_PARAM_get_uint(p, &c->tlsversion))
        goto get_failed;
    if ((p = f[3]) != NULL && !OSSL_PARAM_get_size_t(p, &c->tlsmacsize))
        goto get_failed;
    if ((p = f[4]) != NULL) {
        if (!OSSL_PARAM_get_uint(p, &u))
            goto get_failed;
        /* OpenSSL 3.0.22 takes only a num below the cipher's block
         * size, which is 1 for CTR (its keystream buffer is 16 bytes:
         * a larger num was read past it) */
        if (u >= 1) {
            RP_ERR(c->prov, RP_R_INVALID_NUM);
            return 0;
        }
        c->num = u;
    }
    return 1;
get_failed:
    RP_ERR(c->prov, RP_R_FAILED_TO_GET_PARAMETER);
    return 0;
}

static int ctr_init(void *vctx, const unsigned char *key, size_t keylen,
                    const unsigned char *iv, size_t ivlen,
                    const OSSL_PARAM params[], int enc)
{
    ctr_pctx *c = vctx;

    c->num = 0;
    c->enc = enc ? 1 : 0;
    if (iv != NULL) {
        if (ivlen != 16) {
            RP_ERR(c->prov, RP_R_INVALID_IV_LENGTH);
            return 0;
        }
        memcpy(c->iv, iv, 16);
        memcpy(c->oiv, iv, 16);
        c->kb_pos = c->kb_n = 0;
    }
    if (key != NULL) {
        if (keylen != c->keylen) {
            RP_ERR(c->prov, RP_R_INVALID_KEY_LENGTH);
            return 0;
        }
        if (rijn_aes_setkey(&c->key, key, keylen) != 0) {
            c->key_set = 0;
            RP_ERR(c->prov, RP_R_KEY_SETUP_FAILED);
            return 0;
        }
        c->key_set = 1;
        c->kb_pos = c->kb_n = 0;
    }
    return ctr_set_ctx_params(c, params);
}

static int ctr_einit(void *vctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen,
                     const OSSL_PARAM params[])
{
    return ctr_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int ctr_dinit(void *vctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen,
                     const OSSL_PARAM params[])
{
    return ctr_init(vctx, key, keylen, iv, ivlen, params, 0);
}

/* The 128-bit big-endian counter block plus n. */
static void ctr_add(unsigned char ctr[16], uint64_t n)
{
    int i;

    for (i = 15; i >= 0 && n != 0; i--) {
        n += ctr[i];
        ctr[i] = (unsigned char)n;
        n >>= 8;
    }
}

/* The rest of ctr_xor for at most KB_BLOCKS blocks (full whole ones, then
 * a partial one) from the batch; num is 0 here. */
static int ctr_xor_short(ctr_pctx *c, unsigned char *out,
                         const unsigned char *in, size_t len, size_t full)
{
    static const unsigned char zero[16 * KB_BLOCKS];
    unsigned int need = (unsigned int)(full + (len % 16 != 0));
    const unsigned char *k;
    size_t i;

    if (c->kb_n - c->kb_pos < need) {
        rijn_aes_ctr_key(&c->key, c->kb, zero, sizeof c->kb, c->iv);
        c->kb_pos = 0;
        c->kb_n = KB_BLOCKS;
    }
    k = c->kb + 16 * c->kb_pos;
    c->kb_pos += need;
    ctr_add(c->iv, need);
    for (i = 0; i < 16 * full; i++)
        out[i] = in[i] ^ k[i];
    if (len % 16 != 0) {
        memcpy(c->ks, k + 16 * full, 16);
        for (; i < len; i++)
            out[i] = in[i] ^ c->ks[i % 16];
    }
    c->num = (unsigned int)(len % 16);
    return 1;
}

/* out = in XOR the next len bytes of the stream (OpenSSL's CTR state). */
static int ctr_xor(ctr_pctx *c, unsigned char *out, const unsigned char *in,
                   size_t len)
{
    unsigned int n = c->num;
    size_t full;

    if (len == 0)
        return 1;
    if (!c->key_set) { /* the callers refuse first, as OpenSSL does */
        RP_ERR(c->prov, RP_R_NO_KEY_SET);
        return 0;
    }
    if (rp_overlap(out, in, len)) { /* D5 */
        RP_ERR(c->prov, RP_R_OVERLAP);
        return 0;
    }
    rp_count(c->prov, c->alg, !c->enc, len);
    while (n != 0 && len > 0) {
        *out++ = *in++ ^ c->ks[n];
        len--;
        n = (n + 1) % 16;
    }
    full = len / 16;
    if (len > 0 && full + (len % 16 != 0) <= KB_BLOCKS)
        return ctr_xor_short(c, out, in, len, full);
    c->kb_pos = c->kb_n = 0; /* the counter moves past the batch */
    if (full > 0) {
        rijn_aes_ctr_key(&c->key, out, in, 16 * full, c->iv);
        ctr_add(c->iv, full);
        out += 16 * full;
        in += 16 * full;
        len -= 16 * full;
    }
    if (len > 0) {
        rijn_aes_encrypt_blocks(&c->key, c->ks, c->iv, 1);
        ctr_add(c->iv, 1);
        while (len-- > 0) {
            out[n] = in[n] ^ c->ks[n];
            n++;
        }
    }
    c->num = n;
    return 1;
}

/* OpenSSL 3.0.22 refuses every call of a CTR context before its key. */
static int ctr_has_key(ctr_pctx *c)
{
    if (!c->key_set)
        RP_ERR(c->prov, RP_R_NO_KEY_SET);
    return c->key_set;
}

/* The body update and cipher share: room checked, then the stream. */
static int ctr_run_checked(ctr_pctx *c, unsigned char *out, size_t *outl,
                           size_t outsize, const unsigned char *in,
                           size_t inl)
{
    if (outsize < inl) {
        RP_ERR(c->prov, RP_R_OUTPUT_BUFFER_TOO_SMALL);
        return 0;
    }
    if (!ctr_xor(c, out, in, inl)) {
        RP_ERR(c->prov, RP_R_CIPHER_OPERATION_FAILED);
        return 0;
    }
    *outl = inl;
    return 1;
}

static int ctr_update(void *vctx, unsigned char *out, size_t *outl,
                      size_t outsize, const unsigned char *in, size_t inl)
{
    ctr_pctx *c = vctx;

    if (!ctr_has_key(c))
        return 0;
    if (inl == 0) {
        *outl = 0;
        return 1;
    }
    if (!ctr_run_checked(c, out, outl, outsize, in, inl))
        return 0;
    /* A TLS record decrypted with a MAC after it: the MAC is handed back
     * through tls-mac and not counted as output (as OpenSSL does). */
    if (!c->enc && c->tlsversion > 0 && c->tlsmacsize > 0) {
        if (*outl < c->tlsmacsize)
            return 0;
        c->tlsmac = out + *outl - c->tlsmacsize;
        *outl -= c->tlsmacsize;
    }
    return 1;
}

static int ctr_final(void *vctx, unsigned char *out, size_t *outl,
                     size_t outsize)
{
    (void)out;
    (void)outsize;
    if (!ctr_has_key(vctx))
        return 0;
    *outl = 0;
    return 1;
}

static int ctr_cipher(void *vctx, unsigned char *out, size_t *outl,
                      size_t outsize, const unsigned char *in, size_t inl)
{
    return ctr_has_key(vctx) &&
           ctr_run_checked(vctx, out, outl, outsize, in, inl);
}

static int ctr_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    static const char *const names[] = {
        OSSL_CIPHER_PARAM_IVLEN,  OSSL_CIPHER_PARAM_PADDING,
        OSSL_CIPHER_PARAM_IV,     OSSL_CIPHER_PARAM_UPDATED_IV,
        OSSL_CIPHER_PARAM_NUM,    OSSL_CIPHER_PARAM_KEYLEN,
        OSSL_CIPHER_PARAM_TLS_MAC};
    const OSSL_PARAM *f[7];
    ctr_pctx *c = vctx;
    OSSL_PARAM *p;

    rp_params_find(params, names, 7, f);
    if ((p = (OSSL_PARAM *)f[0]) != NULL && !OSSL_PARAM_set_size_t(p, 16))
        goto set_failed;
    if ((p = (OSSL_PARAM *)f[1]) != NULL && !OSSL_PARAM_set_uint(p, c->pad))
        goto set_failed;
    if ((p = (OSSL_PARAM *)f[2]) != NULL &&
        !OSSL_PARAM_set_octet_ptr(p, &c->oiv, 16) &&
        !OSSL_PARAM_set_octet_string(p, &c->oiv, 16))
        goto set_failed;
    if ((p = (OSSL_PARAM *)f[3]) != NULL &&
        !OSSL_PARAM_set_octet_ptr(p, &c->iv, 16) &&
        !OSSL_PARAM_set_octet_string(p, &c->iv, 16))
        goto set_failed;
    if ((p = (OSSL_PARAM *)f[4]) != NULL && !OSSL_PARAM_set_uint(p, c->num))
        goto set_failed;
    if ((p = (OSSL_PARAM *)f[5]) != NULL &&
        !OSSL_PARAM_set_size_t(p, c->keylen))
        goto set_failed;
    if ((p = (OSSL_PARAM *)f[6]) != NULL &&
        !OSSL_PARAM_set_octet_ptr(p, c->tlsmac, c->tlsmacsize))
        goto set_failed;
    return 1;
set_failed:
    RP_ERR(c->prov, RP_R_FAILED_TO_SET_PARAMETER);
    return 0;
}

static const OSSL_PARAM ctr_gettable_ctx[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    {OSSL_CIPHER_PARAM_TLS_MAC, OSSL_PARAM_OCTET_PTR, NULL, 0,
     OSSL_PARAM_UNMODIFIED},
    OSSL_PARAM_END};

static const OSSL_PARAM ctr_settable_ctx[] = {
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_USE_BITS, NULL),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, NULL),
    OSSL_PARAM_END};

static const OSSL_PARAM *ctr_gettable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx;
    (void)provctx;
    return ctr_gettable_ctx;
}

static const OSSL_PARAM *ctr_settable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx;
    (void)provctx;
    return ctr_settable_ctx;
}

#define RP_CTR(bits, alg)                                                     \
    static void *ctr##bits##_newctx(void *provctx)                            \
    {                                                                         \
        return ctr_newctx(provctx, (bits) / 8, alg);                          \
    }                                                                         \
    static int ctr##bits##_get_params(OSSL_PARAM params[])                    \
    {                                                                         \
        return rp_get_params(params, EVP_CIPH_CTR_MODE, 0, (bits) / 8, 16);   \
    }                                                                         \
    const OSSL_DISPATCH rp_aes##bits##ctr_functions[] = {                     \
        {OSSL_FUNC_CIPHER_NEWCTX, (void (*)(void))ctr##bits##_newctx},        \
        {OSSL_FUNC_CIPHER_ENCRYPT_INIT, (void (*)(void))ctr_einit},           \
        {OSSL_FUNC_CIPHER_DECRYPT_INIT, (void (*)(void))ctr_dinit},           \
        {OSSL_FUNC_CIPHER_UPDATE, (void (*)(void))ctr_update},                \
        {OSSL_FUNC_CIPHER_FINAL, (void (*)(void))ctr_final},                  \
        {OSSL_FUNC_CIPHER_CIPHER, (void (*)(void))ctr_cipher},                \
        {OSSL_FUNC_CIPHER_FREECTX, (void (*)(void))ctr_freectx},              \
        {OSSL_FUNC_CIPHER_DUPCTX, (void (*)(void))ctr_dupctx},                \
        {OSSL_FUNC_CIPHER_GET_PARAMS,                                         \
         (void (*)(void))ctr##bits##_get_params},                             \
        {OSSL_FUNC_CIPHER_GETTABLE_PARAMS,                                    \
         (void (*)(void))rp_gettable_params},                                 \
        {OSSL_FUNC_CIPHER_GET_CTX_PARAMS,                                     \
         (void (*)(void))ctr_get_ctx_params},                                 \
        {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS,                                \
         (void (*)(void))ctr_gettable_ctx_params},                            \
        {OSSL_FUNC_CIPHER_SET_CTX_PARAMS,                                     \
         (void (*)(void))ctr_set_ctx_params},                                 \
        {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS,                                \
         (void (*)(void))ctr_settable_ctx_params},                            \
        {0, NULL}};

RP_CTR(128, RP_CTR128)
RP_CTR(192, RP_CTR192)
RP_CTR(256, RP_CTR256)
