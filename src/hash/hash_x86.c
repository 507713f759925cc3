/*
 * SHA-1 and SHA-256 compression with the x86 SHA extensions (SHA-NI:
 * sha1rnds4/sha1nexte/sha1msg1/sha1msg2, sha256rnds2/sha256msg1/
 * sha256msg2), for `rijn enc` password mode, where PBKDF2 runs thousands
 * of compressions per key. Chosen at run time by hash.c when the CPU
 * features (after RIJN_CPU_MASK) include its needs; the portable C in hash.c is the reference they are
 * tested against (tests/hash.c, on both paths).
 *
 * Register layouts follow Intel's SHA extensions paper (Gulley et al.,
 * 2013): SHA-256 keeps the state as ABEF and CDGH, two rounds per
 * sha256rnds2; SHA-1 keeps ABCD in one register (A in the high lane), E
 * in the high lane of another, four rounds per sha1rnds4.
 */
#include "hash/hash.h"
#include "internal.h"

#ifdef RIJN_HASH_X86

#include <immintrin.h>

/* The CPU features of this file, listed once: its `needs` and its target
 * string both come from here (internal.h, RIJN_X86_NEEDS), so masking
 * any of them (RIJN_CPU_MASK=sha or =ssse3) turns the path off. SSE4.1
 * has no RIJN_CPU bit: detection sets RIJN_CPU_SHA only with it
 * (src/core/cpu/x86.c). */
#define SHA_FEATURES(F) F(SSSE3, "ssse3") F(SHA, "sha")
#define SHA_TARGET \
    __attribute__((target(RIJN_X86_TARGET(SHA_FEATURES) ",sse4.1")))

/* see hash.h */
const rijn_impl rijn_hash_x86_impl = {
    .name = "sha-ni",
    .needs = RIJN_X86_NEEDS(SHA_FEATURES),
    .constant_time = 1,
    .rank = 1,
};

/*
 * Four rounds: w holds W[4g..4g+3] (g = the group), computed for g >= 4
 * from the four previous groups, which live in w0..w3 in rotation.
 */
#define SHA256_MSG(wn, wa, wb, wc, wd)                                     \
    wn = _mm_sha256msg2_epu32(                                             \
        _mm_add_epi32(_mm_sha256msg1_epu32(wa, wb),                        \
                      _mm_alignr_epi8(wd, wc, 4)),                         \
        wd)
#define SHA256_ROUNDS(g, w)                                                \
    do {                                                                   \
        __m128i k_ = _mm_add_epi32(                                        \
            w, _mm_loadu_si128((const __m128i *)&rijn_hash_sha256_k[4 * (g)])); \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k_);                      \
        abef = _mm_sha256rnds2_epu32(abef, cdgh,                           \
                                     _mm_shuffle_epi32(k_, 0x0e));         \
    } while (0)

SHA_TARGET void rijn_hash_x86_sha256(rijn_hash_state *h, const unsigned char *p)
{
    const __m128i bswap =
        _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)&h->w32[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&h->w32[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xb1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1b);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xf0);
    __m128i abef0 = abef, cdgh0 = cdgh;
    __m128i w0, w1, w2, w3;

    w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)p), bswap);
    w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16)), bswap);
    w2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 32)), bswap);
    w3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 48)), bswap);
    SHA256_ROUNDS(0, w0);
    SHA256_ROUNDS(1, w1);
    SHA256_ROUNDS(2, w2);
    SHA256_ROUNDS(3, w3);
    for (int g = 4; g < 16; g += 4) {
        SHA256_MSG(w0, w0, w1, w2, w3);
        SHA256_ROUNDS(g, w0);
        SHA256_MSG(w1, w1, w2, w3, w0);
        SHA256_ROUNDS(g + 1, w1);
        SHA256_MSG(w2, w2, w3, w0, w1);
        SHA256_ROUNDS(g + 2, w2);
        SHA256_MSG(w3, w3, w0, w1, w2);
        SHA256_ROUNDS(g + 3, w3);
    }
    abef = _mm_add_epi32(abef, abef0);
    cdgh = _mm_add_epi32(cdgh, cdgh0);
    /* back to A..D, E..H */
    __m128i feba = _mm_shuffle_epi32(abef, 0x1b);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);
    _mm_storeu_si128((__m128i *)&h->w32[0], _mm_blend_epi16(feba, dchg, 0xf0));
    _mm_storeu_si128((__m128i *)&h->w32[4], _mm_alignr_epi8(dchg, feba, 8));
}

/*
 * SHA-1: group g of four rounds uses function g / 5 (the immediate must
 * be a constant, hence the macros). e_in is the E input of the group:
 * sha1nexte(ABCD before the previous group, W).
 */
#define SHA1_MSG(wn, wa, wb, wc, wd)                                       \
    wn = _mm_sha1msg2_epu32(                                               \
        _mm_xor_si128(_mm_sha1msg1_epu32(wa, wb), wc), wd)
#define SHA1_ROUNDS(f, w)                                                  \
    do {                                                                   \
        __m128i e_ = _mm_sha1nexte_epu32(prev, w);                         \
        prev = abcd;                                                       \
        abcd = _mm_sha1rnds4_epu32(abcd, e_, f);                           \
    } while (0)
#define SHA1_MSG_ROUNDS(f, wn, wa, wb, wc, wd)                             \
    do {                                                                   \
        SHA1_MSG(wn, wa, wb, wc, wd);                                      \
        SHA1_ROUNDS(f, wn);                                                \
    } while (0)

SHA_TARGET void rijn_hash_x86_sha1(rijn_hash_state *h, const unsigned char *p)
{
    const __m128i bswap =
        _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
    __m128i abcd = _mm_shuffle_epi32(
        _mm_loadu_si128((const __m128i *)&h->w32[0]), 0x1b);
    __m128i e0 = _mm_set_epi32((int)h->w32[4], 0, 0, 0);
    __m128i abcd0 = abcd, prev;
    __m128i w0, w1, w2, w3;

    w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)p), bswap);
    w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16)), bswap);
    w2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 32)), bswap);
    w3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 48)), bswap);

    /* group 0: E is the state's E plus W */
    prev = abcd;
    abcd = _mm_sha1rnds4_epu32(abcd, _mm_add_epi32(e0, w0), 0);
    SHA1_ROUNDS(0, w1);
    SHA1_ROUNDS(0, w2);
    SHA1_ROUNDS(0, w3);
    SHA1_MSG_ROUNDS(0, w0, w0, w1, w2, w3);  /* group 4 */
    SHA1_MSG_ROUNDS(1, w1, w1, w2, w3, w0);
    SHA1_MSG_ROUNDS(1, w2, w2, w3, w0, w1);
    SHA1_MSG_ROUNDS(1, w3, w3, w0, w1, w2);
    SHA1_MSG_ROUNDS(1, w0, w0, w1, w2, w3);
    SHA1_MSG_ROUNDS(1, w1, w1, w2, w3, w0);  /* group 9 */
    SHA1_MSG_ROUNDS(2, w2, w2, w3, w0, w1);
    SHA1_MSG_ROUNDS(2, w3, w3, w0, w1, w2);
    SHA1_MSG_ROUNDS(2, w0, w0, w1, w2, w3);
    SHA1_MSG_ROUNDS(2, w1, w1, w2, w3, w0);
    SHA1_MSG_ROUNDS(2, w2, w2, w3, w0, w1);  /* group 14 */
    SHA1_MSG_ROUNDS(3, w3, w3, w0, w1, w2);
    SHA1_MSG_ROUNDS(3, w0, w0, w1, w2, w3);
    SHA1_MSG_ROUNDS(3, w1, w1, w2, w3, w0);
    SHA1_MSG_ROUNDS(3, w2, w2, w3, w0, w1);
    SHA1_MSG_ROUNDS(3, w3, w3, w0, w1, w2);  /* group 19 */

    e0 = _mm_sha1nexte_epu32(prev, e0);
    abcd = _mm_add_epi32(abcd, abcd0);
    _mm_storeu_si128((__m128i *)&h->w32[0], _mm_shuffle_epi32(abcd, 0x1b));
    h->w32[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

#else
typedef int rijn_hash_x86_unused; /* ISO C: no empty translation unit */
#endif
