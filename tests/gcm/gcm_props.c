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
 *   - streaming: every split point in two pieces for every length 0..600
 *     and around 1, 2, 4 and 8 KiB (tails hashed with the wrong power of H
 *     and partial vectors show there, and not at multiples of 512); three
 *     random pieces for every length 0..4096; AAD split at every point;
 *   - in place, and every input/output alignment 0..15 and 63, with guard
 *     bytes around every output;
 *   - IVs of 1..64 bytes, and counter wraps: IVs constructed so that J0
 *     ends in ff ff ff f0..ff, messages crossing the 32-bit wrap (inc32
 *     must wrap within the low 32 bits: a 128-bit carry, the JDK's
 *     CVE-2018-2972, fails here against the oracle, and in gcm_openssl);
 *   - every single-bit flip of the tag, the ciphertext and the AAD is
 *     rejected and the output wiped; decrypt never writes past its output;
 *   - the API's rules: IV of 0 bytes, tag lengths 0..11 and 17, calls out
 *     of order, all refused.
 * --quick (cross builds under qemu) runs fewer lengths.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghash/ghash.h"
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

/* One shot against the oracle: ciphertext and tag, then decryption. */
static int oneshot(const keys *ks, const uint8_t *iv, size_t il, size_t al,
                   size_t len, const char *what)
{
    uint8_t tag[16], wtag[16];
    char msg[160];

    rijn_gcm_encrypt(&ks->o, g_want, wtag, 16, iv, il, g_aad, al, g_pt, len);
    if (rijn_gcm_encrypt(&ks->k, g_out, tag, 16, iv, il, g_aad, al, g_pt,
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
    if (rijn_gcm_decrypt(&ks->k, g_out, tag, 16, iv, il, g_aad, al, g_want,
                         len) != 0 ||
        memcmp(g_out, g_pt, len) != 0) {
        tu_fail("%s: decrypt of the oracle's ciphertext (len %zu)", what, len);
        return 0;
    }
    return 1;
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

int main(int argc, char **argv)
{
    uint64_t seed = tu_seed_from_args(&argc, argv);
    char name[96];

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
    if (strcmp(g_aes, "default") == 0) {
        const rijn_ghash_engine *e = rijn_ghash_find(g_ghash);
        const rijn_aes_impl *f =
            e != NULL && e->fused_aes ? rijn_aes_impl_find(e->fused_aes) : NULL;
        g_aes = f != NULL && rijn_impl_runnable(&f->base) ? f->base.name
                                                          : rijn_impl_default();
        if (g_aes == NULL)
            g_aes = "ct64";
    }
    tu_begin("gcm_props", g_aes);
    if (strcmp(g_ghash, "default") == 0) {
        const rijn_ghash_engine *e = rijn_ghash_for(g_aes);
        g_ghash = e != NULL ? e->base.name : "(none)";
    }
    snprintf(name, sizeof name, "gcm_props.%s+%s", g_aes, g_ghash);
    tu_set_name(name);
    {
        const rijn_ghash_engine *e = rijn_ghash_find(g_ghash);
        rijn_impl_info info;
        if (e == NULL) {
            tu_fail("GHASH engine %s is not compiled in", g_ghash);
            return tu_end();
        }
        for (size_t i = 0; rijn_gcm_impl_get(i, &info) == 0; i++)
            if (strcmp(info.name, g_ghash) == 0)
                tu_require_available(&info, "engine");
    }
    tu_rng_seed(&g_rng, seed);
    tu_rng_fill(&g_rng, g_pt, sizeof g_pt);
    tu_rng_fill(&g_rng, g_aad, sizeof g_aad);
    lengths();
    splits();
    alignment();
    ivs();
    flips();
    rules();
    return tu_end();
}
