/* Rules: fives per rule, renju forbidden points with the real-three check. */
#include <criterion/criterion.h>

#include "engine/rules.h"
#include "support.h"

static Board b;

static bool forbidden(const char *black, const char *white, const char *point)
{
    support_stones(&b, 15, RULE_RENJU, black, white, BLACK);
    uint64_t key = b.key;
    bool f = rules_is_forbidden(&b, support_pt(&b, point));
    cr_assert_eq(b.key, key, "the check leaves the board as it was");
    cr_assert_eq(b.to_move, BLACK);
    return f;
}

Test(rules, rule_names_parse_and_print)
{
    Rule r;
    cr_assert(rule_parse("renju", &r) && r == RULE_RENJU);
    cr_assert(rule_parse("standard", &r) && r == RULE_STANDARD);
    cr_assert(rule_parse("freestyle", &r) && r == RULE_FREESTYLE);
    cr_assert_not(rule_parse("Renju", &r));
    cr_assert_not(rule_parse("", &r));
    cr_assert_str_eq(rule_name(RULE_STANDARD), "standard");
}

Test(rules, renju_double_three_is_forbidden_to_black)
{
    cr_assert(forbidden("f8 g8 h6 h7", "", "h8"));
}

Test(rules, renju_double_three_is_fine_for_white)
{
    support_stones(&b, 15, RULE_RENJU, "a1 a3 o1 o3", "f8 g8 h6 h7", WHITE);
    cr_assert(rules_is_legal(&b, support_pt(&b, "h8")));
    cr_assert_eq(board_threat(&b, support_pt(&b, "h8"), WHITE), T_F3X2);
}

Test(rules, renju_double_four_is_forbidden_even_with_both_fours_blocked)
{
    cr_assert(forbidden("e8 f8 g8 h5 h6 h7", "d8 h4", "h8"));
}

Test(rules, renju_two_fours_on_one_line_are_a_double_four)
{
    cr_assert(forbidden("d8 f8 g8 j8", "", "h8"), "X.XXX.X with the middle point");
}

Test(rules, renju_overline_is_forbidden_to_black)
{
    cr_assert(forbidden("c8 d8 e8 f8 h8", "", "g8"));
}

Test(rules, renju_five_is_allowed_even_when_it_also_makes_a_double_three)
{
    /* g8 makes d8-h8 five and also threes on the column and the diagonal */
    cr_assert_not(forbidden("d8 e8 f8 h8 g6 g7 f7 e6", "", "g8"));
}

Test(rules, renju_four_three_is_allowed)
{
    cr_assert_not(forbidden("e8 f8 g8 h6 h7", "d8", "h8"));
}

Test(rules, renju_blocked_three_does_not_count)
{
    /* the row three f8 g8 h8 has white on e8 and j8: it can never be straight */
    cr_assert_not(forbidden("f8 g8 h6 h7", "e8 j8", "h8"));
}

Test(rules, renju_three_whose_straight_four_point_is_forbidden_is_fake)
{
    /*
     * h8 makes threes on row 8 (f8 g8 h8, its only straight-four point i8
     * because d8 is white) and on column h (h6 h7 h8). i8 would give black
     * a straight four on row 8 and a four on column i (i5 i6 i7 i8): a
     * double four, so forbidden. The row three is therefore fake and h8 is
     * allowed.
     */
    cr_assert_not(forbidden("f8 g8 h6 h7 i5 i6 i7", "d8", "h8"));
    /* the same without the white stone: e8 now makes the straight four */
    cr_assert(forbidden("f8 g8 h6 h7 i5 i6 i7", "", "h8"));
}

Test(rules, forbidden_points_are_listed_in_board_order)
{
    /* h8 is a double three, f12 an overline (c12 d12 e12 f12 g12 h12) */
    support_stones(&b, 15, RULE_RENJU, "f8 g8 h6 h7 c12 d12 e12 g12 h12", "a1 a2 b2 b3 b4 b5 o1 o2 o15", BLACK);
    Move out[BOARD_MAX_MOVES];
    int n = rules_forbidden_points(&b, out);
    cr_assert_eq(n, 2);
    cr_assert_eq(out[0], support_pt(&b, "f12"), "board order: top row first");
    cr_assert_eq(out[1], support_pt(&b, "h8"));
    support_stones(&b, 15, RULE_FREESTYLE, "f8 g8 h6 h7", "a1 a2 a3 a4", BLACK);
    cr_assert_eq(rules_forbidden_points(&b, out), 0, "only renju has forbidden points");
}

Test(rules, forbidden_points_are_listed_whoever_is_to_move)
{
    support_stones(&b, 15, RULE_RENJU, "f8 g8 h6 h7 a1", "a3 a5 a7 a9", WHITE);
    Move out[BOARD_MAX_MOVES];
    cr_assert_eq(rules_forbidden_points(&b, out), 1);
    cr_assert_eq(b.to_move, WHITE);
}

Test(rules, white_overline_wins_in_renju_and_black_exact_five_wins)
{
    support_stones(&b, 15, RULE_RENJU, "a1 a3 a5 a7 a9 o1", "c8 d8 e8 f8 h8", WHITE);
    cr_assert(board_makes_five(&b, support_pt(&b, "g8"), WHITE));
    support_stones(&b, 15, RULE_RENJU, "c8 d8 e8 f8", "a1 a3 a5 a7", BLACK);
    cr_assert(board_makes_five(&b, support_pt(&b, "g8"), BLACK));
    cr_assert_not(rules_is_forbidden(&b, support_pt(&b, "g8")));
}

Test(rules, the_winner_is_read_off_the_stones)
{
    support_stones(&b, 15, RULE_FREESTYLE, "c8 d8 e8 f8 g8", "c9 d9 e9 f9", WHITE);
    cr_assert_eq(rules_winner(&b), BLACK);
    support_stones(&b, 15, RULE_STANDARD, "c8 d8 e8 f8 g8 h8", "c9 d9 e9 f9 a1", WHITE);
    cr_assert_eq(rules_winner(&b), EMPTY);
    support_stones(&b, 15, RULE_RENJU, "c9 d9 e9 f9 a1 b1", "c8 d8 e8 f8 g8 h8", BLACK);
    cr_assert_eq(rules_winner(&b), WHITE);
}

Test(rules, legality_covers_occupied_and_off_board_points)
{
    support_moves(&b, 15, RULE_RENJU, "h8 i9");
    cr_assert_not(rules_is_legal(&b, support_pt(&b, "h8")));
    cr_assert_not(rules_is_legal(&b, MOVE_XY(15, 3)));
    cr_assert_not(rules_is_legal(&b, MOVE_NONE));
    cr_assert(rules_is_legal(&b, support_pt(&b, "h9")));
}
