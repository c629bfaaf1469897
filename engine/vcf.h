/*
 * vcf.h - threat-space search: VCF (victory by continuous fours) and VCT
 * (victory by continuous threats: threes and fours), solved by depth-first
 * proof-number search (df-pn).
 *
 * The game tree. The attacker (the side to move at the start) plays only
 * threats: fives, fours and, in a VCT, open threes; when the defender has
 * just made a four, the attacker must block it first (in a VCF that block
 * must itself be a four). The defender's answers are complete, not a guess:
 * against a four, its five point (or nothing: two five points, or a five
 * point forbidden to renju black, lose at once); against an open three, every
 * point after which no straight four is left plus every four of its own
 * (movegen_defences). A defender five ends the attack. With quiet_plies the
 * attacker may also open with a quiet move that makes two or more lines of
 * threats at once (an open two pair, or a closed three with an open two);
 * then every candidate reply of the defender must lose.
 *
 * Quiet moves that threaten a VCF. With quiet_moves, such a double-threat
 * move may come anywhere in the line (at most quiet_moves of them), when
 * it threatens a VCF: the attacker would win by fours if the defender
 * passed (against an open three of the defender's, such a move may be one
 * of its defences, but only then: as an opener it would have every answer
 * tried). The defender's answers are then every point after which that VCF
 * line no longer wins, found by playing the line on with the point taken
 * (each four still a four, each block still forced, no five of the
 * defender's on the way); the points that cannot touch the line (off its
 * fours' lines, and no four of the defender's even with its blocks on the
 * board) are not tried, so the set stays complete. When the line leans on
 * renju's forbidden points in a way a far stone could change (a black four
 * with two open threes through it, a block black may not make), a far
 * point is tried too when its stone changes whether black may take such a
 * point where the line asks. Renju white may also make such a move with a
 * closed three alone when its four could have its five point on a point
 * black may not take (the four that follows cannot be blocked). The
 * threatened VCF is found by a small df-pn VCF in the same table (VCF_THREAT_NODES; running out of it only means no threat). These
 * searches come second: threes and fours alone are tried first (exactly
 * the plain VCT), and only when they fail within max_plies the search
 * starts again with the quiet moves, in a table of its own; in that pass an
 * opener that threatens a VCF is answered the same way.
 *
 * df-pn. Attacker nodes are OR nodes (one winning move proves them),
 * defender nodes AND nodes (every answer must lose). Each node has a proof
 * number (how many leaves at least must still be proven) and a disproof
 * number; the search always goes into the most-proving child, under
 * thresholds that let it stay there until that child's numbers pass its
 * sibling's (the 1 + epsilon rule of Pawlewicz and Lew keeps it from
 * switching too often). Every node's numbers go into a table keyed by
 * Zobrist key, so transpositions and earlier iterations are reused; a
 * proof is kept with its length in plies, a disproof with the number of
 * plies it covered (a disproof within fewer plies proves nothing for a
 * deeper search). Gomoku positions never repeat, so the table needs no
 * cycle handling. A new child's first numbers come from the move order
 * (the policy's score; in the VCT also how often the point has already won
 * a proven attacker node in this search, so threats that beat one answer
 * are tried first against its siblings) and the threat it makes. In the
 * VCT, once one answer of a defender node is proven lost, each other one
 * is first tried by simulation (Kawano's, from tsume-shogi): the proven
 * sibling's proof replayed, the attacker playing at every node the move
 * that won the corresponding node of the sibling (its table key differs by
 * the two answers' stones), every defender answer checked; a defender's
 * four is replayed against the node itself, after its forced block. A
 * replay that holds is a proof; one that fails costs little and says
 * nothing.
 *
 * A proof comes back as the winning line: attacker and defender moves
 * alternating, the defender always taking the answer that holds out
 * longest, ending with the five. The VCF deepens in steps, so its short
 * wins come first; the VCT searches to its limit at once, then looks for a
 * proof two plies shorter at a time, each try within a quarter of the
 * nodes spent so far, and keeps the shortest line it could follow.
 * Searches run under a node budget and an external stop check.
 */
#ifndef GOMOKUD_VCF_H
#define GOMOKUD_VCF_H

#include <stddef.h>

#include "board.h"

#define THREAT_MAX_LINE 256 /* the longest line: some VCF puzzles run to 175 plies */

typedef struct {
    uint64_t key;  /* position, attacker, search kind and salt */
    uint32_t pn;   /* proof number: 0 = proven */
    uint32_t dn;   /* disproof number: 0 = disproven */
    int16_t plies; /* the plies left when these numbers were found */
    int16_t len;   /* proven: plies to the five */
    Move best;     /* proven attacker node: the winning move */
    int16_t pad;
} ThreatEntry;

/* The defender's answers to a quiet move, kept so that the df-pn's many
 * visits of the node do not look for the threatened VCF and its breakers
 * again: the breakers of one VCF line (tl plies) are a complete answer set
 * for as long as that line fits, and no line within rem plies means none
 * within fewer. */
#define QUIET_ANSWERS_MAX 32 /* wider answer sets are found again each time */
typedef struct {
    uint64_t key;
    int16_t rem;   /* the plies left when they were found */
    int16_t tl;    /* the threatened VCF's length, 0 = none */
    int16_t n;     /* answers, or -1: the line does not win */
    Move any;      /* n == 0: one of the points that all lose */
    Move moves[QUIET_ANSWERS_MAX];
} QuietAnswers;

typedef struct {
    Board *b;
    ThreatEntry *cache; /* owned by the caller; cache_mask + 1 entries */
    size_t cache_mask;
    QuietAnswers *answers; /* owned by the caller; answers_mask + 1 entries; may be NULL */
    size_t answers_mask;
    uint64_t salt;   /* mixed into table keys; a new salt forgets earlier results */
    uint64_t nodes;  /* nodes expanded by this search so far */
    uint64_t budget; /* give up (no win) after this many nodes */
    bool (*should_stop)(void *ctx); /* polled every few hundred nodes; may be NULL */
    void *stop_ctx;
    int quiet_plies; /* attacker moves before this ply may be quiet (see above); 0 = none */
    int quiet_moves; /* later attacker moves may be quiet when they threaten a VCF:
                        at most this many quiet moves in a line; 0 = none */
    bool aborted;    /* budget or stop cut the search short */
    /* set by the search itself */
    Color attacker;
    bool vct;
    uint64_t kind_salt;
    int quiet_limit; /* quiet moves allowed in a line in this pass (0, then quiet_moves) */
    int quiet_used;  /* quiet attacker moves on the line to the current node */
    uint16_t proved[BOARD_CELLS]; /* VCT: how often each point was the winning move of a proven attacker node */
} ThreatSearch;

/* Looks for a VCF for the side to move within max_plies plies. Returns the
 * number of plies to the five (1, 3, 5, ...) and the line in line[0..*len),
 * or 0 when none was found (or the search was cut short: see aborted). The
 * board is left as it was. */
int vcf_find(ThreatSearch *ts, int max_plies, Move *line, int *len);

/* Same for a VCT (threes and fours, and quiet first moves when
 * ts->quiet_plies is set). */
int vct_find(ThreatSearch *ts, int max_plies, Move *line, int *len);

#endif
