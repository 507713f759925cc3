/*
 * cobblestone: the Cobblestone-256 layer of rijn_seal.h (C2SP chunked
 * encryption, HKDF-Expand-SHA-512 + AES-256-GCM) against every Wycheproof
 * vector (tests/seal/vectors/cobblestone-256.txt, 35: 10 valid, 25
 * invalid), as its doc/c2sp_chunked_encryption.md says to apply them:
 *   - streaming decryption (rijn_chunked_reader_*) fed in random pieces:
 *     a valid vector gives msgLength bytes with SHA-512 msgSha512; an
 *     invalid one fails, and releases nothing beyond the valid prefix
 *     (PartialPlaintext: at most msgLength bytes, a prefix of that message)
 *     and nothing at all otherwise; a call after the error fails again;
 *   - random access: every chunk of a valid vector opened on its own
 *     (rijn_chunked_open_chunk) gives the same message;
 *   - encryption with the vector's salt injected (rijn_chunked_init_seal
 *     and the writer, fed in random pieces) reproduces ct exactly;
 *   - InvalidKeySize: the key is not 32 bytes, which rijn refuses (the
 *     API takes exactly 32 bytes: checked as a refusal here, and through
 *     the CLI's key-file check in tests/seal/test_seal.sh);
 *   - the error says what happened, as far as the reader can know: each
 *     invalid vector's flags allow only some codes (HeaderFailure: wrong
 *     key or truncated; Truncation: truncated, or a failing last chunk
 *     for a cut inside it; TrailingData: data after the end, or what a
 *     cut looks like; modified or reordered chunks: a chunk or the last
 *     chunk fails); and every valid vector with bytes appended (1, 16,
 *     and enough to fill its final chunk past a full one) is "data after
 *     the end of the message" (rijn_chunked_diagnose), cut inside its
 *     final chunk "last chunk fails", cut after a full chunk "truncated".
 * The ciphertexts are zlib-compressed hex, as published.
 *
 *   usage: test_cobblestone VECTOR_FILE [--seed N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "hash/hash.h"
#include "reader.h"
#include "rijn_seal.h"
#include "testutil.h"

/* 1 if p[0..n) is all zero */
static int zeroed(const unsigned char *p, size_t n)
{
    unsigned char acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

static tu_rng g_rng;

typedef struct {
    unsigned char *p;
    size_t n, cap;
} buf;

static void buf_put(buf *b, const unsigned char *p, size_t n)
{
    /* allocated even for nothing (an empty message), so that b->p is
     * never NULL for the memset/memcpy/memcmp the checks do on it */
    if (b->p == NULL || b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 65536;
        b->p = realloc(b->p, b->cap);
        if (b->p == NULL) {
            perror("realloc");
            exit(1);
        }
    }
    if (n > 0)
        memcpy(b->p + b->n, p, n);
    b->n += n;
}

static int sink(void *arg, const unsigned char *p, size_t n)
{
    buf_put(arg, p, n);
    return 0;
}

/* zlib-compressed hex -> bytes */
static int inflate_hex(const char *hex, buf *out)
{
    size_t hl = strlen(hex) / 2;
    unsigned char *z = malloc(hl + 1), chunk[65536];
    z_stream s;
    int r;

    if (z == NULL || tu_unhex(z, hl + 1, hex) != (long)hl)
        return -1;
    memset(&s, 0, sizeof s);
    if (inflateInit(&s) != Z_OK)
        return -1;
    s.next_in = z;
    s.avail_in = (uInt)hl;
    do {
        s.next_out = chunk;
        s.avail_out = sizeof chunk;
        r = inflate(&s, Z_NO_FLUSH);
        if (r != Z_OK && r != Z_STREAM_END)
            break;
        buf_put(out, chunk, sizeof chunk - s.avail_out);
    } while (r != Z_STREAM_END);
    inflateEnd(&s);
    free(z);
    return r == Z_STREAM_END ? 0 : -1;
}

static void sha512(const unsigned char *p, size_t n, unsigned char out[64])
{
    rijn_hash(rijn_hash_find("sha512"), out, p, n);
}

typedef struct {
    unsigned char key[64], ctx[512], sha[64];
    long kl, cl;
    long long msg_len; /* -1: absent */
    int valid, partial;
    buf ct;
    char label[96];
} vec;

/* Streaming decryption in random pieces; returns its result, msg gets the
 * released plaintext. */
static int stream_open(const vec *v, buf *msg)
{
    rijn_chunked_stream *s = aligned_alloc(64, sizeof *s); /* rijn.h */
    size_t at = 0;
    int r = 0;

    rijn_chunked_reader_init(s, v->key, v->ctx, (size_t)v->cl, sink, msg);
    while (at < v->ct.n && r == 0) {
        size_t n = 1 + (size_t)tu_rng_below(&g_rng, 40000);
        if (n > v->ct.n - at)
            n = v->ct.n - at;
        r = rijn_chunked_reader_write(s, v->ct.p + at, n);
        at += n;
    }
    if (r == 0)
        r = rijn_chunked_reader_finish(s);
    if (r != 0 && rijn_chunked_reader_write(s, v->ct.p, 1) != r) {
        tu_fail("%s: the stream does not stay failed", v->label);
        r = 0;
    }
    free(s);
    return r;
}

/* Damage made from a valid vector: each must give its error code. */
static void check_derived(const vec *v)
{
    static const size_t extra[] = {1, 16, RIJN_CHUNK_CT};
    size_t last = (v->ct.n - RIJN_CHUNKED_HEADER) % RIJN_CHUNK_CT;
    vec d = *v;
    buf b = {0}, msg = {0};
    int r;

    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        b.n = msg.n = 0;
        buf_put(&b, v->ct.p, v->ct.n);
        for (size_t k = 0; k < extra[i]; k++)
            buf_put(&b, (const unsigned char *)"\x5a", 1);
        d.ct = b;
        r = stream_open(&d, &msg);
        if (r != RIJN_SEAL_ETRAIL)
            tu_fail("%s + %zu bytes: %s, not data after the end", v->label,
                    extra[i], rijn_seal_strerror(r));
        else
            tu_pass();
    }
    /* cut inside the final chunk (it has at least its tag) */
    d.ct = v->ct;
    d.ct.n = v->ct.n - 1;
    r = stream_open(&d, &msg);
    if (r != (last > RIJN_CHUNK_TAG ? RIJN_SEAL_ELAST : RIJN_SEAL_ETRUNC))
        tu_fail("%s cut by 1 byte: %s", v->label, rijn_seal_strerror(r));
    else
        tu_pass();
    /* the final chunk dropped: ends after a full chunk (or the header) */
    d.ct.n = v->ct.n - last;
    r = stream_open(&d, &msg);
    if (r != RIJN_SEAL_ETRUNC)
        tu_fail("%s without its final chunk: %s", v->label,
                rijn_seal_strerror(r));
    else
        tu_pass();
    free(b.p);
    free(msg.p);
}

static void check_valid(const vec *v)
{
    buf msg = {0}, again = {0};
    unsigned char h[64];
    rijn_chunked c;
    int64_t n = rijn_chunked_msg_len(v->ct.n);
    int r = stream_open(v, &msg);

    if (r != 0) {
        tu_fail("%s: valid, stream returns %d (%s)", v->label, r,
                rijn_seal_strerror(r));
        goto out;
    }
    sha512(msg.p, msg.n, h);
    if ((long long)msg.n != v->msg_len || n != v->msg_len ||
        memcmp(h, v->sha, 64) != 0) {
        tu_fail("%s: message of %zu bytes (%lld expected) or wrong SHA-512",
                v->label, msg.n, v->msg_len);
        goto out;
    }
    tu_pass();
    /* random access: every chunk on its own, last one first */
    if (rijn_chunked_init_open(&c, v->key, v->ctx, (size_t)v->cl,
                               v->ct.p) != 0) {
        tu_fail("%s: init_open", v->label);
        goto out;
    }
    again.n = 0;
    {
        uint64_t chunks = (uint64_t)n / RIJN_CHUNK + 1;
        unsigned char *out = malloc(RIJN_CHUNK_CT);
        buf_put(&again, msg.p, msg.n); /* room */
        memset(again.p, 0, again.n);
        for (uint64_t i = chunks; i-- > 0;) {
            int final = i + 1 == chunks;
            size_t off = RIJN_CHUNKED_HEADER + i * RIJN_CHUNK_CT;
            size_t len = final ? v->ct.n - off : RIJN_CHUNK_CT;
            if (rijn_chunked_open_chunk(&c, i, final, out, v->ct.p + off,
                                        len) != 0) {
                tu_fail("%s: chunk %llu on its own", v->label,
                        (unsigned long long)i);
                break;
            }
            memcpy(again.p + i * RIJN_CHUNK, out, len - RIJN_CHUNK_TAG);
            /* the wrong index, or the wrong finality, must fail */
            if (rijn_chunked_open_chunk(&c, i + 1, final, out, v->ct.p + off,
                                        len) == 0 ||
                (!final && rijn_chunked_open_chunk(&c, i, 1, out,
                                                   v->ct.p + off, len) == 0))
                tu_fail("%s: chunk %llu opens at the wrong index/finality",
                        v->label, (unsigned long long)i);
            /* refused by its length (a full chunk as the final one) or by
             * its index: out is all zero, as after a failed tag */
            memset(out, 0xa5, RIJN_CHUNK_CT);
            if (!final &&
                (rijn_chunked_open_chunk(&c, i, 1, out, v->ct.p + off,
                                         len) != RIJN_SEAL_ETRUNC ||
                 !zeroed(out, len - RIJN_CHUNK_TAG)))
                tu_fail("%s: chunk %llu refused as final: not ETRUNC or out "
                        "not wiped", v->label, (unsigned long long)i);
            memset(out, 0xa5, RIJN_CHUNK_CT);
            if (rijn_chunked_open_chunk(&c, RIJN_CHUNKED_MAX_CHUNKS, final,
                                        out, v->ct.p + off,
                                        len) != RIJN_SEAL_ETOOBIG ||
                !zeroed(out, len - RIJN_CHUNK_TAG))
                tu_fail("%s: chunk %llu at an index past the limit: not "
                        "ETOOBIG or out not wiped", v->label,
                        (unsigned long long)i);
        }
        free(out);
    }
    rijn_chunked_wipe(&c);
    tu_check_eq(again.p, msg.p, msg.n, "random access");
    check_derived(v);
    /* encryption with the salt injected: ct exactly, chunk API and writer */
    {
        buf ct = {0};
        rijn_chunked_stream *w = aligned_alloc(64, sizeof *w); /* rijn.h */
        size_t at = 0;
        rijn_chunked_writer_init(w, v->key, v->ctx, (size_t)v->cl, v->ct.p,
                                 sink, &ct);
        while (at < msg.n) {
            size_t k = 1 + (size_t)tu_rng_below(&g_rng, 50000);
            if (k > msg.n - at)
                k = msg.n - at;
            rijn_chunked_writer_write(w, msg.p + at, k);
            at += k;
        }
        if (rijn_chunked_writer_finish(w) != 0 || ct.n != v->ct.n ||
            memcmp(ct.p, v->ct.p, ct.n) != 0)
            tu_fail("%s: re-encryption with the same salt differs", v->label);
        else
            tu_pass();
        free(w);
        free(ct.p);
    }
out:
    free(msg.p);
    free(again.p);
}

/* Whether error r says what the vector's flags describe. */
static int code_fits(const char *flags, int r)
{
    if (strstr(flags, "HeaderFailure") != NULL)
        return r == (strstr(flags, "Truncation") ? RIJN_SEAL_ETRUNC
                                                 : RIJN_SEAL_EKEY);
    if (strstr(flags, "Truncation") != NULL)
        return r == RIJN_SEAL_ETRUNC || r == RIJN_SEAL_ELAST;
    if (strstr(flags, "TrailingData") != NULL)
        return r == RIJN_SEAL_ETRAIL || r == RIJN_SEAL_ELAST ||
               r == RIJN_SEAL_ETRUNC;
    if (strstr(flags, "ModifiedCiphertext") != NULL ||
        strstr(flags, "ChunkReordering") != NULL)
        return r == RIJN_SEAL_ECHUNK || r == RIJN_SEAL_ELAST;
    return 0;
}

static void check_invalid(const vec *v, const char *flags)
{
    buf msg = {0};
    int r;

    if (strstr(flags, "InvalidKeySize") != NULL) {
        /* the API takes exactly 32 bytes: a key of another size cannot be
         * passed, which is the refusal (the CLI checks key files) */
        if (v->kl != 32)
            tu_pass();
        else
            tu_fail("%s: InvalidKeySize with a 32-byte key", v->label);
        return;
    }
    r = stream_open(v, &msg);
    if (r == 0) {
        tu_fail("%s: invalid vector (%s) accepted", v->label, flags);
    } else if (!code_fits(flags, r)) {
        tu_fail("%s: [%s] reported as \"%s\"", v->label, flags,
                rijn_seal_strerror(r));
    } else if (v->partial) {
        unsigned char h[64];
        sha512(msg.p, msg.n, h);
        if ((long long)msg.n > v->msg_len ||
            ((long long)msg.n == v->msg_len && memcmp(h, v->sha, 64) != 0))
            tu_fail("%s: released %zu bytes, more than the valid prefix "
                    "(%lld) or not it", v->label, msg.n, v->msg_len);
        else
            tu_pass();
    } else if (msg.n != 0) {
        tu_fail("%s: released %zu bytes before the error", v->label, msg.n);
    } else {
        tu_pass();
    }
    tu_note("%s [%s]: %s", v->label, flags, rijn_seal_strerror(r));
    free(msg.p);
}

int main(int argc, char **argv)
{
    uint64_t seed = tu_seed_from_args(&argc, argv);
    reader r;
    unsigned nvalid = 0, ninvalid = 0;
    static vec v;
    int rc;

    if (argc != 2) {
        fprintf(stderr, "usage: test_cobblestone VECTOR_FILE [--seed N]\n");
        return 2;
    }
    tu_set_name("cobblestone");
    tu_rng_seed(&g_rng, seed);
    if (rd_open(&r, argv[1], "cobblestone-256.txt", 0) != 0)
        return tu_end();
    while ((rc = rd_next(&r)) == 1) {
        char label[48];
        const char *res, *flags, *ml, *ct;

        rd_label(&r, label, sizeof label);
        snprintf(v.label, sizeof v.label, "cobblestone-256 %s", label);
        rd_get(&r, "Comment");
        v.kl = rd_hex(&r, "key", v.key, sizeof v.key);
        v.cl = rd_hex(&r, "ctx", v.ctx, sizeof v.ctx);
        ct = rd_get(&r, "ct");
        rd_opt(&r, "aeadKey");   /* raw mode: not exposed by rijn */
        rd_opt(&r, "baseNonce");
        ml = rd_opt(&r, "msgLength");
        v.msg_len = ml ? strtoll(ml, NULL, 10) : -1;
        if (ml)
            rd_hex(&r, "msgSha512", v.sha, sizeof v.sha);
        res = rd_get(&r, "Result");
        flags = rd_get(&r, "Flags");
        if (r.error || !rd_all_used(&r) || ct == NULL || res == NULL ||
            flags == NULL)
            break;
        v.valid = strcmp(res, "valid") == 0;
        v.partial = strstr(flags, "PartialPlaintext") != NULL;
        v.ct.n = 0;
        if (inflate_hex(ct, &v.ct) != 0) {
            tu_fail("%s: ct does not inflate", v.label);
            break;
        }
        if (v.valid) {
            nvalid++;
            check_valid(&v);
        } else {
            ninvalid++;
            check_invalid(&v, flags);
        }
    }
    rd_close(&r);
    free(v.ct.p);
    if (nvalid != 10 || ninvalid != 25)
        tu_fail("%u valid and %u invalid vectors, expected 10 and 25", nvalid,
                ninvalid);
    return tu_end();
}
