/*
 * gcm_race: the tag a decryption checks covers exactly the bytes it
 * decrypted, while another thread changes the input under it (the
 * decrypt rule of rijn_gcm.h; issue 19); and the tag an encryption makes
 * covers exactly the ciphertext it made, while another thread changes
 * the output under it (the encryption rule of rijn_gcm.h).
 *
 *   usage: test_gcm_race AES_BACKEND GHASH_ENGINE [--seed N] [--quick]
 *
 *   AES "default": the engine's fused backend where this CPU runs it,
 *   else the default backend (as in test_gcm_vectors). GHASH "default":
 *   the engine a key picks for the backend and, when that one has a
 *   fused kernel for it, also the best constant-time engine that has not,
 *   so that the mode's unfused loop runs with every backend too.
 *
 * A writer thread toggles one byte of the ciphertext between its value
 * and another, without pause, while the main thread decrypts the same
 * buffer again and again. The tag given is the tag of the unmodified
 * ciphertext, so a decryption that reads each byte once either sees the
 * original byte everywhere (the tag verifies, the output is the true
 * plaintext) or a changed one (the tag fails); one that reads a byte
 * twice can verify the tag over the original byte and XOR the keystream
 * with the changed one. The oracle, for every call:
 *   - accepted (0): the output is exactly the true plaintext;
 *   - rejected: one-shot and chunked outputs are all zero (rijn_gcm.h,
 *     rijn_seal.h); streaming output is discarded.
 * Any other result is a failure: zero exceptions.
 *
 * Encryptions (rijn_gcm_encrypt, rijn_gcm_seal, the streaming calls,
 * rijn_chunked_seal_chunk): the writer toggles one byte of the output
 * while the main thread encrypts the same plaintext into it again and
 * again. The oracle: every tag is the tag of the ciphertext (made once
 * before, with no writer). A kernel that hashes ciphertext it read back
 * from out after storing it hashes the writer's byte now and then, and
 * its tag differs (a writer of out would get a tag for bytes of its
 * choosing); one that hashes what it made never does.
 *
 * Cases, for each pairing: the byte in the first block, a middle block
 * and the last (partial or whole) block of messages that take every
 * path of src/modes/gcm.c and of the fused kernels: the short one-shot
 * path (up to 112 bytes), whole-block short messages (vpclmul-avx512's
 * fused short path), partial last blocks, lengths over several fused
 * batches (513..4100) and over the unfused loop's 4 KiB slices (5000,
 * 9000, 16400); through rijn_gcm_decrypt, rijn_gcm_open, the streaming
 * calls (random pieces, so the byte falls in the per-byte path, a
 * piece's whole blocks or its tail) and rijn_chunked_open_chunk (final
 * and full chunks; the chunked key is set up again with the pairing).
 *
 * And encryptions while a reader thread watches the caller's tag buffer
 * for E(J0), the tag's mask (mask_watch): never there.
 *
 * Each case runs for RIJN_RACE_MS milliseconds (default 10; 8 with
 * --quick, for qemu; 4 under AddressSanitizer; at least 4 calls). A line per API gives the
 * decryptions, those during which the byte changed ("contested"),
 * accepted, rejected and accepted-but-wrong; the last is the figure that
 * must be 0.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ghash/ghash.h"
#include "hash/hash.h"
#include "rijn_seal.h"
#include "gcm_pair.h"
#include "testutil.h"

enum {
    API_DECRYPT, API_OPEN, API_STREAM, API_CHUNKED,
    /* encryptions: the writer changes a byte of the output */
    API_ENCRYPT, API_SEAL, API_STREAM_ENC, API_CHUNKED_SEAL, N_API
};
#define IS_ENC(api) ((api) >= API_ENCRYPT)
static const char *const api_name[N_API] = {
    "rijn_gcm_decrypt", "rijn_gcm_open", "streaming",
    "rijn_chunked_open_chunk", "rijn_gcm_encrypt", "rijn_gcm_seal",
    "streaming encryption", "rijn_chunked_seal_chunk"};

typedef struct {
    unsigned long runs, contested, accepted, rejected, wrong, unwiped;
} tally;

static tally g_tally[N_API];
static tu_rng g_rng;
static double g_case_ms = 10;
static int g_quick;

/* ---- the writer ------------------------------------------------------- */

typedef struct {
    volatile uint8_t *p;  /* the byte it toggles */
    uint8_t a, b;         /* original and changed value */
    atomic_int stop;
    RIJN_ALIGN(64) atomic_ulong toggles; /* own cache line: read by main */
} writer;

static void *writer_run(void *arg)
{
    writer *w = arg;
    unsigned long n = 0;

    while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
        *w->p = w->b;
        *w->p = w->a;
        atomic_store_explicit(&w->toggles, ++n, memory_order_relaxed);
    }
    return NULL;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int all_zero(const uint8_t *p, size_t n)
{
    uint8_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= p[i];
    return d == 0;
}

/* ---- one case --------------------------------------------------------- */

/* What a case decrypts: the message, its ciphertext (in, len bytes, the
 * tag after it for open and chunked) and how. */
typedef struct {
    const rijn_gcm_key *k;
    const rijn_chunked *ch; /* API_CHUNKED */
    int api;
    const uint8_t *pt;
    uint8_t *in, *out;
    size_t len;
    uint8_t iv[12], aad[40], tag[16];
    size_t aad_len;
    size_t cuts[3];         /* API_STREAM: piece ends */
    uint64_t index;         /* API_CHUNKED */
    int final;
} job;

/* The streaming calls of j: start, AAD, the pieces (ends cuts[0..3),
 * then len) through update; returns 0, or -1 if a call failed. */
static int stream_pieces(const job *j, uint8_t *out, const uint8_t *in,
                         rijn_gcm_ctx *c,
                         int (*update)(rijn_gcm_ctx *, unsigned char *,
                                       const unsigned char *, size_t))
{
    size_t at = 0;

    if (rijn_gcm_start(c, j->k, j->iv, 12) != 0 ||
        rijn_gcm_aad(c, j->aad, j->aad_len) != 0)
        return -1;
    for (size_t i = 0; i <= 3; i++) {
        size_t end = i < 3 ? j->cuts[i] : j->len;
        if (update(c, out + at, in + at, end - at) != 0)
            return -1;
        at = end;
    }
    return 0;
}

/* One encryption of j->pt into j->out, its tag into tag; returns 0, or -1
 * if a call failed. */
static int encrypt_once(const job *j, uint8_t tag[16])
{
    switch (j->api) {
    case API_ENCRYPT:
        return rijn_gcm_encrypt(j->k, j->out, tag, 16, j->iv, 12, j->aad,
                                j->aad_len, j->pt, j->len);
    case API_SEAL:
        if (rijn_gcm_seal(j->k, j->out, 16, j->iv, 12, j->aad, j->aad_len,
                          j->pt, j->len) != 0)
            return -1;
        memcpy(tag, j->out + j->len, 16);
        return 0;
    case API_STREAM_ENC: {
        rijn_gcm_ctx c;
        if (stream_pieces(j, j->out, j->pt, &c, rijn_gcm_encrypt_update) != 0)
            return -1;
        return rijn_gcm_finish(&c, tag, 16);
    }
    default:
        if (rijn_chunked_seal_chunk(j->ch, j->index, j->final, j->out, j->pt,
                                    j->len) != RIJN_SEAL_OK)
            return -1;
        memcpy(tag, j->out + j->len, 16);
        return 0;
    }
}

/* One decryption; returns 1 accepted, 0 rejected, -1 for an error that is
 * neither (reported). */
static int decrypt_once(const job *j)
{
    switch (j->api) {
    case API_DECRYPT:
        return rijn_gcm_decrypt(j->k, j->out, j->tag, 16, j->iv, 12, j->aad,
                                j->aad_len, j->in, j->len) == 0;
    case API_OPEN:
        return rijn_gcm_open(j->k, j->out, 16, j->iv, 12, j->aad, j->aad_len,
                             j->in, j->len + 16) == 0;
    case API_STREAM: {
        rijn_gcm_ctx c;
        if (stream_pieces(j, j->out, j->in, &c, rijn_gcm_decrypt_update) != 0)
            return -1;
        return rijn_gcm_verify(&c, j->tag, 16) == 0;
    }
    default: {
        int r = rijn_chunked_open_chunk(j->ch, j->index, j->final, j->out,
                                        j->in, j->len + 16);
        return r == RIJN_SEAL_OK ? 1 : r == RIJN_SEAL_ECHUNK ? 0 : -1;
    }
    }
}

/*
 * Decrypt j over and over while a writer toggles in[pos], or encrypt it
 * while the writer toggles out[pos]; check each result against the
 * oracle (see the top). Returns 0 if no exception.
 */
static int race(const job *j, size_t pos, const char *pairing,
                const char *what)
{
    const int enc = IS_ENC(j->api);
    uint8_t *p = (enc ? j->out : j->in) + pos;
    writer w;
    pthread_t t;
    tally *ta = &g_tally[j->api];
    unsigned long wrong = 0, unwiped = 0, n = 0;
    size_t diff = 0; /* the first wrong byte of the first wrong output */
    double end;
    uint8_t mask;

    do
        mask = (uint8_t)tu_rng_next(&g_rng);
    while (mask == 0);
    memset(&w, 0, sizeof w);
    w.p = p;
    w.a = *p;
    w.b = (uint8_t)(w.a ^ mask);
    atomic_init(&w.stop, 0);
    atomic_init(&w.toggles, 0);
    if (pthread_create(&t, NULL, writer_run, &w) != 0) {
        tu_fail("pthread_create failed");
        return -1;
    }
    /* the clock starts before the writer runs: on a busy machine it may
     * start late (the contested count says how often it ran) */
    end = now_ms() + g_case_ms;
    while (n < 4 || now_ms() < end) {
        unsigned long t0 = atomic_load_explicit(&w.toggles,
                                                memory_order_relaxed);
        uint8_t tag[16];
        int r;
        if (enc) {
            r = encrypt_once(j, tag);
        } else {
            memset(j->out, 0xa5, j->len);
            r = decrypt_once(j);
        }
        n++;
        ta->runs++;
        if (atomic_load_explicit(&w.toggles, memory_order_relaxed) != t0)
            ta->contested++;
        if (enc) {
            if (r != 0) {
                tu_fail("%s: %s, %s: the call failed", pairing,
                        api_name[j->api], what);
                break;
            }
            /* the tag of the ciphertext made, whatever out holds now */
            if (memcmp(tag, j->tag, 16) != 0)
                ta->wrong++, wrong++;
            continue;
        }
        if (r < 0) {
            tu_fail("%s: %s, %s: an error that is neither accept nor "
                    "reject", pairing, api_name[j->api], what);
            break;
        }
        if (r == 1) {
            ta->accepted++;
            if (memcmp(j->out, j->pt, j->len) != 0) {
                ta->wrong++;
                if (wrong++ == 0)
                    while (j->out[diff] == j->pt[diff])
                        diff++;
            }
        } else {
            ta->rejected++;
            if (j->api != API_STREAM && !all_zero(j->out, j->len))
                ta->unwiped++, unwiped++;
        }
    }
    atomic_store(&w.stop, 1);
    pthread_join(t, NULL);
    *p = w.a;
    if (enc && wrong)
        tu_fail("%s: %s, %s: of %lu encryptions, %lu gave a tag other than "
                "that of the ciphertext made (bytes read back from out)",
                pairing, api_name[j->api], what, n, wrong);
    else if (wrong || unwiped)
        tu_fail("%s: %s, %s: of %lu decryptions, %lu accepted with other "
                "plaintext (first wrong byte %zu), %lu rejected without "
                "wiping the output", pairing, api_name[j->api], what, n,
                wrong, diff, unwiped);
    return wrong || unwiped ? -1 : 0;
}

/* The byte positions of a message of len bytes the writer toggles: one in
 * the first block, one in a middle block, one in the last block (the
 * partial one if there is one). */
static size_t positions(size_t len, size_t pos[3])
{
    size_t nb = (len + 15) / 16, n = 0;

    pos[n++] = (size_t)tu_rng_below(&g_rng, len < 16 ? len : 16);
    if (nb >= 3) {
        size_t b = nb / 2;
        pos[n++] = 16 * b + (size_t)tu_rng_below(&g_rng, 16);
    }
    if (nb >= 2)
        pos[n++] = 16 * (nb - 1) + (size_t)tu_rng_below(&g_rng,
                                                       len - 16 * (nb - 1));
    return n;
}

/*
 * Streaming pieces (ends cuts[0..3), then len) such that the piece that
 * holds byte pos takes it through one path of update() in gcm.c, picked
 * at random among those that can: the per-byte loop (the piece starts
 * inside pos's block, before it), the tail (it ends inside pos's block,
 * after it) or whole blocks (it covers pos's block).
 */
static void stream_cuts(size_t cuts[3], size_t len, size_t pos,
                        const char **path)
{
    const size_t blk = pos & ~(size_t)15;
    const size_t hi = blk + 15 < len ? blk + 15 : len; /* last tail end */
    int can[3], mode;

    can[0] = pos > blk;
    can[1] = pos + 1 <= hi;
    can[2] = blk + 16 <= len;
    do
        mode = (int)tu_rng_below(&g_rng, 3);
    while (!can[mode] && (can[0] || can[1] || can[2]));
    if (!can[mode]) {
        /* a message of one partial block, byte 0: one piece */
        cuts[0] = cuts[1] = 0;
        cuts[2] = len;
        *path = ", one piece";
        return;
    }
    if (mode == 0) {
        cuts[1] = blk + 1 + (size_t)tu_rng_below(&g_rng, pos - blk);
        cuts[2] = pos + 1 + (size_t)tu_rng_below(&g_rng, len - pos);
        *path = ", per-byte path";
    } else if (mode == 1) {
        cuts[1] = (size_t)tu_rng_below(&g_rng, blk + 1);
        cuts[2] = pos + 1 + (size_t)tu_rng_below(&g_rng, hi - pos);
        *path = ", a piece's tail";
    } else {
        cuts[1] = (size_t)tu_rng_below(&g_rng, blk + 1);
        cuts[2] = blk + 16 + (size_t)tu_rng_below(&g_rng, len - blk - 15);
        *path = ", a piece's whole blocks";
    }
    cuts[0] = (size_t)tu_rng_below(&g_rng, cuts[1] + 1);
}

/* ---- the chunked key -------------------------------------------------- */

/* Cobblestone-256's AES key for (key, context, salt) (rijn_seal.h,
 * doc/format.md), so that the chunked object can be set up with the
 * pairing under test; checked by opening a chunk sealed with the
 * library's own setup. */
static void chunk_aes_key(uint8_t out[32], const uint8_t key[32],
                          const uint8_t *ctx, size_t ctx_len,
                          const uint8_t salt[24])
{
    static const char prefix[] =
        "c2sp.org/chunked-encryption@v1+AEAD_AES_256_GCM";
    uint8_t info[sizeof prefix + 24 + 64], okm[76];

    memcpy(info, prefix, sizeof prefix); /* with its 0x00 */
    memcpy(info + sizeof prefix, salt, 24);
    memcpy(info + sizeof prefix + 24, ctx, ctx_len);
    rijn_hash_hkdf_expand(rijn_hash_find("sha512"), okm, sizeof okm, key, 32,
                          info, sizeof prefix + 24 + ctx_len);
    memcpy(out, okm, 32);
}

/* ---- one pairing ------------------------------------------------------ */

#define MAXLEN (RIJN_CHUNK + 64)

static uint8_t g_pt[MAXLEN];

/* ---- the tag's mask ---------------------------------------------------- */

/* A reader that watches 16 bytes for a value: reads counts its reads of
 * them (each one byte at a time, so a torn read is not a concern: any
 * read that finds the value counts), seen those that found it. */
typedef struct {
    const volatile uint8_t *p;
    uint8_t want[16];
    atomic_int stop;
    RIJN_ALIGN(64) atomic_ulong reads; /* own cache line: read by main */
    atomic_ulong seen;
} reader;

static void *reader_run(void *arg)
{
    reader *r = arg;
    unsigned long n = 0, seen = 0;

    while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
        uint8_t v[16];
        for (int i = 0; i < 16; i++)
            v[i] = r->p[i];
        seen += memcmp(v, r->want, 16) == 0;
        atomic_store_explicit(&r->reads, ++n, memory_order_relaxed);
    }
    atomic_store(&r->seen, seen);
    return NULL;
}

/*
 * Encryptions while another thread reads the caller's tag buffer
 * (rijn_gcm_encrypt's tag, rijn_gcm_seal's out + len) and looks for
 * E(J0), the tag's mask: with the tag written over it and the
 * ciphertext, the mask gives the GHASH value of a known message, a
 * polynomial in H whose roots an attacker can find, and then forge. The
 * `last` kernels keep E(J0) in their tag argument until the tag
 * overwrites it (ghash.h), so the mode has to give them memory of its
 * own. Lengths the last kernel takes, over whole batches and not.
 */
static void mask_watch(const rijn_gcm_key *k, const char *pairing,
                       uint8_t *buf)
{
    static const size_t lens[] = {113, 2049, 16400};
    RIJN_ALIGN(16) uint8_t tag[16];
    unsigned long watched = 0; /* reads during the calls, all cases */

    for (int seal = 0; seal <= 1; seal++) {
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            const size_t len = lens[li];
            uint8_t iv[12], j0[16];
            reader r;
            pthread_t t;
            unsigned long n = 0, r0, r1;
            double end;

            tu_rng_fill(&g_rng, iv, sizeof iv);
            memcpy(j0, iv, 12);
            memset(j0 + 12, 0, 3);
            j0[15] = 1;
            memset(&r, 0, sizeof r);
            rijn_aes_encrypt_blocks(&k->aes, r.want, j0, 1);
            r.p = seal ? buf + len : tag;
            memset(buf, 0, len + 16);
            memset(tag, 0, sizeof tag);
            atomic_init(&r.stop, 0);
            atomic_init(&r.reads, 0);
            atomic_init(&r.seen, 0);
            if (pthread_create(&t, NULL, reader_run, &r) != 0) {
                tu_fail("pthread_create failed");
                return;
            }
            /* the calls start once the reader reads (a busy machine, as
             * under ctest -j2, may start it late; a second at most) */
            end = now_ms() + 1000;
            while (atomic_load(&r.reads) == 0 && now_ms() < end)
                sched_yield();
            end = now_ms() + g_case_ms;
            r0 = atomic_load(&r.reads);
            while (n < 4 || now_ms() < end) {
                int rc = seal ? rijn_gcm_seal(k, buf, 16, iv, 12, NULL, 0,
                                              g_pt, len)
                              : rijn_gcm_encrypt(k, buf, tag, 16, iv, 12,
                                                 NULL, 0, g_pt, len);
                if (rc != 0) {
                    tu_fail("%s: the call failed", pairing);
                    break;
                }
                n++;
            }
            r1 = atomic_load(&r.reads);
            atomic_store(&r.stop, 1);
            pthread_join(t, NULL);
            watched += r1 - r0;
            if (atomic_load(&r.seen) != 0)
                tu_fail("%s: %s of %zu bytes: E(J0), the tag's mask, was in "
                        "the caller's buffer during the call (%lu of %lu "
                        "reads in %lu calls)", pairing,
                        seal ? "rijn_gcm_seal" : "rijn_gcm_encrypt", len,
                        (unsigned long)atomic_load(&r.seen), r1, n);
            else
                tu_note("%s: %s of %zu bytes: %lu calls, %lu reads of the "
                        "tag's place during them, never E(J0)", pairing,
                        seal ? "rijn_gcm_seal" : "rijn_gcm_encrypt", len, n,
                        r1 - r0);
        }
    }
    /* as for the writer: the reader must have run during the calls */
    if (watched == 0)
        tu_fail("%s: the reader never read the tag's place during the "
                "calls (no concurrency: the test proved nothing)", pairing);
    rijn_burn(tag, sizeof tag);
}

static void tally_print(const char *pairing)
{
    for (int a = 0; a < N_API; a++) {
        const tally *t = &g_tally[a];
        if (IS_ENC(a))
            tu_note("%s: %-23s %7lu encryptions, %7lu contested, %lu tags "
                    "other than the ciphertext's", pairing, api_name[a],
                    t->runs, t->contested, t->wrong);
        else
            tu_note("%s: %-23s %7lu decryptions, %7lu contested, %7lu "
                    "accepted, %7lu rejected, %lu accepted but wrong, %lu "
                    "rejected but not wiped", pairing, api_name[a], t->runs,
                    t->contested, t->accepted, t->rejected, t->wrong,
                    t->unwiped);
    }
}

static void run_pairing(const char *aes, const char *ghash)
{
    static const size_t lens[] = {1,    15,   16,   33,   48,   100,
                                  112,  113,  200,  513,  1000, 2049,
                                  4100, 5000, 9000, 16400};
    static const size_t quick_lens[] = {15, 16, 100, 113, 513, 2049, 5000};
    const size_t *ls = g_quick ? quick_lens : lens;
    const size_t nl = g_quick ? sizeof quick_lens / sizeof quick_lens[0]
                              : sizeof lens / sizeof lens[0];
    char pairing[80];
    rijn_gcm_key k;
    rijn_chunked ch;
    uint8_t key[32], ikey[32], salt[24], ctxt[16], ck[32];
    uint8_t *inm, *outm;
    unsigned long failures = tu_failures(), contested = 0;
    job j;

    snprintf(pairing, sizeof pairing, "%s+%s", aes, ghash);
    memset(g_tally, 0, sizeof g_tally);
    tu_rng_fill(&g_rng, key, sizeof key);
    if (rijn_gcm_setkey_impl(&k, key, 32, aes, ghash) != 0 ||
        strcmp(k.aes.impl->base.name, aes) != 0 ||
        strcmp(rijn_gcm_key_ghash(&k), ghash) != 0) {
        tu_fail("%s: key setup failed", pairing);
        return;
    }
    /* the chunked object with this pairing */
    tu_rng_fill(&g_rng, ikey, sizeof ikey);
    tu_rng_fill(&g_rng, salt, sizeof salt);
    tu_rng_fill(&g_rng, ctxt, sizeof ctxt);
    inm = malloc(MAXLEN + 16 + 64);
    outm = malloc(MAXLEN + 64);
    if (inm == NULL || outm == NULL) {
        tu_fail("out of memory");
        exit(1);
    }
    tu_rng_fill(&g_rng, g_pt, 100);
    chunk_aes_key(ck, ikey, ctxt, sizeof ctxt, salt);
    if (rijn_chunked_init_seal(&ch, ikey, ctxt, sizeof ctxt, salt) != 0 ||
        rijn_chunked_seal_chunk(&ch, 7, 1, inm, g_pt, 100) != 0) {
        tu_fail("%s: rijn_chunked_init_seal or seal_chunk failed", pairing);
        return;
    }
    /* set up again with the pairing: it must open what the library's
     * own setup sealed */
    rijn_gcm_key_wipe(&ch.key);
    if (rijn_gcm_setkey_impl(&ch.key, ck, 32, aes, ghash) != 0 ||
        rijn_chunked_open_chunk(&ch, 7, 1, outm, inm, 116) != 0 ||
        memcmp(outm, g_pt, 100) != 0) {
        tu_fail("%s: the chunked key set up with the pairing does not open "
                "a sealed chunk", pairing);
        return;
    }
    rijn_burn(ck, sizeof ck);
    memset(&j, 0, sizeof j);
    j.k = &k;
    j.ch = &ch;
    j.pt = g_pt;
    for (int api = 0; api < N_API; api++) {
        for (size_t li = 0; li < nl; li++) {
            size_t len = ls[li], pos[3], np;
            const char *path = "";
            char what[128];
            j.api = api;
            j.len = len;
            /* misaligned in and out, differently */
            j.in = inm + tu_rng_below(&g_rng, 64);
            j.out = outm + tu_rng_below(&g_rng, 64);
            tu_rng_fill(&g_rng, g_pt, len);
            tu_rng_fill(&g_rng, j.iv, sizeof j.iv);
            j.aad_len = len % 3 == 0 ? 0 : (size_t)tu_rng_below(&g_rng, 41);
            tu_rng_fill(&g_rng, j.aad, j.aad_len);
            if (api == API_CHUNKED || api == API_CHUNKED_SEAL) {
                /* a final chunk of len bytes, or a full one at 16400 */
                j.final = len < RIJN_CHUNK;
                j.len = j.final ? len : RIJN_CHUNK;
                j.index = tu_rng_below(&g_rng, 1000);
                j.aad_len = 0;
                if (rijn_chunked_seal_chunk(&ch, j.index, j.final, j.in,
                                            g_pt, j.len) != 0) {
                    tu_fail("%s: rijn_chunked_seal_chunk failed", pairing);
                    continue;
                }
                len = j.len;
                memcpy(j.tag, j.in + len, 16); /* for the encryptions */
            } else {
                rijn_gcm_encrypt(&k, j.in, j.tag, 16, j.iv, 12, j.aad,
                                 j.aad_len, g_pt, len);
                memcpy(j.in + len, j.tag, 16); /* for open */
            }
            np = positions(len, pos);
            for (size_t p = 0; p < np; p++) {
                const int stream = api == API_STREAM || api == API_STREAM_ENC;
                const int chunked = api == API_CHUNKED ||
                                    api == API_CHUNKED_SEAL;
                if (stream)
                    stream_cuts(j.cuts, len, pos[p], &path);
                snprintf(what, sizeof what, "%zu bytes, aad %zu, byte %zu%s%s",
                         len, j.aad_len, pos[p],
                         chunked ? (j.final ? " (final chunk)"
                                            : " (full chunk)")
                                 : "",
                         stream ? path : "");
                race(&j, pos[p], pairing, what);
            }
        }
    }
    tally_print(pairing);
    mask_watch(&k, pairing, outm);
    for (int a = 0; a < N_API; a++)
        contested += g_tally[a].contested;
    /* the writer must have run during the decryptions */
    if (contested == 0)
        tu_fail("%s: the writer never changed the byte during a "
                "decryption (no concurrency: the test proved nothing)",
                pairing);
    if (tu_failures() == failures)
        tu_pass();
    rijn_chunked_wipe(&ch);
    rijn_gcm_key_wipe(&k);
    free(inm);
    free(outm);
}

/* The best runnable constant-time engine without a fused kernel for aes
 * (NULL if none). */
static const char *unfused_engine(const char *aes)
{
    const rijn_ghash_engine *best = NULL;
    rijn_impl_info info;

    for (size_t i = 0; rijn_gcm_impl_get(i, &info) == 0; i++) {
        const rijn_ghash_engine *e = rijn_ghash_find(info.name);
        if (e == NULL || !info.available || !e->base.constant_time ||
            (e->fused_aes != NULL && strcmp(e->fused_aes, aes) == 0))
            continue;
        if (best == NULL || e->base.rank > best->base.rank)
            best = e;
    }
    return best != NULL ? best->base.name : NULL;
}

int main(int argc, char **argv)
{
    uint64_t seed = tu_seed_from_args(&argc, argv);
    const char *aes, *ghash, *env = getenv("RIJN_RACE_MS");
    int two = 0;

    if (argc == 4 && strcmp(argv[3], "--quick") == 0) {
        g_quick = 1;
        g_case_ms = 8;
        argc--;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: test_gcm_race AES GHASH [--seed N] "
                        "[--quick]\n");
        return 2;
    }
#if defined(__SANITIZE_ADDRESS__)
    g_case_ms = 4;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    g_case_ms = 4;
#endif
#endif
    if (env != NULL && *env != '\0')
        g_case_ms = atof(env);
    aes = argv[1];
    ghash = argv[2];
    {
        /* a backend's own fused pairing: its unfused loop runs too */
        const int picked = strcmp(ghash, "default") == 0;
        const rijn_ghash_engine *e = gcm_pair_begin("gcm_race", &aes, &ghash);
        if (e == NULL)
            return tu_end();
        two = picked && e->fused_aes != NULL && strcmp(e->fused_aes, aes) == 0;
    }
    tu_note("%.0f ms per case", g_case_ms);
    tu_rng_seed(&g_rng, seed);
    run_pairing(aes, ghash);
    if (two) {
        const char *u = unfused_engine(aes);
        if (u != NULL)
            run_pairing(aes, u);
        else
            tu_note("no other engine runs here: the unfused loop is not "
                    "run with %s", aes);
    }
    return tu_end();
}
