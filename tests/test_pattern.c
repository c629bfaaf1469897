/* Line patterns and threat levels, read off real boards. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "engine/pattern.h"
#include "support.h"

/* Direction steps as (dx, dy), matching board_dir. */
static const int DX[4] = {1, 0, 1, -1}, DY[4] = {0, 1, 1, 1};

/*
 * Lays an 11-character line on a board along direction d and returns the
 * pattern of its centre ('*', index 5) for the side playing 'X'. 'O' is the
 * other side, '#' is off the board (the line is pushed against the edge),
 * '.' is empty. mine selects which colour plays 'X'.
 */
static Pattern line_pattern(const char *line, Rule rule, Color mine, int d)
{
    cr_assert_eq(strlen(line), 11);
    int left = 0, right = 10;
    while (line[left] == '#') left++;
    while (line[right] == '#') right--;
    cr_assert(left <= 5 && right >= 5);
    int size = 15;
    if (left > 0 && right < 10) size = right - left + 1;
    cr_assert(size >= BOARD_MIN_SIZE);

    /* centre position: index i of the line is centre + (i - 5) * (dx, dy) */
    int cx = 7, cy = 7;
    if (left > 0) {
        /* index left must be the first on-board point */
        if (DX[d] == 1) cx = 5 - left;
        if (DX[d] == -1) cx = size - 6 + left;
        if (DY[d] == 1) cy = 5 - left;
    } else if (right < 10) {
        if (DX[d] == 1) cx = size - 1 - (right - 5);
        if (DX[d] == -1) cx = right - 5;
        if (DY[d] == 1) cy = size - 1 - (right - 5);
    }
    if (left > 0 && right < 10) {
        /* both ends walled: the perpendicular coordinate must stay on board */
        if (DX[d] == 0) cx = size / 2;
        if (DY[d] == 0) cy = size / 2;
    }

    static Board b;
    support_init();
    cr_assert(board_reset(&b, size, rule));
    for (int i = 0; i < 11; i++) {
        int x = cx + (i - 5) * DX[d], y = cy + (i - 5) * DY[d];
        bool on = x >= 0 && y >= 0 && x < size && y < size;
        cr_assert_eq(on, line[i] != '#', "line '%s' dir %d: index %d misplaced", line, d, i);
        if (line[i] == 'X') b.cell[MOVE_XY(x, y)].stone = (uint8_t)mine;
        if (line[i] == 'O') b.cell[MOVE_XY(x, y)].stone = (uint8_t)OPPONENT(mine);
    }
    board_rebuild(&b);
    Move c = MOVE_XY(cx, cy);
    cr_assert_eq(b.cell[c].stone, EMPTY);
    return board_pattern(&b, c, d, mine);
}

typedef struct {
    const char *line;
    Rule rule;
    Pattern as_black, as_white;
} LineCase;

static const LineCase cases[] = {
    /* fives and overlines */
    {".XXXX*.....", RULE_FREESTYLE, P_F5, P_F5},
    {"...XX*XX...", RULE_STANDARD, P_F5, P_F5},
    {"XXXXX*.....", RULE_FREESTYLE, P_F5, P_F5},
    {"XXXXX*.....", RULE_STANDARD, P_OL, P_OL},
    {"XXXXX*.....", RULE_RENJU, P_OL, P_F5},
    {".XXXX*X....", RULE_STANDARD, P_OL, P_OL},
    {".XXXX*X....", RULE_RENJU, P_OL, P_F5},
    /* fours */
    {"..XXX*.....", RULE_FREESTYLE, P_F4, P_F4},
    {"...XX*X....", RULE_RENJU, P_F4, P_F4},
    {".OXXX*.....", RULE_FREESTYLE, P_B4, P_B4},
    {"...X.*XX...", RULE_FREESTYLE, P_B4, P_B4},
    {"X.XXX*.....", RULE_FREESTYLE, P_F4, P_F4},
    {"X.XXX*.....", RULE_STANDARD, P_B4, P_B4},
    {"X.XXX*.....", RULE_RENJU, P_B4, P_F4},
    {"..X.X*X.X..", RULE_FREESTYLE, P_F44, P_F44},
    {"..X.X*X.X..", RULE_RENJU, P_F44, P_F44},
    /* threes */
    {"....X*X....", RULE_FREESTYLE, P_F3S, P_F3S},
    {"O..XX*..O..", RULE_FREESTYLE, P_F3S, P_F3S},
    {".....*X.X..", RULE_FREESTYLE, P_F3, P_F3},
    {".O.XX*.O...", RULE_FREESTYLE, P_B3, P_B3},
    {"..OXX*.....", RULE_FREESTYLE, P_B3, P_B3},
    /* twos, ones, dead */
    {"....X*.....", RULE_FREESTYLE, P_F2A, P_F2A},
    {"...OX*.....", RULE_FREESTYLE, P_B2, P_B2},
    {".....*.....", RULE_FREESTYLE, P_F1, P_F1},
    {"...OX*XO...", RULE_FREESTYLE, P_DEAD, P_DEAD},
    {"..O..*..O..", RULE_FREESTYLE, P_B1, P_B1},
    /* against the edge of the board */
    {"####X*XX...", RULE_FREESTYLE, P_B4, P_B4},
    {"#####*XXX..", RULE_FREESTYLE, P_B4, P_B4},
    {"...XX*XXX##", RULE_STANDARD, P_OL, P_OL},
    {"....X*X.###", RULE_FREESTYLE, P_F3, P_F3},
    {"....X*X####", RULE_FREESTYLE, P_B3, P_B3},
    {"###..*..###", RULE_FREESTYLE, P_B1, P_B1},
    {"###O.*..###", RULE_FREESTYLE, P_DEAD, P_DEAD},
};

Test(pattern, every_line_case_reads_the_same_in_all_directions_and_for_both_sides)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const LineCase *c = &cases[i];
        for (int d = 0; d < 4; d++) {
            Pattern b = line_pattern(c->line, c->rule, BLACK, d);
            Pattern w = line_pattern(c->line, c->rule, WHITE, d);
            cr_expect_eq(b, c->as_black, "'%s' rule %d dir %d as black: got %s, want %s", c->line, c->rule, d,
                         pattern_name(b), pattern_name(c->as_black));
            cr_expect_eq(w, c->as_white, "'%s' rule %d dir %d as white: got %s, want %s", c->line, c->rule, d,
                         pattern_name(w), pattern_name(c->as_white));
        }
    }
}

Test(pattern, the_tables_agree_with_classifying_each_line_from_scratch)
{
    support_init();
    static const bool exact[RULE_COUNT][2] = {{false, false}, {true, true}, {true, false}};
    uint64_t s = 99;
    for (int n = 0; n < 20000; n++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t key = (uint32_t)(s >> 40) & (PATTERN_KEYS - 1);
        Color cells[11];
        for (int o = -5; o <= 5; o++) cells[o + 5] = o ? (Color)(key >> pattern_key_shift(o) & 3) : EMPTY;
        Rule r = (Rule)(n % RULE_COUNT);
        for (int side = 0; side < 2; side++) {
            Color c = side ? WHITE : BLACK;
            Pattern want = pattern_classify_line(cells, c, exact[r][side]);
            cr_assert_eq(pattern_of(r, key, c), want, "key %05x rule %d side %d", key, r, side);
        }
    }
}

typedef struct {
    const char *black, *white, *point;
    Rule rule;
    Threat for_black, for_white;
} ThreatCase;

static const ThreatCase threat_cases[] = {
    /* a five */
    {"d8 e8 f8 g8", "", "h8", RULE_FREESTYLE, T_FIVE, T_NONE},
    /* a straight four */
    {"e8 f8 g8", "", "h8", RULE_FREESTYLE, T_F4, T_NONE},
    /* two fours at one point */
    {"e8 f8 g8 h5 h6 h7", "d8 h4", "h8", RULE_FREESTYLE, T_F4, T_NONE},
    {"e8 f8 g8 h5 h6 h7", "d8 h4", "h8", RULE_RENJU, T_FORBID, T_NONE},
    {"e8 f8 g8 h5 h6 h7", "d8 h4", "h8", RULE_STANDARD, T_F4, T_NONE},
    /* four-three */
    {"e8 f8 g8 h6 h7", "d8", "h8", RULE_FREESTYLE, T_B4F3, T_NONE},
    /* double three */
    {"f8 g8 h6 h7", "", "h8", RULE_FREESTYLE, T_F3X2, T_NONE},
    /* an open three alone, and with an open two beside it */
    {"f8 g8", "", "h8", RULE_FREESTYLE, T_F3, T_NONE},
    {"f8 g8 h7", "", "h8", RULE_FREESTYLE, T_F3P, T_NONE},
    /* a lone four */
    {"e8 f8 g8", "d8", "h8", RULE_FREESTYLE, T_B4, T_NONE},
    /* an overline point is forbidden to black in renju, a win for white */
    {"c8 d8 e8 f8 h8", "", "g8", RULE_RENJU, T_FORBID, T_NONE},
    {"", "c8 d8 e8 f8 h8", "g8", RULE_RENJU, T_LOW, T_FIVE},
};

Test(pattern, threat_levels_combine_the_four_directions)
{
    static Board b;
    for (size_t i = 0; i < sizeof threat_cases / sizeof threat_cases[0]; i++) {
        const ThreatCase *c = &threat_cases[i];
        support_stones(&b, 15, c->rule, c->black, c->white, BLACK);
        Move p = support_pt(&b, c->point);
        Threat tb = board_threat(&b, p, BLACK), tw = board_threat(&b, p, WHITE);
        cr_expect_eq(tb, c->for_black, "case %zu: black at %s is %s, want %s", i, c->point, threat_name(tb),
                     threat_name(c->for_black));
        if (c->for_white != T_NONE)
            cr_expect_eq(tw, c->for_white, "case %zu: white at %s is %s, want %s", i, c->point, threat_name(tw),
                         threat_name(c->for_white));
    }
}

Test(pattern, threat_counts_tell_a_four_exists_without_a_scan)
{
    static Board b;
    support_stones(&b, 15, RULE_FREESTYLE, "e8 f8 g8 h8", "i8", WHITE);
    cr_assert_eq(b.tcount[BLACK - 1][T_FIVE], 1, "black's four has exactly one five point");
    cr_assert_eq(board_threat(&b, support_pt(&b, "d8"), BLACK), T_FIVE);
    cr_assert_eq(b.tcount[WHITE - 1][T_FIVE], 0);
}
