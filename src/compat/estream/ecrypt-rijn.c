/*
 * eSTREAM (ECRYPT) API for rijn's AES-CTR; see ecrypt-sync.h.
 *
 * Built only on rijn's public API: the key is expanded by rijn_aes_setkey
 * (so RIJN_IMPL picks the backend), and keystream comes from
 * rijn_aes_encrypt_blocks on counter blocks built here, RIJN_ECRYPT_BATCH
 * at a time, because eSTREAM's counter (little-endian word in bytes 0..3,
 * no carry) is not the one rijn's CTR kernels step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ecrypt-sync.h"
#include "internal.h" /* byte order and XOR helpers (inline only) */

/* Counter blocks encrypted per rijn_aes_encrypt_blocks call. */
#define RIJN_ECRYPT_BATCH 32

static void check_ctx(const ECRYPT_ctx *ctx)
{
    if (ctx->ok != 1) {
        /* ECRYPT_keysetup failed (bad key size or unavailable RIJN_IMPL
         * backend) and the API has no way to report it: refuse to emit
         * output that is not encrypted. */
        fputs("rijn ecrypt: ECRYPT_keysetup failed; refusing to process "
              "data with an invalid context\n", stderr);
        abort();
    }
}

/*
 * Whole blocks: out = in XOR E(ctr), E(ctr+1), ...; in == NULL writes the
 * keystream itself. Steps only the little-endian word in ctr[0..3].
 */
static void ctr_blocks(ECRYPT_ctx *ctx, unsigned char *out,
                       const unsigned char *in, size_t nblocks)
{
    unsigned char cb[RIJN_ECRYPT_BATCH * 16];
    unsigned char ks[RIJN_ECRYPT_BATCH * 16];
    uint32_t c = rijn_load32_le(ctx->ctr);
    size_t i, fill = 0;

    while (nblocks > 0) {
        size_t n = nblocks < RIJN_ECRYPT_BATCH ? nblocks : RIJN_ECRYPT_BATCH;
        if (fill < n) {
            /* bytes 4..15 are constant: copy them once per block slot */
            for (i = fill; i < n; i++)
                memcpy(cb + 16 * i, ctx->ctr, 16);
            fill = n;
        }
        for (i = 0; i < n; i++)
            rijn_store32_le(cb + 16 * i, c + (uint32_t)i);
        rijn_aes_encrypt_blocks(&ctx->key, ks, cb, n);
        if (in != NULL) {
            rijn_xor_bytes(out, in, ks, 16 * n);
            in += 16 * n;
        } else {
            memcpy(out, ks, 16 * n);
        }
        out += 16 * n;
        c += (uint32_t)n; /* mod 2^32, no carry into bytes 4..15 */
        nblocks -= n;
    }
    rijn_store32_le(ctx->ctr, c);
    rijn_wipe(ks, sizeof ks);
}

/* out = in XOR keystream (in == NULL: out = keystream), any split. */
static void process(ECRYPT_ctx *ctx, unsigned char *out,
                    const unsigned char *in, size_t len)
{
    size_t nblocks, tail;

    check_ctx(ctx);
    /* finish the partial block left by the previous call */
    while (len > 0 && ctx->ks_used < 16) {
        *out++ = (unsigned char)((in ? *in++ : 0) ^ ctx->ks[ctx->ks_used++]);
        len--;
    }
    nblocks = len / 16;
    tail = len % 16;
    if (nblocks > 0) {
        ctr_blocks(ctx, out, in, nblocks);
        out += 16 * nblocks;
        if (in != NULL)
            in += 16 * nblocks;
    }
    if (tail > 0) {
        ctr_blocks(ctx, ctx->ks, NULL, 1);
        if (in != NULL)
            rijn_xor_bytes(out, in, ctx->ks, tail);
        else
            memcpy(out, ctx->ks, tail);
        ctx->ks_used = (u32)tail;
    }
}

/* blocks * 16 bytes may not fit in a 32-bit size_t: go in chunks. */
static void blocks_loop(ECRYPT_ctx *ctx, unsigned char *out,
                        const unsigned char *in, u32 blocks)
{
    const u32 max = 0x0FFFFFFF; /* 16 * max < 2^32 */

    while (blocks > 0) {
        u32 n = blocks < max ? blocks : max;
        process(ctx, out, in, (size_t)n * ECRYPT_BLOCKLENGTH);
        out += (size_t)n * ECRYPT_BLOCKLENGTH;
        if (in != NULL)
            in += (size_t)n * ECRYPT_BLOCKLENGTH;
        blocks -= n;
    }
}

void ECRYPT_init(void)
{
}

void ECRYPT_keysetup(ECRYPT_ctx *ctx, const u8 *key, u32 keysize, u32 ivsize)
{
    memset(ctx->ctr, 0, sizeof ctx->ctr);
    memset(ctx->ks, 0, sizeof ctx->ks);
    ctx->ks_used = 16;
    ctx->ok = 0;
    ctx->ivbytes = 16;
    if (keysize != 128 && keysize != 192 && keysize != 256)
        return;
    if (ivsize > 128 || ivsize % 8 != 0)
        return;
    if (rijn_aes_setkey(&ctx->key, key, keysize / 8) != 0)
        return;
    ctx->ivbytes = ivsize / 8;
    ctx->ok = 1;
}

void ECRYPT_ivsetup(ECRYPT_ctx *ctx, const u8 *iv)
{
    memset(ctx->ctr, 0, sizeof ctx->ctr);
    if (ctx->ivbytes > 0 && ctx->ivbytes <= 16)
        memcpy(ctx->ctr, iv, ctx->ivbytes);
    ctx->ks_used = 16;
}

void ECRYPT_process_bytes(int action, ECRYPT_ctx *ctx, const u8 *input,
                          u8 *output, u32 msglen)
{
    (void)action;
    process(ctx, output, input, msglen);
}

void ECRYPT_keystream_bytes(ECRYPT_ctx *ctx, u8 *keystream, u32 length)
{
    process(ctx, keystream, NULL, length);
}

void ECRYPT_process_packet(int action, ECRYPT_ctx *ctx, const u8 *iv,
                           const u8 *input, u8 *output, u32 msglen)
{
    (void)action;
    ECRYPT_ivsetup(ctx, iv);
    process(ctx, output, input, msglen);
}

void ECRYPT_process_blocks(int action, ECRYPT_ctx *ctx, const u8 *input,
                           u8 *output, u32 blocks)
{
    (void)action;
    blocks_loop(ctx, output, input, blocks);
}

void ECRYPT_keystream_blocks(ECRYPT_ctx *ctx, u8 *keystream, u32 blocks)
{
    blocks_loop(ctx, keystream, NULL, blocks);
}

int rijn_ecrypt_ctx_ok(const ECRYPT_ctx *ctx)
{
    return ctx->ok == 1;
}

void rijn_ecrypt_ctx_wipe(ECRYPT_ctx *ctx)
{
    rijn_wipe(ctx, sizeof *ctx);
}
