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
 * CPU features (one bit each; detection in src/core/cpu/)
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
    RIJN_CPU_SHA = 1u << 13, /* SHA-1/SHA-256 extensions (detected only
                                with SSE4.1, which has no bit of its own) */
    /* A tuning property, not an instruction set: VPCLMULQDQ issues once
     * per two cycles at every width, on a pipe of its own, beside two
     * VAESENC a cycle (AMD family 1Ah, Zen 5; detected only with VPCLMUL).
     * GCM at full AES speed is then bound by the multiplies, and
     * Karatsuba's three per block beat schoolbook's four. Only an engine's
     * `tuned` bits look at it (see rijn_impl). */
    RIJN_CPU_VPCLMUL_SLOW = 1u << 14,
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

/* The names of the RIJN_CPU_* bits in `bits`, comma-separated, into buf
 * ("" for none; names that do not fit are left out); returns buf. */
char *rijn_cpu_names(uint32_t bits, char *buf, size_t n);

/* Apply a RIJN_CPU_MASK string to a feature set (exposed for tests). */
uint32_t rijn_cpu_apply_mask(uint32_t features, const char *mask);

/* ------------------------------------------------------------------------
 * Implementations and registries (src/core/registry.c)
 *
 * Every AES backend, Poly1305 engine and GHASH engine descriptor begins
 * with a rijn_impl. One rijn_registry per kind lists them, in the order of
 * the rijn_impl() lines of CMakeLists.txt (generated/rijn_registry.h), the
 * same list the tests are registered from.
 *
 * The default of a kind is its highest-ranked runnable implementation
 * (rank 0: never picked), or the one named by its environment variable
 * (RIJN_IMPL, RIJN_POLY1305_IMPL, ...). The environment is read once, with
 * secure_getenv: a setuid or setgid program ignores it. A name that is
 * unknown, that this CPU cannot run, or that is not constant time (ref)
 * without RIJN_ALLOW_VARIABLE_TIME=1 as well, makes the default NULL, so
 * every operation fails loudly instead of running something else. An
 * implementation named in a call (rijn_aes_setkey_impl) is the caller's
 * explicit choice and may be variable time.
 * --------------------------------------------------------------------- */
#include <stdatomic.h>

#define RIJN_ENV_ALLOW_VARIABLE_TIME "RIJN_ALLOW_VARIABLE_TIME"

typedef struct rijn_impl {
    const char *name;   /* lowercase; same in file, CLI, bench, ctest */
    uint32_t needs;     /* RIJN_CPU_* bits that must all be present */
    int constant_time;  /* 1 if no secret-dependent branch or address */
    int rank;           /* best-pick preference; 0 = never picked */
    uint32_t tuned;     /* RIJN_CPU_* bits its rank counts only with (a
                           variant tuned for some CPUs: it runs wherever
                           `needs` allows, named, but is picked by rank
                           only where all these are present); 0: none */
} rijn_impl;

typedef struct rijn_registry {
    const char *env;                   /* the override variable */
    const rijn_impl *const *list;
    size_t count;
    _Atomic(const rijn_impl *) cached; /* the default, once computed */
    atomic_int forced;                 /* the environment named it */
    atomic_int ready;
} rijn_registry;

/* getenv, but NULL in a program running with privileges its caller does
 * not have: setuid, setgid, file capabilities, LSM transitions
 * (secure_getenv; where the C library lacks it, rijn_getenv_fallback). */
const char *rijn_getenv(const char *name);
/* The same rule without secure_getenv: the kernel's AT_SECURE flag
 * (getauxval) where there is one, else real against effective ids.
 * Always built, so that the tests run it on every host. */
const char *rijn_getenv_fallback(const char *name);
/* 1 if RIJN_ALLOW_VARIABLE_TIME=1 (read with rijn_getenv). */
int rijn_env_allows_variable_time(void);
/* 1 if the CPU features (after RIJN_CPU_MASK) satisfy d->needs; _on: if
 * the given feature set does. */
int rijn_impl_runnable(const rijn_impl *d);
int rijn_impl_runnable_on(const rijn_impl *d, uint32_t features);
/* d->rank where the CPU features (after RIJN_CPU_MASK) have all of
 * d->tuned, otherwise 0 (not picked by rank). */
int rijn_impl_rank(const rijn_impl *d);
/* By name; NULL if not compiled in. */
const rijn_impl *rijn_registry_find(const rijn_registry *r, const char *name);
/* What the default would be now (not cached); *forced says whether the
 * environment named one. For tests and messages. */
const rijn_impl *rijn_registry_env_pick(const rijn_registry *r, int *forced);
/* The default, computed once (see above); NULL if the environment names
 * one that cannot be used. */
const rijn_impl *rijn_registry_default_init(rijn_registry *r);
static inline const rijn_impl *rijn_registry_default(rijn_registry *r)
{
    if (atomic_load_explicit(&r->ready, memory_order_acquire))
        return atomic_load_explicit(&r->cached, memory_order_relaxed);
    return rijn_registry_default_init(r);
}
/* 1 if the default was named by the environment (computes it first). */
int rijn_registry_forced(rijn_registry *r);
/* name == NULL: the default; otherwise that one if it is compiled in and
 * runnable (variable time allowed: the caller chose it), else NULL. */
const rijn_impl *rijn_registry_pick(rijn_registry *r, const char *name);
/* The public description of entry i; -1 if out of range. */
int rijn_registry_info(rijn_registry *r, size_t i, rijn_impl_info *info);

/* ------------------------------------------------------------------------
 * AES backend contract
 *
 * Every backend is one const struct in one file under src/aes/ and one
 * rijn_impl(AES ...) line in CMakeLists.txt. All kernels take (key, out,
 * in, ...) in that order. out may equal in exactly; no partial overlap.
 *
 *   key_bytes  bytes of k->rk the schedule writes for a 16-, 24- and
 *              32-byte key (what rijn_aes_key_clear clears); each backend
 *              file checks with a _Static_assert that they fit.
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
    rijn_impl base;
    uint16_t key_bytes[3]; /* AES-128, AES-192, AES-256 */
    void (*setkey)(rijn_aes_key *k, const uint8_t *key, size_t key_len);
    void (*ecb)(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                size_t nblocks);
    void (*ctr32)(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                  size_t nblocks, const uint8_t ctr[16]);
} rijn_aes_impl;

/* Key bytes of a layout with `per_round` bytes per round key (AES-128,
 * -192, -256 have 11, 13, 15), for the key_bytes initialisers. */
#define RIJN_AES_KEY_BYTES(per_round) \
    {11 * (per_round), 13 * (per_round), 15 * (per_round)}
/* In each backend file: its largest layout fits in rijn_aes_key.rk. */
#define RIJN_AES_KEY_FITS(bytes, what) \
    _Static_assert((bytes) <= sizeof(((rijn_aes_key *)0)->rk), \
                   what " does not fit in rijn_aes_key.rk")

/* The AES registry (src/aes/aes.c). */
extern rijn_registry rijn_aes_registry;

/* Look up a backend by name; NULL if not compiled in. */
const rijn_aes_impl *rijn_aes_impl_find(const char *name);

/*
 * x86: a backend's CPU features are listed once, as F(BIT, "gcc-name")
 * pairs in an X-macro of its file; RIJN_X86_NEEDS gives its `needs` mask
 * and RIJN_X86_TARGET the string for __attribute__((target(...))), so the
 * two cannot disagree (every feature the compiler may use is one the CPU
 * is checked for). List what the target string implies too (avx512f
 * implies avx2 and avx to the compiler; the key schedule is SSSE3).
 */
#define RIJN_X86_NEED_BIT_(bit, name) | RIJN_CPU_##bit
#define RIJN_X86_NEED_NAME_(bit, name) "," name
#define RIJN_X86_NEEDS(list) (0u list(RIJN_X86_NEED_BIT_))
#define RIJN_X86_TARGET(list) "sse2" list(RIJN_X86_NEED_NAME_)

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

/* The AES-NI key schedule (standard round keys, 16 bytes each, in k->rk)
 * of the aesni backend; the _wide one stores each round key twice (32
 * bytes each: both lanes of a YMM), for vaes-avx2, the _x4 one four times
 * (64 bytes: every lane of a ZMM, 960 bytes for AES-256), for
 * vaes-avx512. Need AES-NI and SSSE3, which every CPU with VAES has. */
void rijn_aesni_setkey(rijn_aes_key *k, const uint8_t *key, size_t key_len);
void rijn_aesni_setkey_wide(rijn_aes_key *k, const uint8_t *key,
                            size_t key_len);
void rijn_aesni_setkey_x4(rijn_aes_key *k, const uint8_t *key,
                          size_t key_len);
#endif


/* ------------------------------------------------------------------------
 * Loop unrolling. RIJN_UNROLL(n) before a loop with a constant trip count
 * unrolls it (fully, up to n iterations), so that arrays of state registers
 * indexed by the loop variable never live in memory; RIJN_NO_UNROLL keeps
 * a loop rolled (round loops: unrolled, compilers hoist every round key
 * into registers and spill the states instead).
 * --------------------------------------------------------------------- */
#define RIJN_PRAGMA_(x) _Pragma(#x)
#if defined(__clang__)
#define RIJN_UNROLL(n) _Pragma("clang loop unroll(full)")
#define RIJN_NO_UNROLL _Pragma("clang loop unroll(disable)")
#elif defined(__GNUC__)
#define RIJN_UNROLL(n) RIJN_PRAGMA_(GCC unroll n)
#define RIJN_NO_UNROLL _Pragma("GCC unroll 1")
#else
#define RIJN_UNROLL(n)
#define RIJN_NO_UNROLL
#endif

/* ------------------------------------------------------------------------
 * Read once (the decrypt rule of rijn_gcm.h: the ciphertext GHASH absorbs
 * is the ciphertext the keystream is XORed with). RIJN_READ_ONCE_VEC(v)
 * after a vector load of input: v is then a register value the compiler
 * cannot see into, so it can neither fold the load into two instructions'
 * memory operands nor re-read the input later instead of keeping (or
 * spilling to the stack) what it loaded. Input is caller memory that
 * another thread or process may change between two reads. No code is
 * emitted. RIJN_READ_ONCE_GPR for general-purpose register values.
 * --------------------------------------------------------------------- */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define RIJN_READ_ONCE_VEC(v) __asm__("" : "+v"(v))
#elif defined(__GNUC__) && (defined(__powerpc__) || defined(__powerpc64__))
#define RIJN_READ_ONCE_VEC(v) __asm__("" : "+v"(v))
#elif defined(__GNUC__) && (defined(__aarch64__) || defined(__arm__))
#define RIJN_READ_ONCE_VEC(v) __asm__("" : "+w"(v))
#elif defined(__GNUC__)
#define RIJN_READ_ONCE_VEC(v) __asm__("" : "+m"(v))
#else
#define RIJN_READ_ONCE_VEC(v) ((void)0)
#endif
#if defined(__GNUC__)
#define RIJN_READ_ONCE_GPR(v) __asm__("" : "+r"(v))
#else
#define RIJN_READ_ONCE_GPR(v) ((void)0)
#endif

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

/* 1 if a[0..n) == b[0..n), 0 otherwise, in time independent of the bytes
 * (no early exit, no data-dependent branch). */
static inline int rijn_ct_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint64_t d = 0, x, y;
    size_t i = 0;

    /* eight bytes at a time through general-purpose registers: the byte
     * loop, which gcc vectorises into SSE unpacks, made a 16-byte GCM
     * decryption 11% slower on Zen 4 (a 256-byte one 3-7%) */
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        d |= x ^ y;
    }
    for (; i < n; i++)
        d |= (uint64_t)(a[i] ^ b[i]);
    /* 1 iff d == 0: d | -d has bit 63 set otherwise */
    return (int)(1 & ~((d | (0 - d)) >> 63));
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

/* rijn_burn for a small buffer on a hot path: 8-byte stores of a zero
 * the compiler cannot see, so it cannot turn them into a memset, and
 * rijn_burn's barrier after them, so it cannot drop them. gcc 12 makes
 * a memset of 128 bytes a REP STOSQ, whose start cost vpclmul-avx2's
 * 640-1420-byte messages 5-12% on Zen 4. */
static inline void rijn_burn_small(void *p, size_t n)
{
    unsigned char *q = (unsigned char *)p;
    uint64_t z = 0;
    size_t i;

#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+r"(z));
#endif
    for (i = 0; i + 8 <= n; i += 8)
        memcpy(q + i, &z, 8);
    rijn_burn(q + i, n - i);
}

/*
 * Clears the RIJN_STACK_BURN_BYTES of stack below the caller's frame:
 * where the frames of the functions it just called were. For code whose
 * compiled form copies secret state to the stack on its own (ref's
 * byte-wise rounds: gcc spills the state once per byte it extracts), so
 * that the wipe policy of rijn.h holds there too; cf. libsodium's
 * sodium_stackzero.
 */
#define RIJN_STACK_BURN_BYTES 2048
void rijn_stack_burn(void);

/* The same for the n bytes (at most RIJN_STACK_BURN_BYTES) right below the
 * caller's frame, for a kernel whose frame is known to be smaller, since
 * the clearing costs in proportion (altivec-vperm-otf; ppc8's CTR of a
 * 40-byte packet took 52% more instructions with the whole 2048 bytes). */
void rijn_stack_burn_n(size_t n);

/*
 * Clears exactly the round keys k's backend wrote (k->impl's key_bytes for
 * its key length; all of rk if k holds no key of ours). For a key object
 * set up once and dropped, as the library's own per-message keys are
 * (Poly1305-AES's AES_k, the one-shot CTR call): there it saves clearing
 * the 960-byte maximum for a 176-byte AES-NI schedule. rijn_aes_key_wipe
 * clears the whole object, for keys a caller may have set up again.
 */
void rijn_aes_key_clear(rijn_aes_key *k);

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
