/*
 * vcf.h - threat-space search: VCF (victory by continuous fours) and VCT
 * (victory by continuous threats: threes and fours).
 *
 * Design. Both are attacker-only searches in Allis' sense. In VCF the
 * attacker plays only moves that make a four, so every defence is forced:
 * the defender must take the five point (or lose at once if it cannot,
 * say a point forbidden to black in renju), and a defender's block that
 * makes a four of its own forces the attacker to block in turn. The tree is
 * therefore narrow and deep. VCT also lets the attacker make open threes;
 * then the defender's answers are all considered: every point where the
 * attacker would make a four (which covers every way to stop the straight
 * four) and every four of the defender's own. A win is claimed only when
 * every considered answer loses.
 *
 * Positions already shown to have no win within a given number of plies are
 * remembered in a small direct-mapped table keyed by Zobrist key (the DAG
 * of the 2010 article: transpositions are searched once). Both searches run
 * under a node budget and an external stop check, and report the winning
 * line: attacker and defender moves alternating, ending with the five.
 */
#ifndef GOMOKUD_VCF_H
#define GOMOKUD_VCF_H

#include <stddef.h>

#include "board.h"

#define THREAT_MAX_LINE 64

typedef struct {
    uint64_t key; /* position and search kind */
    int32_t plies; /* no win found within this many plies */
} ThreatCacheEntry;

typedef struct {
    Board *b;
    ThreatCacheEntry *cache; /* owned by the caller; cache_mask + 1 entries */
    size_t cache_mask;
    uint64_t salt;   /* mixed into cache keys; a new salt forgets earlier results */
    uint64_t nodes;  /* nodes visited by this search so far */
    uint64_t budget; /* give up (no win) after this many nodes */
    bool (*should_stop)(void *ctx); /* polled every few hundred nodes; may be NULL */
    void *stop_ctx;
    bool aborted; /* budget or stop cut the search short */
} ThreatSearch;

/* Looks for a VCF for the side to move within max_plies plies. Returns the
 * number of plies to the five (1, 3, 5, ...) and the line in line[0..*len),
 * or 0 when none was found (or the search was cut short: see aborted). The
 * board is left as it was. */
int vcf_find(ThreatSearch *ts, int max_plies, Move *line, int *len);

/* Same for a VCT (threes and fours), trying growing depths up to
 * max_plies so the shortest win it finds comes first. */
int vct_find(ThreatSearch *ts, int max_plies, Move *line, int *len);

#endif
