/*
 * rijn.so: AES-{128,192,256}-GCM for OpenSSL 3 (see prov.h).
 *
 * The state and its transitions are OpenSSL 3.0's (providers/implementations/
 * ciphers/ciphercommon_gcm.c), so every EVP call gets the answer the default
 * provider gives: the IV is buffered at init and started on first use, the
 * tag set for decryption and the tag made by encryption share one 16-byte
 * buffer with the TLS 1.2 AAD, parameters are read in the same order and
 * fail at the same point. The cryptography is rijn_gcm_*: the streaming
 * context for EVP_CipherUpdate, the one-shot calls for TLS 1.2 records.
 *
 * Deliberate refusals where OpenSSL 3.0 goes on (doc/provider.md): after a
 * failed decryption final, after a key-only init once the IV was in use and
 * after a change of direction in the middle of a message, data and final
 * fail until a new IV is set (D1, D2, D8); AAD after a zero-length data call
 * fails (D6); TLS IV generation needs an IV of 8 bytes or more and fields
 * that fit in it (D7); partially overlapping buffers are refused (D5). Tags shorter than 12 bytes (which librijn's own
 * API does not offer) are accepted on decryption as OpenSSL does: the full
 * tag is computed and its first taglen bytes compared in constant time.
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "prov.h"

#define GCM_IV_MAX 128    /* OpenSSL's GCM_IV_MAX_SIZE */
#define TLS_AAD_LEN 13    /* EVP_AEAD_TLS1_AAD_LEN */
#define TLS_FIXED_IV 4    /* EVP_GCM_TLS_FIXED_IV_LEN */
#define TLS_EXPLICIT_IV 8 /* EVP_GCM_TLS_EXPLICIT_IV_LEN */
#define TLS_TAG 16        /* EVP_GCM_TLS_TAG_LEN */
#define UNSET ((size_t)-1)
#define GCM_MAX_DATA ((UINT64_C(1) << 36) - 32)

enum { IV_UNINIT, IV_BUFFERED, IV_COPIED, IV_FINISHED };

typedef struct {
    rijn_gcm_key key; /* first: 64-byte aligned */
    rijn_gcm_ctx gcm; /* the message in progress (IV_COPIED) */
    rijn_prov *prov;
    int alg;
    size_t keylen, ivlen, taglen, tls_aad_len, tls_aad_pad_sz;
    uint64_t tls_enc_records;
    uint64_t data_len; /* message bytes since the IV was started */
    unsigned char iv[GCM_IV_MAX];
    unsigned char buf[16]; /* tag (set or made) or the TLS AAD */
    unsigned char raw[32]; /* the key set, to skip setting it again */
    int enc, key_set, iv_state, iv_gen, iv_gen_rand;
    int data_started; /* a data call since the IV was started */
} gcm_pctx;

static void *gcm_newctx(void *provctx, size_t keylen, int alg)
{
    gcm_pctx *c = rp_alloc(sizeof *c);

    if (c == NULL)
        return NULL;
    c->prov = provctx;
    c->alg = alg;
    c->keylen = keylen;
    c->ivlen = TLS_FIXED_IV + TLS_EXPLICIT_IV;
    c->taglen = UNSET;
    c->tls_aad_len = UNSET;
    return c;
}

static void gcm_freectx(void *vctx)
{
    gcm_pctx *c = vctx;

    if (c != NULL)
        rp_free(c, sizeof *c);
}

/* A deep copy: the streaming context points at its own key. */
static void *gcm_dupctx(void *vctx)
{
    const gcm_pctx *in = vctx;
    gcm_pctx *c = rp_alloc(sizeof *c);

    if (c == NULL)
        return NULL;
    memcpy(c, in, sizeof *c);
    c->gcm.key = &c->key;
    return c;
}

/* Starts the message with the current IV (OpenSSL's hw->setiv). */
static int gcm_setiv(gcm_pctx *c)
{
    c->data_len = 0;
    c->data_started = 0;
    return rijn_gcm_start(&c->gcm, &c->key, c->iv, c->ivlen) == 0;
}

static int gcm_init(void *vctx, const unsigned char *key, size_t keylen,
                    const unsigned char *iv, size_t ivlen,
                    const OSSL_PARAM params[], int enc);

static int gcm_einit(void *vctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen,
                     const OSSL_PARAM params[])
{
    return gcm_init(vctx, key, keylen, iv, ivlen, params, 1);
}

static int gcm_dinit(void *vctx, const unsigned char *key, size_t keylen,
                     const unsigned char *iv, size_t ivlen,
                     const OSSL_PARAM params[])
{
    return gcm_init(vctx, key, keylen, iv, ivlen, params, 0);
}

/* The 64-bit invocation counter at the end of the IV, plus one. */
static void ctr64_inc(unsigned char *p)
{
    int n = 8;

    while (n-- > 0)
        if (++p[n] != 0)
            return;
}

/* tlsivgen: starts the IV, copies its last olen bytes out, counts on.
 * start: 0 for the TLS record path, which starts with the one-shot call. */
static int gcm_getivgen(gcm_pctx *c, unsigned char *out, size_t olen,
                        int start)
{
    if (!c->iv_gen || !c->key_set)
        return 0;
    if (c->ivlen < TLS_EXPLICIT_IV) { /* D7 */
        RP_ERR(c->prov, RP_R_IV_TOO_SHORT);
        return 0;
    }
    if (start && !gcm_setiv(c))
        return 0;
    if (olen == 0 || olen > c->ivlen)
        olen = c->ivlen;
    memcpy(out, c->iv + c->ivlen - olen, olen);
    ctr64_inc(c->iv + c->ivlen - 8);
    c->iv_state = IV_COPIED;
    return 1;
}

/* tlsivinv: the peer's invocation field into the end of the IV. */
static int gcm_setivinv(gcm_pctx *c, const unsigned char *in, size_t inl,
                        int start)
{
    if (!c->iv_gen || !c->key_set || c->enc)
        return 0;
    if (inl > c->ivlen) { /* D7 */
        RP_ERR(c->prov, RP_R_IV_TOO_SHORT);
        return 0;
    }
    memcpy(c->iv + c->ivlen - inl, in, inl);
    if (start && !gcm_setiv(c))
        return 0;
    c->iv_state = IV_COPIED;
    return 1;
}

/* tlsaad: keeps the record header, its length made the plaintext's. */
static size_t gcm_tls_init(gcm_pctx *c, const unsigned char *aad, size_t n)
{
    size_t len;

    if (n != TLS_AAD_LEN)
        return 0;
    memcpy(c->buf, aad, n);
    c->tls_aad_len = n;
    len = (size_t)c->buf[n - 2] << 8 | c->buf[n - 1];
    if (len < TLS_EXPLICIT_IV)
        return 0;
    len -= TLS_EXPLICIT_IV;
    if (!c->enc) {
        if (len < TLS_TAG)
            return 0;
        len -= TLS_TAG;
    }
    c->buf[n - 2] = (unsigned char)(len >> 8);
    c->buf[n - 1] = (unsigned char)(len & 0xff);
    return TLS_TAG;
}

/* tlsivfixed: the fixed field (-1: the whole IV); the rest random when
 * encrypting. */
static int gcm_tls_iv_fixed(gcm_pctx *c, const unsigned char *iv, size_t len)
{
    if (len == (size_t)-1) {
        memcpy(c->iv, iv, c->ivlen);
        c->iv_gen = 1;
        c->iv_state = IV_BUFFERED;
        return 1;
    }
    if (len < TLS_FIXED_IV || len > c->ivlen ||
        c->ivlen - len < TLS_EXPLICIT_IV)
        return 0;
    memcpy(c->iv, iv, len);
    if (c->enc && !rp_random(c->prov, c->iv + len, c->ivlen - len))
        return 0;
    c->iv_gen = 1;
    c->iv_state = IV_BUFFERED;
    return 1;
}

static int gcm_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
    static const char *const names[] = {
        OSSL_CIPHER_PARAM_AEAD_TAG, OSSL_CIPHER_PARAM_AEAD_IVLEN,
        OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED,
        OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV};
    const OSSL_PARAM *f[5];
    gcm_pctx *c = vctx;
    const OSSL_PARAM *p;
    size_t sz;
    void *vp;

    rp_params_find(params, names, 5, f);
    if (params == NULL)
        return 1;
    if ((p = f[0]) != NULL) {
        vp = c->buf;
        if (!OSSL_PARAM_get_octet_string(p, &vp, TLS_TAG, &sz)) {
            RP_ERR(c->prov, RP_R_FAILED_TO_GET_PARAMETER);
            return 0;
        }
        if (sz == 0 || c->enc) {
            RP_ERR(c->prov, RP_R_INVALID_TAG);
            return 0;
        }
        c->taglen = sz;
    }
    if ((p = f[1]) != NULL) {
        if (!OSSL_PARAM_get_size_t(p, &sz)) {
            RP_ERR(c->prov, RP_R_FAILED_TO_GET_PARAMETER);
            return 0;
        }
        if (sz == 0 || sz > GCM_IV_MAX) {
            RP_ERR(c->prov, RP_R_INVALID_IV_LENGTH);
            return 0;
        }
        if (c->ivlen != sz) {
            if (c->iv_state != IV_UNINIT)
                c->iv_state = IV_FINISHED; /* the IV set is void */
            c->ivlen = sz;
        }
    }
    if ((p = f[2]) != NULL) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING) {
            RP_ERR(c->prov, RP_R_FAILED_TO_GET_PARAMETER);
            return 0;
        }
        sz = gcm_tls_init(c, p->data, p->data_size);
        if (sz == 0) {
            RP_ERR(c->prov, RP_R_INVALID_AAD);
            return 0;
        }
        c->tls_aad_pad_sz = sz;
    }
    if ((p = f[3]) != NULL) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING ||
            !gcm_tls_iv_fixed(c, p->data, p->data_size)) {
            RP_ERR(c->prov, RP_R_FAILED_TO_GET_PARAMETER);
            return 0;
        }
    }
    if ((p = f[4]) != NULL) {
        if (p->data == NULL || p->data_type != OSSL_PARAM_OCTET_STRING ||
            !gcm_setivinv(c, p->data, p->data_size, 1))
            return 0;
    }
    return 1;
}

/* a == b over n (16, 24 or 32) bytes, in constant time: word by word (a
 * quarter of CRYPTO_memcmp's byte loop, which showed in short messages). */
static int same_key(const unsigned char *a, const unsigned char *b, size_t n)
{
    uint64_t x, y, d = 0;
    size_t i;

    for (i = 0; i < n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        d |= x ^ y;
    }
    return ((d | (0 - d)) >> 63) == 0;
}

static int gcm_init(void *vctx, const unsigned char *key, size_t keylen,
                    const unsigned char *iv, size_t ivlen,
                    const OSSL_PARAM params[], int enc)
{
    gcm_pctx *c = vctx;
    const int old_enc = c->enc;

    c->enc = enc;
    if (iv != NULL) {
        if (ivlen == 0 || ivlen > GCM_IV_MAX) {
            RP_ERR(c->prov, RP_R_INVALID_IV_LENGTH);
            return 0;
        }
        c->ivlen = ivlen;
        memcpy(c->iv, iv, ivlen);
        c->iv_state = IV_BUFFERED;
    } else if (c->iv_state == IV_COPIED && c->data_started &&
               enc != old_enc) {
        /* D8: the other direction in the middle of a message (OpenSSL
         * 3.0 goes on with one GHASH over both) */
        c->iv_state = IV_FINISHED;
    }
    if (key != NULL) {
        if (keylen != c->keylen) {
            RP_ERR(c->prov, RP_R_INVALID_KEY_LENGTH);
            return 0;
        }
        rijn_wipe(&c->gcm, sizeof c->gcm);
        /* The same key again (an init with key and IV per message, as
         * `openssl speed` and many programs do): the schedule and the
         * powers of H are already there. Compared in constant time. */
        if (!c->key_set || !same_key(c->raw, key, keylen)) {
            c->key_set = 0;
            if (rijn_gcm_setkey(&c->key, key, keylen) != 0) {
                RP_ERR(c->prov, RP_R_KEY_SETUP_FAILED);
                return 0;
            }
            memcpy(c->raw, key, keylen);
        }
        c->key_set = 1;
        c->tls_enc_records = 0;
        if (c->iv_state == IV_COPIED) /* D2: the message in use is gone */
            c->iv_state = IV_FINISHED;
    }
    return gcm_set_ctx_params(c, params);
}

/* Sets an IV or updated-IV parameter as OpenSSL does (string, else ptr). */
static int gcm_put_iv(gcm_pctx *c, OSSL_PARAM *p)
{
    if (c->iv_state == IV_UNINIT)
        return 0;
    if (c->ivlen > p->data_size) {
        RP_ERR(c->prov, RP_R_INVALID_IV_LENGTH);
        return 0;
    }
    if (!OSSL_PARAM_set_octet_string(p, c->iv, c->ivlen) &&
        !OSSL_PARAM_set_octet_ptr(p, &c->iv, c->ivlen)) {
        RP_ERR(c->prov, RP_R_FAILED_TO_SET_PARAMETER);
        return 0;
    }
    return 1;
}

static int gcm_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
    static const char *const names[] = {
        OSSL_CIPHER_PARAM_IVLEN,       OSSL_CIPHER_PARAM_KEYLEN,
        OSSL_CIPHER_PARAM_AEAD_TAGLEN, OSSL_CIPHER_PARAM_IV,
        OSSL_CIPHER_PARAM_UPDATED_IV,  OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD,
        OSSL_CIPHER_PARAM_AEAD_TAG,    OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN};
    const OSSL_PARAM *f[8];
    gcm_pctx *c = vctx;
    OSSL_PARAM *p;
    size_t sz;

    rp_params_find(params, names, 8, f);
    if ((p = (OSSL_PARAM *)f[0]) != NULL &&
        !OSSL_PARAM_set_size_t(p, c->ivlen))
        goto set_failed;
    if ((p = (OSSL_PARAM *)f[1]) != NULL &&
        !OSSL_PARAM_set_size_t(p, c->keylen))
        goto set_failed;
    if ((p = (OSSL_PARAM *)f[2]) != NULL &&
        !OSSL_PARAM_set_size_t(p, c->taglen != UNSET ? c->taglen : 16))
        goto set_failed;
    if ((p = (OSSL_PARAM *)f[3]) != NULL && !gcm_put_iv(c, p))
        return 0;
    if ((p = (OSSL_PARAM *)f[4]) != NULL && !gcm_put_iv(c, p))
        return 0;
    if ((p = (OSSL_PARAM *)f[5]) != NULL &&
        !OSSL_PARAM_set_size_t(p, c->tls_aad_pad_sz))
        goto set_failed;
    if ((p = (OSSL_PARAM *)f[6]) != NULL) {
        sz = p->data_size;
        if (sz == 0 || sz > TLS_TAG || !c->enc || c->taglen == UNSET) {
            RP_ERR(c->prov, RP_R_INVALID_TAG);
            return 0;
        }
        if (!OSSL_PARAM_set_octet_string(p, c->buf, sz))
            goto set_failed;
    }
    if ((p = (OSSL_PARAM *)f[7]) != NULL) {
        if (p->data == NULL || p->data_type != OSSL_PARAM_OCTET_STRING ||
            !gcm_getivgen(c, p->data, p->data_size, 1))
            return 0;
    }
    return 1;
set_failed:
    RP_ERR(c->prov, RP_R_FAILED_TO_SET_PARAMETER);
    return 0;
}

/* A TLS 1.2 record in place: explicit IV || payload || tag. */
static int gcm_tls_cipher(gcm_pctx *c, unsigned char *out, size_t *outl,
                          const unsigned char *in, size_t len)
{
    const size_t over = TLS_EXPLICIT_IV + TLS_TAG;
    unsigned char rec_iv[GCM_IV_MAX];
    size_t n = 0;
    int ok = 0;

    if (!c->key_set || out != in || len < over)
        goto done;
    if (c->enc && ++c->tls_enc_records == 0) {
        RP_ERR(c->prov, RP_R_TOO_MANY_RECORDS);
        goto done;
    }
    /* the record's IV: before getivgen counts on, after setivinv */
    memcpy(rec_iv, c->iv, sizeof rec_iv);
    if (c->enc ? !gcm_getivgen(c, out, TLS_EXPLICIT_IV, 0)
               : !gcm_setivinv(c, out, TLS_EXPLICIT_IV, 0))
        goto done;
    if (!c->enc)
        memcpy(rec_iv, c->iv, sizeof rec_iv);
    n = len - over;
    c->taglen = TLS_TAG; /* as OpenSSL's one-shot leaves it */
    if (c->enc) {
        unsigned char *p = out + TLS_EXPLICIT_IV;
        if (rijn_gcm_encrypt(&c->key, p, p + n, TLS_TAG, rec_iv, c->ivlen,
                             c->buf, c->tls_aad_len, p, n) != 0)
            goto done;
        rp_count(c->prov, c->alg, 0, n);
        n += over;
    } else {
        unsigned char *p = out + TLS_EXPLICIT_IV;
        rp_count(c->prov, c->alg, 1, n);
        if (rijn_gcm_decrypt(&c->key, p, p + n, TLS_TAG, rec_iv, c->ivlen,
                             c->buf, c->tls_aad_len, p, n) != 0) {
            n = 0; /* the payload is wiped */
            goto done;
        }
    }
    ok = 1;
done:
    if (!ok)
        n = 0;
    c->iv_state = IV_FINISHED;
    c->tls_aad_len = UNSET;
    *outl = n;
    return ok;
}

/* The decryption final: the tag set (1..16 bytes) against the message's. */
static int gcm_check_tag(gcm_pctx *c)
{
    unsigned char t[16];
    int ok;

    if (c->taglen >= 12)
        return rijn_gcm_verify(&c->gcm, c->buf, c->taglen) == 0;
    if (rijn_gcm_finish(&c->gcm, t, 16) != 0)
        return 0;
    ok = CRYPTO_memcmp(t, c->buf, c->taglen) == 0;
    OPENSSL_cleanse(t, sizeof t);
    return ok;
}

/* OpenSSL's gcm_cipher_internal: AAD (out NULL), data, or final (in NULL). */
static int gcm_cipher_internal(gcm_pctx *c, unsigned char *out, size_t *outl,
                               const unsigned char *in, size_t len)
{
    *outl = 0;
    if (c->tls_aad_len != UNSET)
        return gcm_tls_cipher(c, out, outl, in, len);
    if (!c->key_set || c->iv_state == IV_FINISHED)
        return 0;
    if (c->iv_state == IV_UNINIT) {
        /* encryption without an IV gets a random one of ivlen >= 12 */
        if (!c->enc || c->ivlen < 12 || !rp_random(c->prov, c->iv, c->ivlen))
            return 0;
        c->iv_state = IV_BUFFERED;
        c->iv_gen_rand = 1;
    }
    if (c->iv_state == IV_BUFFERED) {
        if (!gcm_setiv(c))
            return 0;
        c->iv_state = IV_COPIED;
    }
    if (in == NULL) {
        if (!c->enc && c->taglen == UNSET)
            return 0;
        if (c->enc) {
            if (rijn_gcm_finish(&c->gcm, c->buf, 16) != 0)
                return 0;
            c->taglen = 16;
        } else if (!gcm_check_tag(c)) {
            c->iv_state = IV_FINISHED; /* D1: nothing may follow */
            return 0;
        }
        c->iv_state = IV_FINISHED;
        return 1;
    }
    if (rp_overlap(out, in, len)) { /* D5 */
        RP_ERR(c->prov, RP_R_OVERLAP);
        return 0;
    }
    if (out == NULL) {
        /* AAD: none after data (D6: not even after zero-length data) */
        if (c->data_started || rijn_gcm_aad(&c->gcm, in, len) != 0)
            return 0;
    } else {
        if (len > GCM_MAX_DATA - c->data_len)
            return 0;
        c->data_started = 1;
        if (len > 0) {
            int r = c->enc ? rijn_gcm_encrypt_update(&c->gcm, out, in, len)
                           : rijn_gcm_decrypt_update(&c->gcm, out, in, len);
            if (r != 0)
                return 0;
            c->data_len += len;
            rp_count(c->prov, c->alg, !c->enc, len);
        }
    }
    *outl = len;
    return 1;
}

static int gcm_stream_update(void *vctx, unsigned char *out, size_t *outl,
                             size_t outsize, const unsigned char *in,
                             size_t inl)
{
    gcm_pctx *c = vctx;

    if (inl == 0) {
        *outl = 0;
        return 1;
    }
    if (outsize < inl) {
        RP_ERR(c->prov, RP_R_OUTPUT_BUFFER_TOO_SMALL);
        return 0;
    }
    if (!gcm_cipher_internal(c, out, outl, in, inl)) {
        RP_ERR(c->prov, c->iv_state == IV_FINISHED && c->key_set
                            ? RP_R_NEEDS_NEW_IV
                            : RP_R_CIPHER_OPERATION_FAILED);
        return 0;
    }
    return 1;
}

static int gcm_stream_final(void *vctx, unsigned char *out, size_t *outl,
                            size_t outsize)
{
    gcm_pctx *c = vctx;

    (void)outsize;
    if (!gcm_cipher_internal(c, out, outl, NULL, 0))
        return 0;
    *outl = 0;
    return 1;
}

static int gcm_cipher(void *vctx, unsigned char *out, size_t *outl,
                      size_t outsize, const unsigned char *in, size_t inl)
{
    gcm_pctx *c = vctx;

    if (outsize < inl) {
        RP_ERR(c->prov, RP_R_OUTPUT_BUFFER_TOO_SMALL);
        return 0;
    }
    if (!gcm_cipher_internal(c, out, outl, in, inl))
        return 0;
    *outl = inl;
    return 1;
}

static const OSSL_PARAM gcm_gettable_ctx[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, NULL, 0),
    OSSL_PARAM_END};

static const OSSL_PARAM gcm_settable_ctx[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, NULL),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, NULL, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, NULL, 0),
    OSSL_PARAM_END};

static const OSSL_PARAM *gcm_gettable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx;
    (void)provctx;
    return gcm_gettable_ctx;
}

static const OSSL_PARAM *gcm_settable_ctx_params(void *cctx, void *provctx)
{
    (void)cctx;
    (void)provctx;
    return gcm_settable_ctx;
}

#define RP_GCM(bits, alg)                                                     \
    static void *gcm##bits##_newctx(void *provctx)                            \
    {                                                                         \
        return gcm_newctx(provctx, (bits) / 8, alg);                          \
    }                                                                         \
    static int gcm##bits##_get_params(OSSL_PARAM params[])                    \
    {                                                                         \
        return rp_get_params(params, EVP_CIPH_GCM_MODE, 1, (bits) / 8, 12);   \
    }                                                                         \
    const OSSL_DISPATCH rp_aes##bits##gcm_functions[] = {                     \
        {OSSL_FUNC_CIPHER_NEWCTX, (void (*)(void))gcm##bits##_newctx},        \
        {OSSL_FUNC_CIPHER_ENCRYPT_INIT, (void (*)(void))gcm_einit},           \
        {OSSL_FUNC_CIPHER_DECRYPT_INIT, (void (*)(void))gcm_dinit},           \
        {OSSL_FUNC_CIPHER_UPDATE, (void (*)(void))gcm_stream_update},         \
        {OSSL_FUNC_CIPHER_FINAL, (void (*)(void))gcm_stream_final},           \
        {OSSL_FUNC_CIPHER_CIPHER, (void (*)(void))gcm_cipher},                \
        {OSSL_FUNC_CIPHER_FREECTX, (void (*)(void))gcm_freectx},              \
        {OSSL_FUNC_CIPHER_DUPCTX, (void (*)(void))gcm_dupctx},                \
        {OSSL_FUNC_CIPHER_GET_PARAMS,                                         \
         (void (*)(void))gcm##bits##_get_params},                             \
        {OSSL_FUNC_CIPHER_GETTABLE_PARAMS,                                    \
         (void (*)(void))rp_gettable_params},                                 \
        {OSSL_FUNC_CIPHER_GET_CTX_PARAMS,                                     \
         (void (*)(void))gcm_get_ctx_params},                                 \
        {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS,                                \
         (void (*)(void))gcm_gettable_ctx_params},                            \
        {OSSL_FUNC_CIPHER_SET_CTX_PARAMS,                                     \
         (void (*)(void))gcm_set_ctx_params},                                 \
        {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS,                                \
         (void (*)(void))gcm_settable_ctx_params},                            \
        {0, NULL}};

RP_GCM(128, RP_GCM128)
RP_GCM(192, RP_GCM192)
RP_GCM(256, RP_GCM256)
