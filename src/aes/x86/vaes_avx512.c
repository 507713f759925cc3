/*
 * vaes-avx512: AES with VAES on 512-bit registers (AVX-512F/BW/VL), four
 * blocks per ZMM register (Intel Ice Lake and later, AMD Zen 4 and later).
 *
 * Batch width: 32 blocks in flight in the CTR and ECB loops (8 ZMM of 4
 * blocks). VAESENC on ZMM issues twice per cycle on Zen 5 with a latency
 * of about 4 cycles, so 8 independent registers keep both AES units busy;
 * Zen 4 runs 512-bit VAESENC as two 256-bit halves (measured: one per
 * cycle, 4 cycles latency), so there it moves as many bytes per cycle as
 * vaes-avx2. The round keys (64 bytes each in the key, vaes_avx512.h)
 * are loaded once per call and held in registers: the CTR and ECB loops
 * have room for all 15 beside 8 states (stackwipe checks that none is
 * spilled).
 * Tails of 1..31 blocks: one batch of 8, 4, 2 or 1 ZMM with masked
 * loads and stores (masked-off bytes are neither read nor written and cannot
 * fault), so a 1..4 block message costs one AES latency chain in one ZMM and
 * touches no byte outside in/out. All code is unrolled once per round count
 * (10/12/14).
 *
 * CTR: the counter block is broadcast to the four 128-bit lanes with its low
 * 32-bit word byte-swapped; per-block counters are VPADDD of per-lane
 * constants on that dword (exact mod 2^32, never a carry into byte 11, also
 * inside one batch), and VPSHUFB restores the byte order. The input is folded
 * into the last round key (VAESENCLAST with rk[nr] ^ in).
 *
 * Key schedule: identical to the aesni backend (standard round keys, 16
 * bytes each; AESENCLAST computes SubWord(RotWord(w)); AES-192 keys are
 * loaded as 16 + 8 bytes, never past the key).
 *
 * Constant time: VAESENC/VAESENCLAST/VPSHUFB/VPADDD/VPXOR and masked moves
 * have data-independent timing; no branch and no address depends on the key
 * or the data (masks depend only on nblocks). Valgrind cannot decode AVX-512,
 * so this is argued by construction.
 *
 * Frequency policy: this backend has the highest rank and is the default
 * wherever CPUID reports VAES + AVX-512F/BW/VL and XCR0 enables ZMM state.
 * Zen 4/5 do not lower the clock for 512-bit code. Intel parts that lowered
 * the clock heavily for 512-bit code (Skylake-SP, Cascade Lake) have no VAES,
 * so this backend never runs there; Ice Lake / Tiger Lake / Sapphire Rapids
 * may drop to a slightly lower turbo licence while AES-512 runs, which costs
 * less than the doubled width gains but can slow unrelated scalar code on the
 * same core. Set RIJN_CPU_MASK=avx512f to turn it off (vaes-avx2 is then
 * picked), or RIJN_IMPL=vaes-avx2 for one process.
 *
 * Built with a per-function target attribute: the library targets baseline
 * x86-64 and this code runs only when the dispatcher selects it. The
 * target, the round key load, the tail masks and V512_KEEP_ORDER are in
 * vaes_avx512.h, shared with vpclmul-avx512's fused AES-GCM kernels.
 */
#include "aes/x86/vaes_avx512.h"

#if defined(RIJN_X86_VAES_AVX512)

/*
 * Block and word indices are size_t on purpose: with int, every 16 * j is a
 * signed multiply that clang's -fsanitize=undefined (no recover) checks
 * before the loops unroll, and clang 14 then needs minutes per file.
 */

/* The key schedule is aesni.c's (rijn_aesni_setkey_x4: standard round
 * keys, each in all four lanes of 64 bytes of k->rk; vaes_avx512.h); this
 * file has no code of its own for it. */

/* ------------------------------------------------------------------------
 * Rounds 0..nr-1 on s[0..n-1] (n and nr constant at each call site: all
 * loops unroll; with 32 ZMM registers the round keys and up to 8 states fit,
 * and gcc's rolled version copied every state once per round).
 * The caller does the last round.
 * --------------------------------------------------------------------- */
V512_INLINE void v512_rounds(const rijn_aes_key *k, __m512i *s, const size_t n,
                             const unsigned nr)
{
    const __m512i k0 = v512_rk(k, 0);
    unsigned r;
    size_t j;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++)
        s[j] = _mm512_xor_si512(s[j], k0);
    RIJN_UNROLL(16)
    for (r = 1; r < nr; r++) {
        const __m512i kr = v512_rk(k, r);
        RIJN_UNROLL(16)
        for (j = 0; j < n; j++)
            s[j] = _mm512_aesenc_epi128(s[j], kr);
    }
}

/* Byte-swap the low 32-bit counter word of each lane; self-inverse. */
V512_INLINE __m512i v512_swap32(void)
{
    return _mm512_broadcast_i32x4(_mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8,
                                               7, 6, 5, 4, 3, 2, 1, 0));
}

/* x in the low-word dword (3) of every lane */
V512_INLINE __m512i v512_lanes(int x)
{
    return _mm512_maskz_set1_epi32((__mmask16)0x8888, x);
}

/*
 * c: 4 counters (lane i = counter + i, low word native). Encrypts n ZMM of
 * counters c, c + 4, ... and XORs them into in; m = number of blocks (n ZMM
 * hold up to 4n; when masked, only blocks < m are read and written).
 */
V512_INLINE void v512_ctr_batch(const rijn_aes_key *k, uint8_t *out,
                                const uint8_t *in, __m512i c, const size_t n,
                                const int masked, size_t m, const unsigned nr)
{
    const __m512i swap = v512_swap32();
    const __m512i four = v512_lanes(4);
    __m512i s[8], kl;
    size_t j;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++) {
        s[j] = _mm512_shuffle_epi8(c, swap);
        c = _mm512_add_epi32(c, four);
    }
    v512_rounds(k, s, n, nr);
    kl = v512_rk(k, nr);
    if (!masked) {
        RIJN_UNROLL(16)
        for (j = 0; j < n; j++)
            _mm512_storeu_si512(out + 64 * j, _mm512_aesenclast_epi128(
                s[j], _mm512_xor_si512(kl, _mm512_loadu_si512(in + 64 * j))));
    } else {
        RIJN_UNROLL(16)
        for (j = 0; j < n; j++) {
            const __mmask16 mk = v512_mask(m, 4 * j);
            s[j] = _mm512_aesenclast_epi128(
                s[j], _mm512_xor_si512(kl, _mm512_maskz_loadu_epi32(mk, in + 64 * j)));
            _mm512_mask_storeu_epi32(out + 64 * j, mk, s[j]);
        }
    }
}

/*
 * The 32-block loop, with nr a constant so that the rounds unroll and the
 * round keys stay in registers (15 keys + 8 states + counter and constants
 * fit in the 32 ZMM registers). Returns the next counter vector.
 * V512_KEEP_ORDER (vaes_avx512.h) keeps the rounds interleaved.
 */
V512_INLINE __m512i v512_ctr_loop(const rijn_aes_key *k, uint8_t *out,
                                  const uint8_t *in, size_t nbatches,
                                  __m512i c, const unsigned nr)
{
    const __m512i swap = v512_swap32();
    const __m512i four = v512_lanes(4);
    __m512i rk[15];
    unsigned r;
    size_t j;

    RIJN_UNROLL(16)
    for (r = 0; r <= nr; r++)
        rk[r] = v512_rk(k, r);
    for (; nbatches > 0; nbatches--, in += 512, out += 512) {
        __m512i s[8];

        RIJN_UNROLL(16)
        for (j = 0; j < 8; j++) {
            s[j] = _mm512_xor_si512(_mm512_shuffle_epi8(c, swap), rk[0]);
            c = _mm512_add_epi32(c, four);
        }
        RIJN_UNROLL(16)
        for (r = 1; r < nr; r++) {
            RIJN_UNROLL(16)
            for (j = 0; j < 8; j++)
                s[j] = _mm512_aesenc_epi128(s[j], rk[r]);
            V512_KEEP_ORDER(s);
        }
        RIJN_UNROLL(16)
        for (j = 0; j < 8; j++)
            _mm512_storeu_si512(out + 64 * j, _mm512_aesenclast_epi128(
                s[j], _mm512_xor_si512(rk[nr], _mm512_loadu_si512(in + 64 * j))));
    }
    return c;
}

/* CTR for nr rounds (a constant at each call site: everything unrolls) */
V512_INLINE void v512_ctr32_nr(const rijn_aes_key *k, uint8_t *out,
                               const uint8_t *in, size_t nblocks,
                               const uint8_t ctr[16], const unsigned nr)
{
    const __m128i c1 = _mm_shuffle_epi8(
        rijn_x86_load_ctr(ctr),
        _mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
    __m512i c = _mm512_add_epi32(_mm512_broadcast_i32x4(c1),
                                 _mm512_set_epi32(3, 0, 0, 0, 2, 0, 0, 0,
                                                  1, 0, 0, 0, 0, 0, 0, 0));

    if (nblocks >= 32) {
        const size_t nb = nblocks / 32;
        c = v512_ctr_loop(k, out, in, nb, c, nr);
        nblocks -= 32 * nb;
        in += 512 * nb;
        out += 512 * nb;
    }
    /* Tail of 0..31 blocks: 29..31 in one masked batch of 8 ZMM; 17..28
     * as 4 ZMM, then the rest in a masked batch of 1, 2 or 4, which the
     * CPU runs beside the first. A ZMM round issues in a cycle on Zen 4,
     * so 8 ZMM for 17 blocks wasted 3 cycles a round: 288-352-byte
     * calls took 1.4x as long. (Batches of 5, 6 and 7 ZMM inlined here
     * made the function save registers at every call, 7% on 16 bytes.) */
    if (nblocks > 16) {
        if (nblocks > 28) {
            v512_ctr_batch(k, out, in, c, 8, 1, nblocks, nr);
            return;
        }
        v512_ctr_batch(k, out, in, c, 4, 0, 16, nr);
        c = _mm512_add_epi32(c, v512_lanes(16));
        nblocks -= 16;
        in += 256;
        out += 256;
    }
    if (nblocks > 8)
        v512_ctr_batch(k, out, in, c, 4, 1, nblocks, nr);
    else if (nblocks > 4)
        v512_ctr_batch(k, out, in, c, 2, 1, nblocks, nr);
    else if (nblocks > 0)
        v512_ctr_batch(k, out, in, c, 1, 1, nblocks, nr);
}

V512_FN static void v512_ctr32(const rijn_aes_key *k, uint8_t *out,
                               const uint8_t *in, size_t nblocks,
                               const uint8_t ctr[16])
{
    if (k->rounds == 10)
        v512_ctr32_nr(k, out, in, nblocks, ctr, 10);
    else if (k->rounds == 12)
        v512_ctr32_nr(k, out, in, nblocks, ctr, 12);
    else
        v512_ctr32_nr(k, out, in, nblocks, ctr, 14);
}

/* ECB on n ZMM; when masked, only blocks < m are read and written. */
V512_INLINE void v512_ecb_batch(const rijn_aes_key *k, uint8_t *out,
                                const uint8_t *in, const size_t n,
                                const int masked, size_t m, const unsigned nr)
{
    __m512i s[8], kl;
    size_t j;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++)
        s[j] = masked ? _mm512_maskz_loadu_epi32(v512_mask(m, 4 * j), in + 64 * j)
                      : _mm512_loadu_si512(in + 64 * j);
    v512_rounds(k, s, n, nr);
    kl = v512_rk(k, nr);
    RIJN_UNROLL(16)
    for (j = 0; j < n; j++) {
        s[j] = _mm512_aesenclast_epi128(s[j], kl);
        if (masked)
            _mm512_mask_storeu_epi32(out + 64 * j, v512_mask(m, 4 * j), s[j]);
        else
            _mm512_storeu_si512(out + 64 * j, s[j]);
    }
}

V512_INLINE void v512_ecb_nr(const rijn_aes_key *k, uint8_t *out,
                             const uint8_t *in, size_t nblocks,
                             const unsigned nr)
{
    for (; nblocks >= 32; nblocks -= 32, in += 512, out += 512)
        v512_ecb_batch(k, out, in, 8, 0, 32, nr);
    if (nblocks > 16)
        v512_ecb_batch(k, out, in, 8, 1, nblocks, nr);
    else if (nblocks > 8)
        v512_ecb_batch(k, out, in, 4, 1, nblocks, nr);
    else if (nblocks > 4)
        v512_ecb_batch(k, out, in, 2, 1, nblocks, nr);
    else if (nblocks > 0)
        v512_ecb_batch(k, out, in, 1, 1, nblocks, nr);
}

V512_FN static void v512_ecb(const rijn_aes_key *k, uint8_t *out,
                             const uint8_t *in, size_t nblocks)
{
    if (k->rounds == 10)
        v512_ecb_nr(k, out, in, nblocks, 10);
    else if (k->rounds == 12)
        v512_ecb_nr(k, out, in, nblocks, 12);
    else
        v512_ecb_nr(k, out, in, nblocks, 14);
}

RIJN_AES_KEY_FITS(15 * 64, "vaes-avx512's AES-256 schedule");
const rijn_aes_impl rijn_aes_vaes_avx512 = {
    .base = {.name = "vaes-avx512", .needs = RIJN_X86_NEEDS(V512_FEATURES),
             .constant_time = 1, .rank = 40},
    .key_bytes = RIJN_AES_KEY_BYTES(64),
    .setkey = rijn_aesni_setkey_x4,
    .ecb = v512_ecb,
    .ctr32 = v512_ctr32,
};

#else
typedef int rijn_vaes_avx512_not_built; /* ISO C wants a non-empty file */
#endif
