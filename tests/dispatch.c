/*
 * dispatch: the registry, the best-pick and the two environment overrides.
 *
 *   test_dispatch unit            mask parsing, registry listing, best-pick
 *   test_dispatch forced NAME ok|fail
 *                                 run with RIJN_IMPL (and maybe
 *                                 RIJN_CPU_MASK) set by ctest: key setup
 *                                 must succeed with backend NAME, or fail
 *   test_dispatch ghash NAME ok|fail
 *                                 the same for RIJN_GHASH_IMPL: AES-GCM
 *                                 key setup must use engine NAME, or fail
 *   test_dispatch environment honoured|ignored|ignored-caps
 *                                 run with RIJN_IMPL=nosuch by
 *                                 dispatch_setuid.sh, as a normal program
 *                                 (key setup must fail), setuid or with a
 *                                 file capability (the environment must be
 *                                 ignored)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "ghash/ghash.h"
#include "internal.h"
#include "rijn_gcm.h"
#include "testutil.h"

static void check(int cond, const char *what)
{
    if (cond)
        tu_pass();
    else
        tu_fail("%s", what);
}

static int unit(void)
{
    uint32_t all = RIJN_CPU_AESNI | RIJN_CPU_AVX2 | RIJN_CPU_AVX512F;

    check(rijn_cpu_apply_mask(all, NULL) == all, "no mask keeps all");
    check(rijn_cpu_apply_mask(all, "") == all, "empty mask keeps all");
    check(rijn_cpu_apply_mask(all, "avx512f") ==
              (RIJN_CPU_AESNI | RIJN_CPU_AVX2), "name removes");
    check(rijn_cpu_apply_mask(all, "avx512f, -avx2,~aesni") == 0,
          "list with separators and prefixes removes all");
    check(rijn_cpu_apply_mask(all, "nosuch,avx2") ==
              (RIJN_CPU_AESNI | RIJN_CPU_AVX512F), "unknown name ignored");
    check(rijn_cpu_apply_mask(RIJN_CPU_AESNI, "0x2") == RIJN_CPU_AESNI,
          "hex mask keeps bits");
    check(rijn_cpu_apply_mask(RIJN_CPU_AESNI, "0xffffffff") == RIJN_CPU_AESNI,
          "hex mask cannot add");
    check(rijn_cpu_apply_mask(all, "0x0") == 0, "hex zero removes all");

    /* Every feature name maps to one distinct bit. */
    uint32_t seen = 0;
    for (const rijn_cpu_feature_name *f = rijn_cpu_feature_names; f->name;
         f++) {
        check(f->bit != 0 && (f->bit & (f->bit - 1)) == 0 && !(seen & f->bit),
              f->name);
        seen |= f->bit;
        check(rijn_cpu_apply_mask(f->bit, f->name) == 0, f->name);
    }

    /* Registry: names unique, default is runnable, constant-time, and the
     * highest-ranked runnable one; ref is never the default. */
    const char *def = rijn_impl_default();
    check(def != NULL, "a default backend exists");
    check(def != NULL && strcmp(def, "ref") != 0, "ref is never picked");
    int defaults = 0;
    for (size_t i = 0; i < rijn_impl_count(); i++) {
        rijn_impl_info in;
        check(rijn_impl_get(i, &in) == 0, "rijn_impl_get in range");
        const rijn_aes_impl *impl = rijn_aes_impl_find(in.name);
        check(impl != NULL, "listed backend can be found");
        for (size_t j = 0; j < i; j++) {
            rijn_impl_info other;
            rijn_impl_get(j, &other);
            check(strcmp(other.name, in.name) != 0, "unique names");
        }
        if (in.is_default) {
            defaults++;
            check(in.available && in.constant_time, "default is runnable and CT");
        }
        const rijn_aes_impl *d = rijn_aes_impl_find(def);
        if (impl && d && in.available && impl->base.rank > 0)
            check(impl->base.rank <= d->base.rank, "default has the highest rank");
        tu_note("%-12s %s %s needs=%s%s", in.name,
                in.available ? "available  " : "unavailable",
                in.constant_time ? "ct " : "VT ", in.needs,
                in.is_default ? "  <- default" : "");
    }
    check(defaults == 1, "exactly one default");

    /* Tuned variants (rijn_impl.tuned): ranked only where the CPU has
     * their tuning bits; the engine an AES backend's key picks is the
     * best-ranked runnable fused one. Run with and without
     * RIJN_CPU_MASK=vpclmul-slow (dispatch.unit-no-vpclmul-slow). */
    const uint32_t feat = rijn_cpu_features_get();
    for (size_t i = 0; i < rijn_impl_count(); i++) {
        rijn_impl_info in;
        const rijn_ghash_engine *pick, *best = NULL;
        rijn_impl_get(i, &in);
        pick = rijn_ghash_for(in.name);
        for (size_t j = 0; j < rijn_gcm_impl_count(); j++) {
            rijn_impl_info g;
            rijn_gcm_impl_get(j, &g);
            const rijn_ghash_engine *e = rijn_ghash_find(g.name);
            check(e != NULL, "listed engine can be found");
            if (e == NULL)
                continue;
            check(rijn_impl_rank(&e->base) ==
                      ((e->base.tuned & ~feat) == 0 ? e->base.rank : 0),
                  "a tuned engine ranks only with its tuning bits");
            if (e->fused_aes != NULL && strcmp(e->fused_aes, in.name) == 0 &&
                g.available && rijn_impl_rank(&e->base) > 0 &&
                (best == NULL ||
                 rijn_impl_rank(&e->base) > rijn_impl_rank(&best->base)))
                best = e;
        }
        if (best != NULL && in.available)
            check(pick == best, "a key picks the best-ranked fused engine");
        if (best != NULL && in.available)
            tu_note("%s: GHASH engine %s", in.name, pick->base.name);
    }
#if defined(__x86_64__)
    {
        const rijn_ghash_engine *k = rijn_ghash_find("vpclmul-avx512-kara");
        const rijn_ghash_engine *p = rijn_ghash_for("vaes-avx512");
        if (k != NULL && rijn_impl_runnable(&k->base))
            check(strcmp(p->base.name, (feat & RIJN_CPU_VPCLMUL_SLOW)
                                           ? "vpclmul-avx512-kara"
                                           : "vpclmul-avx512") == 0,
                  "vaes-avx512 keys use -kara exactly where VPCLMULQDQ is "
                  "the bound");
    }
#endif
    rijn_impl_info none;
    check(rijn_impl_get(rijn_impl_count(), &none) == -1, "out of range");

    /* Bad key lengths and names. */
    rijn_aes_key k;
    uint8_t key[33] = {0};
    for (size_t len = 0; len <= 33; len++)
        check((rijn_aes_setkey(&k, key, len) == 0) ==
                  (len == 16 || len == 24 || len == 32), "key length check");
    check(rijn_aes_setkey_impl(&k, key, 16, "nosuch") == -1, "unknown name");
    check(rijn_aes_setkey_impl(&k, key, 16, "ref") == 0 &&
              strcmp(rijn_aes_key_impl(&k), "ref") == 0, "explicit ref");
    char buf[512];
    rijn_cpu_features(buf, sizeof buf);
    tu_note("cpu features: %s", buf[0] ? buf : "(none)");
    char tiny[4];
    rijn_cpu_features(tiny, sizeof tiny);
    check(strlen(tiny) < sizeof tiny, "feature string truncates safely");
    return tu_end();
}

static int forced(const char *name, int expect_ok)
{
    rijn_aes_key k;
    static const uint8_t key[16];
    int r = rijn_aes_setkey(&k, key, 16);
    const char *def = rijn_impl_default();
    tu_note("RIJN_IMPL=%s RIJN_CPU_MASK=%s -> %s", getenv("RIJN_IMPL"),
            getenv("RIJN_CPU_MASK") ? getenv("RIJN_CPU_MASK") : "",
            r == 0 ? rijn_aes_key_impl(&k) : "key setup failed");
    if (expect_ok) {
        check(r == 0, "key setup succeeds");
        check(r == 0 && strcmp(rijn_aes_key_impl(&k), name) == 0,
              "forced backend is used");
        check(def != NULL && strcmp(def, name) == 0, "default reports it");
    } else {
        check(r == -1, "key setup fails");
        check(def == NULL, "no default");
        uint8_t out[16];
        check(rijn_aes_ctr(out, out, 0, key, 16, key) == -1,
              "one-shot fails too");
    }
    return tu_end();
}

static int ghash_forced(const char *name, int expect_ok)
{
    rijn_gcm_key k;
    static const uint8_t key[16];
    int r = rijn_gcm_setkey(&k, key, 16);
    const char *def = rijn_gcm_impl_default();

    tu_note("RIJN_GHASH_IMPL=%s RIJN_ALLOW_VARIABLE_TIME=%s -> %s",
            getenv("RIJN_GHASH_IMPL"),
            getenv("RIJN_ALLOW_VARIABLE_TIME") ? getenv("RIJN_ALLOW_VARIABLE_TIME")
                                               : "(unset)",
            r == 0 ? rijn_gcm_key_ghash(&k) : "key setup failed");
    if (expect_ok) {
        check(r == 0, "GCM key setup succeeds");
        check(r == 0 && strcmp(rijn_gcm_key_ghash(&k), name) == 0,
              "forced engine is used");
        check(def != NULL && strcmp(def, name) == 0, "default reports it");
    } else {
        check(r == -1, "GCM key setup fails");
        check(def == NULL, "no default engine");
    }
    if (r == 0)
        rijn_gcm_key_wipe(&k);
    return tu_end();
}

/* mode: "honoured" (a normal run), "ignored" (setuid: another effective
 * user), "ignored-caps" (file capabilities: the same user, but the kernel
 * marks the run secure, AT_SECURE, and so must the library) */
static int environment(const char *mode)
{
    rijn_aes_key k;
    static const uint8_t key[16];
    int ignored = strcmp(mode, "honoured") != 0;
    int caps = strcmp(mode, "ignored-caps") == 0;
    int setuid_run = getuid() != geteuid();

    tu_begin(caps ? "dispatch-env-caps" : "dispatch-env", "ref");
    if (ignored && !caps && !setuid_run) {
        printf("dispatch-env.ref: SKIPPED: the setuid bit had no effect "
               "(a nosuid mount?)\n");
        exit(TU_SKIP);
    }
    if (caps && (setuid_run || getauxval(AT_SECURE) == 0)) {
        printf("dispatch-env-caps.ref: SKIPPED: the file capability did "
               "not make the run secure (AT_SECURE 0; a nosuid mount?)\n");
        exit(TU_SKIP);
    }
    check(getenv("RIJN_IMPL") != NULL, "RIJN_IMPL is in the environment");
    if (ignored) {
        char buf[256];
        check(rijn_getenv("RIJN_IMPL") == NULL, "rijn_getenv ignores it");
        /* the path taken where the C library has no secure_getenv: the
         * ids are equal under file capabilities, AT_SECURE is not */
        check(rijn_getenv_fallback("RIJN_IMPL") == NULL,
              "rijn_getenv_fallback (no secure_getenv) ignores it");
        check(rijn_aes_setkey(&k, key, 16) == 0, "key setup works");
        check(rijn_impl_default() != NULL, "the best backend is the default");
        rijn_cpu_features(buf, sizeof buf);
        check(rijn_cpu_features_get() == rijn_cpu_detect(),
              "RIJN_CPU_MASK is ignored too");
        tu_note("%s: default %s, features %s", caps ? "capabilities" : "setuid",
                rijn_impl_default(), buf);
    } else {
        check(rijn_getenv("RIJN_IMPL") != NULL, "rijn_getenv reads it");
        check(rijn_getenv_fallback("RIJN_IMPL") != NULL,
              "rijn_getenv_fallback reads it");
        check(rijn_aes_setkey(&k, key, 16) == -1, "key setup fails");
    }
    return tu_end();
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "environment") == 0)
        return environment(argv[2]);
    if (argc >= 2 && strcmp(argv[1], "unit") == 0) {
        tu_begin("dispatch", "ref");
        return unit();
    }
    if (argc == 4 && strcmp(argv[1], "forced") == 0) {
        int ok = strcmp(argv[3], "ok") == 0;
        /* An expected success needs a backend this CPU runs (else skip). */
        tu_begin("dispatch-forced", ok ? argv[2] : "ref");
        return forced(argv[2], ok);
    }
    if (argc == 4 && strcmp(argv[1], "ghash") == 0) {
        tu_begin("dispatch-ghash", "ref");
        return ghash_forced(argv[2], strcmp(argv[3], "ok") == 0);
    }
    fprintf(stderr, "usage: test_dispatch unit | forced NAME ok|fail | "
                    "ghash NAME ok|fail\n");
    return 2;
}
