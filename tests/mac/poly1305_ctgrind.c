/*
 * ctgrind for Poly1305 / Poly1305-AES: one engine under valgrind memcheck.
 *
 *   test_poly1305_ctgrind ENGINE      (through tests/ctgrind.sh)
 *   test_poly1305_ctgrind control     (the default engine, plus a
 *                                      deliberately leaky tag comparison)
 *
 * Built only with -DRIJN_CTGRIND=ON. The AES key k, r, s, the nonce, the
 * message and the tag handed to verify are marked secret (RIJN_SECRET)
 * before every library call, so memcheck reports any branch or memory
 * address that depends on them: in the AES key setup and encryption of the
 * nonce, in the engine's block function (scalar and vector paths: lengths
 * up to 1000 bytes cross the SIMD engines' thresholds), in the final
 * reduction and in verify's comparison. Results are declassified
 * (RIJN_PUBLIC) before the program looks at them.
 *
 * Output for ctgrind.sh: "ctgrind.<engine>: constant_time=N" (1 for an
 * engine, 0 for the control, which must be flagged) and the closing
 * "ctgrind.<engine>: N passed, 0 failed".
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "mutil.h"

int main(int argc, char **argv)
{
    static const size_t lens[] = {0, 1, 15, 16, 17, 64, 100, 257, 1000};
    uint8_t kr[32], n[16], key[32], msg[1000], want[3][16], got[16];
    int control, i;
    tu_rng rng;

    if (argc != 2) {
        fprintf(stderr, "usage: %s ENGINE|control\n", argv[0]);
        return 2;
    }
    control = strcmp(argv[1], "control") == 0;
    mt_begin("ctgrind", control ? "default" : argv[1]);
    if (control)
        mt_rename("ctgrind.control");
#ifndef RIJN_CTGRIND
    mt_fail("built without RIJN_CTGRIND: RIJN_SECRET does nothing");
    return mt_end();
#else
    mt_note("constant_time=%d", control ? 0 : 1);
    if (!RUNNING_ON_VALGRIND)
        mt_note("not running under valgrind: secrets are not tracked");
    tu_rng_seed(&rng, 20261122u);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t len = lens[li];
        rijn_poly1305_ctx ctx;
        int ok, bad;
        char what[96];

        tu_rng_fill(&rng, kr, 32);
        tu_rng_fill(&rng, n, 16);
        tu_rng_fill(&rng, key, 32);
        tu_rng_fill(&rng, msg, len);
        /* public reference results first */
        rijn_poly1305aes_authenticate(want[0], kr, n, msg, len);
        rijn_poly1305(want[1], msg, len, key);
        memcpy(want[2], want[0], 16);
        want[2][len % 16] ^= 1; /* a wrong tag */

        RIJN_SECRET(kr, 32);
        RIJN_SECRET(n, 16);
        RIJN_SECRET(key, 32);
        RIJN_SECRET(msg, len);
        RIJN_SECRET(want[0], 16);
        RIJN_SECRET(want[2], 16);

        rijn_poly1305aes_authenticate(got, kr, n, msg, len);
        if (control) {
            /* an early-exit comparison on secret data: must be flagged */
            volatile int same = 1;
            for (i = 0; i < 16; i++)
                if (got[i] != want[0][i]) {
                    same = 0;
                    break;
                }
            (void)same;
        }
        RIJN_PUBLIC(got, 16);
        RIJN_PUBLIC(want[0], 16);
        snprintf(what, sizeof what, "authenticate len %zu", len);
        mt_eq(got, want[0], 16, what);
        RIJN_SECRET(want[0], 16);

        ok = rijn_poly1305aes_verify(want[0], kr, n, msg, len);
        bad = rijn_poly1305aes_verify(want[2], kr, n, msg, len);
        RIJN_PUBLIC(&ok, sizeof ok);
        RIJN_PUBLIC(&bad, sizeof bad);
        if (ok == 1 && bad == 0)
            mt_pass();
        else
            mt_fail("verify len %zu: good %d, bad %d", len, ok, bad);

        rijn_poly1305aes_init(&ctx, kr, n);
        rijn_poly1305_update(&ctx, msg, len / 3);
        rijn_poly1305_update(&ctx, msg + len / 3, len - len / 3);
        rijn_poly1305_final(&ctx, got);
        RIJN_PUBLIC(got, 16);
        RIJN_PUBLIC(want[0], 16);
        snprintf(what, sizeof what, "Poly1305-AES incremental len %zu", len);
        mt_eq(got, want[0], 16, what);

        rijn_poly1305(got, msg, len, key);
        RIJN_PUBLIC(got, 16);
        snprintf(what, sizeof what, "raw one-shot len %zu", len);
        mt_eq(got, want[1], 16, what);

        for (i = 0; i < 2; i++) {
            rijn_poly1305_init(&ctx, key);
            for (size_t off = 0; off < len; off += 7 + 250 * (size_t)i)
                rijn_poly1305_update(&ctx, msg + off,
                                     len - off < 7 + 250 * (size_t)i
                                         ? len - off
                                         : 7 + 250 * (size_t)i);
            rijn_poly1305_final(&ctx, got);
            RIJN_PUBLIC(got, 16);
            snprintf(what, sizeof what, "raw incremental len %zu", len);
            mt_eq(got, want[1], 16, what);
        }
        RIJN_PUBLIC(kr, 32);
        RIJN_PUBLIC(n, 16);
        RIJN_PUBLIC(key, 32);
        RIJN_PUBLIC(msg, len);
        RIJN_PUBLIC(want[2], 16);
    }
    return mt_end();
#endif
}
