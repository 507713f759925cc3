/*
 * AES-GCM (NIST SP 800-38D) over any AES backend and GHASH engine: key
 * setup and the engine pairing, the IV (J0), AAD, data and tag, one-shot
 * and streaming (see rijn_gcm.h). The GHASH engines register here (listed
 * in CMakeLists.txt like the AES backends).
 *
 * Data path: an engine with a fused AES+GHASH kernel for the key's AES
 * backend gets every whole block in one call; otherwise the backend's
 * ctr32 and the engine's blocks run in turn over GCM_CHUNK bytes, so that
 * the second pass reads what the first just wrote while it is in L1.
 * Partial blocks (the end of a message, or of a streaming piece) go
 * through the keystream and GHASH buffers of the context, where the
 * streaming calls also defer GHASH (see the streaming section).
 *
 * Decryption reads each ciphertext byte of the caller's once (rijn_gcm.h,
 * Decryption): the block GHASH absorbs is the block XORed with the
 * keystream, however the input changes meanwhile. The fused kernels load
 * each block once (ghash.h, dec); everywhere else here the ciphertext is
 * first copied to private memory (copy_once) and hashed and decrypted
 * from the copy. Encryption hashes the ciphertext as made (rijn_gcm.h,
 * Encryption), never read back from out: the fused kernels from their
 * registers or stack (ghash.h, enc), everywhere here from private memory
 * (enc_slice, the context's buf, the short paths' buffers), copied to
 * out afterwards.
 */
#include "ghash/ghash.h"
#include "inject.h"
#include "rijn_registry.h"

#define DECLARE(n) extern const rijn_ghash_engine rijn_ghash_##n;
#define ENTRY(n) &rijn_ghash_##n.base,
RIJN_GHASH_LIST(DECLARE)
static const rijn_impl *const ghash_list[] = {RIJN_GHASH_LIST(ENTRY)};

static rijn_registry ghash_registry = {
    .env = "RIJN_GHASH_IMPL",
    .list = ghash_list,
    .count = sizeof ghash_list / sizeof ghash_list[0],
};

static const rijn_ghash_engine *as_ghash(const rijn_impl *d)
{
    return (const rijn_ghash_engine *)(const void *)d;
}

/* Bytes per ctr32 / blocks pass when the engine has no fused kernel. */
#define GCM_CHUNK 4096

/* SP 800-38D 5.2.1.1: len(P) <= 2^39 - 256 bits, len(A) <= 2^64 - 1 bits */
#define GCM_MAX_DATA ((((uint64_t)1) << 36) - 32)
#define GCM_MAX_AAD ((((uint64_t)1) << 61) - 1)

enum { ST_NONE = 0, ST_AAD, ST_ENC, ST_DEC, ST_FAILED };

/* Whether e has a fused AES+GHASH kernel for AES backend aes: decided
 * once at key setup (rijn_gcm_key.fused), not per message. */
static int fuses(const rijn_ghash_engine *e, const rijn_aes_impl *aes)
{
    return e->fused_aes != NULL && e->enc != NULL &&
           strcmp(e->fused_aes, aes->base.name) == 0;
}

/*
 * The engine for an AES backend: RIJN_GHASH_IMPL if the environment names
 * one (NULL if that one cannot be used), otherwise the engine with a fused
 * kernel for this backend, otherwise the best engine this CPU runs.
 */
static _Thread_local const rijn_aes_impl *last_aes;
static _Thread_local const rijn_ghash_engine *last_pick;

static const rijn_ghash_engine *pick_engine(const rijn_aes_impl *aes,
                                            const char *name)
{
    const rijn_impl *d;
    const rijn_ghash_engine *best = NULL;

    if (name != NULL) {
        d = rijn_registry_pick(&ghash_registry, name);
        return d != NULL ? as_ghash(d) : NULL;
    }
    d = rijn_registry_default(&ghash_registry);
    if (rijn_registry_forced(&ghash_registry))
        return d != NULL ? as_ghash(d) : NULL;
    /* The choice depends only on aes (the environment and the CPU are read
     * once): the last one is remembered per thread, which saves the name
     * comparisons of fuses() on every key setup. */
    if (aes != NULL && aes == last_aes)
        return last_pick;
    for (size_t i = 0; i < ghash_registry.count; i++) {
        const rijn_ghash_engine *e = as_ghash(ghash_registry.list[i]);
        if (aes != NULL && fuses(e, aes) && rijn_impl_rank(&e->base) > 0 &&
            rijn_impl_runnable(&e->base) &&
            (best == NULL ||
             rijn_impl_rank(&e->base) > rijn_impl_rank(&best->base)))
            best = e;
    }
    if (best == NULL)
        best = d != NULL ? as_ghash(d) : NULL;
    if (aes != NULL) {
        last_aes = aes;
        last_pick = best;
    }
    return best;
}

/* see rijn_gcm.h */
int rijn_gcm_setkey_impl(rijn_gcm_key *k, const unsigned char *key,
                         size_t key_len, const char *aes_impl,
                         const char *ghash_impl)
{
    static const uint8_t zero[16];
    uint8_t h[16];

    k->ghash = NULL;
    k->fused = 0;
    if (rijn_aes_setkey_impl(&k->aes, key, key_len, aes_impl) != 0)
        return -1;
    k->ghash = pick_engine(k->aes.impl, ghash_impl);
    if (k->ghash == NULL) {
        rijn_aes_key_wipe(&k->aes);
        return -1;
    }
    k->fused = fuses(k->ghash, k->aes.impl);
    k->aes.impl->ecb(&k->aes, h, zero, 1); /* H = E_K(0^128) */
    k->ghash->init(k->h, h);
    rijn_burn(h, sizeof h);
    return 0;
}

/* see rijn_gcm.h */
int rijn_gcm_setkey(rijn_gcm_key *k, const unsigned char *key,
                    size_t key_len)
{
    return rijn_gcm_setkey_impl(k, key, key_len, NULL, NULL);
}

/* see rijn_gcm.h */
void rijn_gcm_key_wipe(rijn_gcm_key *k)
{
    /* The whole object, not only what the current backend and engine
     * wrote: one set up again with a smaller layout still holds the rest
     * of the earlier key's round keys and powers of H. A call to memset
     * (rijn_wipe), not rijn_burn's inline one: gcc 12 makes that a REP
     * STOSQ, whose start costs more than libc's vector stores here. */
    rijn_wipe(k, sizeof *k);
}

/* see rijn_gcm.h */
const char *rijn_gcm_key_ghash(const rijn_gcm_key *k)
{
    return k->ghash != NULL ? k->ghash->base.name : NULL;
}

/* ---- the pieces ---------------------------------------------------------- */

/* y absorbs len bytes, the last block zero-padded (AAD, IV, tails). */
static void ghash_padded(const rijn_gcm_key *k, uint8_t y[16],
                         const uint8_t *p, size_t len)
{
    size_t full = len / 16;

    k->ghash->blocks(k->h, y, p, full);
    if (len % 16) {
        uint8_t last[16] = {0};
        memcpy(last, p + 16 * full, len % 16);
        k->ghash->blocks(k->h, y, last, 1);
    }
}

/* ctr += n in the low 32 bits (inc32, mod 2^32). */
static void inc32(uint8_t ctr[16], uint64_t n)
{
    if (RIJN_INJECTED(1)) { /* bug 1: a 128-bit add (src/inject.h) */
        for (int i = 15; i >= 0 && n != 0; i--, n >>= 8) {
            n += ctr[i];
            ctr[i] = (uint8_t)n;
        }
        return;
    }
    /* bytes 8..15 as one 8-byte word: the kernels load the counter block
     * as two 8-byte words (rijn_x86_load_ctr), which a store of 4 bytes
     * in the middle of one could not be forwarded to */
    uint64_t w = rijn_load64_be(ctr + 8);
    rijn_store64_be(ctr + 8, (w & ~(uint64_t)0xffffffff) |
                                 (uint32_t)((uint32_t)w + (uint32_t)n));
}

/* b = the 12 bytes at iv, then the 32-bit big-endian word c; written as
 * two 8-byte words (see inc32). */
static void iv_block(uint8_t b[16], const uint8_t *iv, uint32_t c)
{
    memcpy(b, iv, 8);
    rijn_store64_be(b + 8, (uint64_t)rijn_load32_be(iv + 8) << 32 | c);
}

/* ctr = J0 from the IV (5.2.1.1). */
static inline __attribute__((always_inline)) void j0(const rijn_gcm_key *k, uint8_t ctr[16], const uint8_t *iv,
               size_t iv_len)
{
    if (iv_len == 12) {
        iv_block(ctr, iv, 1);
    } else {
        uint8_t lens[16] = {0};
        memset(ctr, 0, 16);
        ghash_padded(k, ctr, iv, iv_len);
        rijn_store64_be(lens + 8, (uint64_t)iv_len * 8);
        k->ghash->blocks(k->h, ctr, lens, 1);
    }
}

/* iv0 = J0; ctr = inc32(J0). */
static void start(const rijn_gcm_key *k, uint8_t ctr[16], uint8_t iv0[16],
                  const uint8_t *iv, size_t iv_len)
{
    j0(k, iv0, iv, iv_len);
    if (iv_len == 12) {
        iv_block(ctr, iv, 2);
    } else {
        memcpy(ctr, iv0, 16);
        inc32(ctr, 1);
    }
}

/*
 * Ciphertext read once (the decrypt rule of rijn_gcm.h): n bytes of the
 * caller's input into private memory, then a compiler barrier that claims
 * to change memory, so that what follows reads the copy and cannot be
 * turned back into reads of src (which another thread or process may
 * change between two reads). Every decrypt path below either reads the
 * ciphertext through this copy or hands it to a fused kernel (ghash.h:
 * dec loads each block once).
 */
static void copy_once(uint8_t *dst, const uint8_t *src, size_t n)
{
    memcpy(dst, src, n);
#if defined(__GNUC__) || defined(__clang__)
    __asm__ __volatile__("" : : "r"(dst) : "memory");
#endif
}

/*
 * Unfused decryption of n <= GCM_CHUNK / 16 blocks: the slice is copied to
 * the stack first, GHASH and ctr32 both read the copy (out may equal in).
 * Not inlined: the 4 KiB buffer stays out of the callers' frames (the
 * fused and short paths do not need it).
 */
__attribute__((noinline))
static void dec_slice(const rijn_gcm_key *k, uint8_t y[16],
                      const uint8_t ctr[16], uint8_t *out, const uint8_t *in,
                      size_t n)
{
    RIJN_ALIGN(64) uint8_t c[GCM_CHUNK];

    copy_once(c, in, 16 * n);
    k->ghash->blocks(k->h, y, c, n);
    k->aes.impl->ctr32(&k->aes, out, c, n, ctr);
}

/*
 * Unfused encryption of n <= GCM_CHUNK / 16 blocks: the ciphertext is made
 * on the stack, hashed there and then copied to out, never read back from
 * out (another thread or process that writes out meanwhile would choose
 * what the tag covers: with ctr32 writing 4 KiB to out and GHASH reading
 * it back, a writer toggling one byte of out changed the tag of up to 29%
 * of 16 KiB encryptions). Not inlined, like dec_slice.
 */
__attribute__((noinline))
static void enc_slice(const rijn_gcm_key *k, uint8_t y[16],
                      const uint8_t ctr[16], uint8_t *out, const uint8_t *in,
                      size_t n)
{
    RIJN_ALIGN(64) uint8_t c[GCM_CHUNK];

    k->aes.impl->ctr32(&k->aes, c, in, n, ctr);
    k->ghash->blocks(k->h, y, c, n);
    memcpy(out, c, 16 * n);
}

/*
 * Whole blocks: out = in ^ keystream from ctr (stepped past them), y
 * absorbs the ciphertext (as made, not read back from out, when
 * encrypting; the blocks of in that are decrypted when decrypting: each
 * read once).
 */
static void blocks(const rijn_gcm_key *k, uint8_t y[16], uint8_t ctr[16],
                   uint8_t *out, const uint8_t *in, size_t nblocks,
                   int decrypt)
{
    if (k->fused) {
        (decrypt ? k->ghash->dec : k->ghash->enc)(&k->aes, k->h, y, ctr, out,
                                                  in, nblocks);
        inc32(ctr, nblocks);
        return;
    }
    while (nblocks > 0) {
        size_t n = nblocks < GCM_CHUNK / 16 ? nblocks : GCM_CHUNK / 16;
        if (decrypt)
            dec_slice(k, y, ctr, out, in, n);
        else
            enc_slice(k, y, ctr, out, in, n);
        inc32(ctr, n);
        in += 16 * n;
        out += 16 * n;
        nblocks -= n;
    }
}

/* GCM's lengths block at p: the AAD's and the data's lengths in bits. */
static inline void put_lengths(uint8_t p[16], uint64_t aad_len, uint64_t len)
{
    rijn_store64_be(p, aad_len * 8);
    rijn_store64_be(p + 8, len * 8);
}

/*
 * The tag: y absorbs the n - 1 blocks at g (a partial last one zero-
 * padded) and the lengths block, written at g + 16 (n - 1), in one GHASH
 * call; tag = y ^ E(J0). g's n blocks are wiped. Inlined: as a call of its
 * own it made one-shot 256-byte messages 7-14% slower on Zen 3.
 */
static inline __attribute__((always_inline)) void
close_tag(const rijn_gcm_key *k, uint8_t y[16], uint8_t *g, size_t n,
          const uint8_t ek0[16], uint64_t aad_len, uint64_t len,
          uint8_t tag[16])
{
    put_lengths(g + 16 * (n - 1), aad_len, len);
    k->ghash->blocks(k->h, y, g, n);
    rijn_xor_bytes(tag, y, ek0, 16);
    rijn_burn(g, 16 * n);
}

/*
 * The end of a one-shot message with a partial last block (rest bytes at
 * in, ctr its counter): that block's keystream and E(J0) (into ek0) as one
 * AES batch, the block and the lengths block as one GHASH call. Each is a
 * latency chain on a single block: two calls instead of four.
 */
static void finish_partial(const rijn_gcm_key *k, uint8_t y[16],
                           const uint8_t iv0[16], uint8_t ek0[16],
                           const uint8_t ctr[16], uint8_t *out,
                           const uint8_t *in, size_t rest, uint64_t aad_len,
                           uint64_t len, int decrypt, uint8_t tag[16])
{
    RIJN_ALIGN(16) uint8_t blk[32], ks[32], g[32] = {0};

    memcpy(blk, iv0, 16);
    memcpy(blk + 16, ctr, 16);
    k->aes.impl->ecb(&k->aes, ks, blk, 2);
    memcpy(ek0, ks, 16);
    if (decrypt) {
        copy_once(g, in, rest); /* read once: hashed and decrypted */
        rijn_xor_bytes(out, g, ks + 16, rest);
    } else {
        rijn_xor_bytes(g, in, ks + 16, rest); /* hashed as made */
        memcpy(out, g, rest);
    }
    rijn_burn(ks, sizeof ks);
    close_tag(k, y, g, 2, ek0, aad_len, len, tag);
}

/* n <= max for a size_t n (a function, so that 32-bit builds, where the
 * test cannot fail, do not warn about a constant comparison). */
static int within(uint64_t n, uint64_t max)
{
    return n <= max;
}

static int valid_lengths(size_t iv_len, size_t tag_len, size_t aad_len,
                         size_t len)
{
    return iv_len >= 1 && tag_len >= 12 && tag_len <= 16 &&
           within(aad_len, GCM_MAX_AAD) && within(len, GCM_MAX_DATA);
}


/*
 * A short message in two kernel calls instead of four or five: E(J0) and
 * the keystream as one AES batch (J0, J0 + 1, ...: inc32, as the kernels
 * step the low word), then one GHASH call over the padded AAD, the padded
 * ciphertext and the lengths block. Packets of a few dozen bytes are
 * dominated by calls and by AES latency, which one batch overlaps.
 */
__attribute__((noinline)) /* its buffers stay out of oneshot's frame */
static void oneshot_short(const rijn_gcm_key *k, uint8_t *out,
                          uint8_t tag[16], const uint8_t *iv, size_t iv_len,
                          const uint8_t *aad, size_t aad_len,
                          const uint8_t *in, size_t len, int decrypt)
{
    static const uint8_t zero[16 * (1 + RIJN_GCM_SHORT_DATA / 16)];
    RIJN_ALIGN(64) uint8_t ks[16 * (1 + RIJN_GCM_SHORT_DATA / 16)];
    RIJN_ALIGN(64) uint8_t g[RIJN_GCM_SHORT_AAD + RIJN_GCM_SHORT_DATA + 16];
    uint8_t ctr[16], y[16] = {0};
    size_t na = (aad_len + 15) / 16, nd = (len + 15) / 16;

    j0(k, ctr, iv, iv_len);
    k->aes.impl->ctr32(&k->aes, ks, zero, 1 + nd, ctr);
    memset(g, 0, 16 * (na + nd));
    if (aad_len > 0)
        memcpy(g, aad, aad_len);
    if (len > 0) {
        if (decrypt) {
            /* the ciphertext once, into g: hashed and decrypted from there */
            copy_once(g + 16 * na, in, len);
            rijn_xor_bytes(out, g + 16 * na, ks + 16, len);
        } else {
            rijn_xor_bytes(g + 16 * na, in, ks + 16, len); /* as made */
            memcpy(out, g + 16 * na, len);
        }
    }
    put_lengths(g + 16 * (na + nd), aad_len, len);
    k->ghash->blocks(k->h, y, g, na + nd + 1);
    rijn_xor_bytes(tag, y, ks, 16);
    rijn_burn(ks, 16 * (1 + nd));
    rijn_burn(y, sizeof y);
}

/* Whether the engine's one-shot kernel takes this message (ghash.h). */
static inline int kernel_takes(const rijn_gcm_key *k, size_t aad_len, size_t len)
{
    return len <= RIJN_GCM_SHORT_DATA && aad_len <= RIJN_GCM_SHORT_AAD &&
           k->fused && k->ghash->oneshot != NULL;
}

/*
 * A message the one-shot kernel takes, with a 12-byte IV: straight to the
 * kernel from the public calls, as oneshot would call it but without
 * oneshot's frame and, for a full tag, without a copy of it (the kernel
 * writes the tag once, finished: ghash.h). J0 goes in the caller's tag
 * buffer t (the kernel reads it before it writes the tag): with a J0
 * buffer of its own, the caller's frame changed, and 576-byte messages,
 * which do not come here, took 4-8% longer on Zen 3 (stack addresses;
 * not the instructions). 16-byte messages took 0.73-0.84 of the time
 * there, 64-byte 0.78-0.85. Returns 1 if taken.
 */
static inline __attribute__((always_inline)) int
direct(const rijn_gcm_key *k, uint8_t *out, uint8_t tag[16], const uint8_t *iv,
       size_t iv_len, const uint8_t *aad, size_t aad_len, const uint8_t *in,
       size_t len, int decrypt, uint8_t j0buf[16])
{
    if (iv_len != 12 || !kernel_takes(k, aad_len, len))
        return 0;
    iv_block(j0buf, iv, 1);
    k->ghash->oneshot(&k->aes, k->h, j0buf, out, in, len, aad, aad_len,
                      decrypt, tag);
    return 1;
}

/* One shot over a whole message: the full tag of aad and the ciphertext. */
static void oneshot(const rijn_gcm_key *k, uint8_t *out, uint8_t tag[16],
                    const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                    size_t aad_len, const uint8_t *in, size_t len,
                    int decrypt)
{
    uint8_t ctr[16], iv0[16], ek0[16], y[16] = {0};
    size_t full = len / 16, rest = len % 16;
    const int last = k->fused && k->ghash->last != NULL;
    const int own_aad = last && aad_len > 0 &&
                        aad_len <= RIJN_GCM_SHORT_AAD && !RIJN_INJECTED(3);

    if (len <= RIJN_GCM_SHORT_DATA && aad_len <= RIJN_GCM_SHORT_AAD) {
        if (kernel_takes(k, aad_len, len)) {
            j0(k, iv0, iv, iv_len);
            k->ghash->oneshot(&k->aes, k->h, iv0, out, in, len, aad,
                              aad_len, decrypt, tag);
            return;
        }
        oneshot_short(k, out, tag, iv, iv_len, aad, aad_len, in, len,
                      decrypt);
        return;
    }
    start(k, ctr, iv0, iv, iv_len);
    /* E(J0) now, beside the data's AES, unless the engine makes it in its
     * last batch or a partial last block's keystream is to be made at the
     * end anyway (finish_partial) */
    if (!last && rest == 0)
        k->aes.impl->ecb(&k->aes, ek0, iv0, 1);
    /* a short AAD goes to the last kernel, which hashes it itself (not
     * under bug 3, which needs y); otherwise y absorbs it here */
    if (!own_aad) {
        ghash_padded(k, y, aad, aad_len);
        if (RIJN_INJECTED(3) && aad_len > 0 && aad_len % 16 == 0) {
            static const uint8_t zero[16]; /* bug 3 (src/inject.h) */
            k->ghash->blocks(k->h, y, zero, 1);
        }
    }
    if (last) {
        k->ghash->last(&k->aes, k->h, y, ctr, iv0, out, in, len,
                       own_aad ? aad : NULL, aad_len, decrypt, tag);
        rijn_burn(y, sizeof y);
        return;
    }
    blocks(k, y, ctr, out, in, full, decrypt);
    if (rest > 0) {
        finish_partial(k, y, iv0, ek0, ctr, out + 16 * full, in + 16 * full,
                       rest, aad_len, len, decrypt, tag);
    } else {
        RIJN_ALIGN(16) uint8_t g[32];
        close_tag(k, y, g, 1, ek0, aad_len, len, tag);
    }
    rijn_burn(ek0, sizeof ek0);
    rijn_burn(y, sizeof y);
}

/* see rijn_gcm.h */
int rijn_gcm_encrypt(const rijn_gcm_key *k, unsigned char *ct,
                     unsigned char *tag, size_t tag_len,
                     const unsigned char *iv, size_t iv_len,
                     const unsigned char *aad, size_t aad_len,
                     const unsigned char *pt, size_t len)
{
    uint8_t t[16];

    if (k->ghash == NULL || !valid_lengths(iv_len, tag_len, aad_len, len))
        return -1;
    if (tag_len == 16 &&
        direct(k, ct, tag, iv, iv_len, aad, aad_len, pt, len, 0, t))
        return 0;
    /* into t, never the caller's tag: the last kernels keep E(J0), the
     * tag's mask, in their tag argument until the tag overwrites it, and
     * another thread or process may read the caller's buffer (gcm_race,
     * mask_watch) */
    oneshot(k, ct, t, iv, iv_len, aad, aad_len, pt, len, 0);
    if (tag_len == 16) /* inline, not a call through the PLT */
        memcpy(tag, t, 16);
    else
        memcpy(tag, t, tag_len);
    rijn_burn(t, sizeof t);
    return 0;
}

/* see rijn_gcm.h */
int rijn_gcm_decrypt(const rijn_gcm_key *k, unsigned char *pt,
                     const unsigned char *tag, size_t tag_len,
                     const unsigned char *iv, size_t iv_len,
                     const unsigned char *aad, size_t aad_len,
                     const unsigned char *ct, size_t len)
{
    uint8_t t[16];
    int ok;

    if (k->ghash == NULL || !valid_lengths(iv_len, tag_len, aad_len, len)) {
        if (pt != NULL && within(len, GCM_MAX_DATA))
            rijn_burn(pt, len);
        return -1;
    }
    if (!direct(k, pt, t, iv, iv_len, aad, aad_len, ct, len, 1, t))
        oneshot(k, pt, t, iv, iv_len, aad, aad_len, ct, len, 1);
    ok = rijn_ct_equal(t, tag, RIJN_INJECTED(8) ? 12 : tag_len); /* bug 8 */
    RIJN_PUBLIC(&ok, sizeof ok); /* accept or reject is public */
    rijn_burn(t, sizeof t);
    if (!ok) {
        rijn_burn(pt, len);
        return -1;
    }
    return 0;
}

/* see rijn_gcm.h */
int rijn_gcm_seal(const rijn_gcm_key *k, unsigned char *out, size_t tag_len,
                  const unsigned char *iv, size_t iv_len,
                  const unsigned char *aad, size_t aad_len,
                  const unsigned char *in, size_t len)
{
    /* refused before out + len is formed: past any buffer when len is
     * over the limit */
    if (!within(len, GCM_MAX_DATA))
        return -1;
    return rijn_gcm_encrypt(k, out, out + len, tag_len, iv, iv_len, aad,
                            aad_len, in, len);
}

/* see rijn_gcm.h */
int rijn_gcm_open(const rijn_gcm_key *k, unsigned char *out, size_t tag_len,
                  const unsigned char *iv, size_t iv_len,
                  const unsigned char *aad, size_t aad_len,
                  const unsigned char *in, size_t in_len)
{
    uint8_t tag[16];
    int r;

    /* the length before the tag is read: in + in_len is past the buffer
     * when in_len is over the limit; then (and when in_len < tag_len) no
     * length of out is known, and nothing is written */
    if (in_len < tag_len || !within(in_len - tag_len, GCM_MAX_DATA))
        return -1;
    if (tag_len < 12 || tag_len > 16) {
        /* refused like a tag that fails: out[0..in_len - tag_len), what
         * the caller's buffer holds for this tag_len, all zero */
        if (out != NULL)
            rijn_burn(out, in_len - tag_len);
        return -1;
    }
    /* the tag first: out may overlap it when out == in */
    memcpy(tag, in + in_len - tag_len, tag_len);
    r = rijn_gcm_decrypt(k, out, tag, tag_len, iv, iv_len, aad, aad_len, in,
                         in_len - tag_len);
    rijn_burn(tag, sizeof tag);
    return r;
}

/* ---- streaming ------------------------------------------------------------ */

/*
 * The context defers GHASH: buf holds the AAD and ciphertext not yet
 * hashed (the AAD zero-padded to a block once the data starts); y
 * absorbs it when buf fills, before a fused kernel call, and at the end
 * with the lengths block (one GHASH call for a partial last block, the
 * lengths and what AAD or data is left). This and the next paragraph made
 * a 16-byte message through these calls 1.8x faster on Zen 4.
 *
 * A message whose first data piece is short and whose AAD is short (the
 * one-shot kernel's limits, and both fit buf) is taken as a whole
 * message until another piece comes: the one-shot kernel makes its
 * output and tag in one call (the tag is kept, F_TAG), while buf keeps
 * the AAD and that piece's ciphertext. A finish then costs nothing more;
 * a further piece drops the tag and goes on from buf (the keystream of
 * a partial block is made then, F_KS). A TLS 1.3 record sent through
 * these calls, or one of OpenSSL's EVP through the provider, is such a
 * message.
 *
 * A longer first piece (any AAD) is taken as a whole message too, by the
 * engine's last kernel (F_TAG, F_LAST), which ends it in its last batch
 * as the one-shot calls do; buf cannot keep that piece. If another piece
 * comes, the GHASH state is recovered from the tag (reopen), with no
 * inverse of H. With Y the state after the piece (a partial last block
 * P zero-padded) and L its lengths block, the tag is (Y ^ L) H ^ E(J0),
 * so y = tag ^ E(J0) = Y H ^ L H: the state a block ahead, and L H too
 * much. The next d blocks settle it (F_DEBT, gcm.c's settle):
 *   - no partial block (d = 1): the state after the next block B is
 *     (Y ^ B) H = y ^ (B ^ L) H;
 *   - a partial block (d = 2): the next bytes X complete it, P|X, then
 *     a block B; the state after B is (Y ^ (0|X) H ^ B) H
 *     = y ^ (0|X) H^2 ^ (B ^ L) H,
 * that is, y ^ GHASH from zero of the d blocks with L XORed into the
 * last (at the end, the lengths block may be that last block). buf holds
 * the bytes of P as zeros (the kernel hashed them; they are never read
 * again: another thread may have changed them since), and until the
 * debt is settled, the data goes through buf (pay_in), never to a kernel
 * that would start from y. reopen makes the keystream of those d blocks
 * and E(J0) (kept for the tag, F_EK0) before the next piece's bytes. A 1420-byte message
 * through these calls took 1.34x the one-shot time on Zen 4 before (five
 * kernel calls, each ending in a dependency chain); now 1.1x.
 *
 * Going on costs what the tag ahead saved and more, 10-50 ns on Zen 4
 * (E(J0) and the lengths block made twice, one more GHASH call, each a
 * dependency chain, and the debt paid through buf): 256 bytes as two
 * 128-byte pieces took 1.38x the time of the plain streaming way, 1436
 * as 1420 + 16 1.11x, 4096 as two halves 1.13x. So only pieces up to
 * TAG_AHEAD_MAX go this way: up to there a lone piece gains (0.55x at
 * 113 bytes, 0.80x at 1420, 0.96x at 2048), past it the gain is 0-3%
 * and a long first piece of a file read in chunks is the common case.
 */
#define TAG_AHEAD_MAX 2048

/* AAD of the one-shot kernel's length stays in buf (update relies on it) */
_Static_assert(RIJN_GCM_SHORT_AAD < sizeof ((rijn_gcm_ctx *)0)->buf,
               "short AAD fits the streaming buffer");

enum {
    F_TAG = 1,   /* tag holds the tag of the message so far */
    F_KS = 2,    /* ks is to be made from ctr (a partial block's) */
    F_LAST = 4,  /* with F_TAG: made by the last kernel, buf holds none
                    of the piece */
    F_DEBT1 = 8, /* y is ahead; one block settles it (see the top) */
    F_DEBT2 = 16, /* the same, two blocks */
    F_EK0 = 32   /* tag holds E(J0) */
};
#define F_DEBT (F_DEBT1 | F_DEBT2)

/* While a debt is open: the lengths block L of the first piece, and the
 * keystream of the second block that settles it, in buf past the 48
 * bytes the blocks and the lengths block at the end can take. */
#define BUF_L 112
#define BUF_KS2 96

static int fail(rijn_gcm_ctx *c)
{
    const rijn_gcm_key *k = c->key;
    /* a call, not the REP STOSQ gcc makes of a memset of this size (30
     * cycles on Zen 4) */
    rijn_wipe(c, sizeof *c);
    c->key = k;
    c->state = ST_FAILED;
    return -1;
}

/* y absorbs buf's whole blocks; a partial last one moves to the front. */
static void absorb(rijn_gcm_ctx *c)
{
    const unsigned n = c->used / 16, rest = c->used % 16;

    if (n == 0)
        return;
    c->key->ghash->blocks(c->key->h, c->y, c->buf, n);
    memcpy(c->buf, c->buf + 16 * n, rest); /* rest < 16 <= 16 n: apart */
    c->used = rest;
}

/* The debt settled by buf's first d blocks (see the top): y ^= GHASH
 * from zero of them, L XORed into the last in place (they are not read
 * again; a copy of them cost a store-forwarding stall). */
static void settle(rijn_gcm_ctx *c, unsigned d)
{
    uint8_t *last = c->buf + 16 * (d - 1);
    RIJN_ALIGN(16) uint8_t t[16] = {0};

    rijn_xor_bytes(last, last, c->buf + BUF_L, 16);
    c->key->ghash->blocks(c->key->h, t, c->buf, d);
    rijn_xor_bytes(c->y, c->y, t, 16);
    c->flags &= ~(unsigned)F_DEBT;
    rijn_burn(t, sizeof t);
}

/* buf's partial last block zero-padded to a whole one. */
static void pad(rijn_gcm_ctx *c)
{
    if (c->used % 16) {
        memset(c->buf + c->used, 0, 16 - c->used % 16);
        c->used += 16 - c->used % 16;
    }
}

/*
 * ks = the keystream block at inc32(ctr, skip); ctr is not stepped. A
 * ctr32 call, which loads the counter in the pieces the stores here
 * wrote: an ECB of a block built here (with E(J0) beside it) loaded it
 * whole, waited for the stores to reach the cache, and made 128 to
 * 256-byte messages 30-40% slower on Zen 4.
 */
static void make_ks(rijn_gcm_ctx *c, size_t skip)
{
    static const uint8_t zero[16];
    uint8_t ctr[16];

    memcpy(ctr, c->ctr, 16);
    inc32(ctr, skip);
    c->key->aes.impl->ctr32(&c->key->aes, c->ks, zero, 1, ctr);
    c->flags &= ~(unsigned)F_KS;
}

/* see rijn_gcm.h */
int rijn_gcm_start(rijn_gcm_ctx *c, const rijn_gcm_key *k,
                   const unsigned char *iv, size_t iv_len)
{
    /* every field that is read before it is written; ks, buf and tag
     * are written first (a context is wiped when its message ends) */
    c->key = k;
    memset(c->y, 0, sizeof c->y);
    c->aad_len = 0;
    c->len = 0;
    c->used = 0;
    c->ks_used = 16;
    c->flags = 0;
    if (k == NULL || k->ghash == NULL || iv_len < 1)
        return fail(c);
    start(k, c->ctr, c->j0, iv, iv_len);
    c->state = ST_AAD;
    return 0;
}

/* see rijn_gcm.h */
int rijn_gcm_aad(rijn_gcm_ctx *c, const unsigned char *aad, size_t len)
{
    if (c->state != ST_AAD || (uint64_t)len > GCM_MAX_AAD - c->aad_len)
        return fail(c);
    c->aad_len += len;
    while (len > 0) {
        size_t take;
        if (c->used % 16 == 0 && len >= sizeof c->buf) {
            /* long AAD: its whole blocks hashed where they are */
            const size_t full = len / 16;
            absorb(c);
            c->key->ghash->blocks(c->key->h, c->y, aad, full);
            aad += 16 * full;
            len -= 16 * full;
            continue;
        }
        if (c->used == sizeof c->buf)
            absorb(c);
        take = sizeof c->buf - c->used < len ? sizeof c->buf - c->used : len;
        memcpy(c->buf + c->used, aad, take);
        c->used += (unsigned)take;
        aad += take;
        len -= take;
    }
    return 0;
}

/*
 * The first data piece as a whole message (see the top): the AAD is all
 * in buf (aad_len bytes, padded to na blocks), the piece goes after it.
 * The input is read once: decrypting, into buf, where the kernel reads
 * it; encrypting, the kernel writes into buf and out gets a copy, so
 * that what buf keeps is what the tag covers.
 */
static void update_whole(rijn_gcm_ctx *c, uint8_t *out, const uint8_t *in,
                         size_t len, int decrypt)
{
    const rijn_gcm_key *k = c->key;
    uint8_t *p = c->buf + c->used;

    if (decrypt) {
        copy_once(p, in, len);
        k->ghash->oneshot(&k->aes, k->h, c->j0, out, p, len, c->buf,
                          (size_t)c->aad_len, 1, c->tag);
    } else {
        k->ghash->oneshot(&k->aes, k->h, c->j0, p, in, len, c->buf,
                          (size_t)c->aad_len, 0, c->tag);
        memcpy(out, p, len);
    }
    c->used += (unsigned)len;
    inc32(c->ctr, len / 16);
    c->flags |= F_TAG;
    if (len % 16) {
        c->ks_used = (unsigned)(len % 16);
        c->flags |= F_KS;
    }
}

/*
 * A longer first data piece as a whole message (see the top): the last
 * kernel makes the piece's output and the tag, E(J0) and the lengths
 * block included, in one call. An AAD of up to RIJN_GCM_SHORT_AAD bytes
 * is all in buf, never absorbed (y is zero): the kernel hashes it from
 * there (ghash.h, last); a longer one y absorbs first.
 */
static void update_last(rijn_gcm_ctx *c, uint8_t *out, const uint8_t *in,
                        size_t len, int decrypt)
{
    const rijn_gcm_key *k = c->key;
    const int own = c->aad_len > 0 && c->aad_len <= RIJN_GCM_SHORT_AAD;

    if (own)
        c->used = 0; /* buf's AAD is the kernel's */
    else
        absorb(c);
    k->ghash->last(&k->aes, k->h, c->y, c->ctr, c->j0, out, in, len,
                   own ? c->buf : NULL, c->aad_len, decrypt, c->tag);
    inc32(c->ctr, len / 16);
    c->flags |= F_TAG | F_LAST;
    if (len % 16) {
        c->ks_used = (unsigned)(len % 16);
        c->flags |= F_KS;
    }
}

/*
 * Another piece after update_last (see the top): y = tag ^ E(J0), E(J0)
 * into tag, L into buf; the keystream of the blocks that settle the debt
 * (the partial block's into ks, the next one's into buf), ctr past the
 * first; buf the bytes of a partial last block as zeros.
 */
static void reopen(rijn_gcm_ctx *c)
{
    const rijn_gcm_key *k = c->key;
    const unsigned rest = (unsigned)(c->len % 16), d = rest ? 2 : 1;
    static const uint8_t zero[32];
    RIJN_ALIGN(16) uint8_t ks[48];

    /* two calls from what was stored long ago: one ECB call of counter
     * blocks just stored here took longer (its masked load of them does
     * not forward) */
    k->aes.impl->ecb(&k->aes, ks, c->j0, 1);
    k->aes.impl->ctr32(&k->aes, ks + 16, zero, d, c->ctr);
    rijn_xor_bytes(c->y, c->tag, ks, 16);
    memcpy(c->tag, ks, 16);
    put_lengths(c->buf + BUF_L, c->aad_len, c->len);
    memcpy(c->ks, ks + 16, 16);
    if (d == 2)
        memcpy(c->buf + BUF_KS2, ks + 32, 16);
    inc32(c->ctr, 1);
    c->ks_used = rest;
    memset(c->buf, 0, 16);
    c->used = rest;
    c->flags = (c->flags & ~(unsigned)(F_TAG | F_LAST | F_KS)) | F_EK0 |
               (d == 2 ? F_DEBT2 : F_DEBT1);
    rijn_burn(ks, sizeof ks);
}

/*
 * While a debt is open: the data through buf (up to 16 bytes at a time)
 * until buf holds the blocks that settle it, then settled. Returns the
 * bytes taken (all of len if it is not settled yet).
 */
static size_t pay_in(rijn_gcm_ctx *c, uint8_t *out, const uint8_t *in,
                     size_t len, int decrypt)
{
    const unsigned need = c->flags & F_DEBT2 ? 32 : 16;
    size_t at = 0;

    while (at < len && c->used < need) {
        size_t n;
        uint8_t *p;
        if (c->ks_used == 16) { /* the second block: made by reopen */
            memcpy(c->ks, c->buf + BUF_KS2, 16);
            c->ks_used = 0;
            inc32(c->ctr, 1);
        }
        n = 16 - c->ks_used < len - at ? 16 - c->ks_used : len - at;
        p = c->buf + c->used;
        if (decrypt) {
            copy_once(p, in + at, n); /* hashed and decrypted from buf */
            rijn_xor_bytes(out + at, p, c->ks + c->ks_used, n);
        } else {
            rijn_xor_bytes(p, in + at, c->ks + c->ks_used, n);
            memcpy(out + at, p, n);
        }
        c->used += (unsigned)n;
        c->ks_used += (unsigned)n;
        at += n;
    }
    if (c->used == need) {
        settle(c, need / 16);
        c->used = 0;
    }
    return at;
}

/* Data: the first call ends the AAD (its last block zero-padded). */
static int update(rijn_gcm_ctx *c, uint8_t *out, const uint8_t *in,
                  size_t len, int decrypt)
{
    const rijn_gcm_key *k = c->key;
    const int state = decrypt ? ST_DEC : ST_ENC;
    size_t full;

    if (c->state == ST_AAD) {
        pad(c);
        c->state = state;
        /* (AAD this short was never absorbed: buf holds all of it) */
        if (k->fused && k->ghash->oneshot != NULL &&
            c->aad_len <= RIJN_GCM_SHORT_AAD && len <= RIJN_GCM_SHORT_DATA &&
            c->used + len <= sizeof c->buf && c->len == 0) {
            c->len = len;
            update_whole(c, out, in, len, decrypt);
            return 0;
        }
        if (k->fused && k->ghash->last != NULL && len > 0 &&
            len <= TAG_AHEAD_MAX && c->len == 0) {
            c->len = len;
            update_last(c, out, in, len, decrypt);
            return 0;
        }
    }
    if (c->state != state || (uint64_t)len > GCM_MAX_DATA - c->len)
        return fail(c);
    if (len == 0)
        return 0;
    if (c->flags & F_LAST)
        reopen(c);
    c->flags &= ~(unsigned)F_TAG; /* the message goes on */
    if (c->flags & F_KS) {
        make_ks(c, 0);
        inc32(c->ctr, 1);
    }
    c->len += len;
    if (RIJN_INJECTED(4) && c->ks_used > 0) /* bug 4 (src/inject.h) */
        c->ks_used = 16;
    if (c->flags & F_DEBT) {
        const size_t n = pay_in(c, out, in, len, decrypt);
        in += n;
        out += n;
        len -= n;
    }
    /* the rest of the current partial block */
    while (len > 0 && c->ks_used < 16) {
        uint8_t b = in[0], o;
        RIJN_READ_ONCE_GPR(b); /* one read of in[0], for buf and out */
        o = (uint8_t)(b ^ c->ks[c->ks_used++]);
        out[0] = o;
        c->buf[c->used++] = decrypt ? b : o;
        in++;
        out++;
        len--;
        if (c->used == sizeof c->buf)
            absorb(c);
    }
    if (len == 0)
        return 0;
    /* from a block boundary on: buf holds whole blocks; y up to date
     * for the kernel, or room for a partial block */
    full = len / 16;
    if (full > 0 || c->used + 16 > sizeof c->buf)
        absorb(c);
    /* a partial last block's keystream made first: its AES overlaps the
     * kernel's */
    if (len % 16)
        make_ks(c, full);
    if (full > 0)
        blocks(k, c->y, c->ctr, out, in, full, decrypt);
    in += 16 * full;
    out += 16 * full;
    len -= 16 * full;
    if (len > 0) {
        uint8_t *p = c->buf + c->used;
        inc32(c->ctr, 1);
        if (decrypt) {
            copy_once(p, in, len); /* hashed and decrypted from buf */
            rijn_xor_bytes(out, p, c->ks, len);
        } else {
            rijn_xor_bytes(p, in, c->ks, len);
            memcpy(out, p, len);
        }
        c->used += (unsigned)len;
        c->ks_used = (unsigned)len;
    }
    return 0;
}

/* see rijn_gcm.h */
int rijn_gcm_encrypt_update(rijn_gcm_ctx *c, unsigned char *out,
                            const unsigned char *in, size_t len)
{
    return update(c, out, in, len, 0);
}

/* see rijn_gcm.h */
int rijn_gcm_decrypt_update(rijn_gcm_ctx *c, unsigned char *out,
                            const unsigned char *in, size_t len)
{
    return update(c, out, in, len, 1);
}

/* The full tag; the context is wiped (and failed) afterwards. */
static int final_tag(rijn_gcm_ctx *c, uint8_t tag[16])
{
    const rijn_gcm_key *k = c->key;

    if (c->state != ST_AAD && c->state != ST_ENC && c->state != ST_DEC) {
        fail(c);
        return -1;
    }
    if (c->flags & F_TAG) {
        memcpy(tag, c->tag, 16);
    } else {
        RIJN_ALIGN(16) uint8_t ek0[16];
        if (c->flags & F_EK0)
            memcpy(ek0, c->tag, 16);
        else
            k->aes.impl->ecb(&k->aes, ek0, c->j0, 1);
        pad(c);
        if (c->flags & F_DEBT) {
            /* buf: 1 or 2 blocks, then the lengths block; the first d
             * settle the debt (the lengths block may be the last of
             * them), the rest are hashed after */
            const unsigned d = c->flags & F_DEBT2 ? 2 : 1;
            const unsigned n = c->used / 16 + 1;
            put_lengths(c->buf + c->used, c->aad_len, c->len);
            settle(c, d);
            if (n > d)
                k->ghash->blocks(k->h, c->y, c->buf + 16 * d, n - d);
            rijn_xor_bytes(tag, c->y, ek0, 16);
        } else {
            /* what buf holds, padded, and the lengths block: one GHASH
             * call */
            if (c->used + 16 > sizeof c->buf)
                absorb(c);
            close_tag(k, c->y, c->buf, c->used / 16 + 1, ek0, c->aad_len,
                      c->len, tag);
        }
        rijn_burn(ek0, sizeof ek0);
    }
    fail(c); /* wipes; nothing may follow */
    return 0;
}

/*
 * 1 if the tag was made ahead (F_TAG) and tag_len is valid: finish and
 * verify then read it from c->tag where it is, without final_tag's frame
 * and its copy. A message through start, update and finish took 0.86-0.92
 * of the time at 16 bytes on Zen 3 (AES-128 and -256), 0.92-0.93 at 64
 * with 13 of AAD, 0.97-0.99 at 1420.
 */
static inline int tag_ahead(const rijn_gcm_ctx *c, size_t tag_len)
{
    return (c->flags & F_TAG) && tag_len >= 12 && tag_len <= 16 &&
           (c->state == ST_ENC || c->state == ST_DEC);
}

/* see rijn_gcm.h */
int rijn_gcm_finish(rijn_gcm_ctx *c, unsigned char *tag, size_t tag_len)
{
    uint8_t t[16];

    if (tag_ahead(c, tag_len)) {
        if (tag_len == 16)
            memcpy(tag, c->tag, 16); /* (no call) */
        else
            memcpy(tag, c->tag, tag_len);
        fail(c); /* wipes; nothing may follow */
        return 0;
    }
    if (tag_len < 12 || tag_len > 16 || final_tag(c, t) != 0) {
        fail(c);
        return -1;
    }
    memcpy(tag, t, tag_len);
    rijn_burn(t, sizeof t);
    return 0;
}

/* see rijn_gcm.h */
int rijn_gcm_verify(rijn_gcm_ctx *c, const unsigned char *tag,
                    size_t tag_len)
{
    uint8_t t[16];
    int ok;

    if (tag_ahead(c, tag_len)) {
        memcpy(t, c->tag, 16);
        fail(c); /* wipes; nothing may follow */
    } else if (tag_len < 12 || tag_len > 16 || final_tag(c, t) != 0) {
        fail(c);
        return -1;
    }
    ok = rijn_ct_equal(t, tag, RIJN_INJECTED(8) ? 12 : tag_len); /* bug 8 */
    RIJN_PUBLIC(&ok, sizeof ok); /* accept or reject is public */
    rijn_burn(t, sizeof t);
    return ok ? 0 : -1;
}

/* see rijn_gcm.h */
void rijn_gcm_wipe(rijn_gcm_ctx *c)
{
    rijn_wipe(c, sizeof *c); /* a memset call, as fail() */
}

/* ---- engines -------------------------------------------------------------- */

/* see ghash.h */
const rijn_ghash_engine *rijn_ghash_find(const char *name)
{
    const rijn_impl *d = rijn_registry_find(&ghash_registry, name);
    return d != NULL ? as_ghash(d) : NULL;
}

/* see ghash.h */
const rijn_ghash_engine *rijn_ghash_for(const char *aes_name)
{
    return pick_engine(rijn_aes_impl_find(aes_name), NULL);
}

/* see rijn_gcm.h */
size_t rijn_gcm_impl_count(void)
{
    return ghash_registry.count;
}

/* see rijn_gcm.h */
int rijn_gcm_impl_get(size_t i, rijn_impl_info *info)
{
    return rijn_registry_info(&ghash_registry, i, info);
}

/* see rijn_gcm.h */
const char *rijn_gcm_impl_default(void)
{
    const rijn_impl *aes = rijn_registry_default(&rijn_aes_registry);
    const rijn_ghash_engine *e =
        pick_engine(aes != NULL ? (const rijn_aes_impl *)(const void *)aes
                                : NULL,
                    NULL);
    return e != NULL ? e->base.name : NULL;
}
