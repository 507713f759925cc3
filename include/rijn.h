/*
 * rijn: AES-128/192/256 in CTR mode, AES-GCM (rijn_gcm.h) and
 * Poly1305-AES (rijn_poly1305.h), fast and constant-time on every CPU.
 *
 * This header (with rijn_gcm.h and rijn_poly1305.h) is the whole public
 * API and its documentation.
 *
 * Conventions
 *   - Every context is allocated by the caller; the library never allocates.
 *     Keys and contexts are 64-byte aligned types (the round keys and
 *     powers of H are read with aligned vector loads): declare them, or
 *     allocate them with aligned_alloc(64, ...) or posix_memalign; plain
 *     malloc() does not align them enough.
 *   - Functions that can fail return 0 on success and -1 on failure.
 *   - Lengths are size_t; key lengths are in bytes (16, 24 or 32).
 *   - Buffers may have any alignment. Output may equal input exactly
 *     (in-place); partially overlapping buffers are not allowed.
 *
 * Wiping
 *   - `rijn_*_wipe()` clears a context or key (round keys included) with
 *     writes the compiler cannot drop; rijn_poly1305_final() and
 *     _final_verify() wipe their context themselves.
 *   - Inside the library, every buffer a function declares for key
 *     material, keystream or MAC state (round keys being built, the unused
 *     keystream of a batch or of a partial block, AES_k(n) of Poly1305-AES)
 *     is wiped before the function returns, on every backend; the unused
 *     keystream of a partial block that a streaming context keeps for the
 *     next call lives in the context until it is used or wiped. Where a
 *     backend's compiled code copies such state to the stack on its own,
 *     it clears that stack too (ref). Values that only ever live in
 *     registers are not wiped (C cannot reach them); a test scans the
 *     stack after every backend for the key, unused keystream and the
 *     Poly1305-AES pad (tests/stackwipe.c).
 *
 * Backends
 *   AES is computed by one of several interchangeable backends. The backend
 *   is chosen when a key is set up and is stored in the key, so a key
 *   schedule is only ever used by the backend that built it. Each is
 *   compiled for its architecture only; rijn_impl_get() lists those
 *   compiled in and whether this CPU runs them, `rijn impl` prints it.
 *
 *     name               arch     constant-time  needs
 *     vaes-avx512        x86-64   yes            VAES, AVX-512F/BW/VL
 *     vaes-avx2          x86-64   yes            VAES, AVX2
 *     aesni              x86-64   yes            AES-NI, SSSE3
 *     ppc8               ppc64    yes            POWER8 vector crypto
 *     altivec-bs         ppc      yes            AltiVec (bitsliced)
 *     altivec-vperm      ppc      yes            AltiVec (vperm S-box)
 *     altivec-vperm-otf  ppc      yes            AltiVec; on request only
 *     armv8              aarch64  yes            ARMv8 crypto extension (AES)
 *     neon-bs            aarch64  yes            NEON (bitsliced; TBL S-box
 *                                                one-block path)
 *     ct64               any      yes            - (bitsliced, 64-bit words)
 *     ref                any      NO             - (byte-wise, S-box table;
 *                                                a test oracle, never
 *                                                picked automatically)
 *   (tests/docs.cmake checks this table against CMakeLists.txt.)
 *
 * Environment
 *     RIJN_IMPL=name     force a backend; key setup fails (-1) if the name
 *                        is unknown, this CPU cannot run it, or it is not
 *                        constant time (ref) and RIJN_ALLOW_VARIABLE_TIME=1
 *                        is not set as well.
 *     RIJN_CPU_MASK=...  remove CPU features from what detection found:
 *                        a comma-separated list of feature names
 *                        ("avx512f,vaes") or a hexadecimal mask of
 *                        RIJN_CPU_* bits to keep ("0x3"). It can only take
 *                        features away, never add them.
 *   They are read once, on first use, and ignored by setuid and setgid
 *   programs (secure_getenv). rijn_aes_setkey_impl() with a name is the
 *   caller's explicit choice and may pick ref.
 */
#ifndef RIJN_H
#define RIJN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RIJN_VERSION_MAJOR 0
#define RIJN_VERSION_MINOR 1
#define RIJN_VERSION_PATCH 0
#define RIJN_VERSION_STRING "0.1.0"

#if defined(_WIN32) && defined(RIJN_SHARED_BUILD)
#define RIJN_API __declspec(dllexport)
#elif defined(__GNUC__)
#define RIJN_API __attribute__((visibility("default")))
#else
#define RIJN_API
#endif

#if defined(__cplusplus)
#define RIJN_ALIGN(n) alignas(n)
#else
#define RIJN_ALIGN(n) _Alignas(n)
#endif

/* The version of the library actually linked, e.g. "0.1.0". */
RIJN_API const char *rijn_version(void);

/* ------------------------------------------------------------------------
 * AES key
 * --------------------------------------------------------------------- */

struct rijn_aes_impl; /* a backend; opaque */

/*
 * An expanded AES key. The round keys are kept in the chosen backend's own
 * layout (byte-wise, bitsliced, ...); treat the contents as opaque.
 */
/* The largest key schedule of any backend: ct64's AES-256 (15 round keys
 * of 64 bytes, fixsliced). */
#define RIJN_AES_KEY_WORDS 120

typedef struct rijn_aes_key {
    RIJN_ALIGN(64) uint64_t rk[RIJN_AES_KEY_WORDS]; /* backend layout */
    const struct rijn_aes_impl *impl;       /* backend picked at key setup */
    unsigned rounds;                        /* 10, 12 or 14 */
    unsigned key_len;                       /* 16, 24 or 32 */
} rijn_aes_key;

/*
 * Expand a 16-, 24- or 32-byte AES key with the best backend this CPU can
 * run (or the one named by RIJN_IMPL). Returns -1 if key_len is not 16, 24
 * or 32, or if RIJN_IMPL names a backend that cannot be used (see
 * Environment above).
 */
RIJN_API int rijn_aes_setkey(rijn_aes_key *k, const unsigned char *key,
                             size_t key_len);

/*
 * Same, with the named backend ("ref", "ct64", ...); NULL means the default
 * choice. Returns -1 if the backend is unknown or this CPU cannot run it.
 */
RIJN_API int rijn_aes_setkey_impl(rijn_aes_key *k, const unsigned char *key,
                                  size_t key_len, const char *impl);

/* The name of the backend stored in an expanded key. */
RIJN_API const char *rijn_aes_key_impl(const rijn_aes_key *k);

/* Encrypt nblocks independent 16-byte blocks (ECB; a building block). */
RIJN_API void rijn_aes_encrypt_blocks(const rijn_aes_key *k,
                                      unsigned char *out,
                                      const unsigned char *in, size_t nblocks);

/* Clears the whole key object, including what an earlier setup of the
 * same object with a larger layout (another backend, a longer key) left
 * beyond the current round keys. */
RIJN_API void rijn_aes_key_wipe(rijn_aes_key *k);

/* ------------------------------------------------------------------------
 * AES-CTR (NIST SP 800-38A)
 *
 * The 16-byte IV is the first counter block. The whole block is one 128-bit
 * big-endian integer that is incremented once per 16 bytes of stream,
 * carrying across all 16 bytes and wrapping from ff..ff to 00..00. This is
 * exactly what `openssl enc -aes-*-ctr` and OpenSSL's EVP AES-CTR compute.
 * Encryption and decryption are the same operation.
 *
 * CTR mode gives confidentiality only, no integrity: anyone can flip any
 * bit of a ciphertext and the same bit of the plaintext flips, silently.
 * Use AES-GCM (rijn_gcm.h), or authenticate the ciphertext (Poly1305-AES,
 * rijn_poly1305.h, over the ciphertext) and check the tag before using the
 * plaintext. NEVER encrypt two messages with the same key and IV (or
 * overlapping counter ranges: IV + number of blocks): the XOR of the two
 * ciphertexts is the XOR of the two plaintexts. Use a fresh random IV per
 * message, or a counter-based IV that never repeats under one key.
 * --------------------------------------------------------------------- */

/* One shot: out = in XOR keystream(key, iv), len bytes. */
RIJN_API int rijn_aes_ctr(unsigned char *out, const unsigned char *in,
                          size_t len, const unsigned char *key, size_t key_len,
                          const unsigned char iv[16]);

/* One shot with an expanded key. */
RIJN_API void rijn_aes_ctr_key(const rijn_aes_key *k, unsigned char *out,
                               const unsigned char *in, size_t len,
                               const unsigned char iv[16]);

/*
 * Streaming context. The output does not depend on how the input is split
 * across calls. A stream can be positioned at any byte offset (random
 * access) with rijn_aes_ctr_seek().
 */
typedef struct rijn_aes_ctr_ctx {
    rijn_aes_key key;
    unsigned char ctr[16];  /* counter block of the next block to make */
    unsigned char ks[16];   /* keystream of the current partial block */
    unsigned ks_used;       /* bytes of ks consumed; 16 when none are left */
    uint64_t offset;        /* current stream offset in bytes */
} rijn_aes_ctr_ctx;

/* Key and IV setup; returns -1 on a bad key length or backend. */
RIJN_API int rijn_aes_ctr_init(rijn_aes_ctr_ctx *c, const unsigned char *key,
                               size_t key_len, const unsigned char iv[16]);

/* Same, with a named backend (see rijn_aes_setkey_impl). */
RIJN_API int rijn_aes_ctr_init_impl(rijn_aes_ctr_ctx *c,
                                    const unsigned char *key, size_t key_len,
                                    const unsigned char iv[16],
                                    const char *impl);

/* New IV, same key; the stream restarts at offset 0. */
RIJN_API void rijn_aes_ctr_setiv(rijn_aes_ctr_ctx *c,
                                 const unsigned char iv[16]);

/* Position the stream at byte `offset` from the start of the IV. */
RIJN_API void rijn_aes_ctr_seek(rijn_aes_ctr_ctx *c, uint64_t offset);

/* out = in XOR the next len bytes of keystream. */
RIJN_API void rijn_aes_ctr_xor(rijn_aes_ctr_ctx *c, unsigned char *out,
                               const unsigned char *in, size_t len);

RIJN_API void rijn_aes_ctr_wipe(rijn_aes_ctr_ctx *c);

/* ------------------------------------------------------------------------
 * Backends and CPU features
 * --------------------------------------------------------------------- */

typedef struct rijn_impl_info {
    const char *name;       /* "ref", "ct64", ... */
    int available;          /* 1 if this CPU (after RIJN_CPU_MASK) runs it */
    int constant_time;      /* 1 if it has no secret-dependent branch/index */
    int is_default;         /* 1 for the backend rijn_aes_setkey() picks */
    char needs[96];         /* CPU features it needs, e.g. "aesni,ssse3" */
} rijn_impl_info;

/* Number of AES backends compiled into this library. */
RIJN_API size_t rijn_impl_count(void);

/* Describe backend i (0 <= i < rijn_impl_count()); -1 if out of range. */
RIJN_API int rijn_impl_get(size_t i, rijn_impl_info *info);

/* The backend rijn_aes_setkey() picks (honouring RIJN_IMPL), or NULL if
 * RIJN_IMPL names one that cannot be used (see Environment above). */
RIJN_API const char *rijn_impl_default(void);

/* Writes the detected CPU features (after RIJN_CPU_MASK) as a
 * comma-separated list into buf; returns buf. */
RIJN_API char *rijn_cpu_features(char *buf, size_t n);

/* Zero n bytes at p in a way the compiler cannot remove. */
RIJN_API void rijn_wipe(void *p, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* RIJN_H */

/* Poly1305-AES and raw Poly1305, AES-GCM (same library, separate headers). */
#include "rijn_poly1305.h"
#include "rijn_gcm.h"
