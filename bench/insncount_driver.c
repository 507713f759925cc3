/*
 * Driver for bench/ppc-insncount.sh: runs one rijn operation N times so
 * that a guest-instruction counter (qemu + the insncount plugin) can be
 * read for N and for 0 repetitions; the difference divided by N (and by
 * the bytes per operation) is the cost of the operation, with process
 * start-up, key setup and the first-call costs cancelled out.
 *
 *   insncount_driver list                      available backends, one a line
 *   insncount_driver OP BITS N                 backend from RIJN_IMPL
 *
 * OP (bytes per operation in brackets):
 *   stream   the next 4096 bytes of one continuing stream [4096]
 *            (rijn_aes_ctr_xor)
 *   p40, p576, p1500
 *            IV setup then one packet (rijn_aes_ctr_setiv +
 *            rijn_aes_ctr_xor) [40, 576, 1500]
 *   imix     12 packets with IV setup: 7 x 40, 4 x 576, 1 x 1500 [4084]
 *   key      one key expansion (rijn_aes_setkey) [-]
 *   iv       one IV setup (rijn_aes_ctr_setiv) [-]
 *   gcm      the next 4096 bytes of one AES-GCM encryption
 *            (rijn_gcm_encrypt_update) [4096]
 *   gcm1420, gcm64
 *            one AES-GCM message with a 12-byte IV, no AAD, 16-byte tag
 *            (rijn_gcm_encrypt, key expanded once) [1420, 64]
 *   poly     the next 4096 bytes of one Poly1305 (rijn_poly1305_update)
 *            [4096]
 *   poly64   Poly1305 of a 64-byte message with its key (rijn_poly1305)
 *            [64]
 * The GHASH engine and the Poly1305 engine are the library's defaults
 * (RIJN_GHASH_IMPL, RIJN_POLY1305_IMPL); "impl" names them too.
 * Every operation is done once before the N counted ones (warm-up).
 * Prints "impl <name>" so the caller can check which backend ran.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insncount_common.h"
#include "rijn.h"
#include "rijn_gcm.h"
#include "rijn_poly1305.h"

static RIJN_ALIGN(64) unsigned char buf[4096];
static rijn_aes_ctr_ctx ctx;
static rijn_aes_key key2;
static unsigned char key[32], iv[16], tag[16];
static rijn_gcm_key gkey;
static rijn_gcm_ctx gctx;
static rijn_poly1305_ctx pctx;

enum { OP_STREAM, OP_P40, OP_P576, OP_P1500, OP_IMIX, OP_KEY, OP_IV,
       OP_GCM, OP_GCM1420, OP_GCM64, OP_POLY, OP_POLY64 };
static const char *const op_names[] = {"stream", "p40", "p576", "p1500",
                                       "imix", "key", "iv", "gcm",
                                       "gcm1420", "gcm64", "poly", "poly64",
                                       NULL};

static void packet(size_t len)
{
    rijn_aes_ctr_setiv(&ctx, iv);
    rijn_aes_ctr_xor(&ctx, buf, buf, len);
}

/* n operations; one loop per operation so that only the loop itself
 * (a few instructions) is counted with it. */
static void run(int op, size_t bits, unsigned long n)
{
    static const unsigned short mix[12] = {40, 576, 40, 40, 576, 40,
                                           1500, 40, 576, 40, 576, 40};
    unsigned long i;

    switch (op) {
    case OP_STREAM:
        for (i = 0; i < n; i++)
            rijn_aes_ctr_xor(&ctx, buf, buf, sizeof buf);
        break;
    case OP_P40:
        for (i = 0; i < n; i++)
            packet(40);
        break;
    case OP_P576:
        for (i = 0; i < n; i++)
            packet(576);
        break;
    case OP_P1500:
        for (i = 0; i < n; i++)
            packet(1500);
        break;
    case OP_IMIX:
        for (i = 0; i < n; i++)
            for (int j = 0; j < 12; j++)
                packet(mix[j]);
        break;
    case OP_KEY:
        for (i = 0; i < n; i++)
            if (rijn_aes_setkey(&key2, key, bits / 8) != 0)
                exit(1);
        break;
    case OP_IV:
        for (i = 0; i < n; i++)
            rijn_aes_ctr_setiv(&ctx, iv);
        break;
    case OP_GCM:
        for (i = 0; i < n; i++)
            rijn_gcm_encrypt_update(&gctx, buf, buf, sizeof buf);
        break;
    case OP_GCM1420:
        for (i = 0; i < n; i++)
            rijn_gcm_encrypt(&gkey, buf, tag, 16, iv, 12, NULL, 0, buf, 1420);
        break;
    case OP_GCM64:
        for (i = 0; i < n; i++)
            rijn_gcm_encrypt(&gkey, buf, tag, 16, iv, 12, NULL, 0, buf, 64);
        break;
    case OP_POLY:
        for (i = 0; i < n; i++)
            rijn_poly1305_update(&pctx, buf, sizeof buf);
        break;
    case OP_POLY64:
        for (i = 0; i < n; i++)
            rijn_poly1305(tag, buf, 64, key);
        break;
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        for (size_t i = 0; i < rijn_impl_count(); i++) {
            rijn_impl_info info;
            if (rijn_impl_get(i, &info) == 0 && info.available)
                printf("%s\n", info.name);
        }
        return 0;
    }
    struct insncount_cmd cmd = insncount_command(
        argc, argv, "insncount_driver", "insncount_driver list | OP BITS N",
        op_names);

    insncount_inputs(key, sizeof key, iv, sizeof iv, buf, sizeof buf);
    if (rijn_aes_ctr_init(&ctx, key, cmd.bits / 8, iv) != 0) {
        fprintf(stderr, "insncount_driver: key setup failed (bits %zu, "
                "RIJN_IMPL=%s)\n", cmd.bits,
                getenv("RIJN_IMPL") ? getenv("RIJN_IMPL") : "");
        return 1;
    }
    if (rijn_gcm_setkey(&gkey, key, cmd.bits / 8) != 0 ||
        rijn_gcm_start(&gctx, &gkey, iv, 12) != 0 ||
        rijn_poly1305_init(&pctx, key) != 0) {
        fprintf(stderr, "insncount_driver: GCM or Poly1305 setup failed\n");
        return 1;
    }
    run(cmd.op, cmd.bits, 1); /* warm-up, in both the N and the 0 run */
    run(cmd.op, cmd.bits, cmd.n);
    printf("impl %s ghash %s poly1305 %s check %02x\n",
           rijn_aes_key_impl(&ctx.key), rijn_gcm_key_ghash(&gkey),
           rijn_poly1305_ctx_impl(&pctx), buf[0]);
    return 0;
}
