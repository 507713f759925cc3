/*
 * `rijn`: the command-line front end of librijn.
 *
 *   rijn enc -aes-128-ctr [-K hex -iv hex | -k pw ...] ...  (openssl enc)
 *   rijn aes-128-ctr ...                                     (same)
 *   rijn seal [-in f] [-out f] [--key-file f | --passphrase-...]  (AEAD)
 *   rijn open [-in f] [-out f] [--key-file f | ...] [--offset n ...]
 *   rijn impl                                                (backends)
 *   rijn speed [options]                                     (benchmark)
 */

#define _GNU_SOURCE /* F_SETPIPE_SZ; implies POSIX 2008 */

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rijn.h"
#include "rijn_gcm.h"
#include "tool.h"

/* One kind of implementation the environment may force: its variable, what
 * the library picks (NULL when the variable names one it cannot use) and
 * its list. */
struct impl_kind {
    const char *var, *what;
    const char *(*pick)(void);
    int (*get)(size_t i, rijn_impl_info *info);
};

static const struct impl_kind aes_kind = {
    "RIJN_IMPL", "AES backend", rijn_impl_default, rijn_impl_get};
static const struct impl_kind ghash_kind = {
    "RIJN_GHASH_IMPL", "GHASH engine", rijn_gcm_impl_default,
    rijn_gcm_impl_get};

/* Says why k's variable makes the library refuse (if it does). */
static int check_impl_env(const char *prog, const struct impl_kind *k)
{
    const char *want = getenv(k->var);
    rijn_impl_info info;

    if (k->pick() != NULL)
        return 0;
    if (want == NULL || *want == '\0') {
        tool_err("%s: no %s can run on this CPU", prog, k->what);
        return -1;
    }
    for (size_t i = 0; k->get(i, &info) == 0; i++) {
        if (strcmp(info.name, want) != 0)
            continue;
        if (!info.available)
            tool_err("%s: %s=%s: this CPU cannot run it (needs %s)", prog,
                     k->var, want, info.needs[0] ? info.needs : "-");
        else
            tool_err("%s: %s=%s: not constant time; the environment "
                     "may select it only with RIJN_ALLOW_VARIABLE_TIME=1",
                     prog, k->var, want);
        return -1;
    }
    fflush(stdout);
    fprintf(stderr, "rijn: %s: %s=%s: unknown %s; compiled in:", prog,
            k->var, want, k->what);
    for (size_t i = 0; k->get(i, &info) == 0; i++)
        fprintf(stderr, "%s%s", i ? ", " : " ", info.name);
    fputc('\n', stderr);
    return -1;
}

int tool_check_rijn_impl_env(const char *prog)
{
    return check_impl_env(prog, &aes_kind);
}

int tool_check_gcm_impl_env(const char *prog)
{
    /* the AES backend first: the engine is picked for it */
    if (check_impl_env(prog, &aes_kind) != 0)
        return -1;
    return check_impl_env(prog, &ghash_kind);
}

static void usage(FILE *f)
{
    fputs("usage: rijn <command> [options]\n"
          "\n"
          "commands:\n"
          "  enc -aes-{128,192,256}-ctr [-e|-d] [-K hex -iv hex | -k pw | -pass src]\n"
          "      [-pbkdf2] [-a] [-in f] [-out f]   (see `rijn enc --help`)\n"
          "                  encrypt or decrypt a file with AES-CTR, byte for\n"
          "                  byte like `openssl enc` (stdin/stdout by default)\n"
          "  aes-{128,192,256}-ctr ...\n"
          "                  same as `enc -aes-...-ctr ...`\n"
          "  seal [-in f] [-out f] [--key-file f | --passphrase-file f |\n"
          "       --passphrase-env VAR]   (see `rijn seal --help`)\n"
          "                  encrypt and authenticate a file: AES-256-GCM in\n"
          "                  16 KiB chunks (doc/format.md); a passphrase goes\n"
          "                  through Argon2id\n"
          "  open [-in f] [-out f] [key options] [--offset n --length n]\n"
          "                  decrypt a sealed file, checking every byte; a\n"
          "                  damaged or wrong-key file releases nothing\n"
          "  impl            list the AES backends, which ones this CPU runs,\n"
          "                  which one is picked, and the CPU features\n"
          "  speed [options] benchmark every backend against OpenSSL and\n"
          "                  libgcrypt (when installed)\n"
          "\n"
          "  rijn <command> --help   help for one command\n"
          "  rijn --version          version, default backend, CPU features\n"
          "\n"
          "environment:\n"
          "  RIJN_IMPL=name      force a backend (see `rijn impl`); ref, which\n"
          "                      is not constant time, only with\n"
          "                      RIJN_ALLOW_VARIABLE_TIME=1\n"
          "  RIJN_CPU_MASK=list  hide CPU features (\"avx512f,vaes\" or 0xMASK)\n",
          f);
}

static int version(void)
{
    char feat[512];
    const char *def = rijn_impl_default();
    const char *want = getenv("RIJN_IMPL");

    printf("rijn %s (library %s)\n", RIJN_VERSION_STRING, rijn_version());
    if (def != NULL)
        printf("default backend: %s%s\n", def,
               want && *want ? " (from RIJN_IMPL)" : "");
    else
        printf("default backend: none (RIJN_IMPL=%s is unknown or "
               "unavailable)\n", want ? want : "");
    printf("cpu features: %s\n", rijn_cpu_features(feat, sizeof feat));
    return 0;
}

int main(int argc, char **argv)
{
    const char *cmd;

    if (argc < 2) {
        usage(stderr);
        return 1;
    }
    cmd = argv[1];
    if (tool_is_help(cmd) || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-version") == 0 ||
        strcmp(cmd, "version") == 0)
        return version();
    if (strcmp(cmd, "enc") == 0)
        return cmd_enc(argc - 1, argv + 1);
    if (strcmp(cmd, "aes-128-ctr") == 0 || strcmp(cmd, "aes-192-ctr") == 0 ||
        strcmp(cmd, "aes-256-ctr") == 0)
        return cmd_enc(argc - 1, argv + 1);
    if (strcmp(cmd, "seal") == 0)
        return cmd_seal(argc - 1, argv + 1);
    if (strcmp(cmd, "open") == 0)
        return cmd_open(argc - 1, argv + 1);
    if (strcmp(cmd, "impl") == 0)
        return cmd_impl(argc - 1, argv + 1);
    if (strcmp(cmd, "speed") == 0)
        return cmd_speed(argc - 1, argv + 1);
    tool_err("unknown command '%s' (try `rijn --help`)", cmd);
    return 1;
}

void tool_grow_pipe(int fd, int bytes)
{
#ifdef F_SETPIPE_SZ
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
        (void)fcntl(fd, F_SETPIPE_SZ, bytes);
#else
    (void)fd;
    (void)bytes;
#endif
}
