/*
 * fuzz_gcm: AES-GCM on one AES backend x GHASH engine pairing per input
 * (any pairing this CPU runs), against OpenSSL's EVP aes-*-gcm (or, without
 * OpenSSL, fuzzutil.c's bit-by-bit GCM over the ref backend).
 *
 * The input picks: the pairing; key size and key; the IV: 12 bytes, 1..64
 * random bytes, or 16..64 bytes solved (in GF(2^128), from H) so that J0
 * ends in ff ff ff ff - 0..63, which makes inc32 wrap inside the message;
 * the tag length (12..16); AAD and data lengths (0..600, 0..4096; their
 * bytes from a PRNG seeded by the input); the pieces of the streaming
 * calls (AAD and data separately); the misalignment of the buffers; one
 * forgery (a flipped bit of the tag, the ciphertext, the AAD or the IV).
 *
 * Checks: one-shot encrypt (misaligned) and seal in place against the
 * oracle (ciphertext and tag); streaming encryption in the pieces; decrypt
 * and open in place of the right tag return the plaintext; the streaming
 * decryption verifies; the forgery is rejected by decrypt, open (output
 * all zero, in place too) and the streaming verify; a refused tag length
 * (0..11, 17..64) makes encrypt write nothing and decrypt and open leave
 * their output all zero; streaming calls out of order fail and leave the
 * context failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzutil.h"
#include "rijn_gcm.h"
#include "testutil.h"

#define MAX_LEN 4096
#define MAX_AAD 600

static size_t cut(fz_in *in, size_t *piece, size_t max, size_t len)
{
    size_t n = fz_range(in, 1, max), left = len;
    for (size_t i = 0; i < n; i++) {
        piece[i] = i + 1 == n ? left : fz_range(in, 0, left);
        left -= piece[i];
    }
    return n;
}

/* An IV of iv_len (a multiple of 16) bytes whose J0 is `target`: the
 * first iv_len - 16 bytes as given, the last block solved. */
static void aim_iv(uint8_t *iv, size_t iv_len, const uint8_t h[16],
                   const uint8_t target[16])
{
    uint8_t y[16] = {0}, hinv[16], lens[16] = {0}, t[16];
    size_t m = iv_len / 16;

    for (size_t i = 0; i + 1 < m; i++) { /* Y_i = (Y_{i-1} ^ X_i) H */
        for (int j = 0; j < 16; j++)
            y[j] ^= iv[16 * i + j];
        fz_gf_mul(y, y, h);
    }
    for (int j = 0; j < 8; j++)
        lens[8 + j] = (uint8_t)((uint64_t)iv_len * 8 >> (56 - 8 * j));
    fz_gf_inv(hinv, h);
    /* J0 = (Y_m ^ L) H, Y_m = (Y_{m-1} ^ X_m) H */
    fz_gf_mul(t, target, hinv);
    for (int j = 0; j < 16; j++)
        t[j] ^= lens[j];
    fz_gf_mul(t, t, hinv);
    for (int j = 0; j < 16; j++)
        iv[16 * (m - 1) + j] = t[j] ^ y[j];

    /* the harness checks itself: GHASH of the IV gives the target */
    memset(y, 0, 16);
    for (size_t i = 0; i <= m; i++) {
        const uint8_t *x = i < m ? iv + 16 * i : lens;
        for (int j = 0; j < 16; j++)
            y[j] ^= x[j];
        fz_gf_mul(y, y, h);
    }
    FZ_CHECK(memcmp(y, target, 16) == 0, "aim_iv: J0 misses its target");
}

/* Streaming, AAD in pieces ap[0..na) and data in pieces dp[0..nd):
 * encryption (tag written; returns 0) or decryption (out gets the
 * unverified plaintext; 0 if the tag verifies). */
static int stream(const rijn_gcm_key *k, int dec, const uint8_t *iv,
                  size_t il, const uint8_t *aad, const size_t *ap, size_t na,
                  const uint8_t *in, const size_t *dp, size_t nd,
                  uint8_t *out, uint8_t *tag, size_t tl)
{
    rijn_gcm_ctx c;
    size_t off = 0;
    FZ_CHECK(rijn_gcm_start(&c, k, iv, il) == 0, "gcm_start");
    for (size_t i = 0; i < na; i++) {
        FZ_CHECK(rijn_gcm_aad(&c, aad + off, ap[i]) == 0, "gcm_aad");
        off += ap[i];
    }
    off = 0;
    for (size_t i = 0; i < nd; i++) {
        FZ_CHECK((dec ? rijn_gcm_decrypt_update
                      : rijn_gcm_encrypt_update)(&c, out + off, in + off,
                                                 dp[i]) == 0,
                 dec ? "gcm_decrypt_update" : "gcm_encrypt_update");
        off += dp[i];
    }
    if (dec)
        return rijn_gcm_verify(&c, tag, tl);
    FZ_CHECK(rijn_gcm_finish(&c, tag, tl) == 0, "gcm_finish");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t pt[MAX_LEN], aad[MAX_AAD], want[MAX_LEN + 16],
        got[MAX_LEN + 16];
    fz_in in = {data, size};
    const fz_list *be = fz_aes_backends(), *ge = fz_ghash_engines();
    /* the choices first, the bulk bytes last: libFuzzer grows its inputs
     * from short ones, and a missing byte reads as 0 */
    const char *aes = be->name[fz_u8(&in) % be->n];
    const char *gh = ge->name[fz_u8(&in) % ge->n];
    unsigned ivmode = fz_u8(&in) & 3;
    size_t tl = fz_range(&in, 12, 16);
    size_t al = fz_range(&in, 0, MAX_AAD), len = fz_range(&in, 0, MAX_LEN);
    size_t align = fz_u8(&in) & 15;
    size_t ap[16], dp[16], na = cut(&in, ap, 16, al), nd = cut(&in, dp, 16, len);
    unsigned forge = fz_u8(&in) & 3;
    size_t fbit = fz_u16(&in);
    uint8_t key[32], iv[64], want_tag[16], tag[16];
    size_t kl = 16 + 8 * fz_range(&in, 0, 2), il;
    tu_rng rng;
    char what[160];

    fz_bytes(&in, key, kl);
    switch (ivmode) {
    case 0:
    case 1:
        il = 12;
        fz_bytes(&in, iv, il);
        break;
    case 2:
        il = fz_range(&in, 1, 64);
        fz_bytes(&in, iv, il);
        break;
    default: { /* J0 = random 96 bits || ffffffff - delta */
        static const uint8_t zero[16];
        uint8_t h[16], j0[16];
        il = 16 * fz_range(&in, 1, 4);
        j0[15] = (uint8_t)(0xff - (fz_u8(&in) & 63));
        fz_bytes(&in, iv, il - 16);
        fz_bytes(&in, j0, 12);
        j0[12] = j0[13] = j0[14] = 0xff;
        fz_oracle_aes(key, kl, zero, h);
        if (!fz_all_zero(h, 16))
            aim_iv(iv, il, h, j0);
        else
            memset(iv + il - 16, 0, 16);
        break;
    }
    }
    tu_rng_seed(&rng, fz_u64(&in));
    tu_rng_fill(&rng, aad, al);
    tu_rng_fill(&rng, pt, len);
    /* a tag length the functions refuse: 0..11 or 17..64 (read last, so
     * that the inputs of before it kept their meaning) */
    uint8_t v = fz_u8(&in);
    size_t bad_tl = v & 1 ? (size_t)(v >> 1) % 12 : 17 + (size_t)(v >> 1) % 48;
    unsigned misuse = fz_u8(&in) & 3;

    rijn_gcm_key k;
    FZ_CHECK(rijn_gcm_setkey_impl(&k, key, kl, aes, gh) == 0,
             "%s x %s: key setup failed", aes, gh);
    snprintf(what, sizeof what,
             "%s x %s (AES-%zu, iv %zu, aad %zu, len %zu, tag %zu) vs %s",
             aes, gh, 8 * kl, il, al, len, tl, fz_oracle_name());

    fz_oracle_gcm(key, kl, iv, il, aad, al, pt, len, want, want_tag);

    /* buffers of exactly the size used, misaligned */
    uint8_t *mem = malloc(len + 16 + align), *buf = mem + align;
    FZ_CHECK(mem != NULL, "out of memory");

    /* one shot */
    FZ_CHECK(rijn_gcm_encrypt(&k, buf, tag, tl, iv, il, aad, al, pt, len) == 0,
             "%s: encrypt failed", what);
    fz_check_eq(buf, want, len, what);
    fz_check_eq(tag, want_tag, tl, what);

    /* seal in place: ct || tag */
    memcpy(buf, pt, len);
    FZ_CHECK(rijn_gcm_seal(&k, buf, tl, iv, il, aad, al, buf, len) == 0,
             "%s: seal failed", what);
    fz_check_eq(buf, want, len, "seal in place: ciphertext");
    fz_check_eq(buf + len, want_tag, tl, "seal in place: tag");

    /* streaming encryption */
    stream(&k, 0, iv, il, aad, ap, na, pt, dp, nd, got, tag, tl);
    fz_check_eq(got, want, len, "streaming encryption: ciphertext");
    fz_check_eq(tag, want_tag, tl, "streaming encryption: tag");

    /* the right tag: decrypt, open in place, streaming */
    FZ_CHECK(rijn_gcm_decrypt(&k, buf, want_tag, tl, iv, il, aad, al, want,
                              len) == 0,
             "%s: decrypt rejects the right tag", what);
    fz_check_eq(buf, pt, len, "decrypt");
    memcpy(buf, want, len);
    memcpy(buf + len, want_tag, tl);
    FZ_CHECK(rijn_gcm_open(&k, buf, tl, iv, il, aad, al, buf, len + tl) == 0,
             "%s: open in place rejects the right tag", what);
    fz_check_eq(buf, pt, len, "open in place");
    FZ_CHECK(stream(&k, 1, iv, il, aad, ap, na, want, dp, nd, got, want_tag,
                        tl) == 0,
             "%s: streaming decryption rejects the right tag", what);
    fz_check_eq(got, pt, len, "streaming decryption");

    /* one forgery: a flipped bit of the tag, the ciphertext, the AAD or
     * the IV (what has no bit left falls back to the tag) */
    {
        static uint8_t ct2[MAX_LEN + 16], aad2[MAX_AAD];
        uint8_t tag2[16], iv2[64];
        memcpy(ct2, want, len);
        memcpy(aad2, aad, al);
        memcpy(tag2, want_tag, tl);
        memcpy(iv2, iv, il);
        const char *fw;
        if (forge == 1 && len > 0) {
            ct2[fbit / 8 % len] ^= (uint8_t)(1u << fbit % 8);
            fw = "ciphertext";
        } else if (forge == 2 && al > 0) {
            aad2[fbit / 8 % al] ^= (uint8_t)(1u << fbit % 8);
            fw = "AAD";
        } else if (forge == 3) {
            iv2[fbit / 8 % il] ^= (uint8_t)(1u << fbit % 8);
            fw = "IV";
        } else {
            tag2[fbit / 8 % tl] ^= (uint8_t)(1u << fbit % 8);
            fw = "tag";
        }
        memset(buf, 0xa5, len);
        FZ_CHECK(rijn_gcm_decrypt(&k, buf, tag2, tl, iv2, il, aad2, al, ct2,
                                  len) != 0,
                 "%s: decrypt accepts a flipped %s bit (bit %zu)", what, fw,
                 fbit);
        FZ_CHECK(fz_all_zero(buf, len),
                 "%s: rejected decrypt left output (forged %s)", what, fw);
        memcpy(buf, ct2, len);
        memcpy(buf + len, tag2, tl);
        FZ_CHECK(rijn_gcm_open(&k, buf, tl, iv2, il, aad2, al, buf,
                               len + tl) != 0,
                 "%s: open accepts a flipped %s bit", what, fw);
        FZ_CHECK(fz_all_zero(buf, len),
                 "%s: rejected open in place left output (forged %s)", what,
                 fw);
        FZ_CHECK(stream(&k, 1, iv2, il, aad2, ap, na, ct2, dp, nd, got, tag2,
                            tl) != 0,
                 "%s: streaming verify accepts a flipped %s bit", what, fw);
    }

    /* a refused tag length: -1; encrypt writes nothing, decrypt and open
     * leave their output all zero (rijn_gcm.h) */
    {
        static uint8_t big[MAX_LEN + 64];
        memset(buf, 0xa5, len);
        memset(tag, 0x5a, 16);
        FZ_CHECK(rijn_gcm_encrypt(&k, buf, tag, bad_tl, iv, il, aad, al, pt,
                                  len) != 0,
                 "%s: encrypt accepts tag length %zu", what, bad_tl);
        for (size_t i = 0; i < len; i++)
            FZ_CHECK(buf[i] == 0xa5, "%s: refused encrypt (tag length %zu) "
                     "wrote the output", what, bad_tl);
        for (size_t i = 0; i < 16; i++)
            FZ_CHECK(tag[i] == 0x5a, "%s: refused encrypt (tag length %zu) "
                     "wrote the tag", what, bad_tl);
        memset(buf, 0xa5, len);
        FZ_CHECK(rijn_gcm_decrypt(&k, buf, want_tag, bad_tl, iv, il, aad, al,
                                  want, len) != 0,
                 "%s: decrypt accepts tag length %zu", what, bad_tl);
        FZ_CHECK(fz_all_zero(buf, len),
                 "%s: decrypt refusing tag length %zu left output", what,
                 bad_tl);
        /* open: ciphertext || bad_tl bytes of "tag" */
        memcpy(big, want, len);
        memcpy(big + len, want_tag, bad_tl < 16 ? bad_tl : 16);
        memset(big + len + 16, 0, bad_tl > 16 ? bad_tl - 16 : 0);
        FZ_CHECK(rijn_gcm_open(&k, big, bad_tl, iv, il, aad, al, big,
                               len + bad_tl) != 0,
                 "%s: open accepts tag length %zu", what, bad_tl);
        FZ_CHECK(fz_all_zero(big, len),
                 "%s: open refusing tag length %zu left output", what, bad_tl);
    }

    /* the streaming calls out of order: AAD after data (1), decryption
     * after encryption (2), encryption after decryption (3): -1, and the
     * context stays failed (finish and verify fail too) */
    if (misuse) {
        rijn_gcm_ctx c;
        uint8_t t2[16];
        size_t half = len / 2;
        int r;
        FZ_CHECK(rijn_gcm_start(&c, &k, iv, il) == 0, "gcm_start");
        FZ_CHECK(rijn_gcm_aad(&c, aad, al) == 0, "gcm_aad");
        if (misuse == 1) {
            FZ_CHECK(rijn_gcm_encrypt_update(&c, got, pt, len) == 0,
                     "gcm_encrypt_update");
            r = rijn_gcm_aad(&c, aad, al);
        } else if (misuse == 2) {
            FZ_CHECK(rijn_gcm_encrypt_update(&c, got, pt, half) == 0,
                     "gcm_encrypt_update");
            r = rijn_gcm_decrypt_update(&c, got + half, want + half,
                                        len - half);
        } else {
            FZ_CHECK(rijn_gcm_decrypt_update(&c, got, want, half) == 0,
                     "gcm_decrypt_update");
            r = rijn_gcm_encrypt_update(&c, got + half, pt + half,
                                        len - half);
        }
        FZ_CHECK(r != 0, "%s: out-of-order streaming call %u accepted", what,
                 misuse);
        FZ_CHECK(rijn_gcm_finish(&c, t2, tl) != 0,
                 "%s: finish after a failed call (%u) succeeds", what, misuse);
        FZ_CHECK(rijn_gcm_verify(&c, want_tag, tl) != 0,
                 "%s: verify after a failed call (%u) succeeds", what, misuse);
    }

    free(mem);
    rijn_gcm_key_wipe(&k);
    return 0;
}
