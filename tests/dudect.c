/*
 * dudect: a statistical constant-time test, after Reparaz, Balasch and
 * Verbauwhede, "Dude, is my code constant time?" (DATE 2017). It covers
 * what valgrind cannot (see ctgrind.c): the VAES backends, whose
 * instructions valgrind does not decode or hides, and the AVX-512 IFMA
 * Poly1305 engine; the other backends and engines run it too.
 *
 *   test_dudect aes BACKEND      AES key setup + CTR, ECB on secret blocks
 *   test_dudect poly ENGINE      Poly1305 (64 B and 1 KiB), Poly1305-AES
 *                                verify
 *   test_dudect gcm ENGINE       AES-GCM on GHASH engine ENGINE (with the
 *                                AES backend it is fused with, else the
 *                                default): key setup + 64 B, 1 KiB of
 *                                secret message and AAD, decrypt with
 *                                wrong tags
 *   test_dudect control          leaky code that must be flagged: a
 *                                comparison that exits at the first
 *                                difference, a branch on a secret bit
 *
 * Every target times one operation many times, each time on an input of
 * one of two classes chosen at random: class 0 one fixed secret, class 1 a
 * fresh random secret (all inputs are drawn before the first measurement,
 * and both classes are read from the same array, so the harness itself
 * does the same work for both). The time is the TSC around the call. The
 * two classes' times are compared with Welch's t-test, on all samples and
 * on the samples below several percentiles (cropping removes the long
 * tail that interrupts and the other virtual machines add). |t| > 10 is
 * dudect's "definitely not constant time" (counted where the class means
 * are at least MIN_DELTA ticks apart: see leak_score): a failure for a
 * library target, and required for the controls, which show that the
 * harness sees a leak as small as a secret-dependent branch around two
 * additions. A target over the limit is measured again in two new
 * processes with the same secrets, and only a leak all three runs see
 * counts (see run_confirmed). The t values are printed.
 *
 * x86-64 only (the TSC); registered for native builds without sanitizers,
 * run one at a time (RUN_SERIAL). `--seed N` replays the inputs.
 */
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ghash/ghash.h"
#include "mac/mutil.h"
#include "rijn.h"
#include "rijn_poly1305.h"
#include "testutil.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <x86intrin.h>

static inline uint64_t tsc_begin(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}

static inline uint64_t tsc_end(void)
{
    unsigned aux;
    uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
}

#define N_MEAS 1000000 /* measurements per target */
#define BATCH 10000     /* inputs drawn at a time */
#define T_LIMIT 10.0    /* dudect's "definitely not constant time" */
/* ... and the class means of that sample set must differ by at least this
 * many TSC ticks per measurement (see leak_score) */
#define MIN_DELTA 1.0
#define MIN_DELTA_REL 0.0005 /* or this fraction of the median, if larger */
#define IN_MAX 1072     /* largest input of one measurement */
#define N_CONFIRM 2     /* new processes that must see a leak again */

/* One target: fn does the operation on input in (in_len bytes); one
 * measurement times reps calls on the same input, which multiplies a leak
 * while the TSC's granularity (26 ticks on the development machine) stays
 * the same. */
typedef struct {
    const char *what;
    size_t in_len;
    int reps;
    void (*fn)(const uint8_t *in);
} target;

static const char *g_name; /* backend or engine under test */
static volatile uint8_t g_sink;

/* Measuring again in a new process (run_confirmed): the seed and
 * arguments of this run, the number of the next target, and in such a
 * process (--confirm K --attempt A) the one target it measures. */
static uint64_t g_seed;
static char *g_mode, *g_arg;
static int g_target_no;
static int g_confirm = -1, g_attempt;

/* ---- operations ------------------------------------------------------- */

/* AES: input = the key (32 bytes, key_len used): key setup, IV setup and
 * 64 bytes of CTR under the secret key. The IV is public (it travels in
 * the clear, and the counter's carries may branch), so it is the same
 * fixed value for both classes. */
static uint8_t g_iv[16];
static void aes_ctr_op(const uint8_t *in, size_t key_len)
{
    static RIJN_ALIGN(64) rijn_aes_ctr_ctx c;
    static uint8_t buf[64];

    if (rijn_aes_ctr_init_impl(&c, in, key_len, g_iv, g_name) != 0)
        abort();
    rijn_aes_ctr_xor(&c, buf, buf, sizeof buf);
    g_sink ^= buf[0];
}
static void aes128_op(const uint8_t *in) { aes_ctr_op(in, 16); }
static void aes192_op(const uint8_t *in) { aes_ctr_op(in, 24); }
static void aes256_op(const uint8_t *in) { aes_ctr_op(in, 32); }

/* AES ECB of 8 secret blocks under a fixed key (expanded once). */
static RIJN_ALIGN(64) rijn_aes_key g_ecb_key;
static void aes_ecb_op(const uint8_t *in)
{
    static uint8_t out[128];

    rijn_aes_encrypt_blocks(&g_ecb_key, out, in, 8);
    g_sink ^= out[0];
}

/* Poly1305 with the engine forced by mt_begin: input = key 32 || message */
static void poly_op(const uint8_t *in, size_t len)
{
    static rijn_poly1305_ctx ctx;
    uint8_t tag[16];

    if (rijn_poly1305_init(&ctx, in) != 0)
        abort();
    rijn_poly1305_update(&ctx, in + 32, len);
    rijn_poly1305_final(&ctx, tag);
    g_sink ^= tag[0];
}
static void poly64_op(const uint8_t *in) { poly_op(in, 64); }
static void poly1k_op(const uint8_t *in) { poly_op(in, 1024); }

/* Poly1305-AES verify of a 64-byte message under a fixed key and nonce:
 * input = the candidate tag. Class 0 is the right tag, class 1 a random
 * (wrong) one: a comparison that stops at the first difference shows. */
static uint8_t g_kr[32], g_nonce[16], g_msg[64];
static void verify_op(const uint8_t *in)
{
    g_sink ^= (uint8_t)rijn_poly1305aes_verify(in, g_kr, g_nonce, g_msg,
                                               sizeof g_msg);
}

/* GCM with the GHASH engine g_name and the AES backend of the run
 * (g_gcm_aes): key setup + 64 B (secret key and message), 1 KiB under a
 * fixed key (secret message and AAD), and decrypt with a wrong tag that
 * differs from the right one in its last byte (fixed class) against
 * random wrong tags (which differ from the first byte on): both are
 * rejected, so a comparison that stops at the first difference would
 * show, and the reject path (which wipes the output) is the same. */
static const char *g_gcm_aes;
static RIJN_ALIGN(64) rijn_gcm_key g_gcm_key;
static uint8_t g_gcm_iv[12], g_gcm_ct[64], g_gcm_aad[16];
static void gcm_setkey_op(const uint8_t *in)
{
    static RIJN_ALIGN(64) rijn_gcm_key k;
    static uint8_t out[64], tag[16];

    if (rijn_gcm_setkey_impl(&k, in, 16, g_gcm_aes, g_name) != 0)
        abort();
    rijn_gcm_encrypt(&k, out, tag, 16, g_gcm_iv, 12, NULL, 0, in + 16, 64);
    g_sink ^= tag[0];
}
static void gcm_data_op(const uint8_t *in)
{
    static uint8_t out[1024], tag[16];

    rijn_gcm_encrypt(&g_gcm_key, out, tag, 16, g_gcm_iv, 12, in, 16, in + 16,
                     1024);
    g_sink ^= tag[0];
}
static void gcm_verify_op(const uint8_t *in)
{
    static uint8_t out[64];

    g_sink ^= (uint8_t)rijn_gcm_decrypt(&g_gcm_key, out, in, 16, g_gcm_iv, 12,
                                        g_gcm_aad, 16, g_gcm_ct, 64);
}

/* The control: a 64-byte comparison that returns at the first difference,
 * against the fixed class-0 value (so class 0 runs all 64 steps). */
static uint8_t g_control_ref[64];
static void control_op(const uint8_t *in)
{
    const volatile uint8_t *a = in;
    int eq = 1;

    for (size_t i = 0; i < 64; i++)
        if (a[i] != g_control_ref[i]) {
            eq = 0;
            break;
        }
    g_sink ^= (uint8_t)eq;
}

/* The second control, a small leak: one secret bit decides whether two
 * more additions run (taken for half of class 1, never for class 0). */
static void control_branch_op(const uint8_t *in)
{
    volatile uint8_t x = in[1];

    if (in[0] & 1) {
        x = (uint8_t)(x + 3);
        x = (uint8_t)(x + 5);
    }
    g_sink ^= x;
}

/* ---- statistics -------------------------------------------------------- */

typedef struct {
    double n[2], mean[2], m2[2];
} welch;

static void welch_add(welch *w, int cls, double x)
{
    double d;

    w->n[cls] += 1;
    d = x - w->mean[cls];
    w->mean[cls] += d / w->n[cls];
    w->m2[cls] += d * (x - w->mean[cls]);
}

/*
 * What a sample set says about a leak: |t|, or 0 when its class means
 * differ by less than MIN_DELTA ticks. The TSC advances in steps of 26
 * ticks here, and with 10^6 measurements a shift of a fraction of a tick in
 * how often the two classes land on either side of one step is
 * "significant" on a crop whose samples take two or three values: seen at
 * |t| 12-18 with means 0.2-0.5 ticks apart on targets with no
 * secret-dependent branch, index or variable-latency instruction, in one
 * run in a few, and not in the runs around it. A secret-dependent branch
 * or lookup costs whole cycles per call: the controls differ by 10 ticks
 * (two additions behind a branch) and 45 (an early-exit compare), and
 * reps multiplies a leak per call. On long targets the floor is a fraction
 * of the median instead (MIN_DELTA_REL): ct64's 13,000-tick key setup once
 * showed |t| 24-40 on a crop with means 3-4 ticks (0.03%) apart, and not
 * in its re-runs; data-dependent power and clock changes (the effect behind
 * Hertzbleed) move constant-time code by such amounts, which is not what
 * this test looks for. The t of every set is printed as it is, with the
 * distance of the means where t is over the limit.
 */
static double welch_t(const welch *w);
static double leak_score(const welch *w, double floor)
{
    double t = fabs(welch_t(w));

    return fabs(w->mean[0] - w->mean[1]) >= floor ? t : 0;
}

static double welch_t(const welch *w)
{
    double v0, v1;

    if (w->n[0] < 2 || w->n[1] < 2)
        return 0;
    v0 = w->m2[0] / (w->n[0] - 1);
    v1 = w->m2[1] / (w->n[1] - 1);
    if (v0 + v1 == 0)
        return 0;
    return (w->mean[0] - w->mean[1]) / sqrt(v0 / w->n[0] + v1 / w->n[1]);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/*
 * Measure t->fn N_MEAS times (inputs drawn BATCH at a time); returns the
 * largest |t| over the whole set and the crops, and prints them with the
 * class means (in TSC ticks). The classes and random inputs come from a
 * generator of their own, seeded from the run's seed, the target's number
 * and the attempt, so that a new process can replay any one target.
 */
static double run_target(const target *t, int no, int attempt,
                         const uint8_t *fixed)
{
    static const double crop_pct[] = {0.5, 0.75, 0.9, 0.95, 0.99};
    enum { NCROP = sizeof crop_pct / sizeof crop_pct[0] };
    uint8_t *in = malloc((size_t)BATCH * t->in_len);
    uint8_t *cls = malloc(N_MEAS);
    uint64_t *ticks = malloc(N_MEAS * sizeof *ticks);
    uint64_t *sorted = malloc(N_MEAS * sizeof *sorted);
    uint64_t cut[NCROP];
    welch all, crop[NCROP];
    double worst;
    tu_rng stream, *rng = &stream;

    tu_rng_seed(rng, g_seed ^ (0x9e3779b97f4a7c15ull *
                               (uint64_t)(1 + no + 256 * attempt)));
    if (in == NULL || cls == NULL || ticks == NULL || sorted == NULL) {
        fprintf(stderr, "dudect: out of memory\n");
        exit(1);
    }
    for (size_t base = 0; base < N_MEAS; base += BATCH) {
        for (size_t i = 0; i < BATCH; i++) {
            uint8_t *p = in + i * t->in_len;
            cls[base + i] = (uint8_t)(tu_rng_next(rng) & 1);
            if (cls[base + i] == 0)
                memcpy(p, fixed, t->in_len);
            else
                tu_rng_fill(rng, p, t->in_len);
        }
        /* warm-up: caches, branch predictors, the first call */
        for (size_t i = 0; i < 100; i++)
            t->fn(in + i * t->in_len);
        for (size_t i = 0; i < BATCH; i++) {
            const uint8_t *p = in + i * t->in_len;
            uint64_t a = tsc_begin();
            for (int r = 0; r < t->reps; r++)
                t->fn(p);
            uint64_t b = tsc_end();
            ticks[base + i] = b - a;
        }
    }

    memcpy(sorted, ticks, N_MEAS * sizeof *sorted);
    qsort(sorted, N_MEAS, sizeof *sorted, cmp_u64);
    for (int k = 0; k < NCROP; k++)
        cut[k] = sorted[(size_t)(crop_pct[k] * (N_MEAS - 1))];
    memset(&all, 0, sizeof all);
    memset(crop, 0, sizeof crop);
    for (size_t i = 0; i < N_MEAS; i++) {
        double x = (double)ticks[i];
        welch_add(&all, cls[i], x);
        for (int k = 0; k < NCROP; k++)
            if (ticks[i] <= cut[k])
                welch_add(&crop[k], cls[i], x);
    }

    char line[512];
    const double median = (double)sorted[N_MEAS / 2];
    const double floor = median * MIN_DELTA_REL > MIN_DELTA
                             ? median * MIN_DELTA_REL : MIN_DELTA;
    int used = snprintf(line, sizeof line, "t = %.2f (all)", welch_t(&all));
    worst = leak_score(&all, floor);
    for (int k = 0; k < NCROP; k++) {
        double tk = welch_t(&crop[k]);
        if (leak_score(&crop[k], floor) > worst)
            worst = leak_score(&crop[k], floor);
        if (used > 0 && (size_t)used < sizeof line)
            used += snprintf(line + used, sizeof line - (size_t)used,
                             ", %.2f (<p%.0f)", tk, 100 * crop_pct[k]);
        if (fabs(tk) > T_LIMIT && used > 0 && (size_t)used < sizeof line)
            used += snprintf(line + used, sizeof line - (size_t)used,
                             " [means %.2f ticks apart%s]",
                             fabs(crop[k].mean[0] - crop[k].mean[1]),
                             leak_score(&crop[k], floor) == 0
                                 ? ": under the floor" : "");
    }
    tu_note("%-34s median %5llu ticks; class means %.1f / %.1f; %s",
            t->what, (unsigned long long)sorted[N_MEAS / 2], all.mean[0],
            all.mean[1], line);
    free(in);
    free(cls);
    free(ticks);
    free(sorted);
    return worst;
}

/*
 * Measure target no again in a new process: this program with the same
 * seed (hence the same fixed secret and global inputs) and --confirm no
 * --attempt attempt, which measures that target alone with fresh classes
 * and random inputs and exits with 3 if it sees a leak, 0 if not.
 */
static int confirm_in_child(int no, int attempt)
{
    extern char **environ;
    char seed[24], nos[12], att[12];
    char *args[10];
    int n = 0, st;
    pid_t pid;

    snprintf(seed, sizeof seed, "%llu", (unsigned long long)g_seed);
    snprintf(nos, sizeof nos, "%d", no);
    snprintf(att, sizeof att, "%d", attempt);
    args[n++] = (char *)"test_dudect";
    args[n++] = g_mode;
    if (g_arg != NULL)
        args[n++] = g_arg;
    args[n++] = (char *)"--seed";
    args[n++] = seed;
    args[n++] = (char *)"--confirm";
    args[n++] = nos;
    args[n++] = (char *)"--attempt";
    args[n++] = att;
    args[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) != 0 ||
        waitpid(pid, &st, 0) != pid) {
        fprintf(stderr, "dudect: cannot run /proc/self/exe again\n");
        exit(1);
    }
    if (WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 3))
        return WEXITSTATUS(st) == 3;
    fprintf(stderr, "dudect: the process measuring again failed\n");
    exit(1);
}

/*
 * run_target, and when it sees a leak, the same target in N_CONFIRM new
 * processes, each with the same secrets and fresh random inputs and
 * classes: the leak counts only if every run sees it (else 0 is returned).
 * A leak in the code follows its inputs and shows every time (the
 * controls: |t| 28-80 on all samples, run after run). What a shared
 * virtual machine adds does not, and can last a whole process: on crops
 * whose class means were 2-6 ticks of 13,000 apart, ct64's key setup + CTR
 * (no secret branch or index; valgrind's ctgrind test agrees) showed
 * |t| 10-41 in 2 of 5 processes, on all three key sizes of each (and once
 * in CI also when measured again at once in the same process), and never
 * in 10 more processes replaying one of those seeds (3 with address
 * randomisation, 7 without).
 *
 * In a process started by confirm_in_child the targets before the one it
 * replays are not measured (-1), and that one ends the process.
 */
static double run_confirmed(const target *t, const uint8_t *fixed)
{
    const int no = g_target_no++;
    double worst;

    if (g_confirm >= 0) {
        if (no != g_confirm)
            return -1;
        worst = run_target(t, no, g_attempt, fixed);
        fflush(stdout);
        _exit(worst > T_LIMIT ? 3 : 0);
    }
    worst = run_target(t, no, 0, fixed);
    for (int a = 1; a <= N_CONFIRM && worst > T_LIMIT; a++) {
        tu_note("%s: |t| = %.1f > %.0f; measuring again in a new process "
                "(%d of %d)", t->what, worst, T_LIMIT, a, N_CONFIRM);
        if (!confirm_in_child(no, a)) {
            tu_note("%s: not seen again, so not a leak of the secret",
                    t->what);
            return 0;
        }
    }
    return worst;
}

/* A library target passes if no leak is seen. */
static void expect_constant(const target *t, tu_rng *rng)
{
    uint8_t fixed[IN_MAX];
    double worst;

    tu_rng_fill(rng, fixed, t->in_len);
    worst = run_confirmed(t, fixed);
    if (worst > T_LIMIT)
        tu_fail("%s: timing depends on the secret (max |t| = %.1f > %.0f)",
                t->what, worst, T_LIMIT);
    else
        tu_pass();
}

static int run_aes(const char *backend, tu_rng *rng)
{
    static const target ts[] = {
        {"AES-128 key setup + 64 B CTR", 32, 4, aes128_op},
        {"AES-192 key setup + 64 B CTR", 32, 4, aes192_op},
        {"AES-256 key setup + 64 B CTR", 32, 4, aes256_op},
        {"ECB, 8 secret blocks", 128, 4, aes_ecb_op},
    };
    uint8_t k[16];

    tu_begin("dudect", backend);
    g_name = backend;
    tu_rng_fill(rng, g_iv, sizeof g_iv);
    tu_rng_fill(rng, k, sizeof k);
    if (tu_setkey(&g_ecb_key, k, sizeof k, backend) != 0)
        return tu_end();
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        expect_constant(&ts[i], rng);
    rijn_aes_key_wipe(&g_ecb_key);
    return tu_end();
}

static int run_poly(const char *engine, tu_rng *rng)
{
    static const target ts[] = {
        {"Poly1305, 64 B (secret key, msg)", 32 + 64, 4, poly64_op},
        {"Poly1305, 1 KiB (secret key, msg)", 32 + 1024, 1, poly1k_op},
    };
    target verify = {"Poly1305-AES verify, right/wrong tag", 16, 1, verify_op};
    uint8_t right[16];

    mt_begin("dudect", engine);
    g_name = engine;
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        expect_constant(&ts[i], rng);
    tu_rng_fill(rng, g_kr, sizeof g_kr);
    rijn_poly1305aes_clamp(g_kr);
    tu_rng_fill(rng, g_nonce, sizeof g_nonce);
    tu_rng_fill(rng, g_msg, sizeof g_msg);
    if (rijn_poly1305aes_authenticate(right, g_kr, g_nonce, g_msg,
                                      sizeof g_msg) != 0) {
        tu_fail("Poly1305-AES authenticate failed");
        return tu_end();
    }
    /* class 0 = the right tag (verify returns 1), class 1 = random tags */
    if (run_confirmed(&verify, right) > T_LIMIT)
        tu_fail("%s: timing depends on the tag", verify.what);
    else
        tu_pass();
    return tu_end();
}

static int run_gcm(const char *engine, tu_rng *rng)
{
    static const target ts[] = {
        {"GCM key setup + 64 B (secret key, msg)", 16 + 64, 2, gcm_setkey_op},
        {"GCM 1 KiB (secret msg and AAD)", 16 + 1024, 1, gcm_data_op},
    };
    target verify = {"GCM decrypt, wrong tags (last/first byte)", 16, 2,
                     gcm_verify_op};
    const rijn_ghash_engine *e = rijn_ghash_find(engine);
    uint8_t key[16], right[16];
    rijn_impl_info info;
    char name[96];

    g_gcm_aes = e != NULL && e->fused_aes != NULL ? e->fused_aes : NULL;
    if (g_gcm_aes == NULL ||
        !rijn_impl_runnable(&rijn_aes_impl_find(g_gcm_aes)->base))
        g_gcm_aes = rijn_impl_default();
    tu_begin("dudect", g_gcm_aes);
    snprintf(name, sizeof name, "dudect.ghash-%s", engine);
    tu_set_name(name);
    g_name = engine;
    if (e == NULL) {
        tu_fail("GHASH engine %s is not compiled in", engine);
        return tu_end();
    }
    for (size_t i = 0; rijn_gcm_impl_get(i, &info) == 0; i++)
        if (strcmp(info.name, engine) == 0)
            tu_require_available(&info, "engine");
    tu_note("AES backend %s", g_gcm_aes);
    tu_rng_fill(rng, g_gcm_iv, sizeof g_gcm_iv);
    tu_rng_fill(rng, key, sizeof key);
    tu_rng_fill(rng, g_gcm_aad, sizeof g_gcm_aad);
    if (rijn_gcm_setkey_impl(&g_gcm_key, key, 16, g_gcm_aes, engine) != 0) {
        tu_fail("GCM key setup failed");
        return tu_end();
    }
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        expect_constant(&ts[i], rng);
    tu_rng_fill(rng, g_gcm_ct, sizeof g_gcm_ct);
    rijn_gcm_encrypt(&g_gcm_key, g_gcm_ct, right, 16, g_gcm_iv, 12,
                     g_gcm_aad, 16, g_gcm_ct, sizeof g_gcm_ct);
    /* class 0 = the right tag but its last byte, class 1 = random tags */
    right[15] ^= 1;
    if (run_confirmed(&verify, right) > T_LIMIT)
        tu_fail("%s: timing depends on the tag", verify.what);
    else
        tu_pass();
    rijn_gcm_key_wipe(&g_gcm_key);
    return tu_end();
}

static int run_control(tu_rng *rng)
{
    target cmp = {"control: early-exit 64-byte compare", 64, 1, control_op};
    target br = {"control: secret branch, 2 additions", 2, 1,
                 control_branch_op};
    uint8_t even[2] = {0x42, 0x17};
    double w;

    tu_set_name("dudect.control");
    tu_rng_fill(rng, g_control_ref, sizeof g_control_ref);
    w = run_confirmed(&cmp, g_control_ref);
    if (w > T_LIMIT)
        tu_pass();
    else if (w >= 0)
        tu_fail("%s was not flagged: the harness cannot see a leak", cmp.what);
    w = run_confirmed(&br, even);
    if (w > T_LIMIT)
        tu_pass();
    else if (w >= 0)
        tu_fail("%s was not flagged: the harness cannot see a leak", br.what);
    return tu_end();
}

/* "NAME N" in argv sets *v and is removed from argv (confirm_in_child's
 * options; tu_seed_from_args does the same for --seed). */
static void take_option(int *argc, char **argv, const char *name, int *v)
{
    for (int i = 1; i + 1 < *argc; i++)
        if (strcmp(argv[i], name) == 0) {
            *v = atoi(argv[i + 1]);
            for (int j = i; j + 2 <= *argc; j++)
                argv[j] = argv[j + 2];
            *argc -= 2;
            return;
        }
}

int main(int argc, char **argv)
{
    tu_rng rng;

    take_option(&argc, argv, "--confirm", &g_confirm);
    take_option(&argc, argv, "--attempt", &g_attempt);
    g_seed = tu_seed_from_args(&argc, argv);
    g_mode = argc > 1 ? argv[1] : NULL;
    g_arg = argc > 2 ? argv[2] : NULL;
    tu_rng_seed(&rng, g_seed);
    if (argc == 3 && strcmp(argv[1], "aes") == 0)
        return run_aes(argv[2], &rng);
    if (argc == 3 && strcmp(argv[1], "poly") == 0)
        return run_poly(argv[2], &rng);
    if (argc == 3 && strcmp(argv[1], "gcm") == 0)
        return run_gcm(argv[2], &rng);
    if (argc == 2 && strcmp(argv[1], "control") == 0)
        return run_control(&rng);
    fprintf(stderr, "usage: test_dudect aes BACKEND | poly ENGINE | "
                    "gcm GHASH_ENGINE | control "
                    "[--seed N]\n");
    return 2;
}

#else /* not x86-64 */

int main(void)
{
    printf("dudect: needs the x86-64 TSC; skipped\n");
    return TU_SKIP;
}

#endif
