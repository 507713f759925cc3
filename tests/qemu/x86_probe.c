/*
 * x86_probe: for each x86 extension rijn can use, what CPUID (and XCR0)
 * report, and whether one of its instructions actually executes (SIGILL
 * caught). Standalone, no rijn code: scripts/x86-models.sh runs it under
 * `qemu-x86_64 -cpu MODEL` to show what qemu-user emulates, next to the
 * features rijn's own detection (`rijn impl`) reports there.
 *
 * Output: a line with XCR0 (whether the OS, here qemu, enables YMM and
 * ZMM state), then one line per extension:
 *   <name> cpuid=<0|1> exec=<ok|SIGILL>
 * Every instruction is tried, even one CPUID or XCR0 does not allow (it
 * then raises SIGILL on hardware too). Exit status 0.
 *
 * Seen with Debian 12's qemu-user 7.2 (-cpu max): AES-NI, PCLMULQDQ, AVX2
 * and VAES execute (VAESENC/VAESDEC on YMM wrongly, see vaes_lane_check.c);
 * SHA-NI, VPCLMULQDQ on YMM, GFNI and AVX-512 are neither reported nor
 * executed (SIGILL), and XCR0 has no opmask/ZMM state.
 */
#define _POSIX_C_SOURCE 200809L /* sigsetjmp, sigaction */
#include <cpuid.h>
#include <immintrin.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf jb;

static void on_sigill(int sig)
{
    (void)sig;
    siglongjmp(jb, 1);
}

static volatile uint8_t sink[64];

#define T(f) __attribute__((target(f), noinline))

T("aes,sse2") static void x_aesni(void)
{
    __m128i a = _mm_set1_epi32(1);
    a = _mm_aesenc_si128(a, a);
    _mm_storeu_si128((__m128i *)sink, a);
}
T("pclmul,sse2") static void x_pclmul(void)
{
    __m128i a = _mm_set1_epi32(3);
    a = _mm_clmulepi64_si128(a, a, 0x11);
    _mm_storeu_si128((__m128i *)sink, a);
}
T("avx2") static void x_avx2(void)
{
    __m256i a = _mm256_set1_epi32(5);
    a = _mm256_shuffle_epi8(a, a);
    _mm256_storeu_si256((__m256i *)sink, a);
}
T("avx2,vaes") static void x_vaes(void)
{
    __m256i a = _mm256_set1_epi32(7);
    a = _mm256_aesenc_epi128(a, a);
    _mm256_storeu_si256((__m256i *)sink, a);
}
T("avx2,vpclmulqdq") static void x_vpclmul(void)
{
    __m256i a = _mm256_set1_epi32(9);
    a = _mm256_clmulepi64_epi128(a, a, 0x01);
    _mm256_storeu_si256((__m256i *)sink, a);
}
T("sse2,gfni") static void x_gfni(void)
{
    __m128i a = _mm_set1_epi32(11);
    a = _mm_gf2p8mul_epi8(a, a);
    _mm_storeu_si128((__m128i *)sink, a);
}
T("sha,sse4.1") static void x_sha(void)
{
    __m128i a = _mm_set1_epi32(13);
    a = _mm_sha256rnds2_epu32(a, a, a);
    _mm_storeu_si128((__m128i *)sink, a);
}
T("avx512f") static void x_avx512f(void)
{
    __m512i a = _mm512_set1_epi32(15);
    a = _mm512_add_epi32(a, a);
    _mm512_storeu_si512((void *)sink, a);
}
T("avx512f,avx512ifma") static void x_ifma(void)
{
    __m512i a = _mm512_set1_epi64(17);
    a = _mm512_madd52lo_epu64(a, a, a);
    _mm512_storeu_si512((void *)sink, a);
}

static const char *run(void (*f)(void))
{
    if (sigsetjmp(jb, 1))
        return "SIGILL";
    f();
    return "ok";
}

int main(void)
{
    unsigned a, b, c, d, max = __get_cpuid_max(0, NULL);
    unsigned c1 = 0, b7 = 0, c7 = 0;
    uint64_t xcr0 = 0;
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigill;
    sigaction(SIGILL, &sa, NULL);

    if (max >= 1) {
        __cpuid(1, a, b, c, d);
        c1 = c;
    }
    if (max >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        b7 = b;
        c7 = c;
    }
    if (c1 & (1u << 27)) { /* OSXSAVE */
        uint32_t lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        xcr0 = ((uint64_t)hi << 32) | lo;
    }
    int ymm = (xcr0 & 6) == 6, zmm = ymm && (xcr0 & 0xe0) == 0xe0;
    const struct {
        const char *name;
        int cpuid;
        void (*f)(void);
    } t[] = {
        {"aesni", (c1 >> 25) & 1, x_aesni},
        {"pclmul", (c1 >> 1) & 1, x_pclmul},
        {"avx2", (b7 >> 5) & 1, x_avx2},
        {"vaes", (c7 >> 9) & 1, x_vaes},
        {"vpclmul", (c7 >> 10) & 1, x_vpclmul},
        {"gfni", (c7 >> 8) & 1, x_gfni},
        {"sha", (b7 >> 29) & 1, x_sha},
        {"avx512f", (b7 >> 16) & 1, x_avx512f},
        {"avx512ifma", (b7 >> 21) & 1, x_ifma},
    };
    printf("xcr0=%#llx ymm-state=%d zmm-state=%d\n", (unsigned long long)xcr0,
           ymm, zmm);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        printf("%s cpuid=%d exec=%s\n", t[i].name, t[i].cpuid,
               run(t[i].f));
    return 0;
}
