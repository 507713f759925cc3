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

/* see internal.h: the top n bytes of the array, next to the caller's
 * frame (where the frame of the function it just called was) */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
void rijn_stack_burn_n(size_t n)
{
    unsigned char below[RIJN_STACK_BURN_BYTES];
    if (n > sizeof below)
        n = sizeof below;
    rijn_burn(below + sizeof below - n, n);
}
