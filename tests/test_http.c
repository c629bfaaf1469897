/* The HTTP server end to end: the real server, started in-process on port 0,
 * talked to with libcurl and, for hang-ups, with raw sockets. */
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/level.h"
#include "server/config.h"
#include "server/http.h"
#include "tests/http_client.h"

/* A search that only its time limit (or a stop) ends. */
#define SLOW_BODY "{\"moves\":[\"h8\",\"h9\",\"j10\"],\"limits\":{\"time_ms\":10000}}"
#define QUICK_BODY "{\"moves\":[\"h8\"],\"limits\":{\"depth\":1}}"
#define WAIT_MS 8000 /* bound on waiting for a state change; far below the slow search */

static Server *srv;
static uint16_t port;
static const char *auth; /* Authorization header of the helpers' own requests (metric) */

typedef HttpResp Resp;

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Small limits so that everything stays fast, also under the sanitizers. */
static void test_config(Config *c)
{
    config_defaults(c);
    c->port = 0;
    c->workers = 2;
    c->queue_length = 8;
    c->tt_mib = 1;
    c->default_time_ms = 200;
    /* a depth-limited request carries the cap as its time limit (its root
     * threat searches stop at 15% of it, swap2's tries at half): far above
     * what a loaded sanitizer run needs, so that depth-limited answers do
     * not depend on the machine (at 10 s, CI's once did) */
    c->max_time_ms = 60000;
    c->max_batch = 8;
    c->max_body_bytes = 4096;
    c->retry_after_s = 2;
    c->drain_timeout_ms = 5000;
    c->log_level = LOG_ERROR;
    c->result_cache = 0; /* repeated requests search again; the cache has its own tests */
    c->book_file[0] = 0; /* positions are searched; the book has its own tests */
}

static void start(Config *c)
{
    char err[256];
    cr_assert(engine_init());
    cr_assert(config_finish(c, err, sizeof err), "%s", err);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    auth = NULL;
    cr_assert(server_start(c, &srv, err, sizeof err), "%s", err);
    port = server_port(srv);
    cr_assert_gt(port, 0);
}

static void start_default(void)
{
    Config c;
    test_config(&c);
    start(&c);
}

static void stop(void)
{
    server_stop(srv);
    srv = NULL;
}

/* One request on handle h (NULL: a fresh one). header may be NULL, or
 * several headers separated by newlines. */
static Resp request_on(CURL *h, const char *method, const char *path, const char *body, const char *header)
{
    return http_request_on(h, port, method, path, body, header);
}

static Resp request(const char *method, const char *path, const char *body, const char *header)
{
    return request_on(NULL, method, path, body, header);
}

#define resp_free http_resp_free
#define header_of http_header

static void assert_problem(const Resp *r, int status, const char *field)
{
    char want[96];
    cr_assert_eq(r->status, status, "status %ld, body %s", r->status, r->body);
    cr_assert_str_eq(header_of(r, "Content-Type"), "application/problem+json");
    snprintf(want, sizeof want, "\"status\":%d", status);
    cr_assert(strstr(r->body, want), "%s in %s", want, r->body);
    snprintf(want, sizeof want, "\"field\":\"%s\"", field);
    cr_assert(strstr(r->body, want), "%s in %s", want, r->body);
    cr_assert(strstr(r->body, "\"type\":") && strstr(r->body, "\"title\":") && strstr(r->body, "\"detail\":"),
              "an RFC 9457 problem: %s", r->body);
}

/* One request whose answer must be the problem (status, field). */
static void expect_problem(const char *method, const char *path, const char *body, const char *header, int status,
                           const char *field)
{
    Resp r = request(method, path, body, header);
    assert_problem(&r, status, field);
    resp_free(&r);
}

/* The value of one series of /metrics ("name{labels}"); -1 when absent. */
static double metric(const char *series)
{
    Resp r = request("GET", "/metrics", NULL, auth);
    cr_assert_eq(r.status, 200);
    double v = -1;
    size_t n = strlen(series);
    for (const char *line = r.body; line && *line;) {
        if (!strncmp(line, series, n) && line[n] == ' ') {
            v = strtod(line + n + 1, NULL);
            break;
        }
        line = strchr(line, '\n');
        if (line) line++;
    }
    resp_free(&r);
    return v;
}

/* Polls /metrics until series == want; fails the test after WAIT_MS. */
static void wait_metric(const char *series, double want)
{
    double t0 = now_ms(), v = -1;
    while (now_ms() - t0 < WAIT_MS) {
        if ((v = metric(series)) == want) return;
        sleep_ms(5);
    }
    cr_assert_fail("%s stayed %g, expected %g", series, v, want);
}

/* Sends a whole POST over a raw socket and returns it, unread. */
/* A socket connected to the server. */
static int raw_connect(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "%s", strerror(errno));
    return fd;
}

static int raw_send(const char *path, const char *body)
{
    int fd = raw_connect();
    char req[1024];
    int n = snprintf(req, sizeof req,
                     "POST %s HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n%s",
                     path, strlen(body), body);
    cr_assert_eq(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
    return fd;
}

/* Reads an HTTP response's status line from fd (up to WAIT_MS); -1 if none. */
static int raw_status(int fd)
{
    char buf[4096];
    size_t len = 0;
    double t0 = now_ms();
    while (len < sizeof buf - 1 && now_ms() - t0 < WAIT_MS) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) <= 0) continue;
        ssize_t k = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (k <= 0) break;
        len += (size_t)k;
        buf[len] = 0;
        if (strstr(buf, "\r\n")) break;
    }
    buf[len] = 0;
    int status = -1;
    if (sscanf(buf, "HTTP/1.1 %d", &status) != 1) return -1;
    return status;
}

/* A POST /v1/analyze made on another thread. */
typedef struct {
    const char *body;
    Resp r;
    pthread_t t;
} Bg;

static void *bg_main(void *arg)
{
    Bg *b = arg;
    b->r = request("POST", "/v1/analyze", b->body, NULL);
    return NULL;
}

static void bg_start(Bg *b, const char *body)
{
    b->body = body;
    cr_assert_eq(pthread_create(&b->t, NULL, bg_main, b), 0);
}

/* ---- health, info, metrics -------------------------------------------- */

Test(http, livez_answers_200, .timeout = 30)
{
    start_default();
    Resp r = request("GET", "/livez", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(header_of(&r, "Content-Type"), "application/json");
    cr_assert(strstr(r.body, "\"status\":\"live\""), "%s", r.body);
    resp_free(&r);
    r = request("HEAD", "/livez", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_eq(r.len, 0, "HEAD has no body");
    resp_free(&r);
    stop();
}

Test(http, readyz_answers_200_while_serving, .timeout = 30)
{
    start_default();
    Resp r = request("GET", "/readyz", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body, "\"status\":\"ready\""), "%s", r.body);
    resp_free(&r);
    stop();
}

Test(http, info_reports_version_rules_sizes_limits_workers_and_queue, .timeout = 30)
{
    start_default();
    Resp r = request("GET", "/v1/info", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(header_of(&r, "Content-Type"), "application/json");
    const char *want[] = {"\"version\":\"" GOMOKUD_VERSION "\"",
                          "\"rules\":[\"freestyle\",\"standard\",\"renju\"]",
                          "\"board_size\":{\"min\":5,\"max\":25,\"default\":15}",
                          "\"default\":{\"time_ms\":200,\"depth\":null,\"nodes\":null}",
                          "\"max\":{\"time_ms\":60000,\"depth\":64,\"nodes\":100000000,\"multipv\":8}",
                          "\"workers\":2",
                          "\"queue_length\":8",
                          "\"max_batch\":8",
                          "\"max_review_moves\":7", /* capped by the queue: 7 moves are 8 positions */
                          "\"max_body_bytes\":4096"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert(strstr(r.body, want[i]), "%s in %s", want[i], r.body);
    resp_free(&r);
    stop();
}

Test(http, metrics_are_prometheus_text_counting_requests_by_route_and_status, .timeout = 30)
{
    start_default();
    Resp a = request("POST", "/v1/analyze", QUICK_BODY, NULL);
    cr_assert_eq(a.status, 200);
    resp_free(&a);
    Resp b = request("GET", "/nowhere", NULL, NULL);
    resp_free(&b);
    /* The worker counts itself idle just after it hands the answer back, so
     * a fast client can see it busy for a moment. */
    wait_metric("gomokud_workers_busy", 0);
    Resp r = request("GET", "/metrics", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(header_of(&r, "Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    const char *want[] = {
        "# TYPE gomokud_http_requests_total counter\n",
        "gomokud_http_requests_total{route=\"/v1/analyze\",status=\"200\"} 1\n",
        "gomokud_http_requests_total{route=\"other\",status=\"404\"} 1\n",
        "gomokud_queue_depth 0\n",
        "gomokud_queue_capacity 8\n",
        "gomokud_workers 2\n",
        "gomokud_workers_busy 0\n",
        "# TYPE gomokud_search_duration_seconds histogram\n",
        "gomokud_search_duration_seconds_count 1\n",
        "gomokud_search_duration_seconds_bucket{le=\"+Inf\"} 1\n",
        "gomokud_rejections_total{reason=\"queue_full\"} 0\n",
        "gomokud_jobs_cancelled_total{stage=\"running\"} 0\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert(strstr(r.body, want[i]), "%s in:\n%s", want[i], r.body);
    cr_assert_gt(metric("gomokud_nodes_searched_total"), 0);
    resp_free(&r);
    stop();
}

/* ---- analysis --------------------------------------------------------- */

Test(http, analyze_answers_the_best_move_and_echoes_the_id, .timeout = 30)
{
    start_default();
    Resp r = request("POST", "/v1/analyze",
                     "{\"id\":\"game-7\",\"moves\":[\"h8\",\"h9\"],\"limits\":{\"depth\":2}}", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(header_of(&r, "Content-Type"), "application/json");
    cr_assert(strstr(r.body, "\"id\":\"game-7\""), "%s", r.body);
    cr_assert(strstr(r.body, "\"side_to_move\":\"black\""), "%s", r.body);
    cr_assert(strstr(r.body, "\"best_move\":\""), "%s", r.body);
    cr_assert(strstr(r.body, "\"pv\":["), "%s", r.body);
    resp_free(&r);
    stop();
}

Test(http, review_judges_every_move_of_a_game, .timeout = 60)
{
    Config c;
    test_config(&c);
    c.queue_length = 16;
    start(&c);
    /* white plays in the corner from the start, lets black's open three
     * f8-h8 stand (a11) and black wins with a five at j8: the last position
     * is not searched. On the win rate fitted to match results white's
     * first wasted tempo (a15: 0.25 to 0.05 at depth 3) is the largest
     * loss; by a11 white is nearly lost (0.02), but walking into the
     * proven loss is still judged (an inaccuracy at that win rate). */
    Resp r = request("POST", "/v1/review",
                     "{\"id\":\"rv\",\"moves\":[\"f8\",\"a15\",\"g8\",\"a13\",\"h8\",\"a11\",\"i8\",\"a9\",\"j8\"],"
                     "\"limits\":{\"depth\":3}}",
                     NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cJSON *j = cJSON_Parse(r.body);
    cr_assert_not_null(j, "%s", r.body);
    cr_assert_str_eq(cJSON_GetObjectItem(j, "id")->valuestring, "rv");
    const cJSON *moves = cJSON_GetObjectItem(j, "moves");
    cr_assert_eq(cJSON_GetArraySize(moves), 9);
    const cJSON *a15 = cJSON_GetArrayItem(moves, 1), *a11 = cJSON_GetArrayItem(moves, 5), *five = cJSON_GetArrayItem(moves, 8);
    cr_assert_neq(strcmp(cJSON_GetObjectItem(a15, "judgement")->valuestring, "good"), 0, "%s", r.body);
    cr_assert_neq(strcmp(cJSON_GetObjectItem(a15, "judgement")->valuestring, "best"), 0, "%s", r.body);
    cr_assert_neq(strcmp(cJSON_GetObjectItem(a11, "judgement")->valuestring, "good"), 0, "%s", r.body);
    cr_assert_neq(strcmp(cJSON_GetObjectItem(a11, "judgement")->valuestring, "best"), 0, "%s", r.body);
    cr_assert_eq(cJSON_GetObjectItem(a11, "winrate_after")->valuedouble, 0, "black has a proven win after a11");
    cr_assert_str_eq(cJSON_GetObjectItem(five, "side")->valuestring, "black");
    cr_assert_eq(cJSON_GetObjectItem(five, "winrate_before")->valuedouble, 1);
    cr_assert_eq(cJSON_GetObjectItem(five, "winrate_after")->valuedouble, 1, "the five ends the game");
    const cJSON *white = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "sides"), "white");
    cr_assert_eq(cJSON_GetObjectItem(white, "moves")->valuedouble, 4);
    cr_assert_geq(cJSON_GetObjectItem(white, "inaccuracy")->valuedouble + cJSON_GetObjectItem(white, "mistake")->valuedouble +
                      cJSON_GetObjectItem(white, "blunder")->valuedouble,
                  2, "%s", r.body);
    cr_assert_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "critical"), 0)->valuedouble, 2, "%s", r.body);
    cJSON_Delete(j);
    resp_free(&r);
    stop();
}

Test(http, a_review_longer_than_the_queue_is_413_and_get_is_405, .timeout = 30)
{
    start_default(); /* queue_length 8: at most 7 moves */
    Resp r = request("POST", "/v1/review", "{\"moves\":[\"a1\",\"b1\",\"c1\",\"d1\",\"e3\",\"f1\",\"g1\",\"h1\"]}", NULL);
    cr_assert_eq(r.status, 413, "%s", r.body);
    cr_assert(strstr(r.body, "\"field\":\"moves\""), "%s", r.body);
    resp_free(&r);
    r = request("GET", "/v1/review", NULL, NULL);
    cr_assert_eq(r.status, 405);
    resp_free(&r);
    stop();
}

Test(http, an_empty_body_is_a_400_and_the_empty_board_is_analysed_when_asked, .timeout = 30)
{
    start_default();
    Resp r = request("POST", "/v1/analyze", "", NULL);
    assert_problem(&r, 400, "");
    cr_assert(strstr(r.body, "empty"), "%s", r.body);
    resp_free(&r);
    r = request("POST", "/v1/analyze", "{\"moves\": [], \"limits\": {\"depth\": 2}}", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(strstr(r.body, "\"best_move\":\""), "%s", r.body);
    resp_free(&r);
    stop();
}

Test(http, the_server_caps_the_limits_a_request_asks_for, .timeout = 30)
{
    Config c;
    test_config(&c);
    c.max_depth = 2;
    start(&c);
    Resp r = request("POST", "/v1/analyze", "{\"moves\":[\"h8\",\"h9\"],\"limits\":{\"depth\":30}}", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    const char *d = strstr(r.body, "\"depth\":");
    cr_assert_not_null(d, "%s", r.body);
    cr_assert_leq(atoi(d + 8), 2, "depth capped by max_depth: %s", r.body);
    resp_free(&r);
    expect_problem("POST", "/v1/analyze", "{\"moves\":[\"h8\"],\"multipv\":9}", NULL, 400, "multipv");
    stop();
}

Test(http, malformed_json_is_400, .timeout = 30)
{
    start_default();
    expect_problem("POST", "/v1/analyze", "{\"moves\": [\"h8\"", NULL, 400, "");
    stop();
}

Test(http, a_wrong_type_is_400_naming_the_field, .timeout = 30)
{
    start_default();
    expect_problem("POST", "/v1/analyze", "{\"moves\":[\"h8\"],\"limits\":{\"depth\":\"deep\"}}", NULL, 400, "limits.depth");
    cr_assert_eq(metric("gomokud_rejections_total{reason=\"bad_request\"}"), 1);
    stop();
}

Test(http, an_impossible_position_is_422_naming_the_move, .timeout = 30)
{
    start_default();
    expect_problem("POST", "/v1/analyze", "{\"moves\":[\"h8\",\"i9\",\"h8\"]}", NULL, 422, "moves[2]");
    cr_assert_eq(metric("gomokud_rejections_total{reason=\"unprocessable\"}"), 1);
    stop();
}

Test(http, an_unknown_path_is_404, .timeout = 30)
{
    start_default();
    expect_problem("GET", "/v2/analyze", NULL, NULL, 404, "");
    expect_problem("POST", "/v1/analyze/", QUICK_BODY, NULL, 404, "");
    stop();
}

Test(http, a_wrong_method_is_405_with_allow, .timeout = 30)
{
    start_default();
    Resp r = request("GET", "/v1/analyze", NULL, NULL);
    assert_problem(&r, 405, "");
    cr_assert_str_eq(header_of(&r, "Allow"), "POST, OPTIONS");
    resp_free(&r);
    r = request("PUT", "/v1/analyze/batch", "{}", NULL);
    assert_problem(&r, 405, "");
    cr_assert_str_eq(header_of(&r, "Allow"), "POST, OPTIONS");
    resp_free(&r);
    r = request("POST", "/livez", "{}", NULL);
    assert_problem(&r, 405, "");
    cr_assert_str_eq(header_of(&r, "Allow"), "GET, HEAD, OPTIONS");
    resp_free(&r);
    expect_problem("DELETE", "/metrics", NULL, NULL, 405, "");
    stop();
}

Test(http, a_body_over_the_cap_is_413, .timeout = 30)
{
    start_default();
    char *big = malloc(5001);
    memset(big, ' ', 5000);
    big[5000] = 0;
    expect_problem("POST", "/v1/analyze", big, NULL, 413, "");
    free(big);
    cr_assert_eq(metric("gomokud_rejections_total{reason=\"body_too_large\"}"), 1);
    stop();
}

Test(http, a_chunked_body_over_the_cap_is_413_too, .timeout = 30)
{
    start_default();
    int fd = raw_connect();
    const char *head = "POST /v1/analyze HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
    cr_assert_eq(send(fd, head, strlen(head), MSG_NOSIGNAL), (ssize_t)strlen(head));
    char chunk[1100];
    memset(chunk, ' ', sizeof chunk);
    for (int i = 0; i < 5; i++) { /* 5 x 1000 bytes: over 4096 */
        const char *size = "3e8\r\n";
        cr_assert_eq(send(fd, size, 5, MSG_NOSIGNAL), 5);
        cr_assert_eq(send(fd, chunk, 1000, MSG_NOSIGNAL), 1000);
        cr_assert_eq(send(fd, "\r\n", 2, MSG_NOSIGNAL), 2);
    }
    cr_assert_eq(send(fd, "0\r\n\r\n", 5, MSG_NOSIGNAL), 5);
    cr_assert_eq(raw_status(fd), 413);
    close(fd);
    stop();
}

/* ---- batch ------------------------------------------------------------ */

/* ---- play a move at a level ------------------------------------------ */

/* The "move" of a POST /v1/move answer (200 asserted), into buf. */
static const char *move_of(const char *body, char *buf, size_t n)
{
    Resp r = request("POST", "/v1/move", body, NULL);
    cr_assert_eq(r.status, 200, "%s: %ld %s", body, r.status, r.body);
    cJSON *j = cJSON_Parse(r.body);
    cr_assert_not_null(j, "%s", r.body);
    const cJSON *m = cJSON_GetObjectItem(j, "move");
    cr_assert(cJSON_IsString(m), "%s", r.body);
    snprintf(buf, n, "%s", m->valuestring);
    cJSON_Delete(j);
    resp_free(&r);
    return buf;
}

Test(http, move_plays_as_a_level_and_reports_its_choice, .timeout = 30)
{
    start_default();
    Resp r = request("POST", "/v1/move", "{\"id\":\"bot-1\",\"moves\":[\"h8\",\"h9\"],\"level\":\"novice\",\"seed\":3}",
                     NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(header_of(&r, "Content-Type"), "application/json");
    cJSON *j = cJSON_Parse(r.body);
    cr_assert_not_null(j, "%s", r.body);
    cr_assert_str_eq(cJSON_GetObjectItem(j, "id")->valuestring, "bot-1");
    cr_assert_str_eq(cJSON_GetObjectItem(j, "side_to_move")->valuestring, "black");
    cr_assert_eq(cJSON_GetObjectItem(j, "level")->valuedouble, 2);
    cr_assert_str_eq(cJSON_GetObjectItem(j, "level_name")->valuestring, "novice");
    cr_assert_eq(cJSON_GetObjectItem(j, "seed")->valuedouble, 3);
    const char *move = cJSON_GetObjectItem(j, "move")->valuestring;
    const cJSON *cands = cJSON_GetObjectItem(j, "candidates");
    cr_assert_eq(cJSON_GetArraySize(cands), level_get(2)->multipv, "%s", r.body);
    bool found = false;
    double sum = 0;
    for (const cJSON *c = cands->child; c; c = c->next) {
        sum += cJSON_GetObjectItem(c, "probability")->valuedouble;
        if (strcmp(cJSON_GetObjectItem(c, "move")->valuestring, move)) continue;
        found = true;
        cr_assert_eq(cJSON_GetObjectItem(c, "score")->valuedouble, cJSON_GetObjectItem(j, "score")->valuedouble);
        cr_assert_eq(cJSON_GetObjectItem(c, "winrate")->valuedouble, cJSON_GetObjectItem(j, "winrate")->valuedouble);
        cr_assert_gt(cJSON_GetObjectItem(c, "probability")->valuedouble, 0);
    }
    cr_assert(found, "the move is one of the candidates: %s", r.body);
    cr_assert(sum > 0.99 && sum < 1.01, "%s", r.body);
    double nodes = cJSON_GetObjectItem(j, "nodes")->valuedouble;
    cr_assert(nodes > 0 && nodes < 4 * level_get(2)->nodes, "the level's node cap: %s", r.body);
    cr_assert_not_null(cJSON_GetObjectItem(j, "time_ms"));
    cJSON_Delete(j);
    resp_free(&r);
    cr_assert_eq(metric("gomokud_http_requests_total{route=\"/v1/move\",status=\"200\"}"), 1);
    r = request("GET", "/v1/move", NULL, NULL);
    cr_assert_eq(r.status, 405);
    cr_assert_str_eq(header_of(&r, "Allow"), "POST, OPTIONS");
    resp_free(&r);
    stop();
}

Test(http, move_with_the_same_seed_plays_the_same_move_and_other_seeds_vary, .timeout = 60)
{
    start_default();
    const char *pos = "\"moves\":[\"h8\",\"i9\",\"h9\",\"h10\",\"g8\"]";
    char body[256], first[8], again[8], other[8];
    snprintf(body, sizeof body, "{%s,\"level\":1,\"seed\":11}", pos);
    move_of(body, first, sizeof first);
    /* a different search in between on the same workers */
    Resp r = request("POST", "/v1/analyze", "{\"moves\":[\"h8\",\"i9\",\"h9\"],\"limits\":{\"nodes\":3000}}", NULL);
    cr_assert_eq(r.status, 200);
    resp_free(&r);
    move_of(body, again, sizeof again);
    cr_assert_str_eq(first, again, "same position, level and seed");
    /* the choice is really random: some seed plays another move */
    bool varied = false;
    for (int seed = 0; seed < 12 && !varied; seed++) {
        snprintf(body, sizeof body, "{%s,\"level\":1,\"seed\":%d}", pos, 100 + seed);
        varied = strcmp(move_of(body, other, sizeof other), first) != 0;
    }
    cr_assert(varied, "twelve seeds at level 1 all played %s", first);
    stop();
}

Test(http, move_at_full_strength_completes_the_only_five, .timeout = 30)
{
    start_default();
    /* black h8 i8 j8 k8, white blocks g8: l8 is the only five */
    const char *moves = "\"moves\":[\"h8\",\"g8\",\"i8\",\"a1\",\"j8\",\"a3\",\"k8\",\"a5\"]";
    char body[256], move[8];
    snprintf(body, sizeof body, "{%s,\"level\":10}", moves);
    cr_assert_str_eq(move_of(body, move, sizeof move), "l8");
    snprintf(body, sizeof body, "{%s}", moves); /* the default level is the top */
    cr_assert_str_eq(move_of(body, move, sizeof move), "l8");
    snprintf(body, sizeof body, "{%s,\"limits\":{\"depth\":4}}", moves);
    Resp r = request("POST", "/v1/analyze", body, NULL);
    cr_assert(strstr(r.body, "\"best_move\":\"l8\""), "the engine's best move: %s", r.body);
    resp_free(&r);
    stop();
}

Test(http, a_bad_move_request_is_a_problem_naming_the_field, .timeout = 30)
{
    start_default();
    expect_problem("POST", "/v1/move", "{\"moves\":[\"h8\"],\"level\":42}", NULL, 400, "level");
    expect_problem("POST", "/v1/move", "{\"moves\":[\"h8\"],\"level\":\"wizard\"}", NULL, 400, "level");
    expect_problem("POST", "/v1/move", "{\"moves\":[\"h8\"],\"limits\":{\"time_ms\":5}}", NULL, 400, "limits");
    expect_problem("POST", "/v1/move", "{\"moves\":[\"h8\"],\"colour\":\"white\"}", NULL, 400, "colour");
    expect_problem("POST", "/v1/move", "{\"moves\":[\"h8\",\"h8\"]}", NULL, 422, "moves[1]");
    expect_problem("POST", "/v1/move", "", NULL, 400, "");
    cr_assert_eq(metric("gomokud_rejections_total{reason=\"bad_request\"}"), 5);
    cr_assert_eq(metric("gomokud_http_requests_total{route=\"/v1/move\",status=\"400\"}"), 5);
    stop();
}

Test(http, info_lists_the_levels_with_their_elo, .timeout = 30)
{
    start_default();
    Resp r = request("GET", "/v1/info", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cJSON *j = cJSON_Parse(r.body);
    cr_assert_not_null(j, "%s", r.body);
    const cJSON *levels = cJSON_GetObjectItem(j, "levels");
    cr_assert_eq(cJSON_GetArraySize(levels), LEVEL_COUNT, "%s", r.body);
    for (int n = LEVEL_MIN; n <= LEVEL_MAX; n++) {
        const cJSON *o = cJSON_GetArrayItem(levels, n - 1);
        cr_assert_eq(cJSON_GetObjectItem(o, "level")->valuedouble, n);
        cr_assert_str_eq(cJSON_GetObjectItem(o, "name")->valuestring, level_get(n)->name);
        cr_assert_eq(cJSON_GetObjectItem(o, "elo")->valuedouble, level_get(n)->elo);
        cr_assert_not_null(cJSON_GetObjectItem(o, "nodes"));
    }
    cJSON_Delete(j);
    resp_free(&r);
    stop();
}

Test(http, a_batch_is_answered_in_order_with_a_bad_position_in_its_slot, .timeout = 30)
{
    start_default();
    Resp r = request("POST", "/v1/analyze/batch",
                     "{\"positions\":["
                     "{\"id\":\"p0\",\"moves\":[\"h8\"],\"limits\":{\"depth\":2}},"
                     "{\"id\":\"p1\",\"moves\":[\"h8\",\"h8\"]},"
                     "{\"id\":\"p2\",\"moves\":[\"h8\",\"h9\"],\"limits\":{\"depth\":2}},"
                     "{\"id\":\"p3\",\"rule\":\"renju\",\"moves\":[],\"limits\":{\"depth\":1}}]}",
                     NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(header_of(&r, "Content-Type"), "application/json");
    const char *p0 = strstr(r.body, "\"id\":\"p0\""), *bad = strstr(r.body, "\"status\":422"),
               *p2 = strstr(r.body, "\"id\":\"p2\""), *p3 = strstr(r.body, "\"id\":\"p3\"");
    cr_assert(p0 && bad && p2 && p3, "%s", r.body);
    cr_assert(p0 < bad && bad < p2 && p2 < p3, "results in request order: %s", r.body);
    cr_assert(strstr(r.body, "\"field\":\"moves[1]\""), "%s", r.body);
    resp_free(&r);
    cr_assert_eq(metric("gomokud_search_duration_seconds_count"), 3, "three positions searched");
    stop();
}

Test(http, a_batch_is_spread_over_the_workers_and_a_hang_up_stops_all_of_it, .timeout = 30)
{
    start_default(); /* two workers */
    int fd = raw_send("/v1/analyze/batch", "{\"positions\":[" SLOW_BODY "," SLOW_BODY "]}");
    wait_metric("gomokud_workers_busy", 2);
    close(fd);
    wait_metric("gomokud_jobs_cancelled_total{stage=\"running\"}", 2);
    wait_metric("gomokud_workers_busy", 0);
    stop();
}

Test(http, a_batch_of_only_bad_positions_is_still_a_batch, .timeout = 30)
{
    start_default();
    Resp r = request("POST", "/v1/analyze/batch", "{\"positions\":[{\"board_size\":3},{\"moves\":[\"q1\"]}]}", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(strstr(r.body, "\"results\":["), "%s", r.body);
    cr_assert(strstr(r.body, "\"field\":\"board_size\""), "%s", r.body);
    cr_assert(strstr(r.body, "\"field\":\"moves[0]\""), "%s", r.body);
    resp_free(&r);
    stop();
}

Test(http, a_batch_over_max_batch_is_413_and_an_empty_one_400, .timeout = 30)
{
    start_default();
    char body[1024] = "{\"positions\":[";
    for (int i = 0; i < 9; i++) strcat(body, i ? ",{}" : "{}");
    strcat(body, "]}");
    expect_problem("POST", "/v1/analyze/batch", body, NULL, 413, "positions");
    cr_assert_eq(metric("gomokud_rejections_total{reason=\"batch_too_large\"}"), 1);
    expect_problem("POST", "/v1/analyze/batch", "{\"positions\":[]}", NULL, 400, "positions");
    expect_problem("POST", "/v1/analyze/batch", "[1,2]", NULL, 400, "");
    stop();
}

/* ---- request ids, keep-alive, access log ------------------------------ */

Test(http, a_request_id_is_echoed_sanitised_and_capped_or_generated, .timeout = 30)
{
    start_default();
    Resp r = request("GET", "/livez", NULL, "X-Request-ID: trace-42.a:b_c");
    cr_assert_str_eq(header_of(&r, "X-Request-ID"), "trace-42.a:b_c");
    resp_free(&r);
    r = request("GET", "/livez", NULL, "X-Request-ID: a<b>c\"d;e");
    cr_assert_str_eq(header_of(&r, "X-Request-ID"), "abcde");
    resp_free(&r);
    char h[200] = "X-Request-ID: ";
    for (int i = 0; i < 100; i++) strcat(h, "x");
    r = request("GET", "/livez", NULL, h);
    cr_assert_eq(strlen(header_of(&r, "X-Request-ID")), 64);
    resp_free(&r);
    r = request("GET", "/livez", NULL, NULL);
    const char *id = header_of(&r, "X-Request-ID");
    cr_assert_eq(strlen(id), 16, "generated id '%s'", id);
    cr_assert_eq(strspn(id, "0123456789abcdef"), 16, "'%s' is hex", id);
    resp_free(&r);
    r = request("GET", "/nowhere", NULL, "X-Request-ID: on-errors-too");
    cr_assert_str_eq(header_of(&r, "X-Request-ID"), "on-errors-too");
    resp_free(&r);
    stop();
}

Test(http, each_request_writes_one_access_log_line, .timeout = 30)
{
    char path[] = "/tmp/gomokud-log-XXXXXX";
    int logfd = mkstemp(path);
    cr_assert_geq(logfd, 0);
    int saved = dup(STDERR_FILENO);
    dup2(logfd, STDERR_FILENO);
    Config c;
    test_config(&c);
    c.log_level = LOG_INFO;
    start(&c);
    Resp r = request("POST", "/v1/analyze", QUICK_BODY, "X-Request-ID: logged-1");
    cr_assert_eq(r.status, 200);
    resp_free(&r);
    r = request("GET", "/v1/nothing", NULL, "X-Request-ID: logged-2");
    resp_free(&r);
    stop();
    dup2(saved, STDERR_FILENO);
    close(saved);

    char log[8192] = "";
    ssize_t n = pread(logfd, log, sizeof log - 1, 0);
    close(logfd);
    unlink(path);
    cr_assert_gt(n, 0);
    log[n] = 0;
    const char *a = strstr(log, "method=POST path=/v1/analyze status=200 duration_ms=");
    cr_assert(a && strstr(a, "request_id=logged-1\n"), "%s", log);
    const char *b = strstr(log, "method=GET path=/v1/nothing status=404 duration_ms=");
    cr_assert(b && strstr(b, "request_id=logged-2\n"), "%s", log);
    int lines = 0;
    for (const char *p = log; (p = strstr(p, "msg=access")); p++) lines++;
    cr_assert_eq(lines, 2, "%s", log);
}

Test(http, one_keep_alive_connection_serves_many_requests, .timeout = 30)
{
    start_default();
    CURL *h = curl_easy_init();
    long connects = 0;
    for (int i = 0; i < 20; i++) {
        Resp r = request_on(h, i % 2 ? "GET" : "POST", i % 2 ? "/livez" : "/v1/analyze", i % 2 ? NULL : QUICK_BODY,
                            NULL);
        cr_assert_eq(r.status, 200, "request %d: %s", i, r.body);
        long c = 0;
        curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &c);
        connects += c;
        resp_free(&r);
    }
    curl_easy_cleanup(h);
    cr_assert_eq(connects, 1, "one connection for all requests");
    stop();
}

/* ---- queue, hang-ups, shutdown ---------------------------------------- */

static void start_one_worker(int queue, int drain_timeout_ms)
{
    Config c;
    test_config(&c);
    c.workers = 1;
    c.queue_length = queue;
    c.max_batch = 1;
    c.drain_timeout_ms = drain_timeout_ms;
    start(&c);
}

Test(http, a_full_queue_is_503_with_retry_after, .timeout = 30)
{
    start_one_worker(1, 0);
    int running = raw_send("/v1/analyze", SLOW_BODY);
    wait_metric("gomokud_workers_busy", 1);
    int queued = raw_send("/v1/analyze", SLOW_BODY);
    wait_metric("gomokud_queue_depth", 1);

    Resp r = request("POST", "/v1/analyze", QUICK_BODY, NULL);
    assert_problem(&r, 503, "");
    cr_assert_str_eq(header_of(&r, "Retry-After"), "2");
    resp_free(&r);
    r = request("POST", "/v1/analyze/batch", "{\"positions\":[{}]}", NULL);
    assert_problem(&r, 503, "");
    cr_assert_str_eq(header_of(&r, "Retry-After"), "2");
    resp_free(&r);
    cr_assert_eq(metric("gomokud_rejections_total{reason=\"queue_full\"}"), 2);
    r = request("GET", "/livez", NULL, NULL);
    cr_assert_eq(r.status, 200, "health checks are not queued");
    resp_free(&r);

    close(queued);
    close(running);
    wait_metric("gomokud_workers_busy", 0);
    stop();
}

Test(http, a_client_hang_up_stops_its_running_search, .timeout = 30)
{
    start_one_worker(4, 0);
    int fd = raw_send("/v1/analyze", SLOW_BODY);
    wait_metric("gomokud_workers_busy", 1);
    cr_assert_eq(metric("gomokud_connections_waiting"), 1);
    close(fd);
    /* The search had ten seconds; the worker is free long before. */
    wait_metric("gomokud_jobs_cancelled_total{stage=\"running\"}", 1);
    wait_metric("gomokud_workers_busy", 0);
    cr_assert_eq(metric("gomokud_client_hangups_total"), 1);
    cr_assert_eq(metric("gomokud_connections_waiting"), 0);
    cr_assert_eq(metric("gomokud_http_requests_total{route=\"/v1/analyze\",status=\"499\"}"), 1);
    Resp r = request("POST", "/v1/analyze", QUICK_BODY, NULL);
    cr_assert_eq(r.status, 200, "the worker serves the next request");
    resp_free(&r);
    stop();
}

Test(http, a_queued_job_whose_client_left_is_dropped_unsearched, .timeout = 30)
{
    start_one_worker(4, 0);
    int running = raw_send("/v1/analyze", SLOW_BODY);
    wait_metric("gomokud_workers_busy", 1);
    int queued = raw_send("/v1/analyze", SLOW_BODY);
    wait_metric("gomokud_queue_depth", 1);
    close(queued);
    wait_metric("gomokud_client_hangups_total", 1); /* noticed while still queued */
    close(running);
    wait_metric("gomokud_jobs_cancelled_total{stage=\"queued\"}", 1);
    wait_metric("gomokud_jobs_cancelled_total{stage=\"running\"}", 1);
    wait_metric("gomokud_workers_busy", 0);
    cr_assert_eq(metric("gomokud_search_duration_seconds_count"), 1, "only the running job was searched");
    stop();
}

Test(http, draining_turns_readyz_503_refuses_new_jobs_and_answers_the_running_one, .timeout = 30)
{
    start_one_worker(4, 5000);
    Bg bg;
    bg_start(&bg, "{\"moves\":[\"h8\",\"h9\",\"j10\"],\"limits\":{\"time_ms\":1500}}");
    wait_metric("gomokud_workers_busy", 1);
    server_drain(srv);

    Resp r = request("GET", "/readyz", NULL, NULL);
    assert_problem(&r, 503, "");
    cr_assert_str_eq(header_of(&r, "Retry-After"), "2");
    resp_free(&r);
    r = request("POST", "/v1/analyze", QUICK_BODY, NULL);
    assert_problem(&r, 503, "");
    cr_assert_str_eq(header_of(&r, "Retry-After"), "2");
    cr_assert_str_eq(header_of(&r, "Connection"), "close");
    resp_free(&r);
    cr_assert_eq(metric("gomokud_rejections_total{reason=\"draining\"}"), 1);
    cr_assert_eq(metric("gomokud_draining"), 1);
    r = request("GET", "/livez", NULL, NULL);
    cr_assert_eq(r.status, 200, "still alive while draining");
    resp_free(&r);

    stop(); /* returns once the running search has been answered */
    pthread_join(bg.t, NULL);
    cr_assert_eq(bg.r.status, 200, "%s", bg.r.body);
    cr_assert(strstr(bg.r.body, "\"best_move\":\""), "%s", bg.r.body);
    resp_free(&bg.r);
}

Test(http, stop_cuts_long_searches_short_after_the_drain_timeout_and_answers_them, .timeout = 30)
{
    start_one_worker(4, 100);
    Bg running, queued;
    bg_start(&running, SLOW_BODY);
    wait_metric("gomokud_workers_busy", 1);
    bg_start(&queued, SLOW_BODY);
    wait_metric("gomokud_queue_depth", 1);
    uint16_t p = port;
    stop(); /* both searches would take ten seconds each */
    pthread_join(running.t, NULL);
    pthread_join(queued.t, NULL);
    cr_assert_eq(running.r.status, 200, "%s", running.r.body);
    cr_assert(strstr(running.r.body, "\"complete\":false"), "%s", running.r.body);
    cr_assert_eq(queued.r.status, 200, "the queued job is answered too: %s", queued.r.body);
    cr_assert(strstr(queued.r.body, "\"complete\":false"), "%s", queued.r.body);
    resp_free(&running.r);
    resp_free(&queued.r);

    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(p)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_neq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "the port is closed after stop");
    close(fd);
}

Test(http, a_server_that_cannot_listen_says_why, .timeout = 30)
{
    start_default();
    Config c;
    test_config(&c);
    c.port = port; /* taken by the first server */
    char err[256];
    Server *other = NULL;
    cr_assert(config_finish(&c, err, sizeof err));
    cr_assert_not(server_start(&c, &other, err, sizeof err));
    cr_assert_null(other);
    cr_assert(strstr(err, "cannot listen"), "%s", err);
    stop();
}

/* ---- the opening book ----------------------------------------------------- */

static void start_with_book(const char *book_file)
{
    Config c;
    test_config(&c);
    snprintf(c.book_file, sizeof c.book_file, "%s", book_file);
    start(&c);
}

/* The value of a string member of the JSON object body, into buf. */
static const char *member_str(const char *body, const char *name, char *buf, size_t n)
{
    cJSON *j = cJSON_Parse(body);
    cr_assert_not_null(j, "%s", body);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, name);
    cr_assert(cJSON_IsString(v), "%s: no string %s", body, name);
    snprintf(buf, n, "%s", v->valuestring);
    cJSON_Delete(j);
    return buf;
}

Test(http, the_built_in_book_answers_the_centre_opening_and_book_false_searches, .timeout = 60)
{
    start_with_book("builtin");
    Resp r = request("GET", "/v1/info", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body, "\"book\":{\"loaded\":true,\"positions\":"), "%s", r.body);
    cr_assert_null(strstr(r.body, "\"positions\":0}"), "%s", r.body);
    resp_free(&r);
    char buf[16], buf2[16];
    static const char *const rules[] = {"freestyle", "standard", "renju"};
    for (int i = 0; i < 3; i++) {
        char body[256];
        snprintf(body, sizeof body, "{\"rule\":\"%s\",\"moves\":[\"h8\"],\"limits\":{\"depth\":2}}", rules[i]);
        r = request("POST", "/v1/analyze", body, NULL);
        cr_assert_eq(r.status, 200, "%s", r.body);
        cr_assert_str_eq(member_str(r.body, "source", buf, sizeof buf), "book", "%s", r.body);
        cr_assert(strstr(r.body, "\"nodes\":0,"), "%s", r.body);
        cr_assert(strstr(r.body, "\"complete\":true"), "%s", r.body);
        member_str(r.body, "best_move", buf2, sizeof buf2);
        resp_free(&r);
        /* the same request again: the same move (a book is deterministic) */
        r = request("POST", "/v1/analyze", body, NULL);
        cr_assert_str_eq(member_str(r.body, "best_move", buf, sizeof buf), buf2);
        resp_free(&r);
        snprintf(body, sizeof body, "{\"rule\":\"%s\",\"moves\":[\"h8\"],\"book\":false,\"limits\":{\"depth\":2}}",
                 rules[i]);
        r = request("POST", "/v1/analyze", body, NULL);
        cr_assert_eq(r.status, 200, "%s", r.body);
        cr_assert_str_eq(member_str(r.body, "source", buf, sizeof buf), "search", "%s", r.body);
        resp_free(&r);
    }
    /* far from the opening: searched */
    r = request("POST", "/v1/analyze", "{\"moves\":[\"a1\",\"o15\",\"a15\"],\"limits\":{\"depth\":1}}", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(member_str(r.body, "source", buf, sizeof buf), "search");
    resp_free(&r);
    /* two lines are always searched; the full-strength move plays from the book */
    r = request("POST", "/v1/analyze", "{\"moves\":[\"h8\"],\"multipv\":2,\"limits\":{\"depth\":1}}", NULL);
    cr_assert_str_eq(member_str(r.body, "source", buf, sizeof buf), "search");
    resp_free(&r);
    r = request("POST", "/v1/move", "{\"moves\":[\"h8\"]}", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(member_str(r.body, "source", buf, sizeof buf), "book", "%s", r.body);
    resp_free(&r);
    expect_problem("POST", "/v1/analyze", "{\"moves\":[\"h8\"],\"book\":0}", NULL, 400, "book");
    expect_problem("POST", "/v1/review", "{\"moves\":[\"h8\"],\"book\":false}", NULL, 400, "book");
    stop();
}

/* keep_proofs: a worker that proved a win answers a later position on that
 * win's line at once ("source": "proof"), even with a budget that could not
 * prove it; with keep_proofs = 0 that position is searched, and unproven. */
static void kept_proof_case(int keep, int workers)
{
    Config c;
    test_config(&c);
    c.workers = workers;
    c.result_cache = 0;
    c.keep_proofs = keep;
    start(&c);
    /* tactics puzzle 55 (renju, black wins in 11) */
    const char *stones = "\"f11\",\"h11\",\"g11\",\"g10\",\"h10\",\"k10\",\"i10\",\"i9\",\"j10\",\"k9\","
                         "\"j9\",\"i8\",\"h8\",\"j7\",\"h7\",\"g6\",\"f6\",\"i6\",\"k6\",\"f5\"";
    char body[1024], buf[16];
    snprintf(body, sizeof body, "{\"rule\":\"renju\",\"moves\":[%s],\"limits\":{\"nodes\":300000}}", stones);
    Resp r = request("POST", "/v1/analyze", body, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(strstr(r.body, "\"mate\":11,"), "%s", r.body);
    cr_assert(strstr(r.body, "\"pv\":[\"j11\",\"i7\",\"i5\","), "%s", r.body);
    cr_assert_str_eq(member_str(r.body, "source", buf, sizeof buf), "search", "%s", r.body);
    resp_free(&r);
    /* two plies on, with 50 nodes, on whichever worker takes it (with
     * several workers, what one proves is passed on to the others) */
    snprintf(body, sizeof body, "{\"rule\":\"renju\",\"moves\":[%s,\"j11\",\"i7\"],\"limits\":{\"nodes\":50}}", stones);
    for (int k = 0; k < 2 * workers; k++) {
        r = request("POST", "/v1/analyze", body, NULL);
        cr_assert_eq(r.status, 200, "%s", r.body);
        if (keep) {
            cr_assert_str_eq(member_str(r.body, "source", buf, sizeof buf), "proof", "%s", r.body);
            cr_assert(strstr(r.body, "\"mate\":10,"), "%s", r.body);
            cr_assert(strstr(r.body, "\"best_move\":\"i5\""), "%s", r.body);
            cr_assert(strstr(r.body, "\"winrate\":1,"), "%s", r.body);
        } else {
            cr_assert_str_eq(member_str(r.body, "source", buf, sizeof buf), "search", "%s", r.body);
            cr_assert(strstr(r.body, "\"mate\":null"), "%s", r.body);
        }
        resp_free(&r);
    }
    stop();
}

Test(http, a_worker_answers_positions_on_a_win_it_proved_from_the_proof, .timeout = 60) { kept_proof_case(1, 1); }

Test(http, a_win_one_worker_proved_answers_on_every_worker, .timeout = 60) { kept_proof_case(1, 3); }

Test(http, with_keep_proofs_off_every_position_is_searched_afresh, .timeout = 60) { kept_proof_case(0, 2); }

Test(http, without_a_book_everything_is_searched_and_info_says_so, .timeout = 30)
{
    start_with_book("");
    Resp r = request("GET", "/v1/info", NULL, NULL);
    cr_assert(strstr(r.body, "\"book\":{\"loaded\":false,\"positions\":0}"), "%s", r.body);
    resp_free(&r);
    char buf[16];
    r = request("POST", "/v1/analyze", "{\"moves\":[\"h8\"],\"limits\":{\"depth\":1}}", NULL);
    cr_assert_str_eq(member_str(r.body, "source", buf, sizeof buf), "search", "%s", r.body);
    resp_free(&r);
    stop();
}

Test(http, a_book_file_is_read_at_start_and_a_bad_one_stops_the_server, .timeout = 30)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/gomokud-test-book-%d.txt", (int)getpid());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("# not a book\nfreestyle 15 nothex h8 1 1\n", f);
    fclose(f);
    Config c;
    test_config(&c);
    snprintf(c.book_file, sizeof c.book_file, "%s", path);
    char err[512];
    Server *s = NULL;
    cr_assert(engine_init());
    cr_assert(config_finish(&c, err, sizeof err));
    cr_assert_not(server_start(&c, &s, err, sizeof err));
    cr_assert_null(s);
    cr_assert(strstr(err, "book_file") && strstr(err, "line 2"), "%s", err);
    snprintf(c.book_file, sizeof c.book_file, "/nonexistent/book.txt");
    cr_assert_not(server_start(&c, &s, err, sizeof err));
    cr_assert(strstr(err, "book_file") && strstr(err, "cannot read"), "%s", err);
    /* a good file: the committed book, read from disk */
    unlink(path);
    start_with_book("config/book.txt");
    Resp r = request("POST", "/v1/analyze", "{\"moves\":[],\"limits\":{\"depth\":1}}", NULL);
    char buf[16];
    cr_assert_str_eq(member_str(r.body, "source", buf, sizeof buf), "book", "%s", r.body);
    resp_free(&r);
    stop();
}

/* ---- API keys ----------------------------------------------------------- */

#define KEY_A "Authorization: Bearer alpha-key-1"
#define KEY_B "Authorization: Bearer beta.key_2"

static void start_with_keys(const char *keys)
{
    Config c;
    test_config(&c);
    snprintf(c.api_keys, sizeof c.api_keys, "%s", keys);
    start(&c);
}

static void assert_unauthorized(const Resp *r)
{
    assert_problem(r, 401, "Authorization");
    cr_assert(!strncmp(header_of(r, "WWW-Authenticate"), "Bearer", 6), "WWW-Authenticate: %s",
              header_of(r, "WWW-Authenticate"));
}

Test(http, with_api_keys_a_request_without_a_key_is_401_with_a_bearer_challenge, .timeout = 30)
{
    start_with_keys("alpha-key-1, beta.key_2");
    Resp r = request("POST", "/v1/analyze", QUICK_BODY, NULL);
    assert_unauthorized(&r);
    cr_assert(strstr(r.body, "required"), "%s", r.body);
    resp_free(&r);
    const char *paths[] = {"/v1/info", "/metrics", "/nowhere"};
    for (int i = 0; i < 3; i++) {
        r = request("GET", paths[i], NULL, NULL);
        assert_unauthorized(&r);
        resp_free(&r);
    }
    auth = KEY_A;
    cr_assert_eq(metric("gomokud_rejections_total{reason=\"unauthorized\"}"), 4);
    cr_assert_eq(metric("gomokud_http_requests_total{route=\"/v1/analyze\",status=\"401\"}"), 1);
    stop();
}

Test(http, with_api_keys_a_wrong_key_is_401, .timeout = 30)
{
    start_with_keys("alpha-key-1,beta.key_2");
    const char *wrong[] = {"Authorization: Bearer alpha-key-", "Authorization: Bearer alpha-key-12",
                           "Authorization: Bearer ALPHA-KEY-1", "Authorization: Basic alpha-key-1",
                           "Authorization: alpha-key-1", "Authorization: Bearer alpha-key-1,beta.key_2"};
    for (int i = 0; i < 6; i++) {
        Resp r = request("POST", "/v1/analyze", QUICK_BODY, wrong[i]);
        assert_unauthorized(&r);
        cr_assert(strstr(r.body, "not valid"), "%s: %s", wrong[i], r.body);
        resp_free(&r);
    }
    stop();
}

Test(http, with_api_keys_every_configured_key_is_accepted, .timeout = 30)
{
    start_with_keys("alpha-key-1, beta.key_2");
    const char *keys[] = {KEY_A, KEY_B, "authorization: bearer alpha-key-1"};
    for (int i = 0; i < 3; i++) {
        Resp r = request("POST", "/v1/analyze", QUICK_BODY, keys[i]);
        cr_assert_eq(r.status, 200, "%s: %s", keys[i], r.body);
        cr_assert(strstr(r.body, "\"best_move\":\""), "%s", r.body);
        cr_assert_str_eq(header_of(&r, "WWW-Authenticate"), "");
        resp_free(&r);
        r = request("GET", "/v1/info", NULL, keys[i]);
        cr_assert_eq(r.status, 200);
        resp_free(&r);
    }
    auth = KEY_B;
    cr_assert_eq(metric("gomokud_rejections_total{reason=\"unauthorized\"}"), 0);
    stop();
}

Test(http, with_api_keys_livez_and_readyz_stay_open, .timeout = 30)
{
    start_with_keys("alpha-key-1");
    Resp r = request("GET", "/livez", NULL, NULL);
    cr_assert_eq(r.status, 200);
    resp_free(&r);
    r = request("GET", "/readyz", NULL, "Authorization: Bearer wrong");
    cr_assert_eq(r.status, 200);
    resp_free(&r);
    stop();
}

Test(http, api_keys_from_the_environment_protect_the_server, .timeout = 30)
{
    Config c;
    char err[256];
    char *env[] = {"GOMOKUD_API_KEYS=env-key-9", "GOMOKUD_WORKERS=1", "GOMOKUD_TT_MIB=1", NULL};
    char *args[] = {"--port", "0", "--log-level", "error"};
    cr_assert(config_load(&c, 4, args, env, err, sizeof err), "%s", err);
    cr_assert_str_eq(c.api_keys, "env-key-9");
    start(&c);
    Resp r = request("POST", "/v1/analyze", QUICK_BODY, NULL);
    assert_unauthorized(&r);
    resp_free(&r);
    r = request("POST", "/v1/analyze", QUICK_BODY, "Authorization: Bearer env-key-9");
    cr_assert_eq(r.status, 200, "%s", r.body);
    resp_free(&r);
    stop();
}

Test(http, without_api_keys_no_authorization_is_needed, .timeout = 30)
{
    start_default();
    Resp r = request("GET", "/v1/info", NULL, "Authorization: Bearer anything");
    cr_assert_eq(r.status, 200);
    resp_free(&r);
    stop();
}

/* ---- slow clients and the connection limit ------------------------------- */

/* True once the peer closed fd (end of file or an error), waiting up to ms. */
static bool closed_within(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, ms) <= 0) return false;
    char buf[256];
    ssize_t k = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    return k <= 0 && !(k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
}

/* Drips text one byte every 300 ms until the server closes the connection;
 * returns the seconds that took (or the time spent when all was sent).
 * /livez is asked between drips and must keep answering. */
static double drip_until_cut(int fd, const char *text)
{
    double t0 = now_ms();
    for (size_t i = 0; text[i]; i++) {
        if (send(fd, text + i, 1, MSG_NOSIGNAL) != 1) break;
        if (closed_within(fd, 300)) break;
        if (i % 3 == 0) {
            Resp r = request("GET", "/livez", NULL, NULL);
            cr_assert_eq(r.status, 200, "/livez answers while a client drips");
            resp_free(&r);
        }
    }
    return (now_ms() - t0) / 1e3;
}

static void start_request_timeout(int seconds)
{
    Config c;
    test_config(&c);
    c.request_timeout_s = seconds;
    start(&c);
}

Test(http, a_client_dripping_its_body_is_cut_off_after_request_timeout, .timeout = 60)
{
    start_request_timeout(1);
    int fd = raw_connect();
    const char *head = "POST /v1/analyze HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                       "Content-Length: 100\r\n\r\n";
    cr_assert_eq(send(fd, head, strlen(head), MSG_NOSIGNAL), (ssize_t)strlen(head));
    char body[101];
    memset(body, ' ', 100);
    body[100] = 0;
    double took = drip_until_cut(fd, body);
    cr_assert_lt(took, 3.0, "cut off after %.2f s (cap 1 s)", took);
    cr_assert_gt(took, 0.8, "not before the cap: %.2f s", took);
    close(fd);
    wait_metric("gomokud_rejections_total{reason=\"request_timeout\"}", 1);
    wait_metric("gomokud_http_requests_total{route=\"/v1/analyze\",status=\"408\"}", 1);
    Resp r = request("POST", "/v1/analyze", QUICK_BODY, NULL);
    cr_assert_eq(r.status, 200, "a normal client is still served: %s", r.body);
    resp_free(&r);
    stop();
}

Test(http, a_client_dripping_its_headers_is_cut_off_after_request_timeout, .timeout = 60)
{
    start_request_timeout(1);
    int fd = raw_connect();
    double took = drip_until_cut(fd, "GET /livez HTTP/1.1\r\nHost: t\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n");
    cr_assert_lt(took, 3.0, "cut off after %.2f s (cap 1 s)", took);
    close(fd);
    wait_metric("gomokud_rejections_total{reason=\"request_timeout\"}", 1);
    stop();
}

Test(http, a_prompt_keep_alive_client_is_not_cut_off, .timeout = 60)
{
    start_request_timeout(1);
    CURL *h = curl_easy_init();
    long connects = 0;
    for (int i = 0; i < 4; i++) { /* 1.6 s on one connection, each request prompt */
        Resp r = request_on(h, "POST", "/v1/analyze", QUICK_BODY, NULL);
        cr_assert_eq(r.status, 200, "request %d", i);
        resp_free(&r);
        long c = 0;
        curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &c);
        connects += c;
        sleep_ms(400);
    }
    curl_easy_cleanup(h);
    cr_assert_eq(connects, 1, "one connection, never cut");
    cr_assert_eq(metric("gomokud_rejections_total{reason=\"request_timeout\"}"), 0);
    /* A search longer than the cap is not a slow client. */
    Resp r = request("POST", "/v1/analyze", "{\"moves\":[\"h8\",\"h9\",\"j10\"],\"limits\":{\"time_ms\":1500}}", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    resp_free(&r);
    stop();
}

Test(http, connections_beyond_max_connections_wait_and_livez_answers_after, .timeout = 60)
{
    Config c;
    test_config(&c);
    c.max_connections = 4;
    start(&c);
    int fds[6];
    for (int i = 0; i < 6; i++) fds[i] = raw_connect(); /* the kernel queues the extra ones */
    sleep_ms(200);
    const char *get = "GET /livez HTTP/1.1\r\nHost: t\r\n\r\n";
    cr_assert_eq(send(fds[5], get, strlen(get), MSG_NOSIGNAL), (ssize_t)strlen(get));
    struct pollfd p = {.fd = fds[5], .events = POLLIN};
    cr_assert_eq(poll(&p, 1, 500), 0, "an extra connection is not served while the limit is reached");
    for (int i = 0; i < 4; i++) close(fds[i]);
    cr_assert_eq(raw_status(fds[5]), 200, "the waiting one is served once others close");
    close(fds[5]);
    close(fds[4]);
    Resp r = request("GET", "/livez", NULL, NULL);
    cr_assert_eq(r.status, 200);
    resp_free(&r);
    stop();
}

/* ---- worker faults -------------------------------------------------------- */

static void start_faulty(int fault_injection)
{
    Config c;
    test_config(&c);
    c.workers = 1;
    c.fault_injection = fault_injection;
    start(&c);
}

Test(http, an_engine_failure_is_a_500_problem_and_the_worker_serves_on, .timeout = 30)
{
    start_faulty(1);
    Resp r = request("POST", "/v1/analyze", QUICK_BODY, "X-Gomokud-Fault: engine");
    assert_problem(&r, 500, "");
    cr_assert(strstr(r.body, "internal error"), "%s", r.body);
    resp_free(&r);
    r = request("POST", "/v1/analyze", QUICK_BODY, NULL);
    cr_assert_eq(r.status, 200, "the same worker answers the next request: %s", r.body);
    resp_free(&r);
    r = request("POST", "/v1/analyze/batch", "{\"positions\":[{\"moves\":[\"h8\"],\"limits\":{\"depth\":1}}]}",
                "X-Gomokud-Fault: engine");
    cr_assert_eq(r.status, 200, "a batch reports the failure in its slot: %s", r.body);
    cr_assert(strstr(r.body, "\"status\":500"), "%s", r.body);
    resp_free(&r);
    stop();
}

Test(http, a_result_that_cannot_be_rendered_is_a_500_problem, .timeout = 30)
{
    start_faulty(1);
    Resp r = request("POST", "/v1/analyze", QUICK_BODY, "X-Gomokud-Fault: render");
    assert_problem(&r, 500, "");
    cr_assert(strstr(r.body, "out of memory"), "%s", r.body);
    resp_free(&r);
    r = request("POST", "/v1/analyze", QUICK_BODY, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    resp_free(&r);
    stop();
}

Test(http, the_fault_header_is_ignored_unless_fault_injection_is_on, .timeout = 30)
{
    start_faulty(0);
    Resp r = request("POST", "/v1/analyze", QUICK_BODY, "X-Gomokud-Fault: engine");
    cr_assert_eq(r.status, 200, "%s", r.body);
    resp_free(&r);
    stop();
}

/* ---- start-up failures ----------------------------------------------------- */

Test(http, a_transposition_table_too_large_for_memory_is_refused_by_name, .timeout = 60)
{
    const char *dir = getenv("GOMOKUD_BIN_DIR");
    cr_assert_not_null(dir, "GOMOKUD_BIN_DIR");
    char cmd[1024], out[4096] = "";
    /* 64 GiB per worker for 64 workers: more than any test machine has. Under
     * ASan the allocator must return NULL rather than abort. */
    snprintf(cmd, sizeof cmd,
             "ASAN_OPTIONS=\"$ASAN_OPTIONS:allocator_may_return_null=1\" '%s/gomokud' --tt-mib 65536 --workers 64 "
             "--port 0 --log-level error 2>&1",
             dir);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    int st = pclose(f);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 0, "exits non-zero, not a crash: %d, %s", st, out);
    cr_assert(strstr(out, "tt_mib") && strstr(out, "65536"), "names tt_mib and the amount: %s", out);

    snprintf(cmd, sizeof cmd, "'%s/gomokud' --tt-mib 100000000 --port 0 2>&1", dir);
    f = popen(cmd, "r");
    cr_assert_not_null(f);
    n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    st = pclose(f);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2, "%d %s", st, out);
    cr_assert(strstr(out, "tt_mib") && strstr(out, "100000000"), "%s", out);
}

/* ---- readiness, CORS, rate limits, result cache ----------------------- */

Test(http, readyz_reports_the_queue_and_the_busy_workers, .timeout = 30)
{
    start_default();
    Resp r = request("GET", "/readyz", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body, "\"status\":\"ready\",\"queue_depth\":0,\"queue_capacity\":8,\"workers\":2,"
                             "\"workers_busy\":0}"),
              "%s", r.body);
    resp_free(&r);
    Bg bg;
    bg_start(&bg, "{\"moves\":[\"h8\",\"h9\",\"j10\"],\"limits\":{\"time_ms\":800}}");
    wait_metric("gomokud_workers_busy", 1);
    r = request("GET", "/readyz", NULL, NULL);
    cr_assert(strstr(r.body, "\"workers_busy\":1}"), "%s", r.body);
    resp_free(&r);
    pthread_join(bg.t, NULL);
    resp_free(&bg.r);
    stop();
}

static void start_cors(const char *origins)
{
    Config c;
    test_config(&c);
    snprintf(c.cors_origins, sizeof c.cors_origins, "%s", origins);
    start(&c);
}

Test(http, cors_allows_listed_origins_only_and_varies_on_origin, .timeout = 30)
{
    start_cors("https://app.example, http://localhost:3000");
    Resp r = request("POST", "/v1/analyze", QUICK_BODY, "Origin: http://localhost:3000");
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(header_of(&r, "Access-Control-Allow-Origin"), "http://localhost:3000");
    cr_assert_str_eq(header_of(&r, "Vary"), "Origin");
    cr_assert(strstr(header_of(&r, "Access-Control-Expose-Headers"), "X-Request-ID"));
    resp_free(&r);
    r = request("GET", "/v1/info", NULL, "Origin: https://evil.example");
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(header_of(&r, "Access-Control-Allow-Origin"), "", "an unlisted origin gets no CORS header");
    cr_assert_str_eq(header_of(&r, "Vary"), "Origin");
    resp_free(&r);
    /* an error is readable by the page too */
    r = request("POST", "/v1/analyze", "{\"moves\": 3}", "Origin: https://app.example");
    assert_problem(&r, 400, "moves");
    cr_assert_str_eq(header_of(&r, "Access-Control-Allow-Origin"), "https://app.example");
    resp_free(&r);
    stop();
}

Test(http, a_preflight_is_answered_204_without_an_api_key, .timeout = 30)
{
    Config c;
    test_config(&c);
    snprintf(c.cors_origins, sizeof c.cors_origins, "*");
    snprintf(c.api_keys, sizeof c.api_keys, "k-1");
    start(&c);
    Resp r = request("OPTIONS", "/v1/analyze", NULL,
                     "Origin: https://any.example\nAccess-Control-Request-Method: POST\n"
                     "Access-Control-Request-Headers: authorization, content-type");
    cr_assert_eq(r.status, 204, "%s", r.body);
    cr_assert_eq(r.len, 0);
    cr_assert_str_eq(header_of(&r, "Access-Control-Allow-Origin"), "*");
    cr_assert_str_eq(header_of(&r, "Access-Control-Allow-Methods"), "POST, OPTIONS");
    cr_assert(strstr(header_of(&r, "Access-Control-Allow-Headers"), "Authorization"));
    cr_assert(strstr(header_of(&r, "Access-Control-Allow-Headers"), "Content-Type"));
    cr_assert_str_eq(header_of(&r, "Access-Control-Max-Age"), "600");
    cr_assert_str_eq(header_of(&r, "Allow"), "POST, OPTIONS");
    resp_free(&r);
    r = request("OPTIONS", "/v1/info", NULL, "Origin: https://any.example\nAccess-Control-Request-Method: GET");
    cr_assert_eq(r.status, 204);
    cr_assert_str_eq(header_of(&r, "Access-Control-Allow-Methods"), "GET, HEAD, OPTIONS");
    resp_free(&r);
    expect_problem("OPTIONS", "/v1/nowhere", NULL, "Origin: https://any.example", 404, "");
    /* the real request still needs its key */
    r = request("POST", "/v1/analyze", QUICK_BODY, "Origin: https://any.example");
    cr_assert_eq(r.status, 401);
    cr_assert_str_eq(header_of(&r, "Access-Control-Allow-Origin"), "*");
    resp_free(&r);
    stop();
}

Test(http, without_cors_origins_there_are_no_cors_headers, .timeout = 30)
{
    start_default();
    Resp r = request("GET", "/v1/info", NULL, "Origin: https://app.example");
    cr_assert_str_eq(header_of(&r, "Access-Control-Allow-Origin"), "");
    cr_assert_str_eq(header_of(&r, "Vary"), "");
    resp_free(&r);
    r = request("OPTIONS", "/v1/analyze", NULL, "Origin: https://app.example\nAccess-Control-Request-Method: POST");
    cr_assert_eq(r.status, 204, "OPTIONS still tells the methods");
    cr_assert_str_eq(header_of(&r, "Allow"), "POST, OPTIONS");
    cr_assert_str_eq(header_of(&r, "Access-Control-Allow-Methods"), "");
    resp_free(&r);
    stop();
}

static void start_rate(int rate, int burst, const char *keys)
{
    Config c;
    test_config(&c);
    c.rate_limit = rate;
    c.rate_burst = burst;
    if (keys) snprintf(c.api_keys, sizeof c.api_keys, "%s", keys);
    start(&c);
}

Test(http, a_client_past_its_burst_gets_429_with_retry_after_and_ratelimit_headers, .timeout = 30)
{
    start_rate(1, 3, NULL);
    for (int i = 0; i < 3; i++) {
        Resp r = request("GET", "/v1/info", NULL, NULL);
        cr_assert_eq(r.status, 200, "request %d of the burst", i + 1);
        cr_assert_str_eq(header_of(&r, "RateLimit-Policy"), "\"client\";q=3;w=3");
        char want[48];
        snprintf(want, sizeof want, "\"client\";r=%d;", 2 - i);
        cr_assert(!strncmp(header_of(&r, "RateLimit"), want, strlen(want)), "RateLimit: %s, want %s...",
                  header_of(&r, "RateLimit"), want);
        resp_free(&r);
    }
    Resp r = request("POST", "/v1/analyze", QUICK_BODY, NULL);
    assert_problem(&r, 429, "");
    cr_assert_str_eq(header_of(&r, "Retry-After"), "1");
    cr_assert(!strncmp(header_of(&r, "RateLimit"), "\"client\";r=0;", 13), "%s", header_of(&r, "RateLimit"));
    cr_assert_str_eq(header_of(&r, "RateLimit-Policy"), "\"client\";q=3;w=3");
    resp_free(&r);
    /* probes and metrics are never limited */
    for (int i = 0; i < 5; i++) {
        r = request("GET", "/livez", NULL, NULL);
        cr_assert_eq(r.status, 200);
        cr_assert_str_eq(header_of(&r, "RateLimit"), "");
        resp_free(&r);
    }
    cr_assert_eq(metric("gomokud_rejections_total{reason=\"rate_limited\"}"), 1);
    cr_assert_eq(metric("gomokud_http_requests_total{route=\"/v1/analyze\",status=\"429\"}"), 1);
    /* a token is back after a second */
    sleep_ms(1100);
    r = request("GET", "/v1/info", NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    resp_free(&r);
    stop();
}

Test(http, with_api_keys_each_key_has_its_own_bucket, .timeout = 30)
{
    start_rate(1, 2, "key-a, key-b");
    for (int i = 0; i < 2; i++) {
        Resp r = request("GET", "/v1/info", NULL, "Authorization: Bearer key-a");
        cr_assert_eq(r.status, 200);
        resp_free(&r);
    }
    expect_problem("GET", "/v1/info", NULL, "Authorization: Bearer key-a", 429, "");
    Resp r = request("GET", "/v1/info", NULL, "Authorization: Bearer key-b");
    cr_assert_eq(r.status, 200, "another key is another client");
    resp_free(&r);
    r = request("GET", "/v1/info", NULL, NULL);
    cr_assert_eq(r.status, 401, "no key: refused before it could take a token");
    resp_free(&r);
    stop();
}

Test(http, an_identical_analysis_is_served_from_the_cache, .timeout = 30)
{
    Config c;
    test_config(&c);
    c.result_cache = 4;
    start(&c);
    const char *body = "{\"id\":\"first\",\"moves\":[\"h8\",\"i9\"],\"limits\":{\"depth\":5}}";
    Resp a = request("POST", "/v1/analyze", body, NULL);
    cr_assert_eq(a.status, 200, "%s", a.body);
    cr_assert_str_eq(header_of(&a, "Cache"), "miss");
    Resp b = request("POST", "/v1/analyze", "{\"id\":\"second\",\"moves\":[\"h8\",\"i9\"],\"limits\":{\"depth\":5}}",
                     NULL);
    cr_assert_eq(b.status, 200, "%s", b.body);
    cr_assert_str_eq(header_of(&b, "Cache"), "hit");
    cr_assert(strstr(b.body, "\"id\":\"second\""), "the asker's id: %s", b.body);
    cr_assert_str_eq(strstr(a.body, "\"rule\""), strstr(b.body, "\"rule\""), "the same answer");
    resp_free(&b);
    /* other limits, other position: searched */
    b = request("POST", "/v1/analyze", "{\"moves\":[\"h8\",\"i9\"],\"limits\":{\"depth\":4}}", NULL);
    cr_assert_str_eq(header_of(&b, "Cache"), "miss");
    resp_free(&b);
    b = request("POST", "/v1/analyze", "{\"moves\":[\"h8\",\"i8\"],\"limits\":{\"depth\":5}}", NULL);
    cr_assert_str_eq(header_of(&b, "Cache"), "miss");
    resp_free(&b);
    resp_free(&a);
    cr_assert_eq(metric("gomokud_cache_lookups_total{result=\"hit\"}"), 1);
    cr_assert_eq(metric("gomokud_cache_lookups_total{result=\"miss\"}"), 3);
    cr_assert_eq(metric("gomokud_search_duration_seconds_count"), 3, "the hit did not search");
    stop();
}

/* ---- streamed answers ------------------------------------------------- */

/* Splits a body into its non-empty lines (at most max); returns the count. */
static int lines_of(char *body, char **line, int max)
{
    int n = 0;
    for (char *p = strtok(body, "\n"); p && n < max; p = strtok(NULL, "\n")) line[n++] = p;
    return n;
}

/* The number of a member of a JSON object, -1e9 when absent. */
static double num_of(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : -1e9;
}

/* A result without the members that depend on the clock. */
static char *timeless(const char *json)
{
    cJSON *o = cJSON_Parse(json);
    cr_assert_not_null(o, "%s", json);
    cJSON_DeleteItemFromObjectCaseSensitive(o, "time_ms");
    cJSON_DeleteItemFromObjectCaseSensitive(o, "nps");
    cJSON_DeleteItemFromObjectCaseSensitive(o, "final");
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

Test(http, ndjson_streams_one_line_per_iteration_and_ends_with_the_answer, .timeout = 30)
{
    start_default();
    const char *body = "{\"id\":\"s1\",\"moves\":[\"h8\",\"i9\",\"h10\"],\"limits\":{\"depth\":6}}";
    Resp plain = request("POST", "/v1/analyze", body, NULL);
    cr_assert_eq(plain.status, 200);
    Resp r = request("POST", "/v1/analyze", body, "Accept: application/x-ndjson");
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(header_of(&r, "Content-Type"), "application/x-ndjson");
    cr_assert_str_eq(header_of(&r, "Cache-Control"), "no-store");
    cr_assert_str_eq(header_of(&r, "X-Accel-Buffering"), "no");
    cr_assert_eq(r.body[r.len - 1], '\n');
    char *line[64];
    int n = lines_of(r.body, line, 64);
    cr_assert_geq(n, 7, "six iterations and the answer: %d lines", n);
    int last_depth = 0;
    for (int i = 0; i < n - 1; i++) {
        cJSON *o = cJSON_Parse(line[i]);
        cr_assert_not_null(o, "line %d is JSON: %s", i, line[i]);
        cr_assert_gt(num_of(o, "depth"), last_depth, "depths grow: %s", line[i]);
        last_depth = (int)num_of(o, "depth");
        cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "best_move")), "%s", line[i]);
        cr_assert(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "pv")), "%s", line[i]);
        cr_assert(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "winrate")), "%s", line[i]);
        cr_assert_geq(num_of(o, "nodes"), 1);
        cr_assert_geq(num_of(o, "time_ms"), 0);
        cr_assert_null(cJSON_GetObjectItemCaseSensitive(o, "final"));
        cJSON_Delete(o);
    }
    cr_assert_eq(last_depth, 6);
    cr_assert(strstr(line[n - 1], ",\"final\":true}"), "%s", line[n - 1]);
    char *a = timeless(plain.body), *b = timeless(line[n - 1]);
    cr_assert_str_eq(a, b, "the last line is the plain answer plus final");
    free(a);
    free(b);
    resp_free(&plain);
    resp_free(&r);
    cr_assert_eq(metric("gomokud_streams_total"), 1);
    stop();
}

Test(http, sse_streams_progress_events_and_a_result_event, .timeout = 30)
{
    start_default();
    Resp r = request("POST", "/v1/analyze", "{\"moves\":[\"h8\"],\"limits\":{\"depth\":4}}",
                     "Accept: text/html;q=0.5, text/event-stream");
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(header_of(&r, "Content-Type"), "text/event-stream");
    cr_assert_str_eq(header_of(&r, "X-Accel-Buffering"), "no");
    cr_assert_str_eq(header_of(&r, "Cache-Control"), "no-store");
    int progress = 0, result = 0;
    for (const char *p = r.body; (p = strstr(p, "event: ")); p++) {
        if (!strncmp(p, "event: progress\ndata: {\"depth\":", 31)) progress++;
        else if (!strncmp(p, "event: result\ndata: {\"rule\":", 28)) result++;
        else cr_assert_fail("unexpected event at %.60s", p);
    }
    cr_assert_eq(progress, 4, "%s", r.body);
    cr_assert_eq(result, 1);
    cr_assert(strstr(r.body, ",\"final\":true}\n\n"), "%s", r.body);
    cr_assert_eq(strcmp(r.body + r.len - 2, "\n\n"), 0, "the stream ends with its last event");
    resp_free(&r);
    stop();
}

Test(http, a_streamed_batch_has_one_line_per_position_then_the_batch, .timeout = 30)
{
    start_default();
    Resp r = request("POST", "/v1/analyze/batch",
                     "{\"positions\":[{\"moves\":[\"h8\"],\"limits\":{\"depth\":3}},{\"moves\":[\"h8\",\"h8\"]},"
                     "{\"moves\":[\"a1\"],\"limits\":{\"depth\":2}}]}",
                     "Accept: application/x-ndjson");
    cr_assert_eq(r.status, 200, "%s", r.body);
    char *line[8];
    int n = lines_of(r.body, line, 8);
    cr_assert_eq(n, 3, "two positions searched and the batch: %s", r.body);
    bool seen[3] = {0};
    for (int i = 0; i < 2; i++) {
        cJSON *o = cJSON_Parse(line[i]);
        cr_assert_not_null(o);
        int k = (int)num_of(o, "index");
        cr_assert(k == 0 || k == 2, "%s", line[i]);
        seen[k] = true;
        cr_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "result"),
                                                                   "best_move")),
                  "%s", line[i]);
        cJSON_Delete(o);
    }
    cr_assert(seen[0] && seen[2]);
    cr_assert(!strncmp(line[2], "{\"results\":[", 12), "%s", line[2]);
    cr_assert(strstr(line[2], "\"status\":422"), "the bad slot in the final answer: %s", line[2]);
    cr_assert(strstr(line[2], ",\"final\":true}"), "%s", line[2]);
    resp_free(&r);
    stop();
}

Test(http, a_streamed_review_ends_with_the_review, .timeout = 60)
{
    start_default();
    Resp r = request("POST", "/v1/review", "{\"moves\":[\"h8\",\"a1\",\"h9\"],\"limits\":{\"depth\":2}}",
                     "Accept: application/x-ndjson");
    cr_assert_eq(r.status, 200, "%s", r.body);
    char *line[8];
    int n = lines_of(r.body, line, 8);
    cr_assert_eq(n, 5, "four positions and the review: %s", r.body);
    for (int i = 0; i < 4; i++) cr_assert(!strncmp(line[i], "{\"index\":", 9), "%s", line[i]);
    cr_assert(strstr(line[4], "\"moves\":[") && strstr(line[4], "\"accuracy\""), "%s", line[4]);
    cr_assert(strstr(line[4], ",\"final\":true}"), "%s", line[4]);
    resp_free(&r);
    stop();
}

Test(http, an_empty_body_streamed_is_still_a_400_problem, .timeout = 30)
{
    start_default();
    expect_problem("POST", "/v1/analyze", "", "Accept: application/x-ndjson", 400, "");
    stop();
}

/* Reads from fd until want appears (or WAIT_MS); true when it did. */
static bool raw_wait_for(int fd, const char *want)
{
    char buf[16384];
    size_t len = 0;
    double t0 = now_ms();
    while (len < sizeof buf - 1 && now_ms() - t0 < WAIT_MS) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 50) <= 0) continue;
        ssize_t k = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (k <= 0) return false;
        len += (size_t)k;
        buf[len] = 0;
        if (strstr(buf, want)) return true;
    }
    return false;
}

Test(http, a_stream_cut_by_the_client_stops_its_search, .timeout = 30)
{
    start_default();
    int fd = raw_connect();
    char req[512];
    int n = snprintf(req, sizeof req,
                     "POST /v1/analyze HTTP/1.1\r\nHost: t\r\nAccept: application/x-ndjson\r\n"
                     "Content-Length: %zu\r\n\r\n%s",
                     strlen(SLOW_BODY), SLOW_BODY);
    cr_assert_eq(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
    cr_assert(raw_wait_for(fd, "{\"depth\":"), "a progress line arrives while the search runs");
    cr_assert_eq(metric("gomokud_workers_busy"), 1);
    double t0 = now_ms();
    close(fd);
    /* The search had ten seconds; the worker is free long before. */
    wait_metric("gomokud_workers_busy", 0);
    double took = now_ms() - t0;
    cr_assert_lt(took, 3000, "the worker was freed %.0f ms after the hang-up", took);
    wait_metric("gomokud_jobs_cancelled_total{stage=\"running\"}", 1);
    cr_assert_eq(metric("gomokud_client_hangups_total"), 1);
    cr_assert_eq(metric("gomokud_connections_waiting"), 0);
    Resp r = request("POST", "/v1/analyze", QUICK_BODY, "Accept: application/x-ndjson");
    cr_assert_eq(r.status, 200, "the worker serves the next stream");
    cr_assert(strstr(r.body, "\"final\":true"), "%s", r.body);
    resp_free(&r);
    stop();
}

Test(http, streams_still_running_are_finished_by_a_drain, .timeout = 30)
{
    start_default();
    int fd = raw_connect();
    const char *body = "{\"moves\":[\"h8\",\"h9\",\"j10\"],\"limits\":{\"time_ms\":600}}";
    char req[512];
    int n = snprintf(req, sizeof req,
                     "POST /v1/analyze HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n"
                     "Content-Length: %zu\r\n\r\n%s",
                     strlen(body), body);
    cr_assert_eq(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
    cr_assert(raw_wait_for(fd, "event: progress"));
    server_drain(srv);
    cr_assert(raw_wait_for(fd, "\"final\":true}"), "the running stream gets its answer");
    close(fd);
    stop();
}

/* ---- the board page ------------------------------------------------------- */

static void assert_static_headers(const Resp *r)
{
    cr_assert(strstr(header_of(r, "Content-Security-Policy"), "default-src 'self'"), "CSP: %s",
              header_of(r, "Content-Security-Policy"));
    cr_assert_str_eq(header_of(r, "X-Content-Type-Options"), "nosniff");
    cr_assert_str_eq(header_of(r, "Cache-Control"), "no-cache");
    cr_assert_eq(header_of(r, "ETag")[0], '"', "a strong ETag: %s", header_of(r, "ETag"));
}

Test(http, the_board_page_is_served_at_the_root_with_a_csp_and_no_inline_script, .timeout = 30)
{
    start_default();
    Resp r = request("GET", "/", NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(header_of(&r, "Content-Type"), "text/html; charset=utf-8");
    assert_static_headers(&r);
    cr_assert(strstr(r.body, "<script src=\"app.js\""), "the page loads app.js: %s", r.body);
    cr_assert_null(strstr(r.body, "<script>"), "no inline script");
    cr_assert_null(strstr(r.body, "style=\""), "no inline style");
    cr_assert_null(strstr(r.body, "http://"), "nothing loaded from elsewhere");
    cr_assert_null(strstr(r.body, "https://"), "nothing loaded from elsewhere");
    Resp i = request("GET", "/index.html", NULL, NULL);
    cr_assert_eq(i.status, 200);
    cr_assert_eq(i.len, r.len);
    cr_assert_eq(memcmp(i.body, r.body, r.len), 0, "/ is /index.html");
    resp_free(&i);
    resp_free(&r);
    cr_assert_eq(metric("gomokud_http_requests_total{route=\"static\",status=\"200\"}"), 2);
    stop();
}

Test(http, the_page_scripts_and_styles_have_their_content_types, .timeout = 30)
{
    start_default();
    Resp r = request("GET", "/app.js", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(header_of(&r, "Content-Type"), "text/javascript; charset=utf-8");
    assert_static_headers(&r);
    cr_assert(strstr(r.body, "/v1/analyze"), "the script calls the API");
    resp_free(&r);
    r = request("GET", "/app.css?v=2", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(header_of(&r, "Content-Type"), "text/css; charset=utf-8");
    resp_free(&r);
    stop();
}

Test(http, an_unknown_static_path_is_a_404_problem_and_nothing_outside_is_reached, .timeout = 30)
{
    start_default();
    const char *paths[] = {"/nope.js", "/img/board.png", "/.hidden.css", "/index.html/", "/gomokud.conf",
                           "/v1/app.js"};
    for (int i = 0; i < 6; i++) {
        Resp r = request("GET", paths[i], NULL, NULL);
        assert_problem(&r, 404, "");
        resp_free(&r);
    }
    stop();
}

Test(http, head_of_the_page_has_no_body_and_a_matching_etag_is_304, .timeout = 30)
{
    start_default();
    Resp r = request("HEAD", "/app.js", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_eq(r.len, 0, "HEAD has no body");
    cr_assert_str_eq(header_of(&r, "Content-Type"), "text/javascript; charset=utf-8");
    char hdr[128];
    snprintf(hdr, sizeof hdr, "If-None-Match: W/\"0000000000000000\", %s", header_of(&r, "ETag"));
    resp_free(&r);
    r = request("GET", "/app.js", NULL, hdr);
    cr_assert_eq(r.status, 304);
    cr_assert_eq(r.len, 0);
    assert_static_headers(&r);
    resp_free(&r);
    r = request("GET", "/app.js", NULL, "If-None-Match: \"0000000000000000\"");
    cr_assert_eq(r.status, 200);
    cr_assert_gt(r.len, 0);
    resp_free(&r);
    stop();
}

Test(http, post_to_the_page_is_405_with_allow, .timeout = 30)
{
    start_default();
    Resp r = request("POST", "/", "{}", NULL);
    assert_problem(&r, 405, "");
    cr_assert_str_eq(header_of(&r, "Allow"), "GET, HEAD, OPTIONS");
    resp_free(&r);
    expect_problem("DELETE", "/app.js", NULL, NULL, 405, "");
    stop();
}

Test(http, with_api_keys_the_page_needs_no_key_and_is_not_rate_limited, .timeout = 30)
{
    Config c;
    test_config(&c);
    snprintf(c.api_keys, sizeof c.api_keys, "%s", "alpha-key-1");
    c.rate_limit = 1;
    c.rate_burst = 1;
    start(&c);
    for (int i = 0; i < 5; i++) {
        Resp r = request("GET", i % 2 ? "/app.js" : "/", NULL, NULL);
        cr_assert_eq(r.status, 200, "request %d: %ld", i, r.status);
        cr_assert_str_eq(header_of(&r, "RateLimit"), "");
        resp_free(&r);
    }
    Resp r = request("GET", "/v1/info", NULL, NULL);
    assert_unauthorized(&r);
    resp_free(&r);
    stop();
}

Test(http, web_root_serves_a_directory_instead_of_the_built_in_page, .timeout = 30)
{
    char dir[] = "/tmp/gomokud-web-XXXXXX", path[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/index.html", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("<!doctype html><p>from the directory</p>\n", f);
    fclose(f);
    Config c;
    test_config(&c);
    snprintf(c.web_root, sizeof c.web_root, "%s", dir);
    start(&c);
    Resp r = request("GET", "/", NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body, "from the directory"), "%s", r.body);
    assert_static_headers(&r);
    char hdr[128];
    snprintf(hdr, sizeof hdr, "If-None-Match: %s", header_of(&r, "ETag"));
    resp_free(&r);
    r = request("GET", "/", NULL, hdr);
    cr_assert_eq(r.status, 304);
    resp_free(&r);
    r = request("GET", "/app.js", NULL, NULL); /* built in, but not in this directory */
    assert_problem(&r, 404, "");
    resp_free(&r);
    stop();
    remove(path);
    rmdir(dir);
    test_config(&c);
    snprintf(c.web_root, sizeof c.web_root, "%s", dir);
    char err[256];
    cr_assert_not(config_finish(&c, err, sizeof err), "a missing web_root is refused");
    cr_assert(strstr(err, "web_root"), "%s", err);
}

/* ---- openings and swap2 ------------------------------------------------ */

/* The moves array of a JSON answer as a JSON array text ("[]" when none). */
static void moves_of(const char *body, const char *member, char *out, size_t n)
{
    cJSON *j = cJSON_Parse(body);
    cr_assert_not_null(j, "not JSON: %s", body);
    cJSON *m = cJSON_GetObjectItemCaseSensitive(j, member);
    cr_assert(cJSON_IsArray(m), "no %s array in %s", member, body);
    char *txt = cJSON_PrintUnformatted(m);
    snprintf(out, n, "%s", txt);
    free(txt);
    cJSON_Delete(j);
}

Test(http, swap2_is_played_through_against_itself, .timeout = 120)
{
    start_default();
    char placed[128], more[128], body[512];
    /* (a) the first player places three stones */
    Resp r = request("POST", "/v1/swap2", "{\"rule\":\"standard\",\"moves\":[],\"seed\":3,\"limits\":{\"depth\":4}}", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(strstr(r.body, "\"choice\":\"place3\""), "%s", r.body);
    cr_assert(strstr(r.body, "\"options\":[{\"choice\":\"place3\""), "%s", r.body);
    moves_of(r.body, "moves", placed, sizeof placed);
    resp_free(&r);
    /* the same seed, the same stones */
    r = request("POST", "/v1/swap2", "{\"rule\":\"standard\",\"moves\":[],\"seed\":3,\"limits\":{\"depth\":4}}", NULL);
    moves_of(r.body, "moves", more, sizeof more);
    cr_assert_str_eq(placed, more);
    resp_free(&r);
    /* (b) the second player: white, black or two more stones, with its reasons */
    snprintf(body, sizeof body, "{\"rule\":\"standard\",\"moves\":%s,\"limits\":{\"depth\":4}}", placed);
    r = request("POST", "/v1/swap2", body, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(strstr(r.body, "{\"choice\":\"white\",\"winrate\":") && strstr(r.body, "{\"choice\":\"black\",\"winrate\":"),
              "both colours weighed: %s", r.body);
    cr_assert(strstr(r.body, "\"reason\":\""), "%s", r.body);
    if (strstr(r.body, "\"choice\":\"place2\",\"moves\"")) {
        moves_of(r.body, "moves", more, sizeof more);
        /* (c) the first player chooses a colour after five stones */
        snprintf(body, sizeof body, "{\"rule\":\"standard\",\"moves\":[%.*s,%.*s],\"limits\":{\"depth\":4}}",
                 (int)strlen(placed) - 2, placed + 1, (int)strlen(more) - 2, more + 1);
        resp_free(&r);
        r = request("POST", "/v1/swap2", body, NULL);
        cr_assert_eq(r.status, 200, "%s: %s", body, r.body);
        cr_assert(strstr(r.body, "\"stones\":5"), "%s", r.body);
        cr_assert(strstr(r.body, "\"choice\":\"white\",\"moves\"") || strstr(r.body, "\"choice\":\"black\",\"moves\""),
                  "%s", r.body);
    } else {
        cr_assert(strstr(r.body, "\"choice\":\"white\",\"moves\"") || strstr(r.body, "\"choice\":\"black\",\"moves\""),
                  "%s", r.body);
    }
    resp_free(&r);
    /* bad stages and members are problems naming the field */
    expect_problem("POST", "/v1/swap2", "{\"moves\":[\"h8\",\"h9\"]}", NULL, 422, "moves");
    expect_problem("POST", "/v1/swap2", "{\"moves\":[],\"seed\":-1}", NULL, 400, "seed");
    expect_problem("POST", "/v1/swap2", "{\"stones\":{\"black\":[\"h8\"]}}", NULL, 400, "stones");
    r = request("GET", "/v1/swap2", NULL, NULL);
    cr_assert_eq(r.status, 405);
    resp_free(&r);
    stop();
}

Test(http, balanced_openings_are_near_even_bounded_and_named, .timeout = 180) /* ~18 s under the sanitizers alone */
{
    start_default();
    const char *ask = "{\"id\":\"t\",\"rule\":\"renju\",\"stones\":3,\"count\":2,\"seed\":11}";
    Resp r = request("POST", "/v1/openings/balanced", ask, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cJSON *j = cJSON_Parse(r.body);
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(j, "openings");
    cr_assert_eq(cJSON_GetArraySize(arr), 2, "%s", r.body);
    for (int i = 0; i < 2; i++) {
        cJSON *o = cJSON_GetArrayItem(arr, i);
        cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "moves")), 3);
        double s = cJSON_GetObjectItemCaseSensitive(o, "score")->valuedouble;
        cr_assert(s <= 60 && s >= -60, "score %g: renju's window is centred on 0", s);
        cr_assert_not_null(cJSON_GetObjectItemCaseSensitive(o, "opening"));
    }
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "complete")));
    cJSON_Delete(j);
    Resp again = request("POST", "/v1/openings/balanced", ask, NULL);
    cr_assert_str_eq(again.body, r.body, "the same seed gives the same openings");
    resp_free(&again);
    resp_free(&r);
    expect_problem("POST", "/v1/openings/balanced", "{\"stones\":3,\"count\":17}", NULL, 413, "count");
    expect_problem("POST", "/v1/openings/balanced", "{\"stones\":13,\"count\":1}", NULL, 400, "stones");
    expect_problem("POST", "/v1/openings/balanced", "{\"stones\":3,\"count\":1,\"limits\":{\"time_ms\":100}}", NULL, 400, "limits.time_ms");
    /* a tiny node budget: fewer openings, said so */
    r = request("POST", "/v1/openings/balanced", "{\"stones\":4,\"count\":4,\"limits\":{\"nodes\":1000}}", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(strstr(r.body, "\"complete\":false"), "%s", r.body);
    resp_free(&r);
    stop();
}

Test(http, analyze_and_review_name_the_renju_opening, .timeout = 60)
{
    start_default();
    Resp r = request("POST", "/v1/analyze", "{\"rule\":\"renju\",\"moves\":[\"h8\",\"i9\",\"j10\"],\"limits\":{\"depth\":2}}",
                     NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(strstr(r.body, "\"opening\":{\"name\":\"Chosei\""), "%s", r.body);
    cr_assert(strstr(r.body, "\"kind\":\"indirect\""), "%s", r.body);
    resp_free(&r);
    r = request("POST", "/v1/analyze", "{\"moves\":[\"a1\",\"i9\",\"j10\"],\"limits\":{\"depth\":2}}", NULL);
    cr_assert(strstr(r.body, "\"opening\":null"), "%s", r.body);
    resp_free(&r);
    r = request("POST", "/v1/review", "{\"rule\":\"renju\",\"moves\":[\"h8\",\"g8\",\"g9\",\"a1\"],\"limits\":{\"depth\":2}}",
                NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(strstr(r.body, "\"opening\":{\"name\":\"Kagetsu\""), "%s", r.body);
    resp_free(&r);
    stop();
}
