/*
 * response.c - EngineResult and ApiProblem -> JSON text.
 *
 * Objects are built as cJSON trees and printed unformatted. Every builder
 * returns NULL when memory runs out and frees whatever it had built, so the
 * public functions either return a whole document or NULL.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <math.h>

#include "api/api.h"
#include "engine/board.h"
#include "engine/rules.h"

/* Adds item under a literal name; deletes it and fails when item is NULL or
 * obj is NULL. */
static bool put(cJSON *obj, const char *name, cJSON *item)
{
    if (!obj || !item) {
        cJSON_Delete(item);
        return false;
    }
    return cJSON_AddItemToObjectCS(obj, name, item);
}

static bool push(cJSON *arr, cJSON *item)
{
    if (!arr || !item) {
        cJSON_Delete(item);
        return false;
    }
    return cJSON_AddItemToArray(arr, item);
}

/* A move in notation, or null for MOVE_NONE. */
static cJSON *move_value(Move m, int size)
{
    char buf[8];
    if (m == MOVE_NONE) return cJSON_CreateNull();
    return cJSON_CreateString(move_to_notation(m, size, buf));
}

static cJSON *move_array(const Move *moves, int n, int size)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < n; i++) {
        if (!push(arr, move_value(moves[i], size))) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

static cJSON *mate_value(int mate) { return mate ? cJSON_CreateNumber(mate) : cJSON_CreateNull(); }

/* Three decimals, as a number. */
static cJSON *winrate_value(Score score, int mate)
{
    return cJSON_CreateNumber(round(engine_winrate(score, mate) * 1000) / 1000);
}

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static cJSON *pv_object(const PvLine *line, int size)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = put(o, "move", move_value(line->move, size)) && put(o, "score", cJSON_CreateNumber(line->score)) &&
              put(o, "winrate", winrate_value(line->score, line->mate)) && put(o, "mate", mate_value(line->mate)) &&
              put(o, "pv", move_array(line->pv, clamp(line->pv_len, 0, ENGINE_MAX_PV), size));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *result_object(const ApiRequest *req, const EngineResult *res)
{
    int size = req->pos.size;
    int npv = clamp(res->npv, 0, ENGINE_MAX_MULTIPV);
    Color side = res->side_to_move == BLACK || res->side_to_move == WHITE ? res->side_to_move : req->to_move;
    int64_t nps = (int64_t)(res->nodes * 1000 / (uint64_t)(res->time_ms > 0 ? res->time_ms : 1));
    cJSON *o = cJSON_CreateObject();
    cJSON *pvs = cJSON_CreateArray();
    bool ok = o && pvs;
    if (ok && req->has_id) ok = put(o, "id", cJSON_CreateString(req->id));
    ok = ok && put(o, "rule", cJSON_CreateString(rule_name(req->pos.rule))) &&
         put(o, "board_size", cJSON_CreateNumber(size)) &&
         put(o, "side_to_move", cJSON_CreateString(side == WHITE ? "white" : "black")) &&
         put(o, "best_move", move_value(res->best_move, size)) && put(o, "score", cJSON_CreateNumber(res->score)) &&
         put(o, "winrate", winrate_value(res->score, res->mate)) && put(o, "mate", mate_value(res->mate)) &&
         put(o, "pv", npv ? move_array(res->pvs[0].pv, clamp(res->pvs[0].pv_len, 0, ENGINE_MAX_PV), size)
                          : cJSON_CreateArray());
    for (int i = 0; ok && i < npv; i++) ok = push(pvs, pv_object(&res->pvs[i], size));
    if (ok) {
        ok = put(o, "pvs", pvs);
        pvs = NULL; /* owned by o now, or freed by put */
    }
    ok = ok && put(o, "depth", cJSON_CreateNumber(res->depth)) &&
         put(o, "seldepth", cJSON_CreateNumber(res->seldepth)) &&
         put(o, "nodes", cJSON_CreateNumber((double)res->nodes)) && put(o, "nps", cJSON_CreateNumber((double)nps)) &&
         put(o, "time_ms", cJSON_CreateNumber((double)res->time_ms)) &&
         put(o, "complete", cJSON_CreateBool(res->complete)) &&
         put(o, "forbidden", move_array(res->forbidden, clamp(res->nforbidden, 0, BOARD_MAX_MOVES), size));
    cJSON_Delete(pvs);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *problem_object(const ApiProblem *p)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = put(o, "type", cJSON_CreateString(p->type ? p->type : "about:blank")) &&
              put(o, "title", cJSON_CreateString(p->title ? p->title : "Error")) &&
              put(o, "status", cJSON_CreateNumber(p->status)) && put(o, "detail", cJSON_CreateString(p->detail)) &&
              put(o, "field", cJSON_CreateString(p->field));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Prints and deletes o; NULL when o is NULL or printing fails. */
static char *print_and_free(cJSON *o)
{
    char *s = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return s;
}

char *api_result_json(const ApiRequest *req, const EngineResult *res)
{
    if (!req || !res) return NULL;
    return print_and_free(result_object(req, res));
}

char *api_problem_json(const ApiProblem *p)
{
    if (!p) return NULL;
    return print_and_free(problem_object(p));
}

char *api_batch_json(const ApiBatch *b, const EngineResult *results)
{
    if (!b) return NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = cJSON_CreateArray();
    bool ok = o && arr;
    for (int i = 0; ok && i < b->n; i++) {
        if (b->ok[i] && results) {
            ok = push(arr, result_object(&b->reqs[i], &results[i]));
        } else if (b->ok[i]) {
            ApiProblem p;
            api_problem(&p, 500, "", "no result for this position");
            ok = push(arr, problem_object(&p));
        } else {
            ok = push(arr, problem_object(&b->errors[i]));
        }
    }
    if (ok) {
        ok = put(o, "results", arr);
        arr = NULL;
    }
    cJSON_Delete(arr);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return print_and_free(o);
}
