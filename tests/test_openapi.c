/* The API contract: api/openapi.json checked as an OpenAPI 3.1 document, and
 * the real server's answers of every endpoint validated against it by
 * tests/openapi_check.py (python3 with python3-jsonschema; GOMOKUD_PYTHON
 * names another interpreter). The server runs in-process on port 0 with API
 * keys and fault injection, so that 401 and 500 answers are checked too. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/engine.h"
#include "server/config.h"
#include "server/http.h"

#define KEY "openapi-test-key"
#define OUT_MAX 16384

/* Runs the checker with args; its exit status, its output in out. */
static int run_check(const char *args, char *out, size_t cap)
{
    /* Debian's interpreter first: scripts/deps.sh installs python3-jsonschema
     * for it, and another python3 earlier on the PATH may not see it. */
    const char *py = getenv("GOMOKUD_PYTHON");
    if (!py || !*py) py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s tests/openapi_check.py %s 2>&1", py, args);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f, "cannot run %s", cmd);
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = 0;
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The count in the checker's summary line, "N responses validated"; -1 if absent. */
static int validated(const char *out)
{
    const char *p = strstr(out, " responses validated");
    if (!p) return -1;
    while (p > out && p[-1] >= '0' && p[-1] <= '9') p--;
    return atoi(p);
}

Test(openapi, the_document_is_valid_openapi_3_1_and_describes_every_route, .timeout = 60)
{
    char out[OUT_MAX];
    int rc = run_check("--doc-only", out, sizeof out);
    cr_assert_eq(rc, 0, "openapi_check --doc-only exited %d:\n%s", rc, out);
    cr_assert(strstr(out, "is valid OpenAPI 3.1"), "%s", out);
}

Test(openapi, every_endpoint_answers_as_the_document_says, .timeout = 90)
{
    Config c;
    char err[256], args[128], out[OUT_MAX];
    config_defaults(&c);
    c.port = 0;
    c.workers = 2;
    c.queue_length = 8; /* reviews of at most 7 moves */
    c.tt_mib = 1;
    c.default_time_ms = 200;
    c.max_batch = 2;
    c.max_body_bytes = 4096;
    c.retry_after_s = 2;
    c.fault_injection = 1;
    c.log_level = LOG_ERROR;
    snprintf(c.api_keys, sizeof c.api_keys, "%s", KEY);
    snprintf(c.cors_origins, sizeof c.cors_origins, "https://app.example");
    cr_assert(engine_init());
    cr_assert(config_finish(&c, err, sizeof err), "%s", err);
    Server *srv;
    cr_assert(server_start(&c, &srv, err, sizeof err), "%s", err);

    snprintf(args, sizeof args, "--port %u --key %s", (unsigned)server_port(srv), KEY);
    int rc = run_check(args, out, sizeof out);
    cr_assert_eq(rc, 0, "openapi_check exited %d:\n%s", rc, out);
    int n = validated(out);
    cr_assert_gt(n, 0, "no responses validated:\n%s", out);

    /* Draining: readiness and new analyses answer 503 with Retry-After. */
    server_drain(srv);
    snprintf(args, sizeof args, "--port %u --key %s --phase draining", (unsigned)server_port(srv), KEY);
    rc = run_check(args, out, sizeof out);
    cr_assert_eq(rc, 0, "openapi_check --phase draining exited %d:\n%s", rc, out);
    cr_assert_gt(validated(out), 0, "no responses validated while draining:\n%s", out);
    server_stop(srv);

    /* Rate limited: a burst of two, then 429 with the RateLimit fields. */
    c.rate_limit = 1;
    c.rate_burst = 2;
    c.port = 0;
    cr_assert(server_start(&c, &srv, err, sizeof err), "%s", err);
    snprintf(args, sizeof args, "--port %u --key %s --phase limited", (unsigned)server_port(srv), KEY);
    rc = run_check(args, out, sizeof out);
    cr_assert_eq(rc, 0, "openapi_check --phase limited exited %d:\n%s", rc, out);
    cr_assert_gt(validated(out), 0, "no responses validated under the rate limit:\n%s", out);
    server_stop(srv);
}
