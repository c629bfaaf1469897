/* rules.c - renju forbidden points and win detection (see rules.h). */
#include "rules.h"

#include <string.h>

/* Deeper than this, a three's straight-four point is taken as allowed: real
 * positions never come near it, and it bounds the work on made-up ones. */
#define FORBID_MAX_DEPTH 8

static const char *const rule_names[RULE_COUNT] = {"freestyle", "standard", "renju"};

bool rule_parse(const char *s, Rule *out)
{
    for (int r = 0; s && r < RULE_COUNT; r++)
        if (!strcmp(s, rule_names[r])) {
            *out = (Rule)r;
            return true;
        }
    return false;
}

const char *rule_name(Rule r) { return (unsigned)r < RULE_COUNT ? rule_names[r] : "?"; }

static bool is_open_three(Pattern p) { return p == P_F3 || p == P_F3S; }

static bool forbidden_at(Board *b, Move m, int depth)
{
    Threat t = board_threat(b, m, BLACK);
    if (t == T_FIVE) return false;
    if (t == T_FORBID) return true;
    int threes = 0;
    for (int d = 0; d < 4; d++) threes += is_open_three(board_pattern(b, m, d, BLACK));
    if (threes < 2 || depth >= FORBID_MAX_DEPTH) return false;

    Pattern before[4];
    for (int d = 0; d < 4; d++) before[d] = board_pattern(b, m, d, BLACK);
    Color saved = b->to_move;
    b->to_move = BLACK;
    board_play(b, m);
    int real = 0;
    for (int d = 0; d < 4 && real < 2; d++) {
        if (!is_open_three(before[d])) continue;
        for (int k = -4; k <= 4; k++) {
            Move e = (Move)(m + k * board_dir[d]);
            if (!k || b->cell[e].stone != EMPTY) continue;
            if (board_pattern(b, e, d, BLACK) == P_F4 && !forbidden_at(b, e, depth + 1)) {
                real++;
                break;
            }
        }
    }
    board_undo(b);
    b->to_move = saved;
    return real >= 2;
}

bool rules_is_forbidden(Board *b, Move m)
{
    if (b->rule != RULE_RENJU || !board_empty(b, m)) return false;
    return forbidden_at(b, m, 0);
}

bool rules_is_legal(Board *b, Move m)
{
    if (!board_empty(b, m)) return false;
    return !(b->to_move == BLACK && rules_is_forbidden(b, m));
}

int rules_forbidden_points(Board *b, Move *out)
{
    int n = 0;
    if (b->rule != RULE_RENJU) return 0;
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            Move m = MOVE_XY(x, y);
            if (b->cell[m].stone == EMPTY && forbidden_at(b, m, 0)) out[n++] = m;
        }
    return n;
}

Color rules_winner(const Board *b)
{
    if (board_has_five(b, BLACK)) return BLACK;
    if (board_has_five(b, WHITE)) return WHITE;
    return EMPTY;
}
