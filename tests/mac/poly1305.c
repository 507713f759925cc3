/*
 * Poly1305 / Poly1305-AES suite, run once per engine:
 *
 *   test_poly1305 ENGINE VECTOR_DIR [--long] [--seed N]
 *
 * ENGINE is forced for the whole process (RIJN_POLY1305_IMPL) or
 * "default". Checks: the 4 examples of the Poly1305-AES paper (one-shot,
 * verify, incremental); Bernstein's stress procedure with the md5 of its
 * first 10,010 lines (with --long: of its first 1,234,567 lines, and
 * nothing else); BoringSSL's raw Poly1305 vectors (one-shot and
 * incremental, several splits); long all-0xff keys and messages; this
 * engine against poly32 (the simplest engine) on random keys and every
 * length 0..4096 and around the SIMD batch sizes; the incremental API at
 * every split point of a set of lengths and on random multi-way splits;
 * verify (rijn_poly1305aes_verify, and the raw rijn_poly1305_verify,
 * which must also accept every vector file's tag) returns exactly 1 for
 * the right tag and 0 for every single-bit change of the tag and of the
 * message.
 *
 *   test_poly1305 dispatch EXPECT   the engine pick (see dispatch_main)
 *   test_poly1305 aes-fail          Poly1305-AES without an AES backend
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutil.h"

static const char *g_dir;

/* ---- the paper's examples ----------------------------------------------- */
static void test_paper(void)
{
    char *text = mt_read_file(g_dir, "poly1305aes_paper_examples.json");
    const char *pos = text;
    uint8_t kr[32], n[16], m[256], tag[16], want[16], aes[16], got[16];
    int count = 0;

    for (;;) {
        long ml;
        rijn_poly1305_ctx ctx;
        rijn_aes_key ak;
        char what[64];

        if (mt_json_hex(&pos, "k", kr, 16) != 16)
            break;
        if (mt_json_hex(&pos, "r", kr + 16, 16) != 16 ||
            mt_json_hex(&pos, "n", n, 16) != 16 ||
            (ml = mt_json_hex(&pos, "m", m, sizeof m)) < 0 ||
            mt_json_hex(&pos, "aes_k_n", aes, 16) != 16 ||
            mt_json_hex(&pos, "tag", want, 16) != 16) {
            mt_fail("paper example %d: cannot parse", count + 1);
            break;
        }
        count++;
        snprintf(what, sizeof what, "paper example %d AES_k(n)", count);
        if (rijn_aes_setkey(&ak, kr, 16) != 0) {
            mt_fail("%s: AES key setup failed", what);
        } else {
            rijn_aes_encrypt_blocks(&ak, got, n, 1);
            mt_eq(got, aes, 16, what);
            rijn_aes_key_wipe(&ak);
        }
        snprintf(what, sizeof what, "paper example %d authenticate", count);
        if (rijn_poly1305aes_authenticate(tag, kr, n, m, (size_t)ml) != 0)
            mt_fail("%s: returned -1", what);
        mt_eq(tag, want, 16, what);
        if (rijn_poly1305aes_verify(want, kr, n, m, (size_t)ml) == 1)
            mt_pass();
        else
            mt_fail("paper example %d: verify rejects the tag", count);
        snprintf(what, sizeof what, "paper example %d incremental", count);
        if (rijn_poly1305aes_init(&ctx, kr, n) != 0)
            mt_fail("%s: init returned -1", what);
        for (long i = 0; i < ml; i++)
            rijn_poly1305_update(&ctx, m + i, 1);
        rijn_poly1305_final(&ctx, tag);
        mt_eq(tag, want, 16, what);
    }
    if (count != 4)
        mt_fail("paper examples: read %d, expected 4", count);
    free(text);
}

/* ---- Bernstein's stress procedure ---------------------------------------- */
static int expected_md5(const char *lines, uint8_t out[16])
{
    char *text = mt_read_file(g_dir, "poly1305aes_test_checksums.json");
    char key[64];
    const char *pos;
    long n;

    snprintf(key, sizeof key, "\"%.40s\": {", lines);
    pos = strstr(text, key);
    n = pos ? mt_json_hex(&pos, "md5", out, 16) : -1;
    free(text);
    return n == 16 ? 0 : -1;
}

/* The procedure in poly1305aes_test_checksums.json, `lines` output lines;
 * with check_verify, each tag is also verified and a corrupted one must be
 * rejected. */
static void test_stress(unsigned long lines, int check_verify)
{
    static uint8_t m[1000];
    uint8_t kr[32] = {0}, n[16] = {0}, out[16], digest[16], want[16];
    char hex[33], lname[32];
    mt_md5 md5;
    unsigned long printed = 0, loop;
    unsigned long bad_verify = 0;

    snprintf(lname, sizeof lname, "%lu", lines);
    if (expected_md5(lname, want) != 0) {
        mt_fail("no checksum for %lu lines in the vector file", lines);
        return;
    }
    memset(m, 0, sizeof m);
    mt_md5_init(&md5);
    for (loop = 0; printed < lines; loop++) {
        for (unsigned L = 0; L <= 1000 && printed < lines; L++) {
            rijn_poly1305aes_authenticate(out, kr, n, m, L);
            for (int i = 0; i < 16; i++) {
                hex[2 * i] = "0123456789abcdef"[out[i] >> 4];
                hex[2 * i + 1] = "0123456789abcdef"[out[i] & 15];
            }
            hex[32] = '\n';
            mt_md5_update(&md5, hex, 33);
            printed++;
            if (check_verify) {
                if (rijn_poly1305aes_verify(out, kr, n, m, L) != 1)
                    bad_verify++;
                out[L % 16] ^= (uint8_t)(1u << (L % 8));
                if (rijn_poly1305aes_verify(out, kr, n, m, L) != 0)
                    bad_verify++;
                out[L % 16] ^= (uint8_t)(1u << (L % 8));
            }
            if (L == 1000)
                break;
            n[0] ^= (uint8_t)loop;
            for (int i = 0; i < 16; i++)
                n[i] ^= out[i];
            if (L % 2)
                for (int i = 0; i < 16; i++)
                    kr[i] ^= out[i];
            if (L % 3)
                for (int i = 0; i < 16; i++)
                    kr[16 + i] ^= out[i];
            rijn_poly1305aes_clamp(kr);
            m[L] ^= out[0];
        }
    }
    mt_md5_final(&md5, digest);
    if (mt_eq(digest, want, 16, "stress md5"))
        mt_note("stress: md5 of the first %lu lines = %s (as published)",
                lines, tu_hex(digest, 16));
    if (check_verify) {
        if (bad_verify)
            mt_fail("stress: %lu verify results wrong", bad_verify);
        else
            mt_pass();
    }
}

/* ---- raw Poly1305 vector files ------------------------------------------ */
static void check_raw(const uint8_t key[32], const uint8_t *msg, size_t len,
                      const uint8_t mac[16], int line, void *arg)
{
    const char *file = arg;
    uint8_t tag[16];
    rijn_poly1305_ctx ctx;
    char what[128];
    size_t cuts[4] = {1, 16, 17, 64}, step;

    snprintf(what, sizeof what, "%s:%d one-shot (len %zu)", file, line, len);
    if (rijn_poly1305(tag, msg, len, key) != 0)
        mt_fail("%s: returned -1", what);
    mt_eq(tag, mac, 16, what);
    if (rijn_poly1305_verify(mac, msg, len, key) != 1)
        mt_fail("%s: rijn_poly1305_verify does not return 1 for the "
                "file's tag", what);

    rijn_poly1305_init(&ctx, key);
    rijn_poly1305_update(&ctx, msg, len);
    rijn_poly1305_final(&ctx, tag);
    snprintf(what, sizeof what, "%s:%d incremental whole", file, line);
    mt_eq(tag, mac, 16, what);

    /* fixed-size chunks; plus one byte then the rest */
    for (int c = 0; c < 4; c++) {
        step = cuts[c];
        if (len > (1u << 20) && step < 64)
            continue;
        rijn_poly1305_init(&ctx, key);
        for (size_t off = 0; off < len; off += step)
            rijn_poly1305_update(&ctx, msg + off,
                                 len - off < step ? len - off : step);
        rijn_poly1305_final(&ctx, tag);
        snprintf(what, sizeof what, "%s:%d incremental chunks of %zu", file,
                 line, step);
        mt_eq(tag, mac, 16, what);
    }
    if (len > 1) {
        rijn_poly1305_init(&ctx, key);
        rijn_poly1305_update(&ctx, msg, 1);
        rijn_poly1305_update(&ctx, msg + 1, len - 1);
        rijn_poly1305_final(&ctx, tag);
        snprintf(what, sizeof what, "%s:%d incremental 1 + rest", file, line);
        mt_eq(tag, mac, 16, what);
    }
}

static void test_raw_files(void)
{
    static const char *const files[] = {"boringssl_poly1305_tests.txt",
                                        "poly1305_long_ff.txt"};
    for (int i = 0; i < 2; i++) {
        size_t n = mt_poly_vectors(g_dir, files[i], check_raw,
                                   (void *)files[i]);
        mt_note("%s: %zu records", files[i], n);
    }
}

/* ---- against poly32, splits, verify ------------------------------------- */
static void ref_tag(uint8_t tag[16], const uint8_t *m, size_t len,
                    const uint8_t key[32])
{
    rijn_poly1305_ctx ctx;
    if (rijn_poly1305_init_impl(&ctx, key, "poly32") != 0) {
        mt_fail("poly32 unavailable");
        memset(tag, 0, 16);
        return;
    }
    rijn_poly1305_update(&ctx, m, len);
    rijn_poly1305_final(&ctx, tag);
}

static void test_against_poly32(tu_rng *rng)
{
    enum { MAXLEN = 4096 + 300 };
    static uint8_t msg[MAXLEN + 64];
    uint8_t key[32], tag[16], want[16];
    char what[96];
    unsigned long bad = 0;

    for (size_t len = 0; len <= MAXLEN; len++) {
        size_t align = (size_t)tu_rng_below(rng, 64);
        tu_rng_fill(rng, key, 32);
        if (len % 7 == 0)
            memset(key, 0xff, 32); /* largest r and s */
        tu_rng_fill(rng, msg + align, len);
        if (len % 5 == 0)
            memset(msg + align, 0xff, len);
        ref_tag(want, msg + align, len, key);
        rijn_poly1305(tag, msg + align, len, key);
        if (memcmp(tag, want, 16) != 0) {
            snprintf(what, sizeof what, "vs poly32, len %zu", len);
            mt_eq(tag, want, 16, what);
            bad++;
        }
    }
    if (bad == 0)
        mt_pass();
    mt_note("vs poly32: lengths 0..%d, %lu mismatches", MAXLEN, bad);
}

static void test_splits(tu_rng *rng)
{
    static const size_t lens[] = {0,   1,   15,  16,  17,  31,  32,  63,
                                  64,  65,  127, 128, 129, 255, 256, 257,
                                  383, 384, 511, 512, 513, 1024, 2063};
    static uint8_t msg[8192];
    uint8_t key[32], tag[16], want[16];
    rijn_poly1305_ctx ctx;
    unsigned long checks = 0, bad = 0;

    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t len = lens[li];
        tu_rng_fill(rng, key, 32);
        tu_rng_fill(rng, msg, len);
        rijn_poly1305(want, msg, len, key);
        /* every split point, two and three pieces */
        for (size_t a = 0; a <= len; a++) {
            size_t b = a + (len - a) / 3;
            rijn_poly1305_init(&ctx, key);
            rijn_poly1305_update(&ctx, msg, a);
            rijn_poly1305_update(&ctx, msg + a, len - a);
            rijn_poly1305_final(&ctx, tag);
            bad += memcmp(tag, want, 16) != 0;
            rijn_poly1305_init(&ctx, key);
            rijn_poly1305_update(&ctx, msg, a);
            rijn_poly1305_update(&ctx, msg + a, b - a);
            rijn_poly1305_update(&ctx, msg + b, len - b);
            rijn_poly1305_final(&ctx, tag);
            bad += memcmp(tag, want, 16) != 0;
            checks += 2;
            if (bad && bad == checks / 2 + 1)
                mt_fail("split of len %zu at %zu differs", len, a);
        }
    }
    /* random multi-way splits, lengths up to 8192 */
    for (int t = 0; t < 400; t++) {
        size_t len = (size_t)tu_rng_below(rng, sizeof msg + 1), off = 0;
        tu_rng_fill(rng, key, 32);
        tu_rng_fill(rng, msg, len);
        ref_tag(want, msg, len, key);
        rijn_poly1305_init(&ctx, key);
        while (off < len) {
            size_t max = tu_rng_below(rng, 4) == 0 ? 2048 : 40;
            size_t c = (size_t)tu_rng_below(rng, max + 1);
            if (c > len - off)
                c = len - off;
            rijn_poly1305_update(&ctx, msg + off, c);
            off += c;
        }
        rijn_poly1305_final(&ctx, tag);
        checks++;
        if (memcmp(tag, want, 16) != 0) {
            bad++;
            mt_fail("random split of len %zu differs from poly32", len);
        }
    }
    /* Poly1305-AES incremental at every split of a few lengths */
    {
        uint8_t kr[32], n[16];
        for (size_t li = 0; li < 12; li++) {
            size_t len = lens[li * 2];
            tu_rng_fill(rng, kr, 32);
            tu_rng_fill(rng, n, 16);
            tu_rng_fill(rng, msg, len);
            rijn_poly1305aes_authenticate(want, kr, n, msg, len);
            for (size_t a = 0; a <= len; a++) {
                rijn_poly1305aes_init(&ctx, kr, n);
                rijn_poly1305_update(&ctx, msg, a);
                rijn_poly1305_update(&ctx, msg + a, len - a);
                rijn_poly1305_final(&ctx, tag);
                checks++;
                if (memcmp(tag, want, 16) != 0) {
                    bad++;
                    mt_fail("Poly1305-AES split of len %zu at %zu", len, a);
                }
            }
        }
    }
    if (bad == 0)
        mt_pass();
    mt_note("splits: %lu incremental tags, %lu wrong", checks, bad);
    /* the context is wiped by final */
    {
        static const rijn_poly1305_ctx zero;
        rijn_poly1305_init(&ctx, key);
        rijn_poly1305_update(&ctx, msg, 100);
        rijn_poly1305_final(&ctx, tag);
        if (memcmp(&ctx, &zero, sizeof ctx) == 0)
            mt_pass();
        else
            mt_fail("rijn_poly1305_final did not wipe the context");
    }
}

static void test_verify_bits(tu_rng *rng)
{
    static const size_t lens[] = {0, 1, 16, 33, 100};
    uint8_t kr[32], n[16], msg[100], tag[16];
    unsigned long checks = 0, bad = 0;

    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t len = lens[li];
        tu_rng_fill(rng, kr, 32);
        rijn_poly1305aes_clamp(kr);
        tu_rng_fill(rng, n, 16);
        tu_rng_fill(rng, msg, len);
        rijn_poly1305aes_authenticate(tag, kr, n, msg, len);
        checks++;
        if (rijn_poly1305aes_verify(tag, kr, n, msg, len) != 1) {
            bad++;
            mt_fail("verify rejects a good tag (len %zu)", len);
        }
        for (size_t bit = 0; bit < 128; bit++) {
            tag[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            checks++;
            if (rijn_poly1305aes_verify(tag, kr, n, msg, len) != 0) {
                bad++;
                mt_fail("verify accepts tag bit %zu flipped (len %zu)", bit,
                        len);
            }
            tag[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        for (size_t bit = 0; bit < 8 * len; bit++) {
            msg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            checks++;
            if (rijn_poly1305aes_verify(tag, kr, n, msg, len) != 0) {
                bad++;
                mt_fail("verify accepts message bit %zu flipped (len %zu)",
                        bit, len);
            }
            msg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
    }
    /* a longer message or a different nonce is rejected too */
    msg[99] = 0;
    rijn_poly1305aes_authenticate(tag, kr, n, msg, 99);
    checks += 2;
    if (rijn_poly1305aes_verify(tag, kr, n, msg, 100) != 0)
        bad++;
    n[15] ^= 0x80;
    if (rijn_poly1305aes_verify(tag, kr, n, msg, 99) != 0)
        bad++;
    if (bad == 0)
        mt_pass();
    mt_note("verify: %lu checks (every tag and message bit flipped), %lu "
            "wrong", checks, bad);
}

/* rijn_poly1305_verify (raw, one-time key): exactly 1 for the right tag,
 * exactly 0 for every single-bit flip of the tag and of the message. */
static void test_raw_verify_bits(tu_rng *rng)
{
    static const size_t lens[] = {0, 1, 15, 16, 17, 64, 100};
    uint8_t key[32], msg[100], tag[16];
    unsigned long checks = 0, bad = 0;

    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        size_t len = lens[li];
        int r;
        tu_rng_fill(rng, key, 32);
        tu_rng_fill(rng, msg, len);
        if (rijn_poly1305(tag, msg, len, key) != 0)
            mt_fail("rijn_poly1305 returned -1 (len %zu)", len);
        checks++;
        if ((r = rijn_poly1305_verify(tag, msg, len, key)) != 1) {
            bad++;
            mt_fail("rijn_poly1305_verify returns %d for a good tag "
                    "(len %zu), not 1", r, len);
        }
        for (size_t bit = 0; bit < 128; bit++) {
            tag[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            checks++;
            if ((r = rijn_poly1305_verify(tag, msg, len, key)) != 0) {
                bad++;
                mt_fail("rijn_poly1305_verify returns %d with tag bit %zu "
                        "flipped (len %zu), not 0", r, bit, len);
            }
            tag[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        for (size_t bit = 0; bit < 8 * len; bit++) {
            msg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            checks++;
            if (rijn_poly1305_verify(tag, msg, len, key) != 0) {
                bad++;
                mt_fail("rijn_poly1305_verify accepts message bit %zu "
                        "flipped (len %zu)", bit, len);
            }
            msg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        /* the tag under a changed key is rejected: r (byte 0, which the
         * clamp keeps) once there is a block, s always */
        for (size_t half = len == 0; half < 2; half++) {
            key[16 * half] ^= 1;
            checks++;
            if (rijn_poly1305_verify(tag, msg, len, key) != 0) {
                bad++;
                mt_fail("rijn_poly1305_verify accepts the tag under a "
                        "changed key (byte %zu, len %zu)", 16 * half, len);
            }
            key[16 * half] ^= 1;
        }
    }
    if (bad == 0)
        mt_pass();
    mt_note("raw verify: %lu checks (every tag and message bit flipped), "
            "%lu wrong", checks, bad);
}

/* Every Poly1305-AES call fails as documented (no usable engine or AES
 * backend): authenticate -1 with a zero tag, verify 0, init -1 and a zero
 * tag from the final of that context. */
static void poly1305aes_refused(const uint8_t kr[32], const uint8_t n[16],
                                const uint8_t *m, size_t len)
{
    uint8_t tag[16], zero[16] = {0};
    rijn_poly1305_ctx ctx;

    memset(tag, 0xaa, 16);
    if (rijn_poly1305aes_authenticate(tag, kr, n, m, len) == -1 &&
        memcmp(tag, zero, 16) == 0)
        mt_pass();
    else
        mt_fail("poly1305aes_authenticate did not fail with a zero tag");
    if (rijn_poly1305aes_verify(zero, kr, n, m, len) == 0 &&
        rijn_poly1305aes_verify(tag, kr, n, m, len) == 0)
        mt_pass();
    else
        mt_fail("poly1305aes_verify accepted a tag it could not compute");
    memset(tag, 0xaa, 16);
    if (rijn_poly1305aes_init(&ctx, kr, n) == -1)
        mt_pass();
    else
        mt_fail("poly1305aes_init did not fail");
    rijn_poly1305_update(&ctx, m, len);
    rijn_poly1305_final(&ctx, tag);
    if (memcmp(tag, zero, 16) == 0)
        mt_pass();
    else
        mt_fail("final of the failed Poly1305-AES context wrote a nonzero "
                "tag");
}

/*
 * test_poly1305 aes-fail: run with RIJN_IMPL naming an unusable AES
 * backend (set by ctest): the Poly1305-AES calls fail as documented
 * (authenticate -1 with a zero tag, verify 0, init -1, final of that
 * context a zero tag) while raw Poly1305, which has no AES, still works.
 */
static int aes_fail_main(void)
{
    static const uint8_t kr[32], n[16], m[40];
    uint8_t good[16];

    mt_rename("poly1305_dispatch");
    if (rijn_impl_default() == NULL)
        mt_pass();
    else
        mt_fail("AES backend %s is usable: the test needs RIJN_IMPL to "
                "name one that is not", rijn_impl_default());
    poly1305aes_refused(kr, n, m, sizeof m);
    if (rijn_poly1305(good, m, sizeof m, kr) == 0 &&
        rijn_poly1305_verify(good, m, sizeof m, kr) == 1)
        mt_pass();
    else
        mt_fail("raw Poly1305 fails too, although it needs no AES");
    return mt_end();
}

/*
 * test_poly1305 dispatch EXPECT: with the environment the test sets
 * (RIJN_POLY1305_IMPL, RIJN_CPU_MASK), the library must pick engine EXPECT,
 * or with EXPECT = "fail" refuse every operation: init -1, authenticate -1
 * with a zero tag, verify 0, final of the failed context a zero tag.
 */
static int dispatch_main(const char *expect)
{
    static const uint8_t kr[32], n[16], m[40];
    uint8_t tag[16], zero[16] = {0};
    const char *def = rijn_poly1305_impl_default();
    rijn_poly1305_ctx ctx;

    mt_rename("poly1305_dispatch");
    if (strcmp(expect, "fail") != 0) {
        if (def != NULL && strcmp(def, expect) == 0)
            mt_pass();
        else
            mt_fail("picked %s, expected %s", def ? def : "(none)", expect);
        if (rijn_poly1305_init(&ctx, kr) == 0 &&
            strcmp(rijn_poly1305_ctx_impl(&ctx), expect) == 0)
            mt_pass();
        else
            mt_fail("a context does not use %s", expect);
        rijn_poly1305_wipe(&ctx);
        return mt_end();
    }
    if (def == NULL)
        mt_pass();
    else
        mt_fail("picked %s, expected none", def);
    poly1305aes_refused(kr, n, m, sizeof m);
    memset(tag, 0xaa, 16);
    if (rijn_poly1305(tag, m, sizeof m, kr) == -1 &&
        memcmp(tag, zero, 16) == 0)
        mt_pass();
    else
        mt_fail("rijn_poly1305 did not fail with a zero tag");
    if (rijn_poly1305_verify(zero, m, sizeof m, kr) == 0 &&
        rijn_poly1305_verify(tag, m, sizeof m, kr) == 0)
        mt_pass();
    else
        mt_fail("rijn_poly1305_verify accepted a tag without an engine");
    if (rijn_poly1305_init(&ctx, kr) == -1 &&
        rijn_poly1305aes_init(&ctx, kr, n) == -1)
        mt_pass();
    else
        mt_fail("init did not fail");
    rijn_poly1305_update(&ctx, m, sizeof m);
    memset(tag, 0xaa, 16);
    rijn_poly1305_final(&ctx, tag);
    if (memcmp(tag, zero, 16) == 0)
        mt_pass();
    else
        mt_fail("final of a failed context wrote a nonzero tag");
    if (rijn_poly1305_init_impl(&ctx, kr, "nosuch") == -1)
        mt_pass();
    else
        mt_fail("init_impl accepted an unknown engine");
    return mt_end();
}

int main(int argc, char **argv)
{
    uint64_t seed = tu_seed_from_args(&argc, argv);
    int want_long = 0;
    tu_rng rng;

    if (argc == 3 && strcmp(argv[1], "dispatch") == 0)
        return dispatch_main(argv[2]);
    if (argc == 2 && strcmp(argv[1], "aes-fail") == 0)
        return aes_fail_main();
    if (argc >= 4 && strcmp(argv[3], "--long") == 0) {
        want_long = 1;
        argc--;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: %s ENGINE VECTOR_DIR [--long] [--seed N]\n",
                argv[0]);
        return 2;
    }
    g_dir = argv[2];
    mt_begin(want_long ? "poly1305_long" : "poly1305", argv[1]);
    if (want_long) {
        test_stress(1234567, 0);
        return mt_end();
    }
    mt_note("seed %llu", (unsigned long long)seed);
    tu_rng_seed(&rng, seed);
    test_paper();
    test_stress(10010, 1);
    test_raw_files();
    test_against_poly32(&rng);
    test_splits(&rng);
    test_verify_bits(&rng);
    test_raw_verify_bits(&rng);
    return mt_end();
}
