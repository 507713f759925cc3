/*
 * Poly1305 and Poly1305-AES: the engine registry, the run-time pick, and
 * the public functions (see rijn_poly1305.h). Adding an engine: one file
 * under src/mac/, one line in `registry` below, one source line in
 * CMakeLists.txt.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "mac/poly1305_internal.h"

extern const rijn_poly1305_engine rijn_poly1305_poly32;
#if defined(RIJN_HAVE_U128)
extern const rijn_poly1305_engine rijn_poly1305_poly64;
#endif
#if defined(RIJN_POLY1305_X86)
extern const rijn_poly1305_engine rijn_poly1305_avx2;
extern const rijn_poly1305_engine rijn_poly1305_avx512ifma;
#endif

/* Every engine compiled for this target; order is only for display. */
static const rijn_poly1305_engine *const registry[] = {
#if defined(RIJN_POLY1305_X86)
    &rijn_poly1305_avx512ifma,
    &rijn_poly1305_avx2,
#endif
#if defined(RIJN_HAVE_U128)
    &rijn_poly1305_poly64,
#endif
    &rijn_poly1305_poly32,
};

#define REGISTRY_SIZE (sizeof registry / sizeof registry[0])

static const rijn_poly1305_engine *engine_find(const char *name)
{
    for (size_t i = 0; i < REGISTRY_SIZE; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

static int engine_runnable(const rijn_poly1305_engine *e)
{
    return (e->needs & ~rijn_cpu_features_get()) == 0;
}

/* RIJN_POLY1305_IMPL if set (NULL when it is unknown or unrunnable),
 * otherwise the highest-ranked runnable engine; computed once. */
static const rijn_poly1305_engine *default_engine(void)
{
    static _Atomic(const rijn_poly1305_engine *) cached;
    static atomic_int ready;

    if (atomic_load_explicit(&ready, memory_order_acquire))
        return atomic_load_explicit(&cached, memory_order_relaxed);

    const char *forced = getenv("RIJN_POLY1305_IMPL");
    const rijn_poly1305_engine *pick = NULL;
    if (forced != NULL && *forced != '\0') {
        pick = engine_find(forced);
        if (pick != NULL && !engine_runnable(pick))
            pick = NULL;
    } else {
        for (size_t i = 0; i < REGISTRY_SIZE; i++)
            if (engine_runnable(registry[i]) &&
                (pick == NULL || registry[i]->rank > pick->rank))
                pick = registry[i];
    }
    atomic_store_explicit(&cached, pick, memory_order_relaxed);
    atomic_store_explicit(&ready, 1, memory_order_release);
    return pick;
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

/*
 * How many leading bytes of rijn_aes_key.rk the default AES backend writes
 * for a 128-bit key, found once by expanding a fixed key into two keys
 * pre-filled with 0x00 and 0xff. Wiping only those bytes (a few hundred at
 * most) instead of the whole 2 KiB key saves about 100 cycles per short
 * message. A backend's write set does not depend on the key value (every
 * schedule writes the same words whatever the key), so the probe's answer
 * holds for every key. 0 until computed; sizeof rk if probing failed.
 */
static size_t aes_rk_footprint(void)
{
    static atomic_size_t cached;
    static const uint8_t probe_key[16] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae,
                                          0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88,
                                          0x09, 0xcf, 0x4f, 0x3c};
    size_t n = atomic_load_explicit(&cached, memory_order_relaxed);
    rijn_aes_key k0, k1;
    const unsigned char *b0 = (const unsigned char *)k0.rk;
    const unsigned char *b1 = (const unsigned char *)k1.rk;

    if (n != 0)
        return n;
    /* Threads racing here all compute the same value. */
    memset(&k0, 0x00, sizeof k0);
    memset(&k1, 0xff, sizeof k1);
    n = sizeof k0.rk;
    if (rijn_aes_setkey(&k0, probe_key, 16) == 0 &&
        rijn_aes_setkey(&k1, probe_key, 16) == 0) {
        while (n > 0 && b0[n - 1] == 0x00 && b1[n - 1] == 0xff)
            n--;
        n = (n + 63) & ~(size_t)63; /* whole cache lines */
        if (n == 0 || n > sizeof k0.rk)
            n = sizeof k0.rk;
    }
    rijn_burn(&k0, sizeof k0);
    rijn_burn(&k1, sizeof k1);
    atomic_store_explicit(&cached, n, memory_order_relaxed);
    return n;
}

/* pad = AES-128_k(n); -1 if no AES backend is usable. */
static int aes_pad(uint8_t pad[16], const uint8_t k[16], const uint8_t n[16])
{
    rijn_aes_key ak;
    size_t wipe = aes_rk_footprint();

    if (rijn_aes_setkey(&ak, k, 16) != 0)
        return -1;
    rijn_aes_encrypt_blocks(&ak, pad, n, 1);
    /* wipe is a multiple of 64: fixed-size stores the compiler inlines */
    for (size_t i = 0; i < wipe; i += 64)
        memset((unsigned char *)ak.rk + i, 0, 64);
    rijn_burn(ak.rk, 0); /* the barrier: the stores above are kept */
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
        e->finish(st, out, pad);
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
    unsigned d = 0;

    if (rijn_poly1305aes_authenticate(tag, kr, n, m, len) != 0)
        return 0;
    for (int i = 0; i < 16; i++)
        d |= (unsigned)(tag[i] ^ a[i]);
    rijn_burn(tag, sizeof tag);
    /* 1 iff d == 0, without a branch: d - 1 borrows into bit 8 only then */
    return (int)(1 & ((d - 1) >> 8));
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
        e = engine_find(impl);
        if (e != NULL && !engine_runnable(e))
            e = NULL;
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
void rijn_poly1305_wipe(rijn_poly1305_ctx *ctx)
{
    rijn_burn(ctx, sizeof *ctx);
}

/* see rijn_poly1305.h */
const char *rijn_poly1305_ctx_impl(const rijn_poly1305_ctx *ctx)
{
    return ctx->eng != NULL ? ctx->eng->name : NULL;
}

/* see rijn_poly1305.h */
size_t rijn_poly1305_impl_count(void)
{
    return REGISTRY_SIZE;
}

/* see rijn_poly1305.h */
int rijn_poly1305_impl_get(size_t i, rijn_impl_info *info)
{
    const rijn_poly1305_engine *e;
    size_t used = 0;

    if (i >= REGISTRY_SIZE)
        return -1;
    e = registry[i];
    info->name = e->name;
    info->available = engine_runnable(e);
    info->constant_time = 1;
    info->is_default = default_engine() == e;
    info->needs[0] = '\0';
    for (const rijn_cpu_feature_name *f = rijn_cpu_feature_names;
         f->name != NULL; f++) {
        size_t len = strlen(f->name);
        if (!(e->needs & f->bit) || used + len + 2 > sizeof info->needs)
            continue;
        if (used)
            info->needs[used++] = ',';
        memcpy(info->needs + used, f->name, len + 1);
        used += len;
    }
    if (used == 0)
        memcpy(info->needs, "-", 2);
    return 0;
}

/* see rijn_poly1305.h */
const char *rijn_poly1305_impl_default(void)
{
    const rijn_poly1305_engine *e = default_engine();
    return e != NULL ? e->name : NULL;
}
