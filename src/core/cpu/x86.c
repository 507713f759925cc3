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
    const unsigned b_vendor = b, c_vendor = c, d_vendor = d;
    __cpuid(1, a, b, c, d);
    const unsigned sse_c = c, eax1 = a;
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
    /* The tuning bit (internal.h): AMD family 1Ah (Zen 5) and later;
     * measured on family 1Ah model 2. The family is the base field, plus
     * the extended one when the base is 0Fh (CPUID.1:EAX). Zen 3 and 4
     * also issue VPCLMULQDQ once per two cycles, but on the AES pipes,
     * where Karatsuba's extra XORs and shuffles cost as much as the
     * multiply they save (measured within 2% on Zen 4). */
    if ((f & RIJN_CPU_VPCLMUL) && b_vendor == 0x68747541u /* "Auth" */ &&
        d_vendor == 0x69746e65u /* "enti" */ &&
        c_vendor == 0x444d4163u /* "cAMD" */) {
        const unsigned base = (eax1 >> 8) & 0xf;
        const unsigned family =
            base == 0xf ? base + ((eax1 >> 20) & 0xff) : base;
        if (family >= 0x1a)
            f |= RIJN_CPU_VPCLMUL_SLOW;
    }
    /* VEX-encoded AES/PCLMUL need AVX state; the x86 backends check
     * their own combination through impl->needs. */
    return f;
}
#endif
