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
#define X_LOOP(M, tail) \
    __asm__ __volatile__("1:\n\t" C15(M) C15(M) C15(M) C15(M) \
                         "sub $1, %0\n\t" \
                         "jnz 1b\n\t" tail \
                         : "+r"(iters) \
                         : \
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", \
                           "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
                           "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", \
                           "cc")

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

unsigned limit_kernel_chains(void)
{
    return LIM_CHAINS;
}

unsigned limit_kernel_per_iter(void)
{
    return LIM_CHAINS * LIM_UNROLL;
}
