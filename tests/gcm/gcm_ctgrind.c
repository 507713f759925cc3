/*
 * gcm_ctgrind: constant-time validation of one GHASH engine (with an AES
 * backend valgrind runs) under valgrind memcheck, through tests/ctgrind.sh.
 *
 *   usage: valgrind ... test_gcm_ctgrind ENGINE
 *
 * Built only with -DRIJN_CTGRIND=ON. The key, the plaintext and the AAD
 * are marked secret before any call: key setup (H = E_K(0) and its
 * powers), one-shot encryption and decryption and streaming in pieces run
 * on secret data, and memcheck reports every branch or address that
 * depends on it. (The accept/reject outcome of a tag check is declassified
 * in the library: it is public.) The AES backend is the engine's fused one
 * where it has one, else aesni where the CPU has it, else ct64: both are
 * checked constant time by the AES ctgrind tests. Expected as for the AES
 * backends: clean for an engine that says constant_time = 1, flagged for
 * ref (which shows the harness sees a leak). Prints "constant_time=N".
 */
#include <stdio.h>
#include <string.h>

#include "ghash/ghash.h"
#include "testutil.h"

int main(int argc, char **argv)
{
    const rijn_ghash_engine *e;
    const char *aes;
    rijn_impl_info info;
    char name[96];
    uint8_t key[32], iv[12], aad[64], pt[300], ct[300], out[300], tag[16];
    uint8_t want_ct[300], want_tag[16];
    rijn_gcm_key k;
    tu_rng rng;

    if (argc != 2) {
        fprintf(stderr, "usage: %s ENGINE\n", argv[0]);
        return 2;
    }
    e = rijn_ghash_find(argv[1]);
    aes = e != NULL && e->fused_aes != NULL ? e->fused_aes : "aesni";
    if (rijn_aes_impl_find(aes) == NULL ||
        !rijn_impl_runnable(&rijn_aes_impl_find(aes)->base))
        aes = "ct64";
    tu_begin("ctgrind", aes);
    snprintf(name, sizeof name, "ctgrind.%s", argv[1]);
    tu_set_name(name);
    if (e == NULL) {
        tu_fail("GHASH engine %s is not compiled in", argv[1]);
        return tu_end();
    }
    for (size_t i = 0; rijn_gcm_impl_get(i, &info) == 0; i++)
        if (strcmp(info.name, argv[1]) == 0)
            tu_require_available(&info, "engine");
#ifndef RIJN_CTGRIND
    (void)rng;
    tu_fail("built without RIJN_CTGRIND: RIJN_SECRET does nothing");
    return tu_end();
#else
    tu_note("constant_time=%d", e->base.constant_time);
    tu_note("AES backend %s", aes);
    tu_rng_seed(&rng, 20261125u);
    for (size_t kl = 16; kl <= 32; kl += 8) {
        tu_rng_fill(&rng, key, kl);
        tu_rng_fill(&rng, iv, sizeof iv);
        tu_rng_fill(&rng, aad, sizeof aad);
        tu_rng_fill(&rng, pt, sizeof pt);
        /* public reference, before anything is marked */
        rijn_gcm_setkey_impl(&k, key, kl, aes, argv[1]);
        rijn_gcm_encrypt(&k, want_ct, want_tag, 16, iv, 12, aad, sizeof aad,
                         pt, sizeof pt);
        rijn_gcm_key_wipe(&k);

        RIJN_SECRET(key, kl);
        RIJN_SECRET(pt, sizeof pt);
        RIJN_SECRET(aad, sizeof aad);
        if (rijn_gcm_setkey_impl(&k, key, kl, aes, argv[1]) != 0) {
            tu_fail("key setup");
            return tu_end();
        }
        for (size_t len = 0; len <= sizeof pt; len += 61) {
            rijn_gcm_encrypt(&k, ct, tag, 16, iv, 12, aad, sizeof aad, pt,
                             len);
            if (rijn_gcm_decrypt(&k, out, tag, 16, iv, 12, aad, sizeof aad,
                                 ct, len) != 0)
                tu_fail("decrypt of its own message failed");
        }
        /* the one-shot short path (engines' oneshot kernels): partial
         * and whole blocks, AAD up to its limit (where pclmul's powers
         * run out and it reduces twice) */
        {
            static const size_t als[] = {0, 13, 64};
            static const size_t lens[] = {1, 16, 17, 49, 64, 100, 112};
            for (size_t ai = 0; ai < 3; ai++)
                for (size_t li = 0; li < 7; li++) {
                    rijn_gcm_encrypt(&k, ct, tag, 16, iv, 12, aad, als[ai],
                                     pt, lens[li]);
                    if (rijn_gcm_decrypt(&k, out, tag, 16, iv, 12, aad,
                                         als[ai], ct, lens[li]) != 0)
                        tu_fail("decrypt of its own short message failed");
                }
        }
        rijn_gcm_encrypt(&k, ct, tag, 16, iv, 12, aad, sizeof aad, pt,
                         sizeof pt);
        RIJN_PUBLIC(ct, sizeof ct);
        RIJN_PUBLIC(tag, sizeof tag);
        tu_check_eq(ct, want_ct, sizeof ct, "ciphertext");
        tu_check_eq(tag, want_tag, 16, "tag");
        /* streaming: a first piece the one-shot kernel takes whole (33),
         * and longer ones the last kernel takes whole, with a partial
         * last block (200) and without (256), then the rest: the state
         * recovered from the tag (gcm.c, reopen); decrypting from the
         * public ciphertext, verified */
        {
            static const size_t firsts[] = {33, 200, 256};
            for (size_t fi = 0; fi < 3; fi++) {
                const size_t f = firsts[fi];
                rijn_gcm_ctx c;
                int ok;
                rijn_gcm_start(&c, &k, iv, 12);
                rijn_gcm_aad(&c, aad, 5);
                rijn_gcm_aad(&c, aad + 5, sizeof aad - 5);
                rijn_gcm_encrypt_update(&c, out, pt, f);
                rijn_gcm_encrypt_update(&c, out + f, pt + f, sizeof pt - f);
                rijn_gcm_finish(&c, tag, 16);
                RIJN_PUBLIC(out, sizeof out);
                RIJN_PUBLIC(tag, sizeof tag);
                tu_check_eq(out, want_ct, sizeof out, "streaming ciphertext");
                tu_check_eq(tag, want_tag, 16, "streaming tag");
                rijn_gcm_start(&c, &k, iv, 12);
                rijn_gcm_aad(&c, aad, sizeof aad);
                rijn_gcm_decrypt_update(&c, out, want_ct, f);
                rijn_gcm_decrypt_update(&c, out + f, want_ct + f,
                                        sizeof pt - f);
                ok = rijn_gcm_verify(&c, want_tag, 16) == 0;
                RIJN_PUBLIC(&ok, sizeof ok);
                if (!ok)
                    tu_fail("streaming decryption, first piece %zu", f);
            }
        }
        rijn_gcm_key_wipe(&k);
        RIJN_PUBLIC(key, kl);
        RIJN_PUBLIC(pt, sizeof pt);
        RIJN_PUBLIC(aad, sizeof aad);
    }
    return tu_end();
#endif
}
