/* Shared helpers of the compat test programs (eSTREAM, SUPERCOP shims). */
#ifndef RIJN_COMPAT_TEST_H
#define RIJN_COMPAT_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "rijn.h"

/* Counters printed by ct_finish(). */
extern unsigned long ct_passed, ct_failed;

/* Records one check; prints what failed. Returns ok. */
int ct_check(int ok, const char *what, const char *detail);

/* Like ct_check for two byte strings; prints the first difference. */
int ct_check_bytes(const unsigned char *got, const unsigned char *want,
                   size_t n, const char *what, const char *detail);

/* Prints "N passed, M failed" and returns the process exit code. */
int ct_finish(const char *suite);

/*
 * Checks the backend named by RIJN_IMPL (or the default one if unset):
 * exits 1 if it is not compiled in, and 77 (UNAVAILABLE, skip) if this CPU
 * cannot run it unless RIJN_TEST_REQUIRE_ALL=1 (then exits 1). Returns the
 * backend name.
 */
const char *ct_backend_gate(const char *suite);

/* Deterministic PRNG; seed from RIJN_TEST_SEED if set, printed. */
void ct_seed(const char *suite);
uint64_t ct_rand(void);
size_t ct_rand_below(size_t n); /* 0 .. n-1, n > 0 */
void ct_rand_bytes(unsigned char *p, size_t n);

/* Hex string (no separators, n*2 digits) to bytes; returns bytes written
 * or (size_t)-1 on a bad digit or odd count; at most cap bytes. */
size_t ct_unhex(unsigned char *out, size_t cap, const char *hex, size_t len);

/* Reads a whole file into a NUL-terminated malloc'd buffer, or NULL. */
char *ct_read_file(const char *path, size_t *len);

/* Expands key with the byte-wise "ref" backend (the test oracle), falling
 * back to the default backend if ref is not compiled in. */
int ct_oracle_key(rijn_aes_key *k, const unsigned char *key, size_t len);

#endif
