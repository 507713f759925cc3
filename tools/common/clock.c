/*
 * The tool's clocks: monotonic wall time (enc's progress line, speed's
 * threads) and the benchmark clock with the core-clock estimate.
 *
 * Benchmark time comes from clock_gettime(CLOCK_MONOTONIC), or with --cpu-time from
 * CLOCK_THREAD_CPUTIME_ID, which leaves out the time the thread spends
 * descheduled on a busy machine (both clocks count in ns). Cycles are not
 * read from a counter: on the machines this project is measured on the TSC
 * ticks at a fixed rate that is not the core clock, and perf has no cycle
 * event. Instead the core clock is estimated once by timing a long chain of
 * dependent integer additions; each addition needs the previous result, so
 * the chain runs at one addition per core cycle on every out-of-order or
 * in-order CPU with a one-cycle adder (all of x86-64, AArch64, POWER/G4).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <time.h>

#include "common/clock.h"

static clockid_t bench_clock = CLOCK_MONOTONIC;

int clock_use_cputime(int on)
{
    struct timespec ts;
    if (!on) {
        bench_clock = CLOCK_MONOTONIC;
        return 0;
    }
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return -1;
    bench_clock = CLOCK_THREAD_CPUTIME_ID;
    return 0;
}

const char *clock_name(void)
{
    return bench_clock == CLOCK_MONOTONIC ? "CLOCK_MONOTONIC"
                                          : "CLOCK_THREAD_CPUTIME_ID";
}

double clock_now(void)
{
    struct timespec ts;
    clock_gettime(bench_clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double clock_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#if defined(__GNUC__)
/*
 * The empty asm says "x may have changed", so the compiler can neither fold
 * the additions into one nor vectorise them, and emits exactly one add per
 * step (the asm itself emits no instruction).
 */
#define STEP(x, one) \
    do { \
        (x) += (one); \
        __asm__ __volatile__("" : "+r"(x)); \
    } while (0)
#define METHOD \
    "core clock estimated from a chain of dependent integer adds " \
    "(1 cycle each), fastest of many ~1 ms trials"
#else
/* Without GNU asm, a volatile round trip stands in (a rougher estimate). */
#define STEP(x, one) \
    do { \
        volatile word v_ = (x) + (one); \
        (x) = v_; \
    } while (0)
#define METHOD "core clock estimated from a volatile add chain (rough)"
#endif

#define STEP8(x, one) \
    STEP(x, one); STEP(x, one); STEP(x, one); STEP(x, one); \
    STEP(x, one); STEP(x, one); STEP(x, one); STEP(x, one)

/* The native word, so that one step is one add instruction on 32-bit
 * targets too (a 64-bit add there is an add/add-with-carry pair). */
typedef unsigned long word;
static volatile word chain_sink;
static volatile word chain_one = 1;

/* Runs 64 * n dependent additions. */
static void add_chain(uint64_t n)
{
    word x = 0, one = chain_one;
    for (uint64_t i = 0; i < n; i++) {
        STEP8(x, one); STEP8(x, one); STEP8(x, one); STEP8(x, one);
        STEP8(x, one); STEP8(x, one); STEP8(x, one); STEP8(x, one);
    }
    chain_sink = x;
}

const char *clock_method(void)
{
    return METHOD;
}

/*
 * Many short trials, fastest kept: on a shared or virtual machine a trial
 * is often slowed by other work (or by the hypervisor), never sped up, and
 * a ~1 ms trial has a good chance of running undisturbed. The second
 * fastest trial is used so that one timer glitch cannot inflate the result.
 */
double clock_estimate_core_hz(double seconds)
{
    const double trial = 0.001;
    uint64_t n = 1u << 8;
    double t = 0, best = 0, second = 0, t_end;

    if (seconds < 0.01)
        seconds = 0.01;
    /* Grow the chain until one run takes about a trial (and warm up). */
    for (;;) {
        double t0 = clock_now();
        add_chain(n);
        t = clock_now() - t0;
        if (t > trial / 4 || n > (UINT64_C(1) << 40))
            break;
        n *= 2;
    }
    if (t <= 0)
        return 0;
    n = (uint64_t)((double)n * trial / t) + 1;
    t_end = clock_wall() + seconds;
    for (int i = 0; i < 10 || clock_wall() < t_end; i++) {
        double t0 = clock_now();
        add_chain(n);
        t = clock_now() - t0;
        if (t <= 0)
            continue;
        if (best == 0 || t < best) {
            second = best;
            best = t;
        } else if (second == 0 || t < second) {
            second = t;
        }
    }
    return second > 0 ? 64.0 * (double)n / second : 0;
}
