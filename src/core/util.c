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

/* see internal.h */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
void rijn_stack_burn(void)
{
    unsigned char below[RIJN_STACK_BURN_BYTES];
    rijn_burn(below, sizeof below);
}
