/*
 * Tests of the eSTREAM shim (rijn_ecrypt, ecrypt-sync.h) on the backend
 * named by RIJN_IMPL:
 *   - eSTREAM AES-128-CTR sets 1-4: every stream[] excerpt and the
 *     xor-digest of every vector, produced by ECRYPT_encrypt_bytes in one
 *     call, in random splits, in place, with unaligned buffers, by
 *     ECRYPT_keystream_bytes, ECRYPT_process_packet and the block calls;
 *   - 128/192/256-bit keys with random IVs and IVs whose little-endian
 *     word (bytes 0..3) is just below 2^32, against counter blocks built
 *     here and encrypted with rijn_aes_encrypt_blocks (ref backend): the
 *     word wraps mod 2^32 and bytes 4..15 never change.
 * Usage: test_estream <aes128ctr-estream-sets1-4.txt>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat_test.h"
#include "ecrypt-sync.h"

#define SUITE "estream"
#define MAX_EXCERPTS 8

typedef struct {
    size_t lo, hi;
    unsigned char data[64];
} excerpt;

typedef struct {
    char name[64];
    unsigned char key[32];
    long keylen;
    unsigned char iv[16];
    long ivlen;
    excerpt ex[MAX_EXCERPTS];
    size_t nex;
    unsigned char digest[64];
    int has_digest;
} vector;

static const char *backend;
static int impl_checked;

/* One check: the guard bytes around b's buffer are intact. */
static void check_guards(const tu_buf *b, const char *what)
{
    if (tu_buf_guards_ok(b, what))
        tu_pass();
}

/* A random piece length for streaming: mostly small, sometimes large. */
static size_t piece(size_t left)
{
    size_t n;
    switch (tu_rng_below(&ct_rng, 4)) {
    case 0: n = tu_rng_below(&ct_rng, 17); break;
    case 1: n = tu_rng_below(&ct_rng, 70); break;
    case 2: n = 16 * tu_rng_below(&ct_rng, 40); break;
    default: n = tu_rng_below(&ct_rng, 1500); break;
    }
    return n < left ? n : left;
}

/* out = in XOR keystream via ECRYPT_encrypt_bytes in random pieces. */
static void enc_split(ECRYPT_ctx *ctx, const unsigned char *in,
                      unsigned char *out, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        size_t n = piece(len - pos);
        ECRYPT_encrypt_bytes(ctx, in + pos, out + pos, (u32)n);
        pos += n;
    }
}

static void ks_split(ECRYPT_ctx *ctx, unsigned char *out, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        size_t n = piece(len - pos);
        ECRYPT_keystream_bytes(ctx, out + pos, (u32)n);
        pos += n;
    }
}

static void check_impl(const ECRYPT_ctx *ctx)
{
    if (impl_checked)
        return;
    impl_checked = 1;
    const char *used = rijn_aes_key_impl(&ctx->key); /* NULL: no setup */
    ct_check(used != NULL && strcmp(used, backend) == 0,
             "ECRYPT_keysetup uses the RIJN_IMPL backend",
             used != NULL ? used : "(no key set up)");
}

/* ------------------------------------------------------------------------
 * Known-answer vectors
 * --------------------------------------------------------------------- */
static void run_vector(const vector *v)
{
    ECRYPT_ctx ctx;
    unsigned char digest[64];
    unsigned char *zeros, *ref;
    size_t L = 0, i, nblk;
    tu_buf in, out;
    char what[160];

    for (i = 0; i < v->nex; i++)
        if (v->ex[i].hi + 1 > L)
            L = v->ex[i].hi + 1;
    if (!ct_check(v->keylen == 16 && v->ivlen == 16 && v->nex > 0 && L > 0,
                  "vector has a 16-byte key and IV and excerpts", v->name))
        return;
    zeros = calloc(1, L);
    ref = malloc(L);
    if (zeros == NULL || ref == NULL) {
        printf("out of memory\n");
        exit(1);
    }

    ECRYPT_keysetup(&ctx, v->key, 128, 128);
    ct_check(rijn_ecrypt_ctx_ok(&ctx), "ECRYPT_keysetup ok", v->name);
    check_impl(&ctx);

    /* one call */
    ECRYPT_ivsetup(&ctx, v->iv);
    ECRYPT_encrypt_bytes(&ctx, zeros, ref, (u32)L);
    for (i = 0; i < v->nex; i++) {
        snprintf(what, sizeof what, "%s stream[%zu..%zu] (one call)",
                 v->name, v->ex[i].lo, v->ex[i].hi);
        tu_check_eq(ref + v->ex[i].lo, v->ex[i].data,
                    v->ex[i].hi - v->ex[i].lo + 1, what);
    }
    if (v->has_digest) {
        memset(digest, 0, sizeof digest);
        for (i = 0; i < L; i++)
            digest[i % 64] ^= ref[i];
        snprintf(what, sizeof what, "%s xor-digest of %zu bytes", v->name, L);
        tu_check_eq(digest, v->digest, 64, what);
    }

    /* random splits, unaligned input and output, guard bytes */
    tu_buf_init(&in, L, tu_rng_below(&ct_rng, 16));
    tu_buf_init(&out, L, tu_rng_below(&ct_rng, 16));
    memset(in.p, 0, L);
    ECRYPT_ivsetup(&ctx, v->iv);
    enc_split(&ctx, in.p, out.p, L);
    snprintf(what, sizeof what, "%s encrypt_bytes random splits", v->name);
    tu_check_eq(out.p, ref, L, what);
    check_guards(&out, v->name);

    /* in place, random splits: decrypting gives zeros back */
    ECRYPT_ivsetup(&ctx, v->iv);
    {
        size_t pos = 0;
        while (pos < L) {
            size_t n = piece(L - pos);
            ECRYPT_decrypt_bytes(&ctx, out.p + pos, out.p + pos, (u32)n);
            pos += n;
        }
    }
    snprintf(what, sizeof what, "%s decrypt_bytes in place", v->name);
    tu_check_eq(out.p, zeros, L, what);

    /* keystream_bytes in random splits */
    memset(out.p, 0x3c, L);
    ECRYPT_ivsetup(&ctx, v->iv);
    ks_split(&ctx, out.p, L);
    snprintf(what, sizeof what, "%s keystream_bytes random splits", v->name);
    tu_check_eq(out.p, ref, L, what);
    check_guards(&out, v->name);

    /* packet calls (IV set inside; a previous stream position is reset) */
    ECRYPT_encrypt_bytes(&ctx, in.p, out.p, 5);
    ECRYPT_encrypt_packet(&ctx, v->iv, in.p, out.p, (u32)L);
    snprintf(what, sizeof what, "%s encrypt_packet", v->name);
    tu_check_eq(out.p, ref, L, what);
    ECRYPT_decrypt_packet(&ctx, v->iv, out.p, out.p, (u32)L);
    snprintf(what, sizeof what, "%s decrypt_packet in place", v->name);
    tu_check_eq(out.p, zeros, L, what);

    /* block calls, then bytes for any tail */
    nblk = L / ECRYPT_BLOCKLENGTH;
    ECRYPT_ivsetup(&ctx, v->iv);
    ECRYPT_encrypt_blocks(&ctx, in.p, out.p, (u32)nblk);
    ECRYPT_encrypt_bytes(&ctx, in.p + 16 * nblk, out.p + 16 * nblk,
                         (u32)(L - 16 * nblk));
    snprintf(what, sizeof what, "%s encrypt_blocks", v->name);
    tu_check_eq(out.p, ref, L, what);
    ECRYPT_ivsetup(&ctx, v->iv);
    ECRYPT_keystream_blocks(&ctx, out.p, (u32)nblk);
    ECRYPT_keystream_bytes(&ctx, out.p + 16 * nblk, (u32)(L - 16 * nblk));
    snprintf(what, sizeof what, "%s keystream_blocks", v->name);
    tu_check_eq(out.p, ref, L, what);
    check_guards(&out, v->name);

    rijn_ecrypt_ctx_wipe(&ctx);
    tu_buf_free(&in);
    tu_buf_free(&out);
    free(zeros);
    free(ref);
}

static char *trim(char *s)
{
    char *e;
    while (*s == ' ' || *s == '\t')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = '\0';
    return s;
}

static int all_hex(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
              (*s >= 'A' && *s <= 'F')))
            return 0;
    return 1;
}

/* Stores a finished "name = hex" field into v; 0 on an unknown or bad one. */
static int store_field(vector *v, const char *name, const char *hex)
{
    unsigned long lo, hi;
    char tail;

    if (strcmp(name, "key") == 0) {
        v->keylen = tu_unhex(v->key, sizeof v->key, hex);
        return v->keylen >= 0;
    }
    if (strcmp(name, "IV") == 0) {
        v->ivlen = tu_unhex(v->iv, sizeof v->iv, hex);
        return v->ivlen >= 0;
    }
    if (strcmp(name, "xor-digest") == 0) {
        v->has_digest = tu_unhex(v->digest, sizeof v->digest, hex) == 64;
        return v->has_digest;
    }
    if (sscanf(name, "stream[%lu..%lu%c", &lo, &hi, &tail) == 3 &&
        tail == ']' && hi >= lo && hi - lo < 64 && v->nex < MAX_EXCERPTS) {
        excerpt *e = &v->ex[v->nex++];
        e->lo = lo;
        e->hi = hi;
        return tu_unhex(e->data, sizeof e->data, hex) == (long)(hi - lo + 1);
    }
    return 0;
}

static size_t run_file(const char *path)
{
    size_t flen, nvec = 0;
    char *text = ct_read_file(path, &flen); /* exits if it cannot */
    char *line, *next;
    vector v;
    int in_vec = 0;
    char fname[64] = "", fhex[1024] = "";
    int in_field = 0;

    memset(&v, 0, sizeof v);
    for (line = text; line != NULL; line = next) {
        char *t;
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        if (line[0] == '#')
            continue; /* provenance */
        t = trim(line);
        if (in_field && all_hex(t) && strlen(fhex) + strlen(t) < sizeof fhex) {
            strcat(fhex, t);
            continue;
        }
        if (in_field) {
            if (!store_field(&v, fname, fhex))
                tu_fail("unknown or malformed attribute \"%s\"", fname);
            in_field = 0;
        }
        if (strncmp(t, "Set ", 4) == 0 && strstr(t, "vector#") != NULL) {
            if (in_vec) {
                run_vector(&v);
                nvec++;
            }
            memset(&v, 0, sizeof v);
            snprintf(v.name, sizeof v.name, "%s", t);
            if (strchr(v.name, ':'))
                *strchr(v.name, ':') = '\0';
            in_vec = 1;
        } else if (in_vec && strstr(t, " = ") != NULL && t[0] != '=') {
            /* "name = hex"; underlines such as "=====" are not fields */
            char *eq = strstr(t, " = ") + 1;
            *eq = '\0';
            snprintf(fname, sizeof fname, "%s", trim(t));
            snprintf(fhex, sizeof fhex, "%s", trim(eq + 1));
            in_field = 1;
        }
    }
    if (in_field && !store_field(&v, fname, fhex))
        tu_fail("unknown or malformed attribute \"%s\"", fname);
    if (in_vec) {
        run_vector(&v);
        nvec++;
    }
    free(text);
    return nvec;
}

/* ------------------------------------------------------------------------
 * Constructed counter blocks: all key sizes, IV words near 2^32
 * --------------------------------------------------------------------- */
static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* The eSTREAM keystream computed block by block from first principles. */
static void oracle_stream(const rijn_aes_key *k, const unsigned char iv[16],
                          unsigned char *out, size_t len)
{
    unsigned char cb[16], blk[16];
    uint32_t c0 = le32(iv);
    size_t j;

    for (j = 0; 16 * j < len; j++) {
        size_t n = len - 16 * j < 16 ? len - 16 * j : 16;
        memcpy(cb, iv, 16);
        put_le32(cb, c0 + (uint32_t)j); /* mod 2^32; bytes 4..15 as given */
        rijn_aes_encrypt_blocks(k, blk, cb, 1);
        memcpy(out + 16 * j, blk, n);
    }
}

static void run_constructed(void)
{
    static const unsigned keybits[3] = {128, 192, 256};
    unsigned ki, trial;
    char what[160];

    for (ki = 0; ki < 3; ki++) {
        for (trial = 0; trial < 60; trial++) {
            unsigned char key[32], iv[16];
            rijn_aes_key ok;
            ECRYPT_ctx ctx;
            size_t len, i;
            unsigned char *pt, *want;
            tu_buf out;
            const char *kind;

            tu_rng_fill(&ct_rng, key, sizeof key);
            tu_rng_fill(&ct_rng, iv, sizeof iv);
            switch (trial % 4) {
            case 0:
                kind = "random IV";
                len = tu_rng_below(&ct_rng, 1200);
                break;
            case 1: /* wrap of the LE word; bytes 4..15 all ff: a carry shows */
                kind = "LE word near 2^32, bytes 4-15 ff";
                put_le32(iv,
                         0xFFFFFFFFu - (uint32_t)tu_rng_below(&ct_rng, 40));
                memset(iv + 4, 0xFF, 12);
                len = 16 * 45 + tu_rng_below(&ct_rng, 800);
                break;
            case 2:
                kind = "LE word near 2^32, bytes 4-15 random";
                put_le32(iv,
                         0xFFFFFFFFu - (uint32_t)tu_rng_below(&ct_rng, 40));
                len = 16 * 45 + tu_rng_below(&ct_rng, 800);
                break;
            default: /* a word that is near 2^32 only when read big-endian */
                kind = "BE-looking word ffffff00+x";
                iv[0] = iv[1] = iv[2] = 0xFF;
                iv[3] = (unsigned char)tu_rng_below(&ct_rng, 256);
                len = 16 * 20 + tu_rng_below(&ct_rng, 300);
                break;
            }
            pt = malloc(len + 1);
            want = malloc(len + 1);
            if (pt == NULL || want == NULL) {
                printf("out of memory\n");
                exit(1);
            }
            tu_rng_fill(&ct_rng, pt, len);
            if (ct_oracle_key(&ok, key, keybits[ki] / 8) != 0) {
                tu_fail("oracle key setup");
                exit(1);
            }
            oracle_stream(&ok, iv, want, len);
            for (i = 0; i < len; i++)
                want[i] ^= pt[i];

            ECRYPT_keysetup(&ctx, key, keybits[ki], 128);
            ct_check(rijn_ecrypt_ctx_ok(&ctx), "ECRYPT_keysetup ok", kind);
            check_impl(&ctx);
            tu_buf_init(&out, len, tu_rng_below(&ct_rng, 16));

            ECRYPT_ivsetup(&ctx, iv);
            enc_split(&ctx, pt, out.p, len);
            snprintf(what, sizeof what,
                     "AES-%u %s, %zu bytes, encrypt_bytes splits", keybits[ki],
                     kind, len);
            tu_check_eq(out.p, want, len, what);

            ECRYPT_ivsetup(&ctx, iv);
            ECRYPT_encrypt_bytes(&ctx, pt, out.p, (u32)len);
            snprintf(what, sizeof what, "AES-%u %s, %zu bytes, one call",
                     keybits[ki], kind, len);
            tu_check_eq(out.p, want, len, what);

            memcpy(out.p, pt, len);
            ECRYPT_encrypt_packet(&ctx, iv, out.p, out.p, (u32)len);
            snprintf(what, sizeof what,
                     "AES-%u %s, %zu bytes, encrypt_packet in place",
                     keybits[ki], kind, len);
            tu_check_eq(out.p, want, len, what);

            ECRYPT_ivsetup(&ctx, iv);
            ks_split(&ctx, out.p, len);
            for (i = 0; i < len; i++)
                out.p[i] ^= pt[i];
            snprintf(what, sizeof what,
                     "AES-%u %s, %zu bytes, keystream_bytes splits",
                     keybits[ki], kind, len);
            tu_check_eq(out.p, want, len, what);
            check_guards(&out, kind);

            rijn_ecrypt_ctx_wipe(&ctx);
            rijn_aes_key_wipe(&ok);
            tu_buf_free(&out);
            free(pt);
            free(want);
        }
    }
}

/* The wrap itself, spelled out: IV = ff..ff, block 1 must be E(00000000
 * ff..ff) (no carry), not E(00..00) as with a 128-bit counter. */
static void run_wrap_explicit(void)
{
    static const unsigned char key[16] = {1, 2, 3, 4, 5, 6, 7, 8,
                                          9, 10, 11, 12, 13, 14, 15, 16};
    unsigned char iv[16], cb[16], want[32], got[32];
    rijn_aes_key ok;
    ECRYPT_ctx ctx;

    memset(iv, 0xFF, 16);
    ct_oracle_key(&ok, key, 16);
    rijn_aes_encrypt_blocks(&ok, want, iv, 1);
    memset(cb, 0xFF, 16);
    memset(cb, 0x00, 4);
    rijn_aes_encrypt_blocks(&ok, want + 16, cb, 1);
    ECRYPT_keysetup(&ctx, key, 128, 128);
    ECRYPT_ivsetup(&ctx, iv);
    ECRYPT_keystream_bytes(&ctx, got, 32);
    tu_check_eq(got, want, 32, "IV ff..ff: second block is E(00000000ff..ff)");
    rijn_ecrypt_ctx_wipe(&ctx);
}

static void run_api(void)
{
    static const unsigned char key[32] = {0};
    ECRYPT_ctx ctx;
    unsigned i, n = 0;

    ECRYPT_init();
    for (i = 0; ECRYPT_KEYSIZE(i) <= ECRYPT_MAXKEYSIZE; i++)
        n++;
    ct_check(n == 3 && ECRYPT_KEYSIZE(0) == 128 && ECRYPT_KEYSIZE(1) == 192 &&
                 ECRYPT_KEYSIZE(2) == 256,
             "ECRYPT_KEYSIZE enumerates 128, 192, 256", NULL);
    ct_check(ECRYPT_IVSIZE(0) == 128 && ECRYPT_IVSIZE(1) > ECRYPT_MAXIVSIZE,
             "ECRYPT_IVSIZE enumerates 128", NULL);
    ct_check(ECRYPT_BLOCKLENGTH == 16, "ECRYPT_BLOCKLENGTH is 16", NULL);
    ECRYPT_keysetup(&ctx, key, 64, 128);
    ct_check(!rijn_ecrypt_ctx_ok(&ctx), "keysetup rejects a 64-bit key", NULL);
    ECRYPT_keysetup(&ctx, key, 128, 136);
    ct_check(!rijn_ecrypt_ctx_ok(&ctx), "keysetup rejects a 136-bit IV", NULL);
    for (i = 0; i < 3; i++) {
        ECRYPT_keysetup(&ctx, key, ECRYPT_KEYSIZE(i), ECRYPT_IVSIZE(0));
        ct_check(rijn_ecrypt_ctx_ok(&ctx), "keysetup accepts the key size",
                 NULL);
    }
    rijn_ecrypt_ctx_wipe(&ctx);
}

int main(int argc, char **argv)
{
    size_t nvec;

    if (argc != 2) {
        fprintf(stderr, "usage: %s aes128ctr-estream-sets1-4.txt\n", argv[0]);
        return 2;
    }
    backend = ct_begin(SUITE);
    tu_note("%s, profile %s", ECRYPT_NAME, ECRYPT_PROFILE);
    run_api();
    nvec = run_file(argv[1]);
    ct_check(nvec == 644, "all 644 vectors of sets 1-4 were run", NULL);
    tu_note("%zu eSTREAM vectors run", nvec);
    run_wrap_explicit();
    run_constructed();
    return tu_end();
}
