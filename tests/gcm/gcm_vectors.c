/*
 * gcm_vectors: AES-GCM known answers through the public API, on one AES
 * backend and one GHASH engine.
 *
 *   usage: test_gcm_vectors AES_BACKEND GHASH_ENGINE VECTOR_DIR [STRIDE]
 *
 * "default" as the GHASH engine: the one a key picks for that backend;
 * as the AES backend: the engine's fused backend if it has one (and this
 * CPU runs it), else the default backend.
 *
 * Files (tests/gcm/vectors/, each opening with a "# Provenance:" line):
 *   cavp/gcmEncryptExtIV{128,192,256}.rsp, cavp/gcmDecrypt{...}.rsp
 *       NIST CAVP GCMVS, every record (7,875 per file); the 11,908 decrypt
 *       records marked FAIL must be rejected.
 *   gcm-spec.txt        McGrew-Viega test cases 1-18 and 4 add-ons.
 *   wycheproof-gcm.txt  Wycheproof aes_gcm_test (316, 87 invalid).
 *   wycheproof-gmac.txt Wycheproof aes_gmac_test (414, 324 invalid): the
 *                       message is authenticated only, i.e. GCM's AAD.
 * Every record is checked with the one-shot API (encrypt: ciphertext and
 * tag; decrypt: plaintext, or -1 with the output wiped), in place, with the
 * tag appended (seal/open), and streaming with the AAD and the data each
 * split at a record-dependent point. Tags of 12..16 bytes go through the
 * API; the CAVP files also have 4- and 8-byte tags, which the API refuses
 * (checked: -1, output wiped): for those the full tag is computed and its
 * prefix compared, so every record is used. A 0-byte IV (Wycheproof) must
 * be refused by every call. The number of records per file and result is
 * checked against the table below, so a file cannot be half read.
 *
 * STRIDE (default 1) checks every STRIDE-th CAVP record only: the cross
 * builds under qemu use it to stay within the CI budget (they still read
 * every record, and run every record of the other files).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghash/ghash.h"
#include "reader.h"
#include "gcm_pair.h"
#include "testutil.h"

static const struct vfile {
    const char *name;
    int cavp;        /* CAVP: FAIL lines; otherwise Result/Flags */
    unsigned valid;  /* records expected valid */
    unsigned invalid;
} files[] = {
    {"cavp/gcmEncryptExtIV128.rsp", 1, 7875, 0},
    {"cavp/gcmEncryptExtIV192.rsp", 1, 7875, 0},
    {"cavp/gcmEncryptExtIV256.rsp", 1, 7875, 0},
    {"cavp/gcmDecrypt128.rsp", 1, 3864, 4011},
    {"cavp/gcmDecrypt192.rsp", 1, 3897, 3978},
    {"cavp/gcmDecrypt256.rsp", 1, 3956, 3919},
    {"gcm-spec.txt", 0, 19, 3},
    {"wycheproof-gcm.txt", 0, 229, 87},
    {"wycheproof-gmac.txt", 0, 90, 324},
};

#define MAX_DATA 16384

static const char *g_aes, *g_ghash;
static unsigned g_stride = 1;
static unsigned long g_count;

typedef struct {
    uint8_t key[32], iv[1024], aad[MAX_DATA], pt[MAX_DATA], ct[MAX_DATA];
    uint8_t tag[16];
    long kl, il, al, pl, cl, tl;
    int valid, have_pt;
    char label[224];
} rec;

static int setkey(rijn_gcm_key *k, const rec *v)
{
    if (rijn_gcm_setkey_impl(k, v->key, (size_t)v->kl, g_aes, g_ghash) != 0) {
        tu_fail("%s: rijn_gcm_setkey_impl(%s, %s) failed", v->label, g_aes,
                g_ghash);
        return -1;
    }
    if (strcmp(rijn_gcm_key_ghash(k), g_ghash) != 0 ||
        strcmp(rijn_aes_key_impl(&k->aes), g_aes) != 0) {
        tu_fail("%s: key set up with %s/%s", v->label,
                rijn_aes_key_impl(&k->aes), rijn_gcm_key_ghash(k));
        return -1;
    }
    return 0;
}

static int all_zero(const uint8_t *p, size_t n)
{
    uint8_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= p[i];
    return d == 0;
}

/* A 0-byte IV: every call refuses it. */
static void check_empty_iv(const rijn_gcm_key *k, const rec *v)
{
    uint8_t out[MAX_DATA + 16], tag[16];
    rijn_gcm_ctx c;
    int bad = 0;
    size_t n = (size_t)v->cl;

    bad |= rijn_gcm_encrypt(k, out, tag, 16, v->iv, 0, v->aad, (size_t)v->al,
                            v->pt, (size_t)v->pl) != -1;
    memset(out, 0xaa, n);
    bad |= rijn_gcm_decrypt(k, out, v->tag, (size_t)v->tl, v->iv, 0, v->aad,
                            (size_t)v->al, v->ct, n) != -1;
    bad |= !all_zero(out, n);
    bad |= rijn_gcm_start(&c, k, v->iv, 0) != -1;
    bad |= rijn_gcm_aad(&c, v->aad, (size_t)v->al) != -1;
    bad |= rijn_gcm_finish(&c, tag, 16) != -1;
    if (bad)
        tu_fail("%s: a 0-byte IV was not refused everywhere", v->label);
    else
        tu_pass();
}

/* Streaming: AAD split at a1, data at d1; returns the tag or verifies. */
static int stream(const rijn_gcm_key *k, const rec *v, uint8_t *out,
                  const uint8_t *in, int decrypt, uint8_t tag[16])
{
    rijn_gcm_ctx c;
    size_t al = (size_t)v->al, n = decrypt ? (size_t)v->cl : (size_t)v->pl;
    size_t a1 = al ? (g_count * 7) % (al + 1) : 0;
    size_t d1 = n ? (g_count * 13) % (n + 1) : 0;
    int (*upd)(rijn_gcm_ctx *, unsigned char *, const unsigned char *,
               size_t) = decrypt ? rijn_gcm_decrypt_update
                                 : rijn_gcm_encrypt_update;

    if (rijn_gcm_start(&c, k, v->iv, (size_t)v->il) != 0 ||
        rijn_gcm_aad(&c, v->aad, a1) != 0 ||
        rijn_gcm_aad(&c, v->aad + a1, al - a1) != 0 ||
        upd(&c, out, in, d1) != 0 || upd(&c, out + d1, in + d1, n - d1) != 0)
        return -2;
    if (decrypt)
        return rijn_gcm_verify(&c, tag, (size_t)v->tl);
    return rijn_gcm_finish(&c, tag, 16);
}

static void check(const rec *v)
{
    rijn_gcm_key k;
    uint8_t out[MAX_DATA + 16], full[16], tag[16];
    size_t n = (size_t)v->cl, tl = (size_t)v->tl;
    int api_tag = tl >= 12 && tl <= 16;
    char what[288];

    if (setkey(&k, v) != 0)
        return;
    if (v->il == 0) {
        check_empty_iv(&k, v);
        rijn_gcm_key_wipe(&k);
        return;
    }
    /* encryption: ciphertext and full tag, one shot */
    if (v->have_pt) {
        memset(full, 0, 16);
        if (rijn_gcm_encrypt(&k, out, full, 16, v->iv, (size_t)v->il, v->aad,
                             (size_t)v->al, v->pt, (size_t)v->pl) != 0) {
            tu_fail("%s: encrypt failed", v->label);
            goto out;
        }
        snprintf(what, sizeof what, "%s: ciphertext", v->label);
        if (v->valid && !tu_check_eq(out, v->ct, n, what))
            goto out;
        if (v->valid != (memcmp(full, v->tag, tl) == 0)) {
            tu_fail("%s: the computed tag %s the record's (%s record)",
                    v->label, v->valid ? "differs from" : "equals",
                    v->valid ? "valid" : "invalid");
            goto out;
        }
        tu_pass();
    }
    /* streaming encryption gives the same bytes and tag */
    if (v->have_pt && v->valid) {
        snprintf(what, sizeof what, "%s: streaming ciphertext", v->label);
        if (stream(&k, v, out, v->pt, 0, tag) != 0 ||
            !tu_check_eq(out, v->ct, n, what) ||
            memcmp(tag, v->tag, tl) != 0)
            tu_fail("%s: streaming encryption", v->label);
        else
            tu_pass();
    }
    if (!api_tag) {
        /* refused by every call; the full tag was compared above */
        memset(out, 0xaa, n);
        if (rijn_gcm_encrypt(&k, out, tag, tl, v->iv, (size_t)v->il, v->aad,
                             (size_t)v->al, v->pt, (size_t)v->pl) != -1 ||
            rijn_gcm_decrypt(&k, out, v->tag, tl, v->iv, (size_t)v->il,
                             v->aad, (size_t)v->al, v->ct, n) != -1 ||
            !all_zero(out, n))
            tu_fail("%s: a %zu-byte tag was not refused", v->label, tl);
        else
            tu_pass();
        if (!v->have_pt) {
            /* a decrypt record: the full tag of the ciphertext */
            uint8_t pt[MAX_DATA];
            rijn_gcm_ctx c;
            rijn_gcm_start(&c, &k, v->iv, (size_t)v->il);
            rijn_gcm_aad(&c, v->aad, (size_t)v->al);
            rijn_gcm_decrypt_update(&c, pt, v->ct, n);
            rijn_gcm_finish(&c, full, 16);
            if (v->valid != (memcmp(full, v->tag, tl) == 0))
                tu_fail("%s: %zu-byte tag prefix check", v->label, tl);
            else
                tu_pass();
        }
        goto out;
    }
    /* decryption: one shot, in place, appended tag, streaming */
    memset(out, 0xaa, sizeof out);
    {
        int r = rijn_gcm_decrypt(&k, out, v->tag, tl, v->iv, (size_t)v->il,
                                 v->aad, (size_t)v->al, v->ct, n);
        snprintf(what, sizeof what, "%s: plaintext", v->label);
        if (v->valid ? (r != 0 || (v->have_pt && !tu_check_eq(out, v->pt, n, what)))
                     : (r != -1 || !all_zero(out, n))) {
            tu_fail("%s: decrypt returned %d (%s record)%s", v->label, r,
                    v->valid ? "valid" : "invalid",
                    !v->valid && r == -1 ? ", output not wiped" : "");
            goto out;
        }
        tu_pass();
    }
    memcpy(out, v->ct, n);
    memcpy(out + n, v->tag, tl);
    {
        int r = rijn_gcm_open(&k, out, tl, v->iv, (size_t)v->il, v->aad,
                              (size_t)v->al, out, n + tl);
        if (v->valid ? (r != 0 || (v->have_pt && memcmp(out, v->pt, n) != 0))
                     : (r != -1 || !all_zero(out, n)))
            tu_fail("%s: open in place returned %d", v->label, r);
        else
            tu_pass();
    }
    if (v->valid && v->have_pt) {
        memcpy(out, v->pt, n);
        if (rijn_gcm_seal(&k, out, tl, v->iv, (size_t)v->il, v->aad,
                          (size_t)v->al, out, n) != 0 ||
            memcmp(out, v->ct, n) != 0 || memcmp(out + n, v->tag, tl) != 0)
            tu_fail("%s: seal in place", v->label);
        else
            tu_pass();
    }
    {
        int r = stream(&k, v, out, v->ct, 1, (uint8_t *)v->tag);
        if (r != (v->valid ? 0 : -1) ||
            (v->valid && v->have_pt && memcmp(out, v->pt, n) != 0))
            tu_fail("%s: streaming decryption/verify returned %d", v->label,
                    r);
        else
            tu_pass();
    }
out:
    rijn_gcm_key_wipe(&k);
}

static void run_file(const char *dir, const struct vfile *vf,
                     unsigned valid, unsigned invalid)
{
    char path[1024];
    reader r;
    unsigned nvalid = 0, ninvalid = 0, index = 0;
    static rec v;
    int rc;

    snprintf(path, sizeof path, "%s/%s", dir, vf->name);
    if (rd_open(&r, path, vf->name, vf->cavp) != 0)
        return;
    while ((rc = rd_next(&r)) == 1) {
        char label[64];
        const char *res;

        rd_label(&r, label, sizeof label);
        snprintf(v.label, sizeof v.label, "%s %s [%s]", vf->name, label,
                 r.section);
        v.kl = rd_hex(&r, vf->cavp ? "Key" : "Key", v.key, sizeof v.key);
        v.il = rd_hex(&r, "IV", v.iv, sizeof v.iv);
        v.al = rd_hex(&r, "AAD", v.aad, sizeof v.aad);
        v.cl = rd_hex(&r, "CT", v.ct, sizeof v.ct);
        v.tl = rd_hex(&r, "Tag", v.tag, sizeof v.tag);
        v.have_pt = 1;
        if (vf->cavp) {
            v.valid = rd_opt(&r, "FAIL") == NULL;
            if (rd_opt(&r, "PT") != NULL)
                v.pl = rd_hex(&r, "PT", v.pt, sizeof v.pt);
            else
                v.have_pt = 0, v.pl = 0;
            if (v.valid && !v.have_pt) {
                tu_fail("%s: a valid record without PT", v.label);
                r.error = 1;
            }
        } else {
            v.pl = rd_hex(&r, "PT", v.pt, sizeof v.pt);
            res = rd_get(&r, "Result");
            rd_opt(&r, "Flags"); /* informational (Wycheproof) */
            v.valid = res != NULL && strcmp(res, "invalid") != 0;
        }
        if (r.error || !rd_all_used(&r))
            break;
        if ((v.kl != 16 && v.kl != 24 && v.kl != 32) || v.tl < 1 ||
            (v.have_pt && v.pl != v.cl)) {
            tu_fail("%s: bad key/tag/length fields", v.label);
            break;
        }
        v.valid ? nvalid++ : ninvalid++;
        index++;
        g_count++;
        if (!vf->cavp || g_stride <= 1 || index % g_stride == 0)
            check(&v);
    }
    rd_close(&r);
    if (rc < 0 || r.error)
        return;
    if (nvalid != valid || ninvalid != invalid)
        tu_fail("%s: %u valid and %u invalid records, expected %u and %u",
                vf->name, nvalid, ninvalid, valid, invalid);
    else
        tu_note("%s: %u valid, %u invalid records%s", vf->name, nvalid,
                ninvalid, vf->cavp && g_stride > 1 ? " (checked a stride)" : "");
}

int main(int argc, char **argv)
{
    size_t i;

    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: test_gcm_vectors AES GHASH DIR [STRIDE]\n");
        return 2;
    }
    g_aes = argv[1];
    g_ghash = argv[2];
    if (argc == 5)
        g_stride = (unsigned)strtoul(argv[4], NULL, 10);
    if (gcm_pair_begin("gcm_vectors", &g_aes, &g_ghash) == NULL)
        return tu_end();
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        run_file(argv[3], &files[i], files[i].valid, files[i].invalid);
    }
    return tu_end();
}
