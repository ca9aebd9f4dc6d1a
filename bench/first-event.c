// KeyPool benchmark: a stream's first event through the gateway and straight from the provider, interleaved stream by
// stream, from one thread with epoll (C, no dependencies).
//
//   gcc -O2 -o /tmp/keypool-first-event bench/first-event.c
//   /tmp/keypool-first-event 127.0.0.1 GW_PORT DIRECT_PORT /v1/chat/completions CLIENTS PAIRS [STAGGER_MS [chat|responses [FILE]]]
//
// CLIENTS clients at once, each opening 2 x PAIRS streams one after the other (a new connection each, as a client
// that streams does), alternately through the gateway (GW_PORT) and straight at the fake (DIRECT_PORT), the order
// turned every pair and from one client to the next (g d, d g, ...): at any moment half the clients stream through the
// gateway and half directly, so both kinds see the same machine, the same fake and the same load. Each client first
// waits a random 0..STAGGER_MS (default 1000), so that starts spread out as in steady traffic.
// A Node client (bench/streams.js) adds a tail of its own of several ms at 64 streams (its event loop parses every
// event of every stream); this one reads with epoll, parses only up to a stream's first event, and times it from
// before connect() to the read that completed it (CLOCK_MONOTONIC).
// When the fake stamps its first events (POST /control/stream?stamp=1: "x_bench":{"arrived","sent"}, ms on its own
// clock), the fake's own part (sent - arrived: its timer and event loop, which a direct call sees too) is taken out of
// each stream: "own" = time to first event - the fake's part.
// Prints per kind the p50 and p99 of the time to first event and of "own", the added time (gateway's percentile minus
// the direct call's), each pair's difference (its median and p99), and the added p99 in QUARTERS consecutive slices of
// the pairs (how much the figure moves within one run), then "RESULT {json}". FILE gets one line per stream:
// "kind client pair ttfe_ms own_ms fake_ms status events complete".
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

#define RAW 65536
#define QUARTERS 4

struct stream {
    int kind;          // 0 gateway, 1 direct
    int pair;
    double ttfe;       // ms, -1 until the first event
    double fake;       // ms, the fake's own part from its stamp, -1 without one
    int status;
    int events;
    int complete;      // [DONE] or response.completed seen
};

struct client {
    int fd;
    int index;
    int next;          // the next stream of this client, 0 .. 2 * PAIRS
    double start_at;   // monotonic s when the next stream may start (the stagger)
    double began;      // monotonic s when the current stream began
    struct stream *cur;
    size_t sent, got, header_end, decoded, chunk_left, scanned;
    int chunked, headers, ended;
    char raw[RAW];
    char body[RAW];
};

static struct stream *streams;
static int pairs;
static const char *request_of[2];
static int request_len[2];
static struct sockaddr_in to[2];

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double pct(double *v, int n, double p) {
    if (n == 0) {
        return -1;
    }
    qsort(v, n, sizeof *v, by_value);
    int i = (int) (n * p);
    return v[i < n ? i : n - 1];
}

// the kind of a client's stream k: pairs alternate their order, and so do neighbouring clients
static int kind_of(int client, int k) {
    return ((k & 1) ^ ((k >> 1) & 1) ^ (client & 1));
}

static int begin(struct client *c, int ep) {
    struct stream *s = &streams[(size_t) c->index * 2 * pairs + c->next];
    s->kind = kind_of(c->index, c->next);
    s->pair = c->next / 2;
    s->ttfe = s->fake = -1;
    c->cur = s;
    c->next++;
    c->sent = c->got = c->header_end = c->decoded = c->chunk_left = c->scanned = 0;
    c->chunked = c->headers = c->ended = 0;
    c->began = now();
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (c->fd < 0) {
        return -1;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *) &to[s->kind], sizeof to[s->kind]) < 0 && errno != EINPROGRESS) {
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    struct epoll_event ev = {.events = EPOLLOUT | EPOLLIN, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
    return 0;
}

// the body decoded from the raw bytes read so far (chunked or not); 1 once the terminating chunk came
static int decode(struct client *c) {
    if (!c->chunked) {
        memcpy(c->body + c->decoded, c->raw + c->header_end + c->decoded, c->got - c->header_end - c->decoded);
        c->decoded = c->got - c->header_end;
        return 0;
    }
    size_t pos = c->header_end;   // re-walked from the headers each time: streams are a few KiB
    size_t out = 0;
    for (;;) {
        char *eol = memmem(c->raw + pos, c->got - pos, "\r\n", 2);
        if (!eol) {
            break;
        }
        size_t size = strtoul(c->raw + pos, NULL, 16);
        size_t data = eol + 2 - c->raw;
        if (size == 0) {
            c->decoded = out;
            return 1;
        }
        size_t have = c->got - data < size ? c->got - data : size;
        memcpy(c->body + out, c->raw + data, have);
        out += have;
        if (have < size || c->got - data < size + 2) {
            break;
        }
        pos = data + size + 2;
    }
    c->decoded = out;
    return 0;
}

// the events complete in the decoded body since the last look: the first one's time and stamp, [DONE]
static void scan(struct client *c, double at) {
    struct stream *s = c->cur;
    for (;;) {
        char *from = c->body + c->scanned;
        char *cut = memmem(from, c->decoded - c->scanned, "\n\n", 2);
        if (!cut) {
            return;
        }
        size_t len = cut - from;
        c->scanned += len + 2;
        if (len < 5 || (strncmp(from, "data:", 5) != 0 && (len < 6 || strncmp(from, "event:", 6) != 0))) {
            continue;
        }
        if (s->ttfe < 0) {
            s->ttfe = (at - c->began) * 1000;
            char saved = *cut;
            *cut = 0;
            char *arrived = strstr(from, "\"arrived\":"), *sent = strstr(from, "\"sent\":");
            if (arrived && sent) {
                s->fake = strtod(sent + 7, NULL) - strtod(arrived + 10, NULL);
            }
            *cut = saved;
        }
        s->events++;
        if ((len == 12 && strncmp(from, "data: [DONE]", 12) == 0) || strncmp(from, "event: response.completed\n", 26) == 0) {
            s->complete = 1;
        }
    }
}

static void finish(struct client *c, int ep) {
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    c->start_at = 0;
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: %s host gw-port direct-port path clients pairs [stagger-ms [chat|responses [file]]]\n", argv[0]);
        return 2;
    }
    const char *host = argv[1], *path = argv[4];
    int ports[2] = {atoi(argv[2]), atoi(argv[3])};
    int clients = atoi(argv[5]);
    pairs = atoi(argv[6]);
    double stagger = argc > 7 ? atof(argv[7]) / 1000 : 1.0;
    const char *api = argc > 8 ? argv[8] : "chat";
    const char *file = argc > 9 ? argv[9] : NULL;
    const char *body = strcmp(api, "responses") == 0 ? "{\"model\":\"bench-model\",\"stream\":true,\"input\":\"hi\"}"
            : "{\"model\":\"bench-model\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    for (int k = 0; k < 2; k++) {
        char *r = malloc(1024);
        request_len[k] = snprintf(r, 1024, "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
                "Content-Length: %zu\r\nConnection: close\r\n\r\n%s", path, host, ports[k], strlen(body), body);
        request_of[k] = r;
        to[k] = (struct sockaddr_in) {.sin_family = AF_INET, .sin_port = htons(ports[k])};
        inet_pton(AF_INET, host, &to[k].sin_addr);
    }
    streams = calloc((size_t) clients * 2 * pairs, sizeof *streams);
    struct client *cs = calloc(clients, sizeof *cs);
    int ep = epoll_create1(0);
    srand48(getpid());
    double t0 = now();
    for (int i = 0; i < clients; i++) {
        cs[i].index = i;
        cs[i].fd = -1;
        cs[i].start_at = t0 + drand48() * stagger;
    }
    int left = clients;
    struct epoll_event events[256];
    while (left > 0) {
        // streams due to start (after the stagger, or at once after the previous one)
        double t = now(), soonest = 0;
        for (int i = 0; i < clients; i++) {
            struct client *c = &cs[i];
            while (c->fd < 0 && c->next < 2 * pairs) {
                if (c->start_at > t) {
                    soonest = soonest == 0 || c->start_at < soonest ? c->start_at : soonest;
                    break;
                }
                if (begin(c, ep) < 0) {
                    c->cur->status = -1;
                }
            }
            if (c->fd < 0 && c->next >= 2 * pairs && c->start_at >= 0) {
                c->start_at = -1;
                left--;
            }
        }
        if (left == 0) {
            break;
        }
        int wait = soonest > 0 ? (int) ((soonest - t) * 1000) + 1 : -1;
        int ready = epoll_wait(ep, events, 256, wait);
        double at = now();
        for (int e = 0; e < ready; e++) {
            struct client *c = events[e].data.ptr;
            int kind = c->cur->kind, done = 0;
            if ((events[e].events & EPOLLOUT) && c->sent < (size_t) request_len[kind]) {
                ssize_t w = write(c->fd, request_of[kind] + c->sent, request_len[kind] - c->sent);
                if (w > 0) {
                    c->sent += w;
                    if (c->sent == (size_t) request_len[kind]) {
                        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
                        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
                    }
                } else if (errno != EAGAIN) {
                    c->cur->status = -1;
                    done = 1;
                }
            }
            if (!done && (events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
                ssize_t r = read(c->fd, c->raw + c->got, RAW - 1 - c->got);
                if (r > 0) {
                    c->got += r;
                    c->raw[c->got] = 0;
                    if (!c->headers) {
                        char *end = strstr(c->raw, "\r\n\r\n");
                        if (end) {
                            c->headers = 1;
                            c->header_end = end + 4 - c->raw;
                            c->cur->status = (int) strtol(c->raw + 9, NULL, 10);
                            char *te = strcasestr(c->raw, "\r\ntransfer-encoding: chunked");
                            c->chunked = te && te < end;
                        }
                    }
                    if (c->headers) {
                        c->ended = decode(c);
                        scan(c, at);
                        done = c->ended;
                    }
                    if (c->got >= RAW - 1) {
                        c->cur->complete = 0;
                        done = 1;
                    }
                } else if (r == 0 || errno != EAGAIN) {
                    if (c->cur->status == 0) {
                        c->cur->status = -1;
                    }
                    done = 1;
                }
            }
            if (done) {
                finish(c, ep);
            }
        }
    }
    double wall = now() - t0;

    // the figures: per kind, the percentiles; per pair, the difference; per quarter of the pairs, the added p99
    size_t total = (size_t) clients * 2 * pairs;
    double *v = malloc(total * sizeof *v), *w = malloc(total * sizeof *w);
    int ok[2] = {0, 0}, broken[2] = {0, 0}, stamped[2] = {0, 0};
    double tt50[2], tt99[2], own50[2], own99[2], fake50[2], fake99[2];
    FILE *out = file ? fopen(file, "w") : NULL;
    for (size_t i = 0; i < total; i++) {
        struct stream *s = &streams[i];
        int good = s->status == 200 && s->complete && s->ttfe >= 0;
        good ? ok[s->kind]++ : broken[s->kind]++;
        if (good && s->fake >= 0) {
            stamped[s->kind]++;
        }
        if (out) {
            fprintf(out, "%c %zu %d %.3f %.3f %.3f %d %d %d\n", s->kind ? 'd' : 'g', i / (2 * pairs), s->pair, s->ttfe,
                    s->fake >= 0 ? s->ttfe - s->fake : -1, s->fake, s->status, s->events, s->complete);
        }
    }
    if (out) {
        fclose(out);
    }
    for (int k = 0; k < 2; k++) {
        int n = 0, m = 0, f = 0;
        for (size_t i = 0; i < total; i++) {
            struct stream *s = &streams[i];
            if (s->kind != k || s->status != 200 || !s->complete || s->ttfe < 0) {
                continue;
            }
            v[n++] = s->ttfe;
            if (s->fake >= 0) {
                w[m++] = s->ttfe - s->fake;
            }
        }
        tt50[k] = pct(v, n, 0.5);
        tt99[k] = pct(v, n, 0.99);
        own50[k] = pct(w, m, 0.5);
        own99[k] = pct(w, m, 0.99);
        for (size_t i = 0; i < total; i++) {
            struct stream *s = &streams[i];
            if (s->kind == k && s->status == 200 && s->complete && s->fake >= 0) {
                v[f++] = s->fake;
            }
        }
        fake50[k] = pct(v, f, 0.5);
        fake99[k] = pct(v, f, 0.99);
    }
    // each pair: the gateway's stream less the direct one of the same client, the fake's part out where stamped
    int np = 0;
    for (int i = 0; i < clients; i++) {
        for (int p = 0; p < pairs; p++) {
            struct stream *a = &streams[(size_t) i * 2 * pairs + 2 * p], *b = a + 1;
            struct stream *g = a->kind == 0 ? a : b, *d = a->kind == 0 ? b : a;
            if (g->status == 200 && d->status == 200 && g->complete && d->complete && g->fake >= 0 && d->fake >= 0) {
                v[np++] = (g->ttfe - g->fake) - (d->ttfe - d->fake);
            }
        }
    }
    double pair50 = pct(v, np, 0.5), pair99 = pct(v, np, 0.99);
    // the added p99 (the fake's part out) in consecutive slices of the pairs: its spread within the run
    double slice99[QUARTERS];
    for (int q = 0; q < QUARTERS; q++) {
        int from = pairs * q / QUARTERS, until = pairs * (q + 1) / QUARTERS;
        double p99[2];
        for (int k = 0; k < 2; k++) {
            int m = 0;
            for (int i = 0; i < clients; i++) {
                for (int p = from; p < until; p++) {
                    for (int j = 0; j < 2; j++) {
                        struct stream *s = &streams[(size_t) i * 2 * pairs + 2 * p + j];
                        if (s->kind == k && s->status == 200 && s->complete && s->fake >= 0) {
                            w[m++] = s->ttfe - s->fake;
                        }
                    }
                }
            }
            p99[k] = pct(w, m, 0.99);
        }
        slice99[q] = p99[0] - p99[1];
    }
    printf("%d clients x %d pairs in %.1f s: gateway %d ok, %d broken; direct %d ok, %d broken; stamped %d / %d\n",
            clients, pairs, wall, ok[0], broken[0], ok[1], broken[1], stamped[0], stamped[1]);
    printf("time to first event p50 / p99: gateway %.3f / %.3f ms, direct %.3f / %.3f ms; added %.3f / %.3f ms\n",
            tt50[0], tt99[0], tt50[1], tt99[1], tt50[0] - tt50[1], tt99[0] - tt99[1]);
    printf("the fake's part out: gateway %.3f / %.3f ms, direct %.3f / %.3f ms; added %.3f / %.3f ms (the fake's part p50 / p99: %.3f / %.3f, %.3f / %.3f ms)\n",
            own50[0], own99[0], own50[1], own99[1], own50[0] - own50[1], own99[0] - own99[1], fake50[0], fake99[0],
            fake50[1], fake99[1]);
    printf("each pair, gateway less direct, the fake's part out (%d pairs): median %.3f ms, p99 %.3f ms\n", np, pair50, pair99);
    printf("added p99, the fake's part out, in %d slices of the pairs:", QUARTERS);
    for (int q = 0; q < QUARTERS; q++) {
        printf(" %.3f", slice99[q]);
    }
    printf(" ms\n");
    printf("RESULT {\"clients\":%d,\"pairs\":%d,\"wallS\":%.1f,\"ok\":{\"g\":%d,\"d\":%d},\"broken\":{\"g\":%d,\"d\":%d},"
            "\"stamped\":{\"g\":%d,\"d\":%d},\"ttfeP50Ms\":{\"g\":%.3f,\"d\":%.3f},\"ttfeP99Ms\":{\"g\":%.3f,\"d\":%.3f},"
            "\"ownP50Ms\":{\"g\":%.3f,\"d\":%.3f},\"ownP99Ms\":{\"g\":%.3f,\"d\":%.3f},"
            "\"fakeP50Ms\":{\"g\":%.3f,\"d\":%.3f},\"fakeP99Ms\":{\"g\":%.3f,\"d\":%.3f},"
            "\"addedOwnP50Ms\":%.3f,\"addedOwnP99Ms\":%.3f,\"pairedP50Ms\":%.3f,\"pairedP99Ms\":%.3f,\"sliceAddedOwnP99Ms\":[",
            clients, pairs, wall, ok[0], ok[1], broken[0], broken[1], stamped[0], stamped[1], tt50[0], tt50[1], tt99[0],
            tt99[1], own50[0], own50[1], own99[0], own99[1], fake50[0], fake50[1], fake99[0], fake99[1],
            own50[0] - own50[1], own99[0] - own99[1], pair50, pair99);
    for (int q = 0; q < QUARTERS; q++) {
        printf("%s%.3f", q ? "," : "", slice99[q]);
    }
    printf("]}\n");
    return 0;
}
