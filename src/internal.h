/*
 * Internal interfaces of librijn: the backend contract, CPU features,
 * byte-order helpers and the constant-time validation hooks.
 */
#ifndef RIJN_INTERNAL_H
#define RIJN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rijn.h"

/* ------------------------------------------------------------------------
 * CPU features (one bit each; detection in src/cpu/)
 * --------------------------------------------------------------------- */
enum {
    /* x86-64 */
    RIJN_CPU_SSSE3 = 1u << 0,
    RIJN_CPU_AESNI = 1u << 1,
    RIJN_CPU_PCLMUL = 1u << 2,
    RIJN_CPU_AVX = 1u << 3,
    RIJN_CPU_AVX2 = 1u << 4,
    RIJN_CPU_BMI2 = 1u << 5,
    RIJN_CPU_VAES = 1u << 6,
    RIJN_CPU_VPCLMUL = 1u << 7,
    RIJN_CPU_AVX512F = 1u << 8,
    RIJN_CPU_AVX512BW = 1u << 9,
    RIJN_CPU_AVX512VL = 1u << 10,
    RIJN_CPU_AVX512IFMA = 1u << 11,
    RIJN_CPU_GFNI = 1u << 12,
    RIJN_CPU_SHA = 1u << 13, /* SHA-1/SHA-256 extensions (with SSSE3, SSE4.1) */
    /* AArch64 */
    RIJN_CPU_NEON = 1u << 16,
    RIJN_CPU_ARM_AES = 1u << 17,
    RIJN_CPU_ARM_PMULL = 1u << 18,
    /* PowerPC */
    RIJN_CPU_ALTIVEC = 1u << 24,
    RIJN_CPU_VSX = 1u << 25,
    RIJN_CPU_PPC_CRYPTO = 1u << 26 /* ISA 2.07 vcipher/vpmsum (POWER8) */
};

typedef struct {
    const char *name;
    uint32_t bit;
} rijn_cpu_feature_name;

/* Name table for every RIJN_CPU_* bit, terminated by {NULL, 0}. */
extern const rijn_cpu_feature_name rijn_cpu_feature_names[];

/* What the hardware and OS support, before RIJN_CPU_MASK (per arch). */
uint32_t rijn_cpu_detect(void);

/* Detected features with RIJN_CPU_MASK applied; computed once. */
uint32_t rijn_cpu_features_get(void);

/* Apply a RIJN_CPU_MASK string to a feature set (exposed for tests). */
uint32_t rijn_cpu_apply_mask(uint32_t features, const char *mask);

/* ------------------------------------------------------------------------
 * AES backend contract
 *
 * Every backend is one const struct in one file under src/aes/ and one line
 * in the registry in src/dispatch.c. All kernels take (key, out, in, ...)
 * in that order. out may equal in exactly; no partial overlap.
 *
 *   setkey  expands key (key_len 16, 24 or 32, already validated) into
 *           k->rk in the backend's own layout. k->rounds and k->key_len are
 *           set by the caller before the call.
 *   ecb     encrypts nblocks independent blocks.
 *   ctr32   out[i] = in[i] XOR E(ctr + i) for i < nblocks, where only the
 *           low 32 bits (big-endian bytes 12..15) of the counter step, mod
 *           2^32, and bytes 0..11 stay as given. The mode code (ctr.c)
 *           splits calls so that no 2^32 wrap happens where a carry is
 *           needed. nblocks may be 0.
 * --------------------------------------------------------------------- */
typedef struct rijn_aes_impl {
    const char *name;     /* lowercase; same in file, CLI, bench, ctest */
    uint32_t needs;       /* RIJN_CPU_* bits that must all be present */
    int constant_time;    /* 1 if no secret-dependent branch or address */
    int rank;             /* best-pick preference; 0 = never picked */
    void (*setkey)(rijn_aes_key *k, const uint8_t *key, size_t key_len);
    void (*ecb)(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                size_t nblocks);
    void (*ctr32)(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                  size_t nblocks, const uint8_t ctr[16]);
} rijn_aes_impl;

#if defined(__x86_64__)
#include <emmintrin.h>

/* The counter block of a ctr32 call, for the x86 kernels: two 8-byte
 * loads, because the mode code (ctr.c) has just stored it as two 8-byte
 * words and a 16-byte load of two stores cannot be forwarded from them (a
 * stall of about a dozen cycles per call on Zen 4). SSE2 is baseline. */
static inline __m128i rijn_x86_load_ctr(const uint8_t ctr[16])
{
    return _mm_unpacklo_epi64(
        _mm_loadl_epi64((const __m128i *)(const void *)ctr),
        _mm_loadl_epi64((const __m128i *)(const void *)(ctr + 8)));
}

/* The AES-NI key schedule (standard round keys, 16 bytes each, in k->rk),
 * shared by the aesni and vaes-avx512 backends; the _wide one stores each
 * round key twice (32 bytes each: both lanes of a YMM), for vaes-avx2.
 * Need AES-NI and SSSE3, which every CPU with VAES has. */
void rijn_aesni_setkey(rijn_aes_key *k, const uint8_t *key, size_t key_len);
void rijn_aesni_setkey_wide(rijn_aes_key *k, const uint8_t *key,
                            size_t key_len);
#endif

/* Look up a backend by name; NULL if not compiled in. */
const rijn_aes_impl *rijn_impl_find(const char *name);
/* 1 if the current CPU features (after the mask) satisfy impl->needs. */
int rijn_impl_runnable(const rijn_aes_impl *impl);

/* ------------------------------------------------------------------------
 * Byte order (the only way multi-byte values are read or written)
 * --------------------------------------------------------------------- */
/* Native-order loads and stores of any alignment, then a byte swap where
 * the host order differs: compilers turn each into one load or store (and
 * a bswap), which also lets later wide loads forward from these stores. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    defined(__ORDER_BIG_ENDIAN__) && defined(__GNUC__)
#define RIJN_LE (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define RIJN_BE (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
#define RIJN_BSWAP32(x) __builtin_bswap32(x)
#define RIJN_BSWAP64(x) __builtin_bswap64(x)
#else
#define RIJN_LE 0
#define RIJN_BE 0
#define RIJN_BSWAP32(x) (x)
#define RIJN_BSWAP64(x) (x)
#endif

static inline uint32_t rijn_load32_be(const uint8_t *p)
{
    uint32_t v;
    if (RIJN_LE || RIJN_BE) {
        memcpy(&v, p, 4);
        return RIJN_LE ? RIJN_BSWAP32(v) : v;
    }
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline void rijn_store32_be(uint8_t *p, uint32_t v)
{
    if (RIJN_LE || RIJN_BE) {
        v = RIJN_LE ? RIJN_BSWAP32(v) : v;
        memcpy(p, &v, 4);
        return;
    }
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint32_t rijn_load32_le(const uint8_t *p)
{
    uint32_t v;
    if (RIJN_LE || RIJN_BE) {
        memcpy(&v, p, 4);
        return RIJN_BE ? RIJN_BSWAP32(v) : v;
    }
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline void rijn_store32_le(uint8_t *p, uint32_t v)
{
    if (RIJN_LE || RIJN_BE) {
        v = RIJN_BE ? RIJN_BSWAP32(v) : v;
        memcpy(p, &v, 4);
        return;
    }
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline uint64_t rijn_load64_le(const uint8_t *p)
{
    uint64_t v;
    if (RIJN_LE || RIJN_BE) {
        memcpy(&v, p, 8);
        return RIJN_BE ? RIJN_BSWAP64(v) : v;
    }
    return (uint64_t)rijn_load32_le(p) | ((uint64_t)rijn_load32_le(p + 4) << 32);
}

static inline void rijn_store64_le(uint8_t *p, uint64_t v)
{
    if (RIJN_LE || RIJN_BE) {
        v = RIJN_BE ? RIJN_BSWAP64(v) : v;
        memcpy(p, &v, 8);
        return;
    }
    rijn_store32_le(p, (uint32_t)v);
    rijn_store32_le(p + 4, (uint32_t)(v >> 32));
}

static inline uint64_t rijn_load64_be(const uint8_t *p)
{
    uint64_t v;
    if (RIJN_LE || RIJN_BE) {
        memcpy(&v, p, 8);
        return RIJN_LE ? RIJN_BSWAP64(v) : v;
    }
    return ((uint64_t)rijn_load32_be(p) << 32) | (uint64_t)rijn_load32_be(p + 4);
}

static inline void rijn_store64_be(uint8_t *p, uint64_t v)
{
    if (RIJN_LE || RIJN_BE) {
        v = RIJN_LE ? RIJN_BSWAP64(v) : v;
        memcpy(p, &v, 8);
        return;
    }
    rijn_store32_be(p, (uint32_t)(v >> 32));
    rijn_store32_be(p + 4, (uint32_t)v);
}

/* dst = a XOR b over n bytes (any alignment; dst may equal a or b). */
static inline void rijn_xor_bytes(uint8_t *dst, const uint8_t *a,
                                  const uint8_t *b, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        x ^= y;
        memcpy(dst + i, &x, 8);
    }
    for (; i < n; i++)
        dst[i] = (uint8_t)(a[i] ^ b[i]);
}

/* Zero n bytes in a way the optimiser keeps (memset, then a compiler
 * barrier that claims to read the memory). */
static inline void rijn_burn(void *p, size_t n)
{
    memset(p, 0, n);
#if defined(__GNUC__) || defined(__clang__)
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    volatile unsigned char *v = (volatile unsigned char *)p;
    while (n--)
        *v++ = 0;
#endif
}

/* ------------------------------------------------------------------------
 * Constant-time validation hooks. In a build with RIJN_CTGRIND these mark
 * memory as secret (undefined to valgrind memcheck) or public again, so
 * memcheck reports every branch or address that depends on a secret.
 * --------------------------------------------------------------------- */
#ifdef RIJN_CTGRIND
#include <valgrind/memcheck.h>
#define RIJN_SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define RIJN_PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))
#else
#define RIJN_SECRET(p, n) ((void)(p), (void)(n))
#define RIJN_PUBLIC(p, n) ((void)(p), (void)(n))
#endif

#endif /* RIJN_INTERNAL_H */
