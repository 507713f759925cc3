/*
 * vaes_lane_check: is VAESENC/VAESENCLAST on a 256-bit register two
 * independent AES rounds, one per 128-bit lane, as the SDM says?
 *
 * Compares _mm256_aesenc_epi128 (and aesenclast, aesdec, aesdeclast) on a
 * YMM whose two lanes hold DIFFERENT states and DIFFERENT round keys
 * against two _mm_aesenc_si128 etc. (AES-NI, one lane each). Nothing
 * of rijn is used: it is a standalone check of the CPU (or emulator).
 *
 * What it shows: on real VAES hardware (Zen 3/4/5, Ice Lake and later)
 * every lane agrees. Under Debian 12's qemu-user 7.2 (`qemu-x86_64 -cpu
 * max`, which advertises VAES) the high lane of VAESENC (and VAESDEC) is
 * wrong: it comes out as the round of the LOW lane's state XOR the HIGH
 * lane's round key. qemu 7.2's helper (target/i386/ops_sse.h,
 * glue(helper_aesenc, SUFFIX), SUFFIX _ymm) loops over all eight dwords
 * but indexes the state with AES_shifts[4 * (i & 3) + k], without the
 * lane's 16-byte offset, so both lanes read lane 0's state; the *LAST
 * helpers add (i & ~15) and are right. (qemu 8.1 rewrote these helpers per
 * 128-bit lane.) So every odd block of a 2-blocks-per-YMM AES-CTR kernel
 * such as rijn's vaes-avx2 is wrong there, from byte 16 of the stream on,
 * while the same binary is right on hardware. The program says which of
 * the two it sees.
 *
 *   vaes_lane_check        exit 0: lanes correct; 1: lanes wrong (the
 *                          diagnosis is printed); 77: no VAES+AVX2 in CPUID
 *
 * Build: cc -O2 vaes_lane_check.c (the VAES code has a target attribute,
 * so the binary runs, and exits 77, on any x86-64 CPU).
 */
#include <cpuid.h>
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define VAES_FN __attribute__((target("aes,avx,avx2,vaes"), noinline))
#define AESNI_FN __attribute__((target("aes,sse2"), noinline))

static int have_vaes_avx2(void)
{
    unsigned a, b, c, d, max = __get_cpuid_max(0, NULL);
    uint32_t xcr0_lo, xcr0_hi;

    if (max < 7)
        return 0;
    __cpuid(1, a, b, c, d);
    if (!(c & (1u << 25)) || !(c & (1u << 27)) || !(c & (1u << 28)))
        return 0; /* AES-NI, OSXSAVE, AVX */
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    if ((xcr0_lo & 6) != 6)
        return 0; /* the OS saves YMM */
    __cpuid_count(7, 0, a, b, c, d);
    return (b & (1u << 5)) && (c & (1u << 9)); /* AVX2, VAES */
}

static const char *const op_name[4] = {"vaesenc", "vaesenclast",
                                        "vaesdec", "vaesdeclast"};

/* out = one round (op: index into op_name) of st with rk on a YMM: lane i
 * is block i. */
VAES_FN static void ymm_round(uint8_t out[32], const uint8_t st[32],
                              const uint8_t rk[32], int op)
{
    __m256i s = _mm256_loadu_si256((const __m256i *)st);
    __m256i k = _mm256_loadu_si256((const __m256i *)rk);
    __m256i r;

    switch (op) {
    case 0: r = _mm256_aesenc_epi128(s, k); break;
    case 1: r = _mm256_aesenclast_epi128(s, k); break;
    case 2: r = _mm256_aesdec_epi128(s, k); break;
    default: r = _mm256_aesdeclast_epi128(s, k); break;
    }
    _mm256_storeu_si256((__m256i *)out, r);
}

/* The same round with AES-NI on one XMM (one block). */
AESNI_FN static void xmm_round(uint8_t out[16], const uint8_t st[16],
                               const uint8_t rk[16], int op)
{
    __m128i s = _mm_loadu_si128((const __m128i *)st);
    __m128i k = _mm_loadu_si128((const __m128i *)rk);
    __m128i r;

    switch (op) {
    case 0: r = _mm_aesenc_si128(s, k); break;
    case 1: r = _mm_aesenclast_si128(s, k); break;
    case 2: r = _mm_aesdec_si128(s, k); break;
    default: r = _mm_aesdeclast_si128(s, k); break;
    }
    _mm_storeu_si128((__m128i *)out, r);
}

static void hex(const char *label, const uint8_t *p)
{
    printf("  %-34s", label);
    for (int i = 0; i < 16; i++)
        printf("%02x", p[i]);
    putchar('\n');
}

int main(void)
{
    uint8_t st[32], rk[32], got[32], want[32], mixed[16], tmp[16];
    int bad = 0;

    if (!have_vaes_avx2()) {
        printf("vaes_lane_check: SKIPPED: CPUID reports no VAES+AVX2\n");
        return 77;
    }
    for (int i = 0; i < 32; i++) {
        st[i] = (uint8_t)(0x11 * i + 3);     /* lanes differ */
        rk[i] = (uint8_t)(0xa5 ^ (7 * i));   /* so do the keys */
    }
    for (int op = 0; op < 4; op++) {
        ymm_round(got, st, rk, op);
        xmm_round(want, st, rk, op);
        xmm_round(want + 16, st + 16, rk + 16, op);
        for (int lane = 0; lane < 2; lane++) {
            int ok = memcmp(got + 16 * lane, want + 16 * lane, 16) == 0;
            printf("%-11s ymm lane %d: %s\n", op_name[op], lane,
                   ok ? "ok" : "WRONG");
            if (ok)
                continue;
            bad = 1;
            hex("got (vaes, ymm):", got + 16 * lane);
            hex("want (aes-ni, xmm):", want + 16 * lane);
            /* the suspected qemu 7.2 behaviour: lane 0's state with this
             * lane's round key */
            xmm_round(mixed, st, rk + 16 * lane, op);
            if (memcmp(mixed, got + 16 * lane, 16) == 0)
                printf("  = round of lane 0's state with lane %d's key: "
                       "the state bytes are read from lane 0\n", lane);
            else {
                xmm_round(tmp, st + 16 * lane, rk, op);
                if (memcmp(tmp, got + 16 * lane, 16) == 0)
                    printf("  = round of lane %d's state with lane 0's "
                           "key\n", lane);
            }
        }
    }
    printf("vaes_lane_check: %s\n",
           bad ? "VAES on ymm is WRONG on this CPU/emulator (the high lane)"
               : "VAES on ymm matches AES-NI in both lanes");
    return bad;
}
