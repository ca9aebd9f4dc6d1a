// KeyPool benchmark: N POSTs at the same moment, one socket each, from one thread with epoll (C, no dependencies).
// The Node client (inflight.js burst) spends ~3.7 s of a core on 9,800 sockets on a 2-core machine, which the
// gateway then does not get; this one costs a fraction of that, so that a burst measures the gateway.
//
//   gcc -O2 -o /tmp/keypool-burst bench/burst.c
//   /tmp/keypool-burst 127.0.0.1 18080 /v1/chat/completions 9800 [timeout-s]
//
// Prints the statuses and the wall time from the first connect to the last complete answer, when the requests were
// connected (the socket writable: the server's SYN-ACK came; a SYN the full listen queue dropped is sent again after
// 1 s), when their answers began and ended (percentiles from the burst's start), then a machine-readable
// "RESULT {json}" line with the fields bench/run.sh reads from inflight.js's, these phases, and the burst's start on
// CLOCK_MONOTONIC (startMono: bench/fake-burst.c stamps its arrivals on the same clock).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUF 16384

struct call {
    int fd;
    size_t sent;
    size_t got;
    long status;
    long need;   // header length + Content-Length once known, else -1
    double took; // seconds from the burst's start to the complete answer
    double connected;  // ... to the first time the socket was writable
    double first_byte; // ... to the first byte of the answer
    char buf[BUF];
};

static int by_value(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s host port path n [timeout-s]\n", argv[0]);
        return 2;
    }
    const char *host = argv[1], *path = argv[3];
    int port = atoi(argv[2]), n = atoi(argv[4]);
    double timeout = argc > 5 ? atof(argv[5]) : 60;
    const char *body = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"ping\"}],\"max_tokens\":1}";
    char request[1024];
    int request_len = snprintf(request, sizeof request,
            "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
            "Connection: close\r\n\r\n%s", path, host, port, strlen(body), body);

    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, host, &to.sin_addr);
    int ep = epoll_create1(0);
    struct call *calls = calloc(n, sizeof *calls);
    int open_sockets = 0, errors = 0;
    double start = now();
    for (int i = 0; i < n; i++) {
        struct call *c = &calls[i];
        c->need = -1;
        c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (c->fd < 0) {
            c->status = -1;
            errors++;
            continue;
        }
        int one = 1;
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(c->fd, (struct sockaddr *) &to, sizeof to) < 0 && errno != EINPROGRESS) {
            close(c->fd);
            c->status = -1;
            errors++;
            continue;
        }
        struct epoll_event ev = {.events = EPOLLOUT | EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
        open_sockets++;
    }
    struct epoll_event events[1024];
    while (open_sockets > 0 && now() - start < timeout) {
        int ready = epoll_wait(ep, events, 1024, 100);
        for (int e = 0; e < ready; e++) {
            struct call *c = events[e].data.ptr;
            int done = 0;
            if ((events[e].events & EPOLLOUT) && c->connected == 0) {
                c->connected = now() - start;
            }
            if ((events[e].events & EPOLLOUT) && c->sent < (size_t) request_len) {
                ssize_t w = write(c->fd, request + c->sent, request_len - c->sent);
                if (w > 0) {
                    c->sent += w;
                    if (c->sent == (size_t) request_len) {
                        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
                        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
                    }
                } else if (errno != EAGAIN) {
                    c->status = -1;
                    done = 1;
                }
            }
            if (!done && (events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
                ssize_t r = read(c->fd, c->buf + c->got, BUF - 1 - c->got);
                if (r > 0) {
                    if (c->got == 0) {
                        c->first_byte = now() - start;
                    }
                    c->got += r;
                    c->buf[c->got] = 0;
                    if (c->need < 0) {
                        char *end = strstr(c->buf, "\r\n\r\n");
                        if (end) {
                            c->status = strtol(c->buf + 9, NULL, 10);
                            char *length = strcasestr(c->buf, "\r\ncontent-length:");
                            c->need = length && length < end ? (end + 4 - c->buf) + strtol(length + 17, NULL, 10) : -1;
                        }
                    }
                    done = c->need >= 0 && (long) c->got >= c->need;
                } else if (r == 0 || errno != EAGAIN) {
                    // closed by the server: an answer without Content-Length ends here
                    if (c->status == 0) {
                        c->status = -1;
                    }
                    done = 1;
                }
            }
            if (done) {
                c->took = now() - start;
                epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
                close(c->fd);
                c->fd = -1;
                open_sockets--;
            }
        }
    }
    double wall = now() - start;
    int ok = 0, s503 = 0, other = 0;
    for (int i = 0; i < n; i++) {
        if (calls[i].fd >= 0 && calls[i].status == 0) {
            calls[i].status = -2;   // no answer within the timeout
        }
        if (calls[i].status >= 200 && calls[i].status < 300) {
            ok++;
        } else if (calls[i].status == 503) {
            s503++;
        } else {
            other++;
        }
    }
    double *took = malloc(n * sizeof *took), *connected = malloc(n * sizeof *connected),
           *first_byte = malloc(n * sizeof *first_byte);
    int late_connects = 0;
    for (int i = 0; i < n; i++) {
        took[i] = calls[i].took;
        connected[i] = calls[i].connected;
        first_byte[i] = calls[i].first_byte;
        late_connects += calls[i].connected >= 0.9;
    }
    qsort(took, n, sizeof *took, by_value);
    qsort(connected, n, sizeof *connected, by_value);
    qsort(first_byte, n, sizeof *first_byte, by_value);
    printf("burst of %d: %d OK, %d 503, %d other (%d could not connect) in %.2f s\n", n, ok, s503, other, errors, wall);
    char phases[3][128];
    double *of[3] = {connected, first_byte, took};
    for (int p = 0; p < 3; p++) {
        double *v = of[p];
        snprintf(phases[p], sizeof phases[p], "[%.0f,%.0f,%.0f,%.0f,%.0f,%.0f]", v[0] * 1000, v[(n - 1) / 10] * 1000,
                v[(n - 1) / 2] * 1000, v[(n - 1) * 9 / 10] * 1000, v[(n - 1) * 99 / 100] * 1000, v[n - 1] * 1000);
    }
    printf("ms from the start, first / p10 / p50 / p90 / p99 / last: connected %s, answer began %s, ended %s; "
            "%d connected after 0.9 s\n", phases[0], phases[1], phases[2], late_connects);
    // the fields bench/run.sh reads from inflight.js's RESULT line, and the phases
    printf("RESULT {\"n\":%d,\"ok\":%d,\"wallMs\":%.0f,\"p50Ms\":%.0f,\"maxMs\":%.0f,"
            "\"statuses\":{\"2xx\":%d,\"503\":%d,\"other\":%d},\"startMono\":%.4f,"
            "\"connectedMs\":%s,\"firstByteMs\":%s,\"doneMs\":%s,\"lateConnects\":%d}\n",
            n, ok, wall * 1000, took[n / 2] * 1000, took[n - 1] * 1000, ok, s503, other, start,
            phases[0], phases[1], phases[2], late_connects);
    return 0;
}
