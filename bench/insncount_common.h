/*
 * What rijn's two instruction-count drivers share (insncount_driver.c,
 * insncount_gcm.c): the command line "OP BITS N" and the inputs. All of
 * it runs before the counted loops, the same in the N and the 0 run, so
 * none of it is in a figure. bench/openssl_insncount.c keeps its own few
 * lines: a change to that binary's layout moves OpenSSL's key-setup figure
 * by an instruction.
 */
#ifndef INSNCOUNT_COMMON_H
#define INSNCOUNT_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A command line "OP BITS N": the operation (its index in the driver's
 * names), the key size in bits and the repetition count. */
struct insncount_cmd {
    int op;
    size_t bits;
    unsigned long n;
};

/* The command line "PROG OP BITS N" (a driver's "list" is its own), with
 * OP looked up in names (a NULL ends them). Anything else: "usage: USAGE"
 * or "PROG: unknown operation OP", and exit 2. Inlined, so that main's
 * stack frame, under which the counted operations run, stays what it was
 * (key and IV setup move by a few instructions with the stack's
 * alignment). */
static inline struct insncount_cmd insncount_command(int argc, char **argv,
                                                     const char *prog,
                                                     const char *usage,
                                                     const char *const *names)
{
    struct insncount_cmd cmd = {0, 0, 0};

    if (argc != 4) {
        fprintf(stderr, "usage: %s\n", usage);
        exit(2);
    }
    while (names[cmd.op] != NULL && strcmp(argv[1], names[cmd.op]) != 0)
        cmd.op++;
    if (names[cmd.op] == NULL) {
        fprintf(stderr, "%s: unknown operation %s\n", prog, argv[1]);
        exit(2);
    }
    cmd.bits = strtoul(argv[2], NULL, 10);
    cmd.n = strtoul(argv[3], NULL, 10);
    return cmd;
}

/* The inputs: key[i] = 3i + 1, iv[i] = 0xf0 + i and buf[i] = i (the low
 * byte). */
static inline void insncount_inputs(unsigned char *key, size_t keylen,
                                    unsigned char *iv, size_t ivlen,
                                    unsigned char *buf, size_t buflen)
{
    for (size_t i = 0; i < keylen; i++)
        key[i] = (unsigned char)(3 * i + 1);
    for (size_t i = 0; i < ivlen; i++)
        iv[i] = (unsigned char)(0xf0 + i);
    for (size_t i = 0; i < buflen; i++)
        buf[i] = (unsigned char)i;
}

#endif
