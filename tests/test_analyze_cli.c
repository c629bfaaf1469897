/* analyze_cli: the real `gomokud analyze` binary, fed JSON lines on stdin
 * through a pipe; its stdout is read back line by line with cJSON. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define OUT_MAX (1 << 20)

typedef struct {
    int status; /* exit code, or -1 when it did not exit normally */
    size_t len;
    char out[OUT_MAX];
    char err[4096]; /* the start of stderr */
} Run;

static Run run;

/* Runs `gomokud analyze --tt-mib=4 args...` with input on stdin and
 * collects stdout and the start of stderr into run. */
static void analyze(const char *input, const char *const *args)
{
    const char *argv[16] = {"analyze", "--tt-mib=4"};
    int argc = 2;
    for (int i = 0; args && args[i] && argc < 14; i++) argv[argc++] = args[i];
    argv[argc] = NULL;
    run.status = support_run("gomokud", argv, input, run.out, sizeof run.out, &run.len, run.err, sizeof run.err);
}

static int count_lines(void)
{
    int n = 0;
    for (size_t i = 0; i < run.len; i++) n += run.out[i] == '\n';
    return n;
}

/* The i-th output line (0-based) parsed as JSON. */
static cJSON *line_json(int i)
{
    const char *p = run.out;
    for (int k = 0; k < i; k++) {
        p = strchr(p, '\n');
        cr_assert_not_null(p, "output has fewer than %d lines:\n%s", i + 1, run.out);
        p++;
    }
    const char *end = strchr(p, '\n');
    cr_assert_not_null(end, "line %d is not terminated:\n%s", i, run.out);
    cJSON *j = cJSON_ParseWithLength(p, (size_t)(end - p));
    cr_assert_not_null(j, "line %d is not JSON:\n%s", i, run.out);
    return j;
}

static const cJSON *member(const cJSON *obj, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    cr_assert_not_null(v, "member '%s' is missing", name);
    return v;
}

/* Black h8-k8 with g8 blocked by white: l8 is the only five. */
#define BLACK_FOUR "\"moves\": [\"h8\", \"g8\", \"i8\", \"a1\", \"j8\", \"a3\", \"k8\", \"o15\"]"

Test(analyze_cli, black_with_an_open_end_to_its_four_makes_five_at_once)
{
    analyze("{\"id\": \"win\", " BLACK_FOUR ", \"limits\": {\"depth\": 4}}\n", NULL);
    cr_assert_eq(run.status, 0, "exit status %d", run.status);
    cr_assert_eq(count_lines(), 1, "one answer per request:\n%s", run.out);
    cJSON *j = line_json(0);
    cr_assert_str_eq(member(j, "id")->valuestring, "win");
    cr_assert_str_eq(member(j, "side_to_move")->valuestring, "black");
    cr_assert_str_eq(member(j, "best_move")->valuestring, "l8");
    cr_assert_eq(member(j, "mate")->valuedouble, 1);
    cr_assert_str_eq(cJSON_GetArrayItem(member(j, "pv"), 0)->valuestring, "l8");
    cr_assert_str_eq(member(j, "rule")->valuestring, "freestyle");
    cr_assert_eq(member(j, "board_size")->valuedouble, 15);
    cJSON_Delete(j);
}

Test(analyze_cli, white_facing_a_four_blocks_it)
{
    /* the same four, but white to move after black's extra stone far away */
    analyze("{\"stones\": {\"black\": [\"h8\", \"i8\", \"j8\", \"k8\", \"a15\"],"
            " \"white\": [\"g8\", \"a1\", \"a3\", \"o15\"]}, \"limits\": {\"depth\": 3}}\n",
            NULL);
    cr_assert_eq(run.status, 0);
    cJSON *j = line_json(0);
    cr_assert_str_eq(member(j, "side_to_move")->valuestring, "white");
    cr_assert_str_eq(member(j, "best_move")->valuestring, "l8");
    cJSON_Delete(j);
}

Test(analyze_cli, a_malformed_line_gets_a_problem_and_the_next_line_is_still_answered)
{
    analyze("{\"moves\": [\"h8\",\n"
            "\n"
            "{\"moves\": [\"h8\", \"i9\", \"h8\"]}\n"
            "{\"id\": \"after\", " BLACK_FOUR ", \"limits\": {\"nodes\": 20000, \"depth\": 4}}\n",
            NULL);
    cr_assert_eq(run.status, 0);
    cr_assert_eq(count_lines(), 3, "the blank line is skipped:\n%s", run.out);
    cJSON *bad = line_json(0);
    cr_assert_eq(member(bad, "status")->valuedouble, 400);
    cr_assert_str_eq(member(bad, "type")->valuestring, "https://gomokud.dev/problems/invalid-request");
    cJSON_Delete(bad);
    cJSON *taken = line_json(1);
    cr_assert_eq(member(taken, "status")->valuedouble, 422);
    cr_assert_str_eq(member(taken, "field")->valuestring, "moves[2]");
    cJSON_Delete(taken);
    cJSON *good = line_json(2);
    cr_assert_str_eq(member(good, "id")->valuestring, "after");
    cr_assert_str_eq(member(good, "best_move")->valuestring, "l8");
    cJSON_Delete(good);
}

Test(analyze_cli, a_last_line_without_newline_and_crlf_lines_are_answered)
{
    analyze("{\"id\": \"a\", \"moves\": [\"h8\"], \"limits\": {\"depth\": 2}}\r\n"
            "{\"id\": \"b\", \"board_size\": 9, \"limits\": {\"depth\": 2}}",
            NULL);
    cr_assert_eq(run.status, 0);
    cr_assert_eq(count_lines(), 2, "%s", run.out);
    cJSON *a = line_json(0), *b = line_json(1);
    cr_assert_str_eq(member(a, "id")->valuestring, "a");
    cr_assert_str_eq(member(a, "side_to_move")->valuestring, "white");
    cr_assert(cJSON_IsString(member(a, "best_move")));
    cr_assert_str_eq(member(b, "id")->valuestring, "b");
    cr_assert_eq(member(b, "board_size")->valuedouble, 9);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

Test(analyze_cli, server_caps_from_the_command_line_bound_every_search)
{
    const char *const args[] = {"--max-depth", "2", "--tt-mib=1", NULL};
    analyze("{\"moves\": [\"h8\", \"i9\"], \"limits\": {\"depth\": 30}}\n", args);
    cr_assert_eq(run.status, 0);
    cJSON *j = line_json(0);
    cr_assert_leq(member(j, "depth")->valuedouble, 2, "depth capped at 2:\n%s", run.out);
    cJSON_Delete(j);
}

Test(analyze_cli, garbage_input_never_crashes_the_command)
{
    static const char input[] = "\x01\x02\xff\xfe{{{{\n"
                                "[]\n"
                                "null\n"
                                "{\"moves\": [[99999999999999999999, 1]]}\n"
                                "{\"limits\": {\"depth\": -1}}\n"
                                "{\"id\": \"x\", \"moves\": [\"h8\"], \"limits\": {\"depth\": 1}} trailing\n";
    analyze(input, NULL);
    cr_assert_eq(run.status, 0, "exit status %d", run.status);
    cr_assert_eq(count_lines(), 6, "%s", run.out);
    static const int want[] = {400, 400, 400, 422, 400, 400};
    for (int i = 0; i < 6; i++) {
        cJSON *j = line_json(i);
        cr_assert_eq(member(j, "status")->valuedouble, want[i], "line %d:\n%s", i, run.out);
        cJSON_Delete(j);
    }
}

Test(analyze_cli, bad_options_are_refused_and_help_succeeds)
{
    const char *const bad[] = {"--max-depth", "deep", NULL};
    analyze("", bad);
    cr_assert_eq(run.status, 2);
    cr_assert(strstr(run.err, "--max-depth"), "stderr names the option: %s", run.err);
    cr_assert_eq(run.len, 0, "nothing on stdout");
    const char *const unknown[] = {"--frobnicate", NULL};
    analyze("", unknown);
    cr_assert_eq(run.status, 2);
    cr_assert(strstr(run.err, "--frobnicate"), "stderr names the option: %s", run.err);
    const char *const help[] = {"--help", NULL};
    analyze("", help);
    cr_assert_eq(run.status, 0);
    cr_assert(strstr(run.out, "--max-time-ms"), "help lists the options:\n%s", run.out);
}

Test(analyze_cli, empty_input_exits_cleanly_with_no_output)
{
    analyze("", NULL);
    cr_assert_eq(run.status, 0);
    cr_assert_eq(run.len, 0);
    cr_assert_str_eq(run.err, "");
}
