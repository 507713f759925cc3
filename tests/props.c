/*
 * CTR and ECB properties of one backend against an oracle (see props.h).
 *
 * For every key size (random keys from the seeded PRNG):
 *   lengths   one-shot rijn_aes_ctr_key for every length 0..1024 and
 *             4095..4097, out-of-place and in-place, on a random IV and on
 *             an IV a few blocks before a 2^32 / 2^64 / 2^128 wrap;
 *   wraps     IVs 0..16 blocks (and 100 blocks, 4097 bytes) before 2^32,
 *             2^64, 2^96 and 2^128, random bits above the wrapping field;
 *             ff..ff must wrap to 00..00 (checked against E(0) directly);
 *   splits    every 3-way split of a 100-byte stream through
 *             rijn_aes_ctr_xor (stream crosses a 2^32 wrap) equals one-shot,
 *             alternately out-of-place and in-place, and no call writes past
 *             its own piece;
 *   seek      rijn_aes_ctr_seek to random offsets (inside a 4 KiB stream,
 *             anywhere below 2^63, and just before a 2^32 counter wrap), then
 *             rijn_aes_ctr_xor in two pieces, then seek backwards;
 *   align     input/output misalignments 0..63 x 0..63 (separate buffers),
 *             and in-place at every alignment 0..63;
 *   ecb       rijn_aes_encrypt_blocks on 0..64 blocks, out-of-place with
 *             random alignments and in-place.
 * Every output buffer has guard bytes on both sides, checked after each
 * call. Failures print the backend, key size, IV, length, offset and seed.
 */
#include "props.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

#define STREAM_LEN 4097
#define SEEK_ITERS 200

static const char *g_backend;
static const props_oracle *g_oracle;
static unsigned long long g_seed;
static tu_rng g_rng;

typedef struct {
    size_t kl;
    uint8_t key[32];
    uint8_t iv[16];
    rijn_aes_key k;
    uint8_t msg[STREAM_LEN];
    uint8_t want[STREAM_LEN]; /* msg XOR keystream(key, iv) */
} stream;

static const size_t key_lens[3] = {16, 24, 32};

/* Set the low wbytes bytes of iv to 2^(8*wbytes) - d (d < 2^32). */
static void iv_before_wrap(uint8_t iv[16], size_t wbytes, uint32_t d)
{
    size_t i;
    for (i = 16 - wbytes; i < 16; i++)
        iv[i] = 0;
    if (d == 0)
        return;
    for (i = 16 - wbytes; i < 16; i++)
        iv[i] = 0xff;
    /* now the field is 2^W - 1; subtract d - 1 (no borrow out of it) */
    {
        uint32_t sub = d - 1;
        unsigned borrow = 0;
        for (i = 15; i >= 16 - wbytes; i--) {
            unsigned s = (sub & 0xff) + borrow;
            borrow = iv[i] < s;
            iv[i] = (uint8_t)(iv[i] - s);
            sub >>= 8;
            if (i == 0)
                break;
        }
    }
}

static int oracle_ctr(const stream *s, const uint8_t iv[16], uint8_t *out,
                      const uint8_t *in, size_t len)
{
    if (g_oracle->ctr(s->key, s->kl, iv, out, in, len) != 0) {
        tu_fail("oracle %s failed (AES-%zu CTR len %zu)", g_oracle->name,
                s->kl * 8, len);
        return -1;
    }
    return 0;
}

static int stream_init(stream *s, size_t kl, const uint8_t iv[16])
{
    s->kl = kl;
    tu_rng_fill(&g_rng, s->key, kl);
    memcpy(s->iv, iv, 16);
    tu_rng_fill(&g_rng, s->msg, STREAM_LEN);
    if (tu_setkey(&s->k, s->key, kl, g_backend) != 0)
        return -1;
    return oracle_ctr(s, s->iv, s->want, s->msg, STREAM_LEN);
}

/* A context string for failure messages (static buffer). */
static const char *ctxf(const stream *s, const uint8_t iv[16], size_t len,
                        const char *fmt, ...) TU_PRINTF(4, 5);
static const char *ctxf(const stream *s, const uint8_t iv[16], size_t len,
                        const char *fmt, ...)
{
    static char buf[512];
    char extra[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(extra, sizeof extra, fmt, ap);
    va_end(ap);
    snprintf(buf, sizeof buf, "AES-%zu iv=%s len=%zu %s seed=%llu",
             s->kl * 8, tu_hex(iv, 16), len, extra, g_seed);
    return buf;
}

/* ---- lengths --------------------------------------------------------- */
static void check_one_len(const stream *s, size_t len)
{
    tu_buf out;
    const char *w;

    tu_buf_init(&out, len, len % 64);
    rijn_aes_ctr_key(&s->k, out.p, s->msg, len, s->iv);
    w = ctxf(s, s->iv, len, "one-shot out-align %zu", len % 64);
    tu_check_eq(out.p, s->want, len, w);
    tu_buf_guards_ok(&out, w);

    memcpy(out.p, s->msg, len);
    rijn_aes_ctr_key(&s->k, out.p, out.p, len, s->iv);
    w = ctxf(s, s->iv, len, "one-shot in-place align %zu", len % 64);
    tu_check_eq(out.p, s->want, len, w);
    tu_buf_guards_ok(&out, w);
    tu_buf_free(&out);
}

static void test_lengths(const stream *s)
{
    size_t len;
    for (len = 0; len <= 1024; len++)
        check_one_len(s, len);
    for (len = 4095; len <= 4097; len++)
        check_one_len(s, len);
}

/* ---- wraps ------------------------------------------------------------ */
static void test_wrap_case(stream *s, const uint8_t iv[16], size_t len)
{
    uint8_t *want = malloc(len ? len : 1), *msg = malloc(len ? len : 1);
    tu_buf out;
    rijn_aes_ctr_ctx c;
    size_t cut;
    const char *w;

    if (want == NULL || msg == NULL) {
        tu_fail("out of memory");
        exit(2);
    }
    tu_rng_fill(&g_rng, msg, len);
    if (oracle_ctr(s, iv, want, msg, len) != 0)
        goto done;
    tu_buf_init(&out, len, (size_t)tu_rng_below(&g_rng, 64));

    rijn_aes_ctr_key(&s->k, out.p, msg, len, iv);
    w = ctxf(s, iv, len, "near counter wrap, one-shot");
    tu_check_eq(out.p, want, len, w);
    tu_buf_guards_ok(&out, w);

    memcpy(out.p, msg, len);
    rijn_aes_ctr_key(&s->k, out.p, out.p, len, iv);
    w = ctxf(s, iv, len, "near counter wrap, in-place");
    tu_check_eq(out.p, want, len, w);
    tu_buf_guards_ok(&out, w);

    cut = (size_t)tu_rng_below(&g_rng, len + 1);
    if (rijn_aes_ctr_init_impl(&c, s->key, s->kl, iv, g_backend) != 0) {
        tu_fail("rijn_aes_ctr_init_impl failed (AES-%zu)", s->kl * 8);
    } else {
        memset(out.p, out.fill, len);
        rijn_aes_ctr_xor(&c, out.p, msg, cut);
        rijn_aes_ctr_xor(&c, out.p + cut, msg + cut, len - cut);
        w = ctxf(s, iv, len, "near counter wrap, streaming split at %zu",
                 cut);
        tu_check_eq(out.p, want, len, w);
        tu_buf_guards_ok(&out, w);
        rijn_aes_ctr_wipe(&c);
    }
    tu_buf_free(&out);
done:
    free(want);
    free(msg);
}

static void test_wraps(stream *s)
{
    static const size_t wbytes[4] = {4, 8, 12, 16};
    size_t wi;
    uint32_t d;

    for (wi = 0; wi < 4; wi++) {
        for (d = 0; d <= 17; d++) {
            uint8_t iv[16];
            uint32_t dd = d <= 16 ? d : 100;
            size_t len = d <= 16 ? 16 * (d + 3) + 5 : 4097;
            tu_rng_fill(&g_rng, iv, 16);
            iv_before_wrap(iv, wbytes[wi], dd);
            test_wrap_case(s, iv, len);
        }
    }

    /* ff..ff is followed by 00..00: keystream block 1 must be E(0). */
    {
        uint8_t iv[16], zero[32] = {0}, ks[32], e0[16];
        const char *w;
        memset(iv, 0xff, 16);
        rijn_aes_ctr_key(&s->k, ks, zero, 32, iv);
        if (g_oracle->ecb(s->key, s->kl, e0, zero, 1) != 0) {
            tu_fail("oracle %s ECB failed", g_oracle->name);
            return;
        }
        w = ctxf(s, iv, 32, "block after ff..ff must be E(00..00)");
        tu_check_eq(ks + 16, e0, 16, w);
        rijn_aes_encrypt_blocks(&s->k, ks, zero, 1);
        w = ctxf(s, iv, 16, "backend ECB of 00..00");
        tu_check_eq(ks, e0, 16, w);
    }
}

/* ---- splits ----------------------------------------------------------- */
#define SPLIT_LEN 100

static void test_splits(stream *s)
{
    uint8_t iv[16], msg[SPLIT_LEN], want[SPLIT_LEN];
    tu_buf out;
    rijn_aes_ctr_ctx c;
    size_t a, b;
    unsigned long fails0 = tu_failures();

    tu_rng_fill(&g_rng, iv, 16);
    iv_before_wrap(iv, 4, 3); /* 7 blocks: crosses the 2^32 wrap */
    tu_rng_fill(&g_rng, msg, SPLIT_LEN);
    if (oracle_ctr(s, iv, want, msg, SPLIT_LEN) != 0)
        return;
    if (rijn_aes_ctr_init_impl(&c, s->key, s->kl, iv, g_backend) != 0) {
        tu_fail("rijn_aes_ctr_init_impl failed (AES-%zu)", s->kl * 8);
        return;
    }
    tu_buf_init(&out, SPLIT_LEN, 5);
    for (a = 0; a <= SPLIT_LEN; a++) {
        for (b = 0; a + b <= SPLIT_LEN; b++) {
            size_t piece[3], off = 0, i;
            int inplace = (a + b) & 1;
            const uint8_t *tail = inplace ? msg : NULL;
            int bad = 0;

            piece[0] = a;
            piece[1] = b;
            piece[2] = SPLIT_LEN - a - b;
            rijn_aes_ctr_setiv(&c, iv);
            if (inplace)
                memcpy(out.p, msg, SPLIT_LEN);
            else
                memset(out.p, out.fill, SPLIT_LEN);
            for (i = 0; i < 3; i++) {
                size_t j;
                rijn_aes_ctr_xor(&c, out.p + off,
                                 inplace ? out.p + off : msg + off, piece[i]);
                off += piece[i];
                /* nothing past this piece may have been written */
                for (j = off; j < SPLIT_LEN && !bad; j++) {
                    uint8_t expect = tail ? tail[j] : out.fill;
                    if (out.p[j] != expect) {
                        tu_fail("%s",
                                ctxf(s, iv, SPLIT_LEN,
                                     "split (%zu,%zu,%zu): a call wrote past "
                                     "the end of its piece",
                                     a, b, piece[2]));
                        bad = 1;
                    }
                }
            }
            if (!bad)
                tu_check_eq(out.p, want, SPLIT_LEN,
                            ctxf(s, iv, SPLIT_LEN, "%ssplit (%zu,%zu,%zu)",
                                 inplace ? "in-place " : "", a, b,
                                 piece[2]));
            tu_buf_guards_ok(&out, "split");
            if (tu_failures() > fails0 + 5)
                goto done; /* enough said */
        }
    }
done:
    tu_buf_free(&out);
    rijn_aes_ctr_wipe(&c);
}

/* ---- seek ------------------------------------------------------------- */
static void test_seek(stream *ss)
{
    rijn_aes_ctr_ctx c[3];
    uint8_t msg[256], want[256 + 16];
    tu_buf out;
    int i;

    for (i = 0; i < 3; i++) {
        if (rijn_aes_ctr_init_impl(&c[i], ss[i].key, ss[i].kl, ss[i].iv,
                                   g_backend) != 0) {
            tu_fail("rijn_aes_ctr_init_impl failed (AES-%zu)", ss[i].kl * 8);
            return;
        }
    }
    tu_buf_init(&out, 240, 0);
    for (i = 0; i < SEEK_ITERS; i++) {
        stream *s = &ss[i % 3];
        rijn_aes_ctr_ctx *cx = &c[i % 3];
        uint64_t off, kind = tu_rng_below(&g_rng, 3);
        size_t len = (size_t)tu_rng_below(&g_rng, 241), cut;
        const uint8_t *w;

        if (kind == 0) {
            /* inside the precomputed stream */
            off = tu_rng_below(&g_rng, STREAM_LEN + 1);
            if (len > STREAM_LEN - off)
                len = (size_t)(STREAM_LEN - off);
        } else if (kind == 1) {
            off = tu_rng_next(&g_rng) >> 1; /* below 2^63 */
        } else {
            /* a few bytes before the low 32-bit word of the counter wraps */
            uint64_t low = rijn_load32_be(s->iv + 12);
            off = (((uint64_t)1 << 32) - low) * 16;
            if (off > 64)
                off -= tu_rng_below(&g_rng, 64);
        }
        if (kind == 0) {
            memcpy(msg, s->msg + off, len);
            w = s->want + off;
        } else {
            uint8_t iv2[16], tmp[256 + 16];
            size_t skip = (size_t)(off % 16);
            memcpy(iv2, s->iv, 16);
            tu_ctr_add(iv2, off / 16);
            tu_rng_fill(&g_rng, tmp, skip + len);
            memcpy(msg, tmp + skip, len);
            if (oracle_ctr(s, iv2, want, tmp, skip + len) != 0)
                break;
            memmove(want, want + skip, len);
            w = want;
        }
        rijn_aes_ctr_seek(cx, off);
        cut = (size_t)tu_rng_below(&g_rng, len + 1);
        memset(out.p, out.fill, out.len);
        rijn_aes_ctr_xor(cx, out.p, msg, cut);
        rijn_aes_ctr_xor(cx, out.p + cut, msg + cut, len - cut);
        tu_check_eq(out.p, w, len,
                    ctxf(s, s->iv, len, "seek offset=%llu, split at %zu",
                         (unsigned long long)off, cut));
        tu_buf_guards_ok(&out, "seek");

        /* and back again to an earlier offset in the same range */
        if (len > 0) {
            size_t back = (size_t)tu_rng_below(&g_rng, len);
            rijn_aes_ctr_seek(cx, off + back);
            memset(out.p, out.fill, out.len);
            rijn_aes_ctr_xor(cx, out.p, msg + back, len - back);
            tu_check_eq(out.p, w + back, len - back,
                        ctxf(s, s->iv, len - back, "seek back to offset=%llu",
                             (unsigned long long)(off + back)));
            tu_buf_guards_ok(&out, "seek back");
        }
    }
    tu_buf_free(&out);
    for (i = 0; i < 3; i++)
        rijn_aes_ctr_wipe(&c[i]);
}

/* ---- alignment -------------------------------------------------------- */
static void test_align(stream *ss)
{
    tu_buf in;
    size_t ia, oa;

    tu_buf_init(&in, STREAM_LEN + 64, 0);
    for (ia = 0; ia < 64; ia++) {
        for (oa = 0; oa < 64; oa++) {
            stream *s = &ss[(ia + oa) % 3];
            size_t len = 1 + (size_t)tu_rng_below(&g_rng, 300);
            uint8_t *ip = in.p + ia;
            tu_buf out;

            memcpy(ip, s->msg, len);
            tu_buf_init(&out, len, oa);
            rijn_aes_ctr_key(&s->k, out.p, ip, len, s->iv);
            tu_check_eq(out.p, s->want, len,
                        ctxf(s, s->iv, len, "in-align %zu out-align %zu", ia,
                             oa));
            tu_buf_guards_ok(&out, "alignment");
            if (((ia ^ oa) & 1) == 0) {
                rijn_aes_ctr_ctx c;
                size_t cut = (size_t)tu_rng_below(&g_rng, len + 1);
                if (rijn_aes_ctr_init_impl(&c, s->key, s->kl, s->iv,
                                           g_backend) == 0) {
                    memset(out.p, out.fill, len);
                    rijn_aes_ctr_xor(&c, out.p, ip, cut);
                    rijn_aes_ctr_xor(&c, out.p + cut, ip + cut, len - cut);
                    tu_check_eq(out.p, s->want, len,
                                ctxf(s, s->iv, len,
                                     "streaming in-align %zu out-align %zu "
                                     "split at %zu", ia, oa, cut));
                    tu_buf_guards_ok(&out, "alignment, streaming");
                    rijn_aes_ctr_wipe(&c);
                } else {
                    tu_fail("rijn_aes_ctr_init_impl failed");
                }
            }
            tu_buf_free(&out);
        }
    }
    tu_buf_free(&in);

    /* in-place at every alignment */
    for (ia = 0; ia < 64; ia++) {
        size_t lens[3], li;
        lens[0] = (size_t)tu_rng_below(&g_rng, 64);
        lens[1] = 64 + (size_t)tu_rng_below(&g_rng, 400);
        lens[2] = (ia % 16 == 0) ? STREAM_LEN : 17;
        for (li = 0; li < 3; li++) {
            stream *s = &ss[(ia + li) % 3];
            size_t len = lens[li];
            tu_buf b;
            tu_buf_init(&b, len, ia);
            memcpy(b.p, s->msg, len);
            rijn_aes_ctr_key(&s->k, b.p, b.p, len, s->iv);
            tu_check_eq(b.p, s->want, len,
                        ctxf(s, s->iv, len, "in-place align %zu", ia));
            tu_buf_guards_ok(&b, "in-place alignment");
            tu_buf_free(&b);
        }
    }
}

/* ---- ECB -------------------------------------------------------------- */
static void test_ecb(stream *ss)
{
    size_t ki, nb;
    uint8_t in[64 * 16 + 64], want[64 * 16];

    for (ki = 0; ki < 3; ki++) {
        stream *s = &ss[ki];
        for (nb = 0; nb <= 64; nb++) {
            size_t ia = (size_t)tu_rng_below(&g_rng, 64);
            size_t len = 16 * nb;
            uint8_t *ip = in + ia;
            tu_buf out;
            char what[128];

            tu_rng_fill(&g_rng, ip, len);
            if (g_oracle->ecb(s->key, s->kl, want, ip, nb) != 0) {
                tu_fail("oracle %s ECB failed", g_oracle->name);
                return;
            }
            tu_buf_init(&out, len, (size_t)tu_rng_below(&g_rng, 64));
            rijn_aes_encrypt_blocks(&s->k, out.p, ip, nb);
            snprintf(what, sizeof what,
                     "AES-%zu ECB %zu blocks in-align %zu out-align %zu "
                     "seed=%llu", s->kl * 8, nb, ia, out.align, g_seed);
            tu_check_eq(out.p, want, len, what);
            tu_buf_guards_ok(&out, what);

            memcpy(out.p, ip, len);
            rijn_aes_encrypt_blocks(&s->k, out.p, out.p, nb);
            snprintf(what, sizeof what,
                     "AES-%zu ECB %zu blocks in-place align %zu seed=%llu",
                     s->kl * 8, nb, out.align, g_seed);
            tu_check_eq(out.p, want, len, what);
            tu_buf_guards_ok(&out, what);
            tu_buf_free(&out);
        }
    }
}

/* ---- key wipe ---------------------------------------------------------- */
/* rijn_aes_key_wipe clears the whole object: also what a setup with a
 * larger layout (here ct64's, the largest, or this backend's AES-256) left
 * beyond the round keys of the smaller one set up over it. */
static void test_key_wipe(void)
{
    static const char *firsts[2] = {"ct64", NULL};
    uint8_t key[32];

    tu_rng_fill(&g_rng, key, sizeof key);
    for (int f = 0; f < 2; f++) {
        RIJN_ALIGN(64) rijn_aes_key k;
        const char *first = firsts[f] != NULL ? firsts[f] : g_backend;
        const unsigned char *p = (const unsigned char *)&k;
        size_t i;

        memset(&k, 0x5a, sizeof k);
        if (rijn_aes_setkey_impl(&k, key, 32, first) != 0 ||
            tu_setkey(&k, key, 16, g_backend) != 0) {
            tu_fail("key setup (%s AES-256, then %s AES-128) failed", first,
                    g_backend);
            continue;
        }
        rijn_aes_key_wipe(&k);
        for (i = 0; i < sizeof k && p[i] == 0; i++)
            ;
        if (i < sizeof k)
            tu_fail("%s AES-256 then %s AES-128 on one key object: byte %zu "
                    "of %zu not cleared by rijn_aes_key_wipe", first,
                    g_backend, i, sizeof k);
        else
            tu_pass();
    }
}

int props_main(const char *suite, const props_oracle *o, int argc,
               char **argv)
{
    static stream streams[3], wrapped[3];
    size_t ki;
    /* which field the "near wrap" length stream wraps, per key size */
    static const size_t wrap_field[3] = {4, 8, 16};

    g_oracle = o;
    if (argc < 2) {
        fprintf(stderr, "usage: %s BACKEND [--seed N]\n", argv[0]);
        return 2;
    }
    g_backend = argv[1];
    tu_begin(suite, g_backend);
    g_seed = tu_seed_from_args(&argc, argv);
    if (argc != 2) {
        fprintf(stderr, "usage: %s BACKEND [--seed N]\n", argv[0]);
        return 2;
    }
    tu_rng_seed(&g_rng, g_seed);
    tu_note("oracle: %s", o->name);

    for (ki = 0; ki < 3; ki++) {
        uint8_t iv[16];
        tu_rng_fill(&g_rng, iv, 16);
        if (stream_init(&streams[ki], key_lens[ki], iv) != 0)
            return tu_end();
        /* 7 blocks before the wrap: lengths > 112 bytes cross it */
        tu_rng_fill(&g_rng, iv, 16);
        iv_before_wrap(iv, wrap_field[ki], 7);
        if (stream_init(&wrapped[ki], key_lens[ki], iv) != 0)
            return tu_end();
    }
    for (ki = 0; ki < 3; ki++) {
        test_lengths(&streams[ki]);
        test_lengths(&wrapped[ki]);
        test_wraps(&streams[ki]);
        test_splits(&streams[ki]);
    }
    test_seek(streams);
    test_seek(wrapped);
    test_align(streams);
    test_ecb(streams);
    test_key_wipe();
    for (ki = 0; ki < 3; ki++) {
        rijn_aes_key_wipe(&streams[ki].k);
        rijn_aes_key_wipe(&wrapped[ki].k);
    }
    if (tu_failures() != 0)
        tu_note("replay with: %s %s --seed %llu", argv[0], g_backend, g_seed);
    return tu_end();
}
