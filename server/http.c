/* http.c - API v1 over libmicrohttpd: routes, body cap, suspend/resume,
 * hang-up watcher, graceful stop (see http.h for the life cycle). */
#include "server/http.h"
#include "server/errors.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "api/render_request.h"
#include "engine/engine.h"
#include "server/book.h"
#include "server/cache.h"
#include "server/proofs.h"
#include "server/metrics.h"
#include "server/openapi.h"
#include "server/pool.h"
#include "server/ratelimit.h"
#include "server/render.h"
#include "server/web.h"

/* <poll.h> defines POLLRDHUP (peer shut down its side) only for _GNU_SOURCE. */
#if !defined(POLLRDHUP) && defined(__linux__)
#define POLLRDHUP 0x2000
#endif
#ifndef POLLRDHUP
#define POLLRDHUP 0
#endif

#define RID_MAX 64          /* longest X-Request-ID kept */
#define LOG_PATH_MAX 128    /* longest path written in the access log */
#define WATCH_PERIOD_MS 10  /* hang-up watcher polling period */
#define WATCH_IDLE_ROUNDS 20 /* empty rounds before the watcher sleeps until woken */
#define ANSWER_GRACE_MS 5000 /* on stop: time for resumed connections to be answered */
#define BODY_INITIAL 1024
#define REAP_PERIOD_MS 100  /* slow-client reaper period */
#define FAULT_HEADER "X-Gomokud-Fault" /* honoured only with fault_injection = 1 */
#define ORIGIN_MAX 256      /* longest Origin echoed in Access-Control-Allow-Origin */
#define CORS_MAX_AGE "600"  /* seconds a browser may keep a preflight's answer */
#define CORS_ALLOW_HEADERS "Authorization, Content-Type, Accept, X-Request-ID"
#define CORS_EXPOSE_HEADERS "X-Request-ID, Retry-After, RateLimit, RateLimit-Policy, Cache"
#define RATE_CLIENTS 4096   /* clients the rate limiter remembers */
#define STREAM_INITIAL 4096 /* first allocation of a stream's buffer */

#define CT_JSON "application/json"
#define CT_PROBLEM "application/problem+json"
#define CT_METRICS "text/plain; version=0.0.4; charset=utf-8"
#define CT_NDJSON "application/x-ndjson"
#define CT_SSE "text/event-stream"

typedef struct Request Request;

/* What a connection is doing, for the slow-client reaper. */
typedef enum {
    CONN_RECEIVING, /* reading a request: bounded by request_timeout_s */
    CONN_BUSY,      /* request received: searching or answering; never cut */
    CONN_IDLE       /* kept alive after an answer: the next request may be starting */
} ConnState;

/* One client connection (MHD's socket context), on Server.conns. */
typedef struct Conn {
    int fd;
    ConnState state;
    int64_t since_ns; /* when the state was entered */
    bool timed_out;   /* the reaper shut the socket down */
    struct Conn *prev, *next;
} Conn;

/* Failures a test may ask for with fault_injection = 1. */
typedef enum { FAULT_NONE = 0, FAULT_ENGINE, FAULT_RENDER } Fault;

/* How an analysis is answered: one JSON document, or a stream of lines. */
typedef enum { STREAM_NONE = 0, STREAM_NDJSON, STREAM_SSE } StreamFormat;

/* The bytes of a streamed answer not yet handed to libmicrohttpd. Workers
 * append; the polling thread's content reader takes them, and when there
 * are none yet suspends the connection (waiting) until the next append
 * resumes it. */
typedef struct {
    pthread_mutex_t mu;
    char *buf;
    size_t off, len, cap; /* pending bytes are buf[off..len) */
    bool done;            /* the final line is in (or the client is gone) */
    bool waiting;         /* the reader suspended the connection */
    bool broken;          /* out of memory: end the stream with an error */
    bool ready;           /* mu is initialised */
} Stream;

/* One position of a job, as queued in the pool. */
typedef struct {
    Request *req;
    int index;
} Item;

/* The search part of an analysis request; exists once it is suspended. */
typedef struct {
    bool batch;
    bool review;        /* a batch whose slots are the positions of a game review */
    ApiReview rv;       /* review: the game; b owns its positions */
    int n;              /* positions (batch slots) */
    ApiRequest single;  /* !batch */
    bool move;          /* POST /v1/move: single is mv.req */
    ApiMove mv;
    ApiBatch b;         /* batch */
    ApiTask *task;      /* openings or swap2: one item, not one search (api/openings.c) */
    bool failed;        /* !batch: the engine refused the position */
    Fault fault;        /* injected failure (tests only) */
    ApiProblem problem; /* ... and why */
    EngineResult *results;
    Item *items;
    void **ptrs;
    atomic_int remaining; /* items not yet run */
    atomic_bool stop;     /* Limits.stop of every search of the job */
    atomic_bool gone;     /* the client hung up */
    int fd;
    int64_t queued_ns;               /* when the items were queued */
    atomic_int_fast64_t started_ns;  /* when a worker took the first item; 0 = not yet */
    atomic_int_fast64_t search_ns;   /* engine time summed over the items */
    char *out; /* rendered answer, made by the worker that ran the last item */
    size_t out_len;
    int out_status;
    StreamFormat fmt; /* streamed: the answer goes out as it is made */
    Stream st;
    ApiRender *render;      /* GET/POST /v1/render: the picture to draw (after the search, if any) */
    const char *out_ctype;  /* the answer's media type when not JSON */
    bool finished;  /* job_finish is done with it (under Server.mu) */
    bool completed; /* libmicrohttpd completed the request (under Server.mu) */
} Job;

struct Request {
    Server *srv;
    struct MHD_Connection *conn;
    MetricsRoute route;
    bool get, post; /* GET or HEAD; POST */
    bool wants_body;
    char method[16];
    char path[LOG_PATH_MAX];
    char rid[RID_MAX + 1];
    int64_t t0; /* monotonic ns at the headers */
    char *body;
    size_t len, cap;
    bool too_big;
    int status; /* status answered with; 0 = none yet */
    Job *job;
    bool inflight;             /* counted in Server.inflight */
    bool challenge;            /* a 401: add WWW-Authenticate */
    Fault fault;               /* from FAULT_HEADER when fault_injection is on */
    Conn *cn;                  /* its connection's reaper record, NULL if unknown */
    char origin[ORIGIN_MAX + 1]; /* Access-Control-Allow-Origin to send ("" = none) */
    bool options;              /* an OPTIONS request (no key needed, not rate limited) */
    bool rated;                /* rate limited route: send the RateLimit headers */
    RateDecision rate;
    int cache;                 /* Cache header: 0 none, 1 miss, 2 hit */
    const char *cache_control; /* Cache-Control to send; NULL = no-store */
    Request *wprev, *wnext;    /* watch list links */
};

struct Server {
    Config cfg;
    ApiCaps caps;
    struct MHD_Daemon *daemon;
    Pool *pool;
    Metrics metrics;
    uint16_t port;
    atomic_bool draining;
    atomic_int live; /* requests begun and not yet completed (answer sent or connection gone) */
    char *info;
    size_t info_len;
    uint64_t rid_seed;
    atomic_uint_fast64_t rid_next;

    pthread_mutex_t mu;      /* guards everything below */
    pthread_cond_t watch_cv; /* the watch list gained its first entry, or quit */
    pthread_cond_t done_cv;  /* inflight reached zero */
    Request *watch;          /* suspended requests */
    int nwatch;
    int inflight; /* suspended, not yet completed */
    bool watcher_idle; /* the watcher waits for a first entry (not polling) */
    bool watcher_quit;
    bool watcher_started;
    pthread_t watcher;
    struct pollfd *pfd; /* watcher scratch */
    Request **pfd_req;
    int pfd_cap;

    EngineBook *book;   /* NULL: no opening book (book_file = "") */
    RateLimiter *rl;    /* NULL: no rate limit */
    ResultCache *cache; /* NULL: no result cache */
    ProofShare *proofs; /* NULL: keep_proofs = 0 */

    char (*keys)[CONFIG_API_KEY_MAX + 1]; /* parsed api_keys; nkeys == 0: open */
    size_t *key_len;
    int nkeys;

    pthread_mutex_t conn_mu; /* guards conns and every Conn's fields */
    pthread_cond_t reap_cv;  /* reaper quit */
    Conn *conns;
    bool reaper_quit, reaper_started;
    pthread_t reaper;
};

/* ---- small helpers ---------------------------------------------------- */


static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void deadline_in(struct timespec *ts, int ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

void server_log(LogLevel max, LogLevel level, const char *fmt, ...)
{
    if (level > max) return;
    char line[2048];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    int n = snprintf(line, sizeof line, "ts=%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ level=%s ", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L,
                     config_log_level_name(level));
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2) len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len); /* one write per line: lines never interleave */
    (void)w;
}

static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
    Server *s = cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r')) msg[--n] = 0;
    server_log(s->cfg.log_level, LOG_DEBUG, "msg=mhd detail=\"%s\"", msg);
}

/* Keeps the characters of an X-Request-ID that are safe in a header and a
 * log line; "" when none are. */
static void sanitize_rid(const char *in, char *out)
{
    size_t n = 0;
    for (; in && *in && n < RID_MAX; in++) {
        char c = *in;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
            c == '.' || c == ':')
            out[n++] = c;
    }
    out[n] = 0;
}

static void sanitize_path(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    for (; *in && n + 1 < cap; in++) {
        unsigned char c = (unsigned char)*in;
        out[n++] = (c <= ' ' || c >= 0x7f || c == '"' || c == '\\') ? '?' : (char)c;
    }
    out[n] = 0;
}

static MetricsRoute route_of(const char *url)
{
    if (!strcmp(url, "/v1/analyze")) return ROUTE_ANALYZE;
    if (!strcmp(url, "/v1/analyze/batch")) return ROUTE_BATCH;
    if (!strcmp(url, "/v1/review")) return ROUTE_REVIEW;
    if (!strcmp(url, "/v1/move")) return ROUTE_MOVE;
    if (!strcmp(url, "/v1/render")) return ROUTE_RENDER;
    if (!strcmp(url, "/v1/info")) return ROUTE_INFO;
    if (!strcmp(url, "/livez")) return ROUTE_LIVEZ;
    if (!strcmp(url, "/readyz")) return ROUTE_READYZ;
    if (!strcmp(url, "/metrics")) return ROUTE_METRICS;
    if (!strcmp(url, "/v1/openapi.json")) return ROUTE_OPENAPI;
    if (!strcmp(url, "/v1/openings/balanced")) return ROUTE_OPENINGS;
    if (!strcmp(url, "/v1/swap2")) return ROUTE_SWAP2;
    if (web_path_ok(url)) return ROUTE_STATIC;
    return ROUTE_OTHER;
}

/* The methods a route answers (its Allow header), OPTIONS aside. */
static const char *route_allow(MetricsRoute route)
{
    switch (route) {
    case ROUTE_ANALYZE:
    case ROUTE_BATCH:
    case ROUTE_REVIEW:
    case ROUTE_MOVE:
    case ROUTE_OPENINGS:
    case ROUTE_SWAP2:
        return "POST";
    case ROUTE_RENDER:
        return "GET, HEAD, POST";
    case ROUTE_OTHER:
        return NULL;
    default:
        return "GET, HEAD";
    }
}

/* Whether a route is rate limited: the API, not the probes or the metrics. */
static bool route_limited(MetricsRoute route, const char *url)
{
    return route != ROUTE_LIVEZ && route != ROUTE_READYZ && route != ROUTE_METRICS && !strncmp(url, "/v1/", 4);
}

/* ---- CORS ------------------------------------------------------------- */

/* The Access-Control-Allow-Origin for a request's Origin header: "*" when
 * cors_origins has it, the origin itself when listed, else "" (no CORS). */
static void cors_origin(const Config *c, const char *origin, char *out)
{
    out[0] = 0;
    if (!origin || !c->cors_origins[0]) return;
    size_t olen = strlen(origin);
    const char *p = c->cors_origins, *o;
    size_t n;
    while (config_api_key_next(&p, &o, &n)) {
        if (n == 1 && *o == '*') {
            strcpy(out, "*");
            return;
        }
        if (n == olen && n <= ORIGIN_MAX && !memcmp(o, origin, n)) {
            memcpy(out, origin, n + 1);
            return;
        }
    }
}

/* ---- authentication --------------------------------------------------- */

/* Splits cfg->api_keys into s->keys. False when out of memory. */
static bool parse_keys(Server *s)
{
    const char *p = s->cfg.api_keys, *k;
    size_t n;
    int count = 0;
    while (config_api_key_next(&p, &k, &n))
        if (n) count++;
    if (!count) return true;
    s->keys = calloc((size_t)count, sizeof *s->keys);
    s->key_len = calloc((size_t)count, sizeof *s->key_len);
    if (!s->keys || !s->key_len) return false;
    p = s->cfg.api_keys;
    while (config_api_key_next(&p, &k, &n)) {
        if (!n || n > CONFIG_API_KEY_MAX) continue;
        memcpy(s->keys[s->nkeys], k, n);
        s->key_len[s->nkeys++] = n;
    }
    return true;
}

/* Compares a candidate with a key in time that depends only on the key's
 * length, never on where they differ. */
static bool key_equal(const char *given, size_t glen, const char *key, size_t klen)
{
    volatile unsigned char diff = (unsigned char)(glen != klen);
    for (size_t i = 0; i < klen; i++) {
        unsigned char g = i < glen ? (unsigned char)given[i] : 0;
        diff |= (unsigned char)(g ^ (unsigned char)key[i]);
    }
    return diff == 0;
}

/* True when auth is off, the route is a health check, the (public) API
 * document or the board page (public files; the page asks its user for a
 * key for the API), or the request bears one of the keys. Every key is
 * compared, whichever matches. */
static bool authorized(Server *s, struct MHD_Connection *conn, MetricsRoute route)
{
    if (s->nkeys == 0 || route == ROUTE_LIVEZ || route == ROUTE_READYZ || route == ROUTE_OPENAPI ||
        route == ROUTE_STATIC)
        return true;
    const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!h || strncasecmp(h, "Bearer ", 7)) return false;
    h += 7;
    while (*h == ' ') h++;
    size_t n = strlen(h);
    while (n && (h[n - 1] == ' ' || h[n - 1] == '\t')) n--;
    bool ok = false;
    for (int i = 0; i < s->nkeys; i++) ok |= key_equal(h, n, s->keys[i], s->key_len[i]);
    return ok;
}

/* ---- slow clients ----------------------------------------------------- */

static void conn_set(Server *s, Conn *c, ConnState st)
{
    if (!c) return;
    pthread_mutex_lock(&s->conn_mu);
    c->state = st;
    c->since_ns = now_ns();
    pthread_mutex_unlock(&s->conn_mu);
}

static Conn *conn_of(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    Server *s = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        Conn *c = calloc(1, sizeof *c);
        if (!c) return; /* not watched for slowness; served all the same */
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        c->fd = ci ? ci->connect_fd : -1;
        c->state = CONN_RECEIVING;
        c->since_ns = now_ns();
        pthread_mutex_lock(&s->conn_mu);
        c->next = s->conns;
        if (s->conns) s->conns->prev = c;
        s->conns = c;
        pthread_mutex_unlock(&s->conn_mu);
        *socket_context = c;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        Conn *c = *socket_context;
        if (!c) return;
        /* Called before libmicrohttpd closes the socket: once off the list,
         * the reaper can no longer touch the descriptor. */
        pthread_mutex_lock(&s->conn_mu);
        if (c->prev)
            c->prev->next = c->next;
        else
            s->conns = c->next;
        if (c->next) c->next->prev = c->prev;
        pthread_mutex_unlock(&s->conn_mu);
        *socket_context = NULL;
        free(c);
    }
}

/* Every REAP_PERIOD_MS, shuts down the sockets of connections that have been
 * receiving one request for longer than request_timeout_s (or, kept alive,
 * idle plus receiving for longer than connection_timeout_s on top). The
 * shutdown wakes libmicrohttpd, which reads end-of-file and closes the
 * connection; no response can be sent to a request whose headers are not
 * complete. */
static void *reaper_main(void *arg)
{
    Server *s = arg;
    int64_t cap = (int64_t)s->cfg.request_timeout_s * 1000000000;
    int64_t idle_cap = s->cfg.connection_timeout_s ? cap + (int64_t)s->cfg.connection_timeout_s * 1000000000 : 0;
    pthread_mutex_lock(&s->conn_mu);
    while (!s->reaper_quit) {
        int64_t now = now_ns();
        for (Conn *c = s->conns; c; c = c->next) {
            if (c->timed_out || c->fd < 0) continue;
            int64_t limit = c->state == CONN_RECEIVING ? cap : c->state == CONN_IDLE ? idle_cap : 0;
            if (!limit || now - c->since_ns <= limit) continue;
            c->timed_out = true;
            shutdown(c->fd, SHUT_RDWR);
            metrics_reject(&s->metrics, REJECT_REQUEST_TIMEOUT);
            server_log(s->cfg.log_level, LOG_WARN, "msg=\"slow client cut off\" request_timeout_s=%d",
                       s->cfg.request_timeout_s);
        }
        struct timespec until;
        deadline_in(&until, REAP_PERIOD_MS);
        pthread_cond_timedwait(&s->reap_cv, &s->conn_mu, &until);
    }
    pthread_mutex_unlock(&s->conn_mu);
    return NULL;
}

/* ---- requests and jobs ------------------------------------------------ */

static void job_free(Job *j)
{
    if (!j) return;
    if (j->batch) api_batch_free(&j->b);
    api_task_free(j->task);
    free(j->render);
    if (j->st.ready) pthread_mutex_destroy(&j->st.mu);
    free(j->st.buf);
    free(j->results);
    free(j->items);
    free(j->ptrs);
    free(j->out);
    free(j);
}

static Request *request_new(Server *s, struct MHD_Connection *conn, const char *url, const char *method)
{
    Request *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->srv = s;
    r->conn = conn;
    r->t0 = now_ns();
    r->route = route_of(url);
    r->get = !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);
    r->post = !strcmp(method, MHD_HTTP_METHOD_POST);
    r->wants_body = r->post && (r->route == ROUTE_ANALYZE || r->route == ROUTE_BATCH || r->route == ROUTE_REVIEW ||
                                  r->route == ROUTE_MOVE || r->route == ROUTE_OPENINGS || r->route == ROUTE_SWAP2 ||
                                  r->route == ROUTE_RENDER);
    sanitize_path(method, r->method, sizeof r->method);
    sanitize_path(url, r->path, sizeof r->path);
    sanitize_rid(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Request-ID"), r->rid);
    cors_origin(&s->cfg, MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin"), r->origin);
    if (!r->rid[0]) {
        uint64_t k = atomic_fetch_add_explicit(&s->rid_next, 1, memory_order_relaxed);
        snprintf(r->rid, sizeof r->rid, "%016llx", (unsigned long long)mix64(s->rid_seed + k));
    }
    return r;
}

static void request_free(Request *r)
{
    job_free(r->job);
    free(r->body);
    free(r);
}

/* Appends upload data under the body cap; past the cap the body is dropped
 * and only the fact is kept (answered 413 once the upload ends). */
static void body_append(Request *r, const char *data, size_t n)
{
    size_t cap_max = (size_t)r->srv->cfg.max_body_bytes;
    if (r->too_big) return;
    if (r->len + n > cap_max) {
        r->too_big = true;
        free(r->body);
        r->body = NULL;
        r->len = r->cap = 0;
        return;
    }
    if (r->len + n > r->cap) {
        size_t cap = r->cap ? r->cap : BODY_INITIAL;
        while (cap < r->len + n) cap *= 2;
        if (cap > cap_max) cap = cap_max;
        char *b = realloc(r->body, cap);
        if (!b) { /* out of memory: treat like an oversize body rather than crash */
            r->too_big = true;
            free(r->body);
            r->body = NULL;
            r->len = r->cap = 0;
            return;
        }
        r->body = b;
        r->cap = cap;
    }
    memcpy(r->body + r->len, data, n);
    r->len += n;
}

/* ---- responses -------------------------------------------------------- */

static const char OOM_PROBLEM[] = "{\"type\":\"about:blank\",\"title\":\"Internal Server Error\",\"status\":500,"
                                  "\"detail\":\"out of memory\",\"field\":\"\"}\n";

/* The headers every answer carries: request id, no caching, CORS, the
 * client's rate limit, the result cache's verdict, and Connection: close
 * while draining. */
static void add_headers(Request *r, struct MHD_Response *resp, const char *ctype)
{
    Server *s = r->srv;
    if (ctype) MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    MHD_add_response_header(resp, "X-Request-ID", r->rid);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, r->cache_control ? r->cache_control : "no-store");
    if (s->cfg.cors_origins[0]) MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Origin");
    if (r->origin[0]) {
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN, r->origin);
        MHD_add_response_header(resp, "Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
    }
    if (r->rated) {
        /* IETF httpapi RateLimit fields: the policy (burst q per window w
         * seconds, the time the bucket takes to fill) and what is left. */
        char v[96];
        int window = (s->cfg.rate_burst + s->cfg.rate_limit - 1) / s->cfg.rate_limit;
        snprintf(v, sizeof v, "\"client\";q=%d;w=%d", s->cfg.rate_burst, window);
        MHD_add_response_header(resp, "RateLimit-Policy", v);
        snprintf(v, sizeof v, "\"client\";r=%d;t=%d", r->rate.remaining, r->rate.reset_s);
        MHD_add_response_header(resp, "RateLimit", v);
    }
    if (r->cache) MHD_add_response_header(resp, "Cache", r->cache == 2 ? "hit" : "miss");
    if (atomic_load(&s->draining)) MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
}

/* Queues a response. body is malloc'd and taken when owned, else static. */
static enum MHD_Result reply(Request *r, int status, const char *ctype, char *body, size_t len, bool owned,
                             const char *allow, bool retry_after)
{
    Server *s = r->srv;
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        if (owned) free(body);
        r->status = 500;
        return MHD_NO;
    }
    add_headers(r, resp, ctype);
    if (allow) MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    if (r->challenge) MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"gomokud\"");
    if (retry_after) {
        char ra[16];
        snprintf(ra, sizeof ra, "%d", status == 429 ? r->rate.retry_after_s : s->cfg.retry_after_s);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, ra);
    }
    r->status = status;
    enum MHD_Result ret = MHD_queue_response(r->conn, (unsigned)status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result reply_text(Request *r, int status, const char *ctype, const char *text)
{
    return reply(r, status, ctype, (char *)text, strlen(text), false, NULL, false);
}

static enum MHD_Result reply_owned(Request *r, int status, const char *ctype, char *body)
{
    if (!body) return reply(r, 500, CT_PROBLEM, (char *)OOM_PROBLEM, sizeof OOM_PROBLEM - 1, false, NULL, false);
    return reply(r, status, ctype, body, strlen(body), true, NULL, false);
}

static enum MHD_Result reply_problem(Request *r, const ApiProblem *p, const char *allow, bool retry_after)
{
    char *json = api_problem_json(p);
    if (!json) return reply(r, 500, CT_PROBLEM, (char *)OOM_PROBLEM, sizeof OOM_PROBLEM - 1, false, NULL, false);
    return reply(r, p->status, CT_PROBLEM, json, strlen(json), true, allow, retry_after);
}

static enum MHD_Result reply_unavailable(Request *r, MetricsReject why)
{
    ApiProblem p;
    if (why == REJECT_QUEUE_FULL)
        api_problem(&p, 503, "", "the analysis queue is full (%d positions waiting); retry later",
                    r->srv->cfg.queue_length);
    else
        api_problem(&p, 503, "", "the server is shutting down and takes no new analysis");
    metrics_reject(&r->srv->metrics, why);
    return reply_problem(r, &p, NULL, true);
}

static enum MHD_Result reply_unauthorized(Request *r)
{
    ApiProblem p;
    bool given = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION) != NULL;
    api_problem(&p, 401, "Authorization",
                given ? "the API key is not valid; send 'Authorization: Bearer <key>' with a configured key"
                      : "an API key is required; send 'Authorization: Bearer <key>'");
    r->challenge = true;
    metrics_reject(&r->srv->metrics, REJECT_UNAUTHORIZED);
    return reply_problem(r, &p, NULL, false);
}

static enum MHD_Result reply_rate_limited(Request *r)
{
    ApiProblem p;
    api_problem(&p, 429, "", "too many requests: at most %d a second (bursts of %d) per client; retry in %d s",
                r->srv->cfg.rate_limit, r->srv->cfg.rate_burst, r->rate.retry_after_s);
    metrics_reject(&r->srv->metrics, REJECT_RATE_LIMITED);
    return reply_problem(r, &p, NULL, true);
}

/* OPTIONS: the route's methods, and for an allowed origin's preflight the
 * CORS answer. Needs no API key: browsers send preflights without one. */
static enum MHD_Result reply_options(Request *r)
{
    const char *allow = route_allow(r->route);
    if (!allow) {
        ApiProblem p;
        api_problem(&p, 404, "", "no resource at %s; see GET /v1/info", r->path);
        return reply_problem(r, &p, NULL, false);
    }
    char methods[32];
    snprintf(methods, sizeof methods, "%s, OPTIONS", allow);
    struct MHD_Response *resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!resp) return MHD_NO;
    add_headers(r, resp, NULL);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, methods);
    if (r->origin[0]) {
        MHD_add_response_header(resp, "Access-Control-Allow-Methods", methods);
        MHD_add_response_header(resp, "Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
        MHD_add_response_header(resp, "Access-Control-Max-Age", CORS_MAX_AGE);
    }
    r->status = 204;
    enum MHD_Result ret = MHD_queue_response(r->conn, MHD_HTTP_NO_CONTENT, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* Takes a token of the request's client: its API key when it gave one that
 * was accepted, else its address. False when the bucket is empty. */
static bool rate_take(Request *r)
{
    Server *s = r->srv;
    char id[CONFIG_API_KEY_MAX + 8];
    size_t n = 0;
    const char *h = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (s->nkeys > 0 && h && !strncasecmp(h, "Bearer ", 7)) {
        n = (size_t)snprintf(id, sizeof id, "k:%s", h + 7);
        if (n >= sizeof id) n = sizeof id - 1;
    } else {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        const struct sockaddr *sa = ci ? ci->client_addr : NULL;
        id[n++] = 'a';
        if (sa && sa->sa_family == AF_INET) {
            memcpy(id + n, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
            n += 4;
        } else if (sa && sa->sa_family == AF_INET6) {
            memcpy(id + n, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
            n += 16;
        }
    }
    r->rate = ratelimit_take(s->rl, id, n, now_ns());
    r->rated = true;
    return r->rate.allowed;
}

static enum MHD_Result reply_too_big(Request *r)
{
    ApiProblem p;
    api_problem(&p, 413, "", "the request body is larger than %lld bytes", (long long)r->srv->cfg.max_body_bytes);
    metrics_reject(&r->srv->metrics, REJECT_BODY_TOO_LARGE);
    return reply_problem(r, &p, NULL, false);
}

/* ---- the hang-up watcher ---------------------------------------------- */

static void watch_add(Server *s, Request *r)
{
    pthread_mutex_lock(&s->mu);
    r->wprev = NULL;
    r->wnext = s->watch;
    if (s->watch) s->watch->wprev = r;
    s->watch = r;
    s->nwatch++;
    if (s->watcher_idle) {
        s->watcher_idle = false;
        pthread_cond_signal(&s->watch_cv);
    }
    s->inflight++;
    r->inflight = true;
    pthread_mutex_unlock(&s->mu);
}

/* Takes a finished job's request off the list. Returns true when
 * libmicrohttpd completed the request already (a stream whose client left):
 * the caller then frees it. */
static bool watch_remove(Server *s, Request *r)
{
    pthread_mutex_lock(&s->mu);
    r->job->finished = true;
    bool completed = r->job->completed;
    if (r->wprev)
        r->wprev->wnext = r->wnext;
    else
        s->watch = r->wnext;
    if (r->wnext) r->wnext->wprev = r->wprev;
    r->wprev = r->wnext = NULL;
    s->nwatch--;
    pthread_mutex_unlock(&s->mu);
    return completed;
}

/* Polls the sockets of suspended connections (timeout 0, under the lock, so
 * that no socket on the list can be closed meanwhile: a connection leaves
 * the list before it is resumed) and flags those whose peer hung up. It
 * polls every WATCH_PERIOD_MS while there is anything to watch, and only
 * after WATCH_IDLE_ROUNDS empty rounds sleeps until watch_add wakes it, so
 * that a busy server does not wake it for every request. */
static void *watcher_main(void *arg)
{
    Server *s = arg;
    int empty_rounds = 0;
    pthread_mutex_lock(&s->mu);
    while (!s->watcher_quit) {
        if (s->nwatch == 0 && ++empty_rounds > WATCH_IDLE_ROUNDS) {
            s->watcher_idle = true;
            while (s->watcher_idle && !s->watcher_quit) pthread_cond_wait(&s->watch_cv, &s->mu);
            empty_rounds = 0;
            continue;
        }
        if (s->nwatch > 0) empty_rounds = 0;
        if (s->pfd_cap < s->nwatch) {
            int cap = s->nwatch * 2;
            struct pollfd *pfd = realloc(s->pfd, (size_t)cap * sizeof *pfd);
            if (pfd) s->pfd = pfd;
            Request **pr = realloc(s->pfd_req, (size_t)cap * sizeof *pr);
            if (pr) s->pfd_req = pr;
            if (pfd && pr) s->pfd_cap = cap;
        }
        int n = 0;
        for (Request *r = s->watch; r && n < s->pfd_cap; r = r->wnext) {
            if (r->job->fd < 0 || atomic_load_explicit(&r->job->gone, memory_order_relaxed)) continue;
            s->pfd[n] = (struct pollfd){.fd = r->job->fd, .events = POLLIN | POLLRDHUP};
            s->pfd_req[n++] = r;
        }
        if (n > 0 && poll(s->pfd, (nfds_t)n, 0) > 0) {
            for (int i = 0; i < n; i++) {
                short ev = s->pfd[i].revents;
                char c;
                /* Readable is not a hang-up (a pipelined request may be
                 * waiting) unless the read would return end of file. */
                bool eof = (ev & POLLIN) && recv(s->pfd[i].fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
                if (!eof && !(ev & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))) continue;
                Job *j = s->pfd_req[i]->job;
                atomic_store(&j->gone, true);
                atomic_store(&j->stop, true);
                metrics_hangup(&s->metrics);
                server_log(s->cfg.log_level, LOG_DEBUG, "msg=\"client hung up; job stopped\" request_id=%s",
                           s->pfd_req[i]->rid);
            }
        }
        struct timespec until;
        deadline_in(&until, WATCH_PERIOD_MS);
        pthread_cond_timedwait(&s->watch_cv, &s->mu, &until);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Sets the stop flag of every job still waiting or running. */
static void stop_all_jobs(Server *s)
{
    pthread_mutex_lock(&s->mu);
    for (Request *r = s->watch; r; r = r->wnext) atomic_store(&r->job->stop, true);
    pthread_mutex_unlock(&s->mu);
}

/* ---- streamed answers ------------------------------------------------- */

/* The streamed format an Accept header asks for: the first of
 * application/x-ndjson and text/event-stream it lists, else none. */
static StreamFormat wanted_stream(struct MHD_Connection *conn)
{
    const char *a = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    while (a && *a) {
        while (*a == ' ' || *a == '\t' || *a == ',') a++;
        size_t n = strcspn(a, ",;");
        while (n && (a[n - 1] == ' ' || a[n - 1] == '\t')) n--;
        if (n == strlen(CT_NDJSON) && !strncasecmp(a, CT_NDJSON, n)) return STREAM_NDJSON;
        if (n == strlen(CT_SSE) && !strncasecmp(a, CT_SSE, n)) return STREAM_SSE;
        a = strchr(a, ',');
    }
    return STREAM_NONE;
}

static bool stream_append(Stream *st, const char *text)
{
    size_t n = strlen(text);
    if (st->len + n > st->cap) {
        size_t cap = st->cap ? st->cap : STREAM_INITIAL;
        while (cap < st->len + n) cap *= 2;
        char *b = realloc(st->buf, cap);
        if (!b) return false;
        st->buf = b;
        st->cap = cap;
    }
    memcpy(st->buf + st->len, text, n);
    st->len += n;
    return true;
}

/* Appends one message of a streamed answer: a line of NDJSON, or an SSE
 * event. json NULL (out of memory) breaks the stream; final ends it; a
 * client gone (json NULL, final) just ends it. Wakes the reader when it is
 * waiting. Any thread. */
static void stream_push(Request *r, const char *event, const char *json, bool final)
{
    Job *j = r->job;
    Stream *st = &j->st;
    bool wake = false;
    pthread_mutex_lock(&st->mu);
    if (!st->done) {
        bool ok;
        if (!json)
            ok = atomic_load(&j->gone);
        else if (j->fmt == STREAM_SSE)
            ok = stream_append(st, "event: ") && stream_append(st, event) && stream_append(st, "\ndata: ") &&
                 stream_append(st, json) && stream_append(st, "\n\n");
        else
            ok = stream_append(st, json) && stream_append(st, "\n");
        if (!ok) st->broken = true;
        if (final) st->done = true;
    }
    if (st->waiting && (st->len > st->off || st->done || st->broken)) {
        st->waiting = false;
        wake = true;
    }
    pthread_mutex_unlock(&st->mu);
    /* Still suspended (only this thread saw waiting), so the connection is alive. */
    if (wake) MHD_resume_connection(r->conn);
}

/* libmicrohttpd's content reader of a streamed answer (polling thread):
 * hands over what is pending, or ends the stream, or suspends the
 * connection until stream_push has more. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    Request *r = cls;
    Job *j = r->job;
    Stream *st = &j->st;
    ssize_t n = 0;
    pthread_mutex_lock(&st->mu);
    if (st->len > st->off) {
        size_t k = st->len - st->off < max ? st->len - st->off : max;
        memcpy(buf, st->buf + st->off, k);
        st->off += k;
        if (st->off == st->len) st->off = st->len = 0;
        n = (ssize_t)k;
    } else if (st->broken || atomic_load(&j->gone)) {
        r->status = st->broken ? 500 : 499;
        n = MHD_CONTENT_READER_END_WITH_ERROR;
    } else if (st->done) {
        n = MHD_CONTENT_READER_END_OF_STREAM;
    } else {
        st->waiting = true;
        MHD_suspend_connection(r->conn);
    }
    pthread_mutex_unlock(&st->mu);
    return n;
}

/* A streamed answer's last message: the whole answer plus "final": true. */
static char *with_final(const char *json)
{
    size_t n = json ? strlen(json) : 0;
    if (n < 2 || json[n - 1] != '}') return NULL;
    char *out = malloc(n + sizeof ",\"final\":true");
    if (!out) return NULL;
    memcpy(out, json, n - 1);
    strcpy(out + n - 1, json[n - 2] == '{' ? "\"final\":true}" : ",\"final\":true}");
    return out;
}

/* One finished position of a streamed batch or review:
 * {"index": i, "result": <its result, or its problem>}. */
static char *position_line(Job *j, int i)
{
    char *res = j->b.ok[i] ? api_result_json(&j->b.reqs[i], &j->results[i]) : api_problem_json(&j->b.errors[i]);
    if (!res) return NULL;
    size_t n = strlen(res) + 40;
    char *line = malloc(n);
    if (line) snprintf(line, n, "{\"index\":%d,\"result\":%s}", i, res);
    free(res);
    return line;
}

/* Engine callback of a streamed single analysis: one line per iteration. */
static void on_progress(void *ctx, const EngineResult *partial)
{
    Item *it = ctx;
    Request *r = it->req;
    char *line = api_progress_json(&r->job->single, partial);
    stream_push(r, "progress", line, false);
    free(line);
}

/* ---- workers ---------------------------------------------------------- */

typedef struct {
    Engine *e;
    uint64_t proofs_seen; /* what this worker took from s->proofs so far (proofs_import) */
} Worker;

static void *worker_init(void *ctx, int index)
{
    Server *s = ctx;
    (void)index;
    Worker *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    EngineOptions opt = {.tt_mib = (size_t)s->cfg.tt_mib, .keep_proofs = s->cfg.keep_proofs};
    if (!(w->e = engine_new(&opt))) {
        free(w);
        return NULL;
    }
    engine_set_book(w->e, s->book);
    return w;
}

static void worker_fini(void *ctx, void *state)
{
    (void)ctx;
    Worker *w = state;
    if (!w) return;
    engine_free(w->e);
    free(w);
}

/* Draws the picture of a render job (after its search, if it asked for
 * one) into j->out; NULL (a 500) when memory runs out. */
static void render_finish(Job *j)
{
    RenderOutput img;
    if (j->render->analyze) api_render_take_result(j->render, &j->results[0]);
    j->out = NULL;
    j->out_len = 0;
    j->out_status = 200;
    if (j->fault != FAULT_RENDER && render_image(j->render, &img)) {
        j->out = (char *)img.data;
        j->out_len = img.len;
        j->out_ctype = api_image_type(j->render->format);
    }
}

/* Renders the answer, takes the request off the watch list and resumes
 * its connection (streamed: pushes the final message). The request must
 * not be touched afterwards: the polling thread may answer and free it at
 * once. */
static void job_finish(Server *s, Request *r)
{
    Job *j = r->job;
    if (!atomic_load(&j->gone)) {
        if (j->review) {
            j->out = api_review_json(&j->rv, j->results);
            j->out_status = 200;
        } else if (j->batch) {
            j->out = api_batch_json(&j->b, j->results);
            j->out_status = 200;
        } else if (j->task) {
            j->out = api_task_json(j->task, &j->out_status);
        } else if (j->failed) {
            j->out = api_problem_json(&j->problem);
            j->out_status = j->problem.status;
        } else if (j->render) {
            render_finish(j);
        } else if (j->move) {
            j->out = j->fault == FAULT_RENDER ? NULL : api_move_json(&j->mv, &j->results[0]);
            j->out_status = 200;
        } else {
            /* NULL (out of memory) is answered 500 by answer_job. */
            j->out = j->fault == FAULT_RENDER ? NULL : api_result_json(&j->single, &j->results[0]);
            j->out_status = 200;
        }
        if (!j->render) j->out_len = j->out ? strlen(j->out) : 0;
    }
    if (j->fmt == STREAM_NONE) {
        watch_remove(s, r);
        MHD_resume_connection(r->conn);
        return;
    }
    char *line = atomic_load(&j->gone) ? NULL : with_final(j->out);
    stream_push(r, "result", line, true);
    free(line);
    if (watch_remove(s, r)) request_free(r); /* the client is gone and the request completed */
}

static void run_item(void *ctx, void *state, void *item)
{
    Server *s = ctx;
    Worker *w = state;
    Engine *e = w->e;
    Item *it = item;
    Request *r = it->req;
    Job *j = r->job;
    int i = it->index;
    if (atomic_load(&j->gone)) {
        metrics_cancel(&s->metrics, CANCEL_QUEUED); /* dropped unsearched */
    } else if (j->task) { /* openings or swap2: its own searches, one after the other */
        int64_t t0 = now_ns();
        int_fast64_t unset = 0;
        atomic_compare_exchange_strong(&j->started_ns, &unset, t0);
        uint64_t nodes = api_task_run(j->task, e, &j->stop);
        int64_t took = now_ns() - t0;
        atomic_fetch_add(&j->search_ns, took);
        metrics_search(&s->metrics, (double)took / 1e9, nodes, !atomic_load(&j->stop));
    } else if (j->render && !j->render->analyze) {
        /* a picture without a search: job_finish draws it on this worker */
    } else {
        ApiRequest *q = j->batch ? &j->b.reqs[i] : &j->single;
        EngineResult *res = &j->results[i];
        Limits lim = api_limits(q);
        lim.stop = &j->stop;
        if (j->fmt && !j->batch) {
            lim.on_info = on_progress;
            lim.info_ctx = it;
        }
        int64_t t0 = now_ns();
        int_fast64_t unset = 0;
        atomic_compare_exchange_strong(&j->started_ns, &unset, t0);
        int index = -1;
        if (s->proofs) proofs_import(s->proofs, e, &w->proofs_seen); /* what the other workers proved */
        /* The API checked the position already: a refusal here is our fault. */
        PositionError pe = j->fault == FAULT_ENGINE ? POSITION_FULL : engine_analyze(e, &q->pos, &lim, res, &index);
        if (s->proofs && pe == POSITION_OK) proofs_export(s->proofs, e, &q->pos);
        int64_t took = now_ns() - t0;
        atomic_fetch_add(&j->search_ns, took);
        double secs = (double)took / 1e9;
        if (pe != POSITION_OK) {
            ApiProblem *p = j->batch ? &j->b.errors[i] : &j->problem;
            api_problem(p, 500, "", "internal error: the engine refused a position the request checks accepted (%s)",
                        position_error_text(pe));
            server_log(s->cfg.log_level, LOG_ERROR, "msg=\"engine refused an accepted position\" detail=\"%s\" "
                       "request_id=%s", position_error_text(pe), r->rid);
            if (j->batch)
                j->b.ok[i] = false;
            else
                j->failed = true;
        } else {
            metrics_search(&s->metrics, secs, res->nodes, res->complete);
            if (!res->complete && atomic_load(&j->gone)) metrics_cancel(&s->metrics, CANCEL_RUNNING);
            /* Only a search that ran to its limits is an answer to keep. */
            if (s->cache && !j->batch && !atomic_load(&j->stop)) cache_put(s->cache, &j->single, res);
        }
        if (j->fmt && j->batch && !atomic_load(&j->gone)) {
            char *line = position_line(j, i);
            stream_push(r, "progress", line, false);
            free(line);
        }
    }
    if (atomic_fetch_sub(&j->remaining, 1) == 1) job_finish(s, r);
}

/* ---- routes ----------------------------------------------------------- */

/* 405 with Allow: the route's methods and OPTIONS. */
static enum MHD_Result method_not_allowed(Request *r)
{
    ApiProblem p;
    char allow[40];
    snprintf(allow, sizeof allow, "%s, OPTIONS", route_allow(r->route));
    api_problem(&p, 405, "", "%s is not allowed on %s; use %s", r->method, r->path, allow);
    return reply_problem(r, &p, allow, false);
}

/* The metrics' reason for an analysis, batch or review body refused with status. */
static MetricsReject reject_reason(int status)
{
    return status == 413 ? REJECT_BATCH_TOO_LARGE : status == 422 ? REJECT_UNPROCESSABLE : REJECT_BAD_REQUEST;
}

/* Moves a review may have: it is queued whole, one position per move plus one. */
static int review_cap(const Config *c)
{
    int cap = c->max_review_moves < c->queue_length - 1 ? c->max_review_moves : c->queue_length - 1;
    return cap > 0 ? cap : 1; /* a queue of one: such a review gets a 503 like a batch too big for it */
}

/* An answer ready at once (a cache hit, a batch of errors only), sent as
 * json plain or as a whole stream of one final message. Takes json. */
static enum MHD_Result reply_answer(Request *r, StreamFormat fmt, char *json)
{
    if (!json || fmt == STREAM_NONE) return reply_owned(r, 200, CT_JSON, json);
    char *line = with_final(json);
    free(json);
    if (!line) return reply_owned(r, 500, CT_PROBLEM, NULL);
    size_t n = strlen(line) + 32;
    char *out = malloc(n);
    if (out) snprintf(out, n, fmt == STREAM_SSE ? "event: result\ndata: %s\n\n" : "%s\n", line);
    free(line);
    if (!out) return reply_owned(r, 500, CT_PROBLEM, NULL);
    metrics_stream(&r->srv->metrics);
    return reply(r, 200, fmt == STREAM_SSE ? CT_SSE : CT_NDJSON, out, strlen(out), true, NULL, false);
}

/* Queues the 200 of a streamed answer, whose body stream_read makes. */
static bool start_stream(Request *r)
{
    Job *j = r->job;
    struct MHD_Response *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, STREAM_INITIAL, stream_read, r, NULL);
    if (!resp) return false;
    add_headers(r, resp, j->fmt == STREAM_SSE ? CT_SSE : CT_NDJSON);
    MHD_add_response_header(resp, "X-Accel-Buffering", "no"); /* nginx: pass each line on at once */
    r->status = 200;
    bool ok = MHD_queue_response(r->conn, MHD_HTTP_OK, resp) == MHD_YES;
    MHD_destroy_response(resp);
    if (ok) metrics_stream(&r->srv->metrics);
    return ok;
}

/* Hands a job whose nrun items are filled and whose queue room is reserved
 * to the workers: suspends the connection (or starts the streamed answer)
 * and puts it on the hang-up watch list. */
static enum MHD_Result job_queue(Request *r, Job *j, int nrun)
{
    Server *s = r->srv;
    atomic_init(&j->remaining, nrun);
    atomic_init(&j->stop, false);
    atomic_init(&j->gone, false);
    atomic_init(&j->started_ns, 0);
    atomic_init(&j->search_ns, 0);
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    j->fd = ci ? ci->connect_fd : -1;
    r->job = j;
    if (j->fmt) {
        pthread_mutex_init(&j->st.mu, NULL);
        j->st.ready = true;
        if (!start_stream(r)) {
            pool_release(s->pool, nrun);
            r->job = NULL;
            job_free(j);
            return reply_owned(r, 500, CT_PROBLEM, NULL);
        }
    } else {
        /* Suspend first: a worker may finish and resume before this returns. */
        MHD_suspend_connection(r->conn);
    }
    watch_add(s, r);
    j->queued_ns = now_ns();
    pool_commit(s->pool, j->ptrs, nrun);
    return MHD_YES;
}

/* Parses an analysis body, then queues it or answers at once. */
static enum MHD_Result analyze(Request *r)
{
    Server *s = r->srv;
    ApiProblem p;
    if (r->too_big) return reply_too_big(r);
    if (atomic_load(&s->draining)) return reply_unavailable(r, REJECT_DRAINING);

    Job *j = calloc(1, sizeof *j);
    if (!j) return reply_owned(r, 500, CT_PROBLEM, NULL);
    j->batch = r->route == ROUTE_BATCH || r->route == ROUTE_REVIEW;
    j->review = r->route == ROUTE_REVIEW;
    j->fault = r->fault;
    j->move = r->route == ROUTE_MOVE;
    bool task = r->route == ROUTE_OPENINGS || r->route == ROUTE_SWAP2;
    j->fmt = j->move || task ? STREAM_NONE : wanted_stream(r->conn); /* one answer, not a stream */
    const char *body = r->body ? r->body : "";
    int nrun = 0;
    if (task) {
        j->task = api_task_parse(r->route == ROUTE_OPENINGS ? API_TASK_OPENINGS : API_TASK_SWAP2, body, r->len,
                                 &s->caps, &p);
        if (!j->task) {
            job_free(j);
            metrics_reject(&s->metrics, reject_reason(p.status));
            return reply_problem(r, &p, NULL, false);
        }
        j->n = nrun = 1;
    } else if (j->move) {
        if (!api_parse_move(body, r->len, &s->caps, &j->mv, &p)) {
            job_free(j);
            metrics_reject(&s->metrics, reject_reason(p.status));
            return reply_problem(r, &p, NULL, false);
        }
        j->single = j->mv.req; /* searched as a single analysis with the level's limits */
        j->n = nrun = 1;
    } else if (!j->batch) {
        if (!api_parse_analyze(body, r->len, &s->caps, &j->single, &p)) {
            job_free(j);
            metrics_reject(&s->metrics, reject_reason(p.status));
            return reply_problem(r, &p, NULL, false);
        }
        j->n = nrun = 1;
        if (s->cache && j->fault == FAULT_NONE) {
            EngineResult *hit = malloc(sizeof *hit);
            if (hit && cache_get(s->cache, &j->single, hit)) {
                char *json = api_result_json(&j->single, hit);
                StreamFormat fmt = j->fmt;
                free(hit);
                job_free(j);
                r->cache = 2;
                metrics_cache(&s->metrics, true);
                return reply_answer(r, fmt, json);
            }
            free(hit);
            r->cache = 1;
            metrics_cache(&s->metrics, false);
        }
    } else if (j->review) {
        if (!api_parse_review(body, r->len, &s->caps, review_cap(&s->cfg), &j->rv, &p)) {
            free(j); /* nothing of the review to free when parsing failed */
            metrics_reject(&s->metrics, reject_reason(p.status));
            return reply_problem(r, &p, NULL, false);
        }
        j->b = j->rv.positions; /* the batch takes the positions over */
        memset(&j->rv.positions, 0, sizeof j->rv.positions);
        j->n = nrun = j->b.n;
    } else {
        if (!api_parse_batch(body, r->len, &s->caps, s->cfg.max_batch, &j->b, &p)) {
            free(j); /* nothing of the batch to free when parsing failed */
            metrics_reject(&s->metrics, reject_reason(p.status));
            return reply_problem(r, &p, NULL, false);
        }
        j->n = j->b.n;
        for (int i = 0; i < j->n; i++) nrun += j->b.ok[i];
    }
    free(r->body);
    r->body = NULL;

    j->results = calloc((size_t)j->n, sizeof *j->results);
    j->items = calloc((size_t)(nrun ? nrun : 1), sizeof *j->items);
    j->ptrs = calloc((size_t)(nrun ? nrun : 1), sizeof *j->ptrs);
    if (!j->results || !j->items || !j->ptrs) {
        job_free(j);
        return reply_owned(r, 500, CT_PROBLEM, NULL);
    }
    if (nrun == 0) { /* every slot of the batch is an error: nothing to search */
        char *json = api_batch_json(&j->b, j->results);
        StreamFormat fmt = j->fmt;
        job_free(j);
        return reply_answer(r, fmt, json);
    }
    PoolStatus st = pool_reserve(s->pool, nrun);
    if (st != POOL_OK) {
        job_free(j);
        return reply_unavailable(r, st == POOL_FULL ? REJECT_QUEUE_FULL : REJECT_DRAINING);
    }
    for (int i = 0, k = 0; i < j->n; i++) {
        if (j->batch && !j->b.ok[i]) continue;
        j->items[k] = (Item){r, i};
        j->ptrs[k] = &j->items[k];
        k++;
    }
    return job_queue(r, j, nrun);
}

/* ---- board pictures --------------------------------------------------- */

#define RENDER_QUERY_MAX 48 /* query parameters of GET /v1/render */

/* The picture format an Accept header asks for: the first of image/svg+xml,
 * image/png and image/gif it lists; SVG otherwise. */
static ApiImageFormat wanted_image(struct MHD_Connection *conn)
{
    static const struct { const char *type; ApiImageFormat f; } types[] = {
        {"image/svg+xml", API_IMAGE_SVG}, {"image/png", API_IMAGE_PNG}, {"image/gif", API_IMAGE_GIF}};
    const char *a = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    while (a && *a) {
        while (*a == ' ' || *a == '\t' || *a == ',') a++;
        size_t n = strcspn(a, ",;");
        while (n && (a[n - 1] == ' ' || a[n - 1] == '\t')) n--;
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
            if (n == strlen(types[i].type) && !strncasecmp(a, types[i].type, n)) return types[i].f;
        a = strchr(a, ',');
    }
    return API_IMAGE_SVG;
}

typedef struct {
    const char *names[RENDER_QUERY_MAX], *values[RENDER_QUERY_MAX];
    int n;
    bool too_many;
} Query;

static enum MHD_Result query_pair(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    Query *q = cls;
    if (q->n == RENDER_QUERY_MAX) {
        q->too_many = true;
        return MHD_NO;
    }
    q->names[q->n] = key;
    q->values[q->n++] = value;
    return MHD_YES;
}

/* GET or POST /v1/render: parses the request, then queues it (a worker
 * searches when asked, then draws), like an analysis. */
static enum MHD_Result render_request(Request *r)
{
    Server *s = r->srv;
    ApiProblem p;
    if (r->too_big) return reply_too_big(r);
    if (atomic_load(&s->draining)) return reply_unavailable(r, REJECT_DRAINING);
    Job *j = calloc(1, sizeof *j);
    if (j) j->render = malloc(sizeof *j->render);
    if (!j || !j->render) {
        job_free(j);
        return reply_owned(r, 500, CT_PROBLEM, NULL);
    }
    ApiImageFormat fallback = wanted_image(r->conn);
    bool ok;
    if (r->post) {
        ok = api_parse_render(r->body ? r->body : "", r->len, &s->caps, fallback, j->render, &p);
    } else {
        Query q = {.n = 0};
        MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, query_pair, &q);
        ok = q.too_many ? api_problem(&p, 400, "", "more than %d query parameters", RENDER_QUERY_MAX)
                        : api_parse_render_query(q.names, q.values, q.n, &s->caps, fallback, j->render, &p);
    }
    if (!ok) {
        job_free(j);
        metrics_reject(&s->metrics, reject_reason(p.status));
        return reply_problem(r, &p, NULL, false);
    }
    free(r->body);
    r->body = NULL;
    j->fault = r->fault;
    j->single = j->render->req;
    j->n = 1;
    j->results = calloc(1, sizeof *j->results);
    j->items = calloc(1, sizeof *j->items);
    j->ptrs = calloc(1, sizeof *j->ptrs);
    if (!j->results || !j->items || !j->ptrs) {
        job_free(j);
        return reply_owned(r, 500, CT_PROBLEM, NULL);
    }
    PoolStatus st = pool_reserve(s->pool, 1);
    if (st != POOL_OK) {
        job_free(j);
        return reply_unavailable(r, st == POOL_FULL ? REJECT_QUEUE_FULL : REJECT_DRAINING);
    }
    /* the same request draws the same bytes: a picture without a search may be kept */
    if (!j->render->analyze) r->cache_control = "max-age=86400";
    j->items[0] = (Item){r, 0};
    j->ptrs[0] = &j->items[0];
    return job_queue(r, j, 1);
}

/* The polling thread, called again after a worker resumed the connection. */
static enum MHD_Result answer_job(Request *r)
{
    Job *j = r->job;
    if (atomic_load(&j->gone)) {
        r->status = 499; /* client closed request: nobody to answer */
        return MHD_NO;
    }
    char *out = j->out;
    j->out = NULL;
    if (!out) return reply_owned(r, 500, CT_PROBLEM, NULL);
    const char *ctype = j->out_status != 200 ? CT_PROBLEM : j->out_ctype ? j->out_ctype : CT_JSON;
    return reply(r, j->out_status, ctype, out, j->out_len, true, NULL, false);
}

/* GET / and the board page's files: from the binary, or from web_root.
 * Revalidated on every load (no-cache plus a strong ETag, 304 when it
 * matches): a max-age could pair a new index.html with an old app.js after
 * an upgrade. */
static enum MHD_Result serve_static(Request *r, const char *url)
{
    Server *s = r->srv;
    ApiProblem p;
    const char *ctype = web_content_type(!strcmp(url, "/") ? WEB_INDEX : url);
    char *body = NULL, etag[WEB_ETAG_MAX];
    size_t len = 0;
    int status = 200;
    if (s->cfg.web_root[0]) {
        status = web_read_file(s->cfg.web_root, url, &body, &len, etag);
    } else {
        const WebAsset *a = web_find(url);
        if (a) {
            body = (char *)a->data;
            len = a->len;
            snprintf(etag, sizeof etag, "%s", a->etag);
        } else {
            status = 404;
        }
    }
    if (status == 404) {
        api_problem(&p, 404, "", "no resource at %s; the board page is at /", r->path);
        return reply_problem(r, &p, NULL, false);
    }
    if (status != 200) {
        api_problem(&p, 500, "", "cannot read %s from web_root (a read error, or over %d MiB)", r->path,
                    WEB_FILE_MAX >> 20);
        return reply_problem(r, &p, NULL, false);
    }
    bool owned = s->cfg.web_root[0] != 0;
    bool fresh = web_etag_matches(MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "If-None-Match"), etag);
    if (fresh && owned) free(body);
    struct MHD_Response *resp = fresh ? MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT)
                                      : MHD_create_response_from_buffer(len, body, owned ? MHD_RESPMEM_MUST_FREE
                                                                                         : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        if (owned && !fresh) free(body);
        return MHD_NO;
    }
    r->cache_control = "no-cache";
    add_headers(r, resp, fresh ? NULL : ctype);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
    MHD_add_response_header(resp, "Content-Security-Policy", WEB_CSP);
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    r->status = fresh ? 304 : 200;
    enum MHD_Result ret = MHD_queue_response(r->conn, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result dispatch(Request *r, const char *url)
{
    Server *s = r->srv;
    ApiProblem p;
    switch (r->route) {
    case ROUTE_LIVEZ:
        if (!r->get) return method_not_allowed(r);
        return reply_text(r, 200, CT_JSON, "{\"status\":\"live\"}\n");
    case ROUTE_READYZ:
        if (!r->get) return method_not_allowed(r);
        if (atomic_load(&s->draining)) {
            api_problem(&p, 503, "", "the server is shutting down");
            return reply_problem(r, &p, NULL, true);
        }
        {
            char body[160];
            snprintf(body, sizeof body,
                     "{\"status\":\"ready\",\"queue_depth\":%d,\"queue_capacity\":%d,\"workers\":%d,"
                     "\"workers_busy\":%d}\n",
                     pool_queued(s->pool), pool_capacity(s->pool), pool_workers(s->pool), pool_busy(s->pool));
            return reply_owned(r, 200, CT_JSON, strdup(body));
        }
    case ROUTE_INFO:
        if (!r->get) return method_not_allowed(r);
        return reply(r, 200, CT_JSON, s->info, s->info_len, false, NULL, false);
    case ROUTE_METRICS: {
        if (!r->get) return method_not_allowed(r);
        pthread_mutex_lock(&s->mu);
        int suspended = s->nwatch;
        pthread_mutex_unlock(&s->mu);
        MetricsGauges g = {
            .queue_depth = pool_queued(s->pool),
            .queue_capacity = pool_capacity(s->pool),
            .workers = pool_workers(s->pool),
            .workers_busy = pool_busy(s->pool),
            .suspended = suspended,
            .draining = atomic_load(&s->draining),
        };
        size_t len = 0;
        char *text = metrics_render(&s->metrics, &g, GOMOKUD_VERSION, &len);
        if (!text) return reply_owned(r, 500, CT_PROBLEM, NULL);
        return reply(r, 200, CT_METRICS, text, len, true, NULL, false);
    }
    case ROUTE_OPENAPI:
        if (!r->get) return method_not_allowed(r);
        return reply(r, 200, CT_JSON, (char *)openapi_doc, openapi_doc_len, false, NULL, false);
    case ROUTE_ANALYZE:
    case ROUTE_BATCH:
    case ROUTE_REVIEW:
    case ROUTE_MOVE:
    case ROUTE_OPENINGS:
    case ROUTE_SWAP2:
        if (!r->post) return method_not_allowed(r);
        return analyze(r);
    case ROUTE_RENDER:
        if (!r->get && !r->post) return method_not_allowed(r);
        return render_request(r);
    case ROUTE_STATIC:
        if (!r->get) return method_not_allowed(r);
        return serve_static(r, url);
    default:
        api_problem(&p, 404, "", "no resource at %s; see GET /v1/info", r->path);
        return reply_problem(r, &p, NULL, false);
    }
}

static enum MHD_Result on_access(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                 const char *version, const char *data, size_t *data_size, void **con_cls)
{
    (void)version;
    Server *s = cls;
    Request *r = *con_cls;
    if (!r) { /* headers are in */
        r = request_new(s, conn, url, method);
        if (!r) return MHD_NO;
        *con_cls = r;
        atomic_fetch_add(&s->live, 1);
        r->cn = conn_of(conn);
        if (r->cn) { /* a fresh connection's clock runs from its accept; a kept-alive one's from now */
            pthread_mutex_lock(&s->conn_mu);
            if (r->cn->state != CONN_RECEIVING) {
                r->cn->state = CONN_RECEIVING;
                r->cn->since_ns = now_ns();
            }
            pthread_mutex_unlock(&s->conn_mu);
        }
        if (!strcmp(method, MHD_HTTP_METHOD_OPTIONS)) {
            r->options = true; /* answered once the request is in, so the connection is kept */
            return MHD_YES;
        }
        if (!authorized(s, conn, r->route)) {
            conn_set(s, r->cn, CONN_BUSY);
            return reply_unauthorized(r); /* before reading any body */
        }
        if (s->rl && route_limited(r->route, url) && !rate_take(r)) {
            conn_set(s, r->cn, CONN_BUSY);
            return reply_rate_limited(r); /* before reading any body */
        }
        if (s->cfg.fault_injection) {
            const char *f = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, FAULT_HEADER);
            r->fault = !f ? FAULT_NONE : !strcmp(f, "engine") ? FAULT_ENGINE : !strcmp(f, "render") ? FAULT_RENDER
                                                                                                      : FAULT_NONE;
        }
        if (r->wants_body) {
            const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
            if (cl) {
                char *end = NULL;
                errno = 0;
                unsigned long long n = strtoull(cl, &end, 10);
                /* Refuse before reading (no 100 Continue); the connection is closed after. */
                if (!errno && end != cl && n > (unsigned long long)s->cfg.max_body_bytes) {
                    r->too_big = true;
                    conn_set(s, r->cn, CONN_BUSY);
                    return reply_too_big(r);
                }
            }
        }
        return MHD_YES;
    }
    if (*data_size) {
        if (r->wants_body) body_append(r, data, *data_size);
        *data_size = 0;
        return MHD_YES;
    }
    if (r->job) return answer_job(r);
    conn_set(s, r->cn, CONN_BUSY); /* the whole request is in */
    return r->options ? reply_options(r) : dispatch(r, url);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    Server *s = cls;
    Request *r = *con_cls;
    if (!r) return;
    *con_cls = NULL;
    Conn *cn = conn_of(conn);
    bool cut = false;
    if (cn) {
        pthread_mutex_lock(&s->conn_mu);
        cut = cn->timed_out;
        cn->state = CONN_IDLE;
        cn->since_ns = now_ns();
        pthread_mutex_unlock(&s->conn_mu);
    }
    /* A streamed answer whose job is not finished: the worker that finishes
     * it frees the request. Cut off before its end, the search is stopped;
     * sent whole, the worker is just about to take it off the watch list. */
    bool orphan = false;
    if (r->job) {
        pthread_mutex_lock(&s->mu);
        if (!r->job->finished) {
            orphan = r->job->completed = true;
            r->job->fd = -1; /* the socket may close and its number be reused: stop watching it */
            if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK) {
                atomic_store(&r->job->stop, true);
                if (!atomic_exchange(&r->job->gone, true)) metrics_hangup(&s->metrics);
                if (r->status == 200) r->status = 499;
            }
        }
        pthread_mutex_unlock(&s->mu);
    }
    if (r->status == 0) r->status = toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED || cut ? 408 : 499;
    metrics_request(&s->metrics, r->route, r->status);
    double ms = (double)(now_ns() - r->t0) / 1e6;
    if (r->job) { /* where an analysis spent its time: waiting for a worker, searching */
        int64_t started = atomic_load(&r->job->started_ns);
        server_log(s->cfg.log_level, LOG_INFO,
                   "msg=access method=%s path=%s status=%d duration_ms=%.3f queue_ms=%.3f search_ms=%.3f "
                   "request_id=%s",
                   r->method, r->path, r->status, ms, started ? (double)(started - r->job->queued_ns) / 1e6 : 0.0,
                   (double)atomic_load(&r->job->search_ns) / 1e6, r->rid);
    } else {
        server_log(s->cfg.log_level, LOG_INFO, "msg=access method=%s path=%s status=%d duration_ms=%.3f request_id=%s",
                   r->method, r->path, r->status, ms, r->rid);
    }
    if (r->inflight) {
        pthread_mutex_lock(&s->mu);
        if (--s->inflight == 0) pthread_cond_broadcast(&s->done_cv);
        pthread_mutex_unlock(&s->mu);
    }
    if (!orphan) request_free(r);
    atomic_fetch_sub(&s->live, 1);
}

/* ---- start and stop --------------------------------------------------- */

static char *build_info(const Config *c, const EngineBook *book, size_t *len)
{
    char dt[24] = "null", dd[24] = "null", dn[24] = "null";
    if (c->default_time_ms) snprintf(dt, sizeof dt, "%lld", (long long)c->default_time_ms);
    if (c->default_depth) snprintf(dd, sizeof dd, "%d", c->default_depth);
    if (c->default_nodes) snprintf(dn, sizeof dn, "%lld", (long long)c->default_nodes);
    const char *fmt = "{\"name\":\"gomokud\",\"version\":\"%s\",\"api\":\"v1\","
                      "\"rules\":[\"freestyle\",\"standard\",\"renju\"],"
                      "\"board_size\":{\"min\":%d,\"max\":%d,\"default\":%d},"
                      "\"limits\":{\"default\":{\"time_ms\":%s,\"depth\":%s,\"nodes\":%s},"
                      "\"max\":{\"time_ms\":%lld,\"depth\":%d,\"nodes\":%lld,\"multipv\":%d}},"
                      "\"max_batch\":%d,\"max_review_moves\":%d,\"max_body_bytes\":%lld,\"workers\":%d,\"queue_length\":%d,"
                      "\"tt_mib\":%d,\"book\":{\"loaded\":%s,\"positions\":%zu},\"levels\":%s}\n";
    char *out = NULL, *levels = api_levels_json(); /* POST /v1/move's levels with their measured Elo */
    if (!levels) return NULL;
    for (int pass = 0; pass < 2; pass++) {
        int n = snprintf(out, out ? *len + 1 : 0, fmt, GOMOKUD_VERSION, BOARD_MIN_SIZE, BOARD_MAX_SIZE,
                         BOARD_DEFAULT_SIZE, dt, dd, dn, (long long)c->max_time_ms, c->max_depth,
                         (long long)c->max_nodes, c->max_multipv, c->max_batch, review_cap(c), (long long)c->max_body_bytes,
                         c->workers, c->queue_length, c->tt_mib, book ? "true" : "false",
                         engine_book_size(book), levels);
        if (n < 0) {
            free(out);
            out = NULL;
            break;
        }
        if (!out) {
            *len = (size_t)n;
            if (!(out = malloc(*len + 1))) break;
        }
    }
    free(levels);
    return out;
}

static struct MHD_Daemon *start_daemon(Server *s, char *err, size_t errlen)
{
    const Config *c = &s->cfg;
    struct sockaddr_in a4;
    struct sockaddr_in6 a6;
    struct sockaddr *addr;
    unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG | MHD_USE_ITC;
    memset(&a4, 0, sizeof a4);
    memset(&a6, 0, sizeof a6);
    if (inet_pton(AF_INET, c->bind, &a4.sin_addr) == 1) {
        a4.sin_family = AF_INET;
        a4.sin_port = htons((uint16_t)c->port);
        addr = (struct sockaddr *)&a4;
    } else if (inet_pton(AF_INET6, c->bind, &a6.sin6_addr) == 1) {
        a6.sin6_family = AF_INET6;
        a6.sin6_port = htons((uint16_t)c->port);
        addr = (struct sockaddr *)&a6;
        /* "::" means every interface: IPv4 too, as 0.0.0.0 would. */
        flags |= IN6_IS_ADDR_UNSPECIFIED(&a6.sin6_addr) ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
    } else {
        server_fail(err, errlen, "bind: '%s' is not an IP address", c->bind);
        return NULL;
    }
    errno = 0;
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, (uint16_t)c->port, NULL, NULL, on_access, s, MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, s,
        MHD_OPTION_SOCK_ADDR, addr, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, s, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)c->max_connections, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)c->connection_timeout_s, MHD_OPTION_END);
    if (!d)
        server_fail(err, errlen, "cannot listen on %s port %d: %s", c->bind, c->port,
             errno ? strerror(errno) : "libmicrohttpd refused to start");
    return d;
}

static void destroy(Server *s)
{
    if (s->daemon) MHD_stop_daemon(s->daemon);
    if (s->reaper_started) {
        pthread_mutex_lock(&s->conn_mu);
        s->reaper_quit = true;
        pthread_cond_broadcast(&s->reap_cv);
        pthread_mutex_unlock(&s->conn_mu);
        pthread_join(s->reaper, NULL);
    }    if (s->watcher_started) {
        pthread_mutex_lock(&s->mu);
        s->watcher_quit = true;
        pthread_cond_broadcast(&s->watch_cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->watcher, NULL);
    }
    pool_free(s->pool);
    engine_book_free(s->book);
    free(s->pfd);
    free(s->pfd_req);
    free(s->info);
    free(s->keys);
    free(s->key_len);
    ratelimit_free(s->rl);
    cache_free(s->cache);
    proofs_free(s->proofs);
    pthread_cond_destroy(&s->reap_cv);
    pthread_mutex_destroy(&s->conn_mu);
    pthread_cond_destroy(&s->watch_cv);
    pthread_cond_destroy(&s->done_cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

bool server_start(const Config *cfg, Server **out, char *err, size_t errlen)
{
    *out = NULL;
    Server *s = calloc(1, sizeof *s);
    if (!s) return server_fail(err, errlen, "out of memory");
    s->cfg = *cfg;
    s->caps = (ApiCaps){
        .default_time_ms = cfg->default_time_ms,
        .max_time_ms = cfg->max_time_ms,
        .default_depth = cfg->default_depth,
        .max_depth = cfg->max_depth,
        .default_nodes = cfg->default_nodes,
        .max_nodes = cfg->max_nodes,
        .max_multipv = cfg->max_multipv,
    };
    metrics_init(&s->metrics);
    atomic_init(&s->draining, false);
    atomic_init(&s->live, 0);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    s->rid_seed = mix64((uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 30) ^ ((uint64_t)getpid() << 48) ^
                        (uint64_t)(uintptr_t)s);
    atomic_init(&s->rid_next, 0);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->watch_cv, &ca);
    pthread_cond_init(&s->done_cv, &ca);
    pthread_cond_init(&s->reap_cv, &ca);
    pthread_mutex_init(&s->conn_mu, NULL);
    pthread_condattr_destroy(&ca);

    bool ok = false;
    char why[CONFIG_ERR_MAX + CONFIG_PATH_MAX];
    if (!book_load(cfg->book_file, &s->book, why, sizeof why)) {
        server_fail(err, errlen, "book_file: %s", why);
        goto cleanup;
    }
    if (!(s->info = build_info(cfg, s->book, &s->info_len)) || !parse_keys(s) ||
        (cfg->rate_limit > 0 && !(s->rl = ratelimit_new(cfg->rate_limit, cfg->rate_burst, RATE_CLIENTS))) ||
        (cfg->result_cache > 0 && !(s->cache = cache_new(cfg->result_cache))) ||
        (cfg->keep_proofs && !(s->proofs = proofs_new()))) {
        server_fail(err, errlen, "out of memory");
        goto cleanup;
    }
    PoolConfig pc = {
        .workers = cfg->workers,
        .capacity = cfg->queue_length,
        .worker_init = worker_init,
        .worker_fini = worker_fini,
        .run = run_item,
        .ctx = s,
    };
    if (!pool_start(&pc, &s->pool, err, errlen)) {
        if (strstr(err, "could not be set up")) /* engine_new failed: almost surely the table */
            server_fail(err, errlen,
                 "cannot allocate the transposition tables: tt_mib = %d MiB for each of %d workers "
                 "(%lld MiB in all); lower tt_mib or workers",
                 cfg->tt_mib, cfg->workers, (long long)cfg->tt_mib * cfg->workers);
        goto cleanup;
    }
    int rc = pthread_create(&s->watcher, NULL, watcher_main, s);
    if (rc) {
        server_fail(err, errlen, "cannot start the watcher thread: %s", strerror(rc));
        goto cleanup;
    }
    s->watcher_started = true;
    if (cfg->request_timeout_s > 0) {
        rc = pthread_create(&s->reaper, NULL, reaper_main, s);
        if (rc) {
            server_fail(err, errlen, "cannot start the reaper thread: %s", strerror(rc));
            goto cleanup;
        }
        s->reaper_started = true;
    }
    if (!(s->daemon = start_daemon(s, err, errlen))) goto cleanup;
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di ? di->port : (uint16_t)cfg->port;
    ok = true;
cleanup:
    if (!ok) {
        destroy(s);
        return false;
    }
    *out = s;
    return true;
}

uint16_t server_port(const Server *s) { return s->port; }

void server_drain(Server *s)
{
    if (atomic_exchange(&s->draining, true)) return;
    pool_close(s->pool);
}

void server_stop(Server *s)
{
    if (!s) return;
    server_drain(s);
    if (!pool_wait_idle(s->pool, s->cfg.drain_timeout_ms)) {
        server_log(s->cfg.log_level, LOG_INFO, "msg=\"drain timeout: stopping the searches still running\"");
        stop_all_jobs(s);
        pool_wait_idle(s->pool, -1);
    }
    /* Every job has resumed its connection; let the polling thread answer them. */
    struct timespec until;
    deadline_in(&until, ANSWER_GRACE_MS);
    pthread_mutex_lock(&s->mu);
    int rc = 0;
    while (s->inflight > 0 && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&s->done_cv, &s->mu, &until);
    pthread_mutex_unlock(&s->mu);
    /* Take no more connections (new ones are refused at once), then let the
     * requests still on the wire - 503s answered while draining - be sent:
     * libmicrohttpd reports a request completed only after its answer is
     * out. Idle kept-alive connections are closed by the stop. */
    MHD_socket lsock = MHD_quiesce_daemon(s->daemon);
    if (lsock != MHD_INVALID_SOCKET) close(lsock);
    while (atomic_load(&s->live) > 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > until.tv_sec || (now.tv_sec == until.tv_sec && now.tv_nsec >= until.tv_nsec)) break;
        struct timespec nap = {0, 2000000L};
        nanosleep(&nap, NULL);
    }
    destroy(s);
}
