/*
 * stackwipe: the wipe policy of rijn.h, checked where a test can see it.
 *
 *   test_stackwipe BACKEND
 *
 * Every library function wipes the buffers it declares for key material,
 * keystream or MAC state before it returns. After each call below (AES key
 * setup, ECB, one-shot and streaming CTR at lengths that leave partial
 * batches and blocks, Poly1305-AES, and AES-GCM: key setup, one-shot
 * encrypt, decrypt and a failing decrypt, streaming encrypt and decrypt in
 * three pieces, over 1..1039 bytes, with the GHASH engine a key for BACKEND
 * pairs with and, for ct64, the portable engines too), a probe function
 * that occupies the same stack the call used scans it for what must not
 * be left there:
 *   - the key's first 12 bytes (AES round key 0 is the key: a backend that
 *     keeps rk[0] ^ counter or rk[0] ^ block index in a buffer leaves 12
 *     or more key bytes as they are), and every other round key in the
 *     standard byte order (one gives an AES-128 key; the x86 backends
 *     keep them so, and copies the compiler spills of a ZMM or YMM of
 *     them, as gcc and clang did in the VAES GCM kernels, show here);
 *   - any keystream block the call made but did not use (the rest of a
 *     4- or 8-block batch, the tail of a partial block when it is 8 bytes
 *     or more), and the AES of a Poly1305-AES nonce;
 *   - for GCM also H = E_K(0) (the GHASH key), E_K(J0) (the tag mask) and
 *     the GHASH value the mask is added to (it gives the mask to anyone
 *     with the tag), and blocks of the plaintext and the ciphertext
 *     XORed with the last round key (VAESENCLAST's operand in the x86
 *     kernels, which kept the decrypted blocks so in a buffer: with the
 *     ciphertext, that gives the last round key);
 * computed independently (ref ECB over the test's own counter blocks).
 * Copies the compiler spills to the stack on its own are covered by the
 * policy too (rijn.h: a backend clears what its compiled code copies to
 * the stack), and they show here: the fix is to keep them in a buffer the
 * function wipes (vpclmul-avx2's fused loop), or to run the kernel in a
 * function of its own and clear the stack below after it
 * (rijn_stack_burn: ref, altivec-vperm, altivec, vpmsum). Values left in registers are
 * outside it and must not show: see below. Not run under sanitizers (their
 * stack layout is not the real one) or valgrind (it would flag the scan's
 * reads of dead stack as uninitialised, which they are meant to be).
 *
 * Between clear_stack() and scan_stack() only the library runs: the
 * message naming the case is formatted before clear_stack(), and the key
 * is set up with rijn_aes_setkey_impl() directly (its backend is checked
 * after a scan). Key setup is also scanned alone, since the frames of the
 * calls after it overwrite what it left.
 *
 * Why: the test used to format the message with snprintf() after the
 * library call, before the scan, and failed on aarch64 (armv8 and ct64:
 * the key's first 12 bytes and unused keystream 160..176 bytes below
 * run()'s frame, for some key sizes and lengths, depending on the build).
 * That was snprintf()'s own frame: it is variadic, and on AArch64 a
 * variadic function's prologue stores the vector argument registers
 * q0-q7 in its frame whatever they hold. They held what the library's
 * last SIMD code left in those caller-saved registers (armv8's round key
 * 0 and partial block, ct64's keystream as gcc vectorises it), which the
 * policy leaves alone; zeroing q0-q7 before the snprintf() made those
 * failures go away. On x86-64 snprintf() stores no xmm register (%al =
 * 0), hence no failure there. (tu_setkey() was in the window too; it was
 * not involved, but it now stays out.) The snprintf() frame also hid
 * what it overwrote: without it, altivec-vperm's ECB on ppc64le showed
 * the key (gcc moves round key 0 through a stack slot; fixed in
 * src/aes/ppc/altivec_vperm.c). And a real leak showed with or without
 * it: ppc8's key setup on big-endian POWER8 left round key 0, the key,
 * in a stack temporary (fixed in src/aes/ppc/ppc8.c). This version
 * reports both when the fixes are undone, and planted leaks (ctr.c's
 * partial block not wiped; an unwiped copy of the key in ct64's key
 * setup).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ghash/ghash.h"
#include "internal.h"
#include "rijn_poly1305.h"
#include "testutil.h"

#define PROBE_BYTES 32768

/* Called where the library's calls ran: never inlined or cloned. */
#if defined(__clang__)
#define STACK_FN __attribute__((noinline))
#elif defined(__GNUC__)
#define STACK_FN __attribute__((noinline, noclone))
#else
#define STACK_FN
#endif

/* What must not be on the stack: up to 64 patterns of 16 bytes (or of
 * `len` bytes). */
static struct {
    uint8_t bytes[16];
    size_t len;
    char what[96];
} secrets[256];
static size_t nsecrets;

static void secret(const uint8_t *p, size_t len, const char *what)
{
    if (nsecrets < sizeof secrets / sizeof secrets[0]) {
        memcpy(secrets[nsecrets].bytes, p, len);
        secrets[nsecrets].len = len;
        snprintf(secrets[nsecrets].what, sizeof secrets[0].what, "%s", what);
        nsecrets++;
    }
}

/*
 * The key: its first 12 bytes (round key 0) and round keys 1..Nr, each of
 * which gives the key (AES-128's schedule runs backwards from any round
 * key; two adjacent ones do for AES-192 and AES-256), from ref's schedule
 * (round r as bytes at rk + 16 r).
 */
static void key_secrets(const uint8_t *key, size_t kl)
{
    static const char *const names[15] = {
        NULL, "round key 1", "round key 2", "round key 3", "round key 4",
        "round key 5", "round key 6", "round key 7", "round key 8",
        "round key 9", "round key 10", "round key 11", "round key 12",
        "round key 13", "round key 14"};
    rijn_aes_key x;

    secret(key, 12, "the key's first 12 bytes");
    if (rijn_aes_setkey_impl(&x, key, kl, "ref") != 0)
        abort();
    for (unsigned r = 1; r <= (unsigned)(6 + kl / 4); r++)
        secret((const uint8_t *)x.rk + 16 * r, 16, names[r]);
    rijn_aes_key_wipe(&x);
}

/*
 * The probe: its frame starts where the previous call's did (same caller,
 * same stack pointer), and its array covers the 32 KiB below. The bytes
 * are read through a volatile pointer: they are whatever the last call
 * left, which is the point. Returns the number of secrets found.
 */
STACK_FN static unsigned scan_stack(const char *after)
{
    unsigned char probe[PROBE_BYTES];
    const volatile unsigned char *v = probe;
    static unsigned char copy[PROBE_BYTES];
    unsigned found = 0;

    for (size_t i = 0; i < PROBE_BYTES; i++)
        copy[i] = v[i];
    for (size_t s = 0; s < nsecrets; s++) {
        size_t len = secrets[s].len;
        for (size_t i = 0; i + len <= PROBE_BYTES; i++) {
            if (copy[i] == secrets[s].bytes[0] &&
                memcmp(copy + i, secrets[s].bytes, len) == 0) {
                tu_fail("after %s: %s left on the stack (%zu bytes, "
                        "at probe offset %zu)", after, secrets[s].what, len,
                        i);
                found++;
                break;
            }
        }
    }
    /* The probe itself leaves nothing: wipe what it copied. */
    memset(copy, 0, sizeof copy);
    return found;
}

/* Clean the stack region before a call, so that only that call's leftovers
 * can be found. Nothing but library calls may run between this and
 * scan_stack() (see the top of the file). */
STACK_FN static void clear_stack(void)
{
    unsigned char z[PROBE_BYTES];
    rijn_burn(z, sizeof z);
}

/* Key setup by the library alone (tu_setkey would run its checks before
 * the scan); key_is() checks the backend the key reports, after a scan. */
static int setkey(rijn_aes_key *k, const uint8_t *key, size_t kl,
                  const char *backend)
{
    if (rijn_aes_setkey_impl(k, key, kl, backend) != 0) {
        tu_fail("rijn_aes_setkey_impl(key_len=%zu, \"%s\") returned -1", kl,
                backend);
        return -1;
    }
    return 0;
}

static void key_is(const rijn_aes_key *k, const char *backend)
{
    const char *got = rijn_aes_key_impl(k);

    if (got == NULL || strcmp(got, backend) != 0)
        tu_fail("key set up for \"%s\" reports backend \"%s\"", backend,
                got ? got : "(null)");
}

/* Keystream block E(ctr + i) for the 128-bit big-endian counter. */
static void keystream(const uint8_t *key, size_t kl, const uint8_t iv[16],
                      uint64_t i, uint8_t out[16])
{
    rijn_aes_key ref;
    uint8_t c[16];

    memcpy(c, iv, 16);
    tu_ctr_add(c, i);
    if (rijn_aes_setkey_impl(&ref, key, kl, "ref") != 0)
        abort();
    rijn_aes_encrypt_blocks(&ref, out, c, 1);
    rijn_aes_key_wipe(&ref);
}

static void run(const char *backend, size_t kl, tu_rng *rng)
{
    uint8_t key[32], iv[16], in[1024], out[1024], ks[16];
    char what[64];
    rijn_aes_key k;
    rijn_aes_ctr_ctx c;
    static const size_t lens[] = {1, 15, 16, 17, 40, 63, 65, 100, 129, 255,
                                  257, 383, 385, 511, 700, 1000};

    tu_rng_fill(rng, key, kl);
    tu_rng_fill(rng, in, sizeof in);
    memset(iv, 0, sizeof iv);
    /* a counter that does not start a batch: batches of 4, 8, 16, 24 and
     * 32 blocks all have unused blocks at the end */
    iv[15] = 0x05;

    /* Key setup alone (the calls after it would overwrite what it left),
     * and the backend the key reports. */
    nsecrets = 0;
    key_secrets(key, kl);
    snprintf(what, sizeof what, "AES-%zu key setup", 8 * kl);
    clear_stack();
    if (setkey(&k, key, kl, backend) != 0)
        return;
    if (scan_stack(what) == 0)
        tu_pass();
    key_is(&k, backend);
    rijn_aes_key_wipe(&k);

    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t len = lens[li], used = (len + 15) / 16;

        nsecrets = 0;
        key_secrets(key, kl);
        /* the blocks after the message, up to 40 (a 32-block batch plus
         * the alignment head of vaes-avx2), and the partial block's rest */
        for (uint64_t i = used; i < used + 40; i++) {
            keystream(key, kl, iv, i, ks);
            snprintf(what, sizeof what, "unused keystream block %u",
                     (unsigned)i);
            secret(ks, 16, what);
        }
        /* (a shorter pattern would match somewhere by chance) */
        if (len % 16 != 0 && len % 16 <= 8) {
            keystream(key, kl, iv, used - 1, ks);
            secret(ks + len % 16, 16 - len % 16,
                   "unused keystream of the partial block");
        }
        rijn_burn(ks, sizeof ks);

        snprintf(what, sizeof what, "AES-%zu setkey + one-shot CTR of %zu B",
                 8 * kl, len);
        clear_stack();
        if (setkey(&k, key, kl, backend) != 0)
            return;
        rijn_aes_ctr_key(&k, out, in, len, iv);
        if (scan_stack(what) == 0)
            tu_pass();

        snprintf(what, sizeof what, "AES-%zu streaming CTR of %zu B", 8 * kl,
                 len);
        clear_stack();
        rijn_aes_ctr_init_impl(&c, key, kl, iv, backend);
        rijn_aes_ctr_xor(&c, out, in, len);
        if (scan_stack(what) == 0)
            tu_pass();
        rijn_aes_ctr_wipe(&c);
        rijn_aes_key_wipe(&k);
    }

    /* ECB of 1..9 blocks: nothing but the output may remain. */
    nsecrets = 0;
    key_secrets(key, kl);
    snprintf(what, sizeof what, "AES-%zu ECB of 1..9 blocks", 8 * kl);
    clear_stack();
    if (setkey(&k, key, kl, backend) != 0)
        return;
    for (size_t n = 1; n <= 9; n++)
        rijn_aes_encrypt_blocks(&k, out, in, n);
    if (scan_stack(what) == 0)
        tu_pass();
    rijn_aes_key_wipe(&k);
}

/* GCM keystream block i of the data: E(J0 + 1 + i) for a 12-byte IV, J0 =
 * iv || 00000001, only the low 32 bits stepping (inc32; no wrap here). */
static void gcm_keystream(const rijn_aes_key *ref, const uint8_t iv[12],
                          uint32_t i, uint8_t out[16])
{
    uint8_t c[16];

    memcpy(c, iv, 12);
    rijn_store32_be(c + 12, 1 + i);
    rijn_aes_encrypt_blocks(ref, out, c, 1);
}

/*
 * AES-GCM on one AES backend and GHASH engine: key setup alone, then per
 * length one-shot encrypt, decrypt, a decrypt that fails, and streaming
 * encryption and decryption in three pieces; after each, the stack must
 * hold none of: the key's first 12 bytes, H = E_K(0) (the GHASH key),
 * E_K(J0) (the tag mask), the GHASH value the mask is added to (tag ^
 * E_K(J0), which gives the mask to anyone with the tag), and the unused
 * keystream after the message (up to 40 blocks: a 32-block batch and
 * more) and of its partial block.
 */
static void run_gcm(const char *backend, const char *engine, size_t kl,
                    tu_rng *rng)
{
    uint8_t key[32], iv[12], aad[20], in[1100], out[1100], ct[1100];
    uint8_t tag[16], bad[16], blk[16];
    char what[96];
    rijn_gcm_key gk;
    rijn_gcm_ctx c;
    rijn_aes_key ref;
    static const uint8_t zero[16];
    static const size_t lens[] = {1, 15, 16, 17, 64, 100, 129, 257, 511,
                                  512, 513, 545, 1000, 1039};

    tu_rng_fill(rng, key, kl);
    tu_rng_fill(rng, iv, sizeof iv);
    tu_rng_fill(rng, aad, sizeof aad);
    tu_rng_fill(rng, in, sizeof in);
    if (rijn_aes_setkey_impl(&ref, key, kl, "ref") != 0)
        abort();

    nsecrets = 0;
    key_secrets(key, kl);
    rijn_aes_encrypt_blocks(&ref, blk, zero, 1);
    secret(blk, 16, "H = E_K(0), the GHASH key");
    snprintf(what, sizeof what, "AES-%zu GCM key setup (%s+%s)", 8 * kl,
             backend, engine);
    clear_stack();
    if (rijn_gcm_setkey_impl(&gk, key, kl, backend, engine) != 0) {
        tu_fail("rijn_gcm_setkey_impl(%zu, \"%s\", \"%s\") returned -1", kl,
                backend, engine);
        goto out;
    }
    if (scan_stack(what) == 0)
        tu_pass();
    if (strcmp(rijn_aes_key_impl(&gk.aes), backend) != 0 ||
        strcmp(rijn_gcm_key_ghash(&gk), engine) != 0)
        tu_fail("GCM key set up for %s+%s reports %s+%s", backend, engine,
                rijn_aes_key_impl(&gk.aes), rijn_gcm_key_ghash(&gk));

    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t len = lens[li], used = (len + 15) / 16;
        size_t cut1 = len / 3, cut2 = len / 3 + len / 4 + 1;
        uint8_t ek0[16];

        /* the message's ciphertext and tag, and a wrong tag, first */
        if (rijn_gcm_encrypt(&gk, ct, tag, 16, iv, 12, aad, sizeof aad, in,
                             len) != 0) {
            tu_fail("GCM encrypt of %zu bytes failed", len);
            break;
        }
        memcpy(bad, tag, 16);
        bad[15] ^= 1;

        nsecrets = 0;
        key_secrets(key, kl);
        rijn_aes_encrypt_blocks(&ref, blk, zero, 1);
        secret(blk, 16, "H = E_K(0), the GHASH key");
        gcm_keystream(&ref, iv, 0, ek0);
        secret(ek0, 16, "E_K(J0), the tag mask");
        rijn_xor_bytes(blk, tag, ek0, 16);
        secret(blk, 16, "the GHASH value under the tag mask");
        for (uint32_t i = (uint32_t)used; i < used + 40; i++) {
            gcm_keystream(&ref, iv, 1 + i, blk);
            snprintf(what, sizeof what, "unused keystream block %u",
                     (unsigned)i);
            secret(blk, 16, what);
        }
        if (len % 16 != 0 && len % 16 <= 8) {
            gcm_keystream(&ref, iv, (uint32_t)used, blk);
            secret(blk + len % 16, 16 - len % 16,
                   "unused keystream of the partial block");
        }
        /* an input block XORed with the last round key (the operand of
         * VAESENCLAST in the VAES kernels), which gives that key to
         * anyone with the block: up to 64 blocks of the plaintext and of
         * the ciphertext */
        {
            static const char *const which[2] = {
                "a plaintext block ^ the last round key",
                "a ciphertext block ^ the last round key"};
            /* ref's schedule: round r as bytes at rk + 16 r */
            const uint8_t *last = (const uint8_t *)ref.rk + 16 * (6 + kl / 4);

            for (size_t i = 0; i < len / 16 && i < 64; i++) {
                rijn_xor_bytes(blk, in + 16 * i, last, 16);
                secret(blk, 16, which[0]);
                rijn_xor_bytes(blk, ct + 16 * i, last, 16);
                secret(blk, 16, which[1]);
            }
        }
        rijn_burn(blk, sizeof blk);
        rijn_burn(ek0, sizeof ek0);

        snprintf(what, sizeof what, "AES-%zu GCM (%s+%s) encrypt of %zu B",
                 8 * kl, backend, engine, len);
        clear_stack();
        rijn_gcm_encrypt(&gk, out, tag, 16, iv, 12, aad, sizeof aad, in, len);
        if (scan_stack(what) == 0)
            tu_pass();

        snprintf(what, sizeof what, "AES-%zu GCM (%s+%s) decrypt of %zu B",
                 8 * kl, backend, engine, len);
        clear_stack();
        if (rijn_gcm_decrypt(&gk, out, tag, 16, iv, 12, aad, sizeof aad, ct,
                             len) != 0)
            tu_fail("%s: the tag does not verify", what);
        else if (scan_stack(what) == 0)
            tu_pass();

        snprintf(what, sizeof what,
                 "AES-%zu GCM (%s+%s) failing decrypt of %zu B", 8 * kl,
                 backend, engine, len);
        clear_stack();
        if (rijn_gcm_decrypt(&gk, out, bad, 16, iv, 12, aad, sizeof aad, ct,
                             len) != -1)
            tu_fail("%s: a wrong tag verifies", what);
        else if (scan_stack(what) == 0)
            tu_pass();

        snprintf(what, sizeof what,
                 "AES-%zu GCM (%s+%s) streaming encrypt of %zu B in "
                 "%zu+%zu+%zu", 8 * kl, backend, engine, len, cut1,
                 cut2 - cut1, len - cut2);
        clear_stack();
        rijn_gcm_start(&c, &gk, iv, 12);
        rijn_gcm_aad(&c, aad, 7);
        rijn_gcm_aad(&c, aad + 7, sizeof aad - 7);
        rijn_gcm_encrypt_update(&c, out, in, cut1);
        rijn_gcm_encrypt_update(&c, out + cut1, in + cut1, cut2 - cut1);
        rijn_gcm_encrypt_update(&c, out + cut2, in + cut2, len - cut2);
        rijn_gcm_finish(&c, tag, 16);
        if (scan_stack(what) == 0)
            tu_pass();

        snprintf(what, sizeof what,
                 "AES-%zu GCM (%s+%s) streaming decrypt of %zu B in "
                 "%zu+%zu+%zu", 8 * kl, backend, engine, len, cut1,
                 cut2 - cut1, len - cut2);
        clear_stack();
        rijn_gcm_start(&c, &gk, iv, 12);
        rijn_gcm_aad(&c, aad, sizeof aad);
        rijn_gcm_decrypt_update(&c, out, ct, cut1);
        rijn_gcm_decrypt_update(&c, out + cut1, ct + cut1, cut2 - cut1);
        rijn_gcm_decrypt_update(&c, out + cut2, ct + cut2, len - cut2);
        if (rijn_gcm_verify(&c, tag, 16) != 0)
            tu_fail("%s: the tag does not verify", what);
        else if (scan_stack(what) == 0)
            tu_pass();
    }
    rijn_gcm_key_wipe(&gk);
out:
    rijn_aes_key_wipe(&ref);
}

/* GCM with the engine a key for this backend pairs with (as
 * rijn_gcm_setkey picks it), and with ct64 also every engine no backend
 * is fused with (ctmul64, ctmul32: the portable ones) that this CPU runs;
 * not the ref engine (variable time, a test oracle). */
static void run_gcm_all(const char *backend, tu_rng *rng)
{
    const rijn_ghash_engine *paired = rijn_ghash_for(backend);
    rijn_impl_info info;

    if (paired == NULL) {
        tu_fail("no GHASH engine pairs with %s", backend);
        return;
    }
    for (size_t kl = 16; kl <= 32; kl += 8)
        run_gcm(backend, paired->base.name, kl, rng);
    if (strcmp(backend, "ct64") != 0)
        return;
    for (size_t i = 0; rijn_gcm_impl_get(i, &info) == 0; i++) {
        const rijn_ghash_engine *e = rijn_ghash_find(info.name);
        if (e == NULL || e == paired || e->fused_aes != NULL ||
            !info.available || strcmp(info.name, "ref") == 0)
            continue;
        run_gcm(backend, info.name, 16, rng);
        run_gcm(backend, info.name, 32, rng);
    }
}

/* Poly1305-AES: the AES of the nonce and the key must not remain. */
static void run_mac(tu_rng *rng)
{
    uint8_t kr[32], n[16], m[300], tag[16], pad[16];
    rijn_aes_key k;

    tu_rng_fill(rng, kr, sizeof kr);
    tu_rng_fill(rng, n, sizeof n);
    tu_rng_fill(rng, m, sizeof m);
    rijn_poly1305aes_clamp(kr);
    if (rijn_aes_setkey_impl(&k, kr, 16, "ref") != 0)
        abort();
    rijn_aes_encrypt_blocks(&k, pad, n, 1);
    rijn_aes_key_wipe(&k);
    nsecrets = 0;
    secret(pad, 16, "AES_k(n) of Poly1305-AES");
    secret(kr, 12, "the AES key k");
    secret(kr + 16, 12, "r");
    rijn_burn(pad, sizeof pad);
    for (size_t len = 0; len <= sizeof m; len += 37) {
        clear_stack();
        rijn_poly1305aes_authenticate(tag, kr, n, m, len);
        if (scan_stack("Poly1305-AES authenticate") == 0)
            tu_pass();
    }
}

int main(int argc, char **argv)
{
    uint64_t seed = tu_seed_from_args(&argc, argv);
    tu_rng rng;

    if (argc != 2) {
        fprintf(stderr, "usage: test_stackwipe BACKEND [--seed N]\n");
        return 2;
    }
    tu_begin("stackwipe", argv[1]);
    tu_rng_seed(&rng, seed);
    run(argv[1], 16, &rng);
    run(argv[1], 24, &rng);
    run(argv[1], 32, &rng);
    run_gcm_all(argv[1], &rng);
    /* Poly1305-AES uses the default backend and engine; run it once,
     * with the test of the default backend. */
    if (strcmp(argv[1], rijn_impl_default()) == 0)
        run_mac(&rng);
    return tu_end();
}
