/*
 * The clocks of the `rijn` tool (clock.c): monotonic wall time, the
 * benchmark clock (wall or thread CPU time) and the core-clock estimate.
 */
#ifndef RIJN_TOOL_CLOCK_H
#define RIJN_TOOL_CLOCK_H

/* Benchmark time in seconds: CLOCK_MONOTONIC (the default) or, after
 * clock_use_cputime(1), this thread's CPU time. */
double clock_now(void);
/* Monotonic wall time in seconds, whatever the benchmark clock. */
double clock_wall(void);
/* Select the benchmark clock; -1 if thread CPU time is unsupported. */
int clock_use_cputime(int on);
/* "CLOCK_MONOTONIC" or "CLOCK_THREAD_CPUTIME_ID". */
const char *clock_name(void);

/*
 * Estimate the core clock in Hz by timing a long chain of dependent integer
 * additions (one cycle each on every CPU this project targets). `seconds`
 * bounds the time spent. Returns 0 if no estimate could be made.
 */
double clock_estimate_core_hz(double seconds);

/* How clock_estimate_core_hz() measures, for report headers. */
const char *clock_method(void);

#endif /* RIJN_TOOL_CLOCK_H */
