/*
 * gcm_props: AES-GCM on one AES backend and GHASH engine against the
 * oracle (the byte-wise ref backend with the bit-by-bit ref engine), and
 * the properties of the API.
 *
 *   usage: test_gcm_props AES_BACKEND GHASH_ENGINE [--seed N] [--quick]
 *   ("default" as in test_gcm_vectors)
 *
 *   - one shot, every plaintext length 0..4096 (and 16 KiB + 0..17), AAD
 *     of every length 0..600, key sizes in turn, 12-byte and other IVs;
 *     AAD of 0..80 bytes ending at an inaccessible page, with messages
 *     the last kernel takes (113 B to 4 KiB);
 *   - streaming: every split point in two pieces for every length 0..600
 *     and around 1, 2, 4 and 8 KiB (tails hashed with the wrong power of H
 *     and partial vectors show there, and not at multiples of 512); three
 *     random pieces for every length 0..4096; AAD split at every point;
 *     AAD of 0..65 bytes with first pieces of 0..113 (whole-message
 *     path) and more pieces after; longer first pieces (up to 2 KiB
 *     taken whole by the last kernel, and just past that) with and
 *     without a partial block, then pieces of 0..100 bytes;
 *   - in place, and every input/output alignment 0..15 and 63, with guard
 *     bytes around every output;
 *   - IVs of 1..64 bytes, and counter wraps: IVs constructed so that J0
 *     ends in ff ff ff f0..ff, messages crossing the 32-bit wrap (inc32
 *     must wrap within the low 32 bits: a 128-bit carry, the JDK's
 *     CVE-2018-2972, fails here against the oracle, and in gcm_openssl);
 *   - every single-bit flip of the tag, the ciphertext and the AAD is
 *     rejected and the output wiped; decrypt never writes past its output;
 *   - the API's rules: IV of 0 bytes, tag lengths 0..11 and 17, calls out
 *     of order, all refused; open with a refused tag length wipes its
 *     output (in_len - tag_len bytes, not one more);
 *   - the limits (2^36 - 32 bytes of data, 2^61 - 1 of AAD): one-shot
 *     encrypt, decrypt, seal and open over them return -1 before touching
 *     their (small, real) buffers (64-bit size_t only); streaming with the
 *     context's counters set just below them: exactly at the limit passes
 *     and gives the oracle's tag, one byte (or SIZE_MAX bytes) over it is
 *     refused, writes nothing and fails the context;
 *   - rijn_gcm_key_wipe zeroes the whole key object (also one set up again
 *     with a smaller layout), rijn_gcm_wipe the whole context, and finish
 *     and verify every secret field of theirs.
 * --quick (cross builds under qemu) runs fewer lengths.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ghash/ghash.h"
#include "gcm_pair.h"
#include "testutil.h"

static const char *g_aes, *g_ghash;
static int g_quick;
static tu_rng g_rng;

#define MAXLEN (16384 + 64)

static uint8_t g_pt[MAXLEN], g_aad[1024];

/* The pairing under test and the oracle, for one key. */
typedef struct {
    rijn_gcm_key k, o;
    uint8_t key[32];
    size_t kl;
} keys;

static int keys_set(keys *ks, size_t kl)
{
    ks->kl = kl;
    tu_rng_fill(&g_rng, ks->key, kl);
    if (rijn_gcm_setkey_impl(&ks->k, ks->key, kl, g_aes, g_ghash) != 0 ||
        rijn_gcm_setkey_impl(&ks->o, ks->key, kl, "ref", "ref") != 0) {
        tu_fail("key setup failed (%s/%s or ref/ref)", g_aes, g_ghash);
        return -1;
    }
    return 0;
}

static void keys_wipe(keys *ks)
{
    rijn_gcm_key_wipe(&ks->k);
    rijn_gcm_key_wipe(&ks->o);
}

static uint8_t g_out[MAXLEN + 16], g_want[MAXLEN + 16];

/* One shot against the oracle: ciphertext and tag, then decryption;
 * the AAD at aad. */
static int oneshot_at(const keys *ks, const uint8_t *iv, size_t il,
                      const uint8_t *aad, size_t al, size_t len,
                      const char *what)
{
    uint8_t tag[16], wtag[16];
    char msg[160];

    rijn_gcm_encrypt(&ks->o, g_want, wtag, 16, iv, il, aad, al, g_pt, len);
    if (rijn_gcm_encrypt(&ks->k, g_out, tag, 16, iv, il, aad, al, g_pt,
                         len) != 0) {
        tu_fail("%s: encrypt failed (len %zu)", what, len);
        return 0;
    }
    snprintf(msg, sizeof msg, "%s: AES-%zu len %zu aad %zu iv %zu ct", what,
             8 * ks->kl, len, al, il);
    if (!tu_check_eq(g_out, g_want, len, msg))
        return 0;
    snprintf(msg, sizeof msg, "%s: AES-%zu len %zu aad %zu iv %zu tag", what,
             8 * ks->kl, len, al, il);
    if (!tu_check_eq(tag, wtag, 16, msg))
        return 0;
    if (rijn_gcm_decrypt(&ks->k, g_out, tag, 16, iv, il, aad, al, g_want,
                         len) != 0 ||
        memcmp(g_out, g_pt, len) != 0) {
        tu_fail("%s: decrypt of the oracle's ciphertext (len %zu)", what, len);
        return 0;
    }
    return 1;
}

/* oneshot_at with the AAD at g_aad */
static int oneshot(const keys *ks, const uint8_t *iv, size_t il, size_t al,
                   size_t len, const char *what)
{
    return oneshot_at(ks, iv, il, g_aad, al, len, what);
}

static uint8_t g_wtag[16];

/* The oracle's ciphertext and tag into g_want, g_wtag. */
static void oracle(const keys *ks, const uint8_t *iv, size_t il, size_t al,
                   size_t len)
{
    rijn_gcm_encrypt(&ks->o, g_want, g_wtag, 16, iv, il, g_aad, al, g_pt,
                     len);
}

/* Streaming in the pieces cuts[0..n) of the data (and AAD split at a1),
 * against the oracle's result for the same message (oracle() first). */
static int pieces(const keys *ks, const uint8_t *iv, size_t il, size_t al,
                  size_t a1, size_t len, const size_t *cuts, size_t n,
                  int decrypt, const char *what)
{
    rijn_gcm_ctx c;
    uint8_t tag[16];
    const uint8_t *wtag = g_wtag;
    size_t at = 0;

    if (rijn_gcm_start(&c, &ks->k, iv, il) != 0 ||
        rijn_gcm_aad(&c, g_aad, a1) != 0 ||
        rijn_gcm_aad(&c, g_aad + a1, al - a1) != 0)
        goto bad;
    for (size_t i = 0; i <= n; i++) {
        size_t end = i < n ? cuts[i] : len;
        int r = decrypt ? rijn_gcm_decrypt_update(&c, g_out + at,
                                                  g_want + at, end - at)
                        : rijn_gcm_encrypt_update(&c, g_out + at, g_pt + at,
                                                  end - at);
        if (r != 0)
            goto bad;
        at = end;
    }
    if (decrypt) {
        if (rijn_gcm_verify(&c, wtag, 16) != 0 ||
            memcmp(g_out, g_pt, len) != 0)
            goto bad;
    } else {
        if (rijn_gcm_finish(&c, tag, 16) != 0 ||
            memcmp(g_out, g_want, len) != 0 || memcmp(tag, wtag, 16) != 0)
            goto bad;
    }
    return 1;
bad:
    tu_fail("%s: streaming %s, len %zu aad %zu (split at %zu), %zu cuts "
            "(first %zu)", what, decrypt ? "decryption" : "encryption", len,
            al, a1, n, n ? cuts[0] : 0);
    return 0;
}

static void lengths(void)
{
    keys ks;
    uint8_t iv[12];
    unsigned long bad = tu_failures();
    const size_t top = g_quick ? 600 : 4096;

    for (size_t len = 0; len <= top; len++) {
        if (len % 512 == 0 && keys_set(&ks, 16 + 8 * (len / 512 % 3)) != 0)
            return;
        tu_rng_fill(&g_rng, iv, sizeof iv);
        if (!oneshot(&ks, iv, 12, len % 61, len, "lengths"))
            break;
        if (len % 512 == 511)
            keys_wipe(&ks);
    }
    if (top % 512 != 511)
        keys_wipe(&ks);
    if (keys_set(&ks, 32) != 0)
        return;
    for (size_t len = 16384; len <= 16384 + 17; len++) {
        tu_rng_fill(&g_rng, iv, sizeof iv);
        if (!oneshot(&ks, iv, 12, 20, len, "long"))
            break;
    }
    for (size_t al = 0; al <= 600; al++) {
        tu_rng_fill(&g_rng, iv, sizeof iv);
        if (!oneshot(&ks, iv, 12, al, al % 37, "aad lengths"))
            break;
    }
    keys_wipe(&ks);
    if (tu_failures() == bad)
        tu_pass();
}

/*
 * The one-shot short path (gcm.c, and the engines' oneshot kernels):
 * every data length 0..113 with every AAD length 0..65 (one past each
 * limit, so the longer path is met too), each key size, 12-byte IVs and
 * other lengths, out of place with guard bytes around the output, and in
 * place; decryption of the oracle's ciphertext each time.
 */
static void short_messages(void)
{
    static const size_t ivls[] = {12, 12, 12, 1, 16, 60};
    keys ks;
    uint8_t iv[64], tag[16], wtag[16];
    unsigned long bad = tu_failures();
    char msg[160];

    for (size_t kl = 16; kl <= 32; kl += 8) {
        if (keys_set(&ks, kl) != 0)
            return;
        for (size_t len = 0; len <= RIJN_GCM_SHORT_DATA + 1; len++) {
            for (size_t al = 0; al <= RIJN_GCM_SHORT_AAD + 1;
                 al += g_quick ? 3 : 1) {
                const size_t il = ivls[(len + al) % 6];
                tu_buf out;
                tu_rng_fill(&g_rng, iv, il);
                rijn_gcm_encrypt(&ks.o, g_want, wtag, 16, iv, il, g_aad, al,
                                 g_pt, len);
                tu_buf_init(&out, len, (len + al) % 32);
                rijn_gcm_encrypt(&ks.k, out.p, tag, 16, iv, il, g_aad, al,
                                 g_pt, len);
                snprintf(msg, sizeof msg, "short: AES-%zu len %zu aad %zu "
                         "iv %zu", 8 * kl, len, al, il);
                if (!tu_check_eq(out.p, g_want, len, msg) ||
                    !tu_check_eq(tag, wtag, 16, msg) ||
                    !tu_buf_guards_ok(&out, msg)) {
                    tu_buf_free(&out);
                    goto done;
                }
                /* in place, decrypting the oracle's ciphertext */
                memcpy(out.p, g_want, len);
                if (rijn_gcm_decrypt(&ks.k, out.p, wtag, 16, iv, il, g_aad,
                                     al, out.p, len) != 0 ||
                    !tu_check_eq(out.p, g_pt, len, msg) ||
                    !tu_buf_guards_ok(&out, msg)) {
                    tu_fail("%s: in-place decryption", msg);
                    tu_buf_free(&out);
                    goto done;
                }
                /* a flipped tag bit: refused, the output zeroed */
                wtag[(len + al) % 16] ^= 0x10;
                if (rijn_gcm_decrypt(&ks.k, out.p, wtag, 16, iv, il, g_aad,
                                     al, g_want, len) == 0) {
                    tu_fail("%s: a wrong tag is accepted", msg);
                    tu_buf_free(&out);
                    goto done;
                }
                tu_buf_free(&out);
            }
        }
        keys_wipe(&ks);
    }
done:
    keys_wipe(&ks);
    if (tu_failures() == bad)
        tu_pass();
}

static void splits(void)
{
    keys ks;
    uint8_t iv[12];
    unsigned long bad = tu_failures();
    static const size_t around[] = {1023, 1024, 1025, 2047, 2048, 2049,
                                    4095, 4096, 4097, 8191, 8192, 8193};
    size_t top = g_quick ? 80 : 600;

    if (keys_set(&ks, 16) != 0)
        return;
    tu_rng_fill(&g_rng, iv, sizeof iv);
    for (size_t len = 0; len <= top; len++) {
        oracle(&ks, iv, 12, 33, len);
        for (size_t cut = 0; cut <= len; cut++)
            if (!pieces(&ks, iv, 12, 33, 17, len, &cut, 1, cut & 1, "split"))
                goto out;
    }
    for (size_t i = 0; i < sizeof around / sizeof around[0]; i++) {
        size_t len = around[i], step = g_quick ? 97 : 1;
        oracle(&ks, iv, 12, 16, len);
        for (size_t cut = 0; cut <= len; cut += step)
            if (!pieces(&ks, iv, 12, 16, 7, len, &cut, 1, cut & 1, "split"))
                goto out;
    }
    for (size_t len = 0; len <= (g_quick ? 600u : 4096u); len++) {
        size_t cuts[2];
        cuts[0] = (size_t)tu_rng_below(&g_rng, len + 1);
        cuts[1] = cuts[0] + (size_t)tu_rng_below(&g_rng, len - cuts[0] + 1);
        oracle(&ks, iv, 12, 40, len);
        if (!pieces(&ks, iv, 12, 40, 40 - len % 41, len, cuts, 2, len & 1,
                    "three pieces"))
            goto out;
    }
    /* AAD of 0..65 bytes and a first piece of 0..113: the pairs gcm.c
     * takes as a whole message (one-shot kernel) until a second piece
     * comes, which then goes on from the context (both directions) */
    for (size_t al = 0; al <= 65; al++) {
        static const size_t lens[] = {0, 1, 15, 16, 17, 47, 64, 79, 80,
                                      95, 112, 113, 127, 200};
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
            const size_t len = lens[i];
            size_t cuts[2] = {len, len};
            oracle(&ks, iv, 12, al, len);
            for (size_t f = 0; f <= len && f <= 113; f += 1 + f / 4) {
                cuts[0] = f;
                cuts[1] = f + (len - f) / 3;
                if (!pieces(&ks, iv, 12, al, al, len, cuts, 2, (al + f) & 1,
                            "whole-message first piece"))
                    goto out;
            }
        }
    }
    /* a longer first piece, which gcm.c takes whole with the last kernel
     * (fused engines, up to TAG_AHEAD_MAX) until another piece comes, and then recovers the
     * state from the tag: the first piece with and without a partial
     * block, then pieces that end inside the block that completes it,
     * inside the next one, and beyond (the debt of gcm.c settled in one
     * piece or over several), both directions */
    for (size_t ai = 0; ai < 7; ai++) {
        /* (up to 64 bytes the kernel hashes the AAD from buf itself) */
        static const size_t als[] = {0, 1, 13, 16, 64, 65, 200};
        static const size_t firsts[] = {113, 127, 128, 129, 200, 256, 1420,
                                        2047, 2048, 2049};
        static const size_t steps[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, 100};
        const size_t al = als[ai];
        for (size_t fi = 0; fi < sizeof firsts / sizeof firsts[0]; fi++)
            for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
                for (size_t j = 0; j < sizeof steps / sizeof steps[0];
                     j += g_quick ? 3 : 1) {
                    const size_t f = firsts[fi];
                    size_t cuts[3] = {f, f + steps[i], f + steps[i] + steps[j]};
                    const size_t len = cuts[2] + 7;
                    oracle(&ks, iv, 12, al, len);
                    if (!pieces(&ks, iv, 12, al, al / 2, len, cuts, 3,
                                (fi + i + j) & 1, "last-kernel first piece"))
                        goto out;
                }
    }
    oracle(&ks, iv, 12, 100, 50);
    for (size_t a1 = 0; a1 <= 100; a1++)
        if (!pieces(&ks, iv, 12, 100, a1, 50, NULL, 0, a1 & 1, "aad split"))
            goto out;
out:
    keys_wipe(&ks);
    if (tu_failures() == bad)
        tu_pass();
}

/* In place and every alignment, guard bytes around the output. */
static void alignment(void)
{
    keys ks;
    uint8_t iv[12], tag[16], wtag[16];
    unsigned long bad = tu_failures();
    static const size_t lens[] = {0, 1, 15, 16, 17, 63, 64, 65, 255, 256,
                                  257, 1000, 3000};

    if (keys_set(&ks, 24) != 0)
        return;
    tu_rng_fill(&g_rng, iv, sizeof iv);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t len = lens[li];
        rijn_gcm_encrypt(&ks.o, g_want, wtag, 16, iv, 12, g_aad, 13, g_pt,
                         len);
        for (size_t a = 0; a <= 16; a++) {
            size_t align = a == 16 ? 63 : a;
            tu_buf in, out;
            tu_buf_init(&in, len, align);
            tu_buf_init(&out, len, (align * 7) % 16);
            memcpy(in.p, g_pt, len);
            rijn_gcm_encrypt(&ks.k, out.p, tag, 16, iv, 12, g_aad, 13, in.p,
                             len);
            tu_check_eq(out.p, g_want, len, "aligned ciphertext");
            tu_check_eq(tag, wtag, 16, "aligned tag");
            tu_buf_guards_ok(&out, "encrypt output guards");
            /* in place */
            rijn_gcm_encrypt(&ks.k, in.p, tag, 16, iv, 12, g_aad, 13, in.p,
                             len);
            tu_check_eq(in.p, g_want, len, "in-place ciphertext");
            if (rijn_gcm_decrypt(&ks.k, in.p, tag, 16, iv, 12, g_aad, 13,
                                 in.p, len) != 0)
                tu_fail("in-place decrypt failed");
            tu_check_eq(in.p, g_pt, len, "in-place plaintext");
            tu_buf_guards_ok(&in, "in-place guards");
            tu_buf_free(&in);
            tu_buf_free(&out);
        }
    }
    keys_wipe(&ks);
    if (tu_failures() == bad)
        tu_pass();
}

/* a = b . c in GF(2^128), with the ref engine (blocks: y = (y ^ x) H). */
static void gf_mul(uint8_t a[16], const uint8_t b[16], const uint8_t c[16])
{
    const rijn_ghash_engine *e = rijn_ghash_find("ref");
    uint64_t hk[2];
    uint8_t y[16] = {0};

    e->init(hk, c);
    e->blocks(hk, y, b, 1);
    memcpy(a, y, 16);
}

/* h^-1 = h^(2^128 - 2) by square and multiply. */
static void gf_inv(uint8_t r[16], const uint8_t h[16])
{
    uint8_t x[16], p[16];

    memset(x, 0, 16);
    x[0] = 0x80; /* the field's 1 (bit 0 is the leftmost) */
    memcpy(p, h, 16);
    /* exponent 2^128 - 2: bits 1..127 set */
    for (int i = 1; i < 128; i++) {
        gf_mul(p, p, p); /* p = h^(2^i) */
        gf_mul(x, x, p);
    }
    memcpy(r, x, 16);
}

/* IVs from 1 to 64 bytes, and IVs whose J0 ends in ff ff ff xx: J0 =
 * ((X . H) ^ L) . H for a one-block IV X and length block L, so X =
 * ((J0 . H^-1) ^ L) . H^-1. */
static void ivs(void)
{
    keys ks;
    uint8_t iv[64], h[16], hi[16], j0[16], x[16], l[16] = {0};
    static const uint8_t zero[16];
    unsigned long bad = tu_failures();

    if (keys_set(&ks, 16) != 0)
        return;
    for (size_t il = 1; il <= 64; il++) {
        tu_rng_fill(&g_rng, iv, il);
        for (size_t len = 0; len < 80; len += 13)
            if (!oneshot(&ks, iv, il, il % 20, len, "iv lengths"))
                goto out;
    }
    rijn_aes_encrypt_blocks(&ks.k.aes, h, zero, 1);
    gf_inv(hi, h);
    gf_mul(x, h, hi);
    if (x[0] != 0x80 || memcmp(x + 1, zero, 15) != 0) {
        tu_fail("H . H^-1 is not 1");
        goto out;
    }
    l[15] = 128; /* a 16-byte IV: 128 bits */
    for (unsigned low = 0xf0; low <= 0xff; low++) {
        tu_rng_fill(&g_rng, j0, 12);
        j0[12] = j0[13] = j0[14] = 0xff;
        j0[15] = (uint8_t)low;
        gf_mul(x, j0, hi);
        rijn_xor_bytes(x, x, l, 16);
        gf_mul(x, x, hi);
        /* (check) GHASH of this IV gives j0 */
        gf_mul(iv, x, h);
        rijn_xor_bytes(iv, iv, l, 16);
        gf_mul(iv, iv, h);
        if (memcmp(iv, j0, 16) != 0) {
            tu_fail("the constructed IV does not give J0");
            goto out;
        }
        /* 300 blocks from J0 + 1: the counter wraps within them */
        if (!oneshot(&ks, x, 16, 7, 300 * 16 + 5, "counter wrap"))
            goto out;
        oracle(&ks, x, 16, 7, 300 * 16 + 5);
        if (!pieces(&ks, x, 16, 7, 3, 300 * 16 + 5,
                    (const size_t[]){16 * (0x100 - low) + 9}, 1, low & 1,
                    "counter wrap"))
            goto out;
    }
out:
    keys_wipe(&ks);
    if (tu_failures() == bad)
        tu_pass();
}

static int all_zero(const uint8_t *p, size_t n)
{
    uint8_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= p[i];
    return d == 0;
}

/* Every bit flip of tag, ciphertext and AAD is rejected, output wiped. */
/*
 * AAD of 0..80 bytes ending where an inaccessible page begins, with data
 * long enough for the last kernel (which hashes an AAD of up to 64 bytes
 * itself, ghash.h): a read past the AAD faults; and against the oracle.
 */
static void aad_page_end(void)
{
    static const size_t lens[] = {113, 128, 255, 256, 511, 512, 513,
                                  1420, 4096 + 13};
    const long page = sysconf(_SC_PAGESIZE);
    unsigned long bad = tu_failures();
    uint8_t iv[12], *map, *end;
    keys ks;

    map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED ||
        mprotect(map + page, (size_t)page, PROT_NONE) != 0) {
        tu_fail("aad at a page end: mmap/mprotect failed");
        return;
    }
    end = map + page;
    tu_rng_fill(&g_rng, map, (size_t)page);
    for (size_t kl = 16; kl <= 32 && tu_failures() == bad; kl += 16) {
        if (keys_set(&ks, kl) != 0)
            break;
        for (size_t al = 0; al <= 80 && tu_failures() == bad; al++)
            for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
                if (g_quick && i % 3 != al % 3)
                    continue;
                tu_rng_fill(&g_rng, iv, sizeof iv);
                if (!oneshot_at(&ks, iv, 12, end - al, al, lens[i],
                                "aad at a page end"))
                    break;
            }
        keys_wipe(&ks);
    }
    munmap(map, 2 * (size_t)page);
    if (tu_failures() == bad)
        tu_pass();
}

static void flips(void)
{
    keys ks;
    uint8_t iv[12], ct[70], tag[16], aad[21], out[70 + 64];
    unsigned long bad = tu_failures(), n = 0;

    if (keys_set(&ks, 32) != 0)
        return;
    tu_rng_fill(&g_rng, iv, sizeof iv);
    tu_rng_fill(&g_rng, aad, sizeof aad);
    rijn_gcm_encrypt(&ks.k, ct, tag, 16, iv, 12, aad, sizeof aad, g_pt,
                     sizeof ct);
    for (size_t field = 0; field < 3; field++) {
        uint8_t *p = field == 0 ? tag : field == 1 ? ct : aad;
        size_t bytes = field == 0 ? 16 : field == 1 ? sizeof ct : sizeof aad;
        for (size_t bit = 0; bit < 8 * bytes; bit++) {
            p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            memset(out, 0xaa, sizeof out);
            if (rijn_gcm_decrypt(&ks.k, out, tag, 16, iv, 12, aad, sizeof aad,
                                 ct, sizeof ct) != -1 ||
                !all_zero(out, sizeof ct)) {
                tu_fail("flip of bit %zu of the %s accepted or not wiped",
                        bit, field == 0 ? "tag" : field == 1 ? "ciphertext"
                                                             : "AAD");
                goto out;
            }
            for (size_t i = sizeof ct; i < sizeof out; i++)
                if (out[i] != 0xaa) {
                    tu_fail("decrypt wrote past its output");
                    goto out;
                }
            p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            n++;
        }
    }
    /* unflipped: accepted */
    if (rijn_gcm_decrypt(&ks.k, out, tag, 16, iv, 12, aad, sizeof aad, ct,
                         sizeof ct) != 0 ||
        memcmp(out, g_pt, sizeof ct) != 0)
        tu_fail("the untouched message is rejected");
    /* a shortened tag of 12..15 bytes verifies as a prefix, not beyond */
    for (size_t tl = 12; tl < 16; tl++)
        if (rijn_gcm_decrypt(&ks.k, out, tag, tl, iv, 12, aad, sizeof aad, ct,
                             sizeof ct) != 0)
            tu_fail("the %zu-byte prefix of the tag is rejected", tl);
out:
    keys_wipe(&ks);
    tu_note("%lu bit flips rejected", n);
    if (tu_failures() == bad)
        tu_pass();
}

static int all_are(const uint8_t *p, size_t n, uint8_t v);

/* The rules of the API. */
static void rules(void)
{
    keys ks;
    uint8_t iv[12] = {0}, tag[17], out[32];
    rijn_gcm_ctx c;
    unsigned long bad = tu_failures();

    if (keys_set(&ks, 16) != 0)
        return;
    for (size_t tl = 0; tl <= 17; tl++) {
        int want = tl >= 12 && tl <= 16 ? 0 : -1;
        if (rijn_gcm_encrypt(&ks.k, out, tag, tl, iv, 12, NULL, 0, g_pt,
                             32) != want)
            tu_fail("encrypt with a %zu-byte tag", tl);
        if (rijn_gcm_start(&c, &ks.k, iv, 12) != 0 ||
            rijn_gcm_finish(&c, tag, tl) != want)
            tu_fail("finish with a %zu-byte tag", tl);
    }
    /* open with a refused tag length wipes out[0..in_len - tag_len), the
     * output its caller's buffer holds for that tag_len (rijn_gcm.h), and
     * nothing past it; in_len < tag_len: nothing written */
    for (size_t tl = 0; tl <= 17; tl++) {
        uint8_t in[40], o[48];
        if (tl >= 12 && tl <= 16)
            continue;
        rijn_gcm_seal(&ks.k, in, 16, iv, 12, NULL, 0, g_pt, 24);
        memset(o, 0xa5, sizeof o);
        if (rijn_gcm_open(&ks.k, o, tl, iv, 12, NULL, 0, in, sizeof in) !=
                -1 ||
            !all_zero(o, sizeof in - tl) ||
            !all_are(o + sizeof in - tl, sizeof o - (sizeof in - tl), 0xa5))
            tu_fail("open with a %zu-byte tag: accepted, or out[0..%zu) not "
                    "wiped, or written past it", tl, sizeof in - tl);
    }
    memset(out, 0xa5, sizeof out);
    if (rijn_gcm_open(&ks.k, out, 17, iv, 12, NULL, 0, g_pt, 16) != -1 ||
        !all_are(out, sizeof out, 0xa5))
        tu_fail("open of 16 bytes with a 17-byte tag: accepted, or its "
                "output written");
    if (rijn_gcm_encrypt(&ks.k, out, tag, 16, iv, 0, NULL, 0, g_pt, 32) != -1)
        tu_fail("a 0-byte IV is accepted");
    if (rijn_gcm_setkey(&ks.k, ks.key, 20) != -1)
        tu_fail("a 20-byte key is accepted");
    if (keys_set(&ks, 16) != 0)
        return;
    /* AAD after data, update after finish, mixed directions */
    rijn_gcm_start(&c, &ks.k, iv, 12);
    rijn_gcm_encrypt_update(&c, out, g_pt, 5);
    if (rijn_gcm_aad(&c, g_aad, 3) != -1 || rijn_gcm_finish(&c, tag, 16) != -1)
        tu_fail("AAD after data is accepted, or the context not failed");
    rijn_gcm_start(&c, &ks.k, iv, 12);
    rijn_gcm_encrypt_update(&c, out, g_pt, 5);
    if (rijn_gcm_decrypt_update(&c, out, g_pt, 5) != -1)
        tu_fail("decrypt_update after encrypt_update is accepted");
    rijn_gcm_start(&c, &ks.k, iv, 12);
    rijn_gcm_finish(&c, tag, 16);
    if (rijn_gcm_encrypt_update(&c, out, g_pt, 5) != -1 ||
        rijn_gcm_finish(&c, tag, 16) != -1)
        tu_fail("the context is usable after finish");
    keys_wipe(&ks);
    if (tu_failures() == bad)
        tu_pass();
}

/* tag_lengths' message: start, 13 bytes of AAD, len bytes in two pieces
 * (the first p1 bytes, then the rest), encrypting g_pt or decrypting
 * g_want into g_out; 0 if every call accepts. */
static int feed(rijn_gcm_ctx *c, const rijn_gcm_key *k, const uint8_t iv[12],
                size_t len, size_t p1, int decrypt)
{
    int (*upd)(rijn_gcm_ctx *, unsigned char *, const unsigned char *,
               size_t) = decrypt ? rijn_gcm_decrypt_update
                                 : rijn_gcm_encrypt_update;
    const uint8_t *in = decrypt ? g_want : g_pt;

    return rijn_gcm_start(c, k, iv, 12) != 0 ||
           rijn_gcm_aad(c, g_aad, 13) != 0 ||
           upd(c, g_out, in, p1) != 0 ||
           upd(c, g_out + p1, in + p1, len - p1) != 0;
}

/*
 * Tag lengths 0..17 through finish and verify, after a first piece the
 * context takes as a whole message (its tag made ahead: 5 bytes by the
 * one-shot kernel, 1420 by the last one, where the engine has them) and
 * after two pieces (the tag made at the end): 12..16 give the oracle's
 * tag cut to that length and accept exactly that prefix (a flipped
 * byte inside it refused, one past it ignored), others are refused;
 * either way the context is spent after the call.
 */
static void tag_lengths(void)
{
    static const size_t lens[] = {5, 1420};
    keys ks;
    uint8_t iv[12] = {7}, want[16], tag[18], t[18];
    rijn_gcm_ctx c;
    unsigned long bad = tu_failures();

    if (keys_set(&ks, 16) != 0)
        return;
    for (size_t li = 0; li < 2; li++) {
        const size_t len = lens[li];
        for (int pieces = 1; pieces <= 2; pieces++) {
            const size_t p1 = pieces == 1 ? len : len / 2;
            rijn_gcm_encrypt(&ks.o, g_want, want, 16, iv, 12, g_aad, 13,
                             g_pt, len);
            for (size_t tl = 0; tl <= 17; tl++) {
                const int ok = tl >= 12 && tl <= 16;
                memset(tag, 0xa5, sizeof tag);
                if (feed(&c, &ks.k, iv, len, p1, 0) != 0 ||
                    rijn_gcm_finish(&c, tag, tl) != (ok ? 0 : -1) ||
                    (ok && memcmp(tag, want, tl) != 0) ||
                    !all_are(tag + (ok ? tl : 0),
                             sizeof tag - (ok ? tl : 0), 0xa5) ||
                    rijn_gcm_finish(&c, tag, 16) != -1)
                    tu_fail("finish: %zu bytes in %d piece(s), %zu-byte "
                            "tag", len, pieces, tl);
                for (int flip = -1; flip <= 1; flip++) {
                    /* -1: the prefix as made; 0: its last byte flipped;
                     * 1: the byte past it flipped (not read) */
                    const size_t at = tl == 0 ? 0 : tl - 1 + (size_t)(flip > 0);
                    const int accept = ok && flip != 0;
                    memcpy(t, want, 16);
                    t[16] = t[17] = 0;
                    if (flip >= 0)
                        t[at] ^= 0x40;
                    if (feed(&c, &ks.k, iv, len, p1, 1) != 0 ||
                        rijn_gcm_verify(&c, t, tl) != (accept ? 0 : -1) ||
                        rijn_gcm_verify(&c, want, 16) != -1)
                        tu_fail("verify: %zu bytes in %d piece(s), %zu-byte "
                                "tag, flip %d", len, pieces, tl, flip);
                }
            }
        }
    }
    keys_wipe(&ks);
    if (tu_failures() == bad)
        tu_pass();
}

/* The limits of rijn_gcm.h (SP 800-38D 5.2.1.1), as gcm.c enforces them. */
#define MAX_DATA ((((uint64_t)1) << 36) - 32)
#define MAX_AAD ((((uint64_t)1) << 61) - 1)

/* n bytes of p all equal to v. */
static int all_are(const uint8_t *p, size_t n, uint8_t v)
{
    uint8_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= (uint8_t)(p[i] ^ v);
    return d == 0;
}

/*
 * One shot past a limit: -1, and nothing read or written. The buffers are
 * small real ones (64 bytes of a pattern): a length check that came after
 * an access would read or write far past them (a crash, or a sanitizer's
 * report) or change them. Only where size_t can hold such a length.
 */
static void limits_oneshot(const keys *ks, const uint8_t iv[12])
{
#if SIZE_MAX > 0xffffffffu
    uint8_t in[64], out[64], tag[16], aad[64];
    const size_t over[] = {(size_t)MAX_DATA + 1, (size_t)MAX_DATA + 16,
                           SIZE_MAX - 16, SIZE_MAX};
    const size_t aad_over[] = {(size_t)MAX_AAD + 1, SIZE_MAX};

    for (size_t i = 0; i < sizeof over / sizeof over[0]; i++) {
        size_t len = over[i];
        memset(in, 0x5c, sizeof in);
        memset(aad, 0x3a, sizeof aad);
        memset(out, 0xa5, sizeof out);
        memset(tag, 0xa5, sizeof tag);
        if (rijn_gcm_encrypt(&ks->k, out, tag, 16, iv, 12, aad, 13, in,
                             len) != -1)
            tu_fail("encrypt of %zu bytes (over the limit) accepted", len);
        if (rijn_gcm_decrypt(&ks->k, out, tag, 16, iv, 12, aad, 13, in,
                             len) != -1)
            tu_fail("decrypt of %zu bytes (over the limit) accepted", len);
        if (rijn_gcm_seal(&ks->k, out, 16, iv, 12, aad, 13, in, len) != -1)
            tu_fail("seal of %zu bytes (over the limit) accepted", len);
        /* open: len bytes of ciphertext and the tag (len + 16 if that
         * fits, else len - 16 of ciphertext, still over the limit) */
        if (rijn_gcm_open(&ks->k, out, 16, iv, 12, aad, 13, in,
                          len <= SIZE_MAX - 16 ? len + 16 : len) != -1)
            tu_fail("open of %zu bytes (over the limit) accepted", len);
        if (!all_are(out, sizeof out, 0xa5) || !all_are(tag, 16, 0xa5) ||
            !all_are(in, sizeof in, 0x5c) || !all_are(aad, sizeof aad, 0x3a))
            tu_fail("a call refused for %zu bytes changed a buffer", len);
    }
    /* AAD over its limit with a valid message: refused before the AAD is
     * read; decrypt and open wipe their (valid) output, as documented. */
    for (size_t i = 0; i < sizeof aad_over / sizeof aad_over[0]; i++) {
        size_t al = aad_over[i];
        memset(in, 0x5c, sizeof in);
        memset(aad, 0x3a, sizeof aad);
        memset(out, 0xa5, sizeof out);
        memset(tag, 0xa5, sizeof tag);
        if (rijn_gcm_encrypt(&ks->k, out, tag, 16, iv, 12, aad, al, in, 20) !=
                -1 ||
            !all_are(out, sizeof out, 0xa5) || !all_are(tag, 16, 0xa5))
            tu_fail("encrypt with %zu bytes of AAD accepted, or output "
                    "written", al);
        if (rijn_gcm_seal(&ks->k, out, 16, iv, 12, aad, al, in, 20) != -1 ||
            !all_are(out, sizeof out, 0xa5))
            tu_fail("seal with %zu bytes of AAD accepted, or output written",
                    al);
        if (rijn_gcm_decrypt(&ks->k, out, tag, 16, iv, 12, aad, al, in, 20) !=
                -1 ||
            !all_are(out, 20, 0) || !all_are(out + 20, sizeof out - 20, 0xa5))
            tu_fail("decrypt with %zu bytes of AAD accepted, or its output "
                    "not wiped (or wiped past its end)", al);
        memset(out, 0xa5, sizeof out);
        if (rijn_gcm_open(&ks->k, out, 16, iv, 12, aad, al, in, 36) != -1 ||
            !all_are(out + 20, sizeof out - 20, 0xa5))
            tu_fail("open with %zu bytes of AAD accepted, or written past "
                    "its output", al);
        if (!all_are(in, sizeof in, 0x5c) || !all_are(aad, sizeof aad, 0x3a))
            tu_fail("a call refused for %zu bytes of AAD changed its input",
                    al);
    }
#else
    (void)ks;
    (void)iv;
    tu_note("32-bit size_t: no one-shot length over the GCM limits");
#endif
}

/* The context has failed: every call after refuses. */
static int ctx_failed(rijn_gcm_ctx *c)
{
    uint8_t b[16] = {0}, t[16];
    rijn_gcm_ctx d = *c;

    if (rijn_gcm_encrypt_update(&d, b, b, 0) != -1)
        return 0;
    d = *c;
    if (rijn_gcm_aad(&d, b, 0) != -1)
        return 0;
    d = *c;
    if (rijn_gcm_verify(&d, t, 16) != -1)
        return 0;
    return rijn_gcm_finish(c, t, 16) == -1;
}

/*
 * Streaming up to a limit, with the context's public counters set just
 * below it (the data itself would be 64 GiB): pieces that stay within
 * pass, exactly at the limit included, and the tag is the oracle's for the
 * same counters; a piece that crosses the limit returns -1, writes
 * nothing, and leaves the context failed.
 */
static void limits_streaming(const keys *ks, const uint8_t iv[12])
{
    rijn_gcm_ctx c, o;
    uint8_t out[64], tag[16], wtag[16];

    for (int decrypt = 0; decrypt <= 1; decrypt++) {
        int (*upd)(rijn_gcm_ctx *, unsigned char *, const unsigned char *,
                   size_t) =
            decrypt ? rijn_gcm_decrypt_update : rijn_gcm_encrypt_update;
        const char *dir = decrypt ? "decrypt" : "encrypt";

        /* up to the limit exactly: 23 + 17 bytes from MAX_DATA - 40 */
        rijn_gcm_start(&c, &ks->k, iv, 12);
        rijn_gcm_start(&o, &ks->o, iv, 12);
        rijn_gcm_aad(&c, g_aad, 13);
        rijn_gcm_aad(&o, g_aad, 13);
        c.len = o.len = MAX_DATA - 40;
        upd(&o, out, g_pt, 23);
        upd(&o, out, g_pt + 23, 17);
        rijn_gcm_finish(&o, wtag, 16);
        if (upd(&c, out, g_pt, 23) != 0 || upd(&c, out, g_pt + 23, 17) != 0 ||
            c.len != MAX_DATA || upd(&c, out, g_pt, 0) != 0) {
            tu_fail("%s_update up to the data limit exactly is refused", dir);
            continue;
        }
        if (rijn_gcm_finish(&c, tag, 16) != 0 || memcmp(tag, wtag, 16) != 0)
            tu_fail("finish at the data limit (%s): refused, or a tag that "
                    "is not the oracle's", dir);

        /* one byte past it: refused, nothing written, context failed */
        for (int big = 0; big <= 1; big++) {
            size_t n = big ? SIZE_MAX : 18;
            rijn_gcm_start(&c, &ks->k, iv, 12);
            rijn_gcm_aad(&c, g_aad, 13);
            c.len = MAX_DATA - 40;
            memset(out, 0xa5, sizeof out);
            if (upd(&c, out, g_pt, 23) != 0) {
                tu_fail("%s_update below the data limit is refused", dir);
                continue;
            }
            memset(out, 0xa5, sizeof out);
            if (upd(&c, out, g_pt + 23, n) != -1)
                tu_fail("%s_update of %zu bytes crossing the data limit is "
                        "accepted", dir, n);
            else if (!all_are(out, sizeof out, 0xa5))
                tu_fail("%s_update refused at the data limit wrote its "
                        "output", dir);
            else if (!ctx_failed(&c))
                tu_fail("the context is usable after %s_update crossed the "
                        "data limit", dir);
        }
        rijn_gcm_wipe(&c);
    }

    /* AAD: up to 2^61 - 1 bytes exactly (7 + 13 from MAX_AAD - 20), then
     * data; one byte more is refused and fails the context. */
    rijn_gcm_start(&c, &ks->k, iv, 12);
    rijn_gcm_start(&o, &ks->o, iv, 12);
    c.aad_len = o.aad_len = MAX_AAD - 20;
    rijn_gcm_aad(&o, g_aad, 7);
    rijn_gcm_aad(&o, g_aad + 7, 13);
    rijn_gcm_encrypt_update(&o, out, g_pt, 5);
    rijn_gcm_finish(&o, wtag, 16);
    if (rijn_gcm_aad(&c, g_aad, 7) != 0 || rijn_gcm_aad(&c, g_aad + 7, 13) != 0 ||
        c.aad_len != MAX_AAD || rijn_gcm_aad(&c, g_aad, 0) != 0 ||
        rijn_gcm_encrypt_update(&c, out, g_pt, 5) != 0 ||
        rijn_gcm_finish(&c, tag, 16) != 0 || memcmp(tag, wtag, 16) != 0)
        tu_fail("AAD up to its limit exactly: refused, or a tag that is not "
                "the oracle's");
    for (int big = 0; big <= 1; big++) {
        size_t n = big ? SIZE_MAX : 14;
        rijn_gcm_start(&c, &ks->k, iv, 12);
        c.aad_len = MAX_AAD - 20;
        if (rijn_gcm_aad(&c, g_aad, 7) != 0)
            tu_fail("AAD below its limit is refused");
        else if (rijn_gcm_aad(&c, g_aad + 7, n) != -1)
            tu_fail("%zu bytes of AAD crossing its limit are accepted", n);
        else if (!ctx_failed(&c))
            tu_fail("the context is usable after the AAD crossed its limit");
        rijn_gcm_wipe(&c);
    }
}

static void limits(void)
{
    keys ks;
    uint8_t iv[12];
    unsigned long bad = tu_failures();

    if (keys_set(&ks, 16) != 0)
        return;
    tu_rng_fill(&g_rng, iv, sizeof iv);
    limits_oneshot(&ks, iv);
    limits_streaming(&ks, iv);
    keys_wipe(&ks);
    if (tu_failures() == bad)
        tu_pass();
}

/*
 * rijn_gcm_key_wipe leaves every byte of the key object zero, also when
 * the object held an earlier key of a larger layout (set up again without
 * a wipe in between, as a caller may); rijn_gcm_wipe clears a context in
 * the middle of a message, and finish and verify leave theirs zero too.
 */
static void wipes(void)
{
    keys ks;
    rijn_gcm_ctx c;
    uint8_t iv[12], out[40], tag[16];
    unsigned long bad = tu_failures();

    if (keys_set(&ks, 32) != 0)
        return;
    tu_rng_fill(&g_rng, iv, sizeof iv);
    memset(&ks.o, 0x5a, sizeof ks.o);
    rijn_gcm_key_wipe(&ks.o); /* whatever the object held */
    if (!all_are((const uint8_t *)&ks.o, sizeof ks.o, 0))
        tu_fail("rijn_gcm_key_wipe of an object never set up leaves "
                "bytes that are not zero");
    rijn_gcm_key_wipe(&ks.k);
    if (!all_are((const uint8_t *)&ks.k, sizeof ks.k, 0))
        tu_fail("rijn_gcm_key_wipe leaves bytes of the %s/%s key that are "
                "not zero", g_aes, g_ghash);
    /* the pairing under test, then ref/ref (smaller) over it */
    if (rijn_gcm_setkey_impl(&ks.k, ks.key, 32, g_aes, g_ghash) != 0 ||
        rijn_gcm_setkey_impl(&ks.k, ks.key, 16, "ref", "ref") != 0) {
        tu_fail("key setup failed");
        goto out;
    }
    rijn_gcm_key_wipe(&ks.k);
    if (!all_are((const uint8_t *)&ks.k, sizeof ks.k, 0))
        tu_fail("rijn_gcm_key_wipe after a key set up again (%s/%s, then "
                "ref/ref) leaves bytes of the first that are not zero",
                g_aes, g_ghash);
    if (keys_set(&ks, 32) != 0)
        return;
    for (int end = 0; end < 3; end++) {
        rijn_gcm_start(&c, &ks.k, iv, 12);
        rijn_gcm_aad(&c, g_aad, 7);
        rijn_gcm_encrypt_update(&c, out, g_pt, sizeof out);
        if (end == 0)
            rijn_gcm_wipe(&c);
        else if (end == 1)
            rijn_gcm_finish(&c, tag, 16);
        else
            rijn_gcm_verify(&c, tag, 16);
        /* wipe clears everything; finish and verify leave the key
         * pointer and a failed state, nothing else */
        if (end == 0 ? !all_are((const uint8_t *)&c, sizeof c, 0)
                     : !all_are(c.y, sizeof c.y, 0) ||
                           !all_are(c.ctr, sizeof c.ctr, 0) ||
                           !all_are(c.j0, sizeof c.j0, 0) ||
                           !all_are(c.ks, sizeof c.ks, 0) ||
                           !all_are(c.buf, sizeof c.buf, 0) ||
                           c.aad_len != 0 || c.len != 0 || c.used != 0 ||
                           c.ks_used != 0)
            tu_fail("the context is not wiped by rijn_gcm_%s",
                    end == 0 ? "wipe" : end == 1 ? "finish" : "verify");
    }
out:
    keys_wipe(&ks);
    if (tu_failures() == bad)
        tu_pass();
}

int main(int argc, char **argv)
{
    uint64_t seed = tu_seed_from_args(&argc, argv);

    if (argc == 4 && strcmp(argv[3], "--quick") == 0) {
        g_quick = 1;
        argc--;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: test_gcm_props AES GHASH [--seed N] "
                        "[--quick]\n");
        return 2;
    }
    g_aes = argv[1];
    g_ghash = argv[2];
    if (gcm_pair_begin("gcm_props", &g_aes, &g_ghash) == NULL)
        return tu_end();
    tu_rng_seed(&g_rng, seed);
    tu_rng_fill(&g_rng, g_pt, sizeof g_pt);
    tu_rng_fill(&g_rng, g_aad, sizeof g_aad);
    lengths();
    aad_page_end();
    short_messages();
    splits();
    alignment();
    ivs();
    flips();
    rules();
    tag_lengths();
    limits();
    wipes();
    return tu_end();
}
