/* Helpers of the compat test programs; see compat_test.h. */
#include "compat_test.h"

#include <stdio.h>
#include <stdlib.h>

/* Default seed: without RIJN_TEST_SEED a compat run is reproducible. */
#define CT_SEED 0x726a6e2d636f6d70ULL

tu_rng ct_rng;

const char *ct_begin(const char *suite)
{
    const char *want = getenv("RIJN_IMPL");
    const char *seed_env = getenv("RIJN_TEST_SEED");
    int from_env = want != NULL && *want != '\0';
    const char *backend = from_env ? want : rijn_impl_default();
    uint64_t seed = CT_SEED;
    rijn_impl_info info;

    if (backend == NULL) {
        printf("%s: FAIL: RIJN_IMPL not set and the library has no "
               "default backend\n", suite);
        exit(1);
    }
    info = tu_begin(suite, backend);
    tu_note("backend %s (%s)", info.name,
            from_env ? "RIJN_IMPL" : "RIJN_IMPL not set; the default");
    if (seed_env != NULL && *seed_env != '\0')
        seed = strtoull(seed_env, NULL, 0);
    tu_note("seed=%llu (set RIJN_TEST_SEED to change)",
            (unsigned long long)seed);
    tu_rng_seed(&ct_rng, seed);
    return info.name;
}

int ct_check(int ok, const char *what, const char *detail)
{
    if (ok)
        tu_pass();
    else if (detail != NULL)
        tu_fail("%s -- %s", what, detail);
    else
        tu_fail("%s", what);
    return ok;
}

char *ct_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;

    if (f == NULL)
        goto fail;
    for (;;) {
        size_t got;
        if (cap - n < 65536) {
            char *nb = realloc(buf, cap + 65536 + 1);
            if (nb == NULL) {
                fclose(f);
                goto fail;
            }
            buf = nb;
            cap += 65536;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
fail:
    printf("%s: FAIL: cannot read %s\n", tu_name(), path);
    exit(1);
}

int ct_oracle_key(rijn_aes_key *k, const unsigned char *key, size_t len)
{
    if (rijn_aes_setkey_impl(k, key, len, "ref") == 0)
        return 0;
    return rijn_aes_setkey(k, key, len);
}
