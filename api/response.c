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
#include "api/internal.h"
#include "engine/board.h"
#include "engine/rules.h"

/* Adds item under a literal name; deletes it and fails when item is NULL or
 * obj is NULL. */
bool api_json_put(cJSON *obj, const char *name, cJSON *item)
{
    if (!obj || !item) {
        cJSON_Delete(item);
        return false;
    }
    return cJSON_AddItemToObjectCS(obj, name, item);
}

bool api_json_push(cJSON *arr, cJSON *item)
{
    if (!arr || !item) {
        cJSON_Delete(item);
        return false;
    }
    return cJSON_AddItemToArray(arr, item);
}

/* A move in notation, or null for MOVE_NONE. */
cJSON *api_json_move(Move m, int size)
{
    char buf[8];
    if (m == MOVE_NONE) return cJSON_CreateNull();
    return cJSON_CreateString(move_to_notation(m, size, buf));
}

cJSON *api_json_moves(const Move *moves, int n, int size)
{
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; arr && i < n; i++) {
        if (!api_json_push(arr, api_json_move(moves[i], size))) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

cJSON *api_json_mate(int mate) { return mate ? cJSON_CreateNumber(mate) : cJSON_CreateNull(); }

/* v rounded to 1/per_unit (per_unit 1000: three decimals), as a number. */
cJSON *api_json_rounded(double v, double per_unit) { return cJSON_CreateNumber(round(v * per_unit) / per_unit); }

static cJSON *winrate_value(Rule rule, Color side, Score score, int mate)
{
    return api_json_rounded(engine_winrate(rule, side, score, mate), 1000);
}

/* The side to move of an answer: the engine's, else the request's. */
static Color side_of(const ApiRequest *req, const EngineResult *res)
{
    return res->side_to_move == BLACK || res->side_to_move == WHITE ? res->side_to_move : req->to_move;
}

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static cJSON *pv_object(const PvLine *line, Rule rule, Color side, int size)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = api_json_put(o, "move", api_json_move(line->move, size)) && api_json_put(o, "score", cJSON_CreateNumber(line->score)) &&
              api_json_put(o, "winrate", winrate_value(rule, side, line->score, line->mate)) && api_json_put(o, "mate", api_json_mate(line->mate)) &&
              api_json_put(o, "pv", api_json_moves(line->pv, clamp(line->pv_len, 0, ENGINE_MAX_PV), size));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The opponent's forced win the root found, or null. */
static cJSON *threat_value(const EngineResult *res, int size)
{
    int n = clamp(res->threat_len, 0, ENGINE_MAX_PV);
    if (n == 0) return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    bool ok = api_json_put(o, "kind", cJSON_CreateString(res->threat_vct ? "vct" : "vcf")) &&
              api_json_put(o, "mate", cJSON_CreateNumber((n + 1) / 2)) &&
              api_json_put(o, "pv", api_json_moves(res->threat, n, size)) &&
              api_json_put(o, "refutations",
                           res->refutations >= 0 ? cJSON_CreateNumber(res->refutations) : cJSON_CreateNull());
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* api/openings.c: a renju opening as JSON, null for none. */
cJSON *api_opening_value(const RenjuOpening *o);

static cJSON *result_object(const ApiRequest *req, const EngineResult *res)
{
    int size = req->pos.size;
    int npv = clamp(res->npv, 0, ENGINE_MAX_MULTIPV);
    Color side = side_of(req, res);
    int64_t nps = (int64_t)(res->nodes * 1000 / (uint64_t)(res->time_ms > 0 ? res->time_ms : 1));
    cJSON *o = cJSON_CreateObject();
    cJSON *pvs = cJSON_CreateArray();
    bool ok = o && pvs;
    if (ok && req->has_id) ok = api_json_put(o, "id", cJSON_CreateString(req->id));
    ok = ok && api_json_put(o, "rule", cJSON_CreateString(rule_name(req->pos.rule))) &&
         api_json_put(o, "board_size", cJSON_CreateNumber(size)) &&
         api_json_put(o, "side_to_move", cJSON_CreateString(side == WHITE ? "white" : "black")) &&
         api_json_put(o, "best_move", api_json_move(res->best_move, size)) && api_json_put(o, "score", cJSON_CreateNumber(res->score)) &&
         api_json_put(o, "winrate", winrate_value(req->pos.rule, side, res->score, res->mate)) && api_json_put(o, "mate", api_json_mate(res->mate)) &&
         api_json_put(o, "pv", npv ? api_json_moves(res->pvs[0].pv, clamp(res->pvs[0].pv_len, 0, ENGINE_MAX_PV), size)
                          : cJSON_CreateArray());
    for (int i = 0; ok && i < npv; i++) ok = api_json_push(pvs, pv_object(&res->pvs[i], req->pos.rule, side, size));
    if (ok) {
        ok = api_json_put(o, "pvs", pvs);
        pvs = NULL; /* owned by o now, or freed by put */
    }
    ok = ok && api_json_put(o, "depth", cJSON_CreateNumber(res->depth)) &&
         api_json_put(o, "seldepth", cJSON_CreateNumber(res->seldepth)) &&
         api_json_put(o, "nodes", cJSON_CreateNumber((double)res->nodes)) && api_json_put(o, "nps", cJSON_CreateNumber((double)nps)) &&
         api_json_put(o, "time_ms", cJSON_CreateNumber((double)res->time_ms)) &&
         api_json_put(o, "complete", cJSON_CreateBool(res->complete)) &&
         api_json_put(o, "forbidden", api_json_moves(res->forbidden, clamp(res->nforbidden, 0, BOARD_MAX_MOVES), size)) &&
         api_json_put(o, "opening", api_opening_value(api_position_opening(&req->pos))) &&
         api_json_put(o, "threat", threat_value(res, size)) &&
         api_json_put(o, "source", cJSON_CreateString(res->from_book ? "book" : res->from_proof ? "proof" : "search"));
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
    bool ok = api_json_put(o, "type", cJSON_CreateString(p->type ? p->type : "about:blank")) &&
              api_json_put(o, "title", cJSON_CreateString(p->title ? p->title : "Error")) &&
              api_json_put(o, "status", cJSON_CreateNumber(p->status)) && api_json_put(o, "detail", cJSON_CreateString(p->detail)) &&
              api_json_put(o, "field", cJSON_CreateString(p->field));
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

char *api_progress_json(const ApiRequest *req, const EngineResult *res)
{
    if (!req || !res) return NULL;
    int size = req->pos.size;
    int npv = clamp(res->npv, 0, ENGINE_MAX_MULTIPV);
    Color side = side_of(req, res);
    cJSON *o = cJSON_CreateObject();
    bool ok = api_json_put(o, "depth", cJSON_CreateNumber(res->depth)) &&
              api_json_put(o, "seldepth", cJSON_CreateNumber(res->seldepth)) &&
              api_json_put(o, "best_move", api_json_move(res->best_move, size)) &&
              api_json_put(o, "score", cJSON_CreateNumber(res->score)) &&
              api_json_put(o, "winrate", winrate_value(req->pos.rule, side, res->score, res->mate)) && api_json_put(o, "mate", api_json_mate(res->mate)) &&
              api_json_put(o, "pv", npv ? api_json_moves(res->pvs[0].pv, clamp(res->pvs[0].pv_len, 0, ENGINE_MAX_PV), size)
                               : cJSON_CreateArray());
    if (ok && npv > 1) {
        cJSON *pvs = cJSON_CreateArray();
        for (int i = 0; pvs && i < npv && ok; i++) ok = api_json_push(pvs, pv_object(&res->pvs[i], req->pos.rule, side, size));
        ok = ok && api_json_put(o, "pvs", pvs);
    }
    ok = ok && api_json_put(o, "nodes", cJSON_CreateNumber((double)res->nodes)) &&
         api_json_put(o, "time_ms", cJSON_CreateNumber((double)res->time_ms));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return print_and_free(o);
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
            ok = api_json_push(arr, result_object(&b->reqs[i], &results[i]));
        } else if (b->ok[i]) {
            ApiProblem p;
            api_problem(&p, 500, "", "no result for this position");
            ok = api_json_push(arr, problem_object(&p));
        } else {
            ok = api_json_push(arr, problem_object(&b->errors[i]));
        }
    }
    if (ok) {
        ok = api_json_put(o, "results", arr);
        arr = NULL;
    }
    cJSON_Delete(arr);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return print_and_free(o);
}

/* ---- game review ---------------------------------------------------------- */

/* Accuracy of a side from its mean win-rate loss in points: Lichess's
 * curve, 103.1668 * exp(-0.04354 * loss) - 3.1669, clamped to 0..100. */
static double accuracy_of(double mean_loss)
{
    double a = 103.1668 * exp(-0.04354 * mean_loss) - 3.1669;
    return a < 0 ? 0 : a > 100 ? 100 : a;
}

enum { J_BEST, J_GOOD, J_INACCURACY, J_MISTAKE, J_BLUNDER, JUDGEMENTS };
static const char *const judgement_names[JUDGEMENTS] = {"best", "good", "inaccuracy", "mistake", "blunder"};

typedef struct {
    double wr_before, wr_after, loss; /* the mover's win rates, loss in points */
    bool missed_win, only_move;
    int judgement; /* J_* */
} MoveReview;

static MoveReview review_move(const ApiReview *r, const EngineResult *results, int i)
{
    MoveReview m = {0};
    const EngineResult *before = &results[i];
    Move played = r->game.pos.moves[i];
    Color mover = i % 2 == 0 ? BLACK : WHITE; /* a review's moves alternate from black */
    m.wr_before = engine_winrate(r->game.pos.rule, mover, before->score, before->mate);
    bool after_win, after_lost = false; /* the mover has a proven win, a proven loss, after its move */
    if (i == r->n - 1 && r->terminal) {
        m.wr_after = r->winner == EMPTY ? 0.5 : 1;
        after_win = r->winner != EMPTY;
    } else {
        const EngineResult *after = &results[i + 1]; /* from the opponent's view */
        m.wr_after = 1 - engine_winrate(r->game.pos.rule, OPPONENT(mover), after->score, after->mate);
        after_win = after->mate < 0;
        after_lost = after->mate > 0;
    }
    m.loss = m.wr_before > m.wr_after ? 100 * (m.wr_before - m.wr_after) : 0;
    bool best = played == before->best_move;
    m.missed_win = before->mate > 0 && !after_win;
    m.only_move = best && before->npv >= 2 && before->pvs[1].mate < 0 && before->pvs[0].mate >= 0;
    m.judgement = best                       ? J_BEST
                  : m.loss >= API_BLUNDER    ? J_BLUNDER
                  : m.loss >= API_MISTAKE    ? J_MISTAKE
                  : m.loss >= API_INACCURACY ? J_INACCURACY
                                             : J_GOOD;
    /* walking into a proven loss is never good, however little it seems to lose */
    if (!best && after_lost && before->mate >= 0) {
        int floor = m.wr_before >= API_LOST_BLUNDER_WR   ? J_BLUNDER
                    : m.wr_before >= API_LOST_MISTAKE_WR ? J_MISTAKE
                                                         : J_INACCURACY;
        if (m.judgement < floor) m.judgement = floor;
    }
    return m;
}

static cJSON *move_review_object(const ApiReview *r, const EngineResult *results, int i, const MoveReview *m)
{
    int size = r->game.pos.size;
    const EngineResult *before = &results[i];
    const PvLine *line = before->npv > 0 ? &before->pvs[0] : NULL;
    cJSON *o = cJSON_CreateObject();
    bool ok = api_json_put(o, "ply", cJSON_CreateNumber(i + 1)) &&
              api_json_put(o, "side", cJSON_CreateString(i % 2 ? "white" : "black")) &&
              api_json_put(o, "move", api_json_move(r->game.pos.moves[i], size)) &&
              api_json_put(o, "best_move", api_json_move(before->best_move, size)) &&
              api_json_put(o, "pv", line ? api_json_moves(line->pv, line->pv_len < ENGINE_MAX_PV ? line->pv_len : ENGINE_MAX_PV, size)
                                : cJSON_CreateArray()) &&
              api_json_put(o, "score", cJSON_CreateNumber(before->score)) &&
              api_json_put(o, "mate", api_json_mate(before->mate)) &&
              api_json_put(o, "winrate_before", api_json_rounded(m->wr_before, 1000)) &&
              api_json_put(o, "winrate_after", api_json_rounded(m->wr_after, 1000)) &&
              api_json_put(o, "winrate_loss", api_json_rounded(m->loss, 10)) &&
              api_json_put(o, "judgement", cJSON_CreateString(judgement_names[m->judgement])) &&
              api_json_put(o, "missed_win", cJSON_CreateBool(m->missed_win)) &&
              api_json_put(o, "only_move", cJSON_CreateBool(m->only_move));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

#define REVIEW_CRITICAL 3 /* largest swings listed per review */

char *api_review_json(const ApiReview *r, const EngineResult *results)
{
    if (!r || !results || r->n < 1) return NULL;
    int count[2][JUDGEMENTS] = {{0}}, missed[2] = {0, 0}, moves[2] = {0, 0};
    double loss_sum[2] = {0, 0};
    int critical[REVIEW_CRITICAL];
    double critical_loss[REVIEW_CRITICAL];
    int ncritical = 0;
    cJSON *o = cJSON_CreateObject(), *arr = cJSON_CreateArray();
    bool ok = o && arr;
    if (ok && r->game.has_id) ok = api_json_put(o, "id", cJSON_CreateString(r->game.id));
    ok = ok && api_json_put(o, "rule", cJSON_CreateString(rule_name(r->game.pos.rule))) &&
         api_json_put(o, "board_size", cJSON_CreateNumber(r->game.pos.size)) &&
         api_json_put(o, "opening", api_opening_value(api_position_opening(&r->game.pos)));
    for (int i = 0; ok && i < r->n; i++) {
        MoveReview m = review_move(r, results, i);
        int side = i % 2;
        moves[side]++;
        loss_sum[side] += m.loss;
        missed[side] += m.missed_win;
        count[side][m.judgement]++;
        /* keep the largest losses, largest first (earlier ply on ties) */
        if (m.loss > 0) {
            int at = ncritical < REVIEW_CRITICAL ? ncritical++ : REVIEW_CRITICAL;
            while (at > 0 && critical_loss[at - 1] < m.loss) {
                if (at < REVIEW_CRITICAL) critical[at] = critical[at - 1], critical_loss[at] = critical_loss[at - 1];
                at--;
            }
            if (at < REVIEW_CRITICAL) critical[at] = i + 1, critical_loss[at] = m.loss;
        }
        ok = api_json_push(arr, move_review_object(r, results, i, &m));
    }
    if (ok) {
        ok = api_json_put(o, "moves", arr);
        arr = NULL;
    }
    cJSON *sides = ok ? cJSON_CreateObject() : NULL;
    for (int side = 0; ok && side < 2; side++) {
        double mean = moves[side] ? loss_sum[side] / moves[side] : 0;
        cJSON *so = cJSON_CreateObject();
        ok = api_json_put(so, "moves", cJSON_CreateNumber(moves[side])) &&
             api_json_put(so, "accuracy", api_json_rounded(accuracy_of(mean), 10)) &&
             api_json_put(so, "mean_winrate_loss", api_json_rounded(mean, 10));
        for (int k = 0; ok && k < JUDGEMENTS; k++) ok = api_json_put(so, judgement_names[k], cJSON_CreateNumber(count[side][k]));
        ok = ok && api_json_put(so, "missed_win", cJSON_CreateNumber(missed[side]));
        ok = ok ? api_json_put(sides, side ? "white" : "black", so) : (cJSON_Delete(so), false);
    }
    ok = ok && api_json_put(o, "sides", sides);
    cJSON *crit = ok ? cJSON_CreateArray() : NULL;
    for (int k = 0; ok && k < ncritical; k++) ok = api_json_push(crit, cJSON_CreateNumber(critical[k]));
    ok = ok && api_json_put(o, "critical", crit);
    cJSON_Delete(arr);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return print_and_free(o);
}

/* ---- play a move at a level ------------------------------------------------ */

static cJSON *candidate_object(const PvLine *line, const LevelChoice *c, int i, Rule rule, Color side, int size)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = api_json_put(o, "move", api_json_move(line->move, size)) && api_json_put(o, "score", cJSON_CreateNumber(line->score)) &&
              api_json_put(o, "winrate", winrate_value(rule, side, line->score, line->mate)) && api_json_put(o, "mate", api_json_mate(line->mate)) &&
              api_json_put(o, "probability", api_json_rounded(c->probability[i], 1000));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

char *api_move_json(const ApiMove *m, const EngineResult *res)
{
    if (!m || !res || !m->level) return NULL;
    const ApiRequest *req = &m->req;
    int size = req->pos.size;
    LevelChoice c;
    int k = level_choose(res, m->level, level_position_seed(&req->pos, m->seed), &c);
    const PvLine *chosen = k >= 0 ? &res->pvs[k] : NULL;
    Color side = side_of(req, res);
    cJSON *o = cJSON_CreateObject(), *cands = cJSON_CreateArray();
    bool ok = o && cands;
    if (ok && req->has_id) ok = api_json_put(o, "id", cJSON_CreateString(req->id));
    ok = ok && api_json_put(o, "rule", cJSON_CreateString(rule_name(req->pos.rule))) &&
         api_json_put(o, "board_size", cJSON_CreateNumber(size)) &&
         api_json_put(o, "side_to_move", cJSON_CreateString(side == WHITE ? "white" : "black")) &&
         api_json_put(o, "move", api_json_move(chosen ? chosen->move : MOVE_NONE, size)) &&
         api_json_put(o, "level", cJSON_CreateNumber(m->level->number)) &&
         api_json_put(o, "level_name", cJSON_CreateString(m->level->name)) &&
         api_json_put(o, "seed", cJSON_CreateNumber((double)m->seed)) &&
         api_json_put(o, "score", chosen ? cJSON_CreateNumber(chosen->score) : cJSON_CreateNull()) &&
         api_json_put(o, "winrate", chosen ? winrate_value(req->pos.rule, side, chosen->score, chosen->mate) : cJSON_CreateNull()) &&
         api_json_put(o, "mate", api_json_mate(chosen ? chosen->mate : 0)) &&
         api_json_put(o, "best_move", api_json_move(res->best_move, size));
    for (int i = 0; ok && i < c.n; i++) ok = api_json_push(cands, candidate_object(&res->pvs[i], &c, i, req->pos.rule, side, size));
    if (ok) {
        ok = api_json_put(o, "candidates", cands);
        cands = NULL;
    }
    ok = ok && api_json_put(o, "depth", cJSON_CreateNumber(res->depth)) &&
         api_json_put(o, "nodes", cJSON_CreateNumber((double)res->nodes)) &&
         api_json_put(o, "time_ms", cJSON_CreateNumber((double)res->time_ms)) &&
         api_json_put(o, "complete", cJSON_CreateBool(res->complete)) &&
         api_json_put(o, "source", cJSON_CreateString(res->from_book ? "book" : res->from_proof ? "proof" : "search"));
    cJSON_Delete(cands);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return print_and_free(o);
}

char *api_levels_json(void)
{
    cJSON *arr = cJSON_CreateArray();
    bool ok = arr != NULL;
    for (int n = LEVEL_MIN; ok && n <= LEVEL_MAX; n++) {
        const Level *lv = level_get(n);
        cJSON *o = cJSON_CreateObject();
        ok = api_json_put(o, "level", cJSON_CreateNumber(lv->number)) && api_json_put(o, "name", cJSON_CreateString(lv->name)) &&
             api_json_put(o, "nodes", lv->nodes > 0 ? cJSON_CreateNumber((double)lv->nodes) : cJSON_CreateNull()) &&
             api_json_put(o, "depth", lv->depth > 0 ? cJSON_CreateNumber(lv->depth) : cJSON_CreateNull()) &&
             api_json_put(o, "multipv", cJSON_CreateNumber(lv->multipv)) &&
             api_json_put(o, "temperature", cJSON_CreateNumber(lv->temperature)) &&
             api_json_put(o, "safe", cJSON_CreateBool(lv->safe)) && api_json_put(o, "elo", cJSON_CreateNumber(lv->elo));
        ok = ok ? api_json_push(arr, o) : (cJSON_Delete(o), false);
    }
    if (!ok) {
        cJSON_Delete(arr);
        return NULL;
    }
    return print_and_free(arr);
}
