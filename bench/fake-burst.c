// KeyPool benchmark: a fake OpenAI-compatible provider for the 10,000-in-flight bursts (C, one thread, epoll).
// bench/fake-upstream.js spends 3-5 s of a core accepting and answering 10,000 connections at once on a 2-core
// machine, more than the burst's whole budget above the 2 s latency, which the gateway then does not get. This one
// answers every POST the same way after a fixed latency and costs a fraction of that, so a burst measures the
// gateway. Everything else the benchmarks need (faults, rpm, streams, arrivals) stays in fake-upstream.js.
//
//   gcc -O2 -o /tmp/keypool-fake-burst bench/fake-burst.c
//   /tmp/keypool-fake-burst 9101 2000        (port, latency in ms)
//
//   POST <any path>              -> after the latency, 200 with a small chat.completion JSON (keep-alive)
//   GET  /control/stats          -> {"total":N,"connections":N,"inFlight":N,"maxInFlight":N,"arrivals":[...]}
//                                   arrivals: when the POSTs since the reset came whole, CLOCK_MONOTONIC seconds of
//                                   the first, the 10th, 50th, 90th, 99th percentile and the last (bench/burst.c
//                                   prints its start on the same clock: a burst's time to reach the provider)
//   POST /control/reset          -> zero the counters
//   POST /control/latency?ms=N   -> answer later POSTs after N ms
//   GET  /health                 -> ok
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUF 8192
#define MAX_FD 65536

struct conn {
    unsigned generation;    // bumped on close, so a queued answer for a closed socket is dropped
    size_t got;             // bytes of the head read into buf
    long need;              // head + Content-Length once the head is in, else -1
    long seen;              // bytes of the request read so far (a body is counted, not kept)
    int close_after;        // the request said "Connection: close"
    char buf[BUF];
};

struct due {
    int fd;
    unsigned generation;
    double at;
};

static struct conn *conns[MAX_FD];
// answers waiting for their time: the latency is fixed, so arrival order is due order and a ring is a timer queue
static struct due *queue;
static size_t queue_head, queue_len, queue_cap;
static long total, connections, in_flight, max_in_flight;
// when each POST since the reset came whole
static double *arrivals;
static size_t arrivals_len, arrivals_cap;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static void arrived(double at) {
    if (arrivals_len == arrivals_cap) {
        arrivals_cap = arrivals_cap ? arrivals_cap * 2 : 16384;
        arrivals = realloc(arrivals, arrivals_cap * sizeof *arrivals);
    }
    arrivals[arrivals_len++] = at;
}

// the arrivals' first, percentiles and last as a JSON array
static void arrival_figures(char *out, size_t size) {
    if (arrivals_len == 0) {
        snprintf(out, size, "[]");
        return;
    }
    qsort(arrivals, arrivals_len, sizeof *arrivals, by_value);
    size_t last = arrivals_len - 1;
    snprintf(out, size, "[%.4f,%.4f,%.4f,%.4f,%.4f,%.4f]", arrivals[0], arrivals[last / 10], arrivals[last / 2],
            arrivals[last * 9 / 10], arrivals[last * 99 / 100], arrivals[last]);
}

static void push(int fd, double at) {
    if (queue_len == queue_cap) {
        size_t cap = queue_cap ? queue_cap * 2 : 16384;
        struct due *grown = malloc(cap * sizeof *grown);
        for (size_t i = 0; i < queue_len; i++) {
            grown[i] = queue[(queue_head + i) % queue_cap];
        }
        free(queue);
        queue = grown;
        queue_head = 0;
        queue_cap = cap;
    }
    queue[(queue_head + queue_len++) % queue_cap] = (struct due) {fd, conns[fd]->generation, at};
}

static void drop(int ep, int fd) {
    epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
    close(fd);
    conns[fd]->generation++;
    conns[fd]->got = 0;
    conns[fd]->need = -1;
}

// The answers are a few hundred bytes: a fresh socket's send buffer always takes them whole.
static void reply(int ep, int fd, int status, const char *type, const char *body, int close_after) {
    char out[1024];
    int n = snprintf(out, sizeof out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s\r\n%s",
            status, status == 200 ? "OK" : "Not Found", type, strlen(body),
            close_after ? "Connection: close\r\n" : "", body);
    if (write(fd, out, n) != n || close_after) {
        drop(ep, fd);
    }
}

static void answer_chat(int ep, int fd) {
    char body[512];
    snprintf(body, sizeof body,
            "{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion\",\"created\":%ld,\"model\":\"bench-model\","
            "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"pong\"},\"finish_reason\":\"stop\"}],"
            "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":1,\"total_tokens\":10}}", (long) time(NULL));
    in_flight--;
    reply(ep, fd, 200, "application/json", body, conns[fd]->close_after);
}

// One whole request is in c->buf (headers and Content-Length bytes of body): answer it now or queue it.
static void handle(int ep, int fd, struct conn *c, double *latency) {
    c->close_after = strcasestr(c->buf, "\r\nconnection: close") != NULL;
    if (strncmp(c->buf, "POST /control/latency?ms=", 25) == 0) {
        *latency = atof(c->buf + 25) / 1000;
        reply(ep, fd, 200, "application/json", "{}", c->close_after);
    } else if (strncmp(c->buf, "POST /control/reset", 19) == 0) {
        total = connections = max_in_flight = 0;
        arrivals_len = 0;
        reply(ep, fd, 200, "application/json", "{}", c->close_after);
    } else if (strncmp(c->buf, "GET /control/stats", 18) == 0) {
        char body[512], at[256];
        arrival_figures(at, sizeof at);
        snprintf(body, sizeof body,
                "{\"total\":%ld,\"connections\":%ld,\"inFlight\":%ld,\"maxInFlight\":%ld,\"arrivals\":%s}",
                total, connections, in_flight, max_in_flight, at);
        reply(ep, fd, 200, "application/json", body, c->close_after);
    } else if (strncmp(c->buf, "GET /health", 11) == 0) {
        reply(ep, fd, 200, "text/plain", "ok", c->close_after);
    } else if (strncmp(c->buf, "POST ", 5) == 0) {
        total++;
        arrived(now());
        if (++in_flight > max_in_flight) {
            max_in_flight = in_flight;
        }
        push(fd, now() + *latency);
    } else {
        reply(ep, fd, 404, "application/json", "{\"error\":{\"message\":\"not found\",\"type\":\"invalid_request_error\"}}",
                c->close_after);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s port latency-ms\n", argv[0]);
        return 2;
    }
    int port = atoi(argv[1]);
    double latency = atof(argv[2]) / 1000;
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, "127.0.0.1", &at.sin_addr);
    if (bind(listener, (struct sockaddr *) &at, sizeof at) < 0 || listen(listener, 65535) < 0) {
        perror("listen");
        return 1;
    }
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
    fprintf(stderr, "fake-burst on 127.0.0.1:%d, latency %.0f ms\n", port, latency * 1000);

    struct epoll_event events[1024];
    for (;;) {
        int wait_ms = -1;
        if (queue_len > 0) {
            double left = queue[queue_head].at - now();
            wait_ms = left <= 0 ? 0 : (int) (left * 1000) + 1;
        }
        int ready = epoll_wait(ep, events, 1024, wait_ms);
        for (int e = 0; e < ready; e++) {
            int fd = events[e].data.fd;
            if (fd == listener) {
                int accepted;
                while ((accepted = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    if (accepted >= MAX_FD) {
                        close(accepted);
                        continue;
                    }
                    if (!conns[accepted]) {
                        conns[accepted] = calloc(1, sizeof(struct conn));
                    }
                    conns[accepted]->got = 0;
                    conns[accepted]->need = -1;
                    setsockopt(accepted, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct epoll_event in = {.events = EPOLLIN, .data.fd = accepted};
                    epoll_ctl(ep, EPOLL_CTL_ADD, accepted, &in);
                    connections++;
                }
                continue;
            }
            struct conn *c = conns[fd];
            ssize_t r;
            if (c->need < 0) {
                r = read(fd, c->buf + c->got, BUF - 1 - c->got);
            } else {
                char sink[16384];
                long left = c->need - c->seen;
                r = read(fd, sink, left < (long) sizeof sink ? (size_t) left : sizeof sink);
            }
            if (r <= 0) {
                if (r == 0 || errno != EAGAIN) {
                    drop(ep, fd);
                }
                continue;
            }
            if (c->need < 0) {
                c->got += r;
                c->buf[c->got] = 0;
                char *end = strstr(c->buf, "\r\n\r\n");
                if (!end) {
                    if (c->got == BUF - 1) {
                        drop(ep, fd);   // a head larger than the buffer: not a client of this bench
                    }
                    continue;
                }
                char *length = strcasestr(c->buf, "\r\ncontent-length:");
                c->need = (end + 4 - c->buf) + (length && length < end ? strtol(length + 17, NULL, 10) : 0);
                c->seen = c->got;
            } else {
                c->seen += r;
            }
            if (c->seen >= c->need) {
                // one request at a time per connection: HTTP/1.1 clients here do not pipeline
                c->got = 0;
                c->need = -1;
                handle(ep, fd, c, &latency);
            }
        }
        double t = now();
        while (queue_len > 0 && queue[queue_head].at <= t) {
            struct due d = queue[queue_head];
            queue_head = (queue_head + 1) % queue_cap;
            queue_len--;
            if (conns[d.fd]->generation == d.generation) {
                answer_chat(ep, d.fd);
            } else {
                in_flight--;   // the caller went away before its answer
            }
        }
    }
}
