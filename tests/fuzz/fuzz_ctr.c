/*
 * fuzz_ctr: AES-CTR on every AES backend this CPU runs, against OpenSSL's
 * EVP aes-*-ctr (or, without OpenSSL, the ref backend with fuzzutil.c's
 * own counter; fuzzutil.h).
 *
 * The input picks: the key size and key; the IV, with its low k bytes
 * (k = 0..16) set to ff and the last one lowered by 0..63, so that the
 * message crosses a carry out of byte 16-k (k = 4: the 32-bit boundary the
 * kernels split at; 8: byte 7/8, the two 64-bit halves; 16: the 2^128
 * wrap); the message length (0..4096; the data itself from a PRNG seeded
 * by the input: CTR does not look at it); up to 16 pieces for the
 * streaming API; up to 4 seeks inside the message and one far seek (up
 * to 2^44 blocks ahead); an output misalignment.
 *
 * Per backend: ECB of the message's whole blocks (the bulk block paths),
 * CTR one shot into a misaligned buffer, in place, streaming in
 * the pieces, each seek compared with the linear pass at that offset, the
 * far seek with the oracle run from IV + offset/16. Any difference aborts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzutil.h"
#include "testutil.h"

#define MAX_LEN 4096

/* ctr += n (128-bit big-endian), byte by byte */
static void ctr_add(uint8_t ctr[16], uint64_t n)
{
    unsigned c = 0;
    for (int i = 15; i >= 0; i--) {
        c += ctr[i] + (unsigned)(i >= 8 ? (n >> (8 * (15 - i))) & 0xff : 0);
        ctr[i] = (uint8_t)c;
        c >>= 8;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t pt[MAX_LEN], want[MAX_LEN], got[MAX_LEN + 16];
    fz_in in = {data, size};
    const fz_list *be = fz_aes_backends();
    uint8_t key[32], iv[16];
    size_t kl = 16 + 8 * fz_range(&in, 0, 2);
    tu_rng rng;

    /* the choices first, the bulk bytes last: libFuzzer grows its inputs
     * from short ones, and a missing byte reads as 0 */
    size_t carry_k = fz_range(&in, 0, 16);
    uint8_t delta = fz_u8(&in) & 63;
    size_t len = fz_range(&in, 0, MAX_LEN);
    size_t align = fz_u8(&in) & 15;

    /* streaming pieces: the last one takes the rest */
    size_t npieces = fz_range(&in, 1, 16), piece[16], left = len;
    for (size_t i = 0; i < npieces; i++) {
        piece[i] = i + 1 == npieces ? left : fz_range(&in, 0, left);
        left -= piece[i];
    }
    /* seeks inside the message: offset, length */
    size_t nseek = fz_range(&in, 0, 4), soff[4], slen[4];
    for (size_t i = 0; i < nseek; i++) {
        soff[i] = fz_range(&in, 0, len);
        slen[i] = fz_range(&in, 0, len - soff[i]);
    }
    /* far seek: up to 2^44 blocks ahead, 0..63 bytes read */
    uint64_t far = fz_u64(&in) & ((UINT64_C(1) << 48) - 1);
    size_t far_len = fz_u8(&in) & 63;

    fz_bytes(&in, key, kl);
    fz_bytes(&in, iv, 16);
    if (carry_k > 0) {
        memset(iv + 16 - carry_k, 0xff, carry_k);
        iv[15] = (uint8_t)(iv[15] - delta);
    }
    tu_rng_seed(&rng, fz_u64(&in));
    tu_rng_fill(&rng, pt, len);

    fz_oracle_ctr(key, kl, iv, want, pt, len);
    /* ECB of the message's whole blocks (the backends' bulk block paths) */
    static uint8_t ecb_want[MAX_LEN];
    size_t nb = len / 16;
    fz_oracle_ecb(key, kl, pt, ecb_want, nb);

    uint8_t far_want[16 + 64], far_zero[16 + 64] = {0}, far_iv[16];
    memcpy(far_iv, iv, 16);
    ctr_add(far_iv, far / 16);
    fz_oracle_ctr(key, kl, far_iv, far_want, far_zero, far % 16 + far_len);

    /* the output buffer: exactly len bytes at the chosen misalignment */
    uint8_t *mem = malloc(len + align + 1), *out = mem + align;
    FZ_CHECK(mem != NULL, "out of memory");

    for (size_t b = 0; b < be->n; b++) {
        const char *name = be->name[b];
        rijn_aes_key k;
        rijn_aes_ctr_ctx c;
        char what[96];

        FZ_CHECK(rijn_aes_setkey_impl(&k, key, kl, name) == 0,
                 "%s: key setup failed", name);

        /* ECB, misaligned output */
        rijn_aes_encrypt_blocks(&k, out, pt, nb);
        snprintf(what, sizeof what, "%s: ECB of %zu blocks (AES-%zu) vs %s",
                 name, nb, 8 * kl, fz_oracle_name());
        fz_check_eq(out, ecb_want, 16 * nb, what);

        /* one shot, misaligned output */
        rijn_aes_ctr_key(&k, out, pt, len, iv);
        snprintf(what, sizeof what, "%s: one shot (AES-%zu, len %zu) vs %s",
                 name, 8 * kl, len, fz_oracle_name());
        fz_check_eq(out, want, len, what);

        /* in place */
        memcpy(out, pt, len);
        rijn_aes_ctr_key(&k, out, out, len, iv);
        snprintf(what, sizeof what, "%s: in place (len %zu)", name, len);
        fz_check_eq(out, want, len, what);

        /* streaming in pieces */
        FZ_CHECK(rijn_aes_ctr_init_impl(&c, key, kl, iv, name) == 0,
                 "%s: ctr init failed", name);
        size_t off = 0;
        for (size_t i = 0; i < npieces; i++) {
            rijn_aes_ctr_xor(&c, got + off, pt + off, piece[i]);
            off += piece[i];
        }
        snprintf(what, sizeof what, "%s: streaming in %zu pieces (len %zu)",
                 name, npieces, len);
        fz_check_eq(got, want, len, what);

        /* seeks within the message, from wherever the stream is */
        for (size_t i = 0; i < nseek; i++) {
            rijn_aes_ctr_seek(&c, soff[i]);
            rijn_aes_ctr_xor(&c, got, pt + soff[i], slen[i]);
            snprintf(what, sizeof what, "%s: seek to %zu, %zu bytes", name,
                     soff[i], slen[i]);
            fz_check_eq(got, want + soff[i], slen[i], what);
        }

        /* far seek */
        rijn_aes_ctr_seek(&c, far);
        rijn_aes_ctr_xor(&c, got, far_zero, far_len);
        snprintf(what, sizeof what, "%s: far seek to %llu, %zu bytes", name,
                 (unsigned long long)far, far_len);
        fz_check_eq(got, far_want + far % 16, far_len, what);

        rijn_aes_ctr_wipe(&c);
        rijn_aes_key_wipe(&k);
    }

    /* the one-shot function with the raw key and the default backend */
    FZ_CHECK(rijn_aes_ctr(out, pt, len, key, kl, iv) == 0, "rijn_aes_ctr");
    fz_check_eq(out, want, len, "rijn_aes_ctr (default backend)");
    free(mem);
    return 0;
}
