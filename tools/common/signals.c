/*
 * Signals of the commands that write a file: SIGINT, SIGTERM and SIGHUP
 * (unless whoever started us ignores them) and SIGBUS remove the temporary
 * output file (output_abandon, output.c) before the process ends; SIGBUS,
 * raised when a mapped file shrinks under us, ends it with a message and
 * exit status 1. A stop signal that arrives while the finished output is
 * being given its name waits until that is done (output_defer_signal).
 * SIGPIPE is ignored, so that a closed pipe is a write error, and SIGXFSZ,
 * so that a write over the file size limit (ulimit -f) fails with EFBIG
 * and goes through the same path as any write error (message, temporary
 * file removed, exit status 1) instead of killing the process and
 * leaving the temporary file behind.
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "output.h"

static const char *signal_who = "rijn";

static void on_fatal_signal(int sig)
{
    if (sig != SIGBUS && output_defer_signal(sig))
        return;
    output_abandon();
    if (sig == SIGBUS) {
        static const char msg[] =
            ": a mapped file changed (shrank) while in use (the input?); "
            "nothing written\n";
        (void)!write(STDERR_FILENO, "rijn: ", 6);
        (void)!write(STDERR_FILENO, signal_who, strlen(signal_who));
        (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
        _exit(1);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void signals_install(const char *who)
{
    static const int stop[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa, old;

    signal_who = who;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_fatal_signal;
    /* A signal ignored by whoever started us stays ignored: nohup (SIGHUP)
     * and the shell's background jobs (SIGINT) rely on it. */
    for (size_t i = 0; i < sizeof stop / sizeof stop[0]; i++)
        if (sigaction(stop[i], NULL, &old) != 0 || old.sa_handler != SIG_IGN)
            sigaction(stop[i], &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    /* A closed pipe must be an EPIPE write error, not a silent death, and
     * the file size limit an EFBIG one. */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    sigaction(SIGXFSZ, &sa, NULL);
}
