/*
 * engine.h - the facade: the only interface api/, server/ and the pbrain
 * front end use.
 *
 * One Engine per thread. It owns all search state (board, transposition
 * table, history and killer tables), so engines share nothing and need no
 * locks. engine_init() builds the read-only tables once per process, before
 * any engine is made.
 *
 * Scores are from the side to move's view. A forced win is reported as a
 * mate: +N when the side to move makes five with its N-th move against any
 * defence, -N when the opponent does.
 */
#ifndef GOMOKUD_ENGINE_H
#define GOMOKUD_ENGINE_H

#include <stdatomic.h>
#include <stddef.h>

#include "types.h"

#define GOMOKUD_VERSION "0.1.0"

#define ENGINE_MAX_PV 256 /* a proven win's whole line fits (THREAT_MAX_LINE) */
#define ENGINE_MAX_MULTIPV 16
/* A search recurses deeply (a VCF may run to 225 plies at the root, about
 * 4 MiB of stack at worst): run it on a thread with at least this much. */
#define ENGINE_THREAD_STACK (16u << 20)
#define ENGINE_DEFAULT_TT_MIB 64
#define ENGINE_MAX_DEPTH 64

/* Score bounds: |score| >= SCORE_MATE_MIN means a forced five. */
#define SCORE_MATE 30000
#define SCORE_MATE_MIN (SCORE_MATE - 1000)
#define SCORE_INF 32000

typedef struct Engine Engine;
typedef struct EngineBook EngineBook;

/* Search features that can be switched off, to measure what each is worth
 * (gomokud selfplay). Everything is on by default. */
enum {
    ENGINE_NO_PVS = 1,      /* plain alpha-beta: every child with the full window */
    ENGINE_NO_TT = 2,       /* no transposition table probes or stores */
    ENGINE_NO_ORDERING = 4, /* no TT move, killers or history: static order only */
    ENGINE_NO_THREATS = 8,  /* no VCF/VCT at the root */
    ENGINE_NO_HORIZON = 16, /* no threat quiescence: the static eval at the horizon */
    ENGINE_NO_FUTILITY = 32,  /* no reverse futility pruning or razoring */
    ENGINE_NO_MOVECOUNT = 64, /* no move-count pruning (the old fixed candidate cap only) */
    ENGINE_NO_LMR = 128,      /* no late move reductions */
    ENGINE_NO_MOVE_CHECK = 256, /* the move found is not checked against the opponent's VCT */
    ENGINE_NO_FAIL_HIGH = 512,  /* no fail-high reduction at cut nodes */
    ENGINE_NO_CORRECTION = 1024, /* no correction history on the static eval */
    ENGINE_NO_PROBCUT = 2048,    /* no ProbCut */
    ENGINE_NO_ATTACK_HISTORY = 4096, /* threes and plain fours ordered by the quiet moves' history */
};

typedef struct {
    size_t tt_mib;     /* transposition table size in MiB; 0 = ENGINE_DEFAULT_TT_MIB */
    unsigned disable;  /* ENGINE_NO_* flags */
    bool persistent;   /* searches learn from earlier ones (TT, history): for a game,
                          as the pbrain front end plays one; off, every search starts
                          fresh and an identical request gets an identical answer */
    bool keep_proofs;  /* wins the threat solver proved are kept (a few hundred
                          lines) and answer any later search of a position on such
                          a line at once (EngineResult.from_proof); always on when
                          persistent */
} EngineOptions;

/* A position to analyse: the stones as a move sequence alternating from
 * black. A diagram (stones without an order) is given by interleaving its
 * black and white stones; set ordered = false so that the checks that only
 * make sense for a real game order (renju forbidden moves already played,
 * a five made before the last move) are left out. */
typedef struct {
    Rule rule;
    int size;
    bool ordered;
    int nmoves;
    Move moves[BOARD_MAX_MOVES];
} Position;

typedef enum {
    POSITION_OK = 0,
    POSITION_BAD_RULE,
    POSITION_BAD_SIZE,
    POSITION_OFF_BOARD, /* moves[index] is not a point of the board */
    POSITION_OCCUPIED,  /* moves[index] is already taken */
    POSITION_FORBIDDEN, /* moves[index] was a forbidden renju move for black */
    POSITION_GAME_OVER, /* a five is already on the board (moves[index] made it, when ordered) */
    POSITION_FULL,      /* no empty point is left */
    POSITION_TOO_MANY,  /* more moves than points */
} PositionError;

/* Checks that a position can be analysed. Returns POSITION_OK, or the first
 * problem found with the offending move's index in *index (-1 when it is not
 * about one move). */
PositionError position_check(const Position *p, int *index);

/* A short English description of a PositionError. */
const char *position_error_text(PositionError e);

/* What a search reports after each completed iteration (pbrain MESSAGE
 * lines, progress). Called on the searching thread. */
struct EngineResult;
typedef void (*EngineInfoFn)(void *ctx, const struct EngineResult *partial);

typedef struct {
    int64_t time_ms;          /* 0 = no time limit; the only hard time limit */
    int64_t optimum_ms;       /* the time the iterations aim at, e.g. a game clock's fair share
                                 (it may exceed time_ms); 0 = 70% of time_ms */
    int depth;                /* 0 = up to ENGINE_MAX_DEPTH */
    int64_t nodes;            /* 0 = no node limit */
    int multipv;              /* best N root moves, 1..ENGINE_MAX_MULTIPV; 0 means 1 */
    const atomic_bool *stop;  /* set by another thread to stop early; may be NULL */
    EngineInfoFn on_info;     /* may be NULL */
    void *info_ctx;
    bool no_book;             /* search even when the attached book holds the position */
    bool play;                /* choosing a move to play (a game, a level): an undecided root
                                 VCT gets no more than what the iterations leave, instead of
                                 half of a time limit (analysis, where a proof is the point) */
    bool threats_only;        /* the threat solver alone: the side to move's VCF, then its VCT
                                 (root settings, quiet openers included), under the limits, and
                                 no iterations; unproven, the answer is the first candidate with
                                 the static eval (how `gomokud bench tactics --solver` measures
                                 the solver apart from the main search) */
} Limits;

typedef struct {
    Move move;
    Score score;
    int mate; /* 0, or +N / -N */
    int pv_len;
    Move pv[ENGINE_MAX_PV]; /* pv[0] == move */
} PvLine;

typedef struct EngineResult {
    Color side_to_move;
    Move best_move; /* MOVE_NONE only when no legal move exists */
    Score score;
    int mate;
    int depth;    /* last completed iteration */
    int seldepth; /* deepest ply reached */
    uint64_t nodes;
    int64_t time_ms;
    bool complete; /* false when a limit or the stop flag cut the search short */
    int npv;
    PvLine pvs[ENGINE_MAX_MULTIPV]; /* best first; pvs[0] is the main line */
    int nforbidden;                 /* renju with black to move: black's forbidden points */
    Move forbidden[BOARD_MAX_MOVES];
    bool from_book; /* the move, score and line come from the opening book, not a search */
    bool from_proof; /* ...from a win an earlier search proved (EngineOptions.keep_proofs) */
    /* The opponent's forced win the root found (the VCF it would have if
     * the side to move passed, or failing that its VCT: threat_vct),
     * threat_len 0 for none: then only the root moves after which it has
     * no such win any more were searched. refutations
     * is how many there were (0: none, every move was searched and loses
     * to it), or -1 when the budget ran out before every move was tried
     * (every move was searched). */
    int threat_len;
    bool threat_vct;
    Move threat[ENGINE_MAX_PV];
    int refutations;
} EngineResult;

/* Builds the read-only tables. Call once per process before engine_new;
 * returns false when memory is short. */
bool engine_init(void);

/* A new engine, or NULL when memory (mostly the transposition table) cannot
 * be had. Its tables are written once here (resident from the start), so
 * that the first searches do not wait for their pages. The caller owns it
 * and frees it with engine_free. */
Engine *engine_new(const EngineOptions *opt);
void engine_free(Engine *e);

/* Forgets what earlier searches learnt: the transposition table, the move
 * and correction histories, the threat searches' tables and kept proofs. A
 * persistent engine cleared searches as a new one would (selfplay and
 * gen-data games, the opening generator's tries, the bench). */
void engine_clear(Engine *e);

/* Forgets the positions of the last game (all engine_clear forgets) but
 * keeps the correction history: what the searches learnt of the static
 * evaluation's errors by pattern, which holds from game to game. The
 * pbrain front end calls it at a new game. Clearing the corrections there
 * too scored 47.4% in 133 games against keeping them (stop 81). */
void engine_new_game(Engine *e);

/* Kept proofs shared between engines (EngineOptions.keep_proofs; one
 * engine per thread, so the caller passes them on): the line of the win
 * the last search proved and kept, from its position (ENGINE_MAX_PV moves
 * at most), or 0 when it kept none. */
int engine_last_proof(const Engine *e, Move *line);

/* Keeps line as a proven win from position p, as if e had proved it: a
 * later search of any position on it answers from it (after replaying it
 * to a five). False when e keeps no proofs or p is not a position. */
bool engine_add_proof(Engine *e, const Position *p, const Move *line, int len);

/* Size of the engine's transposition table in bytes. */
size_t engine_tt_bytes(const Engine *e);

/* Analyses p within the limits and fills *out. Returns POSITION_OK, or the
 * position's problem (as position_check, with *index set when index is not
 * NULL) and leaves *out untouched. */
PositionError engine_analyze(Engine *e, const Position *p, const Limits *limits, EngineResult *out,
                             int *index);

/* The opening book (engine/book.h). The engine does no I/O: the caller
 * reads the book file and hands its bytes to engine_book_parse, which
 * returns the table (free with engine_book_free) or NULL with a message in
 * err naming the line at fault. The text has one position a line,
 *   rule size key move score depth
 * e.g. "renju 15 0123456789abcdef h8 25 14": the rule's name, the board
 * size, the symmetry-reduced Zobrist key in 16 lower-case hex digits, the
 * best move in notation in the orientation of that key, its score from the
 * side to move's view and the depth of the search that found it; blank lines
 * and lines starting with '#' are comments. A book is read-only once made,
 * so many engines (threads) can share one. */
EngineBook *engine_book_parse(const char *text, size_t len, char *err, size_t errlen);
void engine_book_free(EngineBook *book);
size_t engine_book_size(const EngineBook *book);

/* Attaches a book (NULL: none) that engine_analyze consults before
 * searching, unless the limits say no_book or ask for more than one line: a
 * position the book holds is answered at once with the book's move and
 * score, the line the book knows from there as the PV, from_book set, no
 * nodes. The book must outlive the engine or be detached first. */
void engine_set_book(Engine *e, const EngineBook *book);

/* One book line (with its newline) for the position p (checked by the
 * caller) whose best move is move: what make book writes. Returns the
 * length written into buf, 0 when it does not fit. */
size_t engine_book_format_entry(const Position *p, Move move, Score score, int depth, char *buf, size_t len);

/* Mate distance in moves of a score: +N, -N or 0 (see above). */
int engine_mate_moves(Score s);

/* The chance of winning of the side to move (to_move) for a score under a
 * rule (mate: the line's mate count): 1 for a proven win, 0 for a proven
 * loss, else 1 / (1 + exp(-(score + c) / S)), with c = +B when black is to
 * move, -B when white is and 0 for EMPTY (colour unknown). S is the rule's
 * scale and B what the evaluation misses of black's edge: freestyle's
 * first move is worth more than it sees, renju's black is weaker than it
 * sees. Both are fitted to the results of self-play games at match
 * strength (20 s + 0.5 s a move), 1,500 positions a rule scored by
 * 100,000-node analyses (tools/fit_winrate.py; README, "The win rate"):
 * cross-entropy 0.490 in freestyle (0.532 with S alone, 0.636 on the
 * evaluation's training scale), 0.625 in renju (0.664, 0.668). Standard,
 * with no games of its own, takes freestyle's. The training scale
 * (eval_winrate_scale), fitted to games of 5,000 nodes a move whose
 * results owe much to chance, is far flatter; the levels' choice
 * (level.c) keeps it, as their temperatures are in its points. */
#define ENGINE_WINRATE_SCALE_FREESTYLE 351.6
#define ENGINE_WINRATE_BLACK_FREESTYLE 256.5
#define ENGINE_WINRATE_SCALE_RENJU 716.1
#define ENGINE_WINRATE_BLACK_RENJU (-448.9)
double engine_winrate_black(Rule rule);
double engine_winrate(Rule rule, Color to_move, Score score, int mate);

/* The curve itself: 1 for a proven win, 0 for a proven loss, else
 * 1 / (1 + exp(-(score + offset) / scale)). */
double engine_winrate_curve(Score score, int mate, double offset, double scale);

#endif
