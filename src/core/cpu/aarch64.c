/*
 * AArch64 feature detection through the kernel's AT_HWCAP (Linux).
 */
#include "internal.h"

#if defined(__aarch64__)
#if defined(__linux__)
#include <sys/auxv.h>
#endif

#define HWCAP_ASIMD_BIT (1ul << 1)
#define HWCAP_AES_BIT (1ul << 3)
#define HWCAP_PMULL_BIT (1ul << 4)

uint32_t rijn_cpu_detect(void)
{
    uint32_t f = 0;
#if defined(__linux__)
    unsigned long hw = getauxval(AT_HWCAP);
    if (hw & HWCAP_ASIMD_BIT)
        f |= RIJN_CPU_NEON;
    if (hw & HWCAP_AES_BIT)
        f |= RIJN_CPU_ARM_AES;
    if (hw & HWCAP_PMULL_BIT)
        f |= RIJN_CPU_ARM_PMULL;
#endif
    return f;
}
#endif
