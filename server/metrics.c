/* metrics.c - counters, one histogram, Prometheus text output. */
#include "server/metrics.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Known statuses; the last slot counts any other. */
static const int STATUSES[METRICS_STATUS_SLOTS] = {200, 204, 304, 400, 401, 404, 405, 408, 413, 422, 429, 499, 500, 503, 504, 0};

/* Upper bounds of the search time buckets, seconds (+Inf is implicit). */
static const double TIME_BOUNDS[METRICS_TIME_BUCKETS] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                         0.1,    0.25,  0.5,    1,     2.5,  5,    10};

static const char *const ROUTE_LABELS[ROUTE_COUNT] = {
    "/v1/analyze", "/v1/analyze/batch", "/v1/review", "/v1/move", "/v1/info", "/livez", "/readyz", "/metrics",
    "/v1/openapi.json", "static", "/v1/openings/balanced", "/v1/swap2", "other",
};

static const char *const REJECT_LABELS[REJECT_COUNT] = {
    "queue_full", "draining", "body_too_large", "batch_too_large", "bad_request", "unprocessable",
    "unauthorized", "request_timeout", "rate_limited",
};

static const char *const CANCEL_LABELS[CANCEL_COUNT] = {"queued", "running"};

#define RELAXED memory_order_relaxed

void metrics_init(Metrics *m)
{
    for (int r = 0; r < ROUTE_COUNT; r++)
        for (int s = 0; s < METRICS_STATUS_SLOTS; s++) atomic_init(&m->requests[r][s], 0);
    for (int i = 0; i < REJECT_COUNT; i++) atomic_init(&m->rejections[i], 0);
    for (int i = 0; i < CANCEL_COUNT; i++) atomic_init(&m->cancelled[i], 0);
    atomic_init(&m->hangups, 0);
    atomic_init(&m->cache[0], 0);
    atomic_init(&m->cache[1], 0);
    atomic_init(&m->streams, 0);
    for (int i = 0; i < METRICS_TIME_BUCKETS; i++) atomic_init(&m->search_buckets[i], 0);
    atomic_init(&m->search_count, 0);
    atomic_init(&m->search_us, 0);
    atomic_init(&m->searches_stopped, 0);
    atomic_init(&m->nodes, 0);
}

static int status_slot(int status)
{
    for (int i = 0; i < METRICS_STATUS_SLOTS - 1; i++)
        if (STATUSES[i] == status) return i;
    return METRICS_STATUS_SLOTS - 1;
}

void metrics_request(Metrics *m, MetricsRoute route, int status)
{
    if ((unsigned)route >= ROUTE_COUNT) route = ROUTE_OTHER;
    atomic_fetch_add_explicit(&m->requests[route][status_slot(status)], 1, RELAXED);
}

void metrics_reject(Metrics *m, MetricsReject why)
{
    if ((unsigned)why < REJECT_COUNT) atomic_fetch_add_explicit(&m->rejections[why], 1, RELAXED);
}

void metrics_cancel(Metrics *m, MetricsCancel where)
{
    if ((unsigned)where < CANCEL_COUNT) atomic_fetch_add_explicit(&m->cancelled[where], 1, RELAXED);
}

void metrics_hangup(Metrics *m) { atomic_fetch_add_explicit(&m->hangups, 1, RELAXED); }

void metrics_cache(Metrics *m, bool hit) { atomic_fetch_add_explicit(&m->cache[hit], 1, RELAXED); }

void metrics_stream(Metrics *m) { atomic_fetch_add_explicit(&m->streams, 1, RELAXED); }

void metrics_search(Metrics *m, double seconds, uint64_t nodes, bool complete)
{
    if (seconds < 0) seconds = 0;
    int b = 0;
    while (b < METRICS_TIME_BUCKETS && seconds > TIME_BOUNDS[b]) b++;
    if (b < METRICS_TIME_BUCKETS) atomic_fetch_add_explicit(&m->search_buckets[b], 1, RELAXED);
    atomic_fetch_add_explicit(&m->search_count, 1, RELAXED);
    atomic_fetch_add_explicit(&m->search_us, (uint64_t)(seconds * 1e6 + 0.5), RELAXED);
    atomic_fetch_add_explicit(&m->nodes, nodes, RELAXED);
    if (!complete) atomic_fetch_add_explicit(&m->searches_stopped, 1, RELAXED);
}

/* A growing text buffer; on allocation failure it goes sticky-bad. */
typedef struct {
    char *s;
    size_t len, cap;
    bool bad;
} Buf;

static void put(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Buf *b, const char *fmt, ...)
{
    if (b->bad) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->bad = true;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap * 2 + (size_t)n;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->bad = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

static void head(Buf *b, const char *name, const char *type, const char *help)
{
    put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

char *metrics_render(const Metrics *m, const MetricsGauges *g, const char *version, size_t *len)
{
    Buf b = {malloc(8192), 0, 8192, false};
    if (!b.s) return NULL;

    head(&b, "gomokud_build_info", "gauge", "Always 1; the version label is the server's.");
    put(&b, "gomokud_build_info{version=\"%s\"} 1\n", version);

    head(&b, "gomokud_http_requests_total", "counter", "HTTP requests answered, by route and status.");
    for (int r = 0; r < ROUTE_COUNT; r++)
        for (int s = 0; s < METRICS_STATUS_SLOTS; s++) {
            uint64_t v = atomic_load_explicit(&m->requests[r][s], RELAXED);
            if (!v) continue;
            if (STATUSES[s])
                put(&b, "gomokud_http_requests_total{route=\"%s\",status=\"%d\"} %llu\n", ROUTE_LABELS[r],
                    STATUSES[s], (unsigned long long)v);
            else
                put(&b, "gomokud_http_requests_total{route=\"%s\",status=\"other\"} %llu\n", ROUTE_LABELS[r],
                    (unsigned long long)v);
        }

    head(&b, "gomokud_rejections_total", "counter", "Requests turned away, by reason.");
    for (int i = 0; i < REJECT_COUNT; i++)
        put(&b, "gomokud_rejections_total{reason=\"%s\"} %llu\n", REJECT_LABELS[i],
            (unsigned long long)atomic_load_explicit(&m->rejections[i], RELAXED));

    head(&b, "gomokud_jobs_cancelled_total", "counter",
         "Positions abandoned because the client hung up, by where the job was.");
    for (int i = 0; i < CANCEL_COUNT; i++)
        put(&b, "gomokud_jobs_cancelled_total{stage=\"%s\"} %llu\n", CANCEL_LABELS[i],
            (unsigned long long)atomic_load_explicit(&m->cancelled[i], RELAXED));

    head(&b, "gomokud_client_hangups_total", "counter", "Clients that hung up while waiting for a search.");
    put(&b, "gomokud_client_hangups_total %llu\n", (unsigned long long)atomic_load_explicit(&m->hangups, RELAXED));
    head(&b, "gomokud_cache_lookups_total", "counter", "Result cache lookups of analyses, by result.");
    put(&b, "gomokud_cache_lookups_total{result=\"hit\"} %llu\n",
        (unsigned long long)atomic_load_explicit(&m->cache[1], RELAXED));
    put(&b, "gomokud_cache_lookups_total{result=\"miss\"} %llu\n",
        (unsigned long long)atomic_load_explicit(&m->cache[0], RELAXED));
    head(&b, "gomokud_streams_total", "counter", "Answers streamed as NDJSON or Server-Sent Events.");
    put(&b, "gomokud_streams_total %llu\n", (unsigned long long)atomic_load_explicit(&m->streams, RELAXED));

    head(&b, "gomokud_queue_depth", "gauge", "Positions waiting for a worker.");
    put(&b, "gomokud_queue_depth %d\n", g->queue_depth);
    head(&b, "gomokud_queue_capacity", "gauge", "Positions that may wait before requests get 503.");
    put(&b, "gomokud_queue_capacity %d\n", g->queue_capacity);
    head(&b, "gomokud_workers", "gauge", "Search worker threads.");
    put(&b, "gomokud_workers %d\n", g->workers);
    head(&b, "gomokud_workers_busy", "gauge", "Workers running a search now.");
    put(&b, "gomokud_workers_busy %d\n", g->workers_busy);
    head(&b, "gomokud_connections_waiting", "gauge", "Client connections waiting for their search.");
    put(&b, "gomokud_connections_waiting %d\n", g->suspended);
    head(&b, "gomokud_draining", "gauge", "1 while shutting down (no new jobs taken).");
    put(&b, "gomokud_draining %d\n", g->draining ? 1 : 0);

    head(&b, "gomokud_search_duration_seconds", "histogram", "Wall time of each position's search.");
    uint64_t cum = 0;
    for (int i = 0; i < METRICS_TIME_BUCKETS; i++) {
        cum += atomic_load_explicit(&m->search_buckets[i], RELAXED);
        put(&b, "gomokud_search_duration_seconds_bucket{le=\"%g\"} %llu\n", TIME_BOUNDS[i], (unsigned long long)cum);
    }
    uint64_t count = atomic_load_explicit(&m->search_count, RELAXED);
    if (count < cum) count = cum; /* a racing update must not make +Inf smaller than a bucket */
    put(&b, "gomokud_search_duration_seconds_bucket{le=\"+Inf\"} %llu\n", (unsigned long long)count);
    put(&b, "gomokud_search_duration_seconds_sum %.6f\n",
        (double)atomic_load_explicit(&m->search_us, RELAXED) / 1e6);
    put(&b, "gomokud_search_duration_seconds_count %llu\n", (unsigned long long)count);

    head(&b, "gomokud_searches_stopped_total", "counter", "Searches cut short by a limit or a stop.");
    put(&b, "gomokud_searches_stopped_total %llu\n",
        (unsigned long long)atomic_load_explicit(&m->searches_stopped, RELAXED));
    head(&b, "gomokud_nodes_searched_total", "counter", "Engine nodes searched.");
    put(&b, "gomokud_nodes_searched_total %llu\n", (unsigned long long)atomic_load_explicit(&m->nodes, RELAXED));

    if (b.bad) {
        free(b.s);
        return NULL;
    }
    *len = b.len;
    return b.s;
}
