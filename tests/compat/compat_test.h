/*
 * Helpers of the compat test programs (eSTREAM, SUPERCOP shims) that
 * tests/testutil.h does not provide. Naming, pass/fail counting, the
 * summary, the skip rule (tu_require_available), the PRNG, hex and
 * byte comparison are testutil's (tu_*).
 */
#ifndef RIJN_COMPAT_TEST_H
#define RIJN_COMPAT_TEST_H

#include <stddef.h>

#include "rijn.h"
#include "testutil.h"

/*
 * Starts a suite on the backend named by RIJN_IMPL, or on the default one
 * if it is unset (the compat shims have no backend argument: they use the
 * library's default, which RIJN_IMPL forces). tu_begin() names the suite
 * "<suite>.<backend>" and exits 1 if the backend is not compiled in, 77
 * (skip, with the reason) if this CPU lacks a feature it needs.
 * Then seeds ct_rng from RIJN_TEST_SEED, or a fixed seed (printed).
 * Returns the backend name.
 */
const char *ct_begin(const char *suite);

/* The suite's PRNG, seeded by ct_begin(). */
extern tu_rng ct_rng;

/* Records one check (tu_pass / tu_fail); a failure prints what, and
 * " -- detail" unless detail is NULL. Returns ok. */
int ct_check(int ok, const char *what, const char *detail);

/* Reads a whole file into a NUL-terminated malloc'd buffer; prints FAIL and
 * exits 1 if it cannot. */
char *ct_read_file(const char *path, size_t *len);

/* Expands key with the byte-wise "ref" backend (the test oracle), falling
 * back to the default backend if ref is not compiled in. */
int ct_oracle_key(rijn_aes_key *k, const unsigned char *key, size_t len);

#endif
