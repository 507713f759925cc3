/*
 * Driver for bench/ppc-insncount-gcm.sh: runs one AES-GCM operation N
 * times so that a guest-instruction counter (qemu + the insncount plugin)
 * can be read for N and for 0 repetitions; the difference divided by N
 * (and by the bytes per operation) is the cost of the operation. The
 * GCM sibling of insncount_driver.c (same method, see doc/powerpc.md).
 *
 *   insncount_gcm list          "AES GHASH" pairs a key would use: every
 *                               available AES backend with its default
 *                               engine, one a line
 *   insncount_gcm OP BITS N     AES backend from RIJN_IMPL, GHASH engine
 *                               from RIJN_GHASH_IMPL (unset: the default)
 *
 * OP (bytes per operation in brackets):
 *   stream   the next 4096 bytes of one continuing message
 *            (rijn_gcm_encrypt_update) [4096]
 *   dstream  the same decrypting (rijn_gcm_decrypt_update) [4096]
 *   aad      the next 4096 bytes of AAD (rijn_gcm_aad): GHASH alone [4096]
 *   p16, p64, p576, p1420
 *            one packet, rijn_gcm_encrypt with a 12-byte IV, no AAD and
 *            a 16-byte tag [16, 64, 576, 1420] (as the gcm64 and gcm1420
 *            of insncount_driver.c)
 *   key      one key setup (rijn_gcm_setkey: AES schedule, H = E(0) and
 *            the engine's tables or powers) [-]
 * Every operation is done once before the N counted ones (warm-up).
 * Prints "impl <aes> ghash <engine>" so the caller can check the pair.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insncount_common.h"
#include "rijn.h"

static RIJN_ALIGN(64) unsigned char buf[4096];
static unsigned char tag[16];
static rijn_gcm_key gk, key2;
static rijn_gcm_ctx ctx;
static unsigned char key[32], iv[12];

enum { OP_STREAM, OP_DSTREAM, OP_AAD, OP_P16, OP_P64, OP_P576, OP_P1420,
       OP_KEY };
static const char *const op_names[] = {"stream", "dstream", "aad", "p16",
                                       "p64", "p576", "p1420", "key", NULL};

static void packet(size_t len)
{
    rijn_gcm_encrypt(&gk, buf, tag, 16, iv, 12, NULL, 0, buf, len);
}

/* n operations; one loop per operation so that only the loop itself
 * (a few instructions) is counted with it. */
static void run(int op, size_t bits, unsigned long n)
{
    unsigned long i;

    switch (op) {
    case OP_STREAM:
        for (i = 0; i < n; i++)
            rijn_gcm_encrypt_update(&ctx, buf, buf, sizeof buf);
        break;
    case OP_DSTREAM:
        for (i = 0; i < n; i++)
            rijn_gcm_decrypt_update(&ctx, buf, buf, sizeof buf);
        break;
    case OP_AAD:
        for (i = 0; i < n; i++)
            rijn_gcm_aad(&ctx, buf, sizeof buf);
        break;
    case OP_P16:
        for (i = 0; i < n; i++)
            packet(16);
        break;
    case OP_P64:
        for (i = 0; i < n; i++)
            packet(64);
        break;
    case OP_P576:
        for (i = 0; i < n; i++)
            packet(576);
        break;
    case OP_P1420:
        for (i = 0; i < n; i++)
            packet(1420);
        break;
    case OP_KEY:
        for (i = 0; i < n; i++)
            if (rijn_gcm_setkey(&key2, key, bits / 8) != 0)
                exit(1);
        break;
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        for (size_t i = 0; i < rijn_impl_count(); i++) {
            rijn_impl_info info;
            rijn_gcm_key k;
            if (rijn_impl_get(i, &info) != 0 || !info.available ||
                !info.constant_time)
                continue;
            if (rijn_gcm_setkey_impl(&k, key, 16, info.name, NULL) == 0)
                printf("%s %s\n", info.name, rijn_gcm_key_ghash(&k));
            rijn_gcm_key_wipe(&k);
        }
        return 0;
    }
    struct insncount_cmd cmd = insncount_command(
        argc, argv, "insncount_gcm", "insncount_gcm list | OP BITS N",
        op_names);

    insncount_inputs(key, sizeof key, iv, sizeof iv, buf, sizeof buf);
    if (rijn_gcm_setkey(&gk, key, cmd.bits / 8) != 0 ||
        rijn_gcm_start(&ctx, &gk, iv, sizeof iv) != 0) {
        fprintf(stderr, "insncount_gcm: key setup failed (bits %zu, "
                "RIJN_IMPL=%s, RIJN_GHASH_IMPL=%s)\n", cmd.bits,
                getenv("RIJN_IMPL") ? getenv("RIJN_IMPL") : "",
                getenv("RIJN_GHASH_IMPL") ? getenv("RIJN_GHASH_IMPL") : "");
        return 1;
    }
    if (cmd.op == OP_STREAM || cmd.op == OP_DSTREAM) /* leave the AAD state */
        (cmd.op == OP_STREAM ? rijn_gcm_encrypt_update
                             : rijn_gcm_decrypt_update)(&ctx, buf, buf, 0);
    run(cmd.op, cmd.bits, 1); /* warm-up, in both the N and the 0 run */
    run(cmd.op, cmd.bits, cmd.n);
    printf("impl %s ghash %s check %02x\n", rijn_aes_key_impl(&gk.aes),
           rijn_gcm_key_ghash(&gk), buf[0] ^ tag[0]);
    return 0;
}
