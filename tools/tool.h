/*
 * The `rijn` command-line tool: the commands and the messages they share.
 *
 *   main.c        argument dispatch, --help, --version
 *   common/       msg.c: the shared messages declared here;
 *                 clock.c/.h: wall clock, benchmark clock, core-clock
 *                 estimate; peers.c/.h: OpenSSL libcrypto and libgcrypt,
 *                 loaded with dlopen() (never linked) for the comparison
 *                 columns of the benchmark; output.c/.h and signals.c:
 *                 the output file (temporary file + rename) and its
 *                 clean-up on signals; progress.c/.h the progress line;
 *                 prompt.c/.h password lines and the terminal prompt
 *   enc/          `rijn enc` (openssl-enc-compatible AES-CTR file
 *                 encryption; enc/enc.h lists its files)
 *   impl/impl.c   `rijn impl` (backends and CPU features)
 *   seal/         `rijn seal` and `rijn open` (authenticated files,
 *                 doc/format.md; seal/seal.h lists its files)
 *   speed/        `rijn speed` (the benchmark): speed.c the command and
 *                 its cell timing, speed_opts.c options, speed_out.c the
 *                 report (text, JSON), speed_plot.c, speed_threads.c;
 *                 limit.c (limit_asm.c) the AES instruction limit; bench.c
 *                 its measuring half (bench.h); speed_mac.c
 *                 `rijn speed --mac`, Poly1305-AES
 */
#ifndef RIJN_TOOL_H
#define RIJN_TOOL_H

#include <stdarg.h>

/* Subcommands: argv[0] is the subcommand name; return the exit status. */
int cmd_enc(int argc, char **argv);
int cmd_impl(int argc, char **argv);
int cmd_open(int argc, char **argv);
int cmd_seal(int argc, char **argv);
int cmd_speed(int argc, char **argv);

/* Print "rijn: <message>\n" to stderr (printf-style); tool_verr with a
 * va_list. Nothing while tool_quiet is set (only the fuzz targets set it).
 * common/msg.c. */
extern int tool_quiet;
void tool_err(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void tool_verr(const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 0)))
#endif
    ;

/* 1 if s is "-h", "-help" or "--help". */
int tool_is_help(const char *s);

/* If fd is a pipe, ask the kernel to make its buffer `bytes` long (fewer
 * system calls and context switches per megabyte; best effort: a refusal,
 * e.g. over /proc/sys/fs/pipe-max-size, is ignored). */
void tool_grow_pipe(int fd, int bytes);

/* Explain why RIJN_IMPL is unusable (if it is); returns 0 if it is fine.
 * The _gcm one also checks RIJN_GHASH_IMPL, for commands that use
 * AES-GCM. */
int tool_check_rijn_impl_env(const char *prog);
int tool_check_gcm_impl_env(const char *prog);

#endif /* RIJN_TOOL_H */
