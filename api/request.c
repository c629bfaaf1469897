/*
 * request.c - analyze and batch request bodies -> ApiRequest, with RFC 9457
 * problems that name the offending input.
 *
 * Validation runs in two stages. First the shape: the body is one JSON
 * object, every key is known and given once, every value has its type and
 * range (400 invalid-request). Then the position: each point parses and lies
 * on the board, the stone counts of a diagram fit the side to move, and
 * position_check() finds no taken point, forbidden renju move, five or full
 * board (422 impossible-position). The first problem found is reported.
 *
 * Conventions a client can rely on:
 *   - a limit of 0 is the same as no limit of that kind; a request that gives
 *     no limit at all gets the server defaults; every kind with a server
 *     maximum is then capped by it (a kind the request left open included);
 *   - JSON null is a wrong type, not "absent";
 *   - user text echoed in a detail is cut short and reduced to printable
 *     ASCII, so problem bodies are always valid UTF-8.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/internal.h"
#include "engine/board.h"
#include "engine/rules.h"

#define PROBLEM_BASE "https://gomokud.dev/problems/"

/* Longest piece of user text quoted in a detail. */
#define SHOW_MAX 24

/* Largest limit value kept before capping; bigger ones mean "huge" and are
 * clamped here so that the conversion to an integer stays defined. */
#define LIMIT_CLAMP 1e15

typedef struct {
    int status;
    const char *type;
    const char *title;
} ProblemKind;

static const ProblemKind problem_kinds[] = {
    {400, PROBLEM_BASE "invalid-request", "Invalid request"},
    {401, PROBLEM_BASE "unauthorized", "Unauthorized"},
    {404, PROBLEM_BASE "not-found", "Not found"},
    {405, PROBLEM_BASE "method-not-allowed", "Method not allowed"},
    {413, PROBLEM_BASE "payload-too-large", "Payload too large"},
    {422, PROBLEM_BASE "impossible-position", "Impossible position"},
    {429, PROBLEM_BASE "too-many-requests", "Too many requests"},
    {500, PROBLEM_BASE "internal", "Internal error"},
    {503, PROBLEM_BASE "overloaded", "Service unavailable"},
};

bool api_problem(ApiProblem *p, int status, const char *field, const char *fmt, ...)
{
    if (!p) return false;
    p->status = status;
    p->type = "about:blank";
    p->title = "Error";
    for (size_t i = 0; i < sizeof problem_kinds / sizeof problem_kinds[0]; i++) {
        if (problem_kinds[i].status == status) {
            p->type = problem_kinds[i].type;
            p->title = problem_kinds[i].title;
            break;
        }
    }
    snprintf(p->field, sizeof p->field, "%s", field ? field : "");
    p->detail[0] = 0;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->detail, sizeof p->detail, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* Copies user text into buf for quoting: printable ASCII only (others become
 * '?'), at most SHOW_MAX characters, "..." when cut. Returns buf. */
static const char *show(const char *s, char *buf, size_t n)
{
    size_t i = 0, limit = n > 4 ? n - 4 : 0;
    if (limit > SHOW_MAX) limit = SHOW_MAX;
    for (; s && s[i] && i < limit; i++) buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    if (s && s[i] && n >= 4) {
        memcpy(buf + i, "...", 3);
        i += 3;
    }
    buf[n ? (i < n ? i : n - 1) : 0] = 0;
    return buf;
}

/* True when s is well-formed UTF-8 (no overlongs, surrogates or values past
 * U+10FFFF). */
static bool utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        int extra;
        unsigned min;
        if (c < 0x80) {
            p++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            extra = 1, min = 0x80, c &= 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            extra = 2, min = 0x800, c &= 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            extra = 3, min = 0x10000, c &= 0x07;
        } else {
            return false;
        }
        p++;
        for (int i = 0; i < extra; i++, p++) {
            if ((*p & 0xc0) != 0x80) return false;
            c = (c << 6) | (*p & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return false;
    }
    return true;
}

/* The value of an integral JSON number; false for other types, fractions and
 * non-finite values. */
static bool as_integer(const cJSON *v, double *out)
{
    if (!cJSON_IsNumber(v)) return false;
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d)) return false;
    *out = d;
    return true;
}

/* A request's "seed" (absent: 0): an integer from 0 to API_SEED_MAX. */
static bool parse_seed(const cJSON *v, uint64_t *out, ApiProblem *err)
{
    double d = 0;
    if (v && (!as_integer(v, &d) || d < 0 || d > API_SEED_MAX))
        return api_problem(err, 400, "seed", "seed must be an integer from 0 to %.0f", API_SEED_MAX);
    *out = (uint64_t)d;
    return true;
}

static const char *json_type_name(const cJSON *v)
{
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsObject(v)) return "an object";
    return "an invalid value";
}

/* Sorts the members of object obj into slot[i] by the names in keys[0..n).
 * An unknown or repeated member is a 400 whose field is prefix + its name. */
static bool collect_members(const cJSON *obj, const char *const *keys, int n, const cJSON **slot,
                            const char *prefix, ApiProblem *err)
{
    for (int i = 0; i < n; i++) slot[i] = NULL;
    for (const cJSON *c = obj->child; c; c = c->next) {
        char name[SHOW_MAX + 4], field[API_FIELD_MAX];
        show(c->string, name, sizeof name);
        snprintf(field, sizeof field, "%s%s", prefix, name);
        int k = 0;
        while (k < n && strcmp(c->string ? c->string : "", keys[k]) != 0) k++;
        if (k == n) return api_problem(err, 400, field, "unknown member '%s'", name);
        if (slot[k]) return api_problem(err, 400, field, "member '%s' is given twice", name);
        slot[k] = c;
    }
    return true;
}

/* Parses one point: notation ("h8"), "x,y", or [x, y] zero-based from the
 * top-left. A value that is neither a string nor an array is a wrong type
 * (400); a string or array that names no point of the board is 422. */
static bool parse_point(const cJSON *v, int size, const char *field, Move *out, ApiProblem *err)
{
    char txt[SHOW_MAX + 4];
    if (cJSON_IsString(v)) {
        Move m = move_parse(v->valuestring, size);
        if (m != MOVE_NONE) {
            *out = m;
            return true;
        }
        show(v->valuestring, txt, sizeof txt);
        if (move_parse(v->valuestring, BOARD_MAX_SIZE) != MOVE_NONE)
            return api_problem(err, 422, field, "'%s' is off the %dx%d board", txt, size, size);
        return api_problem(err, 422, field, "'%s' is not a point: use notation such as \"h8\" or [x, y]", txt);
    }
    if (cJSON_IsArray(v)) {
        double x, y;
        if (cJSON_GetArraySize(v) != 2 || !as_integer(cJSON_GetArrayItem(v, 0), &x) ||
            !as_integer(cJSON_GetArrayItem(v, 1), &y) || x < 0 || y < 0)
            return api_problem(err, 422, field, "a point given as an array is [x, y]: two non-negative integers");
        if (x >= size || y >= size)
            return api_problem(err, 422, field, "[%.0f, %.0f] is off the %dx%d board", x, y, size, size);
        *out = MOVE_XY((int)x, (int)y);
        return true;
    }
    return api_problem(err, 400, field, "a point is a string such as \"h8\" or an array [x, y], not %s",
                       json_type_name(v));
}

/* Parses an array of points into out (room for max entries) and sets *n. */
static bool parse_points(const cJSON *arr, int size, const char *field, Move *out, int max, int *n,
                         ApiProblem *err)
{
    if (!cJSON_IsArray(arr))
        return api_problem(err, 400, field, "%s must be an array of points, not %s", field, json_type_name(arr));
    int count = cJSON_GetArraySize(arr);
    if (count > max)
        return api_problem(err, 422, field, "%d points do not fit on a %dx%d board", count, size, size);
    int i = 0;
    for (const cJSON *c = arr->child; c; c = c->next, i++) {
        char f[API_FIELD_MAX];
        snprintf(f, sizeof f, "%s[%d]", field, i);
        if (!parse_point(c, size, f, &out[i], err)) return false;
    }
    *n = i;
    return true;
}

/* Reads a non-negative integral limit, clamped to LIMIT_CLAMP. */
static bool parse_limit(const cJSON *v, const char *field, double *out, ApiProblem *err)
{
    double d;
    if (!as_integer(v, &d) || d < 0)
        return api_problem(err, 400, field, "%s must be a non-negative integer", field);
    *out = d > LIMIT_CLAMP ? LIMIT_CLAMP : d;
    return true;
}

/* Caps v by max when max > 0; an open value (0) becomes max. */
static int64_t cap64(int64_t v, int64_t max)
{
    if (max > 0 && (v == 0 || v > max)) return max;
    return v;
}

static bool parse_limits(const cJSON *v, const ApiCaps *caps, ApiRequest *out, ApiProblem *err)
{
    static const char *const keys[] = {"time_ms", "depth", "nodes"};
    static const char *const fields[] = {"limits.time_ms", "limits.depth", "limits.nodes"};
    const cJSON *slot[3];
    double val[3] = {0, 0, 0};
    if (v) {
        if (!cJSON_IsObject(v))
            return api_problem(err, 400, "limits", "limits must be an object, not %s", json_type_name(v));
        if (!collect_members(v, keys, 3, slot, "limits.", err)) return false;
        for (int i = 0; i < 3; i++)
            if (slot[i] && !parse_limit(slot[i], fields[i], &val[i], err)) return false;
    }
    int64_t time_ms = (int64_t)val[0], nodes = (int64_t)val[2];
    int64_t depth = (int64_t)(val[1] > ENGINE_MAX_DEPTH ? ENGINE_MAX_DEPTH : val[1]);
    if (caps && time_ms == 0 && depth == 0 && nodes == 0) {
        time_ms = caps->default_time_ms > 0 ? caps->default_time_ms : 0;
        depth = caps->default_depth > 0 ? caps->default_depth : 0;
        nodes = caps->default_nodes > 0 ? caps->default_nodes : 0;
    }
    if (caps) {
        time_ms = cap64(time_ms, caps->max_time_ms);
        depth = cap64(depth, caps->max_depth);
        nodes = cap64(nodes, caps->max_nodes);
    }
    if (depth > ENGINE_MAX_DEPTH) depth = ENGINE_MAX_DEPTH;
    out->time_ms = time_ms;
    out->depth = (int)depth;
    out->nodes = nodes;
    return true;
}

static int max_multipv(const ApiCaps *caps)
{
    if (!caps || caps->max_multipv <= 0 || caps->max_multipv > ENGINE_MAX_MULTIPV) return ENGINE_MAX_MULTIPV;
    return caps->max_multipv;
}

static bool parse_color(const cJSON *v, const char *field, Color *out, ApiProblem *err)
{
    if (cJSON_IsString(v) && !strcmp(v->valuestring, "black")) *out = BLACK;
    else if (cJSON_IsString(v) && !strcmp(v->valuestring, "white")) *out = WHITE;
    else return api_problem(err, 400, field, "%s must be \"black\" or \"white\"", field);
    return true;
}

static const char *color_name(Color c) { return c == WHITE ? "white" : "black"; }

/* The input that put pos->moves[index] on the board: "moves[i]" for a game,
 * "stones.black[j]" / "stones.white[j]" for a diagram (interleaved black
 * first). */
static void move_field(const Position *pos, int index, char *buf, size_t n)
{
    if (index < 0) snprintf(buf, n, "%s", pos->ordered ? "moves" : "stones");
    else if (pos->ordered) snprintf(buf, n, "moves[%d]", index);
    else snprintf(buf, n, "stones.%s[%d]", index % 2 ? "white" : "black", index / 2);
}

/* Turns a position_check() failure into a 422 naming the input. */
static bool position_problem(const Position *pos, PositionError e, int index, ApiProblem *err)
{
    char field[API_FIELD_MAX], pt[8] = "";
    move_field(pos, index, field, sizeof field);
    if (index >= 0 && index < pos->nmoves) move_to_notation(pos->moves[index], pos->size, pt);
    switch (e) {
    case POSITION_OCCUPIED:
        return api_problem(err, 422, field, "%s already holds a stone", pt);
    case POSITION_FORBIDDEN:
        return api_problem(err, 422, field, "%s was a forbidden move for black under renju", pt);
    case POSITION_GAME_OVER:
        if (index >= 0 && pos->ordered)
            return api_problem(err, 422, field, "%s made five in a row: the game is already won", pt);
        return api_problem(err, 422, field, "there is already five in a row: the game is already won");
    case POSITION_FULL:
        return api_problem(err, 422, field, "the board is full");
    case POSITION_OFF_BOARD:
        return api_problem(err, 422, field, "the point is off the %dx%d board", pos->size, pos->size);
    default:
        return api_problem(err, 422, field, "%s", position_error_text(e));
    }
}

/* A diagram: {"black": [...], "white": [...]} with to_move (EMPTY when not
 * given). Fills pos with the stones interleaved black first, unordered. */
static bool parse_diagram(const cJSON *v, Color to_move, Position *pos, ApiProblem *err)
{
    static const char *const colors[] = {"black", "white"};
    static const char *const fields[] = {"stones.black", "stones.white"};
    const cJSON *list[2];
    Move *stones[2] = {NULL, NULL};
    int n[2] = {0, 0}, size = pos->size, points = size * size;
    bool ok = false;
    if (!cJSON_IsObject(v))
        return api_problem(err, 400, "stones", "stones must be an object {\"black\": [...], \"white\": [...]}, not %s",
                           json_type_name(v));
    if (!collect_members(v, colors, 2, list, "stones.", err)) return false;
    for (int c = 0; c < 2; c++)
        if (list[c] && !cJSON_IsArray(list[c]))
            return api_problem(err, 400, fields[c], "%s must be an array of points, not %s", fields[c],
                               json_type_name(list[c]));
    int total = (list[0] ? cJSON_GetArraySize(list[0]) : 0) + (list[1] ? cJSON_GetArraySize(list[1]) : 0);
    if (total > points) return api_problem(err, 422, "stones", "%d stones do not fit on a %dx%d board", total, size, size);
    for (int c = 0; c < 2; c++) {
        if (!list[c]) continue;
        stones[c] = malloc(sizeof(Move) * (size_t)points);
        if (!stones[c]) {
            api_problem(err, 500, "", "out of memory");
            goto cleanup;
        }
        if (!parse_points(list[c], size, fields[c], stones[c], points, &n[c], err)) goto cleanup;
    }
    Color fits = n[0] == n[1] ? BLACK : n[0] == n[1] + 1 ? WHITE : EMPTY;
    if (fits == EMPTY) {
        api_problem(err, 422, "stones",
                    "%d black and %d white stones: black must have as many stones as white, or one more", n[0], n[1]);
        goto cleanup;
    }
    if (to_move != EMPTY && to_move != fits) {
        api_problem(err, 422, "to_move", "with %d black and %d white stones it is %s to move, not %s", n[0], n[1],
                    color_name(fits), color_name(to_move));
        goto cleanup;
    }
    pos->ordered = false;
    pos->nmoves = n[0] + n[1];
    for (int i = 0; i < pos->nmoves; i++) pos->moves[i] = i % 2 ? stones[1][i / 2] : stones[0][i / 2];
    ok = true;
cleanup:
    free(stones[0]);
    free(stones[1]);
    return ok;
}

enum { K_ID, K_RULE, K_SIZE, K_MOVES, K_STONES, K_TO_MOVE, K_LIMITS, K_MULTIPV, K_BOOK, K_COUNT };

/* Parses one analyze request from its JSON value (NULL for an empty body).
 * A review (game) may end with the five or the full board that ended it;
 * *terminal then says so, and *winner who made the five. */
static bool parse_game(const cJSON *root, const ApiCaps *caps, ApiRequest *out, ApiProblem *err, bool game,
                       bool *terminal, Color *winner)
{
    static const char *const keys[K_COUNT] = {"id",     "rule",    "board_size", "moves", "stones",
                                              "to_move", "limits", "multipv",    "book"};
    const cJSON *k[K_COUNT] = {0};
    memset(out, 0, sizeof *out);
    out->pos.rule = RULE_FREESTYLE;
    out->pos.size = BOARD_DEFAULT_SIZE;
    out->pos.ordered = true;
    out->multipv = 1;

    if (root) {
        if (!cJSON_IsObject(root))
            return api_problem(err, 400, "", "the request must be a JSON object, not %s", json_type_name(root));
        if (!collect_members(root, keys, K_COUNT, k, "", err)) return false;
    }

    /* shape */
    if (k[K_ID]) {
        if (!cJSON_IsString(k[K_ID]))
            return api_problem(err, 400, "id", "id must be a string, not %s", json_type_name(k[K_ID]));
        size_t n = strlen(k[K_ID]->valuestring);
        if (n > API_ID_MAX) return api_problem(err, 400, "id", "id is longer than %d bytes", API_ID_MAX);
        if (!utf8_valid(k[K_ID]->valuestring)) return api_problem(err, 400, "id", "id is not valid UTF-8");
        memcpy(out->id, k[K_ID]->valuestring, n + 1);
        out->has_id = true;
    }
    if (k[K_RULE] && !(cJSON_IsString(k[K_RULE]) && rule_parse(k[K_RULE]->valuestring, &out->pos.rule)))
        return api_problem(err, 400, "rule", "rule must be \"freestyle\", \"standard\" or \"renju\"");
    if (k[K_SIZE]) {
        double d;
        if (!as_integer(k[K_SIZE], &d) || d < BOARD_MIN_SIZE || d > BOARD_MAX_SIZE)
            return api_problem(err, 400, "board_size", "board_size must be an integer from %d to %d", BOARD_MIN_SIZE,
                               BOARD_MAX_SIZE);
        out->pos.size = (int)d;
    }
    if (!parse_limits(k[K_LIMITS], caps, out, err)) return false;
    if (k[K_MULTIPV]) {
        double d;
        int max = max_multipv(caps);
        if (!as_integer(k[K_MULTIPV], &d) || d < 1 || d > max)
            return api_problem(err, 400, "multipv", "multipv must be an integer from 1 to %d", max);
        out->multipv = (int)d;
    }
    if (k[K_BOOK]) {
        if (!cJSON_IsBool(k[K_BOOK]))
            return api_problem(err, 400, "book", "book must be true or false, not %s", json_type_name(k[K_BOOK]));
        out->no_book = cJSON_IsFalse(k[K_BOOK]);
    }
    Color to_move = EMPTY;
    if (k[K_TO_MOVE] && !parse_color(k[K_TO_MOVE], "to_move", &to_move, err)) return false;

    /* position */
    Position *pos = &out->pos;
    if (k[K_MOVES] && k[K_STONES])
        return api_problem(err, 422, "stones", "give either moves (a game) or stones (a diagram), not both");
    if (k[K_STONES]) {
        if (!parse_diagram(k[K_STONES], to_move, pos, err)) return false;
    } else if (k[K_MOVES]) {
        if (!parse_points(k[K_MOVES], pos->size, "moves", pos->moves, pos->size * pos->size, &pos->nmoves, err))
            return false;
    }
    out->to_move = pos->nmoves % 2 ? WHITE : BLACK;
    if (!k[K_STONES] && to_move != EMPTY && to_move != out->to_move)
        return api_problem(err, 422, "to_move", "after %d moves it is %s to move, not %s", pos->nmoves,
                           color_name(out->to_move), color_name(to_move));

    int index = -1;
    PositionError e = position_check(pos, &index);
    if (game && e == POSITION_GAME_OVER && index == pos->nmoves - 1) {
        *terminal = true;
        *winner = index % 2 ? WHITE : BLACK;
        return true;
    }
    if (game && e == POSITION_FULL) {
        *terminal = true;
        *winner = EMPTY;
        return true;
    }
    if (e != POSITION_OK) return position_problem(pos, e, index, err);
    return true;
}

static bool parse_request(const cJSON *root, const ApiCaps *caps, ApiRequest *out, ApiProblem *err)
{
    return parse_game(root, caps, out, err, false, NULL, NULL);
}

bool api_parse_position_json(const cJSON *root, const ApiCaps *caps, ApiRequest *out, ApiProblem *err)
{
    return parse_request(root, caps, out, err);
}

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Parses body[0..len) as JSON. Returns the root (caller deletes), or NULL
 * with *err set. An empty or all-blank body gives NULL with *empty true. */
static cJSON *parse_json(const char *body, size_t len, bool *empty, ApiProblem *err)
{
    size_t start = 0;
    *empty = false;
    while (start < len && is_blank(body[start])) start++;
    if (start == len) {
        *empty = true;
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(body, len, &end, false);
    if (!root) {
        size_t at = end && end >= body && end <= body + len ? (size_t)(end - body) : 0;
        api_problem(err, 400, "", "malformed JSON near byte %zu", at);
        return NULL;
    }
    size_t pos = (size_t)(end - body);
    while (pos < len && is_blank(body[pos])) pos++;
    if (pos < len) {
        cJSON_Delete(root);
        api_problem(err, 400, "", "malformed JSON: unexpected data after the value at byte %zu", pos);
        return NULL;
    }
    return root;
}

cJSON *api_parse_json_body(const char *body, size_t len, bool *empty, ApiProblem *err)
{
    return parse_json(body, body ? len : 0, empty, err);
}

bool api_parse_analyze(const char *body, size_t len, const ApiCaps *caps, ApiRequest *out, ApiProblem *err)
{
    bool empty;
    if (!out) return api_problem(err, 500, "", "no request to fill");
    if (!body) len = 0;
    cJSON *root = parse_json(body, len, &empty, err);
    if (!root)
        return empty ? api_problem(err, 400, "", "the body is empty: send a JSON object, {\"moves\": []} for the "
                                                 "empty board")
                     : false;
    bool ok = parse_request(root, caps, out, err);
    cJSON_Delete(root);
    return ok;
}

/* Room for n slots in b (n set); false with a 500 in *err when memory is
 * short (the caller frees what was had with api_batch_free). */
static bool batch_alloc(ApiBatch *b, int n, ApiProblem *err)
{
    b->reqs = calloc((size_t)n, sizeof *b->reqs);
    b->errors = calloc((size_t)n, sizeof *b->errors);
    b->ok = calloc((size_t)n, sizeof *b->ok);
    if (!b->reqs || !b->errors || !b->ok) return api_problem(err, 500, "", "out of memory");
    b->n = n;
    return true;
}

bool api_parse_batch(const char *body, size_t len, const ApiCaps *caps, int max_positions, ApiBatch *out,
                     ApiProblem *err)
{
    static const char *const keys[] = {"positions"};
    const cJSON *slot[1];
    bool empty, ok = false;
    if (!out) return api_problem(err, 500, "", "no batch to fill");
    memset(out, 0, sizeof *out);
    if (!body) len = 0;
    cJSON *root = parse_json(body, len, &empty, err);
    if (!root) {
        if (empty) api_problem(err, 400, "", "the body is empty: expected {\"positions\": [...]}");
        return false;
    }
    if (!cJSON_IsObject(root)) {
        api_problem(err, 400, "", "the request must be a JSON object {\"positions\": [...]}, not %s",
                    json_type_name(root));
        goto cleanup;
    }
    if (!collect_members(root, keys, 1, slot, "", err)) goto cleanup;
    if (!cJSON_IsArray(slot[0])) {
        api_problem(err, 400, "positions", "positions must be an array of analyze requests");
        goto cleanup;
    }
    int n = cJSON_GetArraySize(slot[0]);
    if (n == 0) {
        api_problem(err, 400, "positions", "positions is empty");
        goto cleanup;
    }
    if (max_positions > 0 && n > max_positions) {
        api_problem(err, 413, "positions", "%d positions in one batch; at most %d are allowed", n, max_positions);
        goto cleanup;
    }
    if (!batch_alloc(out, n, err)) goto cleanup;
    int i = 0;
    for (const cJSON *c = slot[0]->child; c; c = c->next, i++)
        out->ok[i] = parse_request(c, caps, &out->reqs[i], &out->errors[i]);
    ok = true;
cleanup:
    if (!ok) api_batch_free(out);
    cJSON_Delete(root);
    return ok;
}

void api_batch_free(ApiBatch *b)
{
    if (!b) return;
    free(b->reqs);
    free(b->errors);
    free(b->ok);
    memset(b, 0, sizeof *b);
}

bool api_parse_review(const char *body, size_t len, const ApiCaps *caps, int max_moves, ApiReview *out,
                      ApiProblem *err)
{
    bool empty;
    if (!out) return api_problem(err, 500, "", "no review to fill");
    memset(out, 0, sizeof *out);
    if (!body) len = 0;
    cJSON *root = parse_json(body, len, &empty, err);
    if (!root) return empty ? api_problem(err, 400, "moves", "the body is empty: expected {\"moves\": [...]}") : false;
    bool ok = false;
    if (cJSON_IsObject(root)) {
        /* book: a review searches every position (two lines each), never the book */
        static const char *const refused[] = {"stones", "to_move", "multipv", "book"};
        for (int i = 0; i < 4; i++)
            if (cJSON_GetObjectItemCaseSensitive(root, refused[i])) {
                api_problem(err, 400, refused[i], "a review takes the moves of a game; %s is not one of its members",
                            refused[i]);
                goto done;
            }
        const cJSON *moves = cJSON_GetObjectItemCaseSensitive(root, "moves");
        if (!moves) {
            api_problem(err, 400, "moves", "a review needs the moves of a game");
            goto done;
        }
        if (cJSON_IsArray(moves) && max_moves > 0 && cJSON_GetArraySize(moves) > max_moves) {
            api_problem(err, 413, "moves", "%d moves to review; at most %d are allowed", cJSON_GetArraySize(moves),
                        max_moves);
            goto done;
        }
    }
    if (!parse_game(root, caps, &out->game, err, true, &out->terminal, &out->winner)) goto done;
    out->n = out->game.pos.nmoves;
    if (out->n == 0) {
        api_problem(err, 400, "moves", "a review needs at least one move");
        goto done;
    }
    int np = out->terminal ? out->n : out->n + 1;
    ApiBatch *b = &out->positions;
    if (!batch_alloc(b, np, err)) goto done;
    for (int k = 0; k < np; k++) {
        ApiRequest *q = &b->reqs[k];
        *q = out->game;
        q->has_id = false;
        q->pos.nmoves = k;
        q->to_move = k % 2 ? WHITE : BLACK;
        q->multipv = 2 <= max_multipv(caps) ? 2 : 1;
        b->ok[k] = true;
    }
    ok = true;
done:
    if (!ok) api_review_free(out);
    cJSON_Delete(root);
    return ok;
}

/* Takes member name out of obj for parsing on its own: NULL when absent; a
 * second one is a 400 (*dup set). The caller deletes what it gets. */
static cJSON *detach_member(cJSON *obj, const char *name, bool *dup, ApiProblem *err)
{
    *dup = false;
    cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(obj, name);
    if (v && cJSON_GetObjectItemCaseSensitive(obj, name)) {
        *dup = true;
        api_problem(err, 400, name, "member '%s' is given twice", name);
    }
    return v;
}

static bool parse_level(const cJSON *v, const Level **out, ApiProblem *err)
{
    double d;
    *out = NULL;
    if (!v) *out = level_get(LEVEL_MAX);
    else if (as_integer(v, &d) && d >= LEVEL_MIN && d <= LEVEL_MAX) *out = level_get((int)d);
    else if (cJSON_IsString(v)) *out = level_by_name(v->valuestring);
    if (*out) return true;
    char names[LEVEL_COUNT * 16] = "";
    for (int n = LEVEL_MIN; n <= LEVEL_MAX; n++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", n > LEVEL_MIN ? ", " : "",
                 level_get(n)->name);
    return api_problem(err, 400, "level", "level must be an integer from %d to %d or a name: %s", LEVEL_MIN,
                       LEVEL_MAX, names);
}

bool api_parse_move(const char *body, size_t len, const ApiCaps *caps, ApiMove *out, ApiProblem *err)
{
    bool empty, dup_level, dup_seed, ok = false;
    if (!out) return api_problem(err, 500, "", "no move request to fill");
    memset(out, 0, sizeof *out);
    if (!body) len = 0;
    cJSON *root = parse_json(body, len, &empty, err), *level = NULL, *seed = NULL;
    if (!root) return empty ? api_problem(err, 400, "", "the body is empty: expected a position, {} for the empty board")
                            : false;
    if (!cJSON_IsObject(root)) {
        api_problem(err, 400, "", "the request must be a JSON object, not %s", json_type_name(root));
        goto done;
    }
    static const char *const refused[] = {"limits", "multipv"};
    for (int i = 0; i < 2; i++)
        if (cJSON_GetObjectItemCaseSensitive(root, refused[i])) {
            api_problem(err, 400, refused[i], "the level sets the search of a move; %s is not one of its members",
                        refused[i]);
            goto done;
        }
    level = detach_member(root, "level", &dup_level, err);
    if (dup_level) goto done;
    seed = detach_member(root, "seed", &dup_seed, err);
    if (dup_seed) goto done;
    if (!parse_level(level, &out->level, err) || !parse_seed(seed, &out->seed, err)) goto done;
    /* the position (and defaults for a request without limits) */
    if (!parse_game(root, caps, &out->req, err, false, NULL, NULL)) goto done;
    const Level *lv = out->level;
    if (lv->nodes > 0) {
        /* the node cap decides; the server's maxima bound the rest */
        Limits base = {.time_ms = caps ? cap64(0, caps->max_time_ms) : 0,
                       .depth = caps ? (int)cap64(0, caps->max_depth) : 0,
                       .nodes = caps ? cap64(0, caps->max_nodes) : 0};
        Limits l = level_limits(lv, base);
        out->req.time_ms = l.time_ms;
        out->req.depth = l.depth > ENGINE_MAX_DEPTH ? ENGINE_MAX_DEPTH : l.depth;
        out->req.nodes = l.nodes;
        out->req.multipv = l.multipv < max_multipv(caps) ? l.multipv : max_multipv(caps);
    } else {
        out->req.multipv = 1;
    }
    ok = true;
done:
    cJSON_Delete(level);
    cJSON_Delete(seed);
    cJSON_Delete(root);
    return ok;
}

void api_review_free(ApiReview *r)
{
    if (r) api_batch_free(&r->positions);
}

Limits api_limits(const ApiRequest *req)
{
    Limits l;
    memset(&l, 0, sizeof l);
    l.time_ms = req->time_ms;
    l.depth = req->depth;
    l.nodes = req->nodes;
    l.multipv = req->multipv;
    l.no_book = req->no_book;
    return l;
}

/* ---- openings and swap2 ------------------------------------------------ */

bool api_parse_openings(const char *body, size_t len, const ApiCaps *caps, ApiOpenings *out, ApiProblem *err)
{
    enum { O_ID, O_RULE, O_SIZE, O_STONES, O_COUNT, O_SEED, O_LIMITS, O_N };
    static const char *const keys[O_N] = {"id", "rule", "board_size", "stones", "count", "seed", "limits"};
    const cJSON *k[O_N];
    bool empty, ok = false;
    double d;
    memset(out, 0, sizeof *out);
    out->rule = RULE_FREESTYLE;
    out->size = BOARD_DEFAULT_SIZE;
    out->depth = OPENING_DEPTH;
    if (!body) len = 0;
    cJSON *root = parse_json(body, len, &empty, err);
    if (!root)
        return empty ? api_problem(err, 400, "", "the body is empty: send {\"stones\": N, \"count\": K}") : false;
    if (!cJSON_IsObject(root)) {
        api_problem(err, 400, "", "the request must be a JSON object, not %s", json_type_name(root));
        goto done;
    }
    if (!collect_members(root, keys, O_N, k, "", err)) goto done;
    if (k[O_ID]) {
        size_t n = cJSON_IsString(k[O_ID]) ? strlen(k[O_ID]->valuestring) : 0;
        if (!cJSON_IsString(k[O_ID]) || n > API_ID_MAX || !utf8_valid(k[O_ID]->valuestring)) {
            api_problem(err, 400, "id", "id must be a UTF-8 string of at most %d bytes", API_ID_MAX);
            goto done;
        }
        memcpy(out->id, k[O_ID]->valuestring, n + 1);
        out->has_id = true;
    }
    if (k[O_RULE] && !(cJSON_IsString(k[O_RULE]) && rule_parse(k[O_RULE]->valuestring, &out->rule))) {
        api_problem(err, 400, "rule", "rule must be \"freestyle\", \"standard\" or \"renju\"");
        goto done;
    }
    if (k[O_SIZE]) {
        if (!as_integer(k[O_SIZE], &d) || d < BOARD_MIN_SIZE || d > BOARD_MAX_SIZE) {
            api_problem(err, 400, "board_size", "board_size must be an integer from %d to %d", BOARD_MIN_SIZE,
                        BOARD_MAX_SIZE);
            goto done;
        }
        out->size = (int)d;
    }
    int region = out->size < OPENING_REGION ? out->size : OPENING_REGION;
    int max_stones = region * region / 2 < API_OPENINGS_MAX_STONES ? region * region / 2 : API_OPENINGS_MAX_STONES;
    if (!k[O_STONES] || !as_integer(k[O_STONES], &d) || d < 1 || d > max_stones) {
        api_problem(err, 400, "stones", "stones must be an integer from 1 to %d (on a %dx%d board)", max_stones,
                    out->size, out->size);
        goto done;
    }
    out->stones = (int)d;
    if (!k[O_COUNT] || !as_integer(k[O_COUNT], &d) || d < 1) {
        api_problem(err, 400, "count", "count must be a positive integer");
        goto done;
    }
    if (d > API_OPENINGS_MAX_COUNT) {
        api_problem(err, 413, "count", "count is over %d openings a request", API_OPENINGS_MAX_COUNT);
        goto done;
    }
    out->count = (int)d;
    if (!parse_seed(k[O_SEED], &out->seed, err)) goto done;
    int64_t nodes = (int64_t)out->count * API_OPENINGS_NODES_PER_OPENING;
    if (k[O_LIMITS]) {
        static const char *const lkeys[] = {"depth", "nodes"};
        const cJSON *l[2];
        if (!cJSON_IsObject(k[O_LIMITS])) {
            api_problem(err, 400, "limits", "limits must be an object, not %s", json_type_name(k[O_LIMITS]));
            goto done;
        }
        if (cJSON_GetObjectItemCaseSensitive(k[O_LIMITS], "time_ms")) {
            api_problem(err, 400, "limits.time_ms",
                        "the work of balanced openings is bounded in nodes (limits.nodes), not time, so that a seed "
                        "always gives the same openings");
            goto done;
        }
        if (!collect_members(k[O_LIMITS], lkeys, 2, l, "limits.", err)) goto done;
        if (l[0]) {
            if (!as_integer(l[0], &d) || d < 1 || d > API_OPENINGS_MAX_DEPTH) {
                api_problem(err, 400, "limits.depth", "limits.depth must be an integer from 1 to %d",
                            API_OPENINGS_MAX_DEPTH);
                goto done;
            }
            out->depth = (int)d;
        }
        if (l[1]) {
            if (!as_integer(l[1], &d) || d < 1) {
                api_problem(err, 400, "limits.nodes", "limits.nodes must be a positive integer");
                goto done;
            }
            nodes = d > LIMIT_CLAMP ? (int64_t)LIMIT_CLAMP : (int64_t)d;
        }
    }
    if (caps && caps->max_nodes > 0 && nodes > caps->max_nodes) nodes = caps->max_nodes;
    out->nodes = nodes;
    ok = true;
done:
    cJSON_Delete(root);
    return ok;
}

bool api_parse_swap2(const char *body, size_t len, const ApiCaps *caps, ApiSwap2 *out, ApiProblem *err)
{
    bool empty, dup_seed, ok = false;
    memset(out, 0, sizeof *out);
    if (!body) len = 0;
    cJSON *root = parse_json(body, len, &empty, err), *seed = NULL;
    if (!root)
        return empty ? api_problem(err, 400, "", "the body is empty: send {\"moves\": []} for the first decision")
                     : false;
    if (!cJSON_IsObject(root)) {
        api_problem(err, 400, "", "the request must be a JSON object, not %s", json_type_name(root));
        goto done;
    }
    static const char *const refused[] = {"stones", "to_move", "multipv"};
    for (int i = 0; i < 3; i++)
        if (cJSON_GetObjectItemCaseSensitive(root, refused[i])) {
            api_problem(err, 400, refused[i], "swap2 takes the stones in the order they were placed, as moves; "
                        "'%s' is not one of its members", refused[i]);
            goto done;
        }
    seed = detach_member(root, "seed", &dup_seed, err);
    if (dup_seed || !parse_seed(seed, &out->seed, err)) goto done;
    if (!parse_game(root, caps, &out->req, err, false, NULL, NULL)) goto done;
    int n = out->req.pos.nmoves;
    if (n != 0 && n != 3 && n != 5) {
        api_problem(err, 422, "moves",
                    "swap2 decides with 0, 3 or 5 stones on the board (black, white, black, then white, black), "
                    "not %d", n);
        goto done;
    }
    ok = true;
done:
    cJSON_Delete(seed);
    cJSON_Delete(root);
    return ok;
}
