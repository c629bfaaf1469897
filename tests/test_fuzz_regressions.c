/* fuzz_regressions: the fuzz seed corpus (fuzz/corpus) and the inputs the
 * fuzzers found, replayed through the very checks the libFuzzer harnesses
 * run (fuzz/request_check.h, fuzz/move_check.h, fuzz/pbrain_check.h), so
 * that `make test` exercises them plain and under ASan+UBSan. A failed
 * harness check fails the test with the input's name. The corpus is read
 * from GOMOKUD_FUZZ_CORPUS, or fuzz/corpus under the current directory. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char fuzz_input_name[1024];
#define FUZZ_FAIL(what) cr_assert_fail("%s: %s", fuzz_input_name, (what))

#include "fuzz/move_check.h"
#include "fuzz/pbrain_check.h"
#include "fuzz/request_check.h"

static void setup(void) { cr_assert(engine_init(), "engine tables could not be built"); }

TestSuite(fuzz_regressions, .init = setup);

static const char *corpus_dir(void)
{
    const char *dir = getenv("GOMOKUD_FUZZ_CORPUS");
    return dir && *dir ? dir : "fuzz/corpus";
}

/* Reads a whole file into an exactly sized buffer (NULL for an empty file). */
static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    cr_assert_geq(n, 0);
    rewind(f);
    uint8_t *buf = n ? malloc((size_t)n) : NULL;
    cr_assert(!n || buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n, "short read of %s", path);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

typedef void (*ReplayFn)(const char *name, const uint8_t *data, size_t len);

/* Replays every file of corpus_dir()/sub through fn; returns how many. */
static int replay(const char *sub, ReplayFn fn)
{
    char dir[512], path[800];
    snprintf(dir, sizeof dir, "%s/%s", corpus_dir(), sub);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "no corpus directory %s (run the tests from the repository root)", dir);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        snprintf(fuzz_input_name, sizeof fuzz_input_name, "%s", path);
        size_t len;
        uint8_t *data = read_all(path, &len);
        fn(e->d_name, data, len);
        free(data);
        n++;
    }
    closedir(d);
    return n;
}

/* ---- request ------------------------------------------------------------ */

static int named_requests;

/* Seeds named ok-*, e400-* or e422-* must also get that status. */
static void replay_request(const char *name, const uint8_t *data, size_t len)
{
    int status = fuzz_request_input(data, len);
    int want = !strncmp(name, "ok-", 3) ? 200 : !strncmp(name, "e400-", 5) ? 400 : !strncmp(name, "e422-", 5) ? 422 : 0;
    if (want) {
        named_requests++;
        cr_expect_eq(status, want, "%s: status %d, expected %d", name, status, want);
    }
}

Test(fuzz_regressions, request_corpus_replays_cleanly)
{
    named_requests = 0;
    int n = replay("request", replay_request);
    cr_assert_geq(n, 20, "only %d request seeds", n);
    cr_assert_geq(named_requests, 20, "only %d request seeds say what they expect", named_requests);
}

static int request_text(const char *json)
{
    snprintf(fuzz_input_name, sizeof fuzz_input_name, "%s", json);
    return fuzz_request_input((const uint8_t *)json, strlen(json));
}

Test(fuzz_regressions, request_harness_tells_outcomes_apart)
{
    cr_assert_eq(request_text("{\"moves\": [\"h8\", [8, 6]]}"), 200);
    cr_assert_eq(request_text("{\"moves\": [\"h8\", \"h8\"]}"), 422);
    cr_assert_eq(request_text("{\"moves\": "), 400);
    cr_assert_eq(request_text("{\"multipv\": 12}"), 400, "the server caps allow 8 lines");
    cr_assert_eq(request_text(""), 400, "an empty body is refused: {} asks for the empty board");
}

/* ---- move --------------------------------------------------------------- */

static void replay_move(const char *name, const uint8_t *data, size_t len)
{
    (void)name;
    fuzz_move_input(data, len);
}

Test(fuzz_regressions, move_corpus_replays_cleanly)
{
    int n = replay("move", replay_move);
    cr_assert_geq(n, 20, "only %d move seeds", n);
}

Test(fuzz_regressions, move_harness_reads_xy_as_documented)
{
    int x = -1, y = -1;
    cr_assert(fuzz_move_xy_shape("7,  12", &x, &y));
    cr_assert_eq(x, 7);
    cr_assert_eq(y, 12);
    cr_assert_not(fuzz_move_xy_shape("7,,7", &x, &y));
    cr_assert_not(fuzz_move_xy_shape("123,1", &x, &y));
    cr_assert_not(fuzz_move_xy_shape(" 7,7", &x, &y));
    cr_assert_not(fuzz_move_xy_shape("99999999999999999999,1", &x, &y));
}

/* ---- pbrain ------------------------------------------------------------- */

static void replay_pbrain(const char *name, const uint8_t *data, size_t len)
{
    (void)name;
    fuzz_pbrain_input(data, len, NULL);
}

Test(fuzz_regressions, pbrain_corpus_replays_cleanly)
{
    int n = replay("pbrain", replay_pbrain);
    cr_assert_geq(n, 20, "only %d pbrain seeds", n);
}

static FuzzPbrainOut session(const char *text)
{
    FuzzPbrainOut out;
    snprintf(fuzz_input_name, sizeof fuzz_input_name, "%s", text);
    fuzz_pbrain_input((const uint8_t *)text, strlen(text), &out);
    return out;
}

Test(fuzz_regressions, pbrain_harness_plays_searches_and_stops_at_end)
{
    FuzzPbrainOut o = session("START 15\nBEGIN\nTURN 8,8\n");
    cr_assert_eq(o.moves, 2, "a move for BEGIN and one for TURN, got %d", o.moves);
    o = session("START 15\nEND\nBEGIN\nBEGIN\n");
    cr_assert_eq(o.replies, 1, "only the OK of START before END, got %d replies", o.replies);
    /* the caps come back after a line that lifts them: this still ends */
    o = session("INFO max_node 0\nINFO max_depth -1\nINFO timeout_turn 99999999\nINFO max_memory 999999999999\n"
                "START 15\nBEGIN\n");
    cr_assert_eq(o.moves, 1);
}
