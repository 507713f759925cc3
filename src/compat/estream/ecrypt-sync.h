/*
 * ecrypt-sync.h: rijn's AES-CTR as an eSTREAM (ECRYPT) synchronous stream
 * cipher submission, for the eSTREAM testing and benchmarking framework.
 *
 * Counter convention of eSTREAM's AES-CTR submissions (NOT SP 800-38A):
 * the 16-byte IV is the first counter block; bytes 0..3 are read as a
 * little-endian 32-bit integer that is incremented once per 16-byte block
 * modulo 2^32, and bytes 4..15 never change (no carry). Output matches
 * eSTREAM's AES-CTR test vectors (sets 1-4) for 128-bit keys; 192- and
 * 256-bit keys use the same counter.
 *
 * Keys: 128, 192 or 256 bits. IV: 128 bits (ECRYPT_IVSIZE(0)); a shorter
 * ivsize given to ECRYPT_keysetup (a multiple of 8) is accepted and the
 * missing IV bytes are taken as zero.
 *
 * Streaming: ECRYPT_process_bytes may be called any number of times with
 * any lengths; the output does not depend on how a message is split.
 *
 * Backend: the key is expanded with rijn_aes_setkey, so RIJN_IMPL=name
 * selects the AES backend as everywhere in rijn. ECRYPT_keysetup cannot
 * report failure (the eSTREAM API returns void): if the key size is not
 * 128/192/256 or the backend named by RIJN_IMPL is unavailable, the
 * context is marked invalid, rijn_ecrypt_ctx_ok() returns 0, and any later
 * attempt to process data with it aborts the program rather than produce
 * output that is not encrypted.
 *
 * See src/compat/README.md for dropping this into the eSTREAM framework.
 */
#ifndef ECRYPT_SYNC
#define ECRYPT_SYNC

#include "ecrypt-portable.h"
#include "rijn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Cipher parameters
 * --------------------------------------------------------------------- */

#define ECRYPT_NAME "AES-CTR (rijn)"
#define ECRYPT_PROFILE "S3___"

/* Supported key sizes in bits: ECRYPT_KEYSIZE(i) for i = 0, 1, 2 while
 * ECRYPT_KEYSIZE(i) <= ECRYPT_MAXKEYSIZE, i.e. 128, 192, 256. */
#define ECRYPT_MAXKEYSIZE 256
#define ECRYPT_KEYSIZE(i) (128 + (i) * 64)

/* Supported IV sizes in bits: 128 only. */
#define ECRYPT_MAXIVSIZE 128
#define ECRYPT_IVSIZE(i) (128 + (i) * 128)

/* ------------------------------------------------------------------------
 * Context
 * --------------------------------------------------------------------- */

typedef struct {
    rijn_aes_key key;   /* expanded key; carries the backend */
    u8 ctr[16];         /* counter block of the next whole keystream block */
    u8 ks[16];          /* keystream of the current partial block */
    u32 ks_used;        /* bytes of ks already used; 16 when none left */
    u32 ivbytes;        /* IV length given to ECRYPT_keysetup, in bytes */
    u32 ok;             /* 1 after a successful ECRYPT_keysetup */
} ECRYPT_ctx;

/* ------------------------------------------------------------------------
 * Mandatory functions
 * --------------------------------------------------------------------- */

/* Called once before anything else; nothing to do for rijn. */
void ECRYPT_init(void);

/* keysize and ivsize in bits. */
void ECRYPT_keysetup(ECRYPT_ctx *ctx, const u8 *key, u32 keysize,
                     u32 ivsize);

/* Sets the IV (ivsize bits as given to ECRYPT_keysetup) and restarts the
 * stream. */
void ECRYPT_ivsetup(ECRYPT_ctx *ctx, const u8 *iv);

/* output = input XOR keystream; action is ignored (0 = encrypt,
 * 1 = decrypt are the same operation). Any alignment; output may equal
 * input exactly. */
void ECRYPT_process_bytes(int action, ECRYPT_ctx *ctx, const u8 *input,
                          u8 *output, u32 msglen);

#define ECRYPT_encrypt_bytes(ctx, plaintext, ciphertext, msglen) \
    ECRYPT_process_bytes(0, ctx, plaintext, ciphertext, msglen)

#define ECRYPT_decrypt_bytes(ctx, ciphertext, plaintext, msglen) \
    ECRYPT_process_bytes(1, ctx, ciphertext, plaintext, msglen)

/* ------------------------------------------------------------------------
 * Optional features
 * --------------------------------------------------------------------- */

/* CTR mode produces a keystream independently of the message. */
#define ECRYPT_GENERATES_KEYSTREAM
#ifdef ECRYPT_GENERATES_KEYSTREAM

void ECRYPT_keystream_bytes(ECRYPT_ctx *ctx, u8 *keystream, u32 length);

#endif

/* All-in-one packet functions: ECRYPT_ivsetup followed by
 * ECRYPT_process_bytes. rijn provides its own (the framework's defaults
 * are not used), so ECRYPT_USES_DEFAULT_ALL_IN_ONE is not defined. */
void ECRYPT_process_packet(int action, ECRYPT_ctx *ctx, const u8 *iv,
                           const u8 *input, u8 *output, u32 msglen);

#define ECRYPT_encrypt_packet(ctx, iv, plaintext, ciphertext, msglen) \
    ECRYPT_process_packet(0, ctx, iv, plaintext, ciphertext, msglen)

#define ECRYPT_decrypt_packet(ctx, iv, ciphertext, plaintext, msglen) \
    ECRYPT_process_packet(1, ctx, iv, ciphertext, plaintext, msglen)

/* Block functions: lengths in blocks of ECRYPT_BLOCKLENGTH bytes. rijn
 * provides ECRYPT_process_blocks, so ECRYPT_USES_DEFAULT_BLOCK_MACROS is
 * not defined. */
#define ECRYPT_BLOCKLENGTH 16

void ECRYPT_process_blocks(int action, ECRYPT_ctx *ctx, const u8 *input,
                           u8 *output, u32 blocks);

#define ECRYPT_encrypt_blocks(ctx, plaintext, ciphertext, blocks) \
    ECRYPT_process_blocks(0, ctx, plaintext, ciphertext, blocks)

#define ECRYPT_decrypt_blocks(ctx, ciphertext, plaintext, blocks) \
    ECRYPT_process_blocks(1, ctx, ciphertext, plaintext, blocks)

#ifdef ECRYPT_GENERATES_KEYSTREAM

void ECRYPT_keystream_blocks(ECRYPT_ctx *ctx, u8 *keystream, u32 blocks);

#endif

/* One variant only. */
#define ECRYPT_MAXVARIANT 1

#ifndef ECRYPT_VARIANT
#define ECRYPT_VARIANT 1
#endif

#if (ECRYPT_VARIANT > ECRYPT_MAXVARIANT)
#error this variant does not exist
#endif

/* ------------------------------------------------------------------------
 * rijn additions (not part of the eSTREAM API)
 * --------------------------------------------------------------------- */

/* 1 if the last ECRYPT_keysetup on ctx succeeded, else 0. */
int rijn_ecrypt_ctx_ok(const ECRYPT_ctx *ctx);

/* Clears ctx (key included). */
void rijn_ecrypt_ctx_wipe(ECRYPT_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* ECRYPT_SYNC */
