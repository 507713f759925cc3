/* Small helpers shared by the whole library. */
#include "internal.h"

const char *rijn_version(void)
{
    return RIJN_VERSION_STRING;
}

/* see rijn.h */
void rijn_wipe(void *p, size_t n)
{
    rijn_burn(p, n);
}
