/*
 * The AES backend x GHASH engine pairing a GCM suite runs on (gcm_vectors,
 * gcm_props, gcm_openssl, gcm_race: test_gcm_X AES GHASH ...).
 */
#ifndef RIJN_TEST_GCM_PAIR_H
#define RIJN_TEST_GCM_PAIR_H

#include "ghash/ghash.h"

/*
 * Starts the suite on the pairing of its "AES GHASH" arguments, either of
 * which may be "default": AES is then the engine's fused backend where
 * this CPU runs it, else the library's default backend (ct64 if there is
 * none); GHASH the engine a key of that backend picks ("(none)" if none).
 * Runs tu_begin on the backend, names the suite "<suite>.<aes>+<ghash>",
 * and skips it (tu_require_available) if this CPU cannot run the engine.
 * Sets *aes and *ghash to the names resolved. Returns the engine, or NULL
 * when it is not compiled in (a failure: the caller returns tu_end()).
 */
const rijn_ghash_engine *gcm_pair_begin(const char *suite, const char **aes,
                                        const char **ghash);

#endif
