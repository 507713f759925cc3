/*
 * Line and prompt reading for passwords and passphrases (prompt.h).
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "prompt.h"

/* see prompt.h */
int tool_read_line(int fd, char *buf, size_t cap)
{
    size_t n = 0;

    while (n + 1 < cap) {
        char c;
        ssize_t r = read(fd, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        buf[n++] = c;
        if (c == '\n')
            break;
    }
    buf[n] = '\0';
    return (int)n;
}

/* see prompt.h */
int tool_prompt_line(int in_fd, int out_fd, int tty, const char *prompt,
                     char *buf, size_t cap)
{
    struct termios old, quiet;
    int n, restore = 0;

    /* Echo off before the prompt shows: TCSAFLUSH drops what was typed
     * before it, never an answer to it. */
    if (tty && tcgetattr(in_fd, &old) == 0) {
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        if (tcsetattr(in_fd, TCSAFLUSH, &quiet) == 0)
            restore = 1;
    }
    (void)!write(out_fd, prompt, strlen(prompt));
    n = tool_read_line(in_fd, buf, cap);
    if (restore)
        tcsetattr(in_fd, TCSAFLUSH, &old);
    (void)!write(out_fd, "\n", 1);
    if (n <= 0 || buf[n - 1] != '\n')
        return -1;
    /* a NUL byte would cut the passphrase short without a word: openssl's
     * prompt refuses such a line ("bad password read"), so do we */
    if (memchr(buf, '\0', (size_t)n) != NULL)
        return -1;
    buf[--n] = '\0';
    return n;
}
