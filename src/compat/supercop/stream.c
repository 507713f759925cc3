/*
 * crypto_stream / crypto_stream_xor (SUPERCOP API) for AES-CTR with
 * rijn's 128-bit big-endian counter (rijn_aes_ctr_*; same output as
 * OpenSSL AES-CTR). The key size comes from crypto_stream_KEYBYTES.
 *
 * Used twice: inside SUPERCOP, copied into
 * crypto_stream/aes{128,192,256}ctr/rijn/ next to api.h, where SUPERCOP's
 * generated crypto_stream.h maps the names; and in librijn_supercop, where
 * stream_aes*ctr.c define RIJN_SUPERCOP_NAMES and the names, then include
 * this file.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef RIJN_SUPERCOP_NAMES
#include "crypto_stream.h"
#endif
#include "rijn.h"

/* Bytes per rijn call: unsigned long long lengths may exceed size_t. */
#define RIJN_SUPERCOP_CHUNK ((size_t)1 << 28)

int crypto_stream_xor(unsigned char *c, const unsigned char *m,
                      unsigned long long mlen, const unsigned char *n,
                      const unsigned char *k)
{
    rijn_aes_ctr_ctx ctx;

    if (rijn_aes_ctr_init(&ctx, k, crypto_stream_KEYBYTES, n) != 0)
        return -1;
    while (mlen > 0) {
        size_t len = mlen < RIJN_SUPERCOP_CHUNK ? (size_t)mlen
                                                : RIJN_SUPERCOP_CHUNK;
        rijn_aes_ctr_xor(&ctx, c, m, len);
        c += len;
        m += len;
        mlen -= len;
    }
    rijn_aes_ctr_wipe(&ctx);
    return 0;
}

int crypto_stream(unsigned char *c, unsigned long long clen,
                  const unsigned char *n, const unsigned char *k)
{
    rijn_aes_ctr_ctx ctx;

    if (rijn_aes_ctr_init(&ctx, k, crypto_stream_KEYBYTES, n) != 0)
        return -1;
    while (clen > 0) {
        size_t len = clen < RIJN_SUPERCOP_CHUNK ? (size_t)clen
                                                : RIJN_SUPERCOP_CHUNK;
        memset(c, 0, len);
        rijn_aes_ctr_xor(&ctx, c, c, len);
        c += len;
        clen -= len;
    }
    rijn_aes_ctr_wipe(&ctx);
    return 0;
}
