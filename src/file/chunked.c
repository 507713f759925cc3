/*
 * Cobblestone-256: C2SP chunked encryption (c2sp.org/chunked-encryption)
 * with HKDF-Expand-SHA-512 and AES-256-GCM, as pinned in doc/format.md;
 * see rijn_seal.h for the interface.
 *
 *   key || base nonce || commitment = HKDF-Expand-SHA-512(prk = input key,
 *     info = "c2sp.org/chunked-encryption@v1+" || "AEAD_AES_256_GCM" ||
 *            0x00 || salt || context), 32 + 12 + 32 bytes
 *   chunk i: AES-256-GCM under key, nonce = base nonce XOR i (big-endian,
 *     96 bits), no AAD; every chunk RIJN_CHUNK bytes but the last, which is
 *     shorter and may be empty
 *   ciphertext = salt || commitment || chunk 0 || chunk 1 || ...
 */
#include "hash/hash.h"
#include "inject.h"
#include "internal.h"
#include "rijn_seal.h"

#define INFO_PREFIX "c2sp.org/chunked-encryption@v1+AEAD_AES_256_GCM"

/* getrandom() (src/file/seal.c) */
int rijn_seal_random(unsigned char *p, size_t n);

/* The derivation for salt header[0..24); the commitment into expect. */
static int derive(rijn_chunked *c, const unsigned char key[32],
                  const unsigned char *context, size_t context_len,
                  const unsigned char salt[24], unsigned char expect[32])
{
    const rijn_hash_alg *sha512 = rijn_hash_find("sha512");
    unsigned char okm[76], *info;
    const size_t plen = sizeof INFO_PREFIX; /* with its 0x00 */
    size_t info_len = plen + 24 + context_len;
    unsigned char stack_info[sizeof INFO_PREFIX + 24 + 512];
    int r = RIJN_SEAL_OK;

    if (context_len > 512)
        return RIJN_SEAL_EARG;
    info = stack_info;
    memcpy(info, INFO_PREFIX, plen);
    memcpy(info + plen, salt, 24);
    memcpy(info + plen + 24, context, context_len);
    rijn_hash_hkdf_expand(sha512, okm, sizeof okm, key, 32, info, info_len);
    if (rijn_gcm_setkey(&c->key, okm, 32) != 0)
        r = RIJN_SEAL_EARG;
    memcpy(c->base_nonce, okm + 32, 12);
    memcpy(expect, okm + 44, 32);
    memcpy(c->header, salt, 24);
    rijn_burn(okm, sizeof okm);
    rijn_burn(stack_info, sizeof stack_info);
    return r;
}

/* see rijn_seal.h */
int rijn_chunked_init_seal(rijn_chunked *c, const unsigned char key[32],
                           const unsigned char *context, size_t context_len,
                           const unsigned char salt[24])
{
    unsigned char s[24];
    int r;

    if (salt == NULL) {
        if (rijn_seal_random(s, sizeof s) != 0)
            return RIJN_SEAL_ERANDOM;
        salt = s;
    }
    r = derive(c, key, context, context_len, salt, c->header + 24);
    rijn_burn(s, sizeof s);
    return r;
}

/* see rijn_seal.h */
int rijn_chunked_init_open(rijn_chunked *c, const unsigned char key[32],
                           const unsigned char *context, size_t context_len,
                           const unsigned char header[56])
{
    unsigned char expect[32];
    int r = derive(c, key, context, context_len, header, expect), ok;

    if (r != RIJN_SEAL_OK)
        return r;
    ok = rijn_ct_equal(expect, header + 24, 32);
    RIJN_PUBLIC(&ok, sizeof ok);
    rijn_burn(expect, sizeof expect);
    if (!ok) {
        rijn_chunked_wipe(c);
        return RIJN_SEAL_EKEY;
    }
    memcpy(c->header + 24, header + 24, 32);
    return RIJN_SEAL_OK;
}

static void nonce_of(const rijn_chunked *c, uint64_t index,
                     unsigned char nonce[12])
{
    memcpy(nonce, c->base_nonce, 12);
    for (int i = 0; i < 8; i++)
        nonce[11 - i] ^= (unsigned char)(index >> (8 * i));
}

/* see rijn_seal.h */
int rijn_chunked_seal_chunk(const rijn_chunked *c, uint64_t index, int final,
                            unsigned char *out, const unsigned char *in,
                            size_t len)
{
    unsigned char nonce[12];

    if (index >= RIJN_CHUNKED_MAX_CHUNKS)
        return RIJN_SEAL_ETOOBIG;
    if (final ? len >= RIJN_CHUNK : len != RIJN_CHUNK)
        return RIJN_SEAL_EARG;
    nonce_of(c, index, nonce);
    return rijn_gcm_seal(&c->key, out, RIJN_CHUNK_TAG, nonce, 12, NULL, 0, in,
                         len) == 0
               ? RIJN_SEAL_OK
               : RIJN_SEAL_EARG;
}

/* see rijn_seal.h */
int rijn_chunked_open_chunk(const rijn_chunked *c, uint64_t index, int final,
                            unsigned char *out, const unsigned char *in,
                            size_t in_len)
{
    unsigned char nonce[12];
    int err = 0;

    if (index >= RIJN_CHUNKED_MAX_CHUNKS)
        err = RIJN_SEAL_ETOOBIG;
    /* (injected bug 7, src/inject.h: a full chunk passes as the final) */
    else if (in_len < RIJN_CHUNK_TAG ||
             (final ? in_len >= RIJN_CHUNK_CT + RIJN_INJECTED(7)
                    : in_len != RIJN_CHUNK_CT))
        err = RIJN_SEAL_ETRUNC;
    if (err != 0) {
        /* refused before decryption: out (in_len - 16 bytes) is still
         * all zero afterwards, as after a failed authentication */
        if (in_len >= RIJN_CHUNK_TAG)
            rijn_burn(out, in_len - RIJN_CHUNK_TAG);
        return err;
    }
    nonce_of(c, index, nonce);
    return rijn_gcm_open(&c->key, out, RIJN_CHUNK_TAG, nonce, 12, NULL, 0, in,
                         in_len) == 0
               ? RIJN_SEAL_OK
               : RIJN_SEAL_ECHUNK;
}

/* see rijn_seal.h. The GHASH of a prefix is carried from one length to
 * the next: the context after l bytes is copied and the copy checked
 * against the 16 bytes that follow as the tag, so the whole search costs
 * one decryption of in (into a 16-byte scratch), not one per length. */
int rijn_chunked_diagnose(const rijn_chunked *c, uint64_t index, int final,
                          const unsigned char *in, size_t in_len)
{
    rijn_gcm_ctx ctx, trial;
    unsigned char nonce[12], scratch[1];
    int r = final ? RIJN_SEAL_ELAST : RIJN_SEAL_ECHUNK;

    if (index >= RIJN_CHUNKED_MAX_CHUNKS || in_len <= RIJN_CHUNK_TAG)
        return r;
    if (in_len > RIJN_CHUNK_CT)
        in_len = RIJN_CHUNK_CT;
    nonce_of(c, index, nonce);
    if (rijn_gcm_start(&ctx, &c->key, nonce, 12) != 0)
        return r;
    /* final chunks of l + 16 < in_len bytes: l = 0 .. in_len - 17 */
    for (size_t l = 0; l + RIJN_CHUNK_TAG < in_len; l++) {
        int ok;
        trial = ctx;
        ok = rijn_gcm_verify(&trial, in + l, RIJN_CHUNK_TAG) == 0;
        if (ok) {
            r = RIJN_SEAL_ETRAIL;
            break;
        }
        if (rijn_gcm_decrypt_update(&ctx, scratch, in + l, 1) != 0)
            break;
    }
    rijn_gcm_wipe(&ctx);
    rijn_gcm_wipe(&trial);
    rijn_burn(scratch, sizeof scratch);
    return r;
}

/* see rijn_seal.h */
void rijn_chunked_wipe(rijn_chunked *c)
{
    rijn_gcm_key_wipe(&c->key);
    rijn_burn(c->base_nonce, sizeof c->base_nonce);
    rijn_burn(c->header, sizeof c->header);
}

/* see rijn_seal.h */
uint64_t rijn_chunked_ct_len(uint64_t n)
{
    return RIJN_CHUNKED_HEADER + (n / RIJN_CHUNK) * RIJN_CHUNK_CT +
           n % RIJN_CHUNK + RIJN_CHUNK_TAG;
}

/* see rijn_seal.h */
int64_t rijn_chunked_msg_len(uint64_t ct_len)
{
    uint64_t body, full, last;

    if (ct_len < RIJN_CHUNKED_HEADER + RIJN_CHUNK_TAG)
        return -1;
    body = ct_len - RIJN_CHUNKED_HEADER;
    full = body / RIJN_CHUNK_CT;
    last = body % RIJN_CHUNK_CT;
    if (last < RIJN_CHUNK_TAG || full >= RIJN_CHUNKED_MAX_CHUNKS)
        return -1;
    return (int64_t)(full * RIJN_CHUNK + last - RIJN_CHUNK_TAG);
}

/* ---- streams ---------------------------------------------------------------- */

enum { S_HEADER = 1, S_BODY, S_DONE };

static int fail(rijn_chunked_stream *s, int err)
{
    rijn_sink sink = s->sink;
    void *arg = s->arg;

    rijn_chunked_stream_wipe(s);
    s->sink = sink;
    s->arg = arg;
    s->state = err;
    return err;
}

static int emit(rijn_chunked_stream *s, const unsigned char *p, size_t n)
{
    return s->sink(s->arg, p, n) == 0 ? RIJN_SEAL_OK : RIJN_SEAL_ESINK;
}

/* see rijn_seal.h */
int rijn_chunked_writer_init(rijn_chunked_stream *s,
                             const unsigned char key[32],
                             const unsigned char *context,
                             size_t context_len, const unsigned char salt[24],
                             rijn_sink sink, void *arg)
{
    int r;

    rijn_burn(s, sizeof *s);
    s->sink = sink;
    s->arg = arg;
    r = rijn_chunked_init_seal(&s->c, key, context, context_len, salt);
    if (r != RIJN_SEAL_OK)
        return fail(s, r);
    s->state = S_BODY;
    r = emit(s, s->c.header, RIJN_CHUNKED_HEADER);
    return r != RIJN_SEAL_OK ? fail(s, r) : RIJN_SEAL_OK;
}

/* see rijn_seal.h */
int rijn_chunked_writer_write(rijn_chunked_stream *s, const unsigned char *in,
                              size_t len)
{
    int r;

    if (s->state != S_BODY)
        return s->state < 0 ? s->state : fail(s, RIJN_SEAL_EARG);
    while (len > 0) {
        size_t take = RIJN_CHUNK - s->used < len ? RIJN_CHUNK - s->used : len;
        memcpy(s->buf + s->used, in, take);
        s->used += take;
        in += take;
        len -= take;
        if (s->used == RIJN_CHUNK) {
            r = rijn_chunked_seal_chunk(&s->c, s->index, 0, s->out, s->buf,
                                        RIJN_CHUNK);
            if (r == RIJN_SEAL_OK)
                r = emit(s, s->out, RIJN_CHUNK_CT);
            if (r != RIJN_SEAL_OK)
                return fail(s, r);
            s->index++;
            s->used = 0;
        }
    }
    return RIJN_SEAL_OK;
}

/* see rijn_seal.h */
int rijn_chunked_writer_finish(rijn_chunked_stream *s)
{
    int r;

    if (s->state != S_BODY)
        return s->state < 0 ? s->state : fail(s, RIJN_SEAL_EARG);
    r = rijn_chunked_seal_chunk(&s->c, s->index, 1, s->out, s->buf, s->used);
    if (r == RIJN_SEAL_OK)
        r = emit(s, s->out, s->used + RIJN_CHUNK_TAG);
    if (r != RIJN_SEAL_OK)
        return fail(s, r);
    rijn_chunked_stream_wipe(s);
    s->state = S_DONE;
    return RIJN_SEAL_OK;
}

/* see rijn_seal.h */
int rijn_chunked_reader_init(rijn_chunked_stream *s,
                             const unsigned char key[32],
                             const unsigned char *context,
                             size_t context_len, rijn_sink sink, void *arg)
{
    rijn_burn(s, sizeof *s);
    s->sink = sink;
    s->arg = arg;
    if (context_len > sizeof s->context)
        return fail(s, RIJN_SEAL_EARG);
    memcpy(s->input_key, key, 32);
    memcpy(s->context, context, context_len);
    s->context_len = context_len;
    s->state = S_HEADER;
    return RIJN_SEAL_OK;
}

/* One full chunk from buf: authenticated, then released. */
static int open_full(rijn_chunked_stream *s)
{
    int r = rijn_chunked_open_chunk(&s->c, s->index, 0, s->out, s->buf,
                                    RIJN_CHUNK_CT);
    if (r == RIJN_SEAL_ECHUNK) /* the final chunk, with bytes appended? */
        r = rijn_chunked_diagnose(&s->c, s->index, 0, s->buf,
                                  RIJN_CHUNK_CT);
    if (r == RIJN_SEAL_OK)
        r = emit(s, s->out, RIJN_CHUNK);
    if (r != RIJN_SEAL_OK)
        return r;
    s->index++;
    s->used = 0;
    return RIJN_SEAL_OK;
}

/* see rijn_seal.h */
int rijn_chunked_reader_write(rijn_chunked_stream *s, const unsigned char *in,
                              size_t len)
{
    int r;

    if (s->state == S_HEADER) {
        size_t take = RIJN_CHUNKED_HEADER - s->used < len
                          ? RIJN_CHUNKED_HEADER - s->used
                          : len;
        memcpy(s->buf + s->used, in, take);
        s->used += take;
        in += take;
        len -= take;
        if (s->used < RIJN_CHUNKED_HEADER)
            return RIJN_SEAL_OK;
        r = rijn_chunked_init_open(&s->c, s->input_key, s->context,
                                   s->context_len, s->buf);
        rijn_burn(s->input_key, sizeof s->input_key);
        if (r != RIJN_SEAL_OK)
            return fail(s, r);
        s->used = 0;
        s->state = S_BODY;
    }
    if (s->state != S_BODY)
        return s->state < 0 ? s->state : fail(s, RIJN_SEAL_EARG);
    while (len > 0) {
        size_t take =
            RIJN_CHUNK_CT - s->used < len ? RIJN_CHUNK_CT - s->used : len;
        /* A full buffer is a non-final chunk only once more data shows
         * that it is not the last one: keep it until then. */
        if (s->used == RIJN_CHUNK_CT) {
            r = open_full(s);
            if (r != RIJN_SEAL_OK)
                return fail(s, r);
            continue;
        }
        memcpy(s->buf + s->used, in, take);
        s->used += take;
        in += take;
        len -= take;
    }
    return RIJN_SEAL_OK;
}

/* see rijn_seal.h */
int rijn_chunked_reader_finish(rijn_chunked_stream *s)
{
    int r;

    if (s->state == S_HEADER)
        return fail(s, RIJN_SEAL_ETRUNC);
    if (s->state != S_BODY)
        return s->state < 0 ? s->state : fail(s, RIJN_SEAL_EARG);
    if (s->used == RIJN_CHUNK_CT && !RIJN_INJECTED(7)) {
        /* the ciphertext ends with a full chunk: authenticate it, then the
         * missing final chunk is a truncation */
        r = open_full(s);
        return fail(s, r != RIJN_SEAL_OK ? r : RIJN_SEAL_ETRUNC);
    }
    if (s->used < RIJN_CHUNK_TAG)
        return fail(s, RIJN_SEAL_ETRUNC);
    r = rijn_chunked_open_chunk(&s->c, s->index, 1, s->out, s->buf, s->used);
    if (r == RIJN_SEAL_ECHUNK) /* a valid final chunk and more bytes? */
        r = rijn_chunked_diagnose(&s->c, s->index, 1, s->buf, s->used);
    if (r == RIJN_SEAL_OK)
        r = emit(s, s->out, s->used - RIJN_CHUNK_TAG);
    if (r != RIJN_SEAL_OK)
        return fail(s, r);
    rijn_chunked_stream_wipe(s);
    s->state = S_DONE;
    return RIJN_SEAL_OK;
}

/* see rijn_seal.h */
void rijn_chunked_stream_wipe(rijn_chunked_stream *s)
{
    rijn_chunked_wipe(&s->c);
    rijn_burn(s->buf, sizeof s->buf);
    rijn_burn(s->out, sizeof s->out);
    rijn_burn(s->context, sizeof s->context);
    rijn_burn(s->input_key, sizeof s->input_key);
    s->used = 0;
}
