/* Board: notation, play/undo, Zobrist key, incremental upkeep. */
#include <criterion/criterion.h>
#include <string.h>

#include "engine/eval.h"
#include "support.h"

Test(board, notation_h8_is_the_centre_of_15x15)
{
    Move m = move_parse("h8", 15);
    cr_assert_eq(MOVE_X(m), 7);
    cr_assert_eq(MOVE_Y(m), 7);
    char buf[8];
    cr_assert_str_eq(move_to_notation(MOVE_XY(7, 7), 15, buf), "h8");
    cr_assert_str_eq(move_to_xy(MOVE_XY(7, 7), buf), "7,7");
}

Test(board, notation_counts_rows_from_the_bottom_and_columns_from_the_left)
{
    char buf[8];
    cr_assert_eq(move_parse("a1", 15), MOVE_XY(0, 14));
    cr_assert_eq(move_parse("o15", 15), MOVE_XY(14, 0));
    cr_assert_eq(move_parse("y25", 25), MOVE_XY(24, 0));
    cr_assert_eq(move_parse("A1", 5), MOVE_XY(0, 4));
    cr_assert_eq(move_parse("i9", 15), MOVE_XY(8, 6), "no letter is skipped: i is the ninth column");
    cr_assert_str_eq(move_to_notation(MOVE_XY(0, 14), 15, buf), "a1");
    cr_assert_str_eq(move_to_notation(MOVE_XY(24, 0), 25, buf), "y25");
    cr_assert_str_eq(move_to_notation(MOVE_XY(3, 0), 20, buf), "d20");
}

Test(board, gomocup_xy_is_zero_based_from_the_top_left)
{
    cr_assert_eq(move_parse("0,0", 15), MOVE_XY(0, 0));
    cr_assert_eq(move_parse("14,3", 15), MOVE_XY(14, 3));
    cr_assert_eq(move_parse("2, 4", 15), MOVE_XY(2, 4));
    char buf[8];
    cr_assert_str_eq(move_to_xy(MOVE_XY(24, 13), buf), "24,13");
}

Test(board, points_off_the_board_or_malformed_do_not_parse)
{
    const char *bad15[] = {"", "p1", "a0", "a16", "h08", "h", "8", "h8x", "-1,2", "15,0", "0,15", "1,", ",1",
                           "1;2", "hh", "h-8", "z9", "a100", "100,1", " h8"};
    for (size_t i = 0; i < sizeof bad15 / sizeof bad15[0]; i++)
        cr_expect_eq(move_parse(bad15[i], 15), MOVE_NONE, "'%s' parsed", bad15[i]);
    cr_expect_eq(move_parse(NULL, 15), MOVE_NONE);
    cr_expect_eq(move_parse("f1", 5), MOVE_NONE);
}

Test(board, sizes_outside_5_to_25_are_refused)
{
    static Board b;
    support_init();
    cr_assert_not(board_reset(&b, 4, RULE_FREESTYLE));
    cr_assert_not(board_reset(&b, 26, RULE_FREESTYLE));
    cr_assert(board_reset(&b, 5, RULE_FREESTYLE));
    cr_assert(board_reset(&b, 25, RULE_RENJU));
    cr_assert(board_on(&b, MOVE_XY(24, 24)));
    cr_assert_not(board_on(&b, MOVE_XY(25, 0)));
}

Test(board, play_then_undo_restores_the_key_and_the_side_to_move)
{
    static Board b;
    support_moves(&b, 15, RULE_FREESTYLE, "h8 i9 g7");
    uint64_t key = b.key;
    cr_assert_eq(b.to_move, WHITE);
    board_play(&b, support_pt(&b, "j10"));
    cr_assert_neq(b.key, key);
    cr_assert_eq(b.to_move, BLACK);
    cr_assert_eq(board_last(&b), support_pt(&b, "j10"));
    board_undo(&b);
    cr_assert_eq(b.key, key);
    cr_assert_eq(b.to_move, WHITE);
    cr_assert_eq(b.nmoves, 3);
    cr_assert_eq(board_last(&b), support_pt(&b, "g7"));
}

Test(board, the_same_stones_reached_in_another_order_have_the_same_key)
{
    static Board a, b;
    support_moves(&a, 15, RULE_FREESTYLE, "h8 i9 g7 j10");
    support_moves(&b, 15, RULE_FREESTYLE, "g7 j10 h8 i9");
    cr_assert_eq(a.key, b.key);
}

Test(board, keys_differ_by_rule_and_size)
{
    static Board a, b;
    support_moves(&a, 15, RULE_FREESTYLE, "h8");
    support_moves(&b, 15, RULE_RENJU, "h8");
    cr_assert_neq(a.key, b.key);
    support_moves(&b, 17, RULE_FREESTYLE, "h10");
    cr_assert_eq(MOVE_X(board_last(&b)), 7);
    cr_assert_neq(a.key, b.key);
}

Test(board, a_lone_stone_marks_its_neighbourhood_as_candidates)
{
    static Board b;
    support_moves(&b, 15, RULE_FREESTYLE, "h8");
    cr_assert_gt(board_near(&b, support_pt(&b, "j10")), 0);
    cr_assert_gt(board_near(&b, support_pt(&b, "k8")), 0);
    cr_assert_eq(board_near(&b, support_pt(&b, "k9")), 0);
    cr_assert_eq(board_near(&b, support_pt(&b, "a1")), 0);
    cr_assert_eq(b.x0, 7);
    cr_assert_eq(b.x1, 7);
}

Test(board, overline_is_a_five_in_freestyle_and_not_in_standard)
{
    static Board b;
    support_stones(&b, 15, RULE_FREESTYLE, "c8 d8 e8 f8 g8 h8", "c9 d9 e9 f9 g9", BLACK);
    cr_assert(board_has_five(&b, BLACK));
    support_stones(&b, 15, RULE_STANDARD, "c8 d8 e8 f8 g8 h8", "c9 d9 e9 f9 g9", BLACK);
    cr_assert_not(board_has_five(&b, BLACK));
    support_stones(&b, 15, RULE_STANDARD, "c8 d8 e8 f8 g8", "c9 d9 e9 f9", WHITE);
    cr_assert(board_has_five(&b, BLACK));
}

Test(board, making_a_five_is_seen_before_the_stone_is_played)
{
    static Board b;
    support_stones(&b, 15, RULE_STANDARD, "c8 d8 e8 f8", "c9 d9 e9 f9", BLACK);
    cr_assert(board_makes_five(&b, support_pt(&b, "g8"), BLACK));
    cr_assert(board_makes_five(&b, support_pt(&b, "b8"), BLACK));
    cr_assert_not(board_makes_five(&b, support_pt(&b, "h8"), BLACK));
    support_stones(&b, 15, RULE_STANDARD, "c8 d8 e8 f8 h8", "c9 d9 e9 f9 h9", BLACK);
    cr_assert_not(board_makes_five(&b, support_pt(&b, "g8"), BLACK), "six in standard is no five");
}

/* ---- property: incremental upkeep equals a from-scratch rebuild ---- */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33) % n;
}

static void assert_matches_rebuild(const Board *b, int step)
{
    static Board fresh;
    memcpy(&fresh, b, sizeof fresh);
    board_rebuild(&fresh);
    cr_assert_eq(b->key, fresh.key, "step %d: Zobrist key drifted", step);
    cr_assert(!memcmp(b->esum, fresh.esum, sizeof b->esum), "step %d: evaluation sums drifted", step);
    cr_assert(!memcmp(b->tcount, fresh.tcount, sizeof b->tcount), "step %d: threat counts drifted", step);
    cr_assert(!memcmp(b->tbits, fresh.tbits, sizeof b->tbits), "step %d: threat point sets drifted", step);
    cr_assert(b->x0 == fresh.x0 && b->x1 == fresh.x1 && b->y0 == fresh.y0 && b->y1 == fresh.y1,
              "step %d: bounding box drifted", step);
    for (int y = 0; y < b->size; y++)
        for (int x = 0; x < b->size; x++) {
            const Cell *c = &b->cell[MOVE_XY(x, y)], *f = &fresh.cell[MOVE_XY(x, y)];
            cr_assert(!memcmp(c->key, f->key, sizeof c->key), "step %d: keys at %d,%d", step, x, y);
            Move m = MOVE_XY(x, y);
            cr_assert_eq(b->area[m], fresh.area[m], "step %d: candidate area at %d,%d", step, x, y);
            if (c->stone != EMPTY) continue;
            cr_assert(!memcmp(c->pat4, f->pat4, sizeof c->pat4), "step %d: patterns at %d,%d", step, x, y);
            cr_assert(!memcmp(c->packed, f->packed, sizeof c->packed), "step %d: packed patterns at %d,%d", step, x, y);
            cr_assert(!memcmp(c->threat, f->threat, sizeof c->threat), "step %d: threats at %d,%d", step, x, y);
            cr_assert(!memcmp(c->code, f->code, sizeof c->code), "step %d: combination codes at %d,%d", step, x, y);
        }
    cr_assert_eq(eval_static(b), eval_static(&fresh), "step %d: evaluation drifted", step);
}

Test(board, incremental_upkeep_equals_a_rebuild_through_random_play_and_undo, .timeout = 120)
{
    static Board b;
    support_init();
    static const int sizes[] = {5, 9, 15, 20, 25};
    rng_state = 2024;
    int step = 0;
    for (int seq = 0; seq < 2000; seq++) {
        int size = sizes[seq % 5];
        Rule rule = (Rule)(seq / 5 % RULE_COUNT);
        cr_assert(board_reset(&b, size, rule));
        int ops = 1 + (int)rnd(seq % 10 == 0 ? 120 : 30);
        for (int i = 0; i < ops && !board_full(&b); i++, step++) {
            if (b.nmoves && rnd(4) == 0) {
                board_undo(&b);
            } else {
                Move m;
                bool near = b.nmoves && rnd(8);
                do {
                    m = MOVE_XY(rnd(size), rnd(size));
                } while (!board_empty(&b, m) || (near && !board_near(&b, m) && !board_full(&b) && rnd(50)));
                board_play(&b, m);
            }
            assert_matches_rebuild(&b, step);
        }
        while (b.nmoves) board_undo(&b);
        static Board empty;
        cr_assert(board_reset(&empty, size, rule));
        cr_assert_eq(b.key, empty.key, "sequence %d: undoing everything gives back the empty key", seq);
        cr_assert(!memcmp(b.esum, empty.esum, sizeof b.esum));
        cr_assert(!memcmp(b.tcount, empty.tcount, sizeof b.tcount));
        cr_assert(!memcmp(b.area, empty.area, sizeof b.area), "sequence %d: the candidate area, walls included", seq);
    }
    cr_assert_gt(step, 20000);
}

/* Undo puts back the cells a move changed from a record of them, and when
 * the record is full re-reads them from the tables; a whole 25x25 board
 * goes past the record, so both ways and the switch between them run. */
Test(board, undo_restores_a_full_board_past_the_record_of_changes, .timeout = 120)
{
    static Board b;
    support_init();
    for (int r = 0; r < RULE_COUNT; r++) {
        cr_assert(board_reset(&b, 25, (Rule)r));
        rng_state = 77 + (uint64_t)r;
        int step = 0, unrecorded = 0;
        while (!board_full(&b)) {
            Move m;
            do {
                m = MOVE_XY(rnd(25), rnd(25));
            } while (!board_empty(&b, m));
            board_play(&b, m);
            unrecorded += b.history[b.nmoves - 1].changes == BOARD_NO_CHANGES;
            if (++step % 25 == 0) assert_matches_rebuild(&b, step);
        }
        cr_assert_gt(unrecorded, 0, "rule %d: the record never filled, so only one way of undoing ran", r);
        cr_assert_lt(unrecorded, b.nmoves, "rule %d: no move was recorded", r);
        while (b.nmoves) {
            board_undo(&b);
            if (++step % 25 == 0) assert_matches_rebuild(&b, step);
        }
        cr_assert_eq(b.nchanges, 0);
        assert_matches_rebuild(&b, step);
        static Board empty;
        cr_assert(board_reset(&empty, 25, (Rule)r));
        cr_assert_eq(b.key, empty.key);
        cr_assert(!memcmp(b.tcount, empty.tcount, sizeof b.tcount));
        cr_assert(!memcmp(b.tbits, empty.tbits, sizeof b.tbits));
        cr_assert(!memcmp(b.esum, empty.esum, sizeof b.esum));
    }
}
