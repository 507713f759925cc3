/*
 * vectors: known-answer tests through the public API, on one backend.
 *
 *   usage: test_vectors BACKEND VECTOR_DIR
 *
 * Files (tests/vectors/, each opening with a "# Provenance:" line):
 *   fips197.txt              FIPS-197 appendix B and C.1-C.3 cipher examples.
 *                            The appendix A key-expansion records are skipped
 *                            (counted): round keys are in each backend's own
 *                            layout and the public API cannot reach them.
 *   ECB{GFSbox,KeySbox,VarKey,VarTxt,MMT}{128,192,256}.rsp
 *                            NIST CAVP AESAVS known answers; [ENCRYPT]
 *                            records are checked with rijn_aes_encrypt_blocks
 *                            (multi-block, in-place, one block per call) and,
 *                            block by block, as a 16-byte CTR keystream with
 *                            the plaintext block as IV; [DECRYPT] records are
 *                            skipped (counted): rijn has no AES decryption.
 *   ECBMCT{128,192,256}.rsp  AESAVS Monte Carlo, [ENCRYPT] records: 1000
 *                            chained encryptions per record (even COUNT
 *                            through ECB, odd COUNT through the CTR kernel
 *                            as E(x) = CTR(key, IV = x) XOR 0), plus the
 *                            AESAVS key/plaintext chaining into the next
 *                            record.
 *   sp800-38a-ctr.txt        SP 800-38A F.5.1-F.5.6, CTR encrypt and decrypt.
 *   rfc3686-aes-*-ctr.txt    RFC 3686; IV = nonce || IV || counter.
 *   CTR records are checked one-shot (rijn_aes_ctr_key), in-place, and
 *   streaming (rijn_aes_ctr_init_impl + rijn_aes_ctr_xor) one byte per call
 *   and 7 bytes per call.
 *
 * The records are read with tests/reader.c (a record attribute that the
 * test did not consume is an error), and the number of records checked and
 * skipped in every file must match the table below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "testutil.h"

enum kind { K_FIPS, K_ECB, K_MCT, K_CTR };

static const struct vfile {
    const char *name;
    enum kind kind;
    size_t key_len;   /* 0: any of 16/24/32 */
    unsigned checked; /* records expected to be checked */
    unsigned skipped; /* records expected to be skipped */
} files[] = {
    {"fips197.txt", K_FIPS, 0, 4, 3},
    {"ECBGFSbox128.rsp", K_ECB, 16, 7, 7},
    {"ECBGFSbox192.rsp", K_ECB, 24, 6, 6},
    {"ECBGFSbox256.rsp", K_ECB, 32, 5, 5},
    {"ECBKeySbox128.rsp", K_ECB, 16, 21, 21},
    {"ECBKeySbox192.rsp", K_ECB, 24, 24, 24},
    {"ECBKeySbox256.rsp", K_ECB, 32, 16, 16},
    {"ECBVarKey128.rsp", K_ECB, 16, 128, 128},
    {"ECBVarKey192.rsp", K_ECB, 24, 192, 192},
    {"ECBVarKey256.rsp", K_ECB, 32, 256, 256},
    {"ECBVarTxt128.rsp", K_ECB, 16, 128, 128},
    {"ECBVarTxt192.rsp", K_ECB, 24, 128, 128},
    {"ECBVarTxt256.rsp", K_ECB, 32, 128, 128},
    {"ECBMMT128.rsp", K_ECB, 16, 10, 10},
    {"ECBMMT192.rsp", K_ECB, 24, 10, 10},
    {"ECBMMT256.rsp", K_ECB, 32, 10, 10},
    {"ECBMCT128.rsp", K_MCT, 16, 100, 100},
    {"ECBMCT192.rsp", K_MCT, 24, 100, 100},
    {"ECBMCT256.rsp", K_MCT, 32, 100, 100},
    {"sp800-38a-ctr.txt", K_CTR, 0, 6, 0},
    {"rfc3686-aes-128-ctr.txt", K_CTR, 16, 3, 0},
    {"rfc3686-aes-192-ctr.txt", K_CTR, 24, 3, 0},
    {"rfc3686-aes-256-ctr.txt", K_CTR, 32, 3, 0},
};

/* ---- checks ---------------------------------------------------------- */
static const char *g_backend;
static unsigned g_checked, g_skipped;

#define MAX_DATA 1024

static int key_len_ok(reader *r, long kl, size_t want)
{
    if ((kl != 16 && kl != 24 && kl != 32) || (want != 0 && (size_t)kl != want)) {
        tu_fail("%s:%d: key length %ld, expected %zu", r->path, r->rec_line,
                kl, want);
        r->error = 1;
        return 0;
    }
    return 1;
}

/* One ECB known answer: key, plaintext (nblocks) -> ciphertext. */
static void check_ecb(reader *r, const char *label, size_t want_kl)
{
    uint8_t key[32], pt[MAX_DATA], ct[MAX_DATA], zero[16] = {0};
    char what[256];
    long kl = rd_hex(r, "KEY", key, sizeof key);
    long pl = rd_hex(r, "PLAINTEXT", pt, sizeof pt);
    long cl = rd_hex(r, "CIPHERTEXT", ct, sizeof ct);
    rijn_aes_key k;
    tu_buf out;
    size_t nb, i;

    if (kl < 0 || pl < 0 || cl < 0 || !key_len_ok(r, kl, want_kl) ||
        !rd_all_used(r))
        return;
    if (pl != cl || pl == 0 || pl % 16 != 0) {
        tu_fail("%s:%d: plaintext/ciphertext lengths %ld/%ld", r->path,
                r->rec_line, pl, cl);
        return;
    }
    if (tu_setkey(&k, key, (size_t)kl, g_backend) != 0)
        return;
    nb = (size_t)pl / 16;
    g_checked++;

    snprintf(what, sizeof what, "%s %s AES-%ld ECB %zu blocks", r->path,
             label, kl * 8, nb);
    tu_buf_init(&out, (size_t)pl, 0);
    rijn_aes_encrypt_blocks(&k, out.p, pt, nb);
    tu_check_eq(out.p, ct, (size_t)pl, what);
    tu_buf_guards_ok(&out, what);

    /* in place */
    memcpy(out.p, pt, (size_t)pl);
    rijn_aes_encrypt_blocks(&k, out.p, out.p, nb);
    snprintf(what, sizeof what, "%s %s AES-%ld ECB in-place %zu blocks",
             r->path, label, kl * 8, nb);
    tu_check_eq(out.p, ct, (size_t)pl, what);
    tu_buf_guards_ok(&out, what);
    tu_buf_free(&out);

    for (i = 0; i < nb; i++) {
        uint8_t blk[16];
        rijn_aes_encrypt_blocks(&k, blk, pt + 16 * i, 1);
        snprintf(what, sizeof what, "%s %s AES-%ld ECB block %zu alone",
                 r->path, label, kl * 8, i);
        tu_check_eq(blk, ct + 16 * i, 16, what);
        /* E(P) as the first keystream block of CTR with IV = P. */
        rijn_aes_ctr_key(&k, blk, zero, 16, pt + 16 * i);
        snprintf(what, sizeof what,
                 "%s %s AES-%ld block %zu as CTR keystream (IV = plaintext)",
                 r->path, label, kl * 8, i);
        tu_check_eq(blk, ct + 16 * i, 16, what);
    }
    rijn_aes_key_wipe(&k);
}

/* AESAVS Monte Carlo state carried from one ECB MCT record to the next. */
typedef struct {
    int have;
    uint8_t key[32];
    uint8_t pt[16];
} mct_chain;

static void check_mct(reader *r, const char *label, size_t want_kl,
                      mct_chain *ch)
{
    uint8_t key[32], pt[16], ct[16], cur[16], prev[16], zero[16] = {0};
    char what[256];
    long kl = rd_hex(r, "KEY", key, sizeof key);
    long pl = rd_hex(r, "PLAINTEXT", pt, sizeof pt);
    long cl = rd_hex(r, "CIPHERTEXT", ct, sizeof ct);
    const char *count;
    int use_ctr, j;
    size_t i, n;
    rijn_aes_key k;

    if (kl < 0 || pl < 0 || cl < 0 || !key_len_ok(r, kl, want_kl) ||
        !rd_all_used(r))
        return;
    if (pl != 16 || cl != 16) {
        tu_fail("%s:%d: MCT plaintext/ciphertext must be 16 bytes", r->path,
                r->rec_line);
        return;
    }
    count = strchr(label, ' ');
    use_ctr = count != NULL && (atoi(count + 1) & 1);
    g_checked++;

    /* The previous record's result must chain into this one. */
    if (ch->have) {
        snprintf(what, sizeof what, "%s %s AES-%ld MCT chained KEY", r->path,
                 label, kl * 8);
        tu_check_eq(key, ch->key, (size_t)kl, what);
        snprintf(what, sizeof what, "%s %s AES-%ld MCT chained PLAINTEXT",
                 r->path, label, kl * 8);
        tu_check_eq(pt, ch->pt, 16, what);
    }

    if (tu_setkey(&k, key, (size_t)kl, g_backend) != 0)
        return;
    memcpy(cur, pt, 16);
    memset(prev, 0, 16);
    for (j = 0; j < 1000; j++) {
        memcpy(prev, cur, 16);
        if (use_ctr)
            rijn_aes_ctr_key(&k, cur, zero, 16, prev);
        else
            rijn_aes_encrypt_blocks(&k, cur, prev, 1);
    }
    /* Now cur = CT[999] and prev = CT[998]. */
    snprintf(what, sizeof what, "%s %s AES-%ld MCT 1000 encryptions via %s",
             r->path, label, kl * 8, use_ctr ? "CTR" : "ECB");
    tu_check_eq(cur, ct, 16, what);
    rijn_aes_key_wipe(&k);

    /* AESAVS: Key[i+1] = Key[i] XOR the last kl bytes of CT[998] || CT[999];
     * PT[0] of the next record = CT[999]. */
    n = (size_t)kl;
    for (i = 0; i < n; i++) {
        size_t from_end = n - i; /* 1..n bytes before the end of CT[999] */
        uint8_t b = from_end <= 16 ? cur[16 - from_end]
                                   : prev[32 - from_end];
        ch->key[i] = (uint8_t)(key[i] ^ b);
    }
    memcpy(ch->pt, cur, 16);
    ch->have = 1;
}

static void ctr_stream(const rijn_aes_ctr_ctx *init, uint8_t *out,
                       const uint8_t *in, size_t len, size_t step)
{
    rijn_aes_ctr_ctx c = *init;
    size_t off = 0;
    while (off < len) {
        size_t m = len - off < step ? len - off : step;
        rijn_aes_ctr_xor(&c, out + off, in + off, m);
        off += m;
    }
    rijn_aes_ctr_wipe(&c);
}

static void check_ctr(reader *r, const char *label, size_t want_kl, int enc)
{
    uint8_t key[32], iv[16], pt[MAX_DATA], ct[MAX_DATA];
    const uint8_t *in, *want;
    char what[256];
    long kl = rd_hex(r, "KEY", key, sizeof key);
    long il = rd_hex(r, "IV", iv, sizeof iv);
    long pl = rd_hex(r, "PLAINTEXT", pt, sizeof pt);
    long cl = rd_hex(r, "CIPHERTEXT", ct, sizeof ct);
    const char *dir = enc ? "encrypt" : "decrypt";
    rijn_aes_key k;
    rijn_aes_ctr_ctx c;
    tu_buf out;
    size_t len, steps[2] = {1, 7}, s;

    if (kl < 0 || il < 0 || pl < 0 || cl < 0 || !key_len_ok(r, kl, want_kl) ||
        !rd_all_used(r))
        return;
    if (il != 16 || pl != cl) {
        tu_fail("%s:%d: IV length %ld, plaintext/ciphertext lengths %ld/%ld",
                r->path, r->rec_line, il, pl, cl);
        return;
    }
    if (tu_setkey(&k, key, (size_t)kl, g_backend) != 0)
        return;
    g_checked++;
    len = (size_t)pl;
    in = enc ? pt : ct;
    want = enc ? ct : pt;

    tu_buf_init(&out, len, 3);
    rijn_aes_ctr_key(&k, out.p, in, len, iv);
    snprintf(what, sizeof what, "%s %s AES-%ld CTR %s one-shot len %zu",
             r->path, label, kl * 8, dir, len);
    tu_check_eq(out.p, want, len, what);
    tu_buf_guards_ok(&out, what);

    memcpy(out.p, in, len);
    rijn_aes_ctr_key(&k, out.p, out.p, len, iv);
    snprintf(what, sizeof what, "%s %s AES-%ld CTR %s in-place len %zu",
             r->path, label, kl * 8, dir, len);
    tu_check_eq(out.p, want, len, what);
    tu_buf_guards_ok(&out, what);

    if (rijn_aes_ctr_init_impl(&c, key, (size_t)kl, iv, g_backend) != 0) {
        tu_fail("%s %s: rijn_aes_ctr_init_impl failed", r->path, label);
    } else {
        for (s = 0; s < 2; s++) {
            memset(out.p, 0, len);
            ctr_stream(&c, out.p, in, len, steps[s]);
            snprintf(what, sizeof what,
                     "%s %s AES-%ld CTR %s streaming %zu byte(s) per call",
                     r->path, label, kl * 8, dir, steps[s]);
            tu_check_eq(out.p, want, len, what);
            tu_buf_guards_ok(&out, what);
        }
        rijn_aes_ctr_wipe(&c);
    }
    tu_buf_free(&out);
    rijn_aes_key_wipe(&k);
}

static void run_file(const char *dir, const struct vfile *vf)
{
    char path[1024], label[64];
    reader r;
    mct_chain chain;
    unsigned checked0 = g_checked, skipped0 = g_skipped;
    int rc;

    snprintf(path, sizeof path, "%s/%s", dir, vf->name);
    memset(&chain, 0, sizeof chain);
    if (rd_open(&r, path, vf->name, 0) != 0)
        return;
    while ((rc = rd_next(&r)) == 1) {
        int enc = strcmp(r.section, "ENCRYPT") == 0;
        int dec = strcmp(r.section, "DECRYPT") == 0;

        rd_label(&r, label, sizeof label);
        if (vf->kind == K_FIPS && strcmp(r.section, "KEYEXPANSION") == 0) {
            g_skipped++; /* round keys are not reachable through the API */
            continue;
        }
        if ((vf->kind == K_ECB || vf->kind == K_MCT) && dec) {
            g_skipped++; /* no AES decryption in rijn */
            continue;
        }
        if (vf->kind == K_CTR && (enc || dec)) {
            check_ctr(&r, label, vf->key_len, enc);
        } else if (enc && vf->kind == K_MCT) {
            check_mct(&r, label, vf->key_len, &chain);
        } else if (enc) {
            check_ecb(&r, label, vf->key_len);
        } else {
            tu_fail("%s:%d: unexpected section [%s]", r.path, r.rec_line,
                    r.section);
            r.error = 1;
        }
        if (r.error)
            break;
    }
    rd_close(&r);
    if (rc < 0 || r.error)
        return;
    if (g_checked - checked0 != vf->checked ||
        g_skipped - skipped0 != vf->skipped)
        tu_fail("%s: checked %u records and skipped %u, expected %u and %u",
                vf->name, g_checked - checked0, g_skipped - skipped0,
                vf->checked, vf->skipped);
}

int main(int argc, char **argv)
{
    size_t i;

    if (argc != 3) {
        fprintf(stderr, "usage: %s BACKEND VECTOR_DIR\n", argv[0]);
        return 2;
    }
    g_backend = argv[1];
    tu_begin("vectors", g_backend);
    for (i = 0; i < sizeof files / sizeof files[0]; i++)
        run_file(argv[2], &files[i]);
    tu_note("%u records checked, %u skipped (FIPS-197 key expansion, "
            "CAVP [DECRYPT])", g_checked, g_skipped);
    return tu_end();
}
