/*
 * fuzz_pbrain.c - libFuzzer harness for the Gomocup protocol state machine
 * (api/pbrain.h), run synchronously with small search caps. What is
 * checked: fuzz/pbrain_check.h.
 */
#include <stdlib.h>

#include "fuzz/pbrain_check.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (!engine_init()) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)fuzz_pbrain_input(data, size, NULL);
    return 0;
}
