/*
 * The AES instruction limit of `rijn speed` (limit.c): for each register
 * width a backend's bulk kernels use, how many AES rounds per second this
 * machine runs when nothing else runs and every round is independent of
 * the ones in flight (the kernels of limit_asm.c), and from that the
 * bytes per second of AES-128/192/256 (10/12/14 rounds a 16-byte block).
 *
 * It counts only the round instructions, overlapped perfectly; a real
 * kernel also makes counter blocks, loads, XORs the keystream with the
 * data, stores, and for GCM computes GHASH, so it stays below the limit
 * (doc/speed.md). Timed on the benchmark clock (common/clock.c: wall time,
 * or thread CPU time with --cpu-time), like the rows: a row's fraction of
 * the limit is a ratio of two rates on the same clock and does not depend
 * on the core-clock estimate, which only converts the limit to cycles.
 * The row's limit is timed again between its repetitions (limit_probe),
 * as a shared machine's clock moves between the start and the row.
 *
 * With --gcm, also the GCM limit (x86-64): the same kind of loop with, for
 * every 10/12/14 rounds (one register of blocks), the 3 carry-less
 * multiplies of GHASH's Karatsuba products at the same width, independent
 * and spread between the rounds. Where the multiplier shares execution
 * units with AES, this is below the AES limit whatever a kernel does.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "internal.h" /* rijn_cpu_features_get(), RIJN_CPU_* */
#include "limit.h"

typedef struct width_info {
    const char *name;    /* "xmm" */
    const char *backend; /* the backend whose bulk kernels use it */
    const char *insn;    /* one round */
    unsigned bytes;      /* register width */
    uint32_t needs;      /* RIJN_CPU_* bits the instruction needs */
    const char *mul;     /* GCM limit: the carry-less multiply */
    uint32_t mul_needs;  /* RIJN_CPU_* bits the GCM-limit loop needs */
} width_info;

static const width_info widths[LIM_NWIDTH] = {
    {"xmm", "aesni", "aesenc", 16, RIJN_CPU_AESNI, "pclmulqdq",
     RIJN_CPU_AESNI | RIJN_CPU_PCLMUL},
    /* VAES widens AES-NI: a CPU has both, RIJN_CPU_MASK may not */
    {"ymm", "vaes-avx2", "vaesenc ymm", 32,
     RIJN_CPU_AESNI | RIJN_CPU_VAES | RIJN_CPU_AVX, "vpclmulqdq ymm",
     RIJN_CPU_AESNI | RIJN_CPU_VAES | RIJN_CPU_AVX | RIJN_CPU_VPCLMUL},
    {"zmm", "vaes-avx512", "vaesenc zmm", 64,
     RIJN_CPU_AESNI | RIJN_CPU_VAES | RIJN_CPU_AVX512F, "vpclmulqdq zmm",
     RIJN_CPU_AESNI | RIJN_CPU_VAES | RIJN_CPU_AVX512F | RIJN_CPU_VPCLMUL},
#if defined(__aarch64__)
    /* no GCM-limit loop (limit_gcm_kernel_has() says 0) */
    {"v128", "armv8", "aese+aesmc", 16, RIJN_CPU_ARM_AES, NULL, 0},
#else
    {"v128", "ppc8", "vcipher", 16, RIJN_CPU_PPC_CRYPTO, NULL, 0},
#endif
};

#define TRIAL_SECONDS 0.00025 /* one run: short, to fit between interruptions */
#define MIN_TRIALS 16
#define MAX_TRIALS 2000

#define GCM_MULS 3 /* carry-less multiplies per register of blocks */

static int measured;               /* limit_measure() ran */
static double rate[LIM_NWIDTH];    /* byte-rounds per second; 0: none */
static int trials[LIM_NWIDTH];     /* runs timed */
static int gcm_measured;           /* ... and the GCM limit asked for */
static double gcm_rate[LIM_NWIDTH][3]; /* bytes/s per key size; 0: none */
static int gcm_trials[LIM_NWIDTH][3];

static unsigned rounds_of(unsigned bits)
{
    return 6 + bits / 32; /* 10, 12, 14 */
}

/* A loop to time: `rounds` is that of the key size (GCM limit only). */
typedef void (*kernel_fn)(int w, unsigned rounds, uint64_t iters);

/* Byte-rounds one iteration of the AES limit's loop does at width w. */
static double aes_iter_bytes(int w)
{
    return (double)limit_kernel_per_iter() * widths[w].bytes;
}

/* Bytes one iteration of the GCM limit's loop does at width w for a key
 * of `rounds` rounds: a register of blocks per `rounds` AES rounds. */
static double gcm_iter_bytes(int w, unsigned rounds)
{
    return (double)limit_gcm_kernel_rounds_per_iter(rounds) / rounds *
           widths[w].bytes;
}

static void aes_kernel(int w, unsigned rounds, uint64_t iters)
{
    (void)rounds;
    limit_kernel_run(w, iters);
}

/* One loop being timed: the kernel, its width, work per iteration (in the
 * rate's unit), iterations per run, and its fastest two runs. */
typedef struct ktimer {
    kernel_fn run;
    int w;
    unsigned rounds;
    double per_iter;
    uint64_t n;
    double best, second; /* seconds; 0: none yet */
} ktimer;

/* At least 1 ms of the loop first (wide units that were idle may be
 * powered up, or the clock lowered, on first use), which also sizes a run
 * to about TRIAL_SECONDS; 0 if it took no measurable time. */
static int ktimer_warm(ktimer *k)
{
    double t = 0, warm_end = clock_wall() + 0.001;

    k->n = 16;
    k->best = k->second = 0;
    for (;;) {
        double t0 = clock_now();
        k->run(k->w, k->rounds, k->n);
        t = clock_now() - t0;
        if ((t >= TRIAL_SECONDS && clock_wall() >= warm_end) ||
            k->n > ((uint64_t)1 << 40))
            break;
        if (t < TRIAL_SECONDS)
            k->n *= 2;
    }
    if (t <= 0)
        return 0;
    k->n = (uint64_t)((double)k->n * TRIAL_SECONDS / t) + 1;
    return 1;
}

/* One timed run, kept if among the fastest two; its rate (0: none). */
static double ktimer_trial(ktimer *k)
{
    double t0 = clock_now(), t;

    k->run(k->w, k->rounds, k->n);
    t = clock_now() - t0;
    if (t <= 0)
        return 0;
    if (k->best == 0 || t < k->best) {
        k->second = k->best;
        k->best = t;
    } else if (k->second == 0 || t < k->second) {
        k->second = t;
    }
    return k->per_iter * (double)k->n / t;
}

/* The work per second of the second fastest run (the fastest could be a
 * timer glitch; on a shared machine a run is only ever slowed down). */
static double ktimer_rate(const ktimer *k)
{
    return k->second > 0 ? k->per_iter * (double)k->n / k->second : 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A pair's AES run within this of the fastest AES run: a quiet pair. */
#define QUIET_PAIR 0.98

/* Times nk loops in turn, run after run (the order reversed every round,
 * so that each sees the same conditions), for about `budget` seconds and
 * MIN_TRIALS runs each at least; the rates in k[i]; *ntrials: runs each.
 * With two loops (the AES loop, then the GCM loop), returns the ratio of
 * the second's rate to the first's in the rounds whose AES run was within
 * 2% of the fastest AES run (quiet rounds): the second highest of those
 * ratios, or if there are fewer than two quiet rounds the median of all
 * rounds' ratios (0: none). The two runs of a round are adjacent, so they
 * meet nearly the same neighbours, and a round whose AES run was not
 * slowed gives a ratio that a slowed AES run does not inflate; the
 * highest of those is the GCM run that was slowed least (the second
 * highest, as a run can be a timer glitch). The ratio of the two fastest
 * runs moved by up to 18% in one run of the test suite on Zen 3 (the
 * other core busy): they had met different neighbours. The median of
 * all rounds, used before, moved by 0.78-0.89 (AES-128, truth 0.83),
 * 0.94-1.07 and 0.69-1.06 (AES-192, -256, truth 1.00) over 12 runs on a
 * Zen 5; the quiet rounds' second highest by 0.82-0.84, 1.00 and
 * 0.71-1.00 (doc/speed.md). */
static double measure_kernels(ktimer *k, int nk, double budget, int *ntrials)
{
    static double ratio[MAX_TRIALS], aes[MAX_TRIALS];
    double end, fastest = 0;
    int i, nr = 0, nq = 0;

    for (int j = 0; j < nk; j++)
        if (!ktimer_warm(&k[j]))
            return 0;
    end = clock_wall() + budget;
    for (i = 0; i < MAX_TRIALS && (i < MIN_TRIALS || clock_wall() < end);
         i++) {
        double r[2] = {0, 0};
        for (int j = 0; j < nk; j++) {
            const int x = i % 2 ? nk - 1 - j : j;
            const double v = ktimer_trial(&k[x]);
            if (x < 2)
                r[x] = v;
        }
        if (nk == 2 && r[0] > 0 && r[1] > 0) {
            aes[nr] = r[0];
            ratio[nr++] = r[1] / r[0];
            if (r[0] > fastest)
                fastest = r[0];
        }
    }
    *ntrials = i;
    if (nr == 0)
        return 0;
    /* the quiet rounds' ratios to the front */
    for (int j = 0; j < nr; j++) {
        if (aes[j] >= QUIET_PAIR * fastest) {
            const double t = ratio[nq];
            ratio[nq++] = ratio[j];
            ratio[j] = t;
        }
    }
    if (nq >= 2) {
        qsort(ratio, (size_t)nq, sizeof ratio[0], cmp_double);
        return ratio[nq - 2];
    }
    qsort(ratio, (size_t)nr, sizeof ratio[0], cmp_double);
    return nr % 2 ? ratio[nr / 2] : (ratio[nr / 2 - 1] + ratio[nr / 2]) / 2;
}

void limit_measure(int quick, int gcm)
{
    uint32_t have = rijn_cpu_features_get();
    double budget = quick ? 0.010 : 0.020;

    measured = 1;
    for (int w = 0; w < LIM_NWIDTH; w++) {
        ktimer k = {aes_kernel, w, 0, aes_iter_bytes(w), 0, 0, 0};
        rate[w] = 0;
        if (limit_kernel_has(w) &&
            (have & widths[w].needs) == widths[w].needs) {
            measure_kernels(&k, 1, budget, &trials[w]);
            rate[w] = ktimer_rate(&k);
        }
    }
    /* The GCM limit: its loop and the AES limit's in turn, run after run,
     * and the ratio of the two rates in quiet pairs kept (times the AES
     * limit above; measure_kernels): a ratio of two loops timed apart
     * moved with the clock of a shared machine by more than the
     * multiplies cost where they cost nothing (Sapphire Rapids, "/AES"
     * 1.08 in a short run). */
    gcm_measured = gcm;
    for (int w = 0; w < LIM_NWIDTH; w++) {
        for (int b = 0; b < 3; b++) {
            unsigned rounds = rounds_of(128 + 64 * (unsigned)b);
            double per_iter = gcm_iter_bytes(w, rounds);
            ktimer k[2] = {
                {aes_kernel, w, 0, aes_iter_bytes(w) / rounds, 0, 0, 0},
                {limit_gcm_kernel_run, w, rounds, per_iter, 0, 0, 0}};

            gcm_rate[w][b] = 0;
            if (gcm && rate[w] > 0 && limit_gcm_kernel_has(w) &&
                per_iter > 0 &&
                (have & widths[w].mul_needs) == widths[w].mul_needs) {
                /* the GCM loop is the AES loop's rounds and more: a
                 * ratio above 1 is noise */
                double f = measure_kernels(k, 2, budget, &gcm_trials[w][b]);
                gcm_rate[w][b] = (f < 1 ? f : 1) * rate[w] / rounds;
            }
        }
    }
}

int limit_width_of(const char *impl)
{
    for (int w = 0; impl != NULL && w < LIM_NWIDTH; w++)
        if (limit_kernel_has(w) && strcmp(impl, widths[w].backend) == 0)
            return w;
    return -1;
}

const char *limit_width_name(int w)
{
    return w >= 0 && w < LIM_NWIDTH ? widths[w].name : "-";
}

double limit_bytes_per_sec(int w, unsigned bits)
{
    if (w < 0 || w >= LIM_NWIDTH || rate[w] <= 0)
        return 0;
    return rate[w] / rounds_of(bits);
}

double limit_fraction(const char *impl, unsigned bits, double bytes_per_sec)
{
    double lim = limit_bytes_per_sec(limit_width_of(impl), bits);
    return lim > 0 && bytes_per_sec > 0 ? bytes_per_sec / lim : -1;
}

uint64_t limit_probe_iters(int w, double seconds)
{
    if (w < 0 || w >= LIM_NWIDTH || rate[w] <= 0 || seconds <= 0)
        return 0;
    return (uint64_t)(rate[w] * seconds / aes_iter_bytes(w)) + 1;
}

double limit_probe(int w, unsigned bits, uint64_t iters)
{
    double t0, t;

    if (iters == 0 || w < 0 || w >= LIM_NWIDTH || rate[w] <= 0)
        return 0;
    t0 = clock_now();
    limit_kernel_run(w, iters);
    t = clock_now() - t0;
    return t > 0 ? aes_iter_bytes(w) * (double)iters / t / rounds_of(bits) : 0;
}

uint64_t limit_gcm_probe_iters(int w, unsigned bits, double seconds)
{
    const double bps = limit_gcm_bytes_per_sec(w, bits);
    double per_iter;

    if (bps <= 0 || seconds <= 0)
        return 0;
    per_iter = gcm_iter_bytes(w, rounds_of(bits));
    return per_iter > 0 ? (uint64_t)(bps * seconds / per_iter) + 1 : 0;
}

double limit_gcm_probe(int w, unsigned bits, uint64_t iters)
{
    double t0, t;

    if (iters == 0 || limit_gcm_bytes_per_sec(w, bits) <= 0)
        return 0;
    t0 = clock_now();
    limit_gcm_kernel_run(w, rounds_of(bits), iters);
    t = clock_now() - t0;
    return t > 0 ? gcm_iter_bytes(w, rounds_of(bits)) * (double)iters / t
                 : 0;
}

double limit_gcm_bytes_per_sec(int w, unsigned bits)
{
    if (w < 0 || w >= LIM_NWIDTH || (bits != 128 && bits != 192 &&
                                     bits != 256))
        return 0;
    return gcm_rate[w][(bits - 128) / 64];
}

double limit_gcm_of_aes(int w, unsigned bits)
{
    double aes = limit_bytes_per_sec(w, bits);
    double g = limit_gcm_bytes_per_sec(w, bits);
    return aes > 0 && g > 0 ? g / aes : 0;
}

/* Why there is no limit at all, or NULL if there is one to show. */
static const char *none_reason(void)
{
    if (!measured)
        return "--no-limit";
    if (limit_kernel_per_iter() == 0)
        return "rijn uses no AES instructions on this architecture";
    return NULL;
}

/* The runs the least measured width had. */
static int min_trials(void)
{
    int m = 0;
    for (int w = 0; w < LIM_NWIDTH; w++)
        if (rate[w] > 0 && (m == 0 || trials[w] < m))
            m = trials[w];
    return m;
}

static void needs_names(int w, char *buf, size_t n)
{
    rijn_cpu_names(widths[w].needs, buf, n);
}

/* The runs the least measured GCM-limit loop had (0: none measured). */
static int gcm_min_trials(void)
{
    int m = 0;
    for (int w = 0; w < LIM_NWIDTH; w++)
        for (int k = 0; k < 3; k++)
            if (gcm_rate[w][k] > 0 && (m == 0 || gcm_trials[w][k] < m))
                m = gcm_trials[w][k];
    return m;
}

static void gcm_print(double core_hz)
{
    char needs[128];

    if (limit_gcm_kernel_chains() == 0) {
        printf("GCM limit: not measured (no GCM-limit loop for this "
               "architecture; x86-64 only)\n");
        return;
    }
    if (gcm_min_trials() == 0)
        printf("GCM limit: none of these instructions on this CPU (or "
               "RIJN_CPU_MASK took them away)\n");
    else
        printf("GCM limit: the AES rounds (%u chains) with GHASH's "
               "carry-less multiplies between them, 3 per\n           "
               "register of blocks (Karatsuba), independent, nothing "
               "else; \"/AES\" = its\n           bytes/s / the AES "
               "loop's, timed in turn (%d+ pairs of runs, the second "
               "highest\n           ratio of those whose AES run was not "
               "slowed): the most of it a GCM kernel can\n           reach; "
               "\"GCM lim\" = rijn bytes/s / this loop timed again between "
               "the row's\n           repetitions (doc/speed.md)\n",
               limit_gcm_kernel_chains(), gcm_min_trials());
    printf("  %-5s %-12s %-23s %8s %8s %8s   %8s %8s %8s\n", "width",
           "backend", "multiply (3 per reg)", "128 c/B", "192 c/B",
           "256 c/B", "128 /AES", "192 /AES", "256 /AES");
    for (int w = 0; w < LIM_NWIDTH; w++) {
        if (!limit_gcm_kernel_has(w))
            continue;
        printf("  %-5s %-12s %-23s", widths[w].name, widths[w].backend,
               widths[w].mul);
        if (gcm_rate[w][0] <= 0 || gcm_rate[w][1] <= 0 ||
            gcm_rate[w][2] <= 0) {
            rijn_cpu_names(widths[w].mul_needs, needs, sizeof needs);
            printf("not measured: needs %s (not on this CPU, or "
                   "RIJN_CPU_MASK)\n", needs);
            continue;
        }
        for (int k = 0; k < 3; k++)
            printf(" %8.3f", core_hz / gcm_rate[w][k]);
        printf("  ");
        for (int k = 0; k < 3; k++)
            printf(" %8.3f", limit_gcm_of_aes(w, 128 + 64 * (unsigned)k));
        putchar('\n');
    }
}

void limit_print(double core_hz)
{
    static const unsigned bits[3] = {128, 192, 256};
    const char *why = none_reason();
    char needs[128];

    if (why != NULL) {
        printf("AES limit: not measured (%s)\n", why);
        return;
    }
    if (min_trials() == 0)
        printf("AES limit: none of these AES instructions on this CPU (or "
               "RIJN_CPU_MASK took them away)\n");
    else
        printf("AES limit: AES round instructions alone, %u independent "
               "chains in flight, second fastest\n           of %d+ runs of "
               "~%g ms; 10/12/14 rounds per 16-byte block for "
               "AES-128/192/256;\n           \"of limit\" = rijn bytes/s / "
               "the limit of the row's width and key size, timed again\n"
               "           between the row's repetitions (doc/speed.md)\n",
               limit_kernel_chains(), min_trials(), TRIAL_SECONDS * 1e3);
    printf("  %-5s %-12s %-12s %9s   %8s %8s %8s   %8s %8s %8s\n", "width",
           "backend", "instruction", "B-rnd/cyc", "128 c/B", "192 c/B",
           "256 c/B", "128 GB/s", "192 GB/s", "256 GB/s");
    for (int w = 0; w < LIM_NWIDTH; w++) {
        if (!limit_kernel_has(w))
            continue;
        printf("  %-5s %-12s %-12s ", widths[w].name, widths[w].backend,
               widths[w].insn);
        if (rate[w] <= 0) {
            needs_names(w, needs, sizeof needs);
            printf("not measured: needs %s (not on this CPU, or "
                   "RIJN_CPU_MASK)\n", needs);
            continue;
        }
        printf("%9.2f  ", rate[w] / core_hz);
        for (int k = 0; k < 3; k++)
            printf(" %8.3f", core_hz / limit_bytes_per_sec(w, bits[k]));
        printf("  ");
        for (int k = 0; k < 3; k++)
            printf(" %8.2f", limit_bytes_per_sec(w, bits[k]) / 1e9);
        putchar('\n');
    }
    if (gcm_measured)
        gcm_print(core_hz);
}

/* The member "gcm_limit" of width w's JSON object (after a comma). */
static void gcm_json(int w, double core_hz)
{
    char needs[128];

    printf("\"gcm_limit\": {");
    if (!limit_gcm_kernel_has(w)) {
        printf("\"available\": false, \"reason\": \"no GCM-limit loop "
               "for this architecture\"}");
        return;
    }
    printf("\"multiply\": \"%s\", \"multiplies_per_register\": %d, ",
           widths[w].mul, GCM_MULS);
    if (gcm_rate[w][0] <= 0 || gcm_rate[w][1] <= 0 || gcm_rate[w][2] <= 0) {
        rijn_cpu_names(widths[w].mul_needs, needs, sizeof needs);
        printf("\"available\": false, \"needs\": \"%s\"}", needs);
        return;
    }
    printf("\"available\": true, \"counts\": \"AES round instructions "
           "and the carry-less multiplies of GHASH (Karatsuba), "
           "independent, interleaved\", \"chains\": %u, \"statistic\": "
           "\"ratio to the AES loop in adjacent runs, second highest of "
           "the pairs whose AES run is within 2%% of the fastest\", "
           "\"runs\": %d, "
           "\"limits\": [", limit_gcm_kernel_chains(), gcm_min_trials());
    for (unsigned bits = 128; bits <= 256; bits += 64) {
        double bps = limit_gcm_bytes_per_sec(w, bits);
        double f = limit_gcm_of_aes(w, bits);
        printf("{\"bits\": %u, \"rounds\": %u, \"cycles_per_byte\": "
               "%.4f, \"gbps\": %.4f, \"fraction_of_aes_limit\": ",
               bits, rounds_of(bits), core_hz / bps, bps / 1e9);
        if (f > 0)
            printf("%.4f}", f);
        else
            printf("null}");
        printf("%s", bits < 256 ? ", " : "]}");
    }
}

void limit_json(double core_hz)
{
    const char *why = none_reason();
    char needs[128];
    int first = 1;

    if (why != NULL) {
        printf("\"aes_limit\": {\"measured\": false, \"reason\": \"%s\", "
               "\"widths\": []}", why);
        return;
    }
    printf("\"aes_limit\": {\"measured\": true, \"counts\": \"AES round "
           "instructions only, independent, perfectly overlapped\", "
           "\"chains\": %u, \"statistic\": \"second fastest\", \"runs\": %d, "
           "\"run_seconds\": %g, \"widths\": [",
           limit_kernel_chains(), min_trials(), TRIAL_SECONDS);
    for (int w = 0; w < LIM_NWIDTH; w++) {
        if (!limit_kernel_has(w))
            continue;
        printf("%s\n    {\"width\": \"%s\", \"backend\": \"%s\", "
               "\"instruction\": \"%s\", \"bytes\": %u, ",
               first ? "" : ",", widths[w].name, widths[w].backend,
               widths[w].insn, widths[w].bytes);
        first = 0;
        if (rate[w] <= 0) {
            needs_names(w, needs, sizeof needs);
            printf("\"available\": false, \"needs\": \"%s\"", needs);
        } else {
            printf("\"available\": true, \"byte_rounds_per_cycle\": "
                   "%.4f, \"byte_rounds_per_second\": %.6e, \"limits\": [",
                   rate[w] / core_hz, rate[w]);
            for (unsigned bits = 128; bits <= 256; bits += 64) {
                double bps = limit_bytes_per_sec(w, bits);
                printf("{\"bits\": %u, \"rounds\": %u, "
                       "\"cycles_per_byte\": %.4f, \"gbps\": %.4f}%s",
                       bits, rounds_of(bits), core_hz / bps, bps / 1e9,
                       bits < 256 ? ", " : "]");
            }
        }
        if (gcm_measured) {
            printf(", ");
            gcm_json(w, core_hz);
        }
        putchar('}');
    }
    printf("\n  ]}");
}
