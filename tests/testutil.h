/*
 * Small helpers shared by the test suites: backend availability, failure
 * reporting, a seeded PRNG, hex decoding, 128-bit counter arithmetic and
 * output buffers with guard bytes on both sides.
 */
#ifndef RIJN_TESTUTIL_H
#define RIJN_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "rijn.h"

/* Exit status that ctest treats as "skipped" (SKIP_RETURN_CODE). */
#define TU_SKIP 77

#if defined(__GNUC__)
#define TU_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TU_PRINTF(a, b)
#endif

/*
 * Start a suite: remembers "<suite>.<backend>" for messages and checks that
 * the backend is compiled in (an error if not) and runnable (see
 * tu_require_available). Returns the backend's rijn_impl_info.
 */
rijn_impl_info tu_begin(const char *suite, const char *backend);

/*
 * Returns if the backend or engine (`kind`: "backend", "engine") can run
 * here. Otherwise, when this CPU lacks a feature it needs, prints
 * "<suite>.<name>: SKIPPED: <name>: needs F; this CPU lacks G" (the line
 * scripts/test.sh collects for its summary) and exits 77 (skip). When only
 * RIJN_CPU_MASK removed a feature the CPU has, that is a skip too, except
 * under RIJN_TEST_REQUIRE_ALL=1, where code the hardware could run must
 * be tested: exit 1. Unrunnable with every feature present is a bug: exit 1.
 */
void tu_require_available(const rijn_impl_info *info, const char *kind);

/* Replace the "<suite>.<backend>" name used in messages. */
void tu_set_name(const char *name);

/* "<suite>.<backend>", for messages. */
const char *tu_name(void);

/* Record one passed check / one failed check (message printed with the
 * suite name; only the first 30 failures are printed in full). */
void tu_pass(void);
void tu_fail(const char *fmt, ...) TU_PRINTF(1, 2);
unsigned long tu_failures(void);

/* Print "<suite>.<backend>: N passed, M failed" and return the exit code. */
int tu_end(void);

/* Print a line prefixed with the suite name. */
void tu_note(const char *fmt, ...) TU_PRINTF(1, 2);

/* Expand a key with the named backend, failing loudly if setup fails or
 * the key reports a different backend. Returns 0 on success. */
int tu_setkey(rijn_aes_key *k, const uint8_t *key, size_t key_len,
              const char *backend);

/* ---- deterministic PRNG (xoshiro256**, seeded by splitmix64) ---------- */
typedef struct {
    uint64_t s[4];
} tu_rng;

void tu_rng_seed(tu_rng *r, uint64_t seed);
uint64_t tu_rng_next(tu_rng *r);
/* Uniform in [0, n) (n > 0); slight bias is irrelevant here. */
uint64_t tu_rng_below(tu_rng *r, uint64_t n);
void tu_rng_fill(tu_rng *r, uint8_t *p, size_t n);

/* Seed from "--seed N" in argv (removed from argv), else RIJN_TEST_SEED,
 * else the clock. Always printed. */
uint64_t tu_seed_from_args(int *argc, char **argv);

/* ---- hex ------------------------------------------------------------- */
/* Decode hex (case-insensitive, even length) into out (capacity cap).
 * Returns the number of bytes, or -1 on bad input or overflow. */
long tu_unhex(uint8_t *out, size_t cap, const char *hex);
/* Format up to 64 bytes as hex into a static rotating buffer. */
const char *tu_hex(const uint8_t *p, size_t n);

/* ---- 128-bit big-endian counters -------------------------------------- */
/* ctr += n (mod 2^128), carrying across all 16 bytes. */
void tu_ctr_add(uint8_t ctr[16], uint64_t n);

/* ---- guarded buffers -------------------------------------------------- */
#define TU_GUARD 64
typedef struct {
    uint8_t *mem;   /* allocation */
    uint8_t *p;     /* the usable buffer: len bytes, 64-aligned + align */
    size_t len;
    size_t align;
    uint8_t fill;   /* guard pattern byte */
} tu_buf;

/* Allocate a buffer of len bytes at address = 0 mod 64 + align (align <
 * 64), surrounded by at least TU_GUARD guard bytes on each side. The buffer
 * contents are filled with the guard pattern too. Exits on ENOMEM. */
void tu_buf_init(tu_buf *b, size_t len, size_t align);
void tu_buf_free(tu_buf *b);
/* 1 if the guard bytes on both sides are intact; otherwise reports a
 * failure with `what` and returns 0. */
int tu_buf_guards_ok(const tu_buf *b, const char *what);

/* Compare got and want; on mismatch report `what` with the first differing
 * offset and return 0. */
int tu_check_eq(const uint8_t *got, const uint8_t *want, size_t n,
                const char *what);

#endif /* RIJN_TESTUTIL_H */
