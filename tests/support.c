#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

int support_run(const char *name, const char *const *args, const char *input, char *out, size_t outmax,
                size_t *len, char *err, size_t errmax)
{
    const char *dir = getenv("GOMOKUD_BIN_DIR");
    cr_assert_not_null(dir, "GOMOKUD_BIN_DIR is not set");
    char bin[4096];
    snprintf(bin, sizeof bin, "%s/%s", dir, name);
    cr_assert_eq(access(bin, X_OK), 0, "%s is not an executable", bin);

    FILE *in = tmpfile(), *errf = tmpfile();
    cr_assert(in && errf);
    size_t n_in = strlen(input);
    cr_assert_eq(fwrite(input, 1, n_in, in), n_in);
    cr_assert_eq(fflush(in), 0);
    rewind(in);
    int pipefd[2];
    cr_assert_eq(pipe(pipefd), 0);

    char *argv[16] = {bin};
    int argc = 1;
    for (int i = 0; args && args[i] && argc < 15; i++) argv[argc++] = (char *)args[i];
    argv[argc] = NULL;

    fflush(NULL);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        dup2(fileno(in), 0);
        dup2(pipefd[1], 1);
        dup2(fileno(errf), 2);
        close(pipefd[0]);
        close(pipefd[1]);
        execv(bin, argv);
        _exit(127);
    }
    close(pipefd[1]);
    fclose(in);
    size_t got = 0;
    ssize_t n;
    while ((n = read(pipefd[0], out + got, outmax - 1 - got)) > 0) got += (size_t)n;
    close(pipefd[0]);
    out[got] = 0;
    if (len) *len = got;
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    if (err && errmax) {
        rewind(errf);
        size_t e = fread(err, 1, errmax - 1, errf);
        err[e] = 0;
    }
    fclose(errf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
