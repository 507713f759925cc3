/*
 * keypage: key setup must read exactly key_len bytes. The key is placed at
 * the very end of a readable page followed by an unreadable one, so any
 * over-read faults (AES-NI key schedules have had a known 24-byte-key
 * over-read bug class); it is also copied into a heap block of exactly
 * key_len bytes, which an ASan build checks. Every key size, every backend.
 *
 *   test_keypage BACKEND
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testutil.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_keypage BACKEND\n");
        return 2;
    }
    tu_begin("keypage", argv[1]);

    long page = sysconf(_SC_PAGESIZE);
    uint8_t *map = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + page, (size_t)page, PROT_NONE) != 0) {
        tu_fail("mmap/mprotect failed");
        return tu_end();
    }
    static const size_t lens[3] = {16, 24, 32};
    for (int i = 0; i < 3; i++) {
        size_t len = lens[i];
        uint8_t *key = map + page - len; /* last byte before the guard page */
        uint8_t block[16] = {0}, a[16], b[16];
        rijn_aes_key k, r;

        for (size_t j = 0; j < len; j++)
            key[j] = (uint8_t)(j * 37 + len);
        if (tu_setkey(&k, key, len, argv[1]) != 0)
            continue;
        rijn_aes_encrypt_blocks(&k, a, block, 1);

        uint8_t *heap = malloc(len); /* exact size: ASan sees an over-read */
        if (heap == NULL)
            abort();
        memcpy(heap, key, len);
        if (tu_setkey(&r, heap, len, "ref") != 0 ||
            tu_setkey(&k, heap, len, argv[1]) != 0) {
            free(heap);
            continue;
        }
        free(heap);
        rijn_aes_encrypt_blocks(&r, b, block, 1);
        if (tu_check_eq(a, b, 16, "key at the end of a page vs ref"))
            tu_pass();
        rijn_aes_encrypt_blocks(&k, a, block, 1);
        if (tu_check_eq(a, b, 16, "key in an exact-size heap block vs ref"))
            tu_pass();
    }
    munmap(map, 2 * (size_t)page);
    return tu_end();
}
