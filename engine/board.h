/*
 * board.h - stones, play/undo, Zobrist key and incremental line patterns.
 *
 * Design. Cells live in a fixed BOARD_STRIDE x BOARD_STRIDE array whose
 * border (and everything outside the chosen size) is WALL, so a walk of five
 * steps from any playable point stays in bounds without checks. Each cell
 * carries, per direction, the 20-bit key of its ten line neighbours (see
 * pattern.h) and the packed black/white Pattern that key gives under the
 * board's rule, plus one Threat level per side. Playing a stone touches the
 * forty cells within five steps on the four lines through it: their keys get
 * the stone's bits, and the empty ones get their patterns and threat levels
 * re-read from the tables. Undo clears the same bits and puts back the
 * patterns and threat levels the move changed from a record the move kept
 * (play and undo together run 20-27% faster than when undo re-read
 * them; when a long game and search fill the record, undo re-reads).
 * Occupied cells keep their keys current but their patterns are only
 * meaningful while empty.
 *
 * The board also keeps, per side, how many (empty cell, direction) pairs
 * hold each Pattern and how many empty cells hold each Threat level. These
 * counts feed the static evaluation and tell the search at once whether,
 * say, the opponent has a four, without scanning the board.
 *
 * A per-cell count of stones nearby (a 5x5 square plus the line points at
 * distance three) marks the candidate area for move generation, and a
 * bounding box of the stones bounds every candidate scan.
 */
#ifndef GOMOKUD_BOARD_H
#define GOMOKUD_BOARD_H

#include "eval_tables.h"
#include "pattern.h"
#include "types.h"

typedef struct {
    uint32_t key[4];   /* line neighbour keys, one per direction */
    uint16_t pat4[2];  /* per side (black [0], white [1]): the Pattern of direction d in bits 4d..4d+3 */
    uint8_t packed[4]; /* per direction: both sides' Patterns as the pattern table packs them */
    uint16_t code[2];  /* per side: pattern_code(pat4[side]), kept beside it */
    uint8_t threat[2]; /* Threat for black [0] and white [1] */
    uint8_t stone;     /* Color */
} Cell;

typedef struct {
    Move move;
    int8_t x0, y0, x1, y1; /* bounding box before the move */
    /* What undo restores instead of re-reading the tables: the evaluation
     * sums and the played cell's patterns before the move, and where the
     * move's entries in Board.changes begin (BOARD_NO_CHANGES when they did
     * not fit: undo then re-reads). */
    int32_t esum[2][EVAL_ROLES];
    uint16_t pat4[2], code[2];
    uint8_t packed[4];
    uint8_t threat[2];
    uint16_t changes;
} BoardUndo;

/* An empty cell whose pattern in direction d a move changed, as it was
 * before the move. A move changes each cell at most once (one line and
 * offset lead from the move to it). */
typedef struct {
    uint16_t cell;
    uint8_t d, packed;
    uint16_t pat4[2], code[2];
    uint8_t threat[2];
} BoardChange;
#define BOARD_CHANGES 4096
#define BOARD_NO_CHANGES 0xFFFF

/* Threat kinds kept as point sets: a five, a four of any kind (including a
 * straight or double four), a straight or double four, an open three. */
enum { TK_FIVE, TK_FOUR, TK_OPEN4, TK_THREE, TK_COUNT };
#define BOARD_BITWORDS ((BOARD_CELLS + 63) / 64)

typedef struct {
    int size;
    Rule rule;
    Color to_move;
    int nmoves;
    uint64_t key;                       /* Zobrist key of stones, side to move, rule and size */
    int x0, y0, x1, y1;                 /* bounding box of the stones (x0 > x1 when empty) */
    int tcount[2][T_COUNT];             /* empty cells per threat level, per side */
    /* Per side and role (EVAL_MOVER, EVAL_WAITER): the sum over empty cells
     * of the side's code values (eval_tables.h), from the tables in etab. */
    int32_t esum[2][EVAL_ROLES];
    const int16_t (*etab[2])[EVAL_ROLES];
    /* While set, play and undo leave esum alone (the threat search needs no
     * evaluation). Set and cleared at the same position, so that every
     * move made meanwhile is also taken back meanwhile: the sums then stay
     * right. */
    bool no_eval;
    BoardUndo history[BOARD_MAX_MOVES]; /* moves played, oldest first */
    /* Candidate area, one byte a point so scans are cheap: the number of
     * stones in the neighbourhood, plus AREA_TAKEN on stones and walls. A
     * point is a candidate when its byte is from 1 to AREA_TAKEN - 1. */
    uint8_t area[BOARD_CELLS];
    /* Per side, the empty points of each threat kind (TK_*) as bit sets, so
     * the threat moves of a position are read without scanning. */
    uint64_t tbits[2][TK_COUNT][BOARD_BITWORDS];
    Cell cell[BOARD_CELLS];
    int nchanges; /* entries of changes in use; 0 on an empty board */
    /* The cells the moves on the board changed, oldest first; last, so that
     * an empty board is copied without it. */
    BoardChange changes[BOARD_CHANGES];
} Board;

#define AREA_TAKEN 0x80

/* Stones in the candidate neighbourhood of m. */
static inline int board_near(const Board *b, Move m) { return b->area[m] & (AREA_TAKEN - 1); }

/* True when m is empty and has a stone in its neighbourhood. */
static inline bool board_candidate(const Board *b, Move m) { return (uint8_t)(b->area[m] - 1) < AREA_TAKEN - 1; }

/* The four line directions as index steps: horizontal, vertical, and the
 * two diagonals. */
extern const int board_dir[4];

/* Builds the pattern tables and Zobrist keys. Call once before any Board is
 * used; idempotent, not thread-safe. Returns false when memory is short. */
bool board_init_tables(void);

/* Empties the board and sets its size (BOARD_MIN_SIZE..BOARD_MAX_SIZE) and
 * rule. Returns false, leaving the board untouched, for a size out of range. */
bool board_reset(Board *b, int size, Rule rule);

/* Recomputes every derived field (keys, patterns, threats, counts, near
 * counts, bounding box, Zobrist key) from the stones and side to move alone,
 * by scanning. Tests use it to check the incremental upkeep. */
void board_rebuild(Board *b);

/* True when m is a point of this board (in range, not a wall). */
static inline bool board_on(const Board *b, Move m)
{
    return m >= 0 && m < BOARD_CELLS && b->cell[m].stone != WALL;
}

static inline bool board_empty(const Board *b, Move m) { return board_on(b, m) && b->cell[m].stone == EMPTY; }

/* Places a stone of the side to move on the empty point m and passes the
 * turn. The caller guarantees m is empty and on the board. */
void board_play(Board *b, Move m);

/* Takes back the last move. The caller guarantees nmoves > 0. */
void board_undo(Board *b);

/* Passes the turn without a stone (for asking what the opponent threatens);
 * undo with a second call. Not recorded in the history. */
void board_pass(Board *b);

/* The Zobrist key the board would have after the side to move plays m
 * (what a search needs to probe a child's table entry without playing it). */
uint64_t board_key_after(const Board *b, Move m);

static inline Move board_last(const Board *b) { return b->nmoves ? b->history[b->nmoves - 1].move : MOVE_NONE; }

static inline Pattern board_pattern(const Board *b, Move m, int dir, Color side)
{
    return (Pattern)(b->cell[m].pat4[side - 1] >> (4 * dir) & 15);
}

static inline Threat board_threat(const Board *b, Move m, Color side)
{
    return (Threat)b->cell[m].threat[side - 1];
}

/* True when side, playing the empty point m, makes a winning five under the
 * board's rule. */
static inline bool board_makes_five(const Board *b, Move m, Color side)
{
    return b->cell[m].threat[side - 1] == T_FIVE;
}

/* The words of the threat bit sets that can hold a point: threat points lie
 * within a pattern's reach of a stone, so only the rows of the stones'
 * bounding box widened by it. first > last when there are no stones. */
static inline void board_threat_words(const Board *b, int *first, int *last)
{
    int lo = b->y0 - PATTERN_HALF, hi = b->y1 + PATTERN_HALF;
    if (lo < 0) lo = 0;
    if (hi > b->size - 1) hi = b->size - 1;
    *first = lo > hi ? 1 : MOVE_XY(0, lo) >> 6;
    *last = lo > hi ? 0 : MOVE_XY(b->size - 1, hi) >> 6;
}

/* Writes the empty points where side has a threat of kind TK_*, in board
 * order, at most max of them; returns how many. */
static inline int board_threat_points(const Board *b, Color side, int kind, Move *out, int max)
{
    const uint64_t *w = b->tbits[side - 1][kind];
    int n = 0, first, last;
    board_threat_words(b, &first, &last);
    for (int i = first; i <= last && n < max; i++)
        for (uint64_t x = w[i]; x && n < max; x &= x - 1) out[n++] = (Move)(i * 64 + __builtin_ctzll(x));
    return n;
}

/* Scans the stones for a winning line of colour c under the board's rule
 * (five or more in freestyle and for renju white, exactly five otherwise). */
bool board_has_five(const Board *b, Color c);

/* True when every point of the board holds a stone. */
static inline bool board_full(const Board *b) { return b->nmoves >= b->size * b->size; }

/* Notation: "h8" = column letter from the left (a.., no letter skipped) and
 * row number from the bottom. move_parse accepts that or "x,y"
 * (zero-based from the top-left); each returns MOVE_NONE for anything that is
 * not a point of a size x size board. Upper-case letters are accepted. */
Move move_parse(const char *s, int size);
Move move_parse_notation(const char *s, int size);
Move move_parse_xy(const char *s, int size);

/* Writes m in notation into buf (at least 4 bytes) and returns buf. */
char *move_to_notation(Move m, int size, char *buf);
/* Writes m as "x,y" into buf (at least 6 bytes) and returns buf. */
char *move_to_xy(Move m, char *buf);

/* Zobrist key of the empty board of this size and rule (for tests). */
uint64_t board_base_key(int size, Rule rule);

/* The 8 symmetries of the square board, t = 0..7: bit 2 swaps x and y
 * first, then bit 0 mirrors x and bit 1 mirrors y; t = 0 is the identity.
 * board_sym_move maps a point of a size x size board through t,
 * board_sym_unmove through its inverse (MOVE_NONE stays MOVE_NONE). */
Move board_sym_move(Move m, int size, int t);
Move board_sym_unmove(Move m, int size, int t);

/* The Zobrist key the board would have with every stone mapped through
 * symmetry t (same side to move, rule and size). */
uint64_t board_sym_key(const Board *b, int t);

#endif
