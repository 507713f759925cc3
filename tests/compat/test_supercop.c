/*
 * Tests of the SUPERCOP/NaCl shim (rijn_supercop) on the backend named by
 * RIJN_IMPL:
 *   - NIST SP 800-38A F.5.1-F.5.6 through crypto_stream_aes*ctr_xor (every
 *     prefix length, in place, unaligned);
 *   - crypto_stream == crypto_stream_xor of zeros, all key sizes;
 *   - the 128-bit big-endian counter, against counter blocks built here and
 *     encrypted with rijn_aes_encrypt_blocks (ref backend): nonces ff..ff
 *     (2^128 wrap to 00..00) and carries out of 32- and 64-bit words.
 * Usage: test_supercop <ctr_f5.json>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat_test.h"
#include "crypto_stream_aes128ctr.h"
#include "crypto_stream_aes192ctr.h"
#include "crypto_stream_aes256ctr.h"

#define SUITE "supercop"

typedef int (*stream_fn)(unsigned char *, unsigned long long,
                         const unsigned char *, const unsigned char *);
typedef int (*xor_fn)(unsigned char *, const unsigned char *,
                      unsigned long long, const unsigned char *,
                      const unsigned char *);

static const struct {
    size_t keybytes;
    size_t noncebytes;
    stream_fn stream;
    xor_fn xor;
    const char *name;
} prims[3] = {
    {crypto_stream_aes128ctr_KEYBYTES, crypto_stream_aes128ctr_NONCEBYTES,
     crypto_stream_aes128ctr, crypto_stream_aes128ctr_xor, "aes128ctr"},
    {crypto_stream_aes192ctr_KEYBYTES, crypto_stream_aes192ctr_NONCEBYTES,
     crypto_stream_aes192ctr, crypto_stream_aes192ctr_xor, "aes192ctr"},
    {crypto_stream_aes256ctr_KEYBYTES, crypto_stream_aes256ctr_NONCEBYTES,
     crypto_stream_aes256ctr, crypto_stream_aes256ctr_xor, "aes256ctr"},
};

static int prim_for_key(size_t keylen)
{
    int i;
    for (i = 0; i < 3; i++)
        if (prims[i].keybytes == keylen)
            return i;
    return -1;
}

/* Finds "field": "value" between p and end; copies value; 0 if absent. */
static int json_str(const char *p, const char *end, const char *field,
                    char *out, size_t cap)
{
    char pat[64];
    const char *q, *e;
    size_t n;

    snprintf(pat, sizeof pat, "\"%s\"", field);
    q = strstr(p, pat);
    if (q == NULL || q >= end)
        return 0;
    q = strchr(q + strlen(pat), '"');
    if (q == NULL || q >= end)
        return 0;
    q++;
    e = strchr(q, '"');
    if (e == NULL || e >= end)
        return 0;
    n = (size_t)(e - q);
    if (n + 1 > cap)
        return 0;
    memcpy(out, q, n);
    out[n] = '\0';
    return 1;
}

static void run_f5(const char *path)
{
    char *text = ct_read_file(path, NULL); /* exits if it cannot */
    const char *p;
    size_t ntests = 0;

    p = strstr(text, "\"tests\"");
    while (p != NULL && (p = strchr(p, '{')) != NULL) {
        const char *end = strchr(p, '}');
        char name[64], hk[80], hiv[40], hpt[200], hct[200], what[120];
        unsigned char key[32], iv[16], pt[64], ct[64], buf[64 + 16];
        long kl, ivl, ptl, ctl;
        size_t len, off;
        int pi;
        int enc;

        if (end == NULL)
            break;
        if (!json_str(p, end, "name", name, sizeof name) ||
            !json_str(p, end, "key", hk, sizeof hk) ||
            !json_str(p, end, "initial_counter", hiv, sizeof hiv) ||
            !json_str(p, end, "plaintext", hpt, sizeof hpt) ||
            !json_str(p, end, "ciphertext", hct, sizeof hct)) {
            tu_fail("F.5 record has no name/key/initial_counter/texts");
            p = end + 1;
            continue;
        }
        kl = tu_unhex(key, sizeof key, hk);
        ivl = tu_unhex(iv, sizeof iv, hiv);
        ptl = tu_unhex(pt, sizeof pt, hpt);
        ctl = tu_unhex(ct, sizeof ct, hct);
        pi = kl < 0 ? -1 : prim_for_key((size_t)kl);
        if (!ct_check(pi >= 0 && ivl == 16 && ptl == 64 && ctl == 64,
                      "F.5 record decodes", name)) {
            p = end + 1;
            continue;
        }
        enc = strstr(name, "Decrypt") == NULL;
        ntests++;
        /* every prefix length, unaligned, out of place */
        for (len = 0; len <= 64; len++) {
            off = len % 16;
            memset(buf, 0xA5, sizeof buf);
            ct_check(prims[pi].xor(buf + off, enc ? pt : ct, len, iv, key) ==
                         0,
                     "crypto_stream_xor returns 0", name);
            snprintf(what, sizeof what, "%s crypto_stream_xor, %zu bytes",
                     name, len);
            tu_check_eq(buf + off, enc ? ct : pt, len, what);
            ct_check(buf[off + len] == 0xA5 && (off == 0 || buf[off - 1] == 0xA5),
                     "guard bytes intact", name);
        }
        /* in place */
        memcpy(buf + 3, enc ? pt : ct, 64);
        prims[pi].xor(buf + 3, buf + 3, 64, iv, key);
        snprintf(what, sizeof what, "%s crypto_stream_xor in place", name);
        tu_check_eq(buf + 3, enc ? ct : pt, 64, what);
        p = end + 1;
    }
    ct_check(ntests == 6, "all six F.5 vectors were run", NULL);
    tu_note("%zu SP 800-38A F.5 vectors run", ntests);
    free(text);
}

static void oracle(const unsigned char *key, size_t kl,
                   const unsigned char n[16], unsigned char *out, size_t len)
{
    rijn_aes_key k;
    unsigned char cb[16], blk[16];
    size_t j;

    if (ct_oracle_key(&k, key, kl) != 0) {
        tu_fail("oracle key setup");
        exit(1);
    }
    memcpy(cb, n, 16);
    for (j = 0; j < len; j += 16) {
        size_t m = len - j < 16 ? len - j : 16;
        rijn_aes_encrypt_blocks(&k, blk, cb, 1);
        memcpy(out + j, blk, m);
        tu_ctr_add(cb, 1);
    }
    rijn_aes_key_wipe(&k);
}

static void run_stream_vs_xor(void)
{
    static unsigned char zeros[2100], a[2100 + 16], b[2100 + 16], want[2100];
    int pi, t;
    char what[120];

    for (pi = 0; pi < 3; pi++) {
        for (t = 0; t < 40; t++) {
            unsigned char key[32], n[16];
            size_t len = t < 20 ? (size_t)t : tu_rng_below(&ct_rng, 2048);
            size_t off = tu_rng_below(&ct_rng, 16);

            tu_rng_fill(&ct_rng, key, sizeof key);
            tu_rng_fill(&ct_rng, n, sizeof n);
            memset(a, 0x5A, sizeof a);
            memset(b, 0x5A, sizeof b);
            ct_check(prims[pi].stream(a + off, len, n, key) == 0,
                     "crypto_stream returns 0", prims[pi].name);
            prims[pi].xor(b, zeros, len, n, key);
            snprintf(what, sizeof what, "%s crypto_stream == xor(0), %zu bytes",
                     prims[pi].name, len);
            tu_check_eq(a + off, b, len, what);
            ct_check(a[off + len] == 0x5A && (off == 0 || a[off - 1] == 0x5A),
                     "guard bytes intact", what);
            oracle(key, prims[pi].keybytes, n, want, len);
            snprintf(what, sizeof what, "%s crypto_stream == E(n + i), %zu bytes",
                     prims[pi].name, len);
            tu_check_eq(a + off, want, len, what);
        }
    }
}

static void run_wraps(void)
{
    /* nonce patterns: the counter is 16 bytes, big-endian */
    static const struct {
        const char *what;
        unsigned char fill; /* bytes 0..15 start as this */
        int low_ff;         /* then bytes 16-low_ff..15 set to ff */
    } pats[] = {
        {"2^128 wrap (n = ff..ff)", 0xFF, 16},
        {"carry out of the low 32 bits", 0x00, 4},
        {"carry out of the low 64 bits", 0x00, 8},
        {"carry out of the low 96 bits", 0x00, 12},
        {"random high bytes, low 32 bits ff", 0x37, 4},
    };
    static unsigned char want[1024], got[1024 + 16], pt[1024];
    size_t i;
    int pi;
    char what[160];

    for (pi = 0; pi < 3; pi++) {
        for (i = 0; i < sizeof pats / sizeof pats[0]; i++) {
            unsigned back;
            for (back = 1; back <= 17; back += 4) {
                unsigned char key[32], n[16];
                size_t len = 16 * (back + 3) + tu_rng_below(&ct_rng, 40);
                size_t j;
                tu_rng_fill(&ct_rng, key, sizeof key);
                memset(n, pats[i].fill, 16);
                memset(n + 16 - pats[i].low_ff, 0xFF, (size_t)pats[i].low_ff);
                /* start `back` blocks before the carry */
                n[15] = (unsigned char)(0x100 - back);
                tu_rng_fill(&ct_rng, pt, len);
                oracle(key, prims[pi].keybytes, n, want, len);
                for (j = 0; j < len; j++)
                    want[j] ^= pt[j];
                ct_check(prims[pi].xor(got + back % 16, pt, len, n, key) == 0,
                         "crypto_stream_xor returns 0", prims[pi].name);
                snprintf(what, sizeof what, "%s %s, %u blocks before, %zu bytes",
                         prims[pi].name, pats[i].what, back, len);
                tu_check_eq(got + back % 16, want, len, what);
            }
        }
        /* the 2^128 wrap spelled out: block 1 of n = ff..ff is E(0) */
        {
            unsigned char key[32], n[16], zero[16] = {0};
            unsigned char ks[32], e0[16];
            rijn_aes_key k;
            tu_rng_fill(&ct_rng, key, sizeof key);
            memset(n, 0xFF, 16);
            prims[pi].stream(ks, 32, n, key);
            ct_oracle_key(&k, key, prims[pi].keybytes);
            rijn_aes_encrypt_blocks(&k, e0, zero, 1);
            snprintf(what, sizeof what, "%s n = ff..ff: block 1 is E(00..00)",
                     prims[pi].name);
            tu_check_eq(ks + 16, e0, 16, what);
            rijn_aes_key_wipe(&k);
        }
    }
}

static void run_sizes(void)
{
    ct_check(crypto_stream_aes128ctr_KEYBYTES == 16 &&
                 crypto_stream_aes192ctr_KEYBYTES == 24 &&
                 crypto_stream_aes256ctr_KEYBYTES == 32,
             "KEYBYTES are 16, 24, 32", NULL);
    ct_check(crypto_stream_aes128ctr_NONCEBYTES == 16 &&
                 crypto_stream_aes192ctr_NONCEBYTES == 16 &&
                 crypto_stream_aes256ctr_NONCEBYTES == 16,
             "NONCEBYTES are 16", NULL);
}

int main(int argc, char **argv)
{
    const char *backend, *def;

    if (argc != 2) {
        fprintf(stderr, "usage: %s ctr_f5.json\n", argv[0]);
        return 2;
    }
    backend = ct_begin(SUITE);
    def = rijn_impl_default();
    ct_check(def != NULL && strcmp(def, backend) == 0,
             "the shim's key setup uses the RIJN_IMPL backend", def);
    run_sizes();
    run_f5(argv[1]);
    run_stream_vs_xor();
    run_wraps();
    return tu_end();
}
