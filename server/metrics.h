/*
 * metrics.h - the server's counters and histograms, rendered for /metrics in
 * the Prometheus text exposition format (version 0.0.4).
 *
 * Everything is a relaxed atomic: any thread may count, /metrics reads a
 * near-consistent snapshot. Gauges that other modules own (queue depth, busy
 * workers) are passed in at render time.
 */
#ifndef GOMOKUD_METRICS_H
#define GOMOKUD_METRICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    ROUTE_ANALYZE = 0, /* POST /v1/analyze */
    ROUTE_BATCH,       /* POST /v1/analyze/batch */
    ROUTE_REVIEW,      /* POST /v1/review */
    ROUTE_MOVE,        /* POST /v1/move */
    ROUTE_INFO,        /* GET /v1/info */
    ROUTE_LIVEZ,
    ROUTE_READYZ,
    ROUTE_METRICS,
    ROUTE_OPENAPI,     /* GET /v1/openapi.json */
    ROUTE_STATIC,      /* GET / and the board page's files */
    ROUTE_OPENINGS,    /* POST /v1/openings/balanced */
    ROUTE_SWAP2,       /* POST /v1/swap2 */
    ROUTE_OTHER, /* anything else (404) */
    ROUTE_COUNT
} MetricsRoute;

/* Why a request was turned away. */
typedef enum {
    REJECT_QUEUE_FULL = 0, /* 503 */
    REJECT_DRAINING,       /* 503 */
    REJECT_BODY_TOO_LARGE, /* 413 */
    REJECT_BATCH_TOO_LARGE,/* 413 */
    REJECT_BAD_REQUEST,    /* 400 */
    REJECT_UNPROCESSABLE,  /* 422 */
    REJECT_UNAUTHORIZED,   /* 401: no or a wrong API key (any route) */
    REJECT_REQUEST_TIMEOUT,/* a client too slow sending its request was cut off */
    REJECT_RATE_LIMITED,   /* 429: the client's token bucket was empty */
    REJECT_COUNT
} MetricsReject;

/* Where a job was when its client hung up. */
typedef enum { CANCEL_QUEUED = 0, CANCEL_RUNNING, CANCEL_COUNT } MetricsCancel;

#define METRICS_STATUS_SLOTS 16
#define METRICS_TIME_BUCKETS 14

typedef struct {
    atomic_uint_fast64_t requests[ROUTE_COUNT][METRICS_STATUS_SLOTS];
    atomic_uint_fast64_t rejections[REJECT_COUNT];
    atomic_uint_fast64_t cancelled[CANCEL_COUNT];
    atomic_uint_fast64_t hangups; /* clients seen hanging up while waiting */
    atomic_uint_fast64_t cache[2]; /* result cache lookups: [0] misses, [1] hits */
    atomic_uint_fast64_t streams;  /* answers streamed (NDJSON or SSE) */
    atomic_uint_fast64_t search_buckets[METRICS_TIME_BUCKETS]; /* not cumulative */
    atomic_uint_fast64_t search_count;
    atomic_uint_fast64_t search_us; /* sum of search times, microseconds */
    atomic_uint_fast64_t searches_stopped; /* a limit or the stop flag cut it short */
    atomic_uint_fast64_t nodes;
} Metrics;

/* Point-in-time values owned elsewhere, passed to metrics_render. */
typedef struct {
    int queue_depth, queue_capacity;
    int workers, workers_busy;
    int suspended; /* connections waiting for a search */
    bool draining;
} MetricsGauges;

/* Zeroes every counter. */
void metrics_init(Metrics *m);

/* Counts one answered request on a route with an HTTP status (statuses
 * outside the known set are counted under "other"). */
void metrics_request(Metrics *m, MetricsRoute route, int status);

/* Counts a request turned away for the reason `why`. */
void metrics_reject(Metrics *m, MetricsReject why);

/* Counts one position abandoned because its client left, by where it was. */
void metrics_cancel(Metrics *m, MetricsCancel where);

/* Counts a result cache lookup. */
void metrics_cache(Metrics *m, bool hit);

/* Counts an answer streamed as NDJSON or Server-Sent Events. */
void metrics_stream(Metrics *m);

/* Counts a client seen hanging up while its request waited for a search. */
void metrics_hangup(Metrics *m);

/* Counts one engine search: its wall time in seconds, nodes, and whether it
 * ran to its natural end. */
void metrics_search(Metrics *m, double seconds, uint64_t nodes, bool complete);

/* Renders everything as Prometheus text: a malloc'd NUL-terminated string
 * (caller frees) with its length in *len, or NULL when out of memory. */
char *metrics_render(const Metrics *m, const MetricsGauges *g, const char *version, size_t *len);

#endif
