/*
 * CPU features: the name table, RIJN_CPU_MASK, and the once-computed
 * feature set that the dispatcher uses. Per-architecture detection lives in
 * x86.c, aarch64.c and ppc.c; each defines rijn_cpu_detect() for its own
 * architecture and compiles to nothing elsewhere.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "internal.h"

const rijn_cpu_feature_name rijn_cpu_feature_names[] = {
    {"ssse3", RIJN_CPU_SSSE3},
    {"aesni", RIJN_CPU_AESNI},
    {"pclmul", RIJN_CPU_PCLMUL},
    {"avx", RIJN_CPU_AVX},
    {"avx2", RIJN_CPU_AVX2},
    {"bmi2", RIJN_CPU_BMI2},
    {"vaes", RIJN_CPU_VAES},
    {"vpclmul", RIJN_CPU_VPCLMUL},
    {"avx512f", RIJN_CPU_AVX512F},
    {"avx512bw", RIJN_CPU_AVX512BW},
    {"avx512vl", RIJN_CPU_AVX512VL},
    {"avx512ifma", RIJN_CPU_AVX512IFMA},
    {"gfni", RIJN_CPU_GFNI},
    {"sha", RIJN_CPU_SHA},
    {"vpclmul-slow", RIJN_CPU_VPCLMUL_SLOW},
    {"neon", RIJN_CPU_NEON},
    {"aes", RIJN_CPU_ARM_AES},
    {"pmull", RIJN_CPU_ARM_PMULL},
    {"altivec", RIJN_CPU_ALTIVEC},
    {"vsx", RIJN_CPU_VSX},
    {"vcrypto", RIJN_CPU_PPC_CRYPTO},
    {NULL, 0},
};

#if !defined(__x86_64__) && !defined(__aarch64__) && !defined(__powerpc__) && \
    !defined(__powerpc64__)
uint32_t rijn_cpu_detect(void)
{
    return 0;
}
#endif

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/*
 * RIJN_CPU_MASK is either a hexadecimal number ("0x..."), ANDed with the
 * detected features, or a list of feature names separated by commas or
 * spaces, each removed. An optional leading '-' or '~' on a name is
 * accepted. Unknown names are ignored: a mask can only remove.
 */
uint32_t rijn_cpu_apply_mask(uint32_t features, const char *mask)
{
    if (mask == NULL || *mask == '\0')
        return features;
    if (mask[0] == '0' && (mask[1] == 'x' || mask[1] == 'X')) {
        char *end;
        unsigned long keep = strtoul(mask, &end, 16);
        return features & (uint32_t)keep;
    }
    const char *p = mask;
    while (*p != '\0') {
        while (*p == ',' || is_space(*p) || *p == '-' || *p == '~')
            p++;
        const char *start = p;
        while (*p != '\0' && *p != ',' && !is_space(*p))
            p++;
        size_t len = (size_t)(p - start);
        for (const rijn_cpu_feature_name *f = rijn_cpu_feature_names;
             f->name != NULL; f++)
            if (strlen(f->name) == len && memcmp(f->name, start, len) == 0)
                features &= ~f->bit;
    }
    return features;
}

/* Bit 31 marks "computed"; no feature uses it. */
#define FEATURES_READY 0x80000000u

uint32_t rijn_cpu_features_get(void)
{
    static _Atomic uint32_t cached;
    uint32_t f = atomic_load_explicit(&cached, memory_order_acquire);
    if (f & FEATURES_READY)
        return f & ~FEATURES_READY;
    f = rijn_cpu_apply_mask(rijn_cpu_detect(), rijn_getenv("RIJN_CPU_MASK"));
    atomic_store_explicit(&cached, f | FEATURES_READY, memory_order_release);
    return f;
}

/* see internal.h */
char *rijn_cpu_names(uint32_t bits, char *buf, size_t n)
{
    size_t used = 0;

    if (n == 0)
        return buf;
    buf[0] = '\0';
    for (const rijn_cpu_feature_name *e = rijn_cpu_feature_names;
         e->name != NULL; e++) {
        if (!(bits & e->bit))
            continue;
        size_t len = strlen(e->name);
        if (used + (used ? 1 : 0) + len + 1 > n)
            break;
        if (used)
            buf[used++] = ',';
        memcpy(buf + used, e->name, len + 1);
        used += len;
    }
    return buf;
}

char *rijn_cpu_features(char *buf, size_t n)
{
    return rijn_cpu_names(rijn_cpu_features_get(), buf, n);
}
