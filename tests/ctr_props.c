/*
 * ctr_props: CTR and ECB properties of one backend (see props.c), checked
 * against an oracle built from the `ref` backend's single-block ECB over
 * counter blocks that this test computes itself (128-bit big-endian
 * increment, tu_ctr_add). The oracle never goes through ctr.c or any ctr32
 * kernel, so the suite is meaningful for `ref` itself too: there it checks
 * the mode code (counter carries and wrap, streaming, splits, seek,
 * in-place, alignment, guards) around ref's own kernels.
 *
 * Runs everywhere, including cross builds under qemu (no OpenSSL needed).
 *
 *   usage: test_ctr_props BACKEND [--seed N]
 */
#include <string.h>

#include "props.h"
#include "testutil.h"

static int ref_ecb(const uint8_t *key, size_t key_len, uint8_t *out,
                   const uint8_t *in, size_t nblocks)
{
    rijn_aes_key k;
    size_t i;

    if (tu_setkey(&k, key, key_len, "ref") != 0)
        return -1;
    for (i = 0; i < nblocks; i++) /* one block per call, on purpose */
        rijn_aes_encrypt_blocks(&k, out + 16 * i, in + 16 * i, 1);
    rijn_aes_key_wipe(&k);
    return 0;
}

static int ref_ctr(const uint8_t *key, size_t key_len, const uint8_t iv[16],
                   uint8_t *out, const uint8_t *in, size_t len)
{
    rijn_aes_key k;
    uint8_t ctr[16], ks[16];
    size_t off, i;

    if (tu_setkey(&k, key, key_len, "ref") != 0)
        return -1;
    memcpy(ctr, iv, 16);
    for (off = 0; off < len; off += 16) {
        size_t n = len - off < 16 ? len - off : 16;
        rijn_aes_encrypt_blocks(&k, ks, ctr, 1);
        for (i = 0; i < n; i++)
            out[off + i] = (uint8_t)(in[off + i] ^ ks[i]);
        tu_ctr_add(ctr, 1);
    }
    rijn_aes_key_wipe(&k);
    return 0;
}

static const props_oracle ref_oracle = {
    "ref ECB over test-computed counter blocks", ref_ecb, ref_ctr};

int main(int argc, char **argv)
{
    return props_main("ctr_props", &ref_oracle, argc, argv);
}
