/* commands.h - the subcommands of the gomokud binary (see main.c). Each
 * takes the arguments after its name and returns the process exit code. */
#ifndef GOMOKUD_COMMANDS_H
#define GOMOKUD_COMMANDS_H

int cmd_serve(int argc, char **argv);    /* server/serve.c: the HTTP server (default) */
int cmd_analyze(int argc, char **argv);  /* server/cmd_analyze.c: JSON lines on stdin -> stdout */
int cmd_bench(int argc, char **argv);    /* server/cmd_bench.c: fixed-depth bench with signature */
int cmd_selfplay(int argc, char **argv); /* server/cmd_selfplay.c: engine-vs-engine matches */
int cmd_opengen(int argc, char **argv);  /* server/cmd_opengen.c: balanced openings */

#endif
