/* The pairing of a GCM suite (gcm_pair.h). */
#include <stdio.h>
#include <string.h>

#include "gcm_pair.h"
#include "testutil.h"

const rijn_ghash_engine *gcm_pair_begin(const char *suite, const char **aes,
                                        const char **ghash)
{
    const rijn_ghash_engine *e;
    rijn_impl_info info;
    char name[96];

    if (strcmp(*aes, "default") == 0) {
        const rijn_aes_impl *f;
        e = rijn_ghash_find(*ghash);
        f = e != NULL && e->fused_aes ? rijn_aes_impl_find(e->fused_aes)
                                      : NULL;
        *aes = f != NULL && rijn_impl_runnable(&f->base) ? f->base.name
                                                         : rijn_impl_default();
        if (*aes == NULL)
            *aes = "ct64";
    }
    tu_begin(suite, *aes);
    if (strcmp(*ghash, "default") == 0) {
        e = rijn_ghash_for(*aes);
        *ghash = e != NULL ? e->base.name : "(none)";
    }
    snprintf(name, sizeof name, "%s.%s+%s", suite, *aes, *ghash);
    tu_set_name(name);
    e = rijn_ghash_find(*ghash);
    if (e == NULL) {
        tu_fail("GHASH engine %s is not compiled in", *ghash);
        return NULL;
    }
    for (size_t i = 0; rijn_gcm_impl_get(i, &info) == 0; i++)
        if (strcmp(info.name, *ghash) == 0)
            tu_require_available(&info, "engine");
    return e;
}
