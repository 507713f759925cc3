/*
 * PowerPC feature detection through the kernel's AT_HWCAP / AT_HWCAP2
 * (Linux): AltiVec (G4/G5 and later), VSX (POWER7+), and the ISA 2.07
 * vector crypto instructions (POWER8+).
 */
#include "internal.h"

#if defined(__powerpc__) || defined(__powerpc64__)
#if defined(__linux__)
#include <sys/auxv.h>
#endif

#define PPC_FEATURE_HAS_ALTIVEC_BIT 0x10000000ul
#define PPC_FEATURE_HAS_VSX_BIT 0x00000080ul
#define PPC_FEATURE2_VEC_CRYPTO_BIT 0x02000000ul

uint32_t rijn_cpu_detect(void)
{
    uint32_t f = 0;
#if defined(__linux__)
    unsigned long hw = getauxval(AT_HWCAP);
    unsigned long hw2 = getauxval(AT_HWCAP2);
    if (hw & PPC_FEATURE_HAS_ALTIVEC_BIT)
        f |= RIJN_CPU_ALTIVEC;
    if (hw & PPC_FEATURE_HAS_VSX_BIT)
        f |= RIJN_CPU_VSX;
    if (hw2 & PPC_FEATURE2_VEC_CRYPTO_BIT)
        f |= RIJN_CPU_PPC_CRYPTO;
#endif
    return f;
}
#endif
