/*
 * Work-around for a qemu-user bug, linked into test executables only when
 * a ppc64 build runs under `qemu-ppc64 -cpu 970` (or another pre-POWER7
 * model): see rijn-cross-common.cmake.
 *
 * qemu's linux-user 970 model starts with HID5 in "dcbz clears 32 bytes"
 * mode, yet tells the program (AT_DCACHEBSIZE) that a cache block is 128
 * bytes. glibc's memset trusts the latter and zeroes whole blocks with
 * dcbz, so memset(p, 0, n) leaves 96 of every 128 bytes untouched for large
 * n (calloc too). A real G5 under Linux is not affected. The linker option
 * --wrap=memset sends every memset call (glibc's own included) here.
 */
#include <stddef.h>
#include <stdint.h>

void *__wrap_memset(void *s, int c, size_t n);

void *__wrap_memset(void *s, int c, size_t n)
{
    /* volatile: the compiler must not turn this loop back into memset */
    volatile unsigned char *p = s;
    volatile uint64_t *w;
    uint64_t v = (unsigned char)c * 0x0101010101010101ULL;

    while (n > 0 && ((uintptr_t)p & 7) != 0) {
        *p++ = (unsigned char)c;
        n--;
    }
    w = (volatile uint64_t *)(volatile void *)p;
    for (; n >= 8; n -= 8)
        *w++ = v;
    p = (volatile unsigned char *)w;
    while (n-- > 0)
        *p++ = (unsigned char)c;
    return s;
}
