/*
 * types.h - the small vocabulary every engine module shares.
 *
 * A Move is an index into the padded cell array of a Board. The padding is a
 * wall margin of BOARD_MARGIN cells around a BOARD_STRIDE-wide grid, so the
 * same index means the same (x, y) point on every board size from 5x5 to
 * 25x25 and a line walk of up to five steps from any on-board point never
 * leaves the array. Coordinates are zero-based from the top-left (the Gomocup
 * convention); notation such as "h8" is handled in board.c.
 */
#ifndef GOMOKUD_TYPES_H
#define GOMOKUD_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#define BOARD_MIN_SIZE 5
#define BOARD_MAX_SIZE 25
#define BOARD_DEFAULT_SIZE 15
#define BOARD_MARGIN 5
#define BOARD_STRIDE (BOARD_MAX_SIZE + 2 * BOARD_MARGIN)
#define BOARD_CELLS (BOARD_STRIDE * BOARD_STRIDE)
#define BOARD_MAX_MOVES (BOARD_MAX_SIZE * BOARD_MAX_SIZE)

typedef int16_t Move;
#define MOVE_NONE ((Move)-1)
#define MOVE_XY(x, y) ((Move)(((y) + BOARD_MARGIN) * BOARD_STRIDE + (x) + BOARD_MARGIN))
#define MOVE_X(m) ((int)(m) % BOARD_STRIDE - BOARD_MARGIN)
#define MOVE_Y(m) ((int)(m) / BOARD_STRIDE - BOARD_MARGIN)

/* Cell contents. BLACK and WHITE double as the side to move. */
typedef enum { EMPTY = 0, BLACK = 1, WHITE = 2, WALL = 3 } Color;
#define OPPONENT(c) ((Color)(3 - (c)))

typedef enum { RULE_FREESTYLE = 0, RULE_STANDARD = 1, RULE_RENJU = 2 } Rule;
#define RULE_COUNT 3

typedef int32_t Score;

#endif
