/*
 * CTR mode (NIST SP 800-38A) over any backend.
 *
 * The counter block is one 128-bit big-endian integer. Backend kernels
 * (impl->ctr32) only step its low 32 bits; this file splits every run at
 * the points where those 32 bits wrap and carries into the upper 96 bits
 * itself, and it turns partial first and last blocks into whole-block
 * kernel calls. Short messages and the last partial block go through a
 * small stack buffer so that a packet costs one kernel call.
 */
#include "internal.h"

/* Blocks handled through the stack buffer at the end of a run. */
#define TAIL_BLOCKS 8

/* ctr += n (128-bit big-endian). */
static void ctr_add(uint8_t ctr[16], uint64_t n)
{
    uint64_t lo = rijn_load64_be(ctr + 8), hi = rijn_load64_be(ctr);
    uint64_t sum = lo + n;
    hi += sum < lo;
    rijn_store64_be(ctr, hi);
    rijn_store64_be(ctr + 8, sum);
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

/*
 * len bytes from counter ctr; ctr is advanced past every block touched.
 * When len % 16 != 0 the keystream of the last (partial) block is left in
 * ks. Returns len % 16.
 */
static size_t ctr_run(const rijn_aes_key *k, uint8_t ctr[16], uint8_t *out,
                      const uint8_t *in, size_t len, uint8_t ks[16])
{
    size_t nb = len / 16, tail = len % 16;

    if (tail == 0) {
        ctr_blocks(k, out, in, nb, ctr);
        return 0;
    }
    /* Direct blocks first, then at most TAIL_BLOCKS through the buffer. */
    size_t head = nb >= TAIL_BLOCKS ? nb - (TAIL_BLOCKS - 1) : 0;
    ctr_blocks(k, out, in, head, ctr);
    out += 16 * head;
    in += 16 * head;

    RIJN_ALIGN(64) uint8_t buf[16 * TAIL_BLOCKS];
    size_t rest = len - 16 * head, nrest = (rest + 15) / 16;
    memcpy(buf, in, rest);
    memset(buf + rest, 0, 16 * nrest - rest);
    ctr_blocks(k, buf, buf, nrest, ctr);

    uint8_t *last = buf + 16 * (nrest - 1);
    rijn_xor_bytes(ks, last, in + 16 * (nrest - 1), tail);
    memcpy(ks + tail, last + tail, 16 - tail);
    memcpy(out, buf, rest);
    rijn_burn(buf, 16 * nrest);
    return tail;
}

/* see rijn.h */
void rijn_aes_ctr_key(const rijn_aes_key *k, unsigned char *out,
                      const unsigned char *in, size_t len,
                      const unsigned char iv[16])
{
    uint8_t ctr[16], ks[16];
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
    rijn_aes_key_wipe(&k);
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
    memcpy(c->iv, iv, 16);
    memcpy(c->ctr, iv, 16);
    c->ks_used = 16;
    c->offset = 0;
}

/* see rijn.h */
void rijn_aes_ctr_seek(rijn_aes_ctr_ctx *c, uint64_t offset)
{
    static const uint8_t zero[16];
    memcpy(c->ctr, c->iv, 16);
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
