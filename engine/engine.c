/* engine.c - the facade (see engine.h). */
#include "engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "book.h"
#include "rules.h"
#include "search.h"

#define THREAT_CACHE_ENTRIES (1u << 20) /* proof-number table: 24 MiB */
#define QUIET_ANSWERS_ENTRIES (1u << 13) /* answers to quiet threat moves: 640 KiB */
#define PROVEN_LINES (1u << 9)            /* kept proofs (keep_proofs): 264 KiB */

bool engine_init(void)
{
    if (!board_init_tables()) return false;
    search_init();
    return true;
}

Engine *engine_new(const EngineOptions *opt)
{
    Engine *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    size_t mib = opt && opt->tt_mib ? opt->tt_mib : ENGINE_DEFAULT_TT_MIB;
    if (!tt_init(&e->tt, mib)) goto fail;
    e->disable = opt ? opt->disable : 0;
    e->persistent = opt && opt->persistent;
    e->tt.fresh_only = !e->persistent;
    e->threat_cache = tt_alloc_table(THREAT_CACHE_ENTRIES * sizeof *e->threat_cache);
    if (!e->threat_cache) goto fail;
    e->threat_mask = THREAT_CACHE_ENTRIES - 1;
    e->quiet_answers = calloc(QUIET_ANSWERS_ENTRIES, sizeof *e->quiet_answers);
    if (!e->quiet_answers) goto fail;
    e->answers_mask = QUIET_ANSWERS_ENTRIES - 1;
    if (e->persistent || (opt && opt->keep_proofs)) {
        e->proofs = calloc(PROVEN_LINES, sizeof *e->proofs);
        if (!e->proofs) goto fail;
        e->proofs_mask = PROVEN_LINES - 1;
    }
    board_reset(&e->board, BOARD_DEFAULT_SIZE, RULE_FREESTYLE);
    /* the tables are written once now, so that the system maps their pages
     * here rather than page by page inside the first searches */
    engine_clear(e);
    return e;
fail:
    engine_free(e);
    return NULL;
}

void engine_free(Engine *e)
{
    if (!e) return;
    tt_free(&e->tt);
    tt_free_table(e->threat_cache, (e->threat_mask + 1) * sizeof *e->threat_cache);
    free(e->quiet_answers);
    free(e->proofs);
    free(e);
}

void engine_new_game(Engine *e)
{
    tt_clear(&e->tt);
    memset(&e->hist, 0, sizeof e->hist);
    memset(e->threat_cache, 0, (e->threat_mask + 1) * sizeof *e->threat_cache);
    memset(e->quiet_answers, 0, (e->answers_mask + 1) * sizeof *e->quiet_answers);
    if (e->proofs) memset(e->proofs, 0, (e->proofs_mask + 1) * sizeof *e->proofs);
}

void engine_clear(Engine *e)
{
    engine_new_game(e);
    memset(&e->corr, 0, sizeof e->corr);
}

int engine_last_proof(const Engine *e, Move *line)
{
    memcpy(line, e->last_proof, sizeof(Move) * (size_t)e->last_proof_len);
    return e->last_proof_len;
}

static PositionError setup(Board *b, const Position *p, int *index);

bool engine_add_proof(Engine *e, const Position *p, const Move *line, int len)
{
    int idx;
    return e->proofs && setup(&e->board, p, &idx) == POSITION_OK && search_keep_proof(e, line, len);
}

size_t engine_tt_bytes(const Engine *e) { return tt_bytes(&e->tt); }

static double winrate_scale(Rule rule)
{
    return rule == RULE_RENJU ? ENGINE_WINRATE_SCALE_RENJU : ENGINE_WINRATE_SCALE_FREESTYLE;
}

double engine_winrate_black(Rule rule)
{
    return rule == RULE_RENJU ? ENGINE_WINRATE_BLACK_RENJU : ENGINE_WINRATE_BLACK_FREESTYLE;
}

/* c of the curve: +B with black to move, -B with white, 0 unknown */
static double colour_offset(Rule rule, Color to_move)
{
    return to_move == BLACK ? engine_winrate_black(rule) : to_move == WHITE ? -engine_winrate_black(rule) : 0;
}

double engine_winrate_curve(Score score, int mate, double offset, double scale)
{
    if (mate > 0 || score >= SCORE_MATE_MIN) return 1;
    if (mate < 0 || score <= -SCORE_MATE_MIN) return 0;
    return 1 / (1 + exp(-((double)score + offset) / scale));
}

double engine_winrate(Rule rule, Color to_move, Score score, int mate)
{
    return engine_winrate_curve(score, mate, colour_offset(rule, to_move), winrate_scale(rule));
}

int engine_mate_moves(Score s)
{
    if (s >= SCORE_MATE_MIN) return (SCORE_MATE - s + 1) / 2;
    if (s <= -SCORE_MATE_MIN) return -((SCORE_MATE + s) / 2);
    return 0;
}

const char *position_error_text(PositionError e)
{
    switch (e) {
    case POSITION_OK: return "ok";
    case POSITION_BAD_RULE: return "unknown rule";
    case POSITION_BAD_SIZE: return "board size must be from 5 to 25";
    case POSITION_OFF_BOARD: return "point is not on the board";
    case POSITION_OCCUPIED: return "point is already taken";
    case POSITION_FORBIDDEN: return "move is forbidden to black under renju";
    case POSITION_GAME_OVER: return "the game is already won";
    case POSITION_FULL: return "the board is full";
    case POSITION_TOO_MANY: return "more moves than points on the board";
    }
    return "unknown error";
}

/* Plays p onto b, checking as it goes. */
static PositionError setup(Board *b, const Position *p, int *index)
{
    *index = -1;
    if ((unsigned)p->rule >= RULE_COUNT) return POSITION_BAD_RULE;
    if (!board_reset(b, p->size, p->rule)) return POSITION_BAD_SIZE;
    if (p->nmoves < 0 || p->nmoves > p->size * p->size) return POSITION_TOO_MANY;
    for (int i = 0; i < p->nmoves; i++) {
        Move m = p->moves[i];
        *index = i;
        if (m < 0 || m >= BOARD_CELLS || b->cell[m].stone == WALL) return POSITION_OFF_BOARD;
        if (b->cell[m].stone != EMPTY) return POSITION_OCCUPIED;
        if (p->ordered) {
            if (b->to_move == BLACK && rules_is_forbidden(b, m)) return POSITION_FORBIDDEN;
            if (board_makes_five(b, m, b->to_move) && i + 1 < p->nmoves) return POSITION_GAME_OVER;
        }
        board_play(b, m);
    }
    *index = -1;
    Color w = rules_winner(b);
    if (w != EMPTY) {
        if (p->ordered && p->nmoves) *index = p->nmoves - 1;
        return POSITION_GAME_OVER;
    }
    if (board_full(b)) return POSITION_FULL;
    return POSITION_OK;
}

PositionError position_check(const Position *p, int *index)
{
    Board b; /* about 33 KB of stack */
    int idx;
    PositionError err = setup(&b, p, &idx);
    if (index) *index = idx;
    return err;
}

void engine_set_book(Engine *e, const EngineBook *book) { e->book = book; }

/* Answers from the book when it holds the position and the limits allow:
 * the stored move and score, and as the PV the book's moves for as long as
 * the line stays in the book. */
static bool from_book(Engine *e, const Limits *limits, EngineResult *out)
{
    Board *b = &e->board;
    BookHit hit;
    if (!e->book || limits->no_book || limits->multipv > 1 || !book_probe(e->book, b, &hit)) return false;
    out->side_to_move = b->to_move;
    out->best_move = hit.move;
    out->score = hit.score;
    out->mate = engine_mate_moves(hit.score);
    out->depth = out->seldepth = hit.depth;
    out->complete = true;
    out->from_book = true;
    out->npv = 1;
    PvLine *l = &out->pvs[0];
    l->move = hit.move;
    l->score = hit.score;
    l->mate = out->mate;
    BookHit h = hit;
    int played = 0;
    do {
        l->pv[l->pv_len++] = h.move;
        if (board_makes_five(b, h.move, b->to_move)) break;
        board_play(b, h.move);
        played++;
    } while (l->pv_len < ENGINE_MAX_PV && !board_full(b) && book_probe(e->book, b, &h));
    while (played--) board_undo(b);
    if (limits->on_info) limits->on_info(limits->info_ctx, out);
    return true;
}

PositionError engine_analyze(Engine *e, const Position *p, const Limits *limits, EngineResult *out, int *index)
{
    int idx;
    PositionError err = setup(&e->board, p, &idx);
    if (index) *index = idx;
    if (err != POSITION_OK) return err;
    memset(out, 0, sizeof *out);
    if (!from_book(e, limits, out)) search_run(e, limits, out);
    Board *b = &e->board;
    if (b->rule == RULE_RENJU && b->to_move == BLACK) out->nforbidden = rules_forbidden_points(b, out->forbidden);
    return POSITION_OK;
}
