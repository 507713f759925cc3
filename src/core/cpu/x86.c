/*
 * x86-64 feature detection: CPUID for what the CPU implements, XGETBV
 * (XCR0) for what the OS saves on a context switch. AVX and AVX2 need XCR0
 * bits 1-2 (SSE, AVX state); AVX-512 also needs bits 5-7 (opmask, upper
 * ZMM). Without them the instructions fault or corrupt state, whatever
 * CPUID says.
 */
#include "internal.h"

#if defined(__x86_64__)
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

uint32_t rijn_cpu_detect(void)
{
    unsigned a, b, c, d, max;
    uint32_t f = 0;

    if (!__get_cpuid(0, &max, &b, &c, &d) || max < 1)
        return 0;
    __cpuid(1, a, b, c, d);
    const unsigned sse_c = c;
    if (c & (1u << 9))
        f |= RIJN_CPU_SSSE3;
    if (c & (1u << 25))
        f |= RIJN_CPU_AESNI;
    if (c & (1u << 1))
        f |= RIJN_CPU_PCLMUL;

    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    uint64_t xcr0 = osxsave ? xgetbv0() : 0;
    int ymm_ok = (xcr0 & 0x6) == 0x6;
    int zmm_ok = ymm_ok && (xcr0 & 0xe0) == 0xe0;

    if (avx && ymm_ok)
        f |= RIJN_CPU_AVX;
    if (max >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        if (b & (1u << 8))
            f |= RIJN_CPU_BMI2;
        if (c & (1u << 8))
            f |= RIJN_CPU_GFNI;
        /* The SHA extensions are SSE instructions; the code using them
         * is also compiled for SSSE3 and SSE4.1 (CPUID.1:ECX 9, 19). */
        if ((b & (1u << 29)) && (sse_c & (1u << 9)) && (sse_c & (1u << 19)))
            f |= RIJN_CPU_SHA;
        if (ymm_ok) {
            if (b & (1u << 5))
                f |= RIJN_CPU_AVX2;
            if (c & (1u << 9))
                f |= RIJN_CPU_VAES;
            if (c & (1u << 10))
                f |= RIJN_CPU_VPCLMUL;
        }
        if (zmm_ok) {
            if (b & (1u << 16))
                f |= RIJN_CPU_AVX512F;
            if (b & (1u << 30))
                f |= RIJN_CPU_AVX512BW;
            if (b & (1u << 31))
                f |= RIJN_CPU_AVX512VL;
            if (b & (1u << 21))
                f |= RIJN_CPU_AVX512IFMA;
        }
    }
    /* VEX-encoded AES/PCLMUL need AVX state; the x86 backends check
     * their own combination through impl->needs. */
    return f;
}
#endif
