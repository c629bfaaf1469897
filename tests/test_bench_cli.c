/* bench_cli: the real `gomokud bench tactics` binary at a node limit, on a
 * few puzzles of tests/data/tactics.jsonl copied to a temporary file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define OUT_MAX (1 << 16)

/* Lines of tactics.jsonl (1-based): two freestyle VCFs, then the first
 * three VCT puzzles. */
static const int picked[] = {1, 3, 50, 51, 52};
#define NPICKED (int)(sizeof picked / sizeof picked[0])

typedef struct {
    int status; /* exit code, or -1 when it did not exit normally */
    char out[OUT_MAX];
} Run;

static char suite[] = "/tmp/gomokud-bench-XXXXXX";

static void pick_puzzles(void)
{
    const char *dir = getenv("GOMOKUD_DATA_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tactics.jsonl", dir ? dir : "tests/data");
    FILE *in = fopen(path, "r");
    cr_assert_not_null(in, "cannot read %s", path);
    int fd = mkstemp(suite);
    cr_assert_neq(fd, -1);
    FILE *out = fdopen(fd, "w");
    cr_assert_not_null(out);
    static char line[1 << 16];
    int n = 0, k = 0;
    while (k < NPICKED && fgets(line, sizeof line, in))
        if (++n == picked[k]) {
            fputs(line, out);
            k++;
        }
    cr_assert_eq(k, NPICKED, "tactics.jsonl has fewer than %d lines", picked[NPICKED - 1]);
    fclose(in);
    cr_assert_eq(fclose(out), 0);
}

static void drop_puzzles(void) { unlink(suite); }

TestSuite(bench_cli, .init = pick_puzzles, .fini = drop_puzzles);

/* Runs `gomokud bench tactics --file <suite> args...`; stdout into r
 * (stderr dropped). */
static void bench(Run *r, const char *const *args)
{
    const char *argv[16] = {"bench", "tactics", "--file", suite};
    int argc = 4;
    for (int i = 0; args[i] && argc < 14; i++) argv[argc++] = args[i];
    argv[argc] = NULL;
    r->status = support_run("gomokud", argv, "", r->out, sizeof r->out, NULL, NULL, 0);
}

/* The solved count of the summary line. */
static int solved(const Run *r)
{
    const char *p = strstr(r->out, "tactics: solved ");
    cr_assert_not_null(p, "no summary line in:\n%s", r->out);
    int s, n;
    cr_assert_eq(sscanf(p, "tactics: solved %d/%d", &s, &n), 2);
    cr_assert_eq(n, NPICKED);
    return s;
}

static Run a, b;

Test(bench_cli, a_node_limited_run_proves_the_puzzles_and_repeats_itself_to_the_line)
{
    bench(&a, (const char *const[]){"--nodes", "300000", NULL});
    cr_assert_eq(a.status, 0);
    cr_assert_not_null(strstr(a.out, "tactics: solved 5/5 within 300000 nodes each (vcf 2/2, vct 3/3), median nodes "),
                       "%s", a.out);
    cr_assert_null(strstr(a.out, "unsolved"), "%s", a.out);
    bench(&b, (const char *const[]){"--nodes", "300000", NULL});
    cr_assert_str_eq(a.out, b.out, "two runs differ:\n%s\n%s", a.out, b.out);
}

Test(bench_cli, a_tight_node_limit_leaves_puzzles_unsolved_and_names_them)
{
    bench(&a, (const char *const[]){"--nodes", "1", NULL});
    cr_assert_eq(a.status, 0);
    cr_assert_lt(solved(&a), NPICKED, "%s", a.out);
    cr_assert_not_null(strstr(a.out, " unsolved: played "), "%s", a.out);
    cr_assert_not_null(strstr(a.out, "within 1 nodes each"), "%s", a.out);
}

Test(bench_cli, the_solver_alone_proves_the_puzzles_and_says_so)
{
    bench(&a, (const char *const[]){"--nodes", "300000", "--solver", NULL});
    cr_assert_eq(a.status, 0);
    cr_assert_not_null(strstr(a.out, "tactics: solved 5/5 within 300000 nodes each (vcf 2/2, vct 3/3), median nodes "),
                       "%s", a.out);
    cr_assert_not_null(strstr(a.out, " (solver alone)\n"), "%s", a.out);
    bench(&b, (const char *const[]){"--solver", "--nodes", "1", NULL});
    cr_assert_eq(b.status, 0);
    cr_assert_lt(solved(&b), NPICKED, "%s", b.out);
    cr_assert_not_null(strstr(b.out, " (solver alone)\n"), "%s", b.out);
}

Test(bench_cli, a_zero_node_limit_or_two_limits_are_refused)
{
    bench(&a, (const char *const[]){"--nodes", "0", NULL});
    cr_assert_eq(a.status, 2);
    cr_assert_null(strstr(a.out, "tactics:"), "%s", a.out);
    bench(&a, (const char *const[]){"--nodes", "1000", "--time-ms", "100", NULL});
    cr_assert_eq(a.status, 2);
    cr_assert_null(strstr(a.out, "tactics:"), "%s", a.out);
}
