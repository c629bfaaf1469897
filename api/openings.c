/*
 * openings.c - the openings and swap2 tasks of the HTTP API (see api.h):
 * their searches on a worker's engine and their answers as JSON; and the
 * renju opening of a position for analyze and review answers.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/internal.h"
#include "engine/board.h"
#include "engine/rules.h"
#include "engine/swap2.h"

struct ApiTask {
    ApiTaskKind kind;
    ApiOpenings op;
    ApiSwap2 sw;
    /* results */
    bool ran;
    BalancedOpening *found;
    int nfound;
    OpeningGenStats stats;
    Swap2Decision dec;
    PositionError pe;
    int pe_index;
};

ApiTask *api_task_parse(ApiTaskKind kind, const char *body, size_t len, const ApiCaps *caps, ApiProblem *err)
{
    ApiTask *t = calloc(1, sizeof *t);
    if (!t) {
        api_problem(err, 500, "", "out of memory");
        return NULL;
    }
    t->kind = kind;
    bool ok = kind == API_TASK_OPENINGS ? api_parse_openings(body, len, caps, &t->op, err)
                                        : api_parse_swap2(body, len, caps, &t->sw, err);
    if (ok && kind == API_TASK_OPENINGS && !(t->found = calloc((size_t)t->op.count, sizeof *t->found)))
        ok = api_problem(err, 500, "", "out of memory");
    if (!ok) {
        api_task_free(t);
        return NULL;
    }
    return t;
}

void api_task_free(ApiTask *t)
{
    if (!t) return;
    free(t->found);
    free(t);
}

uint64_t api_task_run(ApiTask *t, Engine *e, const atomic_bool *stop)
{
    t->ran = true;
    if (t->kind == API_TASK_OPENINGS) {
        const ApiOpenings *o = &t->op;
        OpeningGenParams p = {.rule = o->rule, .size = o->size, .min_stones = o->stones, .max_stones = o->stones,
                              .seed = o->seed, .depth = o->depth, .max_tries = o->count * API_OPENINGS_TRIES_PER_OPENING,
                              .max_nodes = o->nodes, .stop = stop};
        t->nfound = opening_balanced(e, &p, t->found, o->count, &t->stats);
        return (uint64_t)t->stats.nodes;
    }
    Limits l = api_limits(&t->sw.req);
    l.stop = stop;
    const Position *pos = &t->sw.req.pos;
    t->pe_index = -1;
    t->pe = swap2_decide(e, pos->rule, pos->size, pos->moves, pos->nmoves, &l, t->sw.seed, &t->dec, &t->pe_index);
    return t->dec.nodes;
}

/* ---- JSON ------------------------------------------------------------- */


const RenjuOpening *api_position_opening(const Position *pos)
{
    if (pos->ordered)
        return pos->nmoves >= 3 ? opening_renju_identify(pos->size, pos->moves[0], pos->moves[1], pos->moves[2])
                                : NULL;
    if (pos->nmoves != 3) return NULL; /* a diagram: interleaved black, white, black */
    const RenjuOpening *o = opening_renju_identify(pos->size, pos->moves[0], pos->moves[1], pos->moves[2]);
    return o ? o : opening_renju_identify(pos->size, pos->moves[2], pos->moves[1], pos->moves[0]);
}

/* {"name", "kanji", "kind": "direct" | "indirect", "code": "4D"}, or null. */
cJSON *api_opening_value(const RenjuOpening *o);
cJSON *api_opening_value(const RenjuOpening *o)
{
    if (!o) return cJSON_CreateNull();
    char code[8];
    snprintf(code, sizeof code, "%d%c", o->number, o->direct ? 'D' : 'I');
    cJSON *v = cJSON_CreateObject();
    if (api_json_put(v, "name", cJSON_CreateString(o->name)) && api_json_put(v, "kanji", cJSON_CreateString(o->kanji)) &&
        api_json_put(v, "kind", cJSON_CreateString(o->direct ? "direct" : "indirect")) &&
        api_json_put(v, "code", cJSON_CreateString(code)))
        return v;
    cJSON_Delete(v);
    return NULL;
}

static char *print_and_free(cJSON *o)
{
    char *s = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return s;
}

static cJSON *openings_json(const ApiTask *t)
{
    const ApiOpenings *q = &t->op;
    cJSON *o = cJSON_CreateObject(), *bal = cJSON_CreateObject();
    bool ok = o && bal;
    if (ok && q->has_id) ok = api_json_put(o, "id", cJSON_CreateString(q->id));
    ok = ok && api_json_put(bal, "score", cJSON_CreateNumber(OPENING_BALANCE)) &&
         api_json_put(bal, "winrate", api_json_rounded(engine_winrate(q->rule, EMPTY, OPENING_BALANCE, 0) - 0.5, 1000)) &&
         api_json_put(bal, "depth", cJSON_CreateNumber(q->depth));
    if (ok) ok = api_json_put(o, "balance", bal);
    else cJSON_Delete(bal);
    ok = ok && api_json_put(o, "rule", cJSON_CreateString(rule_name(q->rule))) &&
         api_json_put(o, "board_size", cJSON_CreateNumber(q->size)) && api_json_put(o, "stones", cJSON_CreateNumber(q->stones)) &&
         api_json_put(o, "count", cJSON_CreateNumber(q->count)) && api_json_put(o, "seed", cJSON_CreateNumber((double)q->seed));
    cJSON *arr = ok ? cJSON_AddArrayToObject(o, "openings") : NULL;
    ok = ok && arr;
    for (int i = 0; ok && i < t->nfound; i++) {
        const BalancedOpening *b = &t->found[i];
        Position p = {.rule = q->rule, .size = q->size, .ordered = true, .nmoves = b->n};
        memcpy(p.moves, b->moves, sizeof(Move) * (size_t)b->n);
        cJSON *it = cJSON_CreateObject();
        ok = api_json_put(it, "moves", api_json_moves(b->moves, b->n, q->size)) &&
             api_json_put(it, "to_move", cJSON_CreateString(b->to_move == WHITE ? "white" : "black")) &&
             api_json_put(it, "score", cJSON_CreateNumber(b->score)) &&
             api_json_put(it, "winrate", api_json_rounded(engine_winrate(q->rule, b->to_move, b->score, 0), 1000)) &&
             api_json_put(it, "opening", api_opening_value(api_position_opening(&p)));
        if (ok) ok = cJSON_AddItemToArray(arr, it);
        else cJSON_Delete(it);
    }
    ok = ok && api_json_put(o, "tries", cJSON_CreateNumber(t->stats.tries)) &&
         api_json_put(o, "nodes", cJSON_CreateNumber((double)t->stats.nodes)) &&
         api_json_put(o, "node_budget", cJSON_CreateNumber((double)q->nodes)) &&
         api_json_put(o, "complete", cJSON_CreateBool(t->stats.complete));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *option(const char *choice, double winrate, Score score, int mate, const Move *moves, int n, int size)
{
    cJSON *o = cJSON_CreateObject();
    if (api_json_put(o, "choice", cJSON_CreateString(choice)) && api_json_put(o, "winrate", api_json_rounded(winrate, 1000)) &&
        api_json_put(o, "score", cJSON_CreateNumber(score)) && api_json_put(o, "mate", api_json_mate(mate)) &&
        api_json_put(o, "moves", api_json_moves(moves, n, size)))
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *swap2_json(const ApiTask *t)
{
    const ApiRequest *q = &t->sw.req;
    const Swap2Decision *d = &t->dec;
    int size = q->pos.size, n = q->pos.nmoves;
    char reason[400];
    double v = d->white_winrate;
    cJSON *o = cJSON_CreateObject();
    bool ok = o != NULL;
    if (ok && q->has_id) ok = api_json_put(o, "id", cJSON_CreateString(q->id));
    ok = ok && api_json_put(o, "rule", cJSON_CreateString(rule_name(q->pos.rule))) &&
         api_json_put(o, "board_size", cJSON_CreateNumber(size)) && api_json_put(o, "stones", cJSON_CreateNumber(n)) &&
         api_json_put(o, "choice", cJSON_CreateString(swap2_choice_name(d->choice))) &&
         api_json_put(o, "moves", api_json_moves(d->moves, d->nmoves, size));
    cJSON *opts = ok ? cJSON_AddArrayToObject(o, "options") : NULL;
    ok = ok && opts;
    /* the options weighed, each with the chooser's win rate and score */
    if (n == 0) {
        ok = ok && cJSON_AddItemToArray(opts, option("place3", 0.5 + fabs(v - 0.5), d->white_score, d->white_mate,
                                                     d->moves, 3, size));
        if (d->place3_nearest)
            snprintf(reason, sizeof reason,
                     "the limits ran out before the balanced-opening generator found three stones within %d of even "
                     "at depth %d: the nearest of its %d tries (score %d); white to move then scores %d (win rate "
                     "%.3f by this search)",
                     OPENING_BALANCE, d->place3_depth, d->place3_tries, (int)d->place3_score, (int)d->white_score, v);
        else
            snprintf(reason, sizeof reason,
                     "three stones kept by the balanced-opening generator (score within %d of even at depth %d, %d "
                     "tries); white to move then scores %d (win rate %.3f by this search)",
                     OPENING_BALANCE, d->place3_depth, d->place3_tries, (int)d->white_score, v);
    } else {
        Move wm = d->white_best;
        ok = ok && cJSON_AddItemToArray(opts, option("white", v, d->white_score, d->white_mate, &wm, wm != MOVE_NONE, size)) &&
             cJSON_AddItemToArray(opts, option("black", 1 - v, -d->white_score, -d->white_mate, NULL, 0, size));
        if (ok && d->place2_found) {
            double w = d->place2_winrate; /* white's after the five stones; the opponent takes the better colour */
            ok = cJSON_AddItemToArray(opts, option("place2", w < 0.5 ? w : 1 - w, d->place2_score, d->place2_mate,
                                                   d->place2, 2, size));
        }
        if (n == 5)
            snprintf(reason, sizeof reason, "white to move wins %.3f by the search: %s", v,
                     d->choice == SWAP2_WHITE ? "white is at least even, so play white" : "black is better, so swap");
        else if (d->choice == SWAP2_PLACE2)
            snprintf(reason, sizeof reason,
                     "neither colour has a clear edge (white %.3f, within %.2f of even), and two more stones keep "
                     "white at %.3f: the opponent's choice of colour is a guess",
                     v, SWAP2_EDGE, d->place2_winrate);
        else if (d->place2_weighed)
            snprintf(reason, sizeof reason,
                     "no clear edge (white %.3f), but no two stones found keep the game within %.2f of even: "
                     "take the better colour, %s",
                     v, SWAP2_EDGE, d->choice == SWAP2_WHITE ? "white" : "black");
        else
            snprintf(reason, sizeof reason, "%s has a clear edge: white to move wins %.3f (margin %.2f)",
                     d->choice == SWAP2_WHITE ? "white" : "black", v, SWAP2_EDGE);
    }
    ok = ok && api_json_put(o, "reason", cJSON_CreateString(reason)) && api_json_put(o, "depth", cJSON_CreateNumber(d->depth)) &&
         api_json_put(o, "nodes", cJSON_CreateNumber((double)d->nodes)) && api_json_put(o, "complete", cJSON_CreateBool(d->complete));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

char *api_task_json(const ApiTask *t, int *status)
{
    *status = 200;
    if (t->kind == API_TASK_SWAP2 && t->pe != POSITION_OK) {
        ApiProblem p;
        if (t->pe == POSITION_FULL && t->sw.req.pos.nmoves == 0)
            api_problem(&p, 422, "limits.nodes", "not one try for three stones finished within half of limits.nodes; "
                        "allow more nodes");
        else
            api_problem(&p, 500, "", "internal error: the engine refused a position the request checks accepted (%s)",
                        position_error_text(t->pe));
        *status = p.status;
        return api_problem_json(&p);
    }
    return print_and_free(t->kind == API_TASK_OPENINGS ? openings_json(t) : swap2_json(t));
}
