/*
 * The AES instruction limit of `rijn speed` (limit.c, kernels in
 * limit_asm.c): the bytes per second this machine's AES round
 * instructions allow at each register width a backend uses, if nothing
 * but those instructions ran, all in flight at once. A row's fraction of
 * the limit is its rijn bytes per second over the limit of its backend's
 * width and key size (doc/speed.md says what is counted). With --gcm,
 * also the GCM limit: the same rounds with the carry-less multiplies that
 * GHASH cannot do without between them (x86-64 only).
 */
#ifndef RIJN_SPEED_LIMIT_H
#define RIJN_SPEED_LIMIT_H

#include <stdint.h>

/* The register widths: x86-64 xmm (aesni), ymm (vaes-avx2), zmm
 * (vaes-avx512); LIM_V128 the 128-bit vector registers of aarch64
 * (armv8) and ppc64 (ppc8). */
enum { LIM_XMM, LIM_YMM, LIM_ZMM, LIM_V128, LIM_NWIDTH };

/* ---- kernels (limit_asm.c) --------------------------------------------- */

/* 1 if this build has a kernel for width w. */
int limit_kernel_has(int w);
/* Runs iters iterations of limit_kernel_per_iter() AES round instructions
 * at width w (1 iteration at least); the caller has checked the CPU. */
void limit_kernel_run(int w, uint64_t iters);
/* Independent chains, and round instructions per iteration (0: none). */
unsigned limit_kernel_chains(void);
unsigned limit_kernel_per_iter(void);

/* The GCM limit's kernels (x86-64 only): 1 if this build has one for w. */
int limit_gcm_kernel_has(int w);
/* Runs iters iterations (1 at least) of
 * limit_gcm_kernel_rounds_per_iter(rounds) AES round instructions at
 * width w, with 3 carry-less multiplies at that width for every `rounds`
 * of them (rounds: 10, 12 or 14); the caller has checked the CPU. */
void limit_gcm_kernel_run(int w, unsigned rounds, uint64_t iters);
/* Round instructions per iteration of that loop (0: none), and its
 * independent chains of rounds. */
unsigned limit_gcm_kernel_rounds_per_iter(unsigned rounds);
unsigned limit_gcm_kernel_chains(void);

/* ---- the measurement and its report (limit.c) -------------------------- */

/* Measures every width this build has a kernel for and this CPU runs
 * (rijn's CPU features, RIJN_CPU_MASK applied): for each, the second
 * fastest of many short runs; about 20 ms per width (quick: 10 ms).
 * gcm: also the GCM limit of each such width and key size (the same time
 * for each of the three key sizes). */
void limit_measure(int quick, int gcm);
/* The width a backend's bulk kernels use, or -1 if it has no limit (the
 * bitsliced and table backends: ct64, ref, neon-bs, altivec-*). */
int limit_width_of(const char *impl);
/* "xmm", "ymm", "zmm", "v128". */
const char *limit_width_name(int w);
/* The limit in bytes per second for AES with a key of `bits` at width w;
 * 0 if it was not measured (--no-limit, not on this CPU). */
double limit_bytes_per_sec(int w, unsigned bits);
/* The fraction of its limit that rijn's bytes per second reach on a row
 * of backend impl with a key of `bits`; -1 if the row has no limit. */
double limit_fraction(const char *impl, unsigned bits, double bytes_per_sec);
/* The GCM limit in bytes per second at width w with a key of `bits`: the
 * AES rounds with GHASH's carry-less multiplies among them; 0 if it was
 * not measured (no --gcm, --no-limit, not on this CPU or architecture). */
double limit_gcm_bytes_per_sec(int w, unsigned bits);

/* The GCM limit over the AES limit at width w and key size bits (the
 * "/AES" column); 0 if either was not measured. */
double limit_gcm_of_aes(int w, unsigned bits);

/* The limit again, beside a row (speed.c, measure_cell): a short run of
 * the same loop between the row's repetitions, so that the row's fraction
 * compares two rates taken under the same conditions (a shared machine's
 * core clock moves by several percent from minute to minute, and the
 * limit at start would not follow it). limit_probe_iters: iterations for
 * about `seconds` at width w, from the rate measured at start (0 if w was
 * not measured); limit_probe: runs them and returns the limit in bytes/s
 * for a key of `bits` from that run alone (0 if it took no time). */
uint64_t limit_probe_iters(int w, double seconds);
double limit_probe(int w, unsigned bits, uint64_t iters);
/* The same for the GCM limit (a GCM row's fraction of it): its loop for a
 * key of `bits` at width w, about `seconds` (0 iterations if that GCM
 * limit was not measured at start), and its bytes/s from one run. On a
 * shared core the GCM loop can be slowed while the AES loop is not: the
 * GCM limit at start measured 0.62-0.83 of the AES limit from one process
 * to the next on the same Zen 5 (doc/speed.md). */
uint64_t limit_gcm_probe_iters(int w, unsigned bits, double seconds);
double limit_gcm_probe(int w, unsigned bits, uint64_t iters);

/* The lines above the table: what was measured, the limit per width (in
 * byte-rounds per cycle of the core clock core_hz, cycles/byte and GB/s
 * per key size), or why there is none; if the GCM limit was asked for,
 * then its lines (cycles/byte and fraction of the AES limit per width and
 * key size). */
void limit_print(double core_hz);
/* The same as the JSON member "aes_limit": {...} (no comma after it); if
 * the GCM limit was asked for, each width has a member "gcm_limit". */
void limit_json(double core_hz);

#endif /* RIJN_SPEED_LIMIT_H */
