/*
 * fuzz_poly1305aes: Poly1305-AES on every Poly1305 engine this CPU runs,
 * against OpenSSL's Poly1305 (EVP_MAC "POLY1305"; without OpenSSL,
 * fuzzutil.c's base-2^8 Poly1305) with s = AES_k(n) from the oracle's AES.
 *
 * The input picks kr = k || r (r unclamped: the functions clamp), the
 * nonce, the message (its first bytes from the input itself, so that the
 * fuzzer steers the carries; the rest, up to 2048 bytes in all, from a
 * PRNG seeded by the input: long enough for the vector engines' bulk
 * paths), up to 16 pieces for the incremental API and a bit to flip.
 *
 * Checks, per engine: rijn_poly1305_init_impl(r || s) + update in the
 * pieces + final equals the oracle's tag; final_verify accepts it and
 * rejects it with the bit flipped. With the default engine and AES
 * backend: rijn_poly1305aes_authenticate, _verify (right and flipped
 * tag), _init + update + final, and raw rijn_poly1305 / _verify.
 */
#include <stdio.h>
#include <string.h>

#include "fuzzutil.h"
#include "rijn_poly1305.h"
#include "testutil.h"

#define MAX_LEN 2048

static void pieces(rijn_poly1305_ctx *c, const uint8_t *m, const size_t *p,
                   size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rijn_poly1305_update(c, m, p[i]);
        m += p[i];
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t m[MAX_LEN];
    fz_in in = {data, size};
    const fz_list *pe = fz_poly_engines();
    uint8_t kr[32], n[16], key[32], want[16], tag[16], bad[16];
    tu_rng rng;
    char what[128];

    /* the choices first, then the key, the nonce and the message */
    size_t len = fz_range(&in, 0, MAX_LEN);
    size_t np = fz_range(&in, 1, 16), p[16], left = len;
    for (size_t i = 0; i < np; i++) {
        p[i] = i + 1 == np ? left : fz_range(&in, 0, left);
        left -= p[i];
    }
    size_t fbit = fz_u8(&in) & 127;
    fz_bytes(&in, kr, 32);
    fz_bytes(&in, n, 16);
    tu_rng_seed(&rng, fz_u64(&in));
    {
        size_t from_input = fz_left(&in) < len ? fz_left(&in) : len;
        fz_bytes(&in, m, from_input);
        tu_rng_fill(&rng, m + from_input, len - from_input);
    }

    /* the oracle: Poly1305 under r || AES_k(n) */
    memcpy(key, kr + 16, 16);
    fz_oracle_aes(kr, 16, n, key + 16);
    fz_oracle_poly1305(key, m, len, want);
    memcpy(bad, want, 16);
    bad[fbit / 8] ^= (uint8_t)(1u << fbit % 8);

    for (size_t e = 0; e < pe->n; e++) {
        rijn_poly1305_ctx c;
        snprintf(what, sizeof what, "%s: len %zu in %zu pieces vs %s",
                 pe->name[e], len, np, fz_oracle_name());
        FZ_CHECK(rijn_poly1305_init_impl(&c, key, pe->name[e]) == 0,
                 "%s: init failed", pe->name[e]);
        pieces(&c, m, p, np);
        rijn_poly1305_final(&c, tag);
        fz_check_eq(tag, want, 16, what);

        FZ_CHECK(rijn_poly1305_init_impl(&c, key, pe->name[e]) == 0, "init");
        pieces(&c, m, p, np);
        FZ_CHECK(rijn_poly1305_final_verify(&c, want) == 1,
                 "%s: final_verify rejects the right tag", what);
        FZ_CHECK(rijn_poly1305_init_impl(&c, key, pe->name[e]) == 0, "init");
        pieces(&c, m, p, np);
        FZ_CHECK(rijn_poly1305_final_verify(&c, bad) == 0,
                 "%s: final_verify accepts tag bit %zu flipped", what, fbit);
    }

    /* Poly1305-AES and raw Poly1305, default engine and AES backend */
    snprintf(what, sizeof what, "poly1305aes (%s): len %zu vs %s",
             rijn_poly1305_impl_default(), len, fz_oracle_name());
    FZ_CHECK(rijn_poly1305aes_authenticate(tag, kr, n, m, len) == 0,
             "poly1305aes_authenticate failed");
    fz_check_eq(tag, want, 16, what);
    FZ_CHECK(rijn_poly1305aes_verify(want, kr, n, m, len) == 1,
             "%s: verify rejects the right tag", what);
    FZ_CHECK(rijn_poly1305aes_verify(bad, kr, n, m, len) == 0,
             "%s: verify accepts tag bit %zu flipped", what, fbit);
    {
        rijn_poly1305_ctx c;
        FZ_CHECK(rijn_poly1305aes_init(&c, kr, n) == 0, "poly1305aes_init");
        pieces(&c, m, p, np);
        rijn_poly1305_final(&c, tag);
        fz_check_eq(tag, want, 16, "poly1305aes_init + update + final");
    }
    { /* a clamped kr gives the same tag (the functions clamp) */
        uint8_t kc[32];
        memcpy(kc, kr, 32);
        rijn_poly1305aes_clamp(kc);
        FZ_CHECK(rijn_poly1305aes_authenticate(tag, kc, n, m, len) == 0,
                 "poly1305aes_authenticate (clamped kr) failed");
        fz_check_eq(tag, want, 16, "poly1305aes with rijn_poly1305aes_clamp");
    }
    { /* the default engine's incremental API */
        rijn_poly1305_ctx c;
        FZ_CHECK(rijn_poly1305_init(&c, key) == 0, "poly1305_init");
        pieces(&c, m, p, np);
        rijn_poly1305_final(&c, tag);
        fz_check_eq(tag, want, 16, "rijn_poly1305_init + update + final");
    }
    FZ_CHECK(rijn_poly1305(tag, m, len, key) == 0, "rijn_poly1305 failed");
    fz_check_eq(tag, want, 16, "rijn_poly1305 (raw, r || s)");
    FZ_CHECK(rijn_poly1305_verify(want, m, len, key) == 1,
             "rijn_poly1305_verify rejects the right tag");
    FZ_CHECK(rijn_poly1305_verify(bad, m, len, key) == 0,
             "rijn_poly1305_verify accepts a flipped tag");
    return 0;
}
