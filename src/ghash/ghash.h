/*
 * GHASH engine contract (SP 800-38D 6.4), and the byte-level helpers the
 * engines share.
 *
 * An engine is one const struct in one file under src/ghash/ and one
 * rijn_impl(GHASH ...) line in CMakeLists.txt. The GHASH state y is the
 * 16-byte block of the standard (Y_i, bit 0 = the top bit of byte 0); each
 * engine converts it to and from its own form inside the call. hk is
 * rijn_gcm_key.h (RIJN_GHASH_KEY_WORDS words, 64-byte aligned) in the
 * engine's layout.
 *
 *   key_bytes  bytes of hk that init writes (the key wipe clears the whole
 *              key object, whatever an earlier setup wrote).
 *   init       hk := the engine's form of H (and its powers).
 *   blocks     y := (...((y ^ X_1) H ^ X_2) H ...) H over nblocks 16-byte
 *              blocks X_i of in; nblocks may be 0.
 * An engine may also fuse AES-CTR with GHASH for one AES backend (whose
 * key layout it reads): fused_aes names that backend, and
 *   enc        out[i] = in[i] ^ E(ctr + i), y absorbs out[0..nblocks);
 *   dec        out[i] = in[i] ^ E(ctr + i), y absorbs in[0..nblocks);
 *              where only the low 32 bits of ctr step, mod 2^32 (inc32),
 *              as in the ctr32 kernels; out may equal in exactly.
 *              dec reads each byte of in once (rijn_gcm.h, Decryption:
 *              in may change under it): each block is loaded once, with
 *              RIJN_READ_ONCE_VEC (internal.h) after the load, and that
 *              value is both absorbed and XORed with the keystream; the
 *              compiler may keep it in a register or spill it, never
 *              load it again. A kernel that cannot keep its loads (a
 *              run-time count of tail blocks, say) copies the blocks to
 *              its stack first and works on the copy.
 *              enc absorbs the ciphertext as it made it (rijn_gcm.h,
 *              Encryption: out may change under it), from registers or
 *              a private copy (its stack), never reading out back: a
 *              writer of out would choose what the tag covers.
 * Without them the mode code runs the backend's ctr32 and blocks in turn,
 * a few KiB at a time, on a private copy both ways (gcm.c, enc_slice and
 * dec_slice).
 *   oneshot    (optional, with enc/dec) a whole one-shot message of len <=
 *              RIJN_GCM_SHORT_DATA bytes and aad_len <= RIJN_GCM_SHORT_AAD,
 *              any lengths, from J0 (j0): out[i] = in[i] ^ keystream from
 *              inc32(J0), tag = the full 16-byte tag; when decrypting, in
 *              is read once and what is hashed is what was decrypted;
 *              when encrypting, what is hashed is what was made; tag
 *              is written once, with the finished tag, after the data
 *              (gcm.c passes the caller's buffer: nothing else, E(J0)
 *              say, may pass through it; and j0 may be at tag, read
 *              before the tag is written). Used
 *              by the mode for every such message instead of its short
 *              path, and by the streaming calls for the first data piece
 *              when it and the AAD are that short (src/modes/gcm.c).
 *   last       (optional, with enc/dec) the data of a whole one-shot
 *              message of any length len, y having absorbed the AAD
 *              (aad NULL), or the AAD itself: with aad not NULL (aad_len
 *              <= RIJN_GCM_SHORT_AAD), y is zero and the kernel absorbs
 *              the aad_len bytes at aad, zero-padded, first (in-kernel,
 *              its products need not wait for anything);
 *              out[0..len) = in ^ keystream from ctr (inc32(J0)), a
 *              partial last block included; then y absorbs the
 *              ciphertext (zero-padded) and the lengths block of aad_len
 *              and len bytes, and tag = y ^ E(j0), the full 16-byte tag.
 *              dec's read-once rule and enc's as-made rule hold. Used by
 *              the mode for one-shot messages the oneshot entry does not
 *              take: the message end (partial block, E(J0), lengths) in
 *              the last batch instead of three calls after it; and by
 *              the streaming calls for a first data piece the oneshot
 *              entry does not take (the mode needs only the tag from it:
 *              src/modes/gcm.c).
 */
#ifndef RIJN_GHASH_H
#define RIJN_GHASH_H

#include "internal.h"

typedef struct rijn_ghash_engine {
    rijn_impl base;
    uint16_t key_bytes;
    void (*init)(uint64_t *hk, const uint8_t h[16]);
    void (*blocks)(const uint64_t *hk, uint8_t y[16], const uint8_t *in,
                   size_t nblocks);
    const char *fused_aes;
    void (*enc)(const rijn_aes_key *k, const uint64_t *hk, uint8_t y[16],
                const uint8_t ctr[16], uint8_t *out, const uint8_t *in,
                size_t nblocks);
    void (*dec)(const rijn_aes_key *k, const uint64_t *hk, uint8_t y[16],
                const uint8_t ctr[16], uint8_t *out, const uint8_t *in,
                size_t nblocks);
    void (*oneshot)(const rijn_aes_key *k, const uint64_t *hk,
                    const uint8_t j0[16], uint8_t *out, const uint8_t *in,
                    size_t len, const uint8_t *aad, size_t aad_len,
                    int decrypt, uint8_t tag[16]);
    void (*last)(const rijn_aes_key *k, const uint64_t *hk, uint8_t y[16],
                 const uint8_t ctr[16], const uint8_t j0[16], uint8_t *out,
                 const uint8_t *in, size_t len, const uint8_t *aad,
                 uint64_t aad_len, int decrypt, uint8_t tag[16]);
} rijn_ghash_engine;

/* Short one-shot messages (gcm.c's short path, engines' oneshot): at most
 * this many bytes of data and of AAD. */
#define RIJN_GCM_SHORT_DATA (7 * 16)
#define RIJN_GCM_SHORT_AAD (4 * 16)

/* By name; NULL if not compiled in (src/modes/gcm.c). */
const rijn_ghash_engine *rijn_ghash_find(const char *name);
/* The engine a key set up now with AES backend aes_name would use. */
const rijn_ghash_engine *rijn_ghash_for(const char *aes_name);

/* In each engine file: its layout fits in rijn_gcm_key.h. */
#define RIJN_GHASH_KEY_FITS(bytes, what) \
    _Static_assert((bytes) <= sizeof(((rijn_gcm_key *)0)->h), \
                   what " does not fit in rijn_gcm_key.h")

#endif /* RIJN_GHASH_H */
