/*
 * The hostile neighbour of tests/seal/test_race.sh: a process that can
 * write a sealed file and toggles bytes of it while `rijn open` reads it.
 *
 *   seal_toggle [-w] READY FILE OFFSET...
 *
 * XORs the byte at each OFFSET with 0x01, over and over, through a shared
 * mapping of FILE (-w: with pwrite(2) instead, as a process that does not
 * map the file would), so that the page cache holds the original and the
 * flipped value in turn. Once it runs it creates the file READY (the
 * script waits for it); on SIGTERM or SIGINT, or once its parent (the
 * script) is gone, it puts every byte back to its original value and
 * exits 0. (A script killed outright, as a test runner may kill it on a
 * timeout, runs no trap: the toggler it had started went on spinning a
 * core for the rest of the test run.)
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_OFF 16

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
    (void)sig;
    stop = 1;
}

/* Whether to stop: a signal came, or (checked every 4096 calls) the
 * parent that started this process has gone. */
static int stopping(pid_t parent, unsigned k)
{
    if (k % 4096 == 0 && getppid() != parent)
        stop = 1;
    return stop;
}

static int die(const char *what)
{
    fprintf(stderr, "seal_toggle: %s: %s\n", what, strerror(errno));
    return 1;
}

int main(int argc, char **argv)
{
    const pid_t parent = getppid();
    int use_write = 0, n = 0, fd;
    off_t off[MAX_OFF];
    unsigned char orig[MAX_OFF];
    struct stat st;
    struct sigaction sa;

    if (argc > 1 && strcmp(argv[1], "-w") == 0) {
        use_write = 1;
        argv++;
        argc--;
    }
    if (argc < 4 || argc - 3 > MAX_OFF) {
        fprintf(stderr, "usage: seal_toggle [-w] READY FILE OFFSET... "
                        "(at most %d offsets)\n", MAX_OFF);
        return 2;
    }
    fd = open(argv[2], O_RDWR);
    if (fd < 0 || fstat(fd, &st) != 0)
        return die(argv[2]);
    for (int i = 3; i < argc; i++) {
        char *end;
        long long v = strtoll(argv[i], &end, 10);
        if (*end != '\0' || v < 0 || v >= st.st_size) {
            fprintf(stderr, "seal_toggle: offset %s: not in the file (%lld "
                            "bytes)\n", argv[i], (long long)st.st_size);
            return 2;
        }
        off[n] = (off_t)v;
        if (pread(fd, &orig[n], 1, off[n]) != 1)
            return die("pread");
        n++;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    if (use_write) {
        int ready = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (ready < 0)
            return die(argv[1]);
        close(ready);
        for (unsigned k = 0; !stopping(parent, k); k++) {
            for (int i = 0; i < n; i++) {
                unsigned char b = (unsigned char)(orig[i] ^ (k & 1));
                if (pwrite(fd, &b, 1, off[i]) != 1 && errno != EINTR)
                    return die("pwrite");
            }
        }
    } else {
        volatile unsigned char *p =
            mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
                 MAP_SHARED, fd, 0);
        if ((void *)p == MAP_FAILED)
            return die("mmap");
        int ready = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (ready < 0)
            return die(argv[1]);
        close(ready);
        for (unsigned k = 0; !stopping(parent, k); k++)
            for (int i = 0; i < n; i++)
                p[off[i]] ^= 1;
        munmap((void *)p, (size_t)st.st_size);
    }
    /* back to the original bytes, whatever the last toggle left */
    for (int i = 0; i < n; i++)
        if (pwrite(fd, &orig[i], 1, off[i]) != 1)
            return die("pwrite");
    close(fd);
    return 0;
}
