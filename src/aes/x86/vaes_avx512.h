/*
 * Inline helpers of the vaes-avx512 AES backend (src/aes/x86/vaes_avx512.c),
 * shared with the kernels that read its key layout (the vpclmul-avx512
 * GHASH engine's fused AES-GCM kernels, src/ghash/vpclmul_avx512.c).
 *
 * Key layout: the standard round keys of aesni.c (rijn_aesni_setkey_x4,
 * AESENCLAST-based), each stored four times: round key r is the 64 bytes
 * at k->rk + 64 r, a ZMM with the key in every 128-bit lane, so that
 * VAESENC can take it from memory (the fused GCM kernels do: round keys
 * held in registers there were spilled to the stack, see
 * vpclmul_avx512.c). 960 bytes for AES-256, the size of k->rk.
 *
 * The helpers carry the backend's target (V512_FEATURES). A kernel whose
 * target is a superset (the fused engine's adds PCLMUL and VPCLMULQDQ)
 * can call them: GCC and clang inline a callee whose target is a subset
 * of the caller's.
 */
#ifndef RIJN_AES_X86_VAES_AVX512_H
#define RIJN_AES_X86_VAES_AVX512_H

#include "internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RIJN_X86_VAES_AVX512 1

#include <immintrin.h>

/* SSSE3 and AES-NI: the key schedule (rijn_aesni_setkey_x4) */
#define V512_FEATURES(F)                                                   \
    F(SSSE3, "ssse3") F(AESNI, "aes") F(AVX, "avx") F(AVX2, "avx2")          \
    F(VAES, "vaes") F(AVX512F, "avx512f") F(AVX512BW, "avx512bw")            \
    F(AVX512VL, "avx512vl")
#define V512_TARGET RIJN_X86_TARGET(V512_FEATURES)
#define V512_FN __attribute__((target(V512_TARGET)))
#define V512_INLINE static inline __attribute__((always_inline, target(V512_TARGET)))

/* Round key r in every lane: its place in k->rk, and the ZMM. */
V512_INLINE const __m512i *v512_rkp(const rijn_aes_key *k, unsigned r)
{
    return (const __m512i *)(const void *)k->rk + r;
}

V512_INLINE __m512i v512_rk(const rijn_aes_key *k, unsigned r)
{
    return _mm512_load_si512(v512_rkp(k, r));
}

/* Mask of the 32-bit elements of a ZMM holding blocks first..first+3 that
 * lie below block m (unsigned arithmetic only; depends on lengths only). */
V512_INLINE __mmask16 v512_mask(size_t m, size_t first)
{
    if (m <= first)
        return 0;
    if (m - first >= 4)
        return (__mmask16)0xffff;
    return (__mmask16)((1u << (4 * (m - first))) - 1);
}

/*
 * V512_KEEP_ORDER is an empty asm statement that "modifies" the 8 states
 * after each round: it emits no instruction but stops the compiler from
 * regrouping the code block by block (clang 14 does that under register
 * pressure with 15 live round keys, which leaves one dependency chain per
 * window and cost 15% on AES-256); the CPU sees rounds interleaved.
 */
#define V512_KEEP_ORDER(s)                                               \
    __asm__("" : "+v"((s)[0]), "+v"((s)[1]), "+v"((s)[2]), "+v"((s)[3]), \
                 "+v"((s)[4]), "+v"((s)[5]), "+v"((s)[6]), "+v"((s)[7]))

#endif
#endif /* RIJN_AES_X86_VAES_AVX512_H */
