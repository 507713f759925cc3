/*
 * tls_bulk: moves N bytes over TLS between a server thread (the sender) and
 * a client thread (the receiver) of this one process, over a socketpair or
 * loopback TCP, and prints the throughput. Everything runs in a library
 * context of its own: with --config FILE that context loads FILE (the rijn
 * provider configuration of doc/provider.md), without it the context has
 * the default provider only; the process's default context never loads a
 * configuration, so OPENSSL_CONF does not matter. The receiver compares
 * every byte with what the sender sent (a 1 MiB random pattern, each MiB
 * stamped with its index), so a wrong, lost or extra byte fails the run.
 *
 *   usage: tls_bulk [--config FILE] [--tls1.2] [--suite NAME] [--tcp]
 *                   [--quiet] [BYTES[K|M|G]]
 *
 * TLS 1.3 with TLS_AES_256_GCM_SHA384 unless told otherwise (--tls1.2:
 * ECDHE-ECDSA-AES256-GCM-SHA384); 1 GiB unless BYTES is given. The server
 * key is a fresh P-256 key with a self-signed certificate; the client does
 * not verify it. Output: one line of key=value pairs (MB = 10^6 bytes).
 * Exit status: 0 delivered intact, 1 failure, 2 usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#define CHUNK ((size_t)1 << 20)

struct opts {
    const char *config;  /* NULL: default provider only */
    const char *suite;
    int tls12;
    int tcp;
    int quiet;
    uint64_t bytes;
};

/* One end of the connection, filled in by main, run by one thread. */
struct end {
    SSL_CTX *ctx;
    int fd;
    uint64_t bytes;
    const unsigned char *pattern;
    int failed;
    /* receiver only: */
    double t0, t1, cpu0, cpu1;
    char version[32], cipher[64];
};

static double now(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void stamp(unsigned char *buf, uint64_t index)
{
    for (int k = 0; k < 8; k++)
        buf[k] = (unsigned char)(index >> (8 * k));
}

static void fail_end(struct end *e, const char *who, const char *what)
{
    fprintf(stderr, "tls_bulk: %s: %s\n", who, what);
    ERR_print_errors_fp(stderr);
    e->failed = 1;
    /* Wake the peer: it must not wait for bytes that will never come. */
    shutdown(e->fd, SHUT_RDWR);
}

static void *sender(void *arg)
{
    struct end *e = arg;
    SSL *ssl = SSL_new(e->ctx);
    unsigned char *buf = malloc(CHUNK);

    if (ssl == NULL || buf == NULL || !SSL_set_fd(ssl, e->fd)) {
        fail_end(e, "server", "setup failed");
        goto out;
    }
    if (SSL_accept(ssl) != 1) {
        fail_end(e, "server", "handshake failed");
        goto out;
    }
    memcpy(buf, e->pattern, CHUNK);
    uint64_t index = 0;
    for (uint64_t off = 0; off < e->bytes; index++) {
        size_t n = e->bytes - off < CHUNK ? (size_t)(e->bytes - off) : CHUNK;
        size_t done = 0;
        stamp(buf, index);
        if (!SSL_write_ex(ssl, buf, n, &done) || done != n) {
            fail_end(e, "server", "SSL_write failed");
            goto out;
        }
        off += n;
    }
    /* close_notify, then wait for the client's. */
    int r = SSL_shutdown(ssl);
    if (r == 0)
        r = SSL_shutdown(ssl);
    if (r != 1)
        fail_end(e, "server", "shutdown failed");
out:
    SSL_free(ssl);
    free(buf);
    return NULL;
}

static void *receiver(void *arg)
{
    struct end *e = arg;
    SSL *ssl = SSL_new(e->ctx);
    unsigned char *buf = malloc(CHUNK), *want = malloc(CHUNK);

    if (ssl == NULL || buf == NULL || want == NULL || !SSL_set_fd(ssl, e->fd)) {
        fail_end(e, "client", "setup failed");
        goto out;
    }
    if (SSL_connect(ssl) != 1) {
        fail_end(e, "client", "handshake failed");
        goto out;
    }
    snprintf(e->version, sizeof(e->version), "%s", SSL_get_version(ssl));
    snprintf(e->cipher, sizeof(e->cipher), "%s",
             SSL_CIPHER_get_name(SSL_get_current_cipher(ssl)));
    e->t0 = now(CLOCK_MONOTONIC);
    e->cpu0 = now(CLOCK_PROCESS_CPUTIME_ID);
    memcpy(want, e->pattern, CHUNK);
    uint64_t index = 0;
    for (uint64_t off = 0; off < e->bytes; index++) {
        size_t n = e->bytes - off < CHUNK ? (size_t)(e->bytes - off) : CHUNK;
        size_t have = 0, got;
        while (have < n) {
            if (!SSL_read_ex(ssl, buf + have, n - have, &got)) {
                char msg[96];
                snprintf(msg, sizeof(msg), "stream ended or failed at byte %" PRIu64
                         " of %" PRIu64, off + have, e->bytes);
                fail_end(e, "client", msg);
                goto out;
            }
            have += got;
        }
        stamp(want, index);
        if (memcmp(buf, want, n) != 0) {
            size_t i = 0;
            while (buf[i] == want[i])
                i++;
            char msg[96];
            snprintf(msg, sizeof(msg), "received byte %" PRIu64 " differs from the one sent",
                     off + i);
            fail_end(e, "client", msg);
            goto out;
        }
        off += n;
    }
    e->t1 = now(CLOCK_MONOTONIC);
    e->cpu1 = now(CLOCK_PROCESS_CPUTIME_ID);
    /* Nothing may follow but the server's close_notify. */
    size_t extra = 0;
    unsigned char one;
    if (SSL_read_ex(ssl, &one, 1, &extra) || SSL_get_error(ssl, 0) != SSL_ERROR_ZERO_RETURN) {
        fail_end(e, "client", extra ? "data after the last byte" : "no close_notify at the end");
        goto out;
    }
    if (SSL_shutdown(ssl) != 1)
        fail_end(e, "client", "shutdown failed");
out:
    SSL_free(ssl);
    free(buf);
    free(want);
    return NULL;
}

static EVP_PKEY *make_key(OSSL_LIB_CTX *lc)
{
    return EVP_PKEY_Q_keygen(lc, NULL, "EC", "P-256");
}

static X509 *make_cert(OSSL_LIB_CTX *lc, EVP_PKEY *key)
{
    X509 *x = X509_new_ex(lc, NULL);
    X509_NAME *name;

    if (x == NULL)
        return NULL;
    name = X509_get_subject_name(x);
    if (!X509_set_version(x, X509_VERSION_3)
        || !ASN1_INTEGER_set(X509_get_serialNumber(x), 1)
        || X509_gmtime_adj(X509_getm_notBefore(x), -60) == NULL
        || X509_gmtime_adj(X509_getm_notAfter(x), 86400) == NULL
        || !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                       (const unsigned char *)"tls_bulk", -1, -1, 0)
        || !X509_set_issuer_name(x, name)
        || !X509_set_pubkey(x, key)
        || X509_sign(x, key, EVP_sha256()) <= 0) {
        X509_free(x);
        return NULL;
    }
    return x;
}

static SSL_CTX *make_ctx(OSSL_LIB_CTX *lc, const struct opts *o, int server,
                         EVP_PKEY *key, X509 *cert)
{
    SSL_CTX *ctx = SSL_CTX_new_ex(lc, NULL, server ? TLS_server_method() : TLS_client_method());
    int v = o->tls12 ? TLS1_2_VERSION : TLS1_3_VERSION;

    if (ctx == NULL)
        return NULL;
    if (!SSL_CTX_set_min_proto_version(ctx, v) || !SSL_CTX_set_max_proto_version(ctx, v)
        || !(o->tls12 ? SSL_CTX_set_cipher_list(ctx, o->suite)
                      : SSL_CTX_set_ciphersuites(ctx, o->suite))
        || (server && (SSL_CTX_use_certificate(ctx, cert) != 1
                       || SSL_CTX_use_PrivateKey(ctx, key) != 1))) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    return ctx;
}

/* fds[0]: server end, fds[1]: client end. */
static int connect_pair(int tcp, int fds[2])
{
    if (!tcp)
        return socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(ls, 1) != 0
        || getsockname(ls, (struct sockaddr *)&a, &len) != 0
        || (fds[1] = socket(AF_INET, SOCK_STREAM, 0)) < 0
        || connect(fds[1], (struct sockaddr *)&a, sizeof(a)) != 0
        || (fds[0] = accept(ls, NULL, NULL)) < 0) {
        if (ls >= 0)
            close(ls);
        return -1;
    }
    close(ls);
    return 0;
}

static int parse_bytes(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 0;
    if (errno != 0 || end == s || s[0] == '-')
        return 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift != 0)
        end++;
    if (*end != '\0' || v > (UINT64_MAX >> shift))
        return 0;
    *out = (uint64_t)v << shift;
    return 1;
}

static int usage(void)
{
    fprintf(stderr, "usage: tls_bulk [--config FILE] [--tls1.2] [--suite NAME] [--tcp]"
                    " [--quiet] [BYTES[K|M|G]]\n");
    return 2;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    memset(o, 0, sizeof(*o));
    o->bytes = (uint64_t)1 << 30;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            o->config = argv[++i];
        else if (strcmp(argv[i], "--suite") == 0 && i + 1 < argc)
            o->suite = argv[++i];
        else if (strcmp(argv[i], "--tls1.2") == 0)
            o->tls12 = 1;
        else if (strcmp(argv[i], "--tcp") == 0)
            o->tcp = 1;
        else if (strcmp(argv[i], "--quiet") == 0)
            o->quiet = 1;
        else if (argv[i][0] == '-' || !parse_bytes(argv[i], &o->bytes))
            return 0;
    }
    if (o->suite == NULL)
        o->suite = o->tls12 ? "ECDHE-ECDSA-AES256-GCM-SHA384" : "TLS_AES_256_GCM_SHA384";
    return 1;
}

int main(int argc, char **argv)
{
    struct opts o;
    OSSL_LIB_CTX *lc = NULL;
    OSSL_PROVIDER *dflt = NULL;
    EVP_PKEY *key = NULL;
    X509 *cert = NULL;
    struct end srv, cli;
    unsigned char *pattern = NULL;
    char provider[64] = "none";
    int fds[2] = {-1, -1}, rc = 1;

    if (!parse_args(argc, argv, &o))
        return usage();
    signal(SIGPIPE, SIG_IGN);
    memset(&srv, 0, sizeof(srv));
    memset(&cli, 0, sizeof(cli));

    /* The default context stays unconfigured: only lc is measured. */
    if (!OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL)
        || (lc = OSSL_LIB_CTX_new()) == NULL) {
        fprintf(stderr, "tls_bulk: OpenSSL init failed\n");
        goto done;
    }
    if (o.config != NULL ? !OSSL_LIB_CTX_load_config(lc, o.config)
                         : (dflt = OSSL_PROVIDER_load(lc, "default")) == NULL) {
        fprintf(stderr, "tls_bulk: cannot %s %s\n", o.config ? "load config" : "load provider",
                o.config ? o.config : "default");
        goto done;
    }
    /* Which provider this context picks for the record cipher. */
    const char *alg = strstr(o.suite, "128") != NULL ? "AES-128-GCM" : "AES-256-GCM";
    EVP_CIPHER *c = EVP_CIPHER_fetch(lc, alg, NULL);
    if (c != NULL)
        snprintf(provider, sizeof(provider), "%s",
                 OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)));
    EVP_CIPHER_free(c);

    if ((pattern = malloc(CHUNK)) == NULL
        || RAND_bytes_ex(lc, pattern, CHUNK, 0) != 1
        || (key = make_key(lc)) == NULL || (cert = make_cert(lc, key)) == NULL
        || (srv.ctx = make_ctx(lc, &o, 1, key, cert)) == NULL
        || (cli.ctx = make_ctx(lc, &o, 0, NULL, NULL)) == NULL) {
        fprintf(stderr, "tls_bulk: setup failed (key, certificate or SSL_CTX; suite %s)\n",
                o.suite);
        ERR_print_errors_fp(stderr);
        goto done;
    }
    if (connect_pair(o.tcp, fds) != 0) {
        perror("tls_bulk: socket");
        goto done;
    }
    srv.fd = fds[0];
    cli.fd = fds[1];
    srv.bytes = cli.bytes = o.bytes;
    srv.pattern = cli.pattern = pattern;

    pthread_t ts, tc;
    if (pthread_create(&ts, NULL, sender, &srv) != 0) {
        fprintf(stderr, "tls_bulk: pthread_create failed\n");
        goto done;
    }
    if (pthread_create(&tc, NULL, receiver, &cli) != 0) {
        fprintf(stderr, "tls_bulk: pthread_create failed\n");
        shutdown(srv.fd, SHUT_RDWR);
        pthread_join(ts, NULL);
        goto done;
    }
    pthread_join(tc, NULL);
    pthread_join(ts, NULL);
    if (srv.failed || cli.failed)
        goto done;

    double secs = cli.t1 - cli.t0, cpu = cli.cpu1 - cli.cpu0;
    if (secs <= 0)
        secs = 1e-9;
    if (cpu <= 0)
        cpu = 1e-9;
    if (!o.quiet)
        printf("tls_bulk: protocol=%s suite=%s provider=%s transport=%s bytes=%" PRIu64
               " seconds=%.3f MB/s=%.1f cpu_seconds=%.3f MB/cpu_s=%.1f\n",
               cli.version, cli.cipher, provider, o.tcp ? "tcp" : "socketpair", o.bytes,
               secs, (double)o.bytes / secs / 1e6, cpu, (double)o.bytes / cpu / 1e6);
    rc = 0;
done:
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    SSL_CTX_free(srv.ctx);
    SSL_CTX_free(cli.ctx);
    X509_free(cert);
    EVP_PKEY_free(key);
    free(pattern);
    OSSL_PROVIDER_unload(dflt);
    /* Unloads the providers lc loaded (rijn writes its trace here). */
    OSSL_LIB_CTX_free(lc);
    return rc;
}
