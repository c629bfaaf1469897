/*
 * fuzz_move.c - libFuzzer harness for the move and notation parsers
 * (move_parse, move_parse_notation, move_parse_xy and the printers of
 * engine/board.h). What is checked: fuzz/move_check.h.
 */
#include "fuzz/move_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_move_input(data, size);
    return 0;
}
