/*
 * CTR mode (NIST SP 800-38A) over any backend.
 *
 * The counter block is one 128-bit big-endian integer. Backend kernels
 * (impl->ctr32) only step its low 32 bits; this file splits every run at
 * the points where those 32 bits wrap and carries into the upper 96 bits
 * itself, and it turns partial first and last blocks into whole-block
 * kernel calls (see ctr_run); the unused keystream of a partial last block
 * is kept in the context for the next streaming call.
 */
#include "inject.h"
#include "internal.h"

/* ctr += n (128-bit big-endian). */
static void ctr_add(uint8_t ctr[16], uint64_t n)
{
    uint64_t lo = rijn_load64_be(ctr + 8), hi = rijn_load64_be(ctr);
    uint64_t sum = lo + n;
    /* (injected bug 5, src/inject.h: the carry stops at byte 8) */
    hi += (sum < lo) & !RIJN_INJECTED(5);
    rijn_store64_be(ctr, hi);
    rijn_store64_be(ctr + 8, sum);
}

/* ctr -= n (128-bit big-endian). */
static void ctr_sub(uint8_t ctr[16], uint64_t n)
{
    uint64_t lo = rijn_load64_be(ctr + 8), hi = rijn_load64_be(ctr);
    hi -= lo < n;
    rijn_store64_be(ctr, hi);
    rijn_store64_be(ctr + 8, lo - n);
}

/* Whole blocks from counter ctr, which is advanced past them. */
static void ctr_blocks(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                       size_t nblocks, uint8_t ctr[16])
{
    while (nblocks > 0) {
        /* Blocks left before the low 32 bits wrap: 1 .. 2^32. */
        uint64_t room = ((uint64_t)1 << 32) - rijn_load32_be(ctr + 12);
        size_t n = (uint64_t)nblocks < room ? nblocks : (size_t)room;
        k->impl->ctr32(k, out, in, n, ctr);
        ctr_add(ctr, n);
        out += 16 * n;
        in += 16 * n;
        nblocks -= n;
    }
}

/* A message of fewer whole blocks than this with a partial last block
 * goes through a stack buffer as one kernel call. */
#define SHORT_BLOCKS 8

/*
 * len bytes from counter ctr; ctr is advanced past every block touched.
 * When len % 16 != 0, bytes len % 16 .. 15 of ks receive the unused
 * keystream of the last block (for the next streaming call). Returns
 * len % 16.
 *
 * Short messages: one kernel call makes the keystream of every block from
 * a constant zero buffer, then one XOR pass. (Cheaper than a second kernel
 * call, whose counter load would wait on the counter stores of the first;
 * and the kernel never reads memory just written by narrower stores, which
 * would stall store-to-load forwarding.) Long ones: whole blocks straight
 * from in to out, then one keystream block for the partial tail.
 */
static size_t ctr_run(const rijn_aes_key *k, uint8_t ctr[16], uint8_t *out,
                      const uint8_t *in, size_t len, uint8_t ks[16])
{
    size_t nb = len / 16, tail = len % 16;

    if (tail == 0) {
        ctr_blocks(k, out, in, nb, ctr);
        return 0;
    }
    if (nb < SHORT_BLOCKS) {
        static const uint8_t zero[16 * SHORT_BLOCKS];
        RIJN_ALIGN(64) uint8_t buf[16 * SHORT_BLOCKS];
        ctr_blocks(k, buf, zero, nb + 1, ctr);
        rijn_xor_bytes(out, in, buf, len);
        memcpy(ks, buf + 16 * nb, 16);
        /* The rest of buf is keystream already used, i.e. in XOR out,
         * which the caller holds anyway; wiping the whole buffer cost a
         * quarter of a 40-byte packet (store-forwarding stalls on the
         * next call). The unused keystream of the last block is wiped. */
        rijn_burn(buf + 16 * nb, 16);
        return tail;
    }
    {
        /* From a constant zero block, not a memset one: a 16-byte load of
         * bytes just written by narrower stores cannot be forwarded. */
        static const uint8_t zero[16];
        ctr_blocks(k, out, in, nb, ctr);
        ctr_blocks(k, ks, zero, 1, ctr);
    }
    rijn_xor_bytes(out + 16 * nb, in + 16 * nb, ks, tail);
    return tail;
}

/* see rijn.h */
void rijn_aes_ctr_key(const rijn_aes_key *k, unsigned char *out,
                      const unsigned char *in, size_t len,
                      const unsigned char iv[16])
{
    /* aligned: the AltiVec kernels then store straight into it */
    RIJN_ALIGN(16) uint8_t ctr[16], ks[16];
    memcpy(ctr, iv, 16);
    if (ctr_run(k, ctr, out, in, len, ks) != 0)
        rijn_burn(ks, sizeof ks);
}

/* see rijn.h */
int rijn_aes_ctr(unsigned char *out, const unsigned char *in, size_t len,
                 const unsigned char *key, size_t key_len,
                 const unsigned char iv[16])
{
    rijn_aes_key k;
    if (rijn_aes_setkey(&k, key, key_len) != 0)
        return -1;
    rijn_aes_ctr_key(&k, out, in, len, iv);
    rijn_aes_key_clear(&k);
    return 0;
}

/* see rijn.h */
int rijn_aes_ctr_init_impl(rijn_aes_ctr_ctx *c, const unsigned char *key,
                           size_t key_len, const unsigned char iv[16],
                           const char *impl)
{
    if (rijn_aes_setkey_impl(&c->key, key, key_len, impl) != 0)
        return -1;
    rijn_aes_ctr_setiv(c, iv);
    return 0;
}

/* see rijn.h */
int rijn_aes_ctr_init(rijn_aes_ctr_ctx *c, const unsigned char *key,
                      size_t key_len, const unsigned char iv[16])
{
    return rijn_aes_ctr_init_impl(c, key, key_len, iv, NULL);
}

/* see rijn.h */
void rijn_aes_ctr_setiv(rijn_aes_ctr_ctx *c, const unsigned char iv[16])
{
    memcpy(c->ctr, iv, 16);
    c->ks_used = 16;
    c->offset = 0;
}

/*
 * The IV is not stored: it is derived. ctr is the counter block of the
 * next block to make, so it is IV + offset/16, plus one while a partial
 * block's keystream is pending (ks_used < 16, offset % 16 == ks_used).
 */
/* see rijn.h */
void rijn_aes_ctr_seek(rijn_aes_ctr_ctx *c, uint64_t offset)
{
    static const uint8_t zero[16];
    ctr_sub(c->ctr, c->offset / 16 + (c->ks_used < 16));
    ctr_add(c->ctr, offset / 16);
    c->offset = offset;
    c->ks_used = 16;
    if (offset % 16 != 0) {
        ctr_blocks(&c->key, c->ks, zero, 1, c->ctr);
        c->ks_used = (unsigned)(offset % 16);
    }
}

/* see rijn.h */
void rijn_aes_ctr_xor(rijn_aes_ctr_ctx *c, unsigned char *out,
                      const unsigned char *in, size_t len)
{
    c->offset += len;
    if (c->ks_used < 16) {
        size_t n = 16 - c->ks_used;
        if (n > len)
            n = len;
        rijn_xor_bytes(out, in, c->ks + c->ks_used, n);
        c->ks_used += (unsigned)n;
        out += n;
        in += n;
        len -= n;
    }
    if (len > 0) {
        size_t tail = ctr_run(&c->key, c->ctr, out, in, len, c->ks);
        c->ks_used = tail != 0 ? (unsigned)tail : 16;
    }
}

/* see rijn.h */
void rijn_aes_ctr_wipe(rijn_aes_ctr_ctx *c)
{
    rijn_wipe(c, sizeof *c);
}
