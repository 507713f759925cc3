/*
 * The 128-bit GHASH field arithmetic on XMM registers that the x86
 * engines share: pclmul.c's (the Montgomery fold, the schoolbook
 * product of the key setup, y * H, block loads and stores), and
 * vpclmul_avx2.c's in its key setup and single-block paths (its 256-bit
 * code is its own). vpclmul_avx512.c takes only
 * GX_BSWAP128 and gx_store: its XMM product folds with VPTERNLOGQ
 * (AVX-512VL), its loads of y and single blocks are split for store
 * forwarding, and its key setup computes its H times x^-1 (y * H here)
 * in general-purpose registers.
 *
 * Representation (pclmul.c explains it): a block is byte-reflected
 * (GX_BSWAP128), powers of H are stored times y, and a 256-bit product
 * lo + y^64 mi + y^128 hi is reduced Montgomery-style by two carry-less
 * products with GX_GFPOLY (gx_fold).
 *
 * The helpers carry their own target (GX_FEATURES: SSSE3 for PSHUFB,
 * PCLMULQDQ). An engine whose target is a superset can call them: GCC
 * and clang inline a callee whose target is a subset of the caller's.
 */
#ifndef RIJN_GHASH_GHASH_X86_H
#define RIJN_GHASH_GHASH_X86_H

#include "internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define GX_FEATURES(F) F(SSSE3, "ssse3") F(PCLMUL, "pclmul")
#define GX_INLINE static inline __attribute__((always_inline, \
    target(RIJN_X86_TARGET(GX_FEATURES))))

/* Reverse the 16 bytes of a block. */
#define GX_BSWAP128 _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
/* y^127 + y^126 + y^121 (high qword), + 1 (low): the reduction constant. */
#define GX_GFPOLY _mm_set_epi64x((long long)0xc200000000000000ULL, 1)

/* A block at p, byte-reflected. */
GX_INLINE __m128i gx_load(const uint8_t *p)
{
    return _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)p),
                            GX_BSWAP128);
}

/* Store the reflected block x at p in GCM's byte order. */
GX_INLINE void gx_store(uint8_t *p, __m128i x)
{
    _mm_storeu_si128((__m128i *)(void *)p, _mm_shuffle_epi8(x, GX_BSWAP128));
}

/* A mask of the first r bytes of a block (0 <= r <= 16): 0xff, then 0. */
GX_INLINE __m128i gx_keep(size_t r)
{
    return _mm_cmpgt_epi8(
        _mm_set1_epi8((char)r),
        _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}

/* The first r bytes at p (0 < r < 16), zero-padded, each byte loaded
 * once: pieces of 1, 2, 4 and 8 bytes (as r's bits say), from the last,
 * gathered in general-purpose registers. No stack buffer: a run-time
 * length memcpy is a call, around which every vector register is spilled
 * (and a spilled register may hold keystream the stack then keeps). */
GX_INLINE __m128i gx_load_partial(const uint8_t *p, size_t r)
{
    unsigned __int128 x = 0;
    uint64_t q;
    uint32_t w;
    uint16_t h;
    __m128i v;

    if (r & 1)
        x = p[r - 1];
    if (r & 2) {
        memcpy(&h, p + (r & 12), 2);
        x = x << 16 | h;
    }
    if (r & 4) {
        memcpy(&w, p + (r & 8), 4);
        x = x << 32 | w;
    }
    if (r & 8) {
        memcpy(&q, p, 8);
        x = x << 64 | q;
    }
    v = _mm_set_epi64x((long long)(uint64_t)(x >> 64), (long long)(uint64_t)x);
    RIJN_READ_ONCE_VEC(v);
    return v;
}

/*
 * ghash.h, last's AAD for a kernel that hashes it through its own
 * blocks: the whole blocks where they are, then a partial one (0 < r <
 * 16 bytes) zero-padded by gx_load_partial and written as one 16-byte
 * store. (The mode's memcpy into a zeroed block wrote it in smaller
 * stores, which a 16-byte load cannot be forwarded from: with the 13-byte
 * AAD of TLS 1.2, vaes-avx512's 256-byte messages took 19-27% longer than
 * with 16 bytes, Zen 5.)
 */
GX_INLINE void gx_last_aad(void (*blocks)(const uint64_t *, uint8_t *,
                                          const uint8_t *, size_t),
                           const uint64_t *hk, uint8_t y[16],
                           const uint8_t *aad, uint64_t aad_len)
{
    const size_t n = (size_t)aad_len / 16, r = (size_t)aad_len % 16;

    if (n > 0)
        blocks(hk, y, aad, n);
    if (r != 0) {
        RIJN_ALIGN(16) uint8_t a[16];
        _mm_store_si128((__m128i *)(void *)a,
                        gx_load_partial(aad + 16 * n, r));
        blocks(hk, y, a, 1);
    }
}

/* Store the first r bytes of v at p (0 < r < 16), in pieces of 8, 4, 2
 * and 1 bytes. */
GX_INLINE void gx_store_partial(uint8_t *p, __m128i v, size_t r)
{
    uint64_t lo = (uint64_t)_mm_cvtsi128_si64(v);
    const uint64_t hi = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v));

    if (r & 8) {
        memcpy(p, &lo, 8);
        p += 8;
        lo = hi;
    }
    if (r & 4) {
        const uint32_t w = (uint32_t)lo;
        memcpy(p, &w, 4);
        p += 4;
        lo >>= 32;
    }
    if (r & 2) {
        const uint16_t h = (uint16_t)lo;
        memcpy(p, &h, 2);
        p += 2;
        lo >>= 16;
    }
    if (r & 1)
        *p = (uint8_t)lo;
}

/* The Montgomery reduction (see pclmul.c's top): lo and mi folded
 * upwards, 64 bits at a time; returns the reduced product. */
GX_INLINE __m128i gx_fold(__m128i lo, __m128i mi, __m128i hi)
{
    const __m128i p = GX_GFPOLY;

    mi = _mm_xor_si128(mi, _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e),
                                         _mm_clmulepi64_si128(p, lo, 0x01)));
    return _mm_xor_si128(hi, _mm_xor_si128(_mm_shuffle_epi32(mi, 0x4e),
                                           _mm_clmulepi64_si128(p, mi, 0x01)));
}

/*
 * The tag of a `last` kernel (ghash.h): tag := s XOR the 16 bytes at tag,
 * where the kernel put E(J0) as soon as it was made. The load and the XOR
 * are one asm statement, so the compiler never holds E(J0) in a register
 * of its own, and cannot schedule the load early and spill it (gcc did,
 * in pclmul's last: stackwipe.aesni). _vex for the AVX kernels (no
 * legacy-SSE instruction among AVX code).
 */
#define GX_TAG_XOR(mov, xor)                                              \
    __asm__(mov " %[p], %[t]\n\t" xor "\n\t" mov " %[s], %[p]"               \
            : [s] "+x"(s), [t] "=&x"(t), [p] "+m"(*(uint8_t(*)[16])tag))

GX_INLINE void gx_tag_xor(uint8_t tag[16], __m128i s)
{
    __m128i t;

    GX_TAG_XOR("movdqu", "pxor %[t], %[s]");
}

GX_INLINE void gx_tag_xor_vex(uint8_t tag[16], __m128i s)
{
    __m128i t;

    GX_TAG_XOR("vmovdqu", "vpxor %[t], %[s], %[s]");
}

/* a x b, both reflected (schoolbook), reduced: for the key setup (and
 * vpclmul-avx2's lone block). */
GX_INLINE __m128i gx_mul(__m128i a, __m128i b)
{
    return gx_fold(_mm_clmulepi64_si128(a, b, 0x00),
                   _mm_xor_si128(_mm_clmulepi64_si128(a, b, 0x01),
                                 _mm_clmulepi64_si128(a, b, 0x10)),
                   _mm_clmulepi64_si128(a, b, 0x11));
}

/* y * H (reflected) from the hash key h: shift the 128-bit value left
 * once (the carry between the halves by hand) and, if bit 127 fell out,
 * add the polynomial. With the keys' powers stored times y, the
 * Montgomery factor y^-128 of each product cancels one y. */
GX_INLINE __m128i gx_key_h(const uint8_t h[16])
{
    __m128i x = gx_load(h);
    const __m128i top = _mm_shuffle_epi32(_mm_srai_epi32(x, 31), 0xff);
    const __m128i carry = _mm_slli_si128(_mm_srli_epi64(x, 63), 8);

    x = _mm_or_si128(_mm_slli_epi64(x, 1), carry);
    return _mm_xor_si128(x, _mm_and_si128(top, GX_GFPOLY));
}

#endif /* x86-64 */
#endif /* RIJN_GHASH_GHASH_X86_H */
