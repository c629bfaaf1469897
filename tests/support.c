#include "support.h"

#include <criterion/criterion.h>
#include <string.h>

#include "engine/engine.h"

/* (all of engine_init: the board's tables alone leave the search's reduction
 * and move-count tables at 0, and every search in a test would then keep
 * one quiet move a node and reduce nothing) */
void support_init(void) { cr_assert(engine_init(), "tables could not be built"); }

Move support_pt(const Board *b, const char *notation)
{
    Move m = move_parse_notation(notation, b->size);
    cr_assert_neq(m, MOVE_NONE, "'%s' is not a point of a %dx%d board", notation, b->size, b->size);
    return m;
}

static void put_list(Board *b, const char *list, Color c)
{
    char buf[1024];
    strncpy(buf, list ? list : "", sizeof buf - 1);
    buf[sizeof buf - 1] = 0;
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        Move m = support_pt(b, tok);
        cr_assert_eq(b->cell[m].stone, EMPTY, "two stones on %s", tok);
        b->cell[m].stone = (uint8_t)c;
    }
}

void support_stones(Board *b, int size, Rule rule, const char *black, const char *white, Color to_move)
{
    support_init();
    cr_assert(board_reset(b, size, rule));
    put_list(b, black, BLACK);
    put_list(b, white, WHITE);
    b->to_move = to_move;
    board_rebuild(b);
}

void support_moves(Board *b, int size, Rule rule, const char *moves)
{
    support_init();
    cr_assert(board_reset(b, size, rule));
    char buf[4096];
    strncpy(buf, moves, sizeof buf - 1);
    buf[sizeof buf - 1] = 0;
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        Move m = support_pt(b, tok);
        cr_assert(board_empty(b, m), "%s is taken", tok);
        board_play(b, m);
    }
}

/* Build the tables before Criterion starts its test processes, so that each
 * test inherits them instead of building its own. */
__attribute__((constructor)) static void support_preload(void) { board_init_tables(); }
