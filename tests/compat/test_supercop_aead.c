/*
 * Tests of the SUPERCOP crypto_aead shim (rijn_supercop) on the backend
 * named by RIJN_IMPL:
 *   - the GCM specification's test cases with 96-bit IVs (2, 3, 4 for
 *     AES-128, 14, 15, 16 for AES-256) through crypto_aead_aes*gcmv1:
 *     ciphertext || tag, clen, and decryption back;
 *   - every single-bit flip of a sealed message is rejected, m all zero;
 *   - random messages (0..300 bytes, AAD 0..40) against rijn_gcm_seal with
 *     the ref backend and engine, in place too.
 * Usage: test_supercop_aead
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat_test.h"
#include "crypto_aead_aes128gcmv1.h"
#include "crypto_aead_aes256gcmv1.h"

#define SUITE "supercop_aead"

typedef int (*enc_fn)(unsigned char *, unsigned long long *,
                      const unsigned char *, unsigned long long,
                      const unsigned char *, unsigned long long,
                      const unsigned char *, const unsigned char *,
                      const unsigned char *);
typedef int (*dec_fn)(unsigned char *, unsigned long long *, unsigned char *,
                      const unsigned char *, unsigned long long,
                      const unsigned char *, unsigned long long,
                      const unsigned char *, const unsigned char *);

static const struct {
    size_t keybytes;
    enc_fn enc;
    dec_fn dec;
} prims[2] = {
    {crypto_aead_aes128gcmv1_KEYBYTES, crypto_aead_aes128gcmv1_encrypt,
     crypto_aead_aes128gcmv1_decrypt},
    {crypto_aead_aes256gcmv1_KEYBYTES, crypto_aead_aes256gcmv1_encrypt,
     crypto_aead_aes256gcmv1_decrypt},
};

/* McGrew-Viega appendix B (key, IV, AAD, plaintext, ciphertext || tag) */
static const struct {
    int prim;
    const char *key, *iv, *aad, *pt, *ct;
} kat[] = {
    {0, "00000000000000000000000000000000", "000000000000000000000000", "",
     "00000000000000000000000000000000",
     "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf"},
    {0, "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888", "",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c"
     "95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514"
     "b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985"
     "4d5c2af327cd64a62cf35abd2ba6fab4"},
    {0, "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
     "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c"
     "95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514"
     "b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
     "5bc94fbc3221a5db94fae95ae7121a47"},
    {1, "0000000000000000000000000000000000000000000000000000000000000000",
     "000000000000000000000000", "", "00000000000000000000000000000000",
     "cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919"},
    {1, "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
     "cafebabefacedbaddecaf888", "",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c"
     "95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e"
     "48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"
     "b094dac5d93471bdec1a502270e3cc6c"},
    {1, "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
     "cafebabefacedbaddecaf888", "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c"
     "95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e"
     "48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
     "76fc6ece0f4e1768cddf8853bb2d551b"},
};

static int all_zero(const uint8_t *p, size_t n)
{
    uint8_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= p[i];
    return d == 0;
}

int main(void)
{
    uint8_t key[32], iv[12], aad[64], pt[400], ct[416], m[416];
    unsigned long long clen, mlen;

    ct_begin(SUITE);
    for (size_t t = 0; t < sizeof kat / sizeof kat[0]; t++) {
        const int p = kat[t].prim;
        long kl = tu_unhex(key, sizeof key, kat[t].key);
        long al = tu_unhex(aad, sizeof aad, kat[t].aad);
        long pl = tu_unhex(pt, sizeof pt, kat[t].pt);
        long cl = tu_unhex(m, sizeof m, kat[t].ct);
        tu_unhex(iv, sizeof iv, kat[t].iv);
        if (kl != (long)prims[p].keybytes || cl != pl + 16) {
            ct_check(0, "test vector lengths", kat[t].ct);
            continue;
        }
        ct_check(prims[p].enc(ct, &clen, pt, (unsigned long long)pl, aad,
                              (unsigned long long)al, NULL, iv, key) == 0 &&
                     clen == (unsigned long long)cl &&
                     memcmp(ct, m, (size_t)cl) == 0,
                 "encrypt: GCM spec known answer", kat[t].ct);
        ct_check(prims[p].dec(m, &mlen, NULL, ct, clen, aad,
                              (unsigned long long)al, iv, key) == 0 &&
                     mlen == (unsigned long long)pl &&
                     memcmp(m, pt, (size_t)pl) == 0,
                 "decrypt: GCM spec known answer", kat[t].pt);
    }
    /* bit flips: rejected, m wiped */
    for (int p = 0; p < 2; p++) {
        int bad = 0;
        tu_rng_fill(&ct_rng, key, prims[p].keybytes);
        tu_rng_fill(&ct_rng, pt, 40);
        prims[p].enc(ct, &clen, pt, 40, aad, 9, NULL, iv, key);
        for (size_t bit = 0; bit < 8 * clen; bit++) {
            ct[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            memset(m, 0xaa, sizeof m);
            bad |= prims[p].dec(m, &mlen, NULL, ct, clen, aad, 9, iv, key) !=
                       -1 ||
                   !all_zero(m, 40);
            ct[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        ct_check(!bad, "every bit flip rejected, output zeroed", NULL);
    }
    /* random messages against rijn_gcm_seal on the oracle pairing */
    for (int i = 0; i < 400; i++) {
        const int p = i & 1;
        size_t len = (size_t)tu_rng_below(&ct_rng, 301);
        size_t al = (size_t)tu_rng_below(&ct_rng, 41);
        rijn_gcm_key o;
        tu_rng_fill(&ct_rng, key, prims[p].keybytes);
        tu_rng_fill(&ct_rng, iv, sizeof iv);
        tu_rng_fill(&ct_rng, aad, al);
        tu_rng_fill(&ct_rng, pt, len);
        rijn_gcm_setkey_impl(&o, key, prims[p].keybytes, "ref", "ref");
        rijn_gcm_seal(&o, m, 16, iv, 12, aad, al, pt, len);
        rijn_gcm_key_wipe(&o);
        memcpy(ct, pt, len); /* in place */
        if (!ct_check(prims[p].enc(ct, &clen, ct, len, aad, al, NULL, iv,
                                   key) == 0 &&
                          clen == len + 16 && memcmp(ct, m, len + 16) == 0,
                      "random message against the oracle", NULL))
            break;
        if (!ct_check(prims[p].dec(ct, &mlen, NULL, ct, clen, aad, al, iv,
                                   key) == 0 &&
                          mlen == len && memcmp(ct, pt, len) == 0,
                      "in-place decryption", NULL))
            break;
    }
    return tu_end();
}
