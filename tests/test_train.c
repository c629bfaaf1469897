/* The evaluation's data and fit, end to end: gen-data plays a few games,
 * train-eval fits tables to them and writes a source file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

    snprintf(cmd, sizeof cmd, "%s/train-eval --out %s --iterations 30 %s 2>/dev/null", bin_dir(), tables, games);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
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
        for (p = line; !strstr(line, "eval_tempo") && (p = strchr(p, '{')) != NULL; p++)
            values += p[1] == '-' || (p[1] >= '0' && p[1] <= '9');
        has_scale |= strstr(line, "eval_winrate_scale = ") != NULL;
    }
    fclose(f);
    cr_assert_eq(values, 2 * 4 * 2380, "a value pair per set and code, then a policy pair");
    cr_assert(policy_train > 0 && policy_fit < policy_train, "the policy fit lowers its loss: %g -> %g", policy_train,
              policy_fit);
    cr_assert(has_scale);
    cr_assert(prior_train > 0 && fit_train < prior_train, "the fit lowers the training loss: %g -> %g", prior_train,
              fit_train);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
