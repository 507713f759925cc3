/*
 * AES: the registry of backends (listed in CMakeLists.txt, generated into
 * rijn_registry.h), key setup with the chosen backend kept in the key, and
 * the block-level API. Adding a backend: one file under src/aes/ and one
 * rijn_impl(AES ...) line in CMakeLists.txt.
 */
#include "internal.h"
#include "rijn_registry.h"

#define DECLARE(n) extern const rijn_aes_impl rijn_aes_##n;
#define ENTRY(n) &rijn_aes_##n.base,
RIJN_AES_LIST(DECLARE)
static const rijn_impl *const aes_list[] = {RIJN_AES_LIST(ENTRY)};

rijn_registry rijn_aes_registry = {
    .env = "RIJN_IMPL",
    .list = aes_list,
    .count = sizeof aes_list / sizeof aes_list[0],
};

/* A rijn_impl of this registry is the first member of its rijn_aes_impl. */
static const rijn_aes_impl *as_aes(const rijn_impl *d)
{
    return (const rijn_aes_impl *)(const void *)d;
}

/* see internal.h */
const rijn_aes_impl *rijn_aes_impl_find(const char *name)
{
    const rijn_impl *d = rijn_registry_find(&rijn_aes_registry, name);
    return d != NULL ? as_aes(d) : NULL;
}

static int setkey_with(rijn_aes_key *k, const unsigned char *key,
                       size_t key_len, const rijn_impl *d)
{
    const rijn_aes_impl *impl;

    if (d == NULL || (key_len != 16 && key_len != 24 && key_len != 32))
        return -1;
    impl = as_aes(d);
    k->impl = impl;
    k->key_len = (unsigned)key_len;
    k->rounds = (unsigned)(key_len / 4 + 6);
    impl->setkey(k, key, key_len);
    return 0;
}

/* see rijn.h */
int rijn_aes_setkey(rijn_aes_key *k, const unsigned char *key, size_t key_len)
{
    return setkey_with(k, key, key_len,
                       rijn_registry_default(&rijn_aes_registry));
}

/* see rijn.h */
int rijn_aes_setkey_impl(rijn_aes_key *k, const unsigned char *key,
                         size_t key_len, const char *name)
{
    return setkey_with(k, key, key_len,
                       rijn_registry_pick(&rijn_aes_registry, name));
}

/* see rijn.h */
const char *rijn_aes_key_impl(const rijn_aes_key *k)
{
    return k->impl != NULL ? k->impl->base.name : NULL;
}

/* see rijn.h */
void rijn_aes_encrypt_blocks(const rijn_aes_key *k, unsigned char *out,
                             const unsigned char *in, size_t nblocks)
{
    k->impl->ecb(k, out, in, nblocks);
}

/* see internal.h */
void rijn_aes_key_clear(rijn_aes_key *k)
{
    size_t n = sizeof k->rk;

    /* Exactly the bytes the backend's schedule wrote, when the key holds
     * one of ours (a key never set up may hold anything): */
    for (size_t i = 0; i < rijn_aes_registry.count; i++)
        if (k->impl == as_aes(rijn_aes_registry.list[i]) &&
            (k->key_len == 16 || k->key_len == 24 || k->key_len == 32))
            n = k->impl->key_bytes[(k->key_len - 16) / 8];
    rijn_burn(k->rk, n);
    k->impl = NULL;
    k->rounds = 0;
    k->key_len = 0;
}

/* see rijn.h */
void rijn_aes_key_wipe(rijn_aes_key *k)
{
    rijn_wipe(k, sizeof *k); /* a memset call: see rijn_gcm_key_wipe */
}

/* see rijn.h */
size_t rijn_impl_count(void)
{
    return rijn_aes_registry.count;
}

/* see rijn.h */
int rijn_impl_get(size_t i, rijn_impl_info *info)
{
    return rijn_registry_info(&rijn_aes_registry, i, info);
}

/* see rijn.h */
const char *rijn_impl_default(void)
{
    const rijn_impl *d = rijn_registry_default(&rijn_aes_registry);
    return d != NULL ? d->name : NULL;
}
