/*
 * ref: GHASH bit by bit, Algorithm 1 of SP 800-38D (6.3), the test oracle
 * of every other engine.
 *
 * Variable time: one branch per bit of X and of V. Never picked (rank 0);
 * the environment selects it only with RIJN_ALLOW_VARIABLE_TIME=1.
 *
 * hk: H as two big-endian 64-bit words (16 bytes).
 */
#include "ghash/ghash.h"

static void ref_init(uint64_t *hk, const uint8_t h[16])
{
    hk[0] = rijn_load64_be(h);
    hk[1] = rijn_load64_be(h + 8);
}

/* z = x . H: for each bit x_i (from the left), Z ^= V if x_i; V := V >> 1,
 * reduced with R = 11100001 || 0^120 when the bit shifted out was 1. */
static void ref_mul(const uint64_t *hk, uint8_t x[16])
{
    uint64_t vh = hk[0], vl = hk[1], zh = 0, zl = 0;

    for (int i = 0; i < 128; i++) {
        if ((x[i / 8] >> (7 - i % 8)) & 1) {
            zh ^= vh;
            zl ^= vl;
        }
        if (vl & 1) {
            vl = (vl >> 1) | (vh << 63);
            vh = (vh >> 1) ^ 0xe100000000000000ULL;
        } else {
            vl = (vl >> 1) | (vh << 63);
            vh >>= 1;
        }
    }
    rijn_store64_be(x, zh);
    rijn_store64_be(x + 8, zl);
}

static void ref_blocks(const uint64_t *hk, uint8_t y[16], const uint8_t *in,
                       size_t nblocks)
{
    for (size_t i = 0; i < nblocks; i++) {
        rijn_xor_bytes(y, y, in + 16 * i, 16);
        ref_mul(hk, y);
    }
}

RIJN_GHASH_KEY_FITS(16, "ref's H");
const rijn_ghash_engine rijn_ghash_ref = {
    .base = {.name = "ref", .needs = 0, .constant_time = 0, .rank = 0},
    .key_bytes = 16,
    .init = ref_init,
    .blocks = ref_blocks,
};
