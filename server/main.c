/* main.c - gomokud: the HTTP server, plus analyze/bench/selfplay tools. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "server/commands.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: gomokud [serve] [--config FILE] [--KEY VALUE ...]   run the HTTP server\n"
            "       gomokud analyze [options]    JSON requests on stdin, one per line; results on stdout\n"
            "       gomokud bench [depth]        fixed-depth search bench: nodes, nodes/s, signature\n"
            "       gomokud selfplay [options]   play two engine configurations against each other\n"
            "       gomokud opengen [options]    balanced openings, one per line\n"
            "       gomokud --version | --help\n"
            "Each command takes --help for its options.\n");
}

int main(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--version")) {
        printf("gomokud %s\n", GOMOKUD_VERSION);
        return 0;
    }
    if (!engine_init()) {
        fprintf(stderr, "gomokud: out of memory building the engine tables\n");
        return 1;
    }
    if (argc > 1 && !strcmp(argv[1], "analyze")) return cmd_analyze(argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "bench")) return cmd_bench(argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "selfplay")) return cmd_selfplay(argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "opengen")) return cmd_opengen(argc - 2, argv + 2);
    if (argc > 1 && !strcmp(argv[1], "serve")) return cmd_serve(argc - 2, argv + 2);
    if (argc > 1 && argv[1][0] != '-') {
        fprintf(stderr, "gomokud: unknown command '%s'\n", argv[1]);
        usage(stderr);
        return 2;
    }
    return cmd_serve(argc - 1, argv + 1);
}
