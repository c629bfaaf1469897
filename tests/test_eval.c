/* Static evaluation: side-to-move relative, driven by shape. */
#include <criterion/criterion.h>

#include "engine/eval.h"
#include "support.h"

static Board b;

Test(eval, the_empty_board_is_worth_only_the_tempo)
{
    support_init();
    cr_assert(board_reset(&b, 15, RULE_FREESTYLE));
    cr_assert_eq(eval_side(&b, BLACK), 0);
    cr_assert_eq(eval_side(&b, WHITE), 0);
    cr_assert_gt(eval_static(&b), 0);
}

Test(eval, the_score_is_from_the_side_to_moves_view)
{
    support_stones(&b, 15, RULE_FREESTYLE, "f8 g8 h8", "a1 o15", BLACK);
    Score black_view = eval_static(&b);
    support_stones(&b, 15, RULE_FREESTYLE, "f8 g8 h8", "a1 o15 o1", WHITE);
    Score white_view = eval_static(&b);
    cr_assert_gt(black_view, 0, "black's open three is good for black to move");
    cr_assert_lt(white_view, 0, "and bad for white to move");
}

Test(eval, an_open_three_is_worth_more_than_a_blocked_one)
{
    support_stones(&b, 15, RULE_FREESTYLE, "f8 g8 h8", "", WHITE);
    Score open = eval_side(&b, BLACK);
    support_stones(&b, 15, RULE_FREESTYLE, "f8 g8 h8", "e8", BLACK);
    Score blocked = eval_side(&b, BLACK);
    cr_assert_gt(open, blocked);
}

Test(eval, swapping_colours_and_side_to_move_gives_the_same_score)
{
    support_stones(&b, 15, RULE_FREESTYLE, "f8 g8 h8 h9", "g9 j7 e5", WHITE);
    Score a = eval_static(&b);
    support_stones(&b, 15, RULE_FREESTYLE, "g9 j7 e5", "f8 g8 h8 h9", BLACK);
    cr_assert_eq(eval_static(&b), a);
}

Test(eval, the_score_stays_within_its_bound)
{
    support_stones(&b, 25, RULE_FREESTYLE,
                   "a1 c1 e1 g1 i1 k1 m1 o1 q1 s1 u1 w1 y1 a3 c3 e3 g3 i3 k3 m3 o3 q3 s3 u3 w3 y3",
                   "a5 c5 e5 g5 i5 k5 m5 o5 q5 s5 u5 w5 y5 a7 c7 e7 g7 i7 k7 m7 o7 q7 s7 u7 w7 y7", BLACK);
    Score v = eval_static(&b);
    cr_assert(v <= EVAL_MAX && v >= -EVAL_MAX);
}
