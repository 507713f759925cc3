/*
 * The one registry of AES backends, the best-pick, and the RIJN_IMPL
 * override. Adding a backend: one file under src/aes/, one line in
 * `registry` below, one rijn_backend() line in CMakeLists.txt.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "internal.h"

extern const rijn_aes_impl rijn_aes_ref;
extern const rijn_aes_impl rijn_aes_ct64;
#if defined(__x86_64__)
extern const rijn_aes_impl rijn_aes_aesni;
extern const rijn_aes_impl rijn_aes_vaes_avx2;
extern const rijn_aes_impl rijn_aes_vaes_avx512;
#endif
#if defined(__powerpc64__)
extern const rijn_aes_impl rijn_aes_ppc8;
#endif
#if defined(__powerpc__) || defined(__powerpc64__)
extern const rijn_aes_impl rijn_aes_altivec_bs;
extern const rijn_aes_impl rijn_aes_altivec_vperm;
extern const rijn_aes_impl rijn_aes_altivec_vperm_otf;
#endif

/* Every backend compiled for this architecture; order is only for display
 * (the best-pick uses rank). */
static const rijn_aes_impl *const registry[] = {
#if defined(__x86_64__)
    &rijn_aes_vaes_avx512,
    &rijn_aes_vaes_avx2,
    &rijn_aes_aesni,
#endif
#if defined(__powerpc64__)
    &rijn_aes_ppc8,
#endif
#if defined(__powerpc__) || defined(__powerpc64__)
    &rijn_aes_altivec_bs,
    &rijn_aes_altivec_vperm,
    &rijn_aes_altivec_vperm_otf,
#endif
    &rijn_aes_ct64,
    &rijn_aes_ref,
};

#define REGISTRY_SIZE (sizeof registry / sizeof registry[0])

const rijn_aes_impl *rijn_impl_find(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < REGISTRY_SIZE; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

int rijn_impl_runnable(const rijn_aes_impl *impl)
{
    return (impl->needs & ~rijn_cpu_features_get()) == 0;
}

/* The highest-ranked runnable backend; rank 0 (ref) is never picked. */
static const rijn_aes_impl *best_runnable(void)
{
    const rijn_aes_impl *best = NULL;
    for (size_t i = 0; i < REGISTRY_SIZE; i++) {
        const rijn_aes_impl *b = registry[i];
        if (b->rank > 0 && rijn_impl_runnable(b) &&
            (best == NULL || b->rank > best->rank))
            best = b;
    }
    return best;
}

/*
 * The default backend, computed once: RIJN_IMPL if set (NULL when it names
 * an unknown or unrunnable backend, so key setup fails loudly rather than
 * silently running something else), otherwise the best runnable one.
 */
static _Atomic(const rijn_aes_impl *) default_cached;
static atomic_int default_ready;

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static const rijn_aes_impl *default_impl_init(void)
{
    const char *forced = getenv("RIJN_IMPL");
    const rijn_aes_impl *pick;
    if (forced != NULL && *forced != '\0') {
        pick = rijn_impl_find(forced);
        if (pick != NULL && !rijn_impl_runnable(pick))
            pick = NULL;
    } else {
        pick = best_runnable();
    }
    atomic_store_explicit(&default_cached, pick, memory_order_relaxed);
    atomic_store_explicit(&default_ready, 1, memory_order_release);
    return pick;
}

/* the fast path, inlined into the callers */
static inline const rijn_aes_impl *default_impl(void)
{
    if (atomic_load_explicit(&default_ready, memory_order_acquire))
        return atomic_load_explicit(&default_cached, memory_order_relaxed);
    return default_impl_init();
}

static int setkey_with(rijn_aes_key *k, const unsigned char *key,
                       size_t key_len, const rijn_aes_impl *impl)
{
    if (impl == NULL || (key_len != 16 && key_len != 24 && key_len != 32))
        return -1;
    k->impl = impl;
    k->key_len = (unsigned)key_len;
    k->rounds = (unsigned)(key_len / 4 + 6);
    impl->setkey(k, key, key_len);
    return 0;
}

/* see rijn.h */
int rijn_aes_setkey(rijn_aes_key *k, const unsigned char *key, size_t key_len)
{
    return setkey_with(k, key, key_len, default_impl());
}

/* see rijn.h */
int rijn_aes_setkey_impl(rijn_aes_key *k, const unsigned char *key,
                         size_t key_len, const char *name)
{
    if (name == NULL)
        return rijn_aes_setkey(k, key, key_len);
    const rijn_aes_impl *impl = rijn_impl_find(name);
    if (impl == NULL || !rijn_impl_runnable(impl))
        return -1;
    return setkey_with(k, key, key_len, impl);
}

/* see rijn.h */
const char *rijn_aes_key_impl(const rijn_aes_key *k)
{
    return k->impl != NULL ? k->impl->name : NULL;
}

/* see rijn.h */
void rijn_aes_encrypt_blocks(const rijn_aes_key *k, unsigned char *out,
                             const unsigned char *in, size_t nblocks)
{
    k->impl->ecb(k, out, in, nblocks);
}

/* see rijn.h */
void rijn_aes_key_wipe(rijn_aes_key *k)
{
    rijn_wipe(k, sizeof *k);
}

/* see rijn.h */
size_t rijn_impl_count(void)
{
    return REGISTRY_SIZE;
}

/* Comma-separated names of the features in `needs`; "-" for none. */
static void needs_string(uint32_t needs, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const rijn_cpu_feature_name *f = rijn_cpu_feature_names;
         f->name != NULL; f++) {
        size_t len = strlen(f->name);
        if (!(needs & f->bit) || used + len + 2 > n)
            continue;
        if (used)
            buf[used++] = ',';
        memcpy(buf + used, f->name, len + 1);
        used += len;
    }
    if (used == 0)
        memcpy(buf, "-", 2);
}

/* see rijn.h */
int rijn_impl_get(size_t i, rijn_impl_info *info)
{
    if (i >= REGISTRY_SIZE)
        return -1;
    const rijn_aes_impl *b = registry[i];
    needs_string(b->needs, info->needs, sizeof info->needs);
    info->name = b->name;
    info->available = rijn_impl_runnable(b);
    info->constant_time = b->constant_time;
    info->is_default = default_impl() == b;
    return 0;
}

/* see rijn.h */
const char *rijn_impl_default(void)
{
    const rijn_aes_impl *d = default_impl();
    return d != NULL ? d->name : NULL;
}
