/*
 * The `rijn` command-line tool: declarations shared by its folders.
 *
 *   main.c        argument dispatch, --help, --version, the shared
 *                 messages declared here
 *   common/       clock.c: wall clock and core-clock estimate for the
 *                 benchmark; peers.c: OpenSSL libcrypto and libgcrypt,
 *                 loaded with dlopen() for the comparison columns of the
 *                 benchmark (never linked)
 *   enc/          `rijn enc` (openssl-enc-compatible AES-CTR file
 *                 encryption; enc/enc.h lists its files)
 *   impl/impl.c   `rijn impl` (backends and CPU features)
 *   speed/        `rijn speed` (the benchmark): speed.c options, report,
 *                 plot, threads; bench.c its measuring half (bench.h);
 *                 speed_mac.c `rijn speed --mac`, Poly1305-AES
 */
#ifndef RIJN_TOOL_H
#define RIJN_TOOL_H

#include <stddef.h>
#include <stdint.h>

/* Subcommands: argv[0] is the subcommand name; return the exit status. */
int cmd_enc(int argc, char **argv);
int cmd_impl(int argc, char **argv);
int cmd_speed(int argc, char **argv);

/* Print "rijn: <message>\n" to stderr (printf-style). */
void tool_err(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* 1 if s is "-h", "-help" or "--help". */
int tool_is_help(const char *s);

/*
 * Decode exactly 2*n hex digits from s into out[0..n-1]. Returns 0, or -1
 * if s has another length or a non-hex character.
 */
int tool_hex_decode(unsigned char *out, size_t n, const char *s);

/* Explain why RIJN_IMPL is unusable (if it is); returns 0 if it is fine. */
int tool_check_rijn_impl_env(const char *prog);

/* ---- common/clock.c ---------------------------------------------------- */

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

/* ---- common/peers.c ---------------------------------------------------- */

/*
 * A comparison library: OpenSSL's libcrypto (EVP) or libgcrypt, loaded at
 * run time. A session is one AES-CTR context with a fixed key.
 */
typedef struct peer peer;
typedef struct peer_session peer_session;

/* Load the peers once; returns NULL if the library is absent. */
const peer *peer_openssl(void);
const peer *peer_gcrypt(void);
/* Why a peer is absent (dlopen message), or NULL if it loaded. */
const char *peer_openssl_error(void);
const char *peer_gcrypt_error(void);

const char *peer_name(const peer *p);     /* "openssl", "gcrypt" */
const char *peer_version(const peer *p);  /* e.g. "OpenSSL 3.0.19 ..." */
const char *peer_soname(const peer *p);   /* "libcrypto.so.3" */

/* A CTR context for key (key_len 16/24/32) and iv; NULL on failure. */
peer_session *peer_open(const peer *p, const unsigned char *key,
                        size_t key_len, const unsigned char iv[16]);
void peer_close(peer_session *s);
/* Replace the key (the IV is kept). */
void peer_setkey(peer_session *s, const unsigned char *key);
/* Restart the counter at iv (same key). */
void peer_setiv(peer_session *s, const unsigned char iv[16]);
/* out = in XOR the next len bytes of keystream (len <= INT_MAX). */
void peer_xor(peer_session *s, unsigned char *out, const unsigned char *in,
              size_t len);
/* 1 if any call on s has failed since peer_open. */
int peer_failed(const peer_session *s);

#endif /* RIJN_TOOL_H */
