/* httpload: the two HTTP loads scripts/bench needs that wrk does not do. One thread, epoll,
 * keep-alive connections to 127.0.0.1, bounded in count and in time; prints one JSON line.
 *
 *   httpload PORT fixed RATE SECONDS CONNECTIONS PREFIX KEYS
 *       Open loop: GET PREFIX<n> (n = 1..KEYS in turn) at RATE requests per second for SECONDS.
 *       Each request's latency runs from the moment it was due, not from when a connection was
 *       free to send it, so a server that falls behind shows it (no coordinated omission).
 *   httpload PORT patch COUNT SECONDS CONNECTIONS PREFIX KEYS
 *       Closed loop: COUNT PATCHes (or SECONDS, whichever ends first) of PREFIX<n> with
 *       If-Match, each connection over its own keys, one request at a time, the version taken
 *       from the previous response's ETag (a GET of every key first, before the clock starts).
 *
 * The bearer token comes from TASKBASE_BENCH_TOKEN (not the command line, which ps shows).
 * Responses are framed by Content-Length only (what taskserve and uvicorn send for these
 * routes); anything else is counted as an error and ends the connection. At most 5 seconds
 * past SECONDS the run ends and what is still outstanding counts as timed out.
 *
 * With HTTPLOAD_TRACE=FILE it also writes one line per answered request to FILE, once the run
 * has ended (nothing is written while it runs): when the request was due, in milliseconds
 * from the clock's start, and its latency in milliseconds. A p99 over the target then shows
 * whether it came from a few stalls or from a server that fell behind for a while.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { FIXED, PATCH };

struct conn {
    int fd;
    int busy, dead, is_get;
    int64_t due;   /* when the outstanding request was due (ns) */
    long key;      /* the key of the outstanding request */
    long next_key; /* patch: the index of this connection's next own key */
    char out[1024];
    size_t out_len, out_off;
    char *in;
    size_t in_len, in_cap;
};

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "httpload: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int port, mode, connections;
static long keys;
static const char *token, *prefix;
static long long *versions; /* patch: each key's last known version (0: unknown) */
static long statuses[600];
static double *latencies;
static double *due_at; /* each measured request's due time (ms from start), for HTTPLOAD_TRACE */
static long measured, errors, timed_out;
static int measuring;

static void build(struct conn *c, long key, int get, long serial) {
    if (get) {
        c->out_len = (size_t)snprintf(c->out, sizeof c->out,
                                      "GET %s%ld HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\n\r\n", prefix, key, port,
                                      token);
    } else {
        char body[96];
        int body_len = snprintf(body, sizeof body, "{\"title\":\"Patched by W8 %ld\"}", serial);
        c->out_len = (size_t)snprintf(c->out, sizeof c->out,
                                      "PATCH %s%ld HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\n"
                                      "Content-Type: application/merge-patch+json\r\nIf-Match: \"%lld\"\r\nContent-Length: %d\r\n\r\n%s",
                                      prefix, key, port, token, versions[key], body_len, body);
    }
    c->out_off = 0;
    c->key = key;
    c->is_get = get;
    c->busy = 1;
}

static int flush_out(struct conn *c) {
    while (c->out_off < c->out_len) {
        ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        if (n < 0) return errno == EAGAIN ? 0 : -1;
        c->out_off += (size_t)n;
    }
    return 0;
}

static const char *header(const char *head, size_t head_len, const char *name) {
    size_t name_len = strlen(name);
    for (const char *p = head; p + name_len < head + head_len; p++) {
        if ((p == head || p[-1] == '\n') && strncasecmp(p, name, name_len) == 0) return p + name_len;
    }
    return NULL;
}

/* 1: a whole response was consumed; 0: not yet; -1: unusable. */
static int take_response(struct conn *c, int *status) {
    char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
    if (!end) return 0;
    size_t head_len = (size_t)(end - c->in) + 4;
    if (c->in_len < 12 || strncmp(c->in, "HTTP/1.", 7) != 0) return -1;
    *status = atoi(c->in + 9);
    const char *length = header(c->in, head_len, "content-length:");
    if (!length) return -1;
    size_t body = (size_t)strtoul(length, NULL, 10);
    if (c->in_len < head_len + body) return 0;
    const char *etag = header(c->in, head_len, "etag:");
    if (etag && mode == PATCH) {
        while (*etag == ' ' || *etag == '"' || *etag == 'W' || *etag == '/') etag++;
        long long version = atoll(etag);
        if (version > 0) versions[c->key] = version;
    }
    memmove(c->in, c->in + head_len + body, c->in_len - head_len - body);
    c->in_len -= head_len + body;
    return 1;
}

int main(int argc, char **argv) {
    token = getenv("TASKBASE_BENCH_TOKEN");
    if (argc != 8 || (strcmp(argv[2], "fixed") && strcmp(argv[2], "patch")) || !token) {
        fprintf(stderr, "usage: TASKBASE_BENCH_TOKEN=... httpload PORT fixed RATE SECONDS CONNECTIONS PREFIX KEYS\n"
                        "       TASKBASE_BENCH_TOKEN=... httpload PORT patch COUNT SECONDS CONNECTIONS PREFIX KEYS\n");
        return 2;
    }
    port = atoi(argv[1]);
    mode = strcmp(argv[2], "fixed") == 0 ? FIXED : PATCH;
    double amount = atof(argv[3]), seconds = atof(argv[4]);
    connections = atoi(argv[5]);
    prefix = argv[6];
    keys = atol(argv[7]);
    if (amount <= 0 || seconds <= 0 || connections <= 0 || keys <= 0 || (mode == PATCH && keys < connections)) {
        fprintf(stderr, "httpload: the counts must be positive (and KEYS >= CONNECTIONS for patch)\n");
        return 2;
    }
    long total = mode == FIXED ? (long)(amount * seconds) : (long)amount;
    latencies = calloc((size_t)total + 1, sizeof *latencies);
    versions = calloc((size_t)keys + 1, sizeof *versions);
    const char *trace_path = getenv("HTTPLOAD_TRACE");
    if (trace_path && *trace_path && !(due_at = calloc((size_t)total + 1, sizeof *due_at))) die("setup");
    struct conn *conns = calloc((size_t)connections, sizeof *conns);
    int ep = epoll_create1(0);
    if (ep < 0 || !latencies || !versions || !conns) die("setup");

    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    for (int i = 0; i < connections; i++) {
        struct conn *c = &conns[i];
        c->fd = socket(AF_INET, SOCK_STREAM, 0);
        if (c->fd < 0) die("socket");
        if (connect(c->fd, (struct sockaddr *)&address, sizeof address) < 0) die("connect");
        int one = 1;
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        fcntl(c->fd, F_SETFL, O_NONBLOCK);
        c->in_cap = 16384;
        c->in = malloc(c->in_cap);
        c->next_key = i + 1;
        struct epoll_event event = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.u32 = (uint32_t)i};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &event) < 0) die("epoll_ctl");
    }

    /* patch: learn every key's version first (GETs, not measured). */
    long warm_next = 1, warm_done = 0;
    long issued = 0, completed = 0, serial = 0;
    int64_t start = now_ns(), stop_at = start + (int64_t)(seconds * 1e9), give_up = stop_at + 5000000000LL;
    int64_t warm_give_up = start + 30000000000LL;
    measuring = mode == FIXED;
    double interval = mode == FIXED ? 1e9 / amount : 0;
    struct epoll_event events[256];

    for (;;) {
        int64_t now = now_ns();
        if (!measuring) {
            if (warm_done == keys) {
                measuring = 1;
                start = now_ns();
                stop_at = start + (int64_t)(seconds * 1e9);
                give_up = stop_at + 5000000000LL;
            } else if (now > warm_give_up) {
                fprintf(stderr, "httpload: the GETs before the PATCHes did not finish in 30 seconds\n");
                return 1;
            }
        }
        /* Start what is due on the free connections. */
        int alive = 0;
        for (int i = 0; i < connections; i++) {
            struct conn *c = &conns[i];
            if (c->dead) continue;
            alive++;
            if (c->busy) continue;
            if (!measuring) {
                if (warm_next > keys) continue;
                build(c, warm_next++, 1, 0);
                c->due = now;
            } else if (mode == FIXED) {
                /* Every planned request is sent, however late the loop woke for it (epoll's
                 * timeout is in milliseconds): its latency still runs from when it was due. */
                if (issued >= total) continue;
                int64_t due = start + (int64_t)(issued * interval);
                if (due > now) continue;
                build(c, issued % keys + 1, 1, 0);
                c->due = due;
                issued++;
            } else {
                if (issued >= total || now >= stop_at) continue;
                long key = c->next_key;
                c->next_key += connections;
                if (c->next_key > keys) c->next_key = i + 1;
                build(c, key, 0, ++serial);
                c->due = now;
                issued++;
            }
            if (flush_out(c) < 0) {
                c->dead = 1;
                errors++;
            }
        }
        int outstanding = 0;
        for (int i = 0; i < connections; i++) outstanding += conns[i].busy && !conns[i].dead;
        int finished = measuring && outstanding == 0 && (issued >= total || (mode != FIXED && now >= stop_at));
        if (finished || alive == 0) break;
        if (measuring && now >= give_up) {
            timed_out = outstanding;
            break;
        }
        /* Sleep until a response or the next due request. */
        struct timespec timeout = {0, 1000000};
        if (measuring && mode == FIXED && issued < total) {
            int64_t wait = start + (int64_t)(issued * interval) - now;
            if (wait < 0) wait = 0;
            if (wait < 1000000) timeout.tv_nsec = (long)wait;
        }
        int ready = epoll_pwait2(ep, events, 256, &timeout, NULL);
        if (ready < 0 && errno != EINTR) die("epoll_pwait2");
        for (int e = 0; e < ready; e++) {
            struct conn *c = &conns[events[e].data.u32];
            if (c->dead) continue;
            if ((events[e].events & EPOLLOUT) && flush_out(c) < 0) {
                c->dead = 1;
                errors++;
                continue;
            }
            if (!(events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
            for (;;) {
                if (c->in_len == c->in_cap) {
                    c->in_cap *= 2;
                    c->in = realloc(c->in, c->in_cap);
                }
                ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
                if (n > 0) {
                    c->in_len += (size_t)n;
                    continue;
                }
                if (n == 0 || errno != EAGAIN) {
                    c->dead = 1;
                    if (c->busy) errors++;
                }
                break;
            }
            int status;
            int taken;
            while (c->busy && (taken = take_response(c, &status)) != 0) {
                if (taken < 0) {
                    c->dead = 1;
                    errors++;
                    break;
                }
                c->busy = 0;
                if (!measuring || (c->is_get && mode == PATCH)) {
                    warm_done++;
                    continue;
                }
                completed++;
                if (status >= 100 && status < 600) statuses[status]++;
                if (status >= 200 && status < 300) {
                    if (measured < total) {
                        if (due_at) due_at[measured] = (double)(c->due - start) / 1e6;
                        latencies[measured++] = (double)(now_ns() - c->due) / 1e6;
                    }
                } else {
                    errors++;
                }
            }
        }
    }
    double elapsed = (double)(now_ns() - start) / 1e9;
    if (due_at) {
        FILE *trace = fopen(trace_path, "w");
        if (!trace) die(trace_path);
        for (long i = 0; i < measured; i++) fprintf(trace, "%.3f %.3f\n", due_at[i], latencies[i]);
        if (fclose(trace) != 0) die(trace_path);
    }
    qsort(latencies, (size_t)measured, sizeof *latencies, compare);
#define PCT(p) (measured ? latencies[(size_t)((double)(measured - 1) * (p))] : 0.0)
    printf("{\"mode\": \"%s\", \"operations\": %ld, \"seconds\": %.6f, \"issued\": %ld, \"completed\": %ld, \"errors\": %ld, "
           "\"timed_out\": %ld, \"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, \"p999_ms\": %.3f, \"max_ms\": %.3f, \"statuses\": {",
           mode == FIXED ? "fixed" : "patch", measured, elapsed, issued, completed, errors, timed_out, PCT(0.5), PCT(0.9), PCT(0.99),
           PCT(0.999), measured ? latencies[measured - 1] : 0.0);
    int first = 1;
    for (int s = 0; s < 600; s++) {
        if (!statuses[s]) continue;
        printf("%s\"%d\": %ld", first ? "" : ", ", s, statuses[s]);
        first = 0;
    }
    printf("}}\n");
    return 0;
}
