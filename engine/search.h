/*
 * search.h - the Engine struct and the search entry point (internal to
 * engine/: outside code uses engine.h).
 *
 * Design. Everything one search needs lives in one Engine: the front part
 * (counters, limits, killers, the triangular PV table, the root move list)
 * is reset with one memset at the start of each search; the part from
 * `history` on persists across searches (history scores are halved, the
 * transposition table ages by generation).
 */
#ifndef GOMOKUD_SEARCH_H
#define GOMOKUD_SEARCH_H

#include "board.h"
#include "engine.h"
#include "tt.h"
#include "vcf.h"

#define MAX_PLY 128
/* the correction table by the last move's pattern codes: 2^bits entries a side */
#define CORR_CODES_BITS 14

typedef struct {
    uint64_t key;  /* the position's Zobrist key; 0 = empty slot */
    int16_t len;   /* plies to the five */
    Move line[THREAT_MAX_LINE];
} ProvenLine;

typedef struct {
    Move move;
    Score score;   /* last iteration's score; -SCORE_INF when it failed low */
    int32_t order; /* generation-time ordering score */
    int pv_len;
    Move pv[ENGINE_MAX_PV];
} RootMove;

struct Engine {
    /* ---- reset at the start of every search ---- */
    uint64_t nodes;
    int seldepth;
    bool stopped;
    int64_t start_ns, deadline_ns; /* deadline 0 = none */
    int64_t threat_deadline_ns;    /* end of the root threat searches' share of the time; 0 = none */
    uint64_t node_limit;           /* 0 = none */
    const atomic_bool *stop;
    int nroot;
    bool vct_open;        /* the root VCT ran out of budget without an answer */
    int vct_plies;        /* the VCTs' length limit in this search: ROOT_VCT_PLIES, or ROOT_VCT_PLIES_FREESTYLE_ANALYSIS in a freestyle analysis */
    bool play;            /* a move to play (Limits.play): the quiescence's likely losses stay mates,
                           * and a mate's line is completed only until the time limit */
    int last_proof_len;   /* the win this search proved and kept, from the root (0: none) */
    Move last_proof[THREAT_MAX_LINE];
    bool first_iteration; /* limits are not polled until depth 1 is done */
    Move killers[MAX_PLY][2];
    Score eval[MAX_PLY + 1]; /* static eval by ply (from the side to move there) */
    int pvlen[MAX_PLY];
    Move pv[MAX_PLY][MAX_PLY];
    RootMove root[BOARD_MAX_MOVES];

    /* ---- kept across searches ---- */
    unsigned disable; /* ENGINE_NO_* */
    const EngineBook *book; /* engine_set_book; may be NULL */
    bool persistent;  /* EngineOptions.persistent */
    /* the move-order histories, per side and point; one struct, so that
     * every clear clears all of them */
    struct {
        int32_t quiet[2][BOARD_CELLS];  /* quiet moves that cut off */
        int32_t attack[2][BOARD_CELLS]; /* threes and plain fours that cut off */
    } hist;
    /* eval corrections learned from the searches' results, per side to
     * move: by the threat mask (eval.h), by the last move's point, by the
     * pattern codes the last move's point held for both sides (hashed) and
     * by those of the side to move's own last move, two plies back;
     * one struct, so that every clear clears all of them */
    struct {
        int32_t mask[2][EVAL_MASKS];
        int32_t last[2][BOARD_CELLS];
        int32_t codes[2][1 << CORR_CODES_BITS];
        int32_t own[2][1 << CORR_CODES_BITS];
    } corr;
    Board board;
    TT tt;
    ThreatEntry *threat_cache;
    size_t threat_mask;
    QuietAnswers *quiet_answers;
    size_t answers_mask;
    /* Wins proven by the threat solver in earlier searches (EngineOptions.
     * keep_proofs): the line from each position of a proof where the winner
     * is to move, by the position's key; NULL when off. */
    ProvenLine *proofs;
    size_t proofs_mask;
};

/* Builds the search's read-only tables (the reduction table); called by
 * engine_init(). */
void search_init(void);

/* Keeps the proven line of the position on e->board (keep_proofs; see
 * EngineOptions); false (nothing kept) when e keeps no proofs or the
 * length is out of range. */
bool search_keep_proof(Engine *e, const Move *line, int len);

/* Whether ProbCut may try m on b: the side to move makes an open three or
 * more there, or takes the point where the opponent would (a quiet move's
 * shallow search beating beta by the margin was too often wrong). */
bool search_probcut_candidate(const Board *b, Move m);

/* Searches e->board (already set up) within limits; fills *out. */
void search_run(Engine *e, const Limits *limits, EngineResult *out);

/* Monotonic clock in nanoseconds. */
int64_t search_now_ns(void);

#endif
