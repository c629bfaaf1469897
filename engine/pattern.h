/*
 * pattern.h - line patterns and combined threat levels.
 *
 * Design. For every empty point and each of the four directions the board
 * keeps a 20-bit key: two bits (EMPTY, BLACK, WHITE, WALL) for each of the
 * ten neighbours at offsets -5..-1 and +1..+5 along that direction. A key
 * indexes a per-rule table that gives, for black and for white, the Pattern
 * that side makes on that line by playing the point: "makes a five", "makes
 * a straight four", "makes an open three" and so on (the threat vocabulary
 * of Allis' threat-space search). Half a line is five cells so an overline
 * through the point is always seen, which is what the standard and renju
 * rules need. The four patterns of a point combine, through a second table,
 * into one Threat level per side ("makes a four-three", "makes a double
 * three", ...), which is what move generation and evaluation use.
 *
 * Patterns are defined recursively on a line with the new stone at its
 * centre: a five (exactly five where overlines do not win); a straight four
 * when two points make a five and they close one four of consecutive stones
 * (F44 is two fours on one line); a four with one five point; an open three
 * when a point makes a straight four; a closed three when a point makes a
 * four; open/closed twos and ones likewise one level further down. Renju's
 * board-level conditions (the real-three check) live in rules.c.
 *
 * All tables are read-only after pattern_init(), which must be called once
 * before any board is used (it is idempotent but not thread-safe).
 */
#ifndef GOMOKUD_PATTERN_H
#define GOMOKUD_PATTERN_H

#include "types.h"

typedef enum {
    P_DEAD = 0, /* no five can pass through here any more */
    P_OL,       /* makes an overline that does not win (exact-five sides) */
    P_B1,       /* closed one */
    P_F1,       /* open one */
    P_B2,       /* closed two: one move makes a closed three */
    P_F2,       /* open two: one move makes an open three */
    P_F2A,      /* open two with two or more ways to an open three */
    P_B3,       /* closed three: one move makes a four */
    P_F3,       /* open three: one move makes a straight four */
    P_F3S,      /* open three with two ways to a straight four */
    P_B4,       /* four: exactly one point makes a five */
    P_F4,       /* straight four: two five points closing the same four */
    P_F44,      /* two fours on one line (four stones, gaps between): a double four */
    P_F5,       /* five (exactly five where the rule asks for it) */
    P_COUNT
} Pattern;

typedef enum {
    T_NONE = 0,
    T_LOW,     /* only ones and closed twos */
    T_F2,      /* one open two */
    T_B3,      /* a closed three (and maybe an open two) */
    T_F2X2,    /* two or more open twos */
    T_F3,      /* one open three */
    T_F3P,     /* an open three plus a closed three or an open two */
    T_B4,      /* a four alone */
    T_B4P,     /* a four plus a closed three or an open two */
    T_F3X2,    /* two or more open threes (renju black: check rules_is_forbidden) */
    T_B4F3,    /* a four and an open three */
    T_F4,      /* a straight four or a double four: wins next move */
    T_FIVE,    /* makes a five */
    T_FORBID,  /* renju black: overline or double four, certainly forbidden */
    T_COUNT
} Threat;

/* Line window: ten neighbours, two bits each. */
#define PATTERN_HALF 5
#define PATTERN_KEY_BITS 20
#define PATTERN_KEYS (1u << PATTERN_KEY_BITS)

/* Bit offset in a key of the neighbour at offset o (o in -5..-1, 1..5). */
static inline int pattern_key_shift(int o) { return 2 * (o < 0 ? o + PATTERN_HALF : o + PATTERN_HALF - 1); }

/* Builds every read-only table of the pattern module (about 3 MiB).
 * Idempotent; returns false only when memory cannot be had. */
bool pattern_init(void);

/* Packed patterns (black in the low nibble, white in the high nibble) by
 * rule. Freestyle ignores the cells five away (an overline wins anyway), so
 * its table is indexed by the inner eight neighbours only: 64 KiB that stay
 * in cache instead of 1 MiB. Index a table with pattern_index(). */
extern const uint8_t *pattern_table[RULE_COUNT];

static inline uint32_t pattern_index(Rule rule, uint32_t key)
{
    return rule == RULE_FREESTYLE ? (key >> 2) & 0xFFFF : key;
}

static inline uint8_t pattern_packed(Rule rule, uint32_t key) { return pattern_table[rule][pattern_index(rule, key)]; }

static inline Pattern pattern_of(Rule rule, uint32_t key, Color side)
{
    uint8_t v = pattern_packed(rule, key);
    return (Pattern)(side == BLACK ? v & 15 : v >> 4);
}

/* Threat level of four direction patterns packed as p0 | p1<<4 | p2<<8 |
 * p3<<12. renju_black selects renju's forbidden-move semantics. One table
 * per renju_black holds it with the pat4's combination code (below): the
 * Threat above PATTERN_INFO_SHIFT, the code below, so that play reads one
 * entry where it read two tables (play+undo pairs about 2% faster). */
#define PATTERN_INFO_SHIFT 12
#define PATTERN_INFO_CODE ((1u << PATTERN_INFO_SHIFT) - 1)
extern const uint16_t *pattern_info_table[2];

static inline uint16_t pattern_info(uint16_t pat4, bool renju_black) { return pattern_info_table[renju_black][pat4]; }
static inline Threat pattern_info_threat(uint16_t info) { return (Threat)(info >> PATTERN_INFO_SHIFT); }
static inline unsigned pattern_info_code(uint16_t info) { return info & PATTERN_INFO_CODE; }

static inline Threat threat_of(uint16_t pat4, bool renju_black)
{
    return pattern_info_threat(pattern_info(pat4, renju_black));
}

/* Pattern combination codes: the unordered four patterns of a point for one
 * side, numbered 0..PATTERN_CODES-1 (multisets of four of the 14 patterns:
 * C(17, 4) = 2380). The evaluation's tables are indexed by them. Index the
 * table with a packed pat4 as for threat_of. */
#define PATTERN_CODES 2380
_Static_assert(PATTERN_CODES <= PATTERN_INFO_CODE + 1 && T_COUNT <= 1 << (16 - PATTERN_INFO_SHIFT),
               "a code and a Threat share 16 bits");

static inline unsigned pattern_code(uint16_t pat4) { return pattern_info_code(pattern_info(pat4, false)); }

/* The four patterns of a code, in ascending order. */
void pattern_code_patterns(unsigned code, Pattern out[4]);

/* Threat levels that make a four (a point to block next move) and those that
 * make an open three without a four (a straight four threatened). */
static inline bool threat_is_four(Threat t) { return t == T_B4 || t == T_B4P || t == T_B4F3 || t == T_F4; }
static inline bool threat_is_three(Threat t) { return t == T_F3 || t == T_F3P || t == T_F3X2; }

/* Number of fours a pattern contributes to the renju double-four count. */
static inline int pattern_fours(Pattern p) { return p == P_F44 ? 2 : (p == P_B4 || p == P_F4) ? 1 : 0; }

/* Short names ("F3", "B4", "FIVE") for tests and debugging. */
const char *pattern_name(Pattern p);
const char *threat_name(Threat t);

/* Classifies one line from scratch, without the tables: cells[0..10] hold the
 * line with the point at index 5 (its content is ignored), exact selects
 * exactly-five semantics. Used to build the tables and by tests. */
Pattern pattern_classify_line(const Color cells[2 * PATTERN_HALF + 1], Color side, bool exact);

#endif
