/*
 * Reading a line (a password, a passphrase) from a descriptor or the
 * terminal (prompt.c), for `rijn enc`, `seal` and `open`.
 */
#ifndef RIJN_TOOL_PROMPT_H
#define RIJN_TOOL_PROMPT_H

#include <stddef.h>

/*
 * Like openssl's BIO_gets(cap): at most cap - 1 bytes, up to and
 * including a newline, read one byte at a time so that nothing after the
 * line is consumed (the rest of stdin may be the data). buf is
 * NUL-terminated; returns the bytes read, or -1 on a read error.
 */
int tool_read_line(int fd, char *buf, size_t cap);

/*
 * Write prompt to out_fd and read one line from in_fd, with echo off when
 * tty (in_fd is a terminal). Like openssl's console UI, a newline follows
 * the answer (which was not echoed) whether or not the prompt went to a
 * terminal, and whether or not the read worked. The line must end with a
 * newline, which is removed, and hold no NUL byte (it would cut the
 * answer short unseen). Returns its length, or -1.
 */
int tool_prompt_line(int in_fd, int out_fd, int tty, const char *prompt,
                     char *buf, size_t cap);

#endif /* RIJN_TOOL_PROMPT_H */
