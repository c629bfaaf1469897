/*
 * cmd_analyze.c - `gomokud analyze`: one analyze request (the body of
 * POST /v1/analyze) per line on stdin, one JSON object per line on stdout:
 * the result, or the problem object for a line that is not a valid request.
 * Blank lines are skipped. Output is flushed after every line, so the
 * command can sit at the end of a pipe and answer requests one at a time.
 *
 * Each request is searched afresh (unless --keep-tt): the engine ignores
 * what earlier searches stored, so an answer at a fixed depth or node limit
 * does not depend on the lines before it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "engine/engine.h"
#include "server/commands.h"

/* A request that gives no limit at all gets this much time. */
#define ANALYZE_DEFAULT_TIME_MS 1000
/* Largest transposition table the command accepts (MiB). */
#define ANALYZE_MAX_TT_MIB (1 << 20)

static void analyze_usage(FILE *f)
{
    fprintf(f,
            "usage: gomokud analyze [options] < requests.jsonl\n"
            "Reads one analyze request (the JSON body of POST /v1/analyze) per line and\n"
            "writes one JSON object per line: the result, or a problem for a bad line.\n"
            "  --tt-mib N          transposition table size in MiB (default %d)\n"
            "  --max-time-ms N     cap every search at N milliseconds (default: no cap)\n"
            "  --max-depth N       cap every search at depth N (default: no cap)\n"
            "  --max-nodes N       cap every search at N nodes (default: no cap)\n"
            "  --default-time-ms N time for a request that gives no limits (default %d)\n"
            "  --keep-tt           keep the transposition table and proofs from one request to the next\n"
            "  --help              show this help\n",
            ENGINE_DEFAULT_TT_MIB, ANALYZE_DEFAULT_TIME_MS);
}

/* Parses a non-negative decimal integer no larger than max. */
static bool parse_count(const char *s, int64_t max, int64_t *out)
{
    if (!s || *s < '0' || *s > '9') return false;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < 0 || v > max) return false;
    *out = v;
    return true;
}

/* Writes one line of JSON (or a fixed problem when json is NULL, i.e.
 * memory ran out) and flushes. Returns false when stdout fails. */
static bool emit(char *json)
{
    if (json) fputs(json, stdout);
    else fputs("{\"type\":\"https://gomokud.dev/problems/internal\",\"title\":\"Internal error\",\"status\":500,"
               "\"detail\":\"out of memory\",\"field\":\"\"}", stdout);
    free(json);
    putchar('\n');
    return fflush(stdout) == 0 && !ferror(stdout);
}

static bool blank_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n') return false;
    return true;
}

/* Answers one request line. Returns false when stdout fails. */
static bool answer(Engine *e, const char *line, size_t len, const ApiCaps *caps)
{
    ApiRequest req;
    ApiProblem prob;
    EngineResult res;
    if (!api_parse_analyze(line, len, caps, &req, &prob)) return emit(api_problem_json(&prob));
    Limits limits = api_limits(&req);
    int index = -1;
    PositionError pe = engine_analyze(e, &req.pos, &limits, &res, &index);
    if (pe != POSITION_OK) {
        /* api_parse_analyze ran position_check already; this is a bug */
        api_problem(&prob, 500, "", "the engine refused the position: %s", position_error_text(pe));
        return emit(api_problem_json(&prob));
    }
    return emit(api_result_json(&req, &res));
}

int cmd_analyze(int argc, char **argv)
{
    ApiCaps caps = {.default_time_ms = ANALYZE_DEFAULT_TIME_MS, .max_multipv = ENGINE_MAX_MULTIPV};
    EngineOptions opt = {.tt_mib = 0};
    int rc = 1;
    Engine *e = NULL;
    char *line = NULL;
    size_t cap = 0;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            analyze_usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--keep-tt")) {
            opt.persistent = true; /* lines learn from earlier lines */
            continue;
        }
        static const char *const names[] = {"--tt-mib", "--max-time-ms", "--max-depth", "--max-nodes",
                                            "--default-time-ms"};
        static const int64_t maxes[] = {ANALYZE_MAX_TT_MIB, INT64_MAX / 2, ENGINE_MAX_DEPTH, INT64_MAX / 2,
                                        INT64_MAX / 2};
        int k = -1;
        const char *val = NULL;
        for (int j = 0; j < 5 && k < 0; j++) {
            size_t n = strlen(names[j]);
            if (!strcmp(a, names[j])) {
                k = j;
                val = i + 1 < argc ? argv[++i] : NULL;
            } else if (!strncmp(a, names[j], n) && a[n] == '=') {
                k = j;
                val = a + n + 1;
            }
        }
        if (k < 0) {
            fprintf(stderr, "gomokud analyze: unknown option '%s'\n", a);
            analyze_usage(stderr);
            return 2;
        }
        int64_t v;
        if (!parse_count(val, maxes[k], &v)) {
            fprintf(stderr, "gomokud analyze: %s needs an integer from 0 to %" PRId64 "\n", names[k], maxes[k]);
            return 2;
        }
        switch (k) {
        case 0: opt.tt_mib = (size_t)v; break;
        case 1: caps.max_time_ms = v; break;
        case 2: caps.max_depth = (int)v; break;
        case 3: caps.max_nodes = v; break;
        default: caps.default_time_ms = v; break;
        }
    }

    e = engine_new(&opt);
    if (!e) {
        fprintf(stderr, "gomokud analyze: out of memory creating the engine\n");
        goto cleanup;
    }
    for (;;) {
        errno = 0;
        ssize_t n = getline(&line, &cap, stdin);
        if (n < 0) {
            if (ferror(stdin)) {
                fprintf(stderr, "gomokud analyze: reading stdin: %s\n", strerror(errno ? errno : EIO));
                goto cleanup;
            }
            break;
        }
        if (blank_line(line, (size_t)n)) continue;
        if (!answer(e, line, (size_t)n, &caps)) {
            fprintf(stderr, "gomokud analyze: writing stdout failed\n");
            goto cleanup;
        }
    }
    rc = 0;
cleanup:
    free(line);
    if (e) engine_free(e);
    return rc;
}
