/*
 * fuzz_chunked: Cobblestone-256 (rijn_seal.h, doc/format.md section 1),
 * structure-aware.
 *
 * The input picks an input key, a context, a salt, a message (k chunks of
 * RIJN_CHUNK plus a few bytes either side of a boundary, or anything
 * short of the next one; the bytes from a PRNG seeded by the input), the
 * pieces the streaming writer gets, then 0..3 mutations of the sealed
 * file: flip a bit, cut, extend, swap two chunks, drop one, duplicate
 * one, splice in a chunk of another file (same key and context, another
 * salt), drop the final chunk (cut at the last chunk boundary), take the
 * other file's salt and commitment, open with another context or key; and
 * the pieces the streaming reader gets.
 *
 * Oracle:
 *   - the writer's output is the file seal_chunk builds chunk by chunk,
 *     with the length rijn_chunked_ct_len gives;
 *   - the streaming reader succeeds iff the file, key and context are the
 *     ones sealed (byte for byte), and then releases exactly the message;
 *     whatever it released is a prefix of the message, in any case;
 *   - after one mutation whose outcome doc/format.md states, the error is
 *     that one (EKEY, ECHUNK, ELAST, ETRUNC, ETRAIL);
 *   - the random-access API (init_open, open_chunk over the layout
 *     rijn_chunked_msg_len gives) agrees: it opens every chunk iff the
 *     reader succeeds; a chunk it opens is that chunk of the message; a
 *     chunk the reader released, it opens too; and a file that ends after
 *     a full chunk never has that chunk accepted as the final one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzutil.h"
#include "rijn_gcm.h"
#include "rijn_seal.h"
#include "testutil.h"

#define MAX_MSG (3 * RIJN_CHUNK)
/* 3 chunks, and 3 mutations each adding at most a chunk */
#define MAX_FILE (RIJN_CHUNKED_HEADER + 7 * RIJN_CHUNK_CT)

typedef struct {
    uint8_t *p;
    size_t n, cap;
} sinkbuf;

static int to_buf(void *arg, const unsigned char *p, size_t n)
{
    sinkbuf *s = arg;
    FZ_CHECK(n <= s->cap - s->n, "sink: %zu bytes more than expected", n);
    memcpy(s->p + s->n, p, n);
    s->n += n;
    return 0;
}

/* The chunks of a file of len bytes as a reader cuts them. */
static size_t nchunks(size_t len)
{
    if (len <= RIJN_CHUNKED_HEADER)
        return 0;
    return (len - RIJN_CHUNKED_HEADER + RIJN_CHUNK_CT - 1) / RIJN_CHUNK_CT;
}

static void span(size_t len, size_t i, size_t *off, size_t *n)
{
    *off = RIJN_CHUNKED_HEADER + i * RIJN_CHUNK_CT;
    *n = len - *off < RIJN_CHUNK_CT ? len - *off : RIJN_CHUNK_CT;
}

/* Replace f[off..off+n) with src[0..m) (src may not overlap f). */
static void replace(uint8_t *f, size_t *len, size_t off, size_t n,
                    const uint8_t *src, size_t m)
{
    FZ_CHECK(*len - n + m <= MAX_FILE, "mutation too large");
    memmove(f + off + m, f + off + n, *len - off - n);
    if (m > 0)
        memcpy(f + off, src, m);
    *len = *len - n + m;
}

/* A piece of a stream of len bytes: 1..max bytes, but at least len/64
 * (bounded work per input), and one in four 1..17 bytes. */
static size_t piece(tu_rng *rng, size_t max, size_t len)
{
    if (max < len / 64)
        max = len / 64;
    if (tu_rng_below(rng, 4) == 0)
        return 1 + (size_t)tu_rng_below(rng, 17);
    return 1 + (size_t)tu_rng_below(rng, max);
}

/* Feed the streaming writer in random pieces of at most max bytes. */
static size_t seal_stream(uint8_t *out, const uint8_t key[32],
                          const uint8_t *ctx, size_t ctx_len,
                          const uint8_t salt[24], const uint8_t *m,
                          size_t len, tu_rng *rng, size_t max)
{
    static rijn_chunked_stream s;
    sinkbuf sb = {out, 0, MAX_FILE};
    FZ_CHECK(rijn_chunked_writer_init(&s, key, ctx, ctx_len, salt, to_buf,
                                      &sb) == 0,
             "writer_init");
    for (size_t off = 0; off < len;) {
        size_t n = piece(rng, max, len);
        if (n > len - off)
            n = len - off;
        FZ_CHECK(rijn_chunked_writer_write(&s, m + off, n) == 0,
                 "writer_write");
        off += n;
    }
    FZ_CHECK(rijn_chunked_writer_finish(&s) == 0, "writer_finish");
    return sb.n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t msg[MAX_MSG], file[MAX_FILE], other[MAX_FILE],
        ref[MAX_FILE], mut[MAX_FILE], got[MAX_MSG + RIJN_CHUNK_CT],
        chunk[RIJN_CHUNK_CT];
    static rijn_chunked_stream rs;
    fz_in in = {data, size};
    uint8_t key[32], salt[24], salt2[24], ctx[64], okey[32], octx[64];
    tu_rng rng;

    /* The choices first, the bulk bytes last: libFuzzer grows its inputs
     * from short ones, and a missing byte reads as 0. */
    size_t nmut = fz_range(&in, 0, 3);
    struct {
        unsigned kind;
        uint32_t a, b;
    } mu[3];
    for (size_t j = 0; j < 3; j++) {
        mu[j].kind = fz_u8(&in) % 12;
        mu[j].a = fz_u16(&in);
        mu[j].b = fz_u8(&in);
    }
    size_t len, k = fz_range(&in, 0, 2);
    switch (fz_u8(&in) & 3) {
    case 0: /* just past a boundary */
        len = k * RIJN_CHUNK + fz_range(&in, 0, 40);
        break;
    case 1: /* just before one */
        len = (k + 1) * RIJN_CHUNK - fz_range(&in, 1, 40);
        break;
    case 2: /* short */
        len = fz_range(&in, 0, 300);
        break;
    default:
        len = k * RIJN_CHUNK + fz_range(&in, 0, RIJN_CHUNK - 1);
        break;
    }
    /* the largest piece the writer and the reader get: 1 to 2^16 bytes */
    size_t wmax = (size_t)1 << fz_range(&in, 0, 16);
    size_t rmax = (size_t)1 << fz_range(&in, 0, 16);
    size_t ctx_len = fz_range(&in, 0, sizeof ctx);
    size_t s2pos = fz_u8(&in) % 24;
    uint8_t s2bit = (uint8_t)(1u << (fz_u8(&in) & 7));
    tu_rng_seed(&rng, fz_u64(&in));
    fz_bytes(&in, key, 32);
    fz_bytes(&in, salt, 24);
    fz_bytes(&in, ctx, ctx_len);
    tu_rng_fill(&rng, msg, len);

    /* ---- the message and its file ---- */
    size_t flen = seal_stream(file, key, ctx, ctx_len, salt, msg, len, &rng,
                              wmax);
    FZ_CHECK(flen == rijn_chunked_ct_len(len),
             "writer: %zu bytes for a %zu-byte message, ct_len says %llu",
             flen, len, (unsigned long long)rijn_chunked_ct_len(len));
    FZ_CHECK(rijn_chunked_msg_len(flen) == (int64_t)len, "msg_len");
    { /* the same file chunk by chunk */
        rijn_chunked c;
        size_t nc = len / RIJN_CHUNK + 1;
        FZ_CHECK(rijn_chunked_init_seal(&c, key, ctx, ctx_len, salt) == 0,
                 "init_seal");
        memcpy(ref, c.header, RIJN_CHUNKED_HEADER);
        for (size_t i = 0; i < nc; i++) {
            size_t n = i + 1 < nc ? RIJN_CHUNK : len % RIJN_CHUNK;
            FZ_CHECK(rijn_chunked_seal_chunk(&c, i, i + 1 == nc,
                                             ref + RIJN_CHUNKED_HEADER +
                                                 i * RIJN_CHUNK_CT,
                                             msg + i * RIJN_CHUNK, n) == 0,
                     "seal_chunk %zu", i);
        }
        rijn_chunked_wipe(&c);
        fz_check_eq(file, ref, flen, "writer vs seal_chunk");
    }

    /* ---- mutations ---- */
    memcpy(salt2, salt, 24);
    salt2[s2pos] ^= s2bit;
    size_t olen = seal_stream(other, key, ctx, ctx_len, salt2, msg, len,
                              &rng, wmax);
    memcpy(okey, key, 32);
    memcpy(octx, ctx, ctx_len);
    size_t octx_len = ctx_len;
    memcpy(mut, file, flen);
    size_t mlen = flen;
    int expect = RIJN_SEAL_OK; /* for a single mutation; 1: "fails" */
    for (size_t j = 0; j < nmut; j++) {
        size_t nc = nchunks(mlen), off, n, off2, n2;
        uint32_t a = mu[j].a, b = mu[j].b;
        int e = 1;
        switch (mu[j].kind) {
        case 0: /* flip a bit */
            if (mlen == 0)
                break;
            off = a % mlen;
            mut[off] ^= (uint8_t)(1u << (b & 7));
            e = off < RIJN_CHUNKED_HEADER ? RIJN_SEAL_EKEY
                : off >= RIJN_CHUNKED_HEADER + (nc - 1) * RIJN_CHUNK_CT
                    ? RIJN_SEAL_ELAST
                    : RIJN_SEAL_ECHUNK;
            break;
        case 1: { /* cut */
            if (mlen == 0)
                break;
            mlen = a % mlen;
            size_t r = mlen < RIJN_CHUNKED_HEADER
                           ? 0
                           : (mlen - RIJN_CHUNKED_HEADER) % RIJN_CHUNK_CT;
            e = r < RIJN_CHUNK_TAG ? RIJN_SEAL_ETRUNC : RIJN_SEAL_ELAST;
            break;
        }
        case 2: { /* extend */
            uint8_t extra[64];
            n = 1 + b % 64;
            tu_rng_fill(&rng, extra, n);
            replace(mut, &mlen, mlen, 0, extra, n);
            e = RIJN_SEAL_ETRAIL;
            break;
        }
        case 3: /* swap two chunks */
            if (nc < 2)
                break;
            {
                size_t i = a % nc, i2 = b % nc;
                if (i == i2)
                    i2 = (i + 1) % nc;
                if (i > i2) {
                    size_t t = i;
                    i = i2;
                    i2 = t;
                }
                span(mlen, i, &off, &n);
                span(mlen, i2, &off2, &n2);
                uint8_t *t1 = malloc(n), *t2 = malloc(n2);
                FZ_CHECK(t1 && t2, "out of memory");
                memcpy(t1, mut + off, n);
                memcpy(t2, mut + off2, n2);
                replace(mut, &mlen, off2, n2, t1, n); /* later one first */
                replace(mut, &mlen, off, n, t2, n2);
                free(t1);
                free(t2);
            }
            break;
        case 4: /* drop a chunk */
            if (nc == 0)
                break;
            span(mlen, a % nc, &off, &n);
            replace(mut, &mlen, off, n, NULL, 0);
            break;
        case 5: /* duplicate a chunk */
            if (nc == 0)
                break;
            span(mlen, a % nc, &off, &n);
            memcpy(chunk, mut + off, n);
            replace(mut, &mlen, off + n, 0, chunk, n);
            break;
        case 6: { /* splice in a chunk of the other file */
            size_t onc = nchunks(olen);
            if (nc == 0 || onc == 0)
                break;
            span(mlen, a % nc, &off, &n);
            span(olen, b % onc, &off2, &n2);
            replace(mut, &mlen, off, n, other + off2, n2);
            break;
        }
        case 7: /* drop the final chunk: cut at the last boundary */
            if (nc < 2)
                break;
            mlen = RIJN_CHUNKED_HEADER + (nc - 1) * RIJN_CHUNK_CT;
            e = RIJN_SEAL_ETRUNC;
            break;
        case 8: /* the other file's salt and commitment */
            if (mlen < RIJN_CHUNKED_HEADER)
                break;
            memcpy(mut, other, RIJN_CHUNKED_HEADER);
            e = nc == 1 ? RIJN_SEAL_ELAST : RIJN_SEAL_ECHUNK;
            break;
        case 9: /* another context */
            if (octx_len > 0 && (a & 1)) {
                octx[a / 2 % octx_len] ^= (uint8_t)(1u << (b & 7));
            } else if (octx_len < sizeof octx) {
                octx[octx_len++] = (uint8_t)b;
            } else {
                octx_len--;
            }
            e = RIJN_SEAL_EKEY;
            break;
        case 10: /* another key */
            okey[a % 32] ^= (uint8_t)(1u << (b & 7));
            e = RIJN_SEAL_EKEY;
            break;
        default: /* the other file whole (the same message) */
            memcpy(mut, other, olen);
            mlen = olen;
            e = RIJN_SEAL_OK; /* a valid file of its own */
            break;
        }
        expect = nmut == 1 ? e : 1;
    }
    /* Unchanged means: these bytes, this key, this context. The other
     * file is valid too (same key and context, its own salt). */
    int same_ctx = octx_len == ctx_len && memcmp(octx, ctx, ctx_len) == 0,
        same_key = memcmp(okey, key, 32) == 0;
    int valid = same_ctx && same_key &&
                ((mlen == flen && memcmp(mut, file, flen) == 0) ||
                 (mlen == olen && memcmp(mut, other, olen) == 0));

    /* ---- the streaming reader, in random pieces ---- */
    sinkbuf sb = {got, 0, sizeof got};
    int r = rijn_chunked_reader_init(&rs, okey, octx, octx_len, to_buf, &sb);
    FZ_CHECK(r == 0, "reader_init: %d", r);
    for (size_t off = 0; off < mlen && r == 0;) {
        size_t n = piece(&rng, rmax, mlen);
        if (n > mlen - off)
            n = mlen - off;
        r = rijn_chunked_reader_write(&rs, mut + off, n);
        off += n;
    }
    if (r == 0)
        r = rijn_chunked_reader_finish(&rs);
    else
        rijn_chunked_stream_wipe(&rs);

    FZ_CHECK((r == 0) == valid,
             "reader: %s (%d) a %s file (message %zu bytes, file %zu -> %zu "
             "bytes, %zu mutations)",
             r == 0 ? "accepts" : "rejects", r,
             valid ? "valid" : "modified", len, flen, mlen, nmut);
    FZ_CHECK(sb.n <= len, "reader released %zu bytes of a %zu-byte message",
             sb.n, len);
    fz_check_eq(got, msg, sb.n, "released bytes vs the message");
    if (valid)
        FZ_CHECK(sb.n == len, "reader released %zu of %zu bytes", sb.n, len);
    else if (nmut == 1 && expect != 1)
        FZ_CHECK(r == expect, "reader: error %d (%s), expected %d (%s)", r,
                 rijn_seal_strerror(r), expect, rijn_seal_strerror(expect));
    FZ_CHECK(sb.n % RIJN_CHUNK == 0 || r == 0,
             "a failed reader released a partial chunk (%zu bytes)", sb.n);

    /* ---- the random-access API over the same bytes ---- */
    {
        rijn_chunked c;
        int64_t ml = rijn_chunked_msg_len(mlen);
        int ra_ok = 0;
        if (mlen >= RIJN_CHUNKED_HEADER &&
            rijn_chunked_init_open(&c, okey, octx, octx_len, mut) == 0) {
            size_t nc = nchunks(mlen);
            ra_ok = ml >= 0;
            for (size_t i = 0; i < nc; i++) {
                size_t off, n;
                span(mlen, i, &off, &n);
                int fin = ml >= 0 && i + 1 == nc;
                int rc = rijn_chunked_open_chunk(&c, i, fin, chunk, mut + off,
                                                 n);
                if (rc == 0) {
                    FZ_CHECK(n >= RIJN_CHUNK_TAG &&
                                 i * RIJN_CHUNK + n - RIJN_CHUNK_TAG <= len,
                             "open_chunk %zu accepts %zu bytes beyond the "
                             "message", i, n);
                    fz_check_eq(chunk, msg + i * RIJN_CHUNK,
                                n - RIJN_CHUNK_TAG, "open_chunk");
                } else {
                    ra_ok = 0;
                    FZ_CHECK((i + 1) * RIJN_CHUNK > sb.n,
                             "the reader released chunk %zu, open_chunk "
                             "rejects it (%d)", i, rc);
                }
                /* a file that ends after a full chunk: that chunk is no
                 * final one */
                if (ml < 0 && i + 1 == nc && n == RIJN_CHUNK_CT)
                    FZ_CHECK(rijn_chunked_open_chunk(&c, i, 1, chunk,
                                                     mut + off, n) != 0,
                             "open_chunk accepts a full chunk (%zu) as the "
                             "final one", i);
            }
            rijn_chunked_wipe(&c);
        }
        FZ_CHECK(ra_ok == (r == 0),
                 "random access %s, the reader %s (%d)",
                 ra_ok ? "opens every chunk" : "fails",
                 r == 0 ? "succeeds" : "fails", r);
    }
    return 0;
}
