/*
 * Poly1305 and Poly1305-AES: the engine registry (listed in CMakeLists.txt,
 * generated into rijn_registry.h), the run-time pick, and the public
 * functions (see rijn_poly1305.h). Adding an engine: one file under
 * src/mac/ and one rijn_impl(POLY1305 ...) line in CMakeLists.txt.
 */
#include "mac/poly1305_internal.h"
#include "rijn_registry.h"

#define DECLARE(n) extern const rijn_poly1305_engine rijn_poly1305_##n;
#define ENTRY(n) &rijn_poly1305_##n.base,
RIJN_POLY1305_LIST(DECLARE)
static const rijn_impl *const poly_list[] = {RIJN_POLY1305_LIST(ENTRY)};

static rijn_registry poly_registry = {
    .env = "RIJN_POLY1305_IMPL",
    .list = poly_list,
    .count = sizeof poly_list / sizeof poly_list[0],
};

/* A rijn_impl of this registry is the first member of its engine. */
static const rijn_poly1305_engine *as_engine(const rijn_impl *d)
{
    return (const rijn_poly1305_engine *)(const void *)d;
}

/* The default engine (RIJN_POLY1305_IMPL or the best); NULL if the
 * environment names one that cannot be used. */
static const rijn_poly1305_engine *default_engine(void)
{
    const rijn_impl *d = rijn_registry_default(&poly_registry);
    return d != NULL ? as_engine(d) : NULL;
}

/* Absorb m[0..len) into a freshly initialised st, padding included. */
static void oneshot_blocks(const rijn_poly1305_engine *e, uint64_t *st,
                           const uint8_t *m, size_t len)
{
    size_t full = len / 16, rem = len % 16;

    if (full)
        e->blocks(st, m, full, 1);
    if (rem) {
        uint8_t last[16] = {0};
        memcpy(last, m + 16 * full, rem);
        last[rem] = 1;
        e->blocks(st, last, 1, 0);
        rijn_burn(last, sizeof last);
    }
}

/* pad = AES-128_k(n); -1 (and a zero pad) if no AES backend is usable.
 * The key schedule is wiped: exactly the bytes the backend wrote. */
static int aes_pad(uint8_t pad[16], const uint8_t k[16], const uint8_t n[16])
{
    rijn_aes_key ak;

    if (rijn_aes_setkey(&ak, k, 16) != 0) {
        memset(pad, 0, 16);
        return -1;
    }
    rijn_aes_encrypt_blocks(&ak, pad, n, 1);
    rijn_aes_key_clear(&ak);
    return 0;
}

/* see rijn_poly1305.h */
void rijn_poly1305aes_clamp(unsigned char kr[32])
{
    kr[19] &= 15;
    kr[23] &= 15;
    kr[27] &= 15;
    kr[31] &= 15;
    kr[20] &= 252;
    kr[24] &= 252;
    kr[28] &= 252;
}

/* see rijn_poly1305.h */
int rijn_poly1305aes_authenticate(unsigned char out[16],
                                  const unsigned char kr[32],
                                  const unsigned char n[16],
                                  const unsigned char m[], size_t len)
{
    const rijn_poly1305_engine *e = default_engine();
    RIJN_ALIGN(64) uint64_t st[RIJN_POLY1305_ST_WORDS];
    uint8_t pad[16];

    if (e == NULL) {
        memset(out, 0, 16);
        return -1;
    }
    /* Poly1305 first, AES after: the two dependency chains are
     * independent and the CPU overlaps them. */
    e->init(st, kr + 16);
    oneshot_blocks(e, st, m, len);
    if (aes_pad(pad, kr, n) != 0) {
        e->finish(st, out, pad); /* (a zero pad: wipes st) */
        memset(out, 0, 16);
        return -1;
    }
    e->finish(st, out, pad); /* wipes the words of st it used */
    rijn_burn(pad, sizeof pad);
    return 0;
}

/* see rijn_poly1305.h */
int rijn_poly1305aes_verify(const unsigned char a[16],
                            const unsigned char kr[32],
                            const unsigned char n[16],
                            const unsigned char m[], size_t len)
{
    uint8_t tag[16];
    int ok;

    if (rijn_poly1305aes_authenticate(tag, kr, n, m, len) != 0)
        return 0;
    ok = rijn_ct_equal(tag, a, 16);
    rijn_burn(tag, sizeof tag);
    return ok;
}

/* see rijn_poly1305.h */
int rijn_poly1305_verify(const unsigned char tag[16], const unsigned char m[],
                         size_t len, const unsigned char key[32])
{
    uint8_t mine[16];
    int ok;

    if (rijn_poly1305(mine, m, len, key) != 0)
        return 0;
    ok = rijn_ct_equal(mine, tag, 16);
    rijn_burn(mine, sizeof mine);
    return ok;
}

/* see rijn_poly1305.h */
int rijn_poly1305aes_init(rijn_poly1305_ctx *ctx, const unsigned char kr[32],
                          const unsigned char n[16])
{
    const rijn_poly1305_engine *e = default_engine();

    ctx->eng = NULL;
    ctx->used = 0;
    if (e == NULL || aes_pad(ctx->pad, kr, n) != 0)
        return -1;
    ctx->eng = e;
    e->init(ctx->st, kr + 16);
    return 0;
}

/* see rijn_poly1305.h */
int rijn_poly1305(unsigned char tag[16], const unsigned char m[], size_t len,
                  const unsigned char key[32])
{
    const rijn_poly1305_engine *e = default_engine();

    RIJN_ALIGN(64) uint64_t st[RIJN_POLY1305_ST_WORDS];

    if (e == NULL) {
        memset(tag, 0, 16);
        return -1;
    }
    e->init(st, key);
    oneshot_blocks(e, st, m, len);
    e->finish(st, tag, key + 16); /* wipes the words of st it used */
    return 0;
}

/* see rijn_poly1305.h */
int rijn_poly1305_init_impl(rijn_poly1305_ctx *ctx,
                            const unsigned char key[32], const char *impl)
{
    const rijn_poly1305_engine *e;

    ctx->eng = NULL;
    ctx->used = 0;
    if (impl == NULL) {
        e = default_engine();
    } else {
        const rijn_impl *d = rijn_registry_pick(&poly_registry, impl);
        e = d != NULL ? as_engine(d) : NULL;
    }
    if (e == NULL)
        return -1;
    ctx->eng = e;
    e->init(ctx->st, key);
    memcpy(ctx->pad, key + 16, 16);
    return 0;
}

/* see rijn_poly1305.h */
int rijn_poly1305_init(rijn_poly1305_ctx *ctx, const unsigned char key[32])
{
    return rijn_poly1305_init_impl(ctx, key, NULL);
}

/* see rijn_poly1305.h */
void rijn_poly1305_update(rijn_poly1305_ctx *ctx, const unsigned char m[],
                          size_t len)
{
    const rijn_poly1305_engine *e = ctx->eng;
    size_t full;

    if (e == NULL || len == 0)
        return;
    if (ctx->used) {
        size_t take = 16 - ctx->used;
        if (take > len)
            take = len;
        memcpy(ctx->buf + ctx->used, m, take);
        ctx->used += take;
        m += take;
        len -= take;
        if (ctx->used < 16)
            return;
        e->blocks(ctx->st, ctx->buf, 1, 1);
        ctx->used = 0;
    }
    full = len / 16;
    if (full)
        e->blocks(ctx->st, m, full, 1);
    ctx->used = len % 16;
    memcpy(ctx->buf, m + 16 * full, ctx->used);
}

/* see rijn_poly1305.h */
void rijn_poly1305_final(rijn_poly1305_ctx *ctx, unsigned char tag[16])
{
    const rijn_poly1305_engine *e = ctx->eng;

    if (e == NULL) {
        memset(tag, 0, 16);
    } else {
        if (ctx->used) {
            ctx->buf[ctx->used] = 1;
            memset(ctx->buf + ctx->used + 1, 0, 15 - ctx->used);
            e->blocks(ctx->st, ctx->buf, 1, 0);
        }
        e->finish(ctx->st, tag, ctx->pad);
    }
    rijn_poly1305_wipe(ctx);
}

/* see rijn_poly1305.h */
int rijn_poly1305_final_verify(rijn_poly1305_ctx *ctx,
                               const unsigned char tag[16])
{
    uint8_t mine[16];
    int ok = ctx->eng != NULL;

    rijn_poly1305_final(ctx, mine);
    ok &= rijn_ct_equal(mine, tag, 16);
    rijn_burn(mine, sizeof mine);
    return ok;
}

/* see rijn_poly1305.h */
void rijn_poly1305_wipe(rijn_poly1305_ctx *ctx)
{
    /* a call (memset), not the REP STOSQ gcc 12 makes of a 432-byte
     * memset here: 13 ns of a 61-ns 16-byte streamed message (Zen 4) */
    rijn_wipe(ctx, sizeof *ctx);
}

/* see rijn_poly1305.h */
const char *rijn_poly1305_ctx_impl(const rijn_poly1305_ctx *ctx)
{
    return ctx->eng != NULL ? ctx->eng->base.name : NULL;
}

/* see rijn_poly1305.h */
size_t rijn_poly1305_impl_count(void)
{
    return poly_registry.count;
}

/* see rijn_poly1305.h */
int rijn_poly1305_impl_get(size_t i, rijn_impl_info *info)
{
    return rijn_registry_info(&poly_registry, i, info);
}

/* see rijn_poly1305.h */
const char *rijn_poly1305_impl_default(void)
{
    const rijn_poly1305_engine *e = default_engine();
    return e != NULL ? e->base.name : NULL;
}
