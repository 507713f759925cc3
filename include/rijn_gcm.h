/*
 * rijn: AES-GCM (NIST SP 800-38D), authenticated encryption with
 * associated data.
 *
 * Included at the end of rijn.h; may also be included on its own.
 *
 * A message is encrypted under a key and an IV (nonce); the associated
 * data (AAD) is authenticated but not encrypted; the tag authenticates
 * both. Decryption checks the tag.
 *
 * Rules
 *   - NEVER use the same IV twice under one key: GCM then leaks the XOR of
 *     the plaintexts and lets an attacker forge tags for any message. Use
 *     12-byte IVs from a counter, or random 12-byte IVs for at most 2^32
 *     messages per key (SP 800-38D 8.3).
 *   - IV: any length from 1 byte up; 12 bytes is the fast path and the
 *     recommended size (other lengths go through GHASH as the standard
 *     says). A 0-byte IV is refused (-1).
 *   - Tag: 12 to 16 bytes (tag_len); anything else is refused (-1). Shorter
 *     tags (4 and 8 bytes exist in SP 800-38D) are not offered: their
 *     forgery bounds need extra usage limits.
 *   - Limits, enforced with an error (-1), never by wrapping: at most
 *     2^36 - 32 bytes of plaintext per message and 2^61 - 1 bytes of AAD.
 *   - The 32-bit counter of GCM (inc32) wraps mod 2^32 inside the low 32
 *     bits of the counter block and never carries into the other 96, unlike
 *     CTR mode (rijn_aes_ctr_*).
 *
 * Encryption
 *   Every encryption (one-shot, seal, streaming; every AES backend, GHASH
 *   engine and architecture) authenticates the ciphertext as it made it:
 *   GHASH absorbs the blocks from registers or private memory, never
 *   reads them back from the output buffer. So an output buffer that
 *   another thread or process can write during the call (a shared
 *   mapping, say) may end up holding other bytes than the ciphertext,
 *   but the tag is always that of the ciphertext of the plaintext read:
 *   a writer of the output cannot get a tag for bytes of its choosing
 *   (tests/gcm/gcm_race.c checks it on every pairing).
 *
 * Decryption
 *   rijn_gcm_decrypt and rijn_gcm_open release nothing unless the tag
 *   verifies: on failure the output buffer is wiped (all zero) and -1 is
 *   returned.
 *   Every decryption (one-shot, open, streaming; every AES backend, GHASH
 *   engine and architecture) reads each ciphertext byte once: the block
 *   GHASH absorbs is the block XORed with the keystream (kernels that
 *   cannot keep what they loaded copy the input to private memory first).
 *   So input that another thread or process changes during the call (a
 *   shared mapping of a file, say) may make the tag fail, but never makes
 *   it verify with plaintext other than the decryption of the ciphertext
 *   it authenticated. That covers the bytes read during one call: a
 *   caller that decrypts such memory in several calls (streaming pieces)
 *   or reads it again afterwards gets no such promise about what it reads
 *   between them; copy it to private memory first.
 *   **The streaming decryption (rijn_gcm_decrypt_update) necessarily
 *   releases plaintext before the tag is checked (rijn_gcm_verify at the
 *   end). Do not act on that plaintext, and discard all of it, unless
 *   verify returns 0.** To release only authenticated data piece by piece,
 *   use a chunked format with a tag per chunk (the file format of
 *   `rijn seal`).
 *
 * Backends
 *   The AES part runs on the AES backend chosen at key setup (as in
 *   rijn.h: RIJN_IMPL, RIJN_CPU_MASK), the GHASH part on a GHASH engine
 *   chosen with it: the engine with a fused AES+GHASH kernel for that
 *   backend where there is one, otherwise the best engine this CPU runs.
 *   RIJN_GHASH_IMPL=name forces an engine (read like RIJN_IMPL: once, not in
 *   setuid programs, variable time only with RIJN_ALLOW_VARIABLE_TIME=1);
 *   rijn_gcm_impl_get lists them, `rijn impl` prints them.
 *
 *     name              arch     constant-time  needs / notes
 *     vpclmul-avx512    x86-64   yes            VPCLMULQDQ, VAES, AVX-512F/BW/VL
 *                                               (and AVX2, AES-NI, PCLMULQDQ,
 *                                               SSSE3); fused with
 *                                               vaes-avx512: 32 blocks per
 *                                               step on ZMM, H^32..H^1,
 *                                               schoolbook products
 *     vpclmul-avx512-kara x86-64 yes            the same, Karatsuba products
 *                                               (3 multiplies a ZMM, not 4);
 *                                               picked instead on AMD Zen 5,
 *                                               where the multiplies bound it
 *     vpclmul-avx2      x86-64   yes            VPCLMULQDQ, VAES, AVX2 (and
 *                                               AVX, AES-NI, PCLMULQDQ,
 *                                               SSSE3); fused with vaes-avx2:
 *                                               16 blocks per step on YMM
 *     pclmul            x86-64   yes            PCLMULQDQ, SSSE3; fused with
 *                                               aesni: 8 blocks per step
 *     vpmsum            ppc64    yes            POWER8 vector crypto, VSX
 *                                               (either byte order): vpmsumd,
 *                                               H^8..H^1, 8 blocks per
 *                                               reduction; fused with ppc8
 *     altivec           ppc      yes            AltiVec (G4, G5; big-endian
 *                                               ppc and ppc64): 4-bit tables
 *                                               of H looked up with vperm, no
 *                                               multiplications
 *     pmull             aarch64  yes            PMULL (ARMv8 crypto extension);
 *                                               fused with armv8: 8 blocks
 *                                               per step
 *     neon              aarch64  yes            NEON without the crypto
 *                                               extension (for neon-bs):
 *                                               8x8-bit PMULL, 6 blocks per
 *                                               reduction
 *     ctmul64           64-bit   yes            integer multiplications with
 *                                               the bits spread out (64-bit
 *                                               products); 64-bit hosts only
 *     ctmul32           any      yes            the same on 16-bit pieces
 *                                               with 32-bit products, every
 *                                               operand full width (for
 *                                               early-out multipliers);
 *                                               32-bit hosts, G3, G4
 *                                               without AltiVec
 *     ref               any      NO             bit by bit (SP 800-38D
 *                                               Algorithm 1); test oracle
 *   (tests/docs.cmake checks this table against CMakeLists.txt.)
 */
#ifndef RIJN_GCM_H
#define RIJN_GCM_H

#include <stddef.h>
#include <stdint.h>

#include "rijn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest GHASH key layout of any engine (H and its powers). */
#define RIJN_GHASH_KEY_WORDS 96

struct rijn_ghash_engine; /* an engine; opaque */

/*
 * A GCM key: the AES key schedule in its backend's layout and the GHASH key
 * H = E_K(0^128) with its precomputed powers in the GHASH engine's layout.
 * Set up once, used for any number of messages (also by several threads at
 * once: the functions below only read it), wiped by rijn_gcm_key_wipe.
 */
typedef struct rijn_gcm_key {
    rijn_aes_key aes;
    RIJN_ALIGN(64) uint64_t h[RIJN_GHASH_KEY_WORDS]; /* engine layout */
    const struct rijn_ghash_engine *ghash;           /* picked at setup */
    int fused; /* ghash's fused AES+GHASH kernel runs aes's backend */
} rijn_gcm_key;

/* Key setup with the default AES backend and GHASH engine. Returns -1 if
 * key_len is not 16, 24 or 32 or no backend/engine can be used. */
RIJN_API int rijn_gcm_setkey(rijn_gcm_key *k, const unsigned char *key,
                             size_t key_len);

/* Same with named implementations (NULL: the default choice). Returns -1
 * if a name is unknown or this CPU cannot run it. */
RIJN_API int rijn_gcm_setkey_impl(rijn_gcm_key *k, const unsigned char *key,
                                  size_t key_len, const char *aes_impl,
                                  const char *ghash_impl);

RIJN_API void rijn_gcm_key_wipe(rijn_gcm_key *k);

/* The GHASH engine a key uses. */
RIJN_API const char *rijn_gcm_key_ghash(const rijn_gcm_key *k);

/* ---- One shot, detached tag --------------------------------------------- */

/* ct = AES-GCM encryption of pt[0..len) (ct may equal pt), tag[0..tag_len)
 * the tag over aad and ct. Returns 0, or -1 (nothing written) on a bad
 * iv_len, tag_len or length. */
RIJN_API int rijn_gcm_encrypt(const rijn_gcm_key *k, unsigned char *ct,
                              unsigned char *tag, size_t tag_len,
                              const unsigned char *iv, size_t iv_len,
                              const unsigned char *aad, size_t aad_len,
                              const unsigned char *pt, size_t len);

/* pt = decryption of ct[0..len) if tag[0..tag_len) verifies (compared in
 * constant time): returns 0. Otherwise returns -1 and pt[0..len) is all
 * zero (pt may equal ct: the ciphertext is then wiped too). Each byte of
 * ct is read once (see Decryption above). */
RIJN_API int rijn_gcm_decrypt(const rijn_gcm_key *k, unsigned char *pt,
                              const unsigned char *tag, size_t tag_len,
                              const unsigned char *iv, size_t iv_len,
                              const unsigned char *aad, size_t aad_len,
                              const unsigned char *ct, size_t len);

/* ---- One shot, tag appended (SUPERCOP crypto_aead, most protocols) ------- */

/* out[0..len + tag_len) = ciphertext || tag. out may equal in. */
RIJN_API int rijn_gcm_seal(const rijn_gcm_key *k, unsigned char *out,
                           size_t tag_len, const unsigned char *iv,
                           size_t iv_len, const unsigned char *aad,
                           size_t aad_len, const unsigned char *in,
                           size_t len);

/* in[0..in_len) = ciphertext || tag; out[0..in_len - tag_len) gets the
 * plaintext if the tag verifies (0); otherwise -1 and out[0..in_len -
 * tag_len) all zero, also when an argument is refused (a tag_len outside
 * 12..16, a bad iv_len or aad_len). Only when in_len < tag_len or in_len -
 * tag_len is over the data limit (no length of out is known) is -1
 * returned with out untouched. out may equal in. The tag is read first,
 * then each ciphertext byte once (see Decryption above). */
RIJN_API int rijn_gcm_open(const rijn_gcm_key *k, unsigned char *out,
                           size_t tag_len, const unsigned char *iv,
                           size_t iv_len, const unsigned char *aad,
                           size_t aad_len, const unsigned char *in,
                           size_t in_len);

/* ---- Streaming ---------------------------------------------------------- */

/*
 * rijn_gcm_start, then any number of rijn_gcm_aad pieces, then any number
 * of rijn_gcm_encrypt_update (or decrypt_update) pieces of any length (the
 * output does not depend on the split), then rijn_gcm_finish (make the tag)
 * or rijn_gcm_verify (check one). A call out of this order, past a limit,
 * or after a failure returns -1 and the context stays failed (finish and
 * verify fail too). The key must outlive the context.
 */
typedef struct rijn_gcm_ctx {
    const rijn_gcm_key *key;
    unsigned char y[16];     /* GHASH accumulator */
    unsigned char ctr[16];   /* counter block of the next keystream block */
    unsigned char j0[16];    /* J0 (E_K(J0), the tag's mask, is made at
                                the end) */
    unsigned char ks[16];    /* keystream of the current partial block */
    unsigned char buf[128];  /* AAD and ciphertext not yet hashed: whole
                                blocks, the last one perhaps partial */
    uint64_t aad_len, len;   /* bytes so far */
    unsigned char tag[16];   /* the tag, when made ahead (src/modes/gcm.c) */
    unsigned used;           /* bytes in buf */
    unsigned ks_used;        /* bytes of ks consumed (16: none left) */
    int state;               /* internal */
    unsigned flags;          /* internal */
} rijn_gcm_ctx;

RIJN_API int rijn_gcm_start(rijn_gcm_ctx *c, const rijn_gcm_key *k,
                            const unsigned char *iv, size_t iv_len);
RIJN_API int rijn_gcm_aad(rijn_gcm_ctx *c, const unsigned char *aad,
                          size_t len);
RIJN_API int rijn_gcm_encrypt_update(rijn_gcm_ctx *c, unsigned char *out,
                                     const unsigned char *in, size_t len);
/* Releases plaintext before the tag is checked: see Decryption above.
 * Each byte of in is read once, and the GHASH of the message is over the
 * bytes that were decrypted, so a verify that returns 0 says the released
 * pieces are the decryption of an authenticated ciphertext. */
RIJN_API int rijn_gcm_decrypt_update(rijn_gcm_ctx *c, unsigned char *out,
                                     const unsigned char *in, size_t len);
/* Writes the tag (12..16 bytes) and wipes the context. */
RIJN_API int rijn_gcm_finish(rijn_gcm_ctx *c, unsigned char *tag,
                             size_t tag_len);
/* 0 if tag[0..tag_len) is the message's tag (constant-time compare), -1
 * otherwise; wipes the context. */
RIJN_API int rijn_gcm_verify(rijn_gcm_ctx *c, const unsigned char *tag,
                             size_t tag_len);
RIJN_API void rijn_gcm_wipe(rijn_gcm_ctx *c);

/* ---- GHASH engines ------------------------------------------------------ */

/* Number of GHASH engines compiled in; describe engine i (-1 if out of
 * range); the engine a key set up now would use for the default AES
 * backend (NULL if RIJN_GHASH_IMPL names one that cannot be used). */
RIJN_API size_t rijn_gcm_impl_count(void);
RIJN_API int rijn_gcm_impl_get(size_t i, rijn_impl_info *info);
RIJN_API const char *rijn_gcm_impl_default(void);

#ifdef __cplusplus
}
#endif

#endif /* RIJN_GCM_H */
