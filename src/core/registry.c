/*
 * The one registry mechanism of the library: AES backends, Poly1305
 * engines (and GHASH engines) are each listed in a rijn_registry and
 * picked here, by rank or by name, with the environment overrides and
 * their safety rules (see internal.h, "Implementations and registries").
 */
#if defined(RIJN_HAVE_SECURE_GETENV)
#define _GNU_SOURCE 1 /* secure_getenv */
#else
#define _POSIX_C_SOURCE 200809L /* getuid, geteuid, getgid, getegid */
#endif
#include <stdlib.h>
#include <unistd.h>
#if defined(RIJN_HAVE_GETAUXVAL)
#include <sys/auxv.h>
#endif

#include "internal.h"

/* see internal.h */
const char *rijn_getenv_fallback(const char *name)
{
#if defined(RIJN_HAVE_GETAUXVAL) && defined(AT_SECURE)
    /* The kernel's verdict, the one secure_getenv reads: set for setuid
     * and setgid programs, for file capabilities and for LSM transitions,
     * where the real and effective ids may well be equal. */
    if (getauxval(AT_SECURE) != 0)
        return NULL;
#else
    /* No auxiliary vector: the ids are all there is to compare. */
    if (getuid() != geteuid() || getgid() != getegid())
        return NULL;
#endif
    return getenv(name);
}

/* see internal.h */
const char *rijn_getenv(const char *name)
{
#if defined(RIJN_HAVE_SECURE_GETENV)
    return secure_getenv(name);
#else
    return rijn_getenv_fallback(name);
#endif
}

/* see internal.h */
int rijn_env_allows_variable_time(void)
{
    const char *v = rijn_getenv(RIJN_ENV_ALLOW_VARIABLE_TIME);
    return v != NULL && strcmp(v, "1") == 0;
}

/* see internal.h */
int rijn_impl_runnable_on(const rijn_impl *d, uint32_t features)
{
    return (d->needs & ~features) == 0;
}

/* see internal.h */
int rijn_impl_runnable(const rijn_impl *d)
{
    return rijn_impl_runnable_on(d, rijn_cpu_features_get());
}

/* see internal.h */
int rijn_impl_rank(const rijn_impl *d)
{
    return (d->tuned & ~rijn_cpu_features_get()) == 0 ? d->rank : 0;
}

/* see internal.h */
const rijn_impl *rijn_registry_find(const rijn_registry *r, const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->list[i]->name, name) == 0)
            return r->list[i];
    return NULL;
}

/* The highest-ranked runnable one; rank 0 is never picked (rijn_impl_rank:
 * a tuned variant counts only on the CPUs it is tuned for). */
static const rijn_impl *best_runnable(const rijn_registry *r)
{
    const rijn_impl *best = NULL;

    for (size_t i = 0; i < r->count; i++) {
        const rijn_impl *d = r->list[i];
        if (rijn_impl_rank(d) > 0 && rijn_impl_runnable(d) &&
            (best == NULL || rijn_impl_rank(d) > rijn_impl_rank(best)))
            best = d;
    }
    return best;
}

/* see internal.h */
const rijn_impl *rijn_registry_env_pick(const rijn_registry *r, int *forced)
{
    const char *name = rijn_getenv(r->env);
    const rijn_impl *d;

    *forced = name != NULL && *name != '\0';
    if (!*forced)
        return best_runnable(r);
    d = rijn_registry_find(r, name);
    if (d == NULL || !rijn_impl_runnable(d))
        return NULL;
    if (!d->constant_time && !rijn_env_allows_variable_time())
        return NULL;
    return d;
}

/* see internal.h */
const rijn_impl *rijn_registry_default_init(rijn_registry *r)
{
    int forced;
    const rijn_impl *pick = rijn_registry_env_pick(r, &forced);

    /* Threads racing here compute the same value. */
    atomic_store_explicit(&r->cached, pick, memory_order_relaxed);
    atomic_store_explicit(&r->forced, forced, memory_order_relaxed);
    atomic_store_explicit(&r->ready, 1, memory_order_release);
    return pick;
}

/* see internal.h */
int rijn_registry_forced(rijn_registry *r)
{
    (void)rijn_registry_default(r);
    return atomic_load_explicit(&r->forced, memory_order_relaxed);
}

/* see internal.h */
const rijn_impl *rijn_registry_pick(rijn_registry *r, const char *name)
{
    const rijn_impl *d;

    if (name == NULL)
        return rijn_registry_default(r);
    d = rijn_registry_find(r, name);
    return d != NULL && rijn_impl_runnable(d) ? d : NULL;
}

/* see internal.h */
int rijn_registry_info(rijn_registry *r, size_t i, rijn_impl_info *info)
{
    const rijn_impl *d;

    if (i >= r->count)
        return -1;
    d = r->list[i];
    rijn_cpu_names(d->needs, info->needs, sizeof info->needs);
    if (info->needs[0] == '\0')
        memcpy(info->needs, "-", 2);
    info->name = d->name;
    info->available = rijn_impl_runnable(d);
    info->constant_time = d->constant_time;
    info->is_default = rijn_registry_default(r) == d;
    return 0;
}
