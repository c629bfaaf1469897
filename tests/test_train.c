/* The evaluation's data and fit, end to end: gen-data plays a few games,
 * train-eval fits tables to them and writes a source file. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/board.h"
#include "engine/eval_tables.h"

static const char *bin_dir(void)
{
    const char *dir = getenv("GOMOKUD_BIN_DIR");
    cr_assert_not_null(dir, "GOMOKUD_BIN_DIR is not set");
    return dir;
}

static int lines_of(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int n = 0;
    for (int c; (c = fgetc(f)) != EOF;) n += c == '\n';
    fclose(f);
    return n;
}

Test(train, games_start_from_the_openings_file_one_each, .timeout = 120)
{
    char dir[] = "/tmp/gomokud-open-XXXXXX", open_path[128], games[128], cmd[1024];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(open_path, sizeof open_path, "%s/open.txt", dir);
    snprintf(games, sizeof games, "%s/fs.games", dir);
    FILE *f = fopen(open_path, "w");
    cr_assert_not_null(f);
    fputs("h8 i9 h10  # score 3\nj9 e5 f5 e10 k7  # score -31\n", f); /* `gomokud opengen` lines */
    fclose(f);
    /* three games from two openings would replay one: refused, nothing written */
    snprintf(cmd, sizeof cmd, "%s/gen-data --rule freestyle --games 3 --nodes 400 --openings %s --out %s 2>/dev/null",
             bin_dir(), open_path, games);
    cr_assert_neq(system(cmd), 0, "%s", cmd);
    cr_assert_eq(lines_of(games), -1, "no file written");
    snprintf(cmd, sizeof cmd, "%s/gen-data --rule freestyle --games 2 --nodes 400 --openings %s --out %s", bin_dir(),
             open_path, games);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    cr_assert_eq(lines_of(games), 2);
    f = fopen(games, "r");
    cr_assert_not_null(f);
    char line[8192];
    const char *start[2] = {"h8 i9 h10 ", "j9 e5 f5 e10 k7 "};
    for (int i = 0; i < 2; i++) {
        cr_assert(fgets(line, sizeof line, f));
        char res;
        int open, off;
        cr_assert_eq(sscanf(line, "freestyle %c %d %n", &res, &open, &off), 2, "%s", line);
        cr_assert_eq(open, i == 0 ? 3 : 5, "game %d: %s", i, line);
        cr_assert_eq(strncmp(line + off, start[i], strlen(start[i])), 0, "game %d: %s", i, line);
        cr_assert_not_null(strchr(line + off + strlen(start[i]), '/'), "the engine's moves follow: %s", line);
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(train, an_openings_line_with_a_word_that_is_not_a_move_is_refused, .timeout = 60)
{
    char dir[] = "/tmp/gomokud-badopen-XXXXXX", open_path[128], games[128], err[128], cmd[1024];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(open_path, sizeof open_path, "%s/open.txt", dir);
    snprintf(games, sizeof games, "%s/fs.games", dir);
    snprintf(err, sizeof err, "%s/err.txt", dir);
    FILE *f = fopen(open_path, "w");
    cr_assert_not_null(f);
    /* "i99" is no point of a 15x15 board: the opening must not be cut to h8 alone */
    fputs("h8 i9 h10  # score 3\nh8 i99 h10 j9  # a typo\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s/gen-data --rule freestyle --games 2 --nodes 400 --openings %s --out %s 2>%s", bin_dir(),
             open_path, games, err);
    cr_assert_neq(system(cmd), 0, "%s", cmd);
    cr_assert_eq(lines_of(games), -1, "no file written");
    f = fopen(err, "r");
    cr_assert_not_null(f);
    char msg[512] = "";
    cr_assert_not_null(fgets(msg, sizeof msg, f));
    fclose(f);
    cr_assert_not_null(strstr(msg, "line 2"), "%s", msg);
    cr_assert_not_null(strstr(msg, "\"i99\""), "%s", msg);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(train, games_are_written_resumed_and_fitted, .timeout = 240)
{
    char dir[] = "/tmp/gomokud-train-XXXXXX", games[128], tables[128], cmd[1024];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(games, sizeof games, "%s/renju-0.games", dir);
    snprintf(tables, sizeof tables, "%s/tables.c", dir);
    snprintf(cmd, sizeof cmd, "%s/gen-data --rule renju --games 6 --nodes 400 --out %s", bin_dir(), games);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    cr_assert_eq(lines_of(games), 6);
    /* a second run with more games goes on from the seventh: the first six stay as they were */
    FILE *f = fopen(games, "r");
    char first[8192], again[8192];
    cr_assert(f && fgets(first, sizeof first, f));
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s/gen-data --rule renju --games 24 --nodes 400 --out %s", bin_dir(), games);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    cr_assert_eq(lines_of(games), 24); /* one game in twenty is held out by train-eval */
    f = fopen(games, "r");
    cr_assert(f && fgets(again, sizeof again, f));
    fclose(f);
    cr_assert_str_eq(again, first);
    /* every line: rule, result, opening length, moves; engine moves carry scores */
    char rule[16], res;
    int open, off;
    cr_assert_eq(sscanf(first, "%15s %c %d%n", rule, &res, &open, &off), 3);
    cr_assert_str_eq(rule, "renju");
    cr_assert(res == 'B' || res == 'W' || res == 'D');
    cr_assert(open >= 2 && open <= 6, "opening of %d stones", open);
    cr_assert_not_null(strchr(first + off, '/'), "no scores in '%s'", first);

    enum { ITERATIONS = 30 };
    char log[128], last[64];
    snprintf(log, sizeof log, "%s/train.log", dir);
    snprintf(last, sizeof last, "iteration %d: loss ", ITERATIONS);
    snprintf(cmd, sizeof cmd, "%s/train-eval --out %s --iterations %d %s 2>%s", bin_dir(), tables, ITERATIONS, games,
             log);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    /* the optimiser's own progress: the training loss of the last
     * iteration against the prior's (the values kept are the ones the
     * held-out game liked best, which with one game held out may well be
     * the prior's) */
    double start_loss = 0, last_loss = 0;
    f = fopen(log, "r");
    cr_assert_not_null(f);
    char lg[512];
    while (fgets(lg, sizeof lg, f)) {
        const char *p = strstr(lg, "S = ") ? strstr(lg, "prior loss ") : NULL; /* (not the policy's) */
        if (p) cr_assert_eq(sscanf(p, "prior loss %lf", &start_loss), 1, "%s", lg);
        if ((p = strstr(lg, last))) cr_assert_eq(sscanf(p + strlen(last), "%lf", &last_loss), 1, "%s", lg);
    }
    fclose(f);
    cr_assert(start_loss > 0 && last_loss > 0 && last_loss < start_loss, "the fit lowers the training loss: %g -> %g",
              start_loss, last_loss);
    f = fopen(tables, "r");
    cr_assert_not_null(f);
    char line[512];
    double prior_train = 0, prior_val = 0, fit_train = 0, fit_val = 0, policy_train = 0, policy_fit = 0;
    int values = 0;
    bool has_scale = false;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "prior ");
        if (p && !prior_train)
            cr_assert_eq(sscanf(p, "prior %lf / %lf, fitted %lf / %lf", &prior_train, &prior_val, &fit_train, &fit_val), 4);
        else if (p && strstr(line, "fitted"))
            cr_assert_eq(sscanf(p, "prior %lf / %*f, fitted %lf", &policy_train, &policy_fit), 2, "%s", line);
        /* the pairs: not the tempo, nor the threat-mask lines ("[set] = {...") */
        for (p = line; !strstr(line, "eval_tempo") && !strstr(line, "] = {") && (p = strchr(p, '{')) != NULL; p++)
            values += p[1] == '-' || (p[1] >= '0' && p[1] <= '9');
        has_scale |= strstr(line, "eval_winrate_scale = ") != NULL;
    }
    fclose(f);
    cr_assert_eq(values, 2 * 4 * 2380, "a value pair per set and code, then a policy pair");
    cr_assert(policy_train > 0 && policy_fit < policy_train, "the policy fit lowers its loss: %g -> %g", policy_train,
              policy_fit);
    cr_assert(has_scale);
    cr_assert(prior_train > 0 && fit_val <= prior_val, "the values kept are the held-out games' best: %g -> %g",
              prior_val, fit_val);
    cr_assert(fabs(prior_train - start_loss) < 1e-4, "the file's prior loss %g is the one printed, %g", prior_train,
              start_loss);
    /* leaf positions off those games: "<rule> S <stones> <moves> <best>/<score>",
     * none with a five or a straight four to make for either side */
    char leaves[128];
    snprintf(leaves, sizeof leaves, "%s/renju-0.leaves", dir);
    /* 400 of them: with 200, one search change left only ten held out,
     * and the values with the best held-out loss were the unfitted ones */
    snprintf(cmd, sizeof cmd, "%s/gen-data --leaves %s --positions 400 --nodes 400 --out %s", bin_dir(), games, leaves);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    cr_assert_eq(lines_of(leaves), 400);
    f = fopen(leaves, "r");
    cr_assert_not_null(f);
    cr_assert(board_init_tables());
    static char lline[8192];
    while (fgets(lline, sizeof lline, f)) {
        int stones, n = 0;
        cr_assert_eq(sscanf(lline, "renju S %d%n", &stones, &off), 1, "%s", lline);
        static Board lb;
        cr_assert(board_reset(&lb, 15, RULE_RENJU));
        char *save = NULL;
        for (char *tok = strtok_r(lline + off, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save), n++) {
            char *slash = strchr(tok, '/');
            cr_assert_eq(slash != NULL, n == stones, "only the last move has a score: %s", tok);
            if (slash) *slash = 0;
            Move m = move_parse(tok, 15);
            cr_assert(m != MOVE_NONE && board_empty(&lb, m), "%s", tok);
            if (n == stones)
                for (int c = 0; c < 2; c++) cr_assert(!lb.tcount[c][T_FIVE] && !lb.tcount[c][T_F4], "a leaf with a threat");
            board_play(&lb, m);
        }
        cr_assert_eq(n, stones + 1);
    }
    fclose(f);
    /* their targets are scores: a scale is required */
    snprintf(cmd, sizeof cmd, "%s/train-eval --out %s --mask-only %s 2>/dev/null", bin_dir(), tables, leaves);
    cr_assert_neq(system(cmd), 0, "%s", cmd);
    /* the threat-mask values alone, from the built-in tables, on the leaves:
     * the code values stay the built-in ones, some mask values move, the
     * loss falls */
    snprintf(cmd, sizeof cmd,
             "%s/train-eval --out %s --from-current --mask-only --scale 1744.7 --iterations 100 --policy-iterations 0 %s 2>/dev/null",
             bin_dir(), tables, leaves);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    f = fopen(tables, "r");
    cr_assert_not_null(f);
    int masks = 0, set = -1;
    int codes = 0;
    bool in_mask = false;
    prior_train = fit_train = 0;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "prior ");
        if (p && !prior_train) cr_assert_eq(sscanf(p, "prior %lf / %*f, fitted %lf", &prior_train, &fit_train), 2);
        if (strstr(line, "eval_threat_value[EVAL_SETS]")) in_mask = true;
        else if (in_mask && line[0] == '}') in_mask = false;
        else if (in_mask)
            for (p = line; (p = strstr(p, "] = ")) != NULL; p++) masks += p[4] != '{';
        /* the freestyle values are the built-in ones */
        if (set < 0 && strstr(line, "/* freestyle */")) set = 0;
        else if (set == 0 && strstr(line, "/* ")) set = 1;
        else if (set == 0)
            for (p = line; (p = strchr(p, '{')) != NULL; p++) {
                int v0, v1;
                cr_assert_eq(sscanf(p, "{%d, %d}", &v0, &v1), 2, "%s", line);
                cr_assert(v0 == eval_code_value[0][codes][0] && v1 == eval_code_value[0][codes][1], "code %d", codes);
                codes++;
            }
    }
    fclose(f);
    cr_assert_eq(codes, 2380);
    cr_assert_gt(masks, 0, "no threat-mask value was fitted");
    cr_assert(fit_train < prior_train, "the mask fit lowers the training loss: %g -> %g", prior_train, fit_train);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
