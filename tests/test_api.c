/* api: request parsing and validation, problems, caps, diagrams, batches and
 * the shape of the result JSON (read back with cJSON). */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "engine/board.h"

static const ApiCaps caps = {
    .default_time_ms = 1000,
    .max_time_ms = 5000,
    .default_depth = 0,
    .max_depth = 20,
    .default_nodes = 0,
    .max_nodes = 1000000,
    .max_multipv = 4,
};

static ApiRequest req;
static ApiProblem prob;

static void setup(void) { cr_assert(engine_init(), "engine tables could not be built"); }

TestSuite(api, .init = setup);

static bool parse(const char *json) { return api_parse_analyze(json, strlen(json), &caps, &req, &prob); }

/* The problem prob of a refused json: status and field, explained. */
static void assert_problem(const char *json, int status, const char *field)
{
    cr_assert_eq(prob.status, status, "%s: status %d (%s), expected %d", json, prob.status, prob.detail, status);
    cr_assert_str_eq(prob.field, field, "%s: field '%s' (%s), expected '%s'", json, prob.field, prob.detail, field);
    cr_assert_neq(prob.detail[0], 0, "%s: the problem explains itself", json);
    cr_assert_not_null(prob.type);
    cr_assert_not_null(prob.title);
}

/* Parses json, expecting it to fail with status and field. */
static void refused(const char *json, int status, const char *field)
{
    memset(&prob, 0, sizeof prob);
    cr_assert_not(parse(json), "accepted: %s", json);
    assert_problem(json, status, field);
}

static Move pt(const char *notation, int size)
{
    Move m = move_parse_notation(notation, size);
    cr_assert_neq(m, MOVE_NONE, "%s", notation);
    return m;
}

/* Reads a JSON document, failing the test when it is not one. */
static cJSON *json_read(const char *text)
{
    cr_assert_not_null(text);
    cJSON *j = cJSON_Parse(text);
    cr_assert_not_null(j, "not JSON: %s", text);
    return j;
}

static const cJSON *member(const cJSON *obj, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    cr_assert_not_null(v, "member '%s' is missing", name);
    return v;
}

/* ---- parsing what is valid ---- */

Test(api, moves_in_notation_become_an_ordered_game)
{
    cr_assert(parse("{\"moves\": [\"h8\", \"i9\", \"h9\"]}"), "%s", prob.detail);
    cr_assert(req.pos.ordered);
    cr_assert_eq(req.pos.rule, RULE_FREESTYLE);
    cr_assert_eq(req.pos.size, 15);
    cr_assert_eq(req.pos.nmoves, 3);
    cr_assert_eq(req.pos.moves[0], MOVE_XY(7, 7));
    cr_assert_eq(req.pos.moves[1], MOVE_XY(8, 6));
    cr_assert_eq(req.pos.moves[2], MOVE_XY(7, 6));
    cr_assert_eq(req.to_move, WHITE);
    cr_assert_not(req.has_id);
    cr_assert_eq(req.multipv, 1);
}

Test(api, array_and_xy_string_points_name_the_same_points_as_notation)
{
    cr_assert(parse("{\"moves\": [[7, 7], \"8,6\", \"H9\", [0, 14]]}"), "%s", prob.detail);
    cr_assert_eq(req.pos.moves[0], pt("h8", 15));
    cr_assert_eq(req.pos.moves[1], pt("i9", 15));
    cr_assert_eq(req.pos.moves[2], pt("h9", 15));
    cr_assert_eq(req.pos.moves[3], pt("a1", 15));
}

Test(api, an_empty_body_is_refused_and_an_empty_object_is_the_empty_board)
{
    cr_assert_not(api_parse_analyze("", 0, &caps, &req, &prob));
    cr_assert_eq(prob.status, 400);
    cr_assert_str_eq(prob.field, "");
    cr_assert(strstr(prob.detail, "empty"), "%s", prob.detail);
    cr_assert_not(api_parse_analyze(" \n", 2, &caps, &req, &prob));
    cr_assert_eq(prob.status, 400);
    cr_assert(parse("{\"moves\": []}"), "%s", prob.detail);
    cr_assert_eq(req.pos.nmoves, 0);
    cr_assert_eq(req.to_move, BLACK);
    cr_assert(parse("{}"), "%s", prob.detail);
    cr_assert_eq(req.pos.nmoves, 0);
    cr_assert_eq(req.pos.size, 15);
}

Test(api, id_rule_size_and_multipv_are_read)
{
    cr_assert(parse("{\"id\": \"q-7 \\u00e9\", \"rule\": \"renju\", \"board_size\": 19, \"multipv\": 3,"
                    " \"moves\": [\"s19\"]}"),
              "%s", prob.detail);
    cr_assert(req.has_id);
    cr_assert_str_eq(req.id, "q-7 \xc3\xa9");
    cr_assert_eq(req.pos.rule, RULE_RENJU);
    cr_assert_eq(req.pos.size, 19);
    cr_assert_eq(req.multipv, 3);
    cr_assert_eq(req.pos.moves[0], MOVE_XY(18, 0));
}

Test(api, body_is_read_only_within_its_length)
{
    const char text[] = "{\"moves\": [\"h8\"]}";
    size_t n = sizeof text - 1;
    char *body = malloc(n); /* no terminating NUL */
    cr_assert_not_null(body);
    memcpy(body, text, n);
    bool ok = api_parse_analyze(body, n, &caps, &req, &prob);
    free(body);
    cr_assert(ok, "%s", prob.detail);
    cr_assert_eq(req.pos.nmoves, 1);

    /* the same bytes cut short are not a whole document */
    cr_assert_not(api_parse_analyze(text, n - 1, &caps, &req, &prob));
    cr_assert_eq(prob.status, 400);
}

/* ---- diagrams ---- */

Test(api, diagram_with_equal_counts_is_black_to_move_and_interleaved)
{
    cr_assert(parse("{\"stones\": {\"black\": [\"h8\", \"h9\"], \"white\": [\"a1\", [14, 0]]}}"), "%s",
              prob.detail);
    cr_assert_not(req.pos.ordered);
    cr_assert_eq(req.to_move, BLACK);
    cr_assert_eq(req.pos.nmoves, 4);
    cr_assert_eq(req.pos.moves[0], pt("h8", 15));
    cr_assert_eq(req.pos.moves[1], pt("a1", 15));
    cr_assert_eq(req.pos.moves[2], pt("h9", 15));
    cr_assert_eq(req.pos.moves[3], pt("o15", 15));
}

Test(api, diagram_with_one_more_black_stone_is_white_to_move)
{
    cr_assert(parse("{\"stones\": {\"black\": [\"h8\", \"h9\"], \"white\": [\"a1\"]}, \"to_move\": \"white\"}"),
              "%s", prob.detail);
    cr_assert_eq(req.to_move, WHITE);
    cr_assert(parse("{\"stones\": {\"black\": [\"h8\", \"h9\"], \"white\": [\"a1\"]}}"), "%s", prob.detail);
    cr_assert_eq(req.to_move, WHITE, "inferred from the counts");
    cr_assert(parse("{\"stones\": {}, \"to_move\": \"black\"}"), "%s", prob.detail);
    cr_assert_eq(req.pos.nmoves, 0);
}

Test(api, diagram_counts_that_fit_no_side_are_impossible)
{
    refused("{\"stones\": {\"black\": [\"h8\", \"h9\", \"h10\"], \"white\": [\"a1\"]}}", 422, "stones");
    refused("{\"stones\": {\"black\": [\"h8\"], \"white\": [\"a1\", \"a2\"]}}", 422, "stones");
    refused("{\"stones\": {\"white\": [\"a1\"]}}", 422, "stones");
}

Test(api, diagram_with_a_side_to_move_that_contradicts_the_counts_is_impossible)
{
    refused("{\"stones\": {\"black\": [\"h8\"], \"white\": [\"a1\"]}, \"to_move\": \"white\"}", 422, "to_move");
    refused("{\"stones\": {\"black\": [\"h8\"]}, \"to_move\": \"black\"}", 422, "to_move");
}

Test(api, diagram_problems_name_the_stone_list_entry)
{
    refused("{\"stones\": {\"black\": [\"h8\", \"h9\"], \"white\": [\"a1\", \"p3\"]}}", 422, "stones.white[1]");
    refused("{\"stones\": {\"black\": [\"h8\", \"h9\"], \"white\": [\"a1\", \"h8\"]}}", 422, "stones.white[1]");
    refused("{\"stones\": {\"black\": [\"h8\", \"h8\"], \"white\": [\"a1\", \"b1\"]}}", 422, "stones.black[1]");
    refused("{\"stones\": {\"black\": [5], \"white\": []}}", 400, "stones.black[0]");
    refused("{\"stones\": {\"black\": \"h8\"}}", 400, "stones.black");
    refused("{\"stones\": {\"black\": [], \"red\": []}}", 400, "stones.red");
    refused("{\"stones\": [\"h8\"]}", 400, "stones");
}

Test(api, diagram_with_a_five_on_the_board_is_a_game_already_won)
{
    memset(&prob, 0, sizeof prob);
    cr_assert_not(parse("{\"stones\": {\"black\": [\"d8\", \"e8\", \"f8\", \"g8\", \"h8\"],"
                        " \"white\": [\"a1\", \"a3\", \"a5\", \"a7\", \"a9\"]}}"));
    cr_assert_eq(prob.status, 422);
    cr_assert_eq(strncmp(prob.field, "stones", 6), 0, "field '%s'", prob.field);
}

Test(api, moves_and_stones_together_are_refused)
{
    refused("{\"moves\": [\"h8\"], \"stones\": {\"black\": [\"h8\"]}}", 422, "stones");
}

/* ---- impossible games ---- */

Test(api, points_that_are_malformed_or_off_the_board_are_named)
{
    refused("{\"moves\": [\"h8\", \"zz\"]}", 422, "moves[1]");
    refused("{\"moves\": [\"h8\", \"i9\", \"p1\"]}", 422, "moves[2]");
    refused("{\"board_size\": 9, \"moves\": [\"j1\"]}", 422, "moves[0]");
    refused("{\"moves\": [[15, 0]]}", 422, "moves[0]");
    refused("{\"moves\": [[1]]}", 422, "moves[0]");
    refused("{\"moves\": [[1, -1]]}", 422, "moves[0]");
    refused("{\"moves\": [[1.5, 2]]}", 422, "moves[0]");
    refused("{\"moves\": [\"h8\", \"i9\", \"h0\"]}", 422, "moves[2]");
}

Test(api, a_point_of_the_wrong_json_type_is_a_bad_request)
{
    refused("{\"moves\": [\"h8\", 7]}", 400, "moves[1]");
    refused("{\"moves\": [null]}", 400, "moves[0]");
    refused("{\"moves\": \"h8 i9\"}", 400, "moves");
}

Test(api, two_stones_on_one_point_name_the_second)
{
    refused("{\"moves\": [\"h8\", \"i9\", \"j10\", \"h8\"]}", 422, "moves[3]");
    refused("{\"moves\": [\"h8\", [7, 7]]}", 422, "moves[1]");
}

Test(api, a_game_already_won_names_the_move_that_made_five)
{
    refused("{\"moves\": [\"h8\", \"a1\", \"i8\", \"a2\", \"j8\", \"a3\", \"k8\", \"a4\", \"l8\"]}", 422, "moves[8]");
    refused("{\"moves\": [\"h8\", \"a1\", \"i8\", \"a2\", \"j8\", \"a3\", \"k8\", \"a4\", \"o15\", \"a5\"]}", 422,
            "moves[9]");
}

Test(api, a_forbidden_renju_move_already_played_is_impossible)
{
    const char *game = "\"moves\": [\"f8\", \"a1\", \"g8\", \"a3\", \"h6\", \"a5\", \"h7\", \"a7\", \"h8\"]";
    char body[256];
    snprintf(body, sizeof body, "{\"rule\": \"renju\", %s}", game);
    refused(body, 422, "moves[8]");
    cr_assert(strstr(prob.detail, "h8"), "detail names the point: %s", prob.detail);
    snprintf(body, sizeof body, "{\"rule\": \"freestyle\", %s}", game);
    cr_assert(parse(body), "the same double three is fine in freestyle: %s", prob.detail);
}

Test(api, a_full_board_is_impossible)
{
    refused("{\"board_size\": 5, \"moves\": [\"a5\", \"b5\", \"a3\", \"c5\", \"a2\", \"e5\", \"a1\", \"a4\", \"b2\","
            " \"b4\", \"b1\", \"e4\", \"c4\", \"b3\", \"c3\", \"c2\", \"d5\", \"d2\", \"d4\", \"c1\", \"d3\", \"d1\","
            " \"e3\", \"e1\", \"e2\"]}",
            422, "moves");
}

Test(api, more_moves_than_points_are_impossible_not_an_overflow)
{
    char body[4096];
    size_t n = (size_t)snprintf(body, sizeof body, "{\"board_size\": 5, \"moves\": [");
    for (int i = 0; i < 30; i++) n += (size_t)snprintf(body + n, sizeof body - n, "%s\"a%d\"", i ? "," : "", 1 + i % 5);
    snprintf(body + n, sizeof body - n, "]}");
    refused(body, 422, "moves");
}

Test(api, a_side_to_move_that_contradicts_the_moves_is_impossible)
{
    refused("{\"moves\": [\"h8\"], \"to_move\": \"black\"}", 422, "to_move");
    cr_assert(parse("{\"moves\": [\"h8\"], \"to_move\": \"white\"}"), "%s", prob.detail);
}

/* ---- bad requests ---- */

Test(api, malformed_json_is_a_bad_request_about_the_whole_body)
{
    refused("{\"moves\": [\"h8\",}", 400, "");
    refused("{\"moves\": [\"h8\"]} x", 400, "");
    refused("{} {}", 400, "");
    refused("nul", 400, "");
    refused("[\"h8\"]", 400, "");
    refused("\"h8\"", 400, "");
}

Test(api, deeply_nested_json_is_refused_without_a_crash)
{
    size_t depth = 100000;
    char *body = malloc(2 * depth + 1);
    cr_assert_not_null(body);
    memset(body, '[', depth);
    memset(body + depth, ']', depth);
    bool ok = api_parse_analyze(body, 2 * depth, &caps, &req, &prob);
    free(body);
    cr_assert_not(ok);
    cr_assert_eq(prob.status, 400);
}

Test(api, unknown_and_repeated_members_are_refused)
{
    refused("{\"limit\": {\"depth\": 3}}", 400, "limit");
    refused("{\"moves\": [], \"moves\": [\"h8\"]}", 400, "moves");
    refused("{\"Rule\": \"renju\"}", 400, "Rule");
    refused("{\"limits\": {\"depht\": 3}}", 400, "limits.depht");
    refused("{\"limits\": {\"depth\": 3, \"depth\": 4}}", 400, "limits.depth");
}

Test(api, wrong_types_and_bad_enum_values_name_their_member)
{
    refused("{\"rule\": \"gomoku\"}", 400, "rule");
    refused("{\"rule\": 1}", 400, "rule");
    refused("{\"board_size\": \"15\"}", 400, "board_size");
    refused("{\"board_size\": 26}", 400, "board_size");
    refused("{\"board_size\": 4}", 400, "board_size");
    refused("{\"board_size\": 15.5}", 400, "board_size");
    refused("{\"to_move\": \"red\"}", 400, "to_move");
    refused("{\"limits\": [1000]}", 400, "limits");
    refused("{\"id\": 42}", 400, "id");
    refused("{\"id\": null}", 400, "id");
}

Test(api, an_id_too_long_or_not_utf8_is_refused)
{
    char body[API_ID_MAX + 64];
    char id[API_ID_MAX + 2];
    memset(id, 'x', API_ID_MAX);
    id[API_ID_MAX] = 0;
    snprintf(body, sizeof body, "{\"id\": \"%s\"}", id);
    cr_assert(parse(body), "an id of exactly %d bytes is fine: %s", API_ID_MAX, prob.detail);
    cr_assert_eq(strlen(req.id), API_ID_MAX);
    id[API_ID_MAX] = 'x';
    id[API_ID_MAX + 1] = 0;
    snprintf(body, sizeof body, "{\"id\": \"%s\"}", id);
    refused(body, 400, "id");
    refused("{\"id\": \"a\xff\"}", 400, "id");
}

Test(api, limits_must_be_non_negative_integers)
{
    refused("{\"limits\": {\"time_ms\": -1}}", 400, "limits.time_ms");
    refused("{\"limits\": {\"depth\": 2.5}}", 400, "limits.depth");
    refused("{\"limits\": {\"nodes\": \"1000\"}}", 400, "limits.nodes");
    refused("{\"limits\": {\"nodes\": true}}", 400, "limits.nodes");
}

Test(api, multipv_must_be_within_the_server_maximum)
{
    refused("{\"multipv\": 0}", 400, "multipv");
    refused("{\"multipv\": 5}", 400, "multipv");
    refused("{\"multipv\": \"2\"}", 400, "multipv");
    cr_assert(parse("{\"multipv\": 4}"), "%s", prob.detail);
    cr_assert_eq(req.multipv, 4);
}

Test(api, a_quoted_bad_point_is_shortened_to_printable_ascii)
{
    refused("{\"moves\": [\"\\u0001\\u00e9 a very long string that goes on and on and on\"]}", 422, "moves[0]");
    for (const char *c = prob.detail; *c; c++) cr_assert(*c >= 0x20 && *c < 0x7f, "detail: %s", prob.detail);
    cr_assert_lt(strlen(prob.detail), 120);
}

/* ---- limits and caps ---- */

Test(api, a_request_without_limits_gets_the_defaults_capped_by_the_maxima)
{
    cr_assert(parse("{}"), "%s", prob.detail);
    cr_assert_eq(req.time_ms, 1000);
    cr_assert_eq(req.depth, 20, "an open depth is capped by max_depth");
    cr_assert_eq(req.nodes, 1000000, "open nodes are capped by max_nodes");
    cr_assert(parse("{\"limits\": {}}"), "%s", prob.detail);
    cr_assert_eq(req.time_ms, 1000);
}

Test(api, request_limits_above_the_maxima_are_capped)
{
    cr_assert(parse("{\"limits\": {\"time_ms\": 999999, \"depth\": 99, \"nodes\": 1e300}}"), "%s", prob.detail);
    cr_assert_eq(req.time_ms, 5000);
    cr_assert_eq(req.depth, 20);
    cr_assert_eq(req.nodes, 1000000);
}

Test(api, request_limits_below_the_maxima_are_kept_and_open_kinds_get_the_maxima)
{
    cr_assert(parse("{\"limits\": {\"depth\": 4, \"nodes\": 5000}}"), "%s", prob.detail);
    cr_assert_eq(req.depth, 4);
    cr_assert_eq(req.nodes, 5000);
    cr_assert_eq(req.time_ms, 5000, "the time the request left open is the server maximum, not the default");
    Limits l = api_limits(&req);
    cr_assert_eq(l.depth, 4);
    cr_assert_eq(l.nodes, 5000);
    cr_assert_eq(l.time_ms, 5000);
    cr_assert_eq(l.multipv, 1);
    cr_assert_null(l.stop);
    cr_assert_null(l.on_info);
}

Test(api, without_maxima_a_request_limit_stands_alone)
{
    ApiCaps open = {.default_time_ms = 300};
    const char *body = "{\"limits\": {\"depth\": 6}}";
    cr_assert(api_parse_analyze(body, strlen(body), &open, &req, &prob), "%s", prob.detail);
    cr_assert_eq(req.depth, 6);
    cr_assert_eq(req.time_ms, 0);
    cr_assert_eq(req.nodes, 0);
    body = "{\"limits\": {\"depth\": 0}}";
    cr_assert(api_parse_analyze(body, strlen(body), &open, &req, &prob), "%s", prob.detail);
    cr_assert_eq(req.time_ms, 300, "a zero limit is no limit, so the defaults apply");
    cr_assert_eq(req.multipv, 1);
    body = "{\"multipv\": 16}";
    cr_assert(api_parse_analyze(body, strlen(body), &open, &req, &prob), "no max_multipv means the engine's");
    cr_assert_eq(req.multipv, ENGINE_MAX_MULTIPV);
}

/* ---- problems ---- */

Test(api, each_status_gets_its_own_problem_type)
{
    static const struct {
        int status;
        const char *type;
    } cases[] = {
        {400, "https://gomokud.dev/problems/invalid-request"},
        {401, "https://gomokud.dev/problems/unauthorized"},
        {404, "https://gomokud.dev/problems/not-found"},
        {405, "https://gomokud.dev/problems/method-not-allowed"},
        {413, "https://gomokud.dev/problems/payload-too-large"},
        {422, "https://gomokud.dev/problems/impossible-position"},
        {500, "https://gomokud.dev/problems/internal"},
        {503, "https://gomokud.dev/problems/overloaded"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ApiProblem p;
        cr_assert_not(api_problem(&p, cases[i].status, "x", "n=%d", 5));
        cr_assert_eq(p.status, cases[i].status);
        cr_assert_str_eq(p.type, cases[i].type);
        cr_assert_neq(p.title[0], 0);
        cr_assert_str_eq(p.detail, "n=5");
        cr_assert_str_eq(p.field, "x");
    }
    ApiProblem p;
    api_problem(&p, 418, NULL, "teapot");
    cr_assert_str_eq(p.type, "about:blank");
    cr_assert_str_eq(p.field, "");
}

Test(api, problem_json_has_the_rfc9457_members)
{
    ApiProblem p;
    api_problem(&p, 422, "moves[3]", "h8 already holds a \"stone\"");
    char *text = api_problem_json(&p);
    cJSON *j = json_read(text);
    cr_assert_str_eq(member(j, "type")->valuestring, "https://gomokud.dev/problems/impossible-position");
    cr_assert_str_eq(member(j, "title")->valuestring, p.title);
    cr_assert_eq(member(j, "status")->valuedouble, 422);
    cr_assert_str_eq(member(j, "detail")->valuestring, "h8 already holds a \"stone\"");
    cr_assert_str_eq(member(j, "field")->valuestring, "moves[3]");
    cJSON_Delete(j);
    free(text);
}

/* ---- results ---- */

static void fill_result(EngineResult *r)
{
    memset(r, 0, sizeof *r);
    r->side_to_move = BLACK;
    r->best_move = pt("h8", 15);
    r->score = 123;
    r->depth = 7;
    r->seldepth = 11;
    r->nodes = 50000;
    r->time_ms = 20;
    r->complete = true;
    r->npv = 2;
    r->pvs[0].move = pt("h8", 15);
    r->pvs[0].score = 123;
    r->pvs[0].pv_len = 3;
    r->pvs[0].pv[0] = pt("h8", 15);
    r->pvs[0].pv[1] = pt("i9", 15);
    r->pvs[0].pv[2] = pt("j10", 15);
    r->pvs[1].move = pt("g7", 15);
    r->pvs[1].score = -SCORE_MATE + 5;
    r->pvs[1].mate = -3;
    r->pvs[1].pv_len = 1;
    r->pvs[1].pv[0] = pt("g7", 15);
    r->nforbidden = 1;
    r->forbidden[0] = pt("k11", 15);
}

static void expect_moves(const cJSON *arr, const char *const *want, int n)
{
    cr_assert(cJSON_IsArray(arr));
    cr_assert_eq(cJSON_GetArraySize(arr), n);
    for (int i = 0; i < n; i++) cr_assert_str_eq(cJSON_GetArrayItem(arr, i)->valuestring, want[i]);
}

Test(api, result_json_has_every_member_with_moves_in_notation)
{
    cr_assert(parse("{\"id\": \"abc\", \"rule\": \"renju\", \"moves\": [[7, 7], [8, 8]]}"), "%s", prob.detail);
    EngineResult r;
    fill_result(&r);
    char *text = api_result_json(&req, &r);
    cJSON *j = json_read(text);
    cr_assert_str_eq(member(j, "id")->valuestring, "abc");
    cr_assert_str_eq(member(j, "rule")->valuestring, "renju");
    cr_assert_eq(member(j, "board_size")->valuedouble, 15);
    cr_assert_str_eq(member(j, "side_to_move")->valuestring, "black");
    cr_assert_str_eq(member(j, "best_move")->valuestring, "h8");
    cr_assert_eq(member(j, "score")->valuedouble, 123);
    double wr = member(j, "winrate")->valuedouble;
    cr_assert(wr > 0 && wr < 1 && fabs(wr - engine_winrate(RULE_RENJU, BLACK, 123, 0)) < 0.0005 && wr * 1000 == round(wr * 1000),
              "winrate %g: three decimals of the renju curve, black to move", wr);
    cr_assert_gt(fabs(wr - engine_winrate(RULE_FREESTYLE, BLACK, 123, 0)), 0.03, "the rule's own curve");
    cr_assert_gt(fabs(wr - engine_winrate(RULE_RENJU, WHITE, 123, 0)), 0.03, "the side to move's");
    cr_assert(cJSON_IsNull(member(j, "mate")));
    expect_moves(member(j, "pv"), (const char *const[]){"h8", "i9", "j10"}, 3);
    const cJSON *pvs = member(j, "pvs");
    cr_assert_eq(cJSON_GetArraySize(pvs), 2);
    const cJSON *second = cJSON_GetArrayItem(pvs, 1);
    cr_assert_str_eq(member(second, "move")->valuestring, "g7");
    cr_assert_eq(member(second, "score")->valuedouble, -SCORE_MATE + 5);
    cr_assert_eq(member(second, "mate")->valuedouble, -3);
    cr_assert_eq(member(second, "winrate")->valuedouble, 0, "a proven loss");
    expect_moves(member(second, "pv"), (const char *const[]){"g7"}, 1);
    cr_assert(cJSON_IsNull(member(cJSON_GetArrayItem(pvs, 0), "mate")));
    cr_assert_eq(member(j, "depth")->valuedouble, 7);
    cr_assert_eq(member(j, "seldepth")->valuedouble, 11);
    cr_assert_eq(member(j, "nodes")->valuedouble, 50000);
    cr_assert_eq(member(j, "nps")->valuedouble, 2500000);
    cr_assert_eq(member(j, "time_ms")->valuedouble, 20);
    cr_assert(cJSON_IsTrue(member(j, "complete")));
    expect_moves(member(j, "forbidden"), (const char *const[]){"k11"}, 1);
    cr_assert(cJSON_IsNull(member(j, "threat")), "no threat found");
    cJSON_Delete(j);
    free(text);
}

Test(api, result_json_names_the_opponents_threat_and_its_refutations)
{
    cr_assert(parse("{\"rule\": \"freestyle\", \"moves\": [\"h8\", \"a1\", \"i8\", \"a2\", \"j8\"]}"), "%s", prob.detail);
    EngineResult r;
    fill_result(&r);
    const char *line[] = {"g8", "d11", "f8"};
    r.threat_len = 3;
    for (int i = 0; i < 3; i++) r.threat[i] = pt(line[i], 15);
    r.refutations = 2;
    char *text = api_result_json(&req, &r);
    cJSON *j = json_read(text);
    const cJSON *t = member(j, "threat");
    cr_assert_eq(member(t, "mate")->valuedouble, 2, "a win in two of the opponent's moves");
    cr_assert_str_eq(member(t, "kind")->valuestring, "vcf");
    expect_moves(member(t, "pv"), line, 3);
    cr_assert_eq(member(t, "refutations")->valuedouble, 2);
    cJSON_Delete(j);
    free(text);
    r.threat_vct = true;
    text = api_result_json(&req, &r);
    j = json_read(text);
    cr_assert_str_eq(member(member(j, "threat"), "kind")->valuestring, "vct");
    cJSON_Delete(j);
    free(text);
    r.refutations = -1; /* not every move was tried */
    text = api_result_json(&req, &r);
    j = json_read(text);
    cr_assert(cJSON_IsNull(member(member(j, "threat"), "refutations")));
    cJSON_Delete(j);
    free(text);
}

Test(api, result_json_leaves_out_an_absent_id_and_nulls_a_missing_best_move)
{
    cr_assert(parse("{\"board_size\": 9}"), "%s", prob.detail);
    EngineResult r;
    memset(&r, 0, sizeof r);
    r.side_to_move = WHITE;
    r.best_move = MOVE_NONE;
    r.mate = 2;
    char *text = api_result_json(&req, &r);
    cJSON *j = json_read(text);
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(j, "id"));
    cr_assert(cJSON_IsNull(member(j, "best_move")));
    cr_assert_str_eq(member(j, "side_to_move")->valuestring, "white");
    cr_assert_eq(member(j, "mate")->valuedouble, 2);
    cr_assert_eq(member(j, "board_size")->valuedouble, 9);
    cr_assert_eq(cJSON_GetArraySize(member(j, "pv")), 0);
    cr_assert_eq(cJSON_GetArraySize(member(j, "pvs")), 0);
    cr_assert_eq(cJSON_GetArraySize(member(j, "forbidden")), 0);
    cr_assert(cJSON_IsFalse(member(j, "complete")));
    cJSON_Delete(j);
    free(text);
}

Test(api, a_parsed_request_drives_the_engine_to_the_five)
{
    /* black h8-k8 with g8 blocked: only l8 makes five */
    cr_assert(parse("{\"id\": \"five\", \"moves\": [\"h8\", \"g8\", \"i8\", \"a1\", \"j8\", \"a3\", \"k8\", \"o15\"],"
                    " \"limits\": {\"depth\": 3}}"),
              "%s", prob.detail);
    Engine *e = engine_new(&(EngineOptions){.tt_mib = 1});
    cr_assert_not_null(e);
    Limits l = api_limits(&req);
    EngineResult r;
    int index = -1;
    PositionError pe = engine_analyze(e, &req.pos, &l, &r, &index);
    engine_free(e);
    cr_assert_eq(pe, POSITION_OK, "%s", position_error_text(pe));
    char *text = api_result_json(&req, &r);
    cJSON *j = json_read(text);
    cr_assert_str_eq(member(j, "id")->valuestring, "five");
    cr_assert_str_eq(member(j, "best_move")->valuestring, "l8");
    cr_assert_eq(member(j, "mate")->valuedouble, 1);
    cr_assert_str_eq(cJSON_GetArrayItem(member(j, "pv"), 0)->valuestring, "l8");
    cJSON_Delete(j);
    free(text);
}

/* ---- batches ---- */

Test(api, batch_parses_each_slot_on_its_own)
{
    const char *body = "{\"positions\": [{\"moves\": [\"h8\"]}, {\"moves\": [\"h8\", \"h8\"]}, 7, {\"id\": \"c\"}]}";
    ApiBatch b;
    cr_assert(api_parse_batch(body, strlen(body), &caps, 8, &b, &prob), "%s", prob.detail);
    cr_assert_eq(b.n, 4);
    cr_assert(b.ok[0]);
    cr_assert_eq(b.reqs[0].pos.nmoves, 1);
    cr_assert_not(b.ok[1]);
    cr_assert_eq(b.errors[1].status, 422);
    cr_assert_str_eq(b.errors[1].field, "moves[1]");
    cr_assert_not(b.ok[2]);
    cr_assert_eq(b.errors[2].status, 400);
    cr_assert(b.ok[3]);
    cr_assert_str_eq(b.reqs[3].id, "c");

    EngineResult results[4];
    for (int i = 0; i < 4; i++) fill_result(&results[i]);
    char *text = api_batch_json(&b, results);
    api_batch_free(&b);
    cr_assert_null(b.reqs);
    cJSON *j = json_read(text);
    const cJSON *arr = member(j, "results");
    cr_assert_eq(cJSON_GetArraySize(arr), 4);
    cr_assert_str_eq(member(cJSON_GetArrayItem(arr, 0), "best_move")->valuestring, "h8");
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(arr, 0), "id"));
    cr_assert_eq(member(cJSON_GetArrayItem(arr, 1), "status")->valuedouble, 422);
    cr_assert_str_eq(member(cJSON_GetArrayItem(arr, 1), "field")->valuestring, "moves[1]");
    cr_assert_eq(member(cJSON_GetArrayItem(arr, 2), "status")->valuedouble, 400);
    cr_assert_str_eq(member(cJSON_GetArrayItem(arr, 3), "id")->valuestring, "c");
    cJSON_Delete(j);
    free(text);
}

static void batch_refused(const char *body, int max, int status, const char *field)
{
    ApiBatch b;
    memset(&prob, 0, sizeof prob);
    cr_assert_not(api_parse_batch(body, strlen(body), &caps, max, &b, &prob), "accepted: %s", body);
    cr_assert_eq(prob.status, status, "%s: %d (%s)", body, prob.status, prob.detail);
    cr_assert_str_eq(prob.field, field, "%s: field '%s'", body, prob.field);
    cr_assert_eq(b.n, 0);
    cr_assert_null(b.reqs);
}

Test(api, batch_fails_as_a_whole_only_when_it_is_not_a_batch)
{
    batch_refused("", 8, 400, "");
    batch_refused("[{}]", 8, 400, "");
    batch_refused("{\"positions\": [{}], \"x\": 1}", 8, 400, "x");
    batch_refused("{}", 8, 400, "positions");
    batch_refused("{\"positions\": {}}", 8, 400, "positions");
    batch_refused("{\"positions\": []}", 8, 400, "positions");
    batch_refused("{\"positions\": [{}, {}, {}]}", 2, 413, "positions");
    batch_refused("{\"positions\": [{}, {}]", 8, 400, "");
}

/* ---- robustness ---- */

Test(api, mangled_bodies_never_crash_and_always_answer_400_or_422)
{
    const char *base = "{\"id\": \"m\", \"rule\": \"renju\", \"board_size\": 15, \"moves\": [\"h8\", [8, 6], \"j10\"],"
                       " \"limits\": {\"depth\": 3, \"nodes\": 100}, \"multipv\": 2}";
    size_t n = strlen(base);
    char *buf = malloc(n);
    cr_assert_not_null(buf);
    uint32_t seed = 12345;
    int accepted = 0;
    for (int round = 0; round < 3000; round++) {
        memcpy(buf, base, n);
        int edits = 1 + round % 4;
        for (int k = 0; k < edits; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % n;
            seed = seed * 1103515245u + 12345u;
            buf[at] = (char)(seed >> 16);
        }
        seed = seed * 1103515245u + 12345u;
        size_t len = round % 3 ? n : (seed >> 8) % (n + 1);
        if (api_parse_analyze(buf, len, &caps, &req, &prob)) {
            accepted++;
            cr_assert(req.pos.nmoves <= req.pos.size * req.pos.size);
            cr_assert(req.multipv >= 1 && req.multipv <= caps.max_multipv);
        } else {
            cr_assert(prob.status == 400 || prob.status == 422, "status %d for a mangled body", prob.status);
            char *text = api_problem_json(&prob);
            cJSON *j = json_read(text);
            cJSON_Delete(j);
            free(text);
        }
    }
    free(buf);
    cr_assert_lt(accepted, 3000, "most mangled bodies are refused");
}

/* ---- game review ---- */

static ApiReview rv;

static bool parse_review(const char *json, int max_moves)
{
    return api_parse_review(json, strlen(json), &caps, max_moves, &rv, &prob);
}

static void review_refused(const char *json, int max_moves, int status, const char *field)
{
    memset(&prob, 0, sizeof prob);
    cr_assert_not(parse_review(json, max_moves), "accepted: %s", json);
    assert_problem(json, status, field);
}

Test(api, a_review_queues_every_position_of_the_game)
{
    cr_assert(parse_review("{\"id\":\"r1\",\"rule\":\"renju\",\"moves\":[\"h8\",\"h9\",\"i8\"],\"limits\":{\"depth\":3}}", 10),
              "%s", prob.detail);
    cr_assert_eq(rv.n, 3);
    cr_assert_not(rv.terminal);
    cr_assert_eq(rv.positions.n, 4, "the empty board and after each move");
    for (int k = 0; k < 4; k++) {
        cr_assert(rv.positions.ok[k]);
        cr_assert_eq(rv.positions.reqs[k].pos.nmoves, k);
        cr_assert_eq(rv.positions.reqs[k].pos.rule, RULE_RENJU);
        cr_assert_eq(rv.positions.reqs[k].depth, 3);
        cr_assert_eq(rv.positions.reqs[k].multipv, 2, "two lines tell an only move");
    }
    api_review_free(&rv);
    /* a game that ends in a five: the last position is not searched */
    cr_assert(parse_review("{\"moves\":[\"a1\",\"h8\",\"b1\",\"h9\",\"c1\",\"h10\",\"d1\",\"h11\",\"e1\"]}", 10), "%s",
              prob.detail);
    cr_assert(rv.terminal);
    cr_assert_eq(rv.winner, BLACK);
    cr_assert_eq(rv.positions.n, 9);
    api_review_free(&rv);
}

Test(api, a_bad_review_names_its_field)
{
    review_refused("{\"moves\":[]}", 10, 400, "moves");
    review_refused("{}", 10, 400, "moves");
    review_refused("", 10, 400, "moves");
    review_refused("{\"stones\":{\"black\":[\"h8\"]}}", 10, 400, "stones");
    review_refused("{\"moves\":[\"h8\"],\"multipv\":3}", 10, 400, "multipv");
    review_refused("{\"moves\":[\"h8\",\"h8\"]}", 10, 422, "moves[1]");
    review_refused("{\"moves\":[\"h8\",\"i9\",\"j10\"]}", 2, 413, "moves");
    /* a five before the last move: the game was over */
    review_refused("{\"moves\":[\"a1\",\"h8\",\"b1\",\"h9\",\"c1\",\"h10\",\"d1\",\"h11\",\"e1\",\"o15\"]}", 20, 422,
                   "moves[8]");
}

/* A result whose main line is `best` with the score s (mate m), and a
 * second line with score s2 (mate m2). */
static void set_result(EngineResult *r, const char *best, Score s, int m, Score s2, int m2)
{
    memset(r, 0, sizeof *r);
    r->best_move = pt(best, 15);
    r->score = s;
    r->mate = m;
    r->npv = 2;
    r->pvs[0] = (PvLine){.move = r->best_move, .score = s, .mate = m, .pv_len = 1, .pv = {r->best_move}};
    r->pvs[1] = (PvLine){.move = pt("a1", 15), .score = s2, .mate = m2, .pv_len = 1, .pv = {pt("a1", 15)}};
}

static const cJSON *review_move_at(const cJSON *j, int ply)
{
    return cJSON_GetArrayItem(member(j, "moves"), ply - 1);
}

/* White's h9 walks into a proven loss (black mates in 3 after it) from a
 * position where its win rate was w: a blunder from 0.07 on, a mistake from
 * 0.025, else an inaccuracy, however few points it seems to lose; a move
 * from a position already proven lost is judged by its loss alone. */
Test(api, a_review_never_calls_a_move_into_a_proven_loss_good)
{
    const struct {
        double wr; /* white's before h9; 0: proven lost already */
        const char *judgement;
    } cases[] = {{0.15, "blunder"}, {0.05, "mistake"}, {0.01, "inaccuracy"}, {0, "good"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cr_assert(parse_review("{\"moves\":[\"h8\",\"h9\"]}", 10), "%s", prob.detail);
        EngineResult res[3];
        Score s = cases[k].wr > 0 ? (Score)lround(engine_winrate_black(RULE_FREESTYLE) -
                                                  ENGINE_WINRATE_SCALE_FREESTYLE * log((1 - cases[k].wr) / cases[k].wr))
                                  : -SCORE_MATE + 7;
        set_result(&res[0], "h8", 0, 0, -20, 0);
        set_result(&res[1], "g9", s, cases[k].wr > 0 ? 0 : -3, -SCORE_MATE + 5, -2);
        set_result(&res[2], "i8", SCORE_MATE - 5, 3, 0, 0); /* black to move after h9: mate in 3 */
        char *text = api_review_json(&rv, res);
        cJSON *j = json_read(text);
        const cJSON *h9 = review_move_at(j, 2);
        cr_assert_eq(member(h9, "winrate_after")->valuedouble, 0);
        cr_assert(fabs(member(h9, "winrate_loss")->valuedouble - 100 * cases[k].wr) < 0.2, "%g",
                  member(h9, "winrate_loss")->valuedouble);
        cr_assert_str_eq(member(h9, "judgement")->valuestring, cases[k].judgement, "white's win rate %g before",
                         cases[k].wr);
        cJSON_Delete(j);
        free(text);
        api_review_free(&rv);
    }
}

Test(api, a_review_judges_each_move_by_the_win_rate_it_loses)
{
    cr_assert(parse_review("{\"moves\":[\"h8\",\"h9\",\"i8\",\"a2\",\"j8\"]}", 10), "%s", prob.detail);
    EngineResult res[6];
    /* the scores at which black, white to move is even (win rate 0.5) */
    Score even_b = (Score)lround(-engine_winrate_black(RULE_FREESTYLE)), even_w = -even_b, s10 = 0;
    cr_assert_float_eq(engine_winrate(RULE_FREESTYLE, BLACK, even_b, 0), 0.5, 0.002);
    cr_assert_float_eq(engine_winrate(RULE_FREESTYLE, WHITE, even_w, 0), 0.5, 0.002);
    /* find scores with given win-rate drops from 0.5 */
    while (100 * (0.5 - engine_winrate(RULE_FREESTYLE, EMPTY, -s10, 0)) < 12) s10 += 5; /* an inaccuracy: 12 points */
    set_result(&res[0], "h8", even_b, 0, even_b - 50, 0); /* black plays h8, the best */
    set_result(&res[1], "g9", even_w, 0, even_w - 10, 0); /* white plays h9, not g9 ... */
    set_result(&res[2], "i8", even_b + s10, 0, -SCORE_MATE + 9, -4); /* ... black's view after: white lost 12 points; i8 is the only move */
    set_result(&res[3], "a3", SCORE_MATE - 9, 4, 0, 0); /* white to move after i8... (from white's view) a proven win */
    set_result(&res[4], "k9", even_b, 0, 0, 0);          /* after a2 black is even: white threw its win away */
    set_result(&res[5], "k8", SCORE_MATE - 3, 2, 0, 0);  /* after j8 white to move has a win: j8 is a blunder */
    char *text = api_review_json(&rv, res);
    cJSON *j = json_read(text);
    cr_assert_str_eq(member(review_move_at(j, 1), "judgement")->valuestring, "best");
    cr_assert_str_eq(member(review_move_at(j, 2), "judgement")->valuestring, "inaccuracy");
    cr_assert_str_eq(member(review_move_at(j, 2), "best_move")->valuestring, "g9");
    double loss2 = member(review_move_at(j, 2), "winrate_loss")->valuedouble;
    cr_assert(loss2 >= 10 && loss2 < 20, "%g", loss2);
    cr_assert(cJSON_IsTrue(member(review_move_at(j, 3), "only_move")), "every other move loses");
    cr_assert_str_eq(member(review_move_at(j, 3), "judgement")->valuestring, "best");
    cr_assert_eq(member(review_move_at(j, 4), "winrate_before")->valuedouble, 1);
    cr_assert(cJSON_IsTrue(member(review_move_at(j, 4), "missed_win")));
    cr_assert_str_eq(member(review_move_at(j, 4), "judgement")->valuestring, "blunder");
    cr_assert_str_eq(member(review_move_at(j, 5), "judgement")->valuestring, "blunder");
    cr_assert_eq(member(review_move_at(j, 5), "winrate_after")->valuedouble, 0);
    /* sides: black made 3 moves (best, best, blunder), white 2 (inaccuracy, blunder with a missed win) */
    const cJSON *black = member(member(j, "sides"), "black"), *white = member(member(j, "sides"), "white");
    cr_assert_eq(member(black, "moves")->valuedouble, 3);
    cr_assert_eq(member(black, "best")->valuedouble, 2);
    cr_assert_eq(member(black, "blunder")->valuedouble, 1);
    cr_assert_eq(member(white, "inaccuracy")->valuedouble, 1);
    cr_assert_eq(member(white, "missed_win")->valuedouble, 1);
    double mean = member(white, "mean_winrate_loss")->valuedouble;
    double want = 103.1668 * exp(-0.04354 * mean) - 3.1669;
    cr_assert(fabs(member(white, "accuracy")->valuedouble - want) < 0.2, "accuracy by Lichess's curve");
    double bmean = member(black, "mean_winrate_loss")->valuedouble;
    cr_assert(fabs(member(black, "accuracy")->valuedouble - (103.1668 * exp(-0.04354 * bmean) - 3.1669)) < 0.2);
    cr_assert_gt(bmean, 0);
    /* critical moments: the largest losses first */
    const cJSON *crit = member(j, "critical");
    cr_assert_eq(cJSON_GetArraySize(crit), 3);
    /* i8 lost all (its alternatives lost sooner), then a2 and j8 lost 50 points each: earlier first */
    cr_assert_eq(cJSON_GetArrayItem(crit, 0)->valuedouble, 3);
    cr_assert_eq(cJSON_GetArrayItem(crit, 1)->valuedouble, 4);
    cr_assert_eq(cJSON_GetArrayItem(crit, 2)->valuedouble, 5, "the inaccuracy (12 points) is not among the three");
    cJSON_Delete(j);
    free(text);
    api_review_free(&rv);
}

/* ---- play a move at a level ---- */

static ApiMove mv;

static bool parse_move(const char *json) { return api_parse_move(json, strlen(json), &caps, &mv, &prob); }

static void move_refused(const char *json, int status, const char *field)
{
    memset(&prob, 0, sizeof prob);
    cr_assert_not(parse_move(json), "accepted: %s", json);
    assert_problem(json, status, field);
}

Test(api, a_move_request_takes_the_position_a_level_and_a_seed)
{
    cr_assert(parse_move("{\"id\":\"m1\",\"rule\":\"renju\",\"moves\":[\"h8\",\"h9\"],\"level\":3,\"seed\":77}"), "%s",
              prob.detail);
    cr_assert_str_eq(mv.req.id, "m1");
    cr_assert_eq(mv.req.pos.rule, RULE_RENJU);
    cr_assert_eq(mv.req.pos.nmoves, 2);
    cr_assert_eq(mv.level, level_get(3));
    cr_assert_eq(mv.seed, 77);
    cr_assert_eq(mv.req.nodes, level_get(3)->nodes, "the level's node cap");
    cr_assert_eq(mv.req.multipv, caps.max_multipv, "the level's lines, capped by max_multipv");
    cr_assert_eq(mv.req.time_ms, caps.max_time_ms, "only the server's maximum bounds the time");
    /* by name, and a diagram */
    cr_assert(parse_move("{\"stones\":{\"black\":[\"h8\"],\"white\":[]},\"to_move\":\"white\",\"level\":\"master\"}"),
              "%s", prob.detail);
    cr_assert_eq(mv.level, level_get(9));
    cr_assert_eq(mv.seed, 0, "seed defaults to 0");
    /* the largest seed a JSON number holds exactly */
    cr_assert(parse_move("{\"seed\":9007199254740991}"), "%s", prob.detail);
    cr_assert_eq(mv.seed, 9007199254740991ull);
}

Test(api, a_move_request_without_a_level_plays_at_full_strength_with_the_default_limits)
{
    cr_assert(parse_move("{}"), "%s", prob.detail);
    cr_assert_eq(mv.level, level_get(LEVEL_MAX));
    cr_assert_eq(mv.req.pos.nmoves, 0, "{} is the empty board");
    cr_assert_eq(mv.req.multipv, 1);
    cr_assert_eq(mv.req.time_ms, caps.default_time_ms, "as an analysis without limits");
    cr_assert_eq(mv.req.nodes, caps.max_nodes);
}

Test(api, a_bad_move_request_names_its_field)
{
    move_refused("{\"moves\":[\"h8\"],\"level\":0}", 400, "level");
    move_refused("{\"moves\":[\"h8\"],\"level\":11}", 400, "level");
    move_refused("{\"moves\":[\"h8\"],\"level\":2.5}", 400, "level");
    move_refused("{\"moves\":[\"h8\"],\"level\":\"wizard\"}", 400, "level");
    move_refused("{\"moves\":[\"h8\"],\"level\":null}", 400, "level");
    move_refused("{\"level\":2,\"level\":3}", 400, "level");
    move_refused("{\"moves\":[\"h8\"],\"seed\":-1}", 400, "seed");
    move_refused("{\"moves\":[\"h8\"],\"seed\":\"7\"}", 400, "seed");
    move_refused("{\"moves\":[\"h8\"],\"seed\":9007199254740992}", 400, "seed");
    move_refused("{\"moves\":[\"h8\"],\"limits\":{\"nodes\":5}}", 400, "limits");
    move_refused("{\"moves\":[\"h8\"],\"multipv\":2}", 400, "multipv");
    move_refused("{\"moves\":[\"h8\"],\"levle\":2}", 400, "levle");
    move_refused("{\"moves\":[\"h8\",\"h8\"],\"level\":2}", 422, "moves[1]");
    move_refused("", 400, "");
    move_refused("[1]", 400, "");
    move_refused("{\"moves\":", 400, "");
}

Test(api, move_json_reports_the_chosen_line_its_level_and_the_candidates)
{
    cr_assert(parse_move("{\"id\":\"m2\",\"moves\":[\"h8\"],\"level\":1,\"seed\":5}"), "%s", prob.detail);
    EngineResult r;
    memset(&r, 0, sizeof r);
    r.side_to_move = WHITE;
    r.npv = 3;
    const char *mvs[] = {"g9", "i9", "h10"};
    Score sc[] = {40, 20, -30};
    for (int i = 0; i < 3; i++) {
        Move m = pt(mvs[i], 15);
        r.pvs[i] = (PvLine){.move = m, .score = sc[i], .pv_len = 1, .pv = {m}};
    }
    r.best_move = r.pvs[0].move;
    r.score = 40;
    r.depth = 2;
    r.nodes = 1234;
    r.time_ms = 5;
    LevelChoice c;
    int k = level_choose(&r, mv.level, level_position_seed(&mv.req.pos, mv.seed), &c);
    char *text = api_move_json(&mv, &r);
    cJSON *j = json_read(text);
    cr_assert_str_eq(member(j, "id")->valuestring, "m2");
    cr_assert_str_eq(member(j, "side_to_move")->valuestring, "white");
    cr_assert_str_eq(member(j, "move")->valuestring, mvs[k], "the level's choice");
    cr_assert_str_eq(member(j, "best_move")->valuestring, "g9");
    cr_assert_eq(member(j, "level")->valuedouble, 1);
    cr_assert_str_eq(member(j, "level_name")->valuestring, level_get(1)->name);
    cr_assert_eq(member(j, "seed")->valuedouble, 5);
    cr_assert_eq(member(j, "score")->valuedouble, sc[k]);
    cr_assert(fabs(member(j, "winrate")->valuedouble - engine_winrate(mv.req.pos.rule, WHITE, sc[k], 0)) < 0.0006);
    cr_assert(cJSON_IsNull(member(j, "mate")));
    const cJSON *cands = member(j, "candidates");
    cr_assert_eq(cJSON_GetArraySize(cands), 3);
    double sum = 0;
    for (int i = 0; i < 3; i++) {
        const cJSON *o = cJSON_GetArrayItem(cands, i);
        cr_assert_str_eq(member(o, "move")->valuestring, mvs[i]);
        cr_assert_eq(member(o, "score")->valuedouble, sc[i]);
        cr_assert(fabs(member(o, "winrate")->valuedouble - engine_winrate(mv.req.pos.rule, WHITE, sc[i], 0)) < 0.0006);
        member(o, "mate");
        sum += member(o, "probability")->valuedouble;
    }
    cr_assert(fabs(sum - 1) < 0.002, "probabilities sum to 1: %g", sum);
    cr_assert_eq(member(j, "nodes")->valuedouble, 1234);
    cr_assert_eq(member(j, "time_ms")->valuedouble, 5);
    cr_assert_eq(member(j, "depth")->valuedouble, 2);
    cJSON_Delete(j);
    free(text);
}

Test(api, levels_json_lists_every_level_with_its_elo)
{
    char *text = api_levels_json();
    cJSON *j = json_read(text);
    cr_assert_eq(cJSON_GetArraySize(j), LEVEL_COUNT);
    for (int n = LEVEL_MIN; n <= LEVEL_MAX; n++) {
        const cJSON *o = cJSON_GetArrayItem(j, n - 1);
        const Level *lv = level_get(n);
        cr_assert_eq(member(o, "level")->valuedouble, n);
        cr_assert_str_eq(member(o, "name")->valuestring, lv->name);
        cr_assert_eq(member(o, "elo")->valuedouble, lv->elo);
        if (lv->nodes) cr_assert_eq(member(o, "nodes")->valuedouble, (double)lv->nodes);
        else cr_assert(cJSON_IsNull(member(o, "nodes")), "full strength has no node cap");
    }
    cJSON_Delete(j);
    free(text);
}
