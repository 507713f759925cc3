/*
 * The kernels of the AES instruction limit of `rijn speed` (limit_asm.c):
 * a loop of AES round instructions on independent registers, the round
 * key in one more register, nothing else in the loop but its counter.
 * Each instruction's only input besides the key is the result of the
 * same register's previous round, so the chains are independent and,
 * with enough of them, the loop runs at the AES units' throughput.
 *
 *   x86-64   xmm: AESENC (legacy SSE encoding); ymm and zmm: VAESENC
 *            (VEX, EVEX), then VZEROUPPER. 15 chains: xmm0-14, the key
 *            in xmm15 (ymm/zmm the same registers).
 *   aarch64  AESE then AESMC on the same register, adjacent (the pair
 *            that cores with AES fusion issue as one operation): one
 *            round. 14 chains: v16-v29, the key in v30 (caller-saved).
 *   ppc64    VCIPHER: 14 chains, v0-v13, the key in v14 (volatile).
 *
 * The GCM limit's kernels (x86-64 only, `rijn speed --gcm`): the same
 * rounds on 14 chains, and for every 10, 12 or 14 of them (one register
 * of blocks of AES-128, -192, -256) the 3 carry-less multiplies of
 * GHASH's Karatsuba products at the same width: PCLMULQDQ (after a
 * MOVDQA), VPCLMULQDQ ymm, VPCLMULQDQ zmm. Their results are not used.
 *
 * The file is compiled with the architecture's crypto extension enabled
 * (aarch64 -march=armv8-a+crypto, ppc64 -mcpu=power8 -mcrypto, see
 * tools/CMakeLists.txt) only so that the assembler takes the mnemonics;
 * no C code here uses them, and limit.c runs a kernel only after the CPU
 * features (rijn's detection, RIJN_CPU_MASK applied) said it may.
 */
#include "limit.h"

#if defined(__GNUC__) && defined(__x86_64__)

#define LIM_CHAINS 15
#define LIM_UNROLL 4

#define C15(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) \
    M(11) M(12) M(13) M(14)
#define X_XMM(i) "aesenc %%xmm15, %%xmm" #i "\n\t"
#define X_YMM(i) "vaesenc %%ymm15, %%ymm" #i ", %%ymm" #i "\n\t"
#define X_ZMM(i) "vaesenc %%zmm15, %%zmm" #i ", %%zmm" #i "\n\t"
/* A loop of body (iters times) on xmm0-15 (ymm, zmm the same registers),
 * then tail; the AES limit's and the GCM limit's kernels alike. */
#define G_LOOP(body, tail) \
    __asm__ __volatile__("1:\n\t" body \
                         "sub $1, %0\n\t" \
                         "jnz 1b\n\t" tail \
                         : "+r"(iters) \
                         : \
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", \
                           "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
                           "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", \
                           "cc")
#define X_LOOP(M, tail) G_LOOP(C15(M) C15(M) C15(M) C15(M), tail)

int limit_kernel_has(int w)
{
    return w == LIM_XMM || w == LIM_YMM || w == LIM_ZMM;
}

void limit_kernel_run(int w, uint64_t iters)
{
    if (iters == 0)
        return;
    if (w == LIM_XMM)
        X_LOOP(X_XMM, "");
    else if (w == LIM_YMM)
        X_LOOP(X_YMM, "vzeroupper\n\t");
    else if (w == LIM_ZMM)
        X_LOOP(X_ZMM, "vzeroupper\n\t");
}

/* The GCM limit: 14 chains (xmm0-13, the key in xmm15) as above, and
 * between their rounds the carry-less multiplies of GHASH, 3 for every
 * 10, 12 or 14 rounds (one register of blocks: Karatsuba's three 64x64
 * products per 128-bit lane), spread evenly through the stream. Each
 * multiply reads xmm15 twice and writes xmm14, which nothing reads: the
 * multiplies are independent of each other and of the rounds. The
 * legacy-SSE PCLMULQDQ overwrites its first operand, so at xmm a copy
 * (MOVDQA) precedes it, as in the pclmul engine's code. */
#define G_CHAINS 14

#define P_XMM(s) "movdqa %%xmm15, %%xmm14\n\t" \
    "pclmulqdq $" s ", %%xmm15, %%xmm14\n\t"
#define P_YMM(s) "vpclmulqdq $" s ", %%ymm15, %%ymm15, %%ymm14\n\t"
#define P_ZMM(s) "vpclmulqdq $" s ", %%zmm15, %%zmm15, %%zmm14\n\t"
/* one register's products: low halves, high halves, Karatsuba middle */
#define P_LO(P) P("0x00")
#define P_HI(P) P("0x11")
#define P_MID(P) P("0x00")

/* A group: R rounds on consecutive chains, with 3 multiplies between */
#define G10(A, P, a, b, c, d, e, f, g, h, i, j) \
    A(a) A(b) A(c) P_LO(P) A(d) A(e) A(f) A(g) P_HI(P) A(h) A(i) A(j) \
    P_MID(P)
#define G12(A, P, a, b, c, d, e, f, g, h, i, j, k, l) \
    A(a) A(b) A(c) A(d) P_LO(P) A(e) A(f) A(g) A(h) P_HI(P) A(i) A(j) \
    A(k) A(l) P_MID(P)
#define G14(A, P) \
    A(0) A(1) A(2) A(3) A(4) P_LO(P) A(5) A(6) A(7) A(8) A(9) P_HI(P) \
    A(10) A(11) A(12) A(13) P_MID(P)
/* Loop bodies: the 14 chains in turn, a whole number of groups
 * (AES-128: 70 rounds, 21 multiplies; AES-192: 84, 21; AES-256: 70, 15) */
#define B10(A, P) \
    G10(A, P, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9) \
    G10(A, P, 10, 11, 12, 13, 0, 1, 2, 3, 4, 5) \
    G10(A, P, 6, 7, 8, 9, 10, 11, 12, 13, 0, 1) \
    G10(A, P, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11) \
    G10(A, P, 12, 13, 0, 1, 2, 3, 4, 5, 6, 7) \
    G10(A, P, 8, 9, 10, 11, 12, 13, 0, 1, 2, 3) \
    G10(A, P, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
#define B12(A, P) \
    G12(A, P, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11) \
    G12(A, P, 12, 13, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9) \
    G12(A, P, 10, 11, 12, 13, 0, 1, 2, 3, 4, 5, 6, 7) \
    G12(A, P, 8, 9, 10, 11, 12, 13, 0, 1, 2, 3, 4, 5) \
    G12(A, P, 6, 7, 8, 9, 10, 11, 12, 13, 0, 1, 2, 3) \
    G12(A, P, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0, 1) \
    G12(A, P, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
#define B14(A, P) G14(A, P) G14(A, P) G14(A, P) G14(A, P) G14(A, P)


int limit_gcm_kernel_has(int w)
{
    return w == LIM_XMM || w == LIM_YMM || w == LIM_ZMM;
}

/* The loop of the key size (rounds) at one width */
#define G_SIZES(A, P, tail) \
    do { \
        if (rounds == 10) \
            G_LOOP(B10(A, P), tail); \
        else if (rounds == 12) \
            G_LOOP(B12(A, P), tail); \
        else if (rounds == 14) \
            G_LOOP(B14(A, P), tail); \
    } while (0)

void limit_gcm_kernel_run(int w, unsigned rounds, uint64_t iters)
{
    if (iters == 0)
        return;
    if (w == LIM_XMM)
        G_SIZES(X_XMM, P_XMM, "");
    else if (w == LIM_YMM)
        G_SIZES(X_YMM, P_YMM, "vzeroupper\n\t");
    else if (w == LIM_ZMM)
        G_SIZES(X_ZMM, P_ZMM, "vzeroupper\n\t");
}

unsigned limit_gcm_kernel_rounds_per_iter(unsigned rounds)
{
    return rounds == 12 ? 84 : rounds == 10 || rounds == 14 ? 70 : 0;
}

#elif defined(__GNUC__) && defined(__aarch64__)

#define LIM_CHAINS 14
#define LIM_UNROLL 4

#define C14(M) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25) \
    M(26) M(27) M(28) M(29)
#define A_RND(i) "aese v" #i ".16b, v30.16b\n\taesmc v" #i ".16b, v" #i \
    ".16b\n\t"

int limit_kernel_has(int w)
{
    return w == LIM_V128;
}

void limit_kernel_run(int w, uint64_t iters)
{
    if (iters == 0 || w != LIM_V128)
        return;
    __asm__ __volatile__("1:\n\t" C14(A_RND) C14(A_RND) C14(A_RND)
                         C14(A_RND)
                         "subs %0, %0, #1\n\t"
                         "b.ne 1b\n\t"
                         : "+r"(iters)
                         :
                         : "v16", "v17", "v18", "v19", "v20", "v21", "v22",
                           "v23", "v24", "v25", "v26", "v27", "v28", "v29",
                           "v30", "cc");
}

#elif defined(__GNUC__) && defined(__powerpc64__)

#define LIM_CHAINS 14
#define LIM_UNROLL 4

#define C14(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) \
    M(11) M(12) M(13)
#define P_RND(i) "vcipher " #i ", " #i ", 14\n\t"

int limit_kernel_has(int w)
{
    return w == LIM_V128;
}

void limit_kernel_run(int w, uint64_t iters)
{
    if (iters == 0 || w != LIM_V128)
        return;
    __asm__ __volatile__("mtctr %0\n"
                         "1:\n\t" C14(P_RND) C14(P_RND) C14(P_RND)
                         C14(P_RND)
                         "bdnz 1b\n\t"
                         :
                         : "r"(iters)
                         : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7",
                           "v8", "v9", "v10", "v11", "v12", "v13", "v14",
                           "ctr");
}

#else /* no AES instructions rijn uses on this architecture */

#define LIM_CHAINS 0
#define LIM_UNROLL 0

int limit_kernel_has(int w)
{
    (void)w;
    return 0;
}

void limit_kernel_run(int w, uint64_t iters)
{
    (void)w;
    (void)iters;
}

#endif

#ifndef G_CHAINS /* a GCM-limit kernel on x86-64 only */
#define G_CHAINS 0

int limit_gcm_kernel_has(int w)
{
    (void)w;
    return 0;
}

void limit_gcm_kernel_run(int w, unsigned rounds, uint64_t iters)
{
    (void)w;
    (void)rounds;
    (void)iters;
}

unsigned limit_gcm_kernel_rounds_per_iter(unsigned rounds)
{
    (void)rounds;
    return 0;
}
#endif

unsigned limit_gcm_kernel_chains(void)
{
    return G_CHAINS;
}

unsigned limit_kernel_chains(void)
{
    return LIM_CHAINS;
}

unsigned limit_kernel_per_iter(void)
{
    return LIM_CHAINS * LIM_UNROLL;
}
