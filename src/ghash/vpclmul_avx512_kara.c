/*
 * vpclmul-avx512-kara: vpclmul-avx512's fused AES-GCM loop with Karatsuba
 * products (see the top of vpclmul_avx512.c: what differs, and on which
 * CPUs each form is picked). The same source compiled with VP_KARA 1: it
 * defines this engine's fused entry points and takes key setup, GHASH
 * alone and one-shot messages from the schoolbook engine's object.
 */
#define VP_KARA 1
#include "vpclmul_avx512.c"
