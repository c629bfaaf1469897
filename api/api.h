/*
 * api.h - JSON <-> engine conversion for the HTTP API v1 and the
 * `gomokud analyze` command line (one request per line). cJSON appears only
 * in api/; callers see plain strings and engine structs.
 *
 * Request body of POST /v1/analyze (every key optional except a position):
 *   { "id": "client string, echoed",
 *     "rule": "freestyle" | "standard" | "renju",          default freestyle
 *     "board_size": 15,                                    5..25
 *     "moves": ["h8", "i9", [7, 6], ...]                   alternating from black, or
 *     "stones": {"black": [...], "white": [...]}, "to_move": "black" | "white"
 *     "limits": {"time_ms": 1000, "depth": 20, "nodes": 5000000},
 *     "multipv": 1 }
 * A point is notation ("h8") or a two-element array [x, y], zero-based from
 * the top-left. {} or {"moves": []} is the empty board; an empty body is
 * refused (400), so that a client that lost its body is not answered with
 * an analysis of a position it never asked about. Unknown top-level keys are refused (400), so a typo such as
 * "limit" does not silently search without limits.
 *
 * Errors are RFC 9457 problem details; `field` names the offending input
 * with a JSON-path-like name: "moves[3]", "stones.black[0]", "limits.depth",
 * "board_size", "" for the body as a whole.
 */
#ifndef GOMOKUD_API_H
#define GOMOKUD_API_H

#include <stddef.h>

#include "engine/engine.h"
#include "engine/level.h"
#include "engine/opening.h"

#define API_ID_MAX 256
#define API_FIELD_MAX 64
#define API_DETAIL_MAX 256

typedef struct {
    int status;    /* HTTP status: 400, 401, 404, 405, 413, 422, 429, 500, 503 */
    const char *type;  /* problem type URI (static string) */
    const char *title; /* short human summary of the type (static string) */
    char detail[API_DETAIL_MAX];
    char field[API_FIELD_MAX]; /* "" when the problem is not about one input */
} ApiProblem;

/* Server-side limits applied to every request: a request's own limits are
 * capped by the max_* values; when a request gives none, default_* apply. */
typedef struct {
    int64_t default_time_ms, max_time_ms;
    int default_depth, max_depth;
    int64_t default_nodes, max_nodes;
    int max_multipv;
} ApiCaps;

typedef struct {
    bool has_id;
    char id[API_ID_MAX + 1];
    Color to_move; /* side to move of the position */
    Position pos;
    int64_t time_ms; /* after capping; 0 = none */
    int depth;       /* after capping; 0 = none */
    int64_t nodes;   /* after capping; 0 = none */
    int multipv;     /* 1..max_multipv */
    bool no_book;    /* "book": false - search even a position the opening book holds */
} ApiRequest;

/* Fills a problem: status, a type/title chosen from the status, the field
 * and a printf-style detail. Returns false so callers can `return
 * api_problem(...)`. */
bool api_problem(ApiProblem *p, int status, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Parses and validates one analyze request body (len bytes, need not be NUL
 * terminated). On success fills *out and returns true; otherwise fills *err
 * (400 for malformed JSON or wrong types, 422 for an impossible position)
 * and returns false. */
bool api_parse_analyze(const char *body, size_t len, const ApiCaps *caps, ApiRequest *out, ApiProblem *err);

/* A batch: {"positions": [ ...analyze bodies... ]}. Each slot either parsed
 * (ok[i]) into reqs[i] or failed with errors[i]. The whole batch fails (false,
 * *err set) only when the body is not such an object or has more than
 * max_positions entries (413) or none (400). Free with api_batch_free. */
typedef struct {
    int n;
    ApiRequest *reqs;
    ApiProblem *errors;
    bool *ok;
} ApiBatch;

bool api_parse_batch(const char *body, size_t len, const ApiCaps *caps, int max_positions, ApiBatch *out,
                     ApiProblem *err);
void api_batch_free(ApiBatch *b);

/* A game review, POST /v1/review: {"id", "rule", "board_size", "moves",
 * "limits"} with the moves of a game (at least one, at most max_moves; a
 * game that ends in a five or a full board is fine). Every position of the
 * game, from the empty board on, is analysed with the limits and two lines
 * (to tell an only move); positions holds them as batch slots, all ok:
 * positions.reqs[k] is the position after k moves, for k = 0 .. n, or
 * 0 .. n - 1 when the last move ended the game (terminal). Free with
 * api_review_free. */
typedef struct {
    ApiRequest game;   /* the whole game as parsed (id, rule, size, moves, limits) */
    int n;             /* moves of the game */
    bool terminal;     /* the last move made five or filled the board */
    Color winner;      /* terminal: who made five (EMPTY for a full board) */
    ApiBatch positions;
} ApiReview;

bool api_parse_review(const char *body, size_t len, const ApiCaps *caps, int max_moves, ApiReview *out,
                      ApiProblem *err);
void api_review_free(ApiReview *r);

/* The review's answer from the results of its positions (results[k] for
 * positions.reqs[k]); malloc'd JSON, NULL when out of memory. */
char *api_review_json(const ApiReview *r, const EngineResult *results);

/* Judgement thresholds of a review, in win-rate points lost by a move. */
#define API_INACCURACY 10.0
#define API_MISTAKE 20.0
#define API_BLUNDER 30.0
/* A move after which the mover is proven lost, from a position that was
 * not, is at least a blunder when the mover's win rate before was this or
 * more, a mistake from API_LOST_MISTAKE_WR, else an inaccuracy (Lichess
 * judges a mate it walks into so, by the centipawns before: 7% and 2.5%
 * are its -700 and -1000 on its win-chance curve). */
#define API_LOST_BLUNDER_WR 0.07
#define API_LOST_MISTAKE_WR 0.025

/* Play a move as a player of a level, POST /v1/move: the position members
 * of an analyze request (id, rule, board_size, moves or stones and to_move)
 * plus
 *   "level": 1 .. 10 or a name ("beginner" .. "grandmaster"; default the
 *            top level, full strength),
 *   "seed":  a non-negative integer up to 2^53 - 1 (default 0).
 * The level sets the search (engine/level.h): limits and multipv are
 * refused (400 naming them), as are unknown members; a bad level is a 400
 * naming "level", a bad seed "seed". An empty body is a 400 (a move on the
 * empty board is asked for with {}). req's limits are the level's: its node
 * and depth caps and lines, with the server's maximum as the time bound (and
 * a lower max_nodes, max_depth or max_multipv winning); at full strength the
 * server's defaults for a request without limits, one line. */
#define API_SEED_MAX 9007199254740991.0 /* 2^53 - 1: every integer up to it is exact in JSON */

typedef struct {
    ApiRequest req;     /* the position and id; its limits and multipv are the level's */
    const Level *level;
    uint64_t seed;      /* the client's seed (default 0) */
} ApiMove;

bool api_parse_move(const char *body, size_t len, const ApiCaps *caps, ApiMove *out, ApiProblem *err);

/* The answer to a move request from its search: the move chosen by
 * level_choose (seeded with level_position_seed of the position and the
 * client's seed), the candidates with their probabilities, from the mover's
 * view. Malloc'd JSON, NULL when out of memory. */
char *api_move_json(const ApiMove *m, const EngineResult *res);

/* The level table as a JSON array (number, name, node and depth caps, lines,
 * temperature, safe, measured Elo), for GET /v1/info. Malloc'd, NULL when
 * out of memory. */
char *api_levels_json(void);

/* Engine limits for a parsed request (stop flag and callbacks left NULL). */
Limits api_limits(const ApiRequest *req);

/* JSON text (malloc'd, NUL terminated, caller frees; NULL when out of
 * memory) of a result, a problem, and a batch of results whose failed slots
 * hold problem objects. */
char *api_result_json(const ApiRequest *req, const EngineResult *res);
char *api_problem_json(const ApiProblem *p);
char *api_batch_json(const ApiBatch *b, const EngineResult *results);

/* One line of a streamed analysis, after a completed iteration:
 * {"depth", "seldepth", "best_move", "score", "winrate", "mate", "pv",
 *  "pvs" (with multipv > 1), "nodes", "time_ms"}. */
char *api_progress_json(const ApiRequest *req, const EngineResult *partial);

/* ---- openings and swap2 (api/openings.c) ------------------------------
 *
 * POST /v1/openings/balanced: {"id", "rule", "board_size", "stones": N,
 * "count": K, "seed": S, "limits": {"depth": D, "nodes": B}} -> K openings
 * of N stones (black first, alternating) in the 7x7 centre whose search to
 * depth D (default OPENING_DEPTH, at most API_OPENINGS_MAX_DEPTH) finds
 * |score| <= OPENING_BALANCE and no forced five; B bounds the nodes of all
 * the searches together (default API_OPENINGS_NODES_PER_OPENING per
 * opening asked, capped by the server's max_nodes). No time limit: the
 * work is counted in nodes so that a seed always gives the same openings.
 * stones outside 1..API_OPENINGS_MAX_STONES is a 400, a count over
 * API_OPENINGS_MAX_COUNT a 413.
 *
 * POST /v1/swap2: {"id", "rule", "board_size", "moves": [0, 3 or 5 points],
 * "limits", "seed"} -> the decision of the swap2 protocol for that stage
 * (engine/swap2.h), with the options weighed. limits bound each of its
 * searches (up to 1 + SWAP2_WHITE_LINES of them), as for an analysis.
 *
 * Both are "tasks": work for one worker that is not a single search. */
#define API_OPENINGS_MAX_COUNT 16
#define API_OPENINGS_MAX_STONES 12
#define API_OPENINGS_MAX_DEPTH 8
#define API_OPENINGS_NODES_PER_OPENING 2000000
#define API_OPENINGS_TRIES_PER_OPENING 2000

typedef enum { API_TASK_OPENINGS = 0, API_TASK_SWAP2 } ApiTaskKind;

typedef struct {
    bool has_id;
    char id[API_ID_MAX + 1];
    Rule rule;
    int size, stones, count, depth;
    uint64_t seed;
    int64_t nodes; /* total budget */
} ApiOpenings;

typedef struct {
    ApiRequest req; /* id, rule, size, the stones as moves, the limits of each search */
    uint64_t seed;
} ApiSwap2;

bool api_parse_openings(const char *body, size_t len, const ApiCaps *caps, ApiOpenings *out, ApiProblem *err);
bool api_parse_swap2(const char *body, size_t len, const ApiCaps *caps, ApiSwap2 *out, ApiProblem *err);

typedef struct ApiTask ApiTask;

/* Parses a task's body; NULL with *err set when it is refused (or memory is
 * short: 500). Free with api_task_free. */
ApiTask *api_task_parse(ApiTaskKind kind, const char *body, size_t len, const ApiCaps *caps, ApiProblem *err);
void api_task_free(ApiTask *t);

/* Runs the task's searches on e (a worker's engine), stopping early when
 * *stop is set. Returns the nodes searched. */
uint64_t api_task_run(ApiTask *t, Engine *e, const atomic_bool *stop);

/* The task's answer (malloc'd JSON; NULL when out of memory) and its HTTP
 * status in *status: 200, or a problem's (500 when the engine refused). */
char *api_task_json(const ApiTask *t, int *status);

/* The renju opening the first three stones of a position form (see
 * engine/opening.h): the first three moves of a game, or the three stones
 * of a diagram of exactly two black and one white stone. NULL when none. */
const RenjuOpening *api_position_opening(const Position *pos);

#endif
