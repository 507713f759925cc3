/*
 * ctgrind: constant-time validation of one backend under valgrind memcheck.
 *
 *   usage: valgrind --tool=memcheck --error-exitcode=42 test_ctgrind BACKEND
 *   (normally through ctgrind.sh, which also decides the expected outcome)
 *
 * Built only with -DRIJN_CTGRIND=ON, where RIJN_SECRET marks memory as
 * undefined to memcheck and RIJN_PUBLIC as defined again. The key bytes and
 * the plaintext are marked secret BEFORE any library call, so the key
 * schedule (rijn_aes_setkey_impl / rijn_aes_ctr_init_impl), ECB, one-shot
 * CTR and streaming CTR all run on secret data; memcheck then reports every
 * conditional branch or memory address that depends on it. Outputs are
 * declassified with RIJN_PUBLIC before the program compares anything, so the
 * checks below cannot themselves be reported.
 *
 * Expected: no memcheck error for a backend whose rijn_impl_info says
 * constant_time = 1; errors (exit 42 from valgrind) for the others, `ref`
 * included, which shows that the harness does see leaks. The program prints
 * "constant_time=N" for the wrapper and the usual closing line.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

static const char *g_backend;

static void public_eq(uint8_t *got, const uint8_t *want_public, size_t n,
                      const char *what)
{
    RIJN_PUBLIC(got, n);
    tu_check_eq(got, want_public, n, what);
}

static void run_key_size(size_t kl, tu_rng *rng)
{
    static const size_t lens[] = {0, 1, 15, 16, 17, 31, 33, 64, 100, 257};
    uint8_t key[32], iv[16], msg[257], ref_out[257], out[257];
    uint8_t ecb_in[9 * 16], ecb_out[9 * 16], ecb_ks[9 * 16];
    uint8_t zero[9 * 16] = {0};
    rijn_aes_key k;
    rijn_aes_ctr_ctx c;
    char what[128];
    size_t i, nb;

    tu_rng_fill(rng, key, kl);
    tu_rng_fill(rng, iv, 16);
    tu_rng_fill(rng, msg, sizeof msg);
    tu_rng_fill(rng, ecb_in, sizeof ecb_in);

    /* Public reference results, computed before anything is marked. */
    if (tu_setkey(&k, key, kl, g_backend) != 0)
        return;
    rijn_aes_ctr_key(&k, ref_out, msg, sizeof msg, iv);
    rijn_aes_key_wipe(&k);

    /* From here on the key and the plaintext are secret. */
    RIJN_SECRET(key, kl);
    RIJN_SECRET(msg, sizeof msg);
    RIJN_SECRET(ecb_in, sizeof ecb_in);

    if (tu_setkey(&k, key, kl, g_backend) != 0)
        return;

    /* ECB on 1..9 blocks, compared with CTR keystream over the same
     * blocks used as counters (E(x) = CTR(IV = x) XOR 0). */
    for (nb = 1; nb <= 9; nb++) {
        rijn_aes_encrypt_blocks(&k, ecb_out, ecb_in, nb);
        for (i = 0; i < nb; i++) {
            uint8_t ivb[16];
            memcpy(ivb, ecb_in + 16 * i, 16);
            RIJN_PUBLIC(ivb, 16); /* the counter itself is public */
            rijn_aes_ctr_key(&k, ecb_ks + 16 * i, zero, 16, ivb);
        }
        RIJN_PUBLIC(ecb_ks, 16 * nb);
        snprintf(what, sizeof what, "AES-%zu ECB %zu blocks vs CTR", kl * 8,
                 nb);
        public_eq(ecb_out, ecb_ks, 16 * nb, what);
    }

    /* One-shot CTR, several lengths including partial blocks; in-place. */
    for (i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        size_t len = lens[i];
        rijn_aes_ctr_key(&k, out, msg, len, iv);
        snprintf(what, sizeof what, "AES-%zu CTR one-shot len %zu", kl * 8,
                 len);
        public_eq(out, ref_out, len, what);
        memcpy(out, msg, len);
        rijn_aes_ctr_key(&k, out, out, len, iv);
        snprintf(what, sizeof what, "AES-%zu CTR in-place len %zu", kl * 8,
                 len);
        public_eq(out, ref_out, len, what);
    }
    rijn_aes_key_wipe(&k);

    /* Streaming: key schedule inside rijn_aes_ctr_init_impl, uneven splits,
     * a seek. */
    if (rijn_aes_ctr_init_impl(&c, key, kl, iv, g_backend) != 0) {
        tu_fail("rijn_aes_ctr_init_impl(%zu) failed", kl);
        return;
    }
    {
        static const size_t cuts[][2] = {{1, 15}, {7, 33}, {16, 17},
                                         {31, 100}, {0, 257}};
        for (i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
            size_t a = cuts[i][0], b = cuts[i][1];
            rijn_aes_ctr_setiv(&c, iv);
            rijn_aes_ctr_xor(&c, out, msg, a);
            rijn_aes_ctr_xor(&c, out + a, msg + a, b - a);
            rijn_aes_ctr_xor(&c, out + b, msg + b, sizeof msg - b);
            snprintf(what, sizeof what,
                     "AES-%zu CTR streaming split (%zu,%zu,%zu)", kl * 8, a,
                     b - a, sizeof msg - b);
            public_eq(out, ref_out, sizeof msg, what);
        }
        rijn_aes_ctr_seek(&c, 37);
        rijn_aes_ctr_xor(&c, out, msg + 37, 100);
        snprintf(what, sizeof what, "AES-%zu CTR seek 37 len 100", kl * 8);
        public_eq(out, ref_out + 37, 100, what);
    }
    rijn_aes_ctr_wipe(&c);
}

int main(int argc, char **argv)
{
    rijn_impl_info info;
    tu_rng rng;
    size_t ki;

    if (argc != 2) {
        fprintf(stderr, "usage: %s BACKEND\n", argv[0]);
        return 2;
    }
    g_backend = argv[1];
    info = tu_begin("ctgrind", g_backend);
#ifndef RIJN_CTGRIND
    (void)info;
    (void)rng;
    (void)ki;
    tu_fail("built without RIJN_CTGRIND: RIJN_SECRET does nothing");
    return tu_end();
#else
    tu_note("constant_time=%d", info.constant_time);
    if (!RUNNING_ON_VALGRIND)
        tu_note("not running under valgrind: secrets are not tracked");
    tu_rng_seed(&rng, 20261122u); /* fixed: valgrind runs are reproducible */
    for (ki = 0; ki < 3; ki++)
        run_key_size(16 + 8 * ki, &rng);
    return tu_end();
#endif
}
