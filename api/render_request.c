/*
 * render_request.c - render requests (JSON body or GET query) -> ApiRender.
 *
 * The position is parsed by request.c exactly as for POST /v1/analyze: the
 * drawing options are taken out of the object first, the rest must be an
 * analyze request. A GET query is turned into the same JSON object (moves
 * split at commas, integers and booleans typed), so both ways share every
 * check; problems of a query are renamed to its parameters.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"
#include "api/render_request.h"
#include "engine/board.h"

enum {
    O_FORMAT, O_PIXELS, O_STYLE, O_THEME, O_COORDS, O_NUMBERS, O_LAST, O_FORBIDDEN, O_CROP, O_MARGIN,
    O_ANIMATE, O_DELAY, O_ANALYZE, O_ANALYSIS, O_COUNT
};
static const char *const option_names[O_COUNT] = {
    "format", "pixels", "style", "theme", "coordinates", "numbers", "last_move", "forbidden", "crop", "margin",
    "animate", "delay_ms", "analyze", "analysis"};

void api_render_defaults(ApiRender *out)
{
    memset(out, 0, sizeof *out);
    out->req.pos.rule = RULE_FREESTYLE;
    out->req.pos.size = BOARD_DEFAULT_SIZE;
    out->req.pos.ordered = true;
    out->req.multipv = 1;
    out->req.to_move = BLACK;
    out->format = API_IMAGE_SVG;
    out->pixels = API_RENDER_PIXELS_DEFAULT;
    out->wood = true;
    out->coordinates = true;
    out->last_move = true;
    out->forbidden = true;
    out->numbers_from = 1;
    out->margin = API_RENDER_MARGIN_DEFAULT;
    out->delay_ms = API_RENDER_DELAY_DEFAULT;
}

bool api_image_format_parse(const char *s, ApiImageFormat *out)
{
    if (!s) return false;
    if (!strcmp(s, "svg")) *out = API_IMAGE_SVG;
    else if (!strcmp(s, "png")) *out = API_IMAGE_PNG;
    else if (!strcmp(s, "gif")) *out = API_IMAGE_GIF;
    else return false;
    return true;
}

const char *api_image_type(ApiImageFormat f)
{
    return f == API_IMAGE_PNG ? "image/png" : f == API_IMAGE_GIF ? "image/gif" : "image/svg+xml";
}

static bool get_int(const cJSON *v, const char *name, int lo, int hi, int *out, ApiProblem *err)
{
    if (!v) return true;
    double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!isfinite(d) || d != floor(d) || d < lo || d > hi)
        return api_problem(err, 400, name, "%s must be an integer from %d to %d", name, lo, hi);
    *out = (int)d;
    return true;
}

static bool get_bool(const cJSON *v, const char *name, bool *out, ApiProblem *err)
{
    if (!v) return true;
    if (!cJSON_IsBool(v)) return api_problem(err, 400, name, "%s must be true or false", name);
    *out = cJSON_IsTrue(v);
    return true;
}

/* One of two words: *out = (value == yes). */
static bool get_word(const cJSON *v, const char *name, const char *yes, const char *no, bool *out, ApiProblem *err)
{
    if (!v) return true;
    if (cJSON_IsString(v) && !strcmp(v->valuestring, yes)) *out = true;
    else if (cJSON_IsString(v) && !strcmp(v->valuestring, no)) *out = false;
    else return api_problem(err, 400, name, "%s must be \"%s\" or \"%s\"", name, yes, no);
    return true;
}

/* A point of an analysis: notation or [x, y]; on the board. */
static bool overlay_point(const cJSON *v, int size, const char *field, Move *out, ApiProblem *err)
{
    if (cJSON_IsString(v)) {
        Move m = move_parse(v->valuestring, size);
        if (m == MOVE_NONE) return api_problem(err, 422, field, "%s is not a point of the %dx%d board", field, size, size);
        *out = m;
        return true;
    }
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2) {
        const cJSON *x = cJSON_GetArrayItem(v, 0), *y = cJSON_GetArrayItem(v, 1);
        if (cJSON_IsNumber(x) && cJSON_IsNumber(y) && x->valuedouble == floor(x->valuedouble) &&
            y->valuedouble == floor(y->valuedouble) && x->valuedouble >= 0 && y->valuedouble >= 0 &&
            x->valuedouble < size && y->valuedouble < size) {
            *out = MOVE_XY((int)x->valuedouble, (int)y->valuedouble);
            return true;
        }
        return api_problem(err, 422, field, "%s is not a point of the %dx%d board", field, size, size);
    }
    return api_problem(err, 400, field, "%s must be a point such as \"h8\" or [x, y]", field);
}

/* The analysis object: points checked against the stones (taken[] marks them). */
static bool parse_analysis(const cJSON *a, const ApiRender *r, const bool *taken, ApiOverlay *ov, ApiProblem *err)
{
    int size = r->req.pos.size;
    char field[API_FIELD_MAX];
    if (!cJSON_IsObject(a))
        return api_problem(err, 400, "analysis", "analysis must be an object: an answer of POST /v1/analyze");
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(a, "board_size");
    if (bs && !(cJSON_IsNumber(bs) && bs->valuedouble == size))
        return api_problem(err, 422, "analysis.board_size", "the analysis is of another board size than %d", size);
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(a, "best_move");
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(a, "pv");
    const cJSON *pvs = cJSON_GetObjectItemCaseSensitive(a, "pvs");
    const cJSON *wr = cJSON_GetObjectItemCaseSensitive(a, "winrate");
    memset(ov, 0, sizeof *ov);
    ov->best = MOVE_NONE;
    if (best && !cJSON_IsNull(best) && !overlay_point(best, size, "analysis.best_move", &ov->best, err)) return false;
    if (ov->best != MOVE_NONE && taken[ov->best])
        return api_problem(err, 422, "analysis.best_move", "analysis.best_move is on a stone");
    if (pv) {
        if (!cJSON_IsArray(pv)) return api_problem(err, 400, "analysis.pv", "analysis.pv must be an array of points");
        bool seen[BOARD_STRIDE * BOARD_STRIDE] = {false};
        int i = 0;
        for (const cJSON *c = pv->child; c; c = c->next, i++) {
            Move m;
            snprintf(field, sizeof field, "analysis.pv[%d]", i);
            if (!overlay_point(c, size, field, &m, err)) return false;
            if (taken[m] || seen[m])
                return api_problem(err, 422, field, "%s is on a stone or repeats a point of the line", field);
            seen[m] = true;
            if (ov->pv_len < API_RENDER_PV_MAX) ov->pv[ov->pv_len++] = m;
        }
        if (ov->pv_len && ov->best != MOVE_NONE && ov->pv[0] != ov->best)
            return api_problem(err, 422, "analysis.pv[0]", "the line does not start with best_move");
    }
    if (ov->best == MOVE_NONE && ov->pv_len) ov->best = ov->pv[0];
    if (pvs) {
        if (!cJSON_IsArray(pvs)) return api_problem(err, 400, "analysis.pvs", "analysis.pvs must be an array");
        int i = 0;
        for (const cJSON *c = pvs->child; c && i < ENGINE_MAX_MULTIPV; c = c->next, i++) {
            snprintf(field, sizeof field, "analysis.pvs[%d]", i);
            if (!cJSON_IsObject(c)) return api_problem(err, 400, field, "%s must be an object {move, winrate}", field);
            snprintf(field, sizeof field, "analysis.pvs[%d].move", i);
            Move m;
            if (!overlay_point(cJSON_GetObjectItemCaseSensitive(c, "move"), size, field, &m, err)) return false;
            if (taken[m]) return api_problem(err, 422, field, "%s is on a stone", field);
            const cJSON *w = cJSON_GetObjectItemCaseSensitive(c, "winrate");
            snprintf(field, sizeof field, "analysis.pvs[%d].winrate", i);
            if (!cJSON_IsNumber(w) || !(w->valuedouble >= 0 && w->valuedouble <= 1))
                return api_problem(err, 400, field, "%s must be a number from 0 to 1", field);
            ov->cand[ov->ncand] = m;
            ov->winrate[ov->ncand++] = w->valuedouble;
        }
    } else if (ov->best != MOVE_NONE && wr) {
        if (!cJSON_IsNumber(wr) || !(wr->valuedouble >= 0 && wr->valuedouble <= 1))
            return api_problem(err, 400, "analysis.winrate", "analysis.winrate must be a number from 0 to 1");
        ov->cand[0] = ov->best;
        ov->winrate[0] = wr->valuedouble;
        ov->ncand = 1;
    }
    if (ov->best == MOVE_NONE && ov->ncand) ov->best = ov->cand[0];
    ov->present = ov->best != MOVE_NONE || ov->ncand > 0;
    return true;
}

/* Parses an object (options taken out of it, deleted by the caller). */
static bool parse_object(cJSON *root, const ApiCaps *caps, ApiImageFormat fallback, ApiRender *out, ApiProblem *err)
{
    cJSON *opt[O_COUNT] = {0};
    bool ok = false;
    api_render_defaults(out);
    if (!cJSON_IsObject(root)) return api_problem(err, 400, "", "the request must be a JSON object");
    for (int i = 0; i < O_COUNT; i++) {
        opt[i] = cJSON_DetachItemFromObjectCaseSensitive(root, option_names[i]);
        if (opt[i] && cJSON_GetObjectItemCaseSensitive(root, option_names[i])) {
            api_problem(err, 400, option_names[i], "member '%s' is given twice", option_names[i]);
            goto done;
        }
    }
    out->format = fallback;
    if (opt[O_FORMAT] && !(cJSON_IsString(opt[O_FORMAT]) && api_image_format_parse(opt[O_FORMAT]->valuestring,
                                                                                     &out->format))) {
        api_problem(err, 400, "format", "format must be \"svg\", \"png\" or \"gif\"");
        goto done;
    }
    out->animate = out->format == API_IMAGE_GIF;
    if (!get_bool(opt[O_ANALYZE], "analyze", &out->analyze, err)) goto done;
    if (!out->analyze) {
        static const char *const search_only[] = {"limits", "multipv"};
        for (int i = 0; i < 2; i++)
            if (cJSON_GetObjectItemCaseSensitive(root, search_only[i])) {
                api_problem(err, 400, search_only[i], "%s sets the search of \"analyze\": true, which is not asked for",
                            search_only[i]);
                goto done;
            }
    }
    if (!api_parse_position_json(root, caps, &out->req, err)) goto done;
    int pix_max = out->format == API_IMAGE_GIF ? API_RENDER_GIF_PIXELS_MAX : API_RENDER_PIXELS_MAX;
    if (!get_int(opt[O_PIXELS], "pixels", API_RENDER_PIXELS_MIN, pix_max, &out->pixels, err) ||
        !get_word(opt[O_STYLE], "style", "wood", "plain", &out->wood, err) ||
        !get_word(opt[O_THEME], "theme", "dark", "light", &out->dark, err) ||
        !get_bool(opt[O_COORDS], "coordinates", &out->coordinates, err) ||
        !get_bool(opt[O_LAST], "last_move", &out->last_move, err) ||
        !get_bool(opt[O_FORBIDDEN], "forbidden", &out->forbidden, err) ||
        !get_bool(opt[O_CROP], "crop", &out->crop, err) ||
        !get_int(opt[O_MARGIN], "margin", 0, API_RENDER_MARGIN_MAX, &out->margin, err) ||
        !get_bool(opt[O_ANIMATE], "animate", &out->animate, err) ||
        !get_int(opt[O_DELAY], "delay_ms", API_RENDER_DELAY_MIN, API_RENDER_DELAY_MAX, &out->delay_ms, err))
        goto done;
    if (opt[O_NUMBERS]) {
        const cJSON *v = opt[O_NUMBERS];
        if (cJSON_IsString(v) && !strcmp(v->valuestring, "all")) out->numbers_from = 1;
        else if (cJSON_IsString(v) && !strcmp(v->valuestring, "none")) out->numbers_from = 0;
        else if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && v->valuedouble >= 1 &&
                 v->valuedouble <= BOARD_MAX_MOVES) out->numbers_from = (int)v->valuedouble;
        else {
            api_problem(err, 400, "numbers", "numbers must be \"all\", \"none\" or a move number from 1 to %d",
                        BOARD_MAX_MOVES);
            goto done;
        }
    }
    if (!opt[O_ANIMATE]) out->animate = out->format == API_IMAGE_GIF && out->req.pos.ordered; /* a diagram: a still */
    if (out->animate && out->format != API_IMAGE_GIF) {
        api_problem(err, 400, "animate", "an animation is a GIF: ask for format \"gif\"");
        goto done;
    }
    if (out->animate && !out->req.pos.ordered) {
        api_problem(err, 422, "animate", "a diagram (stones) has no move order to animate: give moves");
        goto done;
    }
    if (out->analyze && opt[O_ANALYSIS]) {
        api_problem(err, 400, "analysis", "give an analysis or ask for one (\"analyze\": true), not both");
        goto done;
    }
    if (opt[O_ANALYSIS]) {
        bool *taken = calloc(BOARD_STRIDE * BOARD_STRIDE, sizeof *taken);
        if (!taken) {
            api_problem(err, 500, "", "out of memory");
            goto done;
        }
        for (int i = 0; i < out->req.pos.nmoves; i++) taken[out->req.pos.moves[i]] = true;
        bool good = parse_analysis(opt[O_ANALYSIS], out, taken, &out->overlay, err);
        free(taken);
        if (!good) goto done;
    }
    ok = true;
done:
    for (int i = 0; i < O_COUNT; i++) cJSON_Delete(opt[i]);
    return ok;
}

bool api_parse_render(const char *body, size_t len, const ApiCaps *caps, ApiImageFormat fallback, ApiRender *out,
                      ApiProblem *err)
{
    bool empty;
    cJSON *root = api_parse_json_body(body, len, &empty, err);
    if (!root)
        return empty ? api_problem(err, 400, "", "the body is empty: send a JSON object, {} for the empty board")
                     : false;
    bool ok = parse_object(root, caps, fallback, out, err);
    cJSON_Delete(root);
    return ok;
}

/* ---- GET query ---------------------------------------------------------- */

/* A query value as JSON: an integer, true/false, or the string itself. */
static cJSON *typed_value(const char *v, bool integer, bool boolean)
{
    if (integer && *v) {
        char *end;
        long n = strtol(v, &end, 10);
        if (!*end && n > -1000000000L && n < 1000000000L) return cJSON_CreateNumber((double)n);
    }
    if (boolean && (!strcmp(v, "true") || !strcmp(v, "1"))) return cJSON_CreateTrue();
    if (boolean && (!strcmp(v, "false") || !strcmp(v, "0"))) return cJSON_CreateFalse();
    return cJSON_CreateString(v);
}

/* "h8,h9,[no brackets]" -> ["h8", "h9"]; "" -> []. */
static cJSON *point_list(const char *v)
{
    cJSON *arr = cJSON_CreateArray();
    while (arr && *v) {
        size_t n = strcspn(v, ",");
        char one[32];
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one - 1 ? n : sizeof one - 1), v);
        cJSON *s = cJSON_CreateString(one);
        if (!s || !cJSON_AddItemToArray(arr, s)) {
            cJSON_Delete(s);
            cJSON_Delete(arr);
            return NULL;
        }
        v += n + (v[n] == ',');
    }
    return arr;
}

/* Renames a problem's field from the JSON names to the query's. */
static void query_field(ApiProblem *err)
{
    char f[API_FIELD_MAX];
    const char *s = err->field;
    if (!strncmp(s, "board_size", 10)) snprintf(f, sizeof f, "size%s", s + 10);
    else if (!strncmp(s, "limits.", 7)) snprintf(f, sizeof f, "%s", s + 7);
    else if (!strncmp(s, "stones.", 7)) snprintf(f, sizeof f, "%s", s + 7);
    else if (!strcmp(s, "stones")) snprintf(f, sizeof f, "black");
    else return;
    snprintf(err->field, sizeof err->field, "%s", f);
    /* "board_size must be ..." -> "size must be ..." */
    for (char *p = err->detail; (p = strstr(p, "board_size")) != NULL; p += 4) {
        memmove(p + 4, p + 10, strlen(p + 10) + 1);
        memcpy(p, "size", 4);
    }
}

bool api_parse_render_query(const char *const *names, const char *const *values, int n, const ApiCaps *caps,
                            ApiImageFormat fallback, ApiRender *out, ApiProblem *err)
{
    static const char *const ints[] = {"pixels", "margin", "delay_ms", "size", "multipv", "depth", "time_ms",
                                       "nodes", "numbers"};
    static const char *const bools[] = {"coordinates", "last_move", "forbidden", "crop", "animate", "analyze"};
    static const char *const strs[] = {"format", "style", "theme", "rule", "to_move", "id"};
    cJSON *root = cJSON_CreateObject(), *limits = NULL, *stones = NULL;
    bool ok = false;
    if (!root) return api_problem(err, 500, "", "out of memory");
    for (int i = 0; i < n; i++) {
        const char *k = names[i], *v = values[i] ? values[i] : "";
        char shown[40];
        snprintf(shown, sizeof shown, "%.32s", k);
        for (char *p = shown; *p; p++)
            if (*p < 0x20 || *p >= 0x7f) *p = '?';
        for (int j = 0; j < i; j++)
            if (!strcmp(names[j], k)) {
                api_problem(err, 400, shown, "query parameter '%s' is given twice", shown);
                goto done;
            }
        bool is_int = false, is_bool = false, known = false;
        for (size_t j = 0; j < sizeof ints / sizeof *ints; j++) is_int |= !strcmp(k, ints[j]);
        for (size_t j = 0; j < sizeof bools / sizeof *bools; j++) is_bool |= !strcmp(k, bools[j]);
        for (size_t j = 0; j < sizeof strs / sizeof *strs; j++) known |= !strcmp(k, strs[j]);
        cJSON *val;
        const char *name = k;
        cJSON *into = root;
        if (!strcmp(k, "moves") || !strcmp(k, "black") || !strcmp(k, "white")) {
            val = point_list(v);
            if (strcmp(k, "moves")) {
                if (!stones && !(stones = cJSON_AddObjectToObject(root, "stones"))) goto oom;
                into = stones;
            }
        } else if (is_int || is_bool || known) {
            val = typed_value(v, is_int, is_bool);
            if (!strcmp(k, "size")) name = "board_size";
            if (!strcmp(k, "depth") || !strcmp(k, "time_ms") || !strcmp(k, "nodes")) {
                if (!limits && !(limits = cJSON_AddObjectToObject(root, "limits"))) goto oom;
                into = limits;
            }
        } else {
            api_problem(err, 400, shown, "unknown query parameter '%s'", shown);
            goto done;
        }
        if (!val) goto oom;
        if (!cJSON_AddItemToObject(into, name, val)) {
            cJSON_Delete(val);
            goto oom;
        }
    }
    ok = parse_object(root, caps, fallback, out, err);
    if (!ok && !strcmp(err->field, "limits")) { /* name the parameter that was given */
        const cJSON *first = limits ? limits->child : NULL;
        if (first) {
            snprintf(err->field, sizeof err->field, "%s", first->string);
            snprintf(err->detail, sizeof err->detail, "%s sets the search of analyze=true, which is not asked for",
                     first->string);
        }
    } else if (!ok) {
        query_field(err);
    }
    goto done;
oom:
    api_problem(err, 500, "", "out of memory");
done:
    cJSON_Delete(root);
    return ok;
}

void api_render_take_result(ApiRender *r, const EngineResult *res)
{
    ApiOverlay *ov = &r->overlay;
    memset(ov, 0, sizeof *ov);
    ov->best = res->best_move;
    if (res->npv > 0) {
        int n = res->pvs[0].pv_len < API_RENDER_PV_MAX ? res->pvs[0].pv_len : API_RENDER_PV_MAX;
        memcpy(ov->pv, res->pvs[0].pv, sizeof(Move) * (size_t)(n > 0 ? n : 0));
        ov->pv_len = n > 0 ? n : 0;
    }
    for (int i = 0; i < res->npv && i < ENGINE_MAX_MULTIPV; i++) {
        if (res->pvs[i].move == MOVE_NONE) continue;
        ov->cand[ov->ncand] = res->pvs[i].move;
        ov->winrate[ov->ncand++] = engine_winrate(r->req.pos.rule, res->side_to_move, res->pvs[i].score, res->pvs[i].mate);
    }
    ov->present = ov->best != MOVE_NONE;
}
