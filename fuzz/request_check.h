/*
 * request_check.h - the JSON request parser and validator of api/api.h
 * against arbitrary bodies.
 *
 * One input is one request body, passed with its length and no NUL after it
 * (AddressSanitizer catches any read past the end). It goes through:
 *   1. api_parse_analyze with the server's default caps (config/gomokud.conf)
 *      and again with the caps of `gomokud analyze`;
 *   2. api_parse_batch of the body itself, and of {"positions":[ body ]};
 *   3. api_parse_move (POST /v1/move) with the server's caps.
 * Checked for each outcome:
 *   - a refusal is a 400, 413 (batch only) or 422 problem with a type, a
 *     title, a detail, all printable ASCII, and api_problem_json of it reads
 *     back as JSON with the same members;
 *   - an accepted request is bounded (some limit set, each within the
 *     caps), has 1..max_multipv lines, a valid rule and size, points on the
 *     board and none twice, the side to move that the stone count gives, an
 *     id of at most API_ID_MAX bytes of valid UTF-8, and passes
 *     position_check; api_result_json of a result made up from it reads back
 *     with the same id, rule, size, side, moves and line counts;
 *   - api_limits carries the limits of an accepted request;
 *   - the two cap sets agree on everything but the limits and multipv, and
 *     the body wrapped as a one-position batch gets exactly the analyze
 *     outcome in its slot (bodies with control bytes other than the JSON
 *     blanks are left out of that last comparison: cJSON skips them as white
 *     space between tokens, api/request.c does not at the end of the body);
 *   - api_batch_json of a batch has one entry per slot, a problem object
 *     exactly where a slot failed (or had no result);
 *   - an accepted move request is an accepted request as above with a level,
 *     a seed of at most API_SEED_MAX and no more lines than its level's, and
 *     api_move_json of a made-up result names a candidate as its move and
 *     gives probabilities that sum to 1.
 * Everything allocated is freed, so LeakSanitizer sees any leak.
 */
#ifndef GOMOKUD_FUZZ_REQUEST_CHECK_H
#define GOMOKUD_FUZZ_REQUEST_CHECK_H

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "engine/board.h"
#include "engine/rules.h"
#include "fuzz/fuzz_check.h"

/* The server's built-in defaults (config/gomokud.conf). */
static const ApiCaps fuzz_server_caps = {
    .default_time_ms = 1000,
    .max_time_ms = 10000,
    .default_depth = 0,
    .max_depth = 64,
    .default_nodes = 0,
    .max_nodes = 100000000,
    .max_multipv = 8,
};

/* `gomokud analyze`: a default time, no maxima, every multipv. */
static const ApiCaps fuzz_cli_caps = {
    .default_time_ms = 1000,
    .max_multipv = ENGINE_MAX_MULTIPV,
};

#define FUZZ_MAX_BATCH 64 /* max_batch of config/gomokud.conf */

static const cJSON *fuzz_member(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

static bool fuzz_member_str(const cJSON *o, const char *name, const char *want)
{
    const cJSON *v = fuzz_member(o, name);
    return cJSON_IsString(v) && !strcmp(v->valuestring, want);
}

static bool fuzz_member_num(const cJSON *o, const char *name, double want)
{
    const cJSON *v = fuzz_member(o, name);
    return cJSON_IsNumber(v) && v->valuedouble == want;
}

/* A problem object (parsed JSON) carries exactly the members of p. */
static void fuzz_check_problem_json(const cJSON *o, const ApiProblem *p)
{
    FUZZ_CHECK(cJSON_IsObject(o), "a problem is not a JSON object");
    FUZZ_CHECK(fuzz_member_str(o, "type", p->type), "problem JSON: type");
    FUZZ_CHECK(fuzz_member_str(o, "title", p->title), "problem JSON: title");
    FUZZ_CHECK(fuzz_member_num(o, "status", p->status), "problem JSON: status");
    FUZZ_CHECK(fuzz_member_str(o, "detail", p->detail), "problem JSON: detail");
    FUZZ_CHECK(fuzz_member_str(o, "field", p->field), "problem JSON: field");
}

/* A refusal: a well-formed 4xx problem that serialises faithfully. */
static void fuzz_check_problem(const ApiProblem *p, bool batch)
{
    FUZZ_CHECK(p->status == 400 || p->status == 422 || (batch && p->status == 413),
               "a refusal is not 400, 422 (or 413 for a batch)");
    FUZZ_CHECK(p->type && p->title && p->type[0] && p->title[0], "a problem without type or title");
    FUZZ_CHECK(p->detail[0], "a problem without a detail");
    FUZZ_CHECK(memchr(p->detail, 0, sizeof p->detail) && memchr(p->field, 0, sizeof p->field),
               "problem text not terminated");
    FUZZ_CHECK(fuzz_printable(p->detail), "a problem detail with bytes other than printable ASCII");
    FUZZ_CHECK(fuzz_printable(p->field), "a problem field with bytes other than printable ASCII");
    char *text = api_problem_json(p);
    FUZZ_CHECK(text, "api_problem_json failed");
    FUZZ_CHECK(fuzz_utf8_valid(text), "problem JSON is not valid UTF-8");
    cJSON *o = cJSON_Parse(text);
    FUZZ_CHECK(o, "problem JSON does not parse");
    fuzz_check_problem_json(o, p);
    cJSON_Delete(o);
    free(text);
}

/* An accepted request is complete, bounded and a legal position. */
static void fuzz_check_request(const ApiRequest *r, const ApiCaps *caps)
{
    const Position *p = &r->pos;
    FUZZ_CHECK(p->rule == RULE_FREESTYLE || p->rule == RULE_STANDARD || p->rule == RULE_RENJU, "bad rule");
    FUZZ_CHECK(p->size >= BOARD_MIN_SIZE && p->size <= BOARD_MAX_SIZE, "bad board size");
    FUZZ_CHECK(p->nmoves >= 0 && p->nmoves <= p->size * p->size, "more moves than points");
    FUZZ_CHECK(r->to_move == (p->nmoves % 2 ? WHITE : BLACK), "side to move does not follow the stone count");
    FUZZ_CHECK(r->multipv >= 1 && r->multipv <= (caps->max_multipv ? caps->max_multipv : ENGINE_MAX_MULTIPV),
               "multipv out of range");
    FUZZ_CHECK(r->time_ms > 0 || r->depth > 0 || r->nodes > 0, "an accepted request searches without any limit");
    FUZZ_CHECK(r->time_ms >= 0 && r->depth >= 0 && r->depth <= ENGINE_MAX_DEPTH && r->nodes >= 0, "limit range");
    if (caps->max_time_ms) FUZZ_CHECK(r->time_ms > 0 && r->time_ms <= caps->max_time_ms, "time_ms over the cap");
    if (caps->max_depth) FUZZ_CHECK(r->depth > 0 && r->depth <= caps->max_depth, "depth over the cap");
    if (caps->max_nodes) FUZZ_CHECK(r->nodes > 0 && r->nodes <= caps->max_nodes, "nodes over the cap");
    if (r->has_id) {
        FUZZ_CHECK(memchr(r->id, 0, sizeof r->id), "id not terminated");
        FUZZ_CHECK(strlen(r->id) <= API_ID_MAX, "id too long");
        FUZZ_CHECK(fuzz_utf8_valid(r->id), "an accepted id is not valid UTF-8");
    } else {
        FUZZ_CHECK(!r->id[0], "an id without has_id");
    }
    static uint8_t seen[BOARD_CELLS];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < p->nmoves; i++) {
        Move m = p->moves[i];
        FUZZ_CHECK(m >= 0 && m < BOARD_CELLS && MOVE_X(m) >= 0 && MOVE_Y(m) >= 0 && MOVE_X(m) < p->size &&
                       MOVE_Y(m) < p->size,
                   "an accepted move is off the board");
        FUZZ_CHECK(!seen[m], "an accepted position has two stones on one point");
        seen[m] = 1;
    }
    int index = -1;
    FUZZ_CHECK(position_check(p, &index) == POSITION_OK, "an accepted position fails position_check");
}

/* A made-up result for an accepted request: a best move on the first empty
 * point, lines of the request's own moves, a few forbidden points. Only
 * its shape matters to the serialiser. */
static void fuzz_fake_result(const ApiRequest *r, EngineResult *res)
{
    const Position *p = &r->pos;
    static uint8_t taken[BOARD_CELLS];
    memset(taken, 0, sizeof taken);
    for (int i = 0; i < p->nmoves; i++) taken[p->moves[i]] = 1;
    memset(res, 0, sizeof *res);
    res->side_to_move = r->to_move;
    res->best_move = MOVE_NONE;
    for (int y = 0; y < p->size && res->best_move == MOVE_NONE; y++)
        for (int x = 0; x < p->size && res->best_move == MOVE_NONE; x++)
            if (!taken[MOVE_XY(x, y)]) res->best_move = MOVE_XY(x, y);
    res->score = (Score)(p->nmoves * 7 - 300);
    res->mate = p->nmoves % 3 == 0 ? 0 : p->nmoves % 3 == 1 ? 1 + p->nmoves : -(1 + p->nmoves);
    res->depth = r->depth;
    res->seldepth = r->depth + 3;
    res->nodes = (uint64_t)r->nodes;
    res->time_ms = p->nmoves % 2 ? 0 : r->time_ms; /* 0 exercises the nps guard */
    res->complete = p->nmoves % 2;
    res->npv = r->multipv;
    for (int k = 0; k < res->npv; k++) {
        PvLine *l = &res->pvs[k];
        l->move = res->best_move;
        l->score = res->score - k;
        l->mate = k ? 0 : res->mate;
        l->pv[0] = res->best_move;
        l->pv_len = 1;
        for (int i = p->nmoves - 1 - k; i >= 0 && l->pv_len < ENGINE_MAX_PV; i--) l->pv[l->pv_len++] = p->moves[i];
    }
    for (int i = 0; i < p->nmoves && res->nforbidden < 5; i += 2)
        if (p->rule == RULE_RENJU) res->forbidden[res->nforbidden++] = p->moves[i];
}

/* An array of notation strings naming moves[0..n) on a size board. */
static bool fuzz_moves_json(const cJSON *arr, const Move *moves, int n, int size)
{
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != n) return false;
    int i = 0;
    for (const cJSON *c = arr->child; c; c = c->next, i++)
        if (!cJSON_IsString(c) || move_parse_notation(c->valuestring, size) != moves[i]) return false;
    return true;
}

/* A result object (parsed JSON) says what r and res hold. */
static void fuzz_check_result_json(const cJSON *o, const ApiRequest *r, const EngineResult *res)
{
    const Position *p = &r->pos;
    FUZZ_CHECK(cJSON_IsObject(o), "a result is not a JSON object");
    if (r->has_id) FUZZ_CHECK(fuzz_member_str(o, "id", r->id), "result JSON: the id is not echoed as given");
    else FUZZ_CHECK(!fuzz_member(o, "id"), "result JSON: an id nobody gave");
    FUZZ_CHECK(fuzz_member_str(o, "rule", rule_name(p->rule)), "result JSON: rule");
    FUZZ_CHECK(fuzz_member_num(o, "board_size", p->size), "result JSON: board_size");
    FUZZ_CHECK(fuzz_member_str(o, "side_to_move", r->to_move == WHITE ? "white" : "black"),
               "result JSON: side_to_move");
    const cJSON *best = fuzz_member(o, "best_move");
    if (res->best_move == MOVE_NONE) FUZZ_CHECK(cJSON_IsNull(best), "result JSON: best_move should be null");
    else
        FUZZ_CHECK(cJSON_IsString(best) && move_parse_notation(best->valuestring, p->size) == res->best_move,
                   "result JSON: best_move");
    FUZZ_CHECK(fuzz_member_num(o, "score", res->score), "result JSON: score");
    const cJSON *mate = fuzz_member(o, "mate");
    FUZZ_CHECK(res->mate ? fuzz_member_num(o, "mate", res->mate) : cJSON_IsNull(mate), "result JSON: mate");
    FUZZ_CHECK(fuzz_moves_json(fuzz_member(o, "pv"), res->pvs[0].pv, res->pvs[0].pv_len, p->size),
               "result JSON: pv");
    const cJSON *pvs = fuzz_member(o, "pvs");
    FUZZ_CHECK(cJSON_IsArray(pvs) && cJSON_GetArraySize(pvs) == res->npv, "result JSON: pvs count");
    int k = 0;
    for (const cJSON *c = pvs->child; c; c = c->next, k++)
        FUZZ_CHECK(fuzz_moves_json(fuzz_member(c, "pv"), res->pvs[k].pv, res->pvs[k].pv_len, p->size) &&
                       fuzz_member_num(c, "score", res->pvs[k].score),
                   "result JSON: pvs[k]");
    FUZZ_CHECK(fuzz_member_num(o, "depth", res->depth) && fuzz_member_num(o, "nodes", (double)res->nodes) &&
                   fuzz_member_num(o, "time_ms", (double)res->time_ms),
               "result JSON: depth, nodes or time_ms");
    FUZZ_CHECK(cJSON_IsBool(fuzz_member(o, "complete")) &&
                   cJSON_IsTrue(fuzz_member(o, "complete")) == res->complete,
               "result JSON: complete");
    FUZZ_CHECK(fuzz_moves_json(fuzz_member(o, "forbidden"), res->forbidden, res->nforbidden, p->size),
               "result JSON: forbidden");
}

static void fuzz_check_result(const ApiRequest *r)
{
    EngineResult *res = malloc(sizeof *res);
    FUZZ_CHECK(res, "out of memory");
    fuzz_fake_result(r, res);
    char *text = api_result_json(r, res);
    FUZZ_CHECK(text, "api_result_json failed");
    FUZZ_CHECK(fuzz_utf8_valid(text), "result JSON is not valid UTF-8");
    cJSON *o = cJSON_Parse(text);
    FUZZ_CHECK(o, "result JSON does not parse");
    fuzz_check_result_json(o, r, res);
    cJSON_Delete(o);
    free(text);
    free(res);
}

static bool fuzz_same_position(const Position *a, const Position *b)
{
    return a->rule == b->rule && a->size == b->size && a->ordered == b->ordered && a->nmoves == b->nmoves &&
           !memcmp(a->moves, b->moves, sizeof a->moves[0] * (size_t)a->nmoves);
}

static bool fuzz_same_request(const ApiRequest *a, const ApiRequest *b, bool limits)
{
    if (a->has_id != b->has_id || strcmp(a->id, b->id) || a->to_move != b->to_move) return false;
    if (!fuzz_same_position(&a->pos, &b->pos)) return false;
    return !limits || (a->time_ms == b->time_ms && a->depth == b->depth && a->nodes == b->nodes &&
                       a->multipv == b->multipv);
}

static bool fuzz_same_problem(const ApiProblem *a, const ApiProblem *b)
{
    return a->status == b->status && !strcmp(a->field, b->field) && !strcmp(a->detail, b->detail);
}

/* Serialises a parsed batch with and without results and checks the slots. */
static void fuzz_check_batch_json(const ApiBatch *b)
{
    EngineResult *results = calloc((size_t)b->n, sizeof *results);
    FUZZ_CHECK(results, "out of memory");
    for (int i = 0; i < b->n; i++)
        if (b->ok[i]) fuzz_fake_result(&b->reqs[i], &results[i]);
    for (int pass = 0; pass < 2; pass++) {
        const EngineResult *with = pass ? NULL : results;
        char *text = api_batch_json(b, with);
        FUZZ_CHECK(text, "api_batch_json failed");
        FUZZ_CHECK(fuzz_utf8_valid(text), "batch JSON is not valid UTF-8");
        cJSON *o = cJSON_Parse(text);
        FUZZ_CHECK(o, "batch JSON does not parse");
        const cJSON *arr = fuzz_member(o, "results");
        FUZZ_CHECK(cJSON_IsArray(arr) && cJSON_GetArraySize(arr) == b->n, "batch JSON: one entry per position");
        int i = 0;
        for (const cJSON *c = arr->child; c; c = c->next, i++) {
            if (b->ok[i] && with) {
                fuzz_check_result_json(c, &b->reqs[i], &results[i]);
            } else if (b->ok[i]) {
                FUZZ_CHECK(fuzz_member_num(c, "status", 500), "batch JSON: a slot without a result is not a 500");
            } else {
                fuzz_check_problem_json(c, &b->errors[i]);
            }
        }
        cJSON_Delete(o);
        free(text);
    }
    free(results);
}

/* One batch parse; returns whether it parsed, leaving *b to the caller to
 * free (api_batch_free) when it did. */
static bool fuzz_batch(const char *body, size_t len, ApiBatch *b, ApiProblem *err)
{
    memset(err, 0, sizeof *err);
    bool ok = api_parse_batch(body, len, &fuzz_server_caps, FUZZ_MAX_BATCH, b, err);
    if (!ok) {
        FUZZ_CHECK(!b->n && !b->reqs && !b->errors && !b->ok, "a failed batch leaves allocations behind");
        fuzz_check_problem(err, true);
        return false;
    }
    FUZZ_CHECK(b->n >= 1 && b->n <= FUZZ_MAX_BATCH && b->reqs && b->errors && b->ok, "batch shape");
    for (int i = 0; i < b->n; i++) {
        if (b->ok[i]) fuzz_check_request(&b->reqs[i], &fuzz_server_caps);
        else fuzz_check_problem(&b->errors[i], false);
    }
    fuzz_check_batch_json(b);
    return true;
}

/* The body as a move request. */
static void fuzz_check_move(const char *body, size_t len)
{
    ApiMove *m = malloc(sizeof *m);
    EngineResult *res = malloc(sizeof *res);
    ApiProblem err;
    FUZZ_CHECK(m && res, "out of memory");
    memset(&err, 0, sizeof err);
    if (!api_parse_move(body, len, &fuzz_server_caps, m, &err)) {
        fuzz_check_problem(&err, false);
    } else {
        fuzz_check_request(&m->req, &fuzz_server_caps);
        FUZZ_CHECK(m->level && level_get(m->level->number) == m->level, "a move request without a level");
        FUZZ_CHECK((double)m->seed <= API_SEED_MAX, "a seed past API_SEED_MAX");
        FUZZ_CHECK(m->req.multipv <= m->level->multipv, "more lines than the level's");
        fuzz_fake_result(&m->req, res);
        for (int k = 0; k < res->npv; k++) res->pvs[k].mate = 0; /* make every line a candidate */
        char *text = api_move_json(m, res);
        FUZZ_CHECK(text && fuzz_utf8_valid(text), "move JSON failed or is not UTF-8");
        cJSON *o = cJSON_Parse(text);
        FUZZ_CHECK(o, "move JSON does not parse");
        const cJSON *cands = fuzz_member(o, "candidates");
        FUZZ_CHECK(cJSON_IsArray(cands) && cJSON_GetArraySize(cands) == res->npv, "move JSON: one candidate per line");
        double sum = 0;
        for (const cJSON *c = cands->child; c; c = c->next) sum += cJSON_GetNumberValue(fuzz_member(c, "probability"));
        FUZZ_CHECK(sum > 0.99 && sum < 1.01, "move JSON: probabilities do not sum to 1");
        FUZZ_CHECK(fuzz_member_num(o, "level", m->level->number), "move JSON: the level");
        cJSON_Delete(o);
        free(text);
    }
    free(res);
    free(m);
}

/* Checks one request body (see the top of this file). Returns the HTTP
 * status the body gets as a single analyze request with the server caps:
 * 200 when accepted, else the problem's status. */
static int fuzz_request_input(const uint8_t *data, size_t size)
{
    const char *body = (const char *)data;
    ApiRequest *srv = malloc(sizeof *srv), *cli = malloc(sizeof *cli);
    ApiProblem esrv, ecli;
    FUZZ_CHECK(srv && cli, "out of memory");
    memset(&esrv, 0, sizeof esrv);
    memset(&ecli, 0, sizeof ecli);

    bool ok_srv = api_parse_analyze(body, size, &fuzz_server_caps, srv, &esrv);
    if (ok_srv) {
        fuzz_check_request(srv, &fuzz_server_caps);
        fuzz_check_result(srv);
        Limits l = api_limits(srv);
        FUZZ_CHECK(l.time_ms == srv->time_ms && l.depth == srv->depth && l.nodes == srv->nodes &&
                       l.multipv == srv->multipv && !l.stop && !l.on_info && !l.info_ctx,
                   "api_limits does not carry the request's limits");
    } else {
        fuzz_check_problem(&esrv, false);
    }
    bool ok_cli = api_parse_analyze(body, size, &fuzz_cli_caps, cli, &ecli);
    if (ok_cli) fuzz_check_request(cli, &fuzz_cli_caps);
    else fuzz_check_problem(&ecli, false);

    /* the caps change limits and the multipv range, nothing else */
    if (ok_srv && ok_cli) FUZZ_CHECK(fuzz_same_request(srv, cli, false), "the caps change the parsed position");
    else if (ok_srv != ok_cli) FUZZ_CHECK(!strcmp(ok_srv ? ecli.field : esrv.field, "multipv"),
                                          "the caps decide acceptance over something other than multipv");
    else if (strcmp(esrv.field, "multipv") && strcmp(ecli.field, "multipv"))
        FUZZ_CHECK(fuzz_same_problem(&esrv, &ecli), "the caps change the problem");

    /* the body as a batch of its own */
    ApiBatch b;
    ApiProblem eb;
    if (fuzz_batch(body, size, &b, &eb)) api_batch_free(&b);

    /* the body as the one position of a batch */
    static const char head[] = "{\"positions\":[", tail[] = "]}";
    size_t wlen = sizeof head - 1 + size + sizeof tail - 1;
    char *wrapped = malloc(wlen);
    FUZZ_CHECK(wrapped, "out of memory");
    memcpy(wrapped, head, sizeof head - 1);
    if (size) memcpy(wrapped + sizeof head - 1, data, size);
    memcpy(wrapped + sizeof head - 1 + size, tail, sizeof tail - 1);
    if (fuzz_batch(wrapped, wlen, &b, &eb)) {
        if (b.n == 1 && !fuzz_has_odd_control(data, size)) {
            FUZZ_CHECK(b.ok[0] == ok_srv, "a body accepted alone is refused in a batch, or the reverse");
            if (ok_srv) FUZZ_CHECK(fuzz_same_request(srv, &b.reqs[0], true), "a body parses otherwise in a batch");
            else FUZZ_CHECK(fuzz_same_problem(&esrv, &b.errors[0]), "a body is refused otherwise in a batch");
        }
        api_batch_free(&b);
    }
    free(wrapped);
    fuzz_check_move(body, size);
    int status = ok_srv ? 200 : esrv.status;
    free(srv);
    free(cli);
    return status;
}

#endif
