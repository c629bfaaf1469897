/*
 * fuzz_request.c - libFuzzer harness for the HTTP API request parser and
 * validator (api_parse_analyze, api_parse_batch) and the JSON writers of
 * api/api.h. What is checked: fuzz/request_check.h.
 */
#include <stdlib.h>

#include "fuzz/request_check.h"

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
    (void)fuzz_request_input(data, size);
    return 0;
}
