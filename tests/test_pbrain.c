/* pbrain: the Gomocup protocol state machine, and the real pbrain-gomokud
 * binary driven through pipes. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/pbrain.h"
#include "engine/board.h"
#include "engine/rules.h"

/* ---- a brain whose replies are collected in memory --------------------- */

#define OUT_MAX 8192

static struct {
    pthread_mutex_t mu;
    char *lines[OUT_MAX];
    int n;
} out = {.mu = PTHREAD_MUTEX_INITIALIZER};

static Pbrain *pb;
static char said[1 << 16];

static void collect(void *ctx, const char *line)
{
    (void)ctx;
    pthread_mutex_lock(&out.mu);
    cr_assert_lt(out.n, OUT_MAX, "too many reply lines");
    out.lines[out.n++] = strdup(line);
    pthread_mutex_unlock(&out.mu);
}

static int out_count(void)
{
    pthread_mutex_lock(&out.mu);
    int n = out.n;
    pthread_mutex_unlock(&out.mu);
    return n;
}

/* The reply lines from index `from` on, joined by '\n'; MESSAGE lines are
 * left out unless with_messages. */
static const char *lines_since(int from, bool with_messages)
{
    said[0] = 0;
    size_t n = 0;
    pthread_mutex_lock(&out.mu);
    for (int i = from; i < out.n; i++) {
        if (!with_messages && !strncmp(out.lines[i], "MESSAGE", 7)) continue;
        n += (size_t)snprintf(said + n, sizeof said - n, "%s%s", n ? "\n" : "", out.lines[i]);
    }
    pthread_mutex_unlock(&out.mu);
    return said;
}

static void make_brain(bool threaded)
{
    cr_assert(engine_init());
    PbrainOptions opt = {.threaded = threaded, .tt_mib = 1};
    pb = pbrain_new(&opt, collect, NULL);
    cr_assert_not_null(pb);
}

static void setup(void) { make_brain(false); }

/* A brain for tests that never touch a board: no engine tables needed. */
static void setup_light(void)
{
    PbrainOptions opt = {.threaded = false, .tt_mib = 1};
    pb = pbrain_new(&opt, collect, NULL);
    cr_assert_not_null(pb);
}
static void setup_threaded(void) { make_brain(true); }

static void teardown(void)
{
    pbrain_free(pb);
    pb = NULL;
    for (int i = 0; i < out.n; i++) free(out.lines[i]);
    out.n = 0;
}

/* Feeds one line and returns what the brain answered (without MESSAGE
 * lines). */
static const char *say(const char *line)
{
    int from = out_count();
    cr_assert_eq(pbrain_feed(pb, line), PBRAIN_CONTINUE, "'%s' made the brain quit", line);
    return lines_since(from, false);
}

/* Feeds a whole script of lines separated by '\n'; returns every reply. */
static const char *script(const char *text)
{
    int from = out_count();
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        cr_assert_eq(pbrain_feed(pb, l), PBRAIN_CONTINUE);
    return lines_since(from, false);
}

static bool starts_with(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/* The point of an "x,y" reply, failing the test when it is not one. */
static Move reply_point(const char *reply, int size)
{
    Move m = move_parse_xy(reply, size);
    cr_assert_neq(m, MOVE_NONE, "'%s' is not a move on a %dx%d board", reply, size, size);
    return m;
}

/* A referee board: stones listed as "x,y x,y ...". */
static Board ref;
static void ref_stones(int size, Rule rule, const char *black, const char *white, Color to_move)
{
    cr_assert(board_reset(&ref, size, rule));
    const char *lists[2] = {black, white};
    for (int c = 0; c < 2; c++) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", lists[c]);
        for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
            ref.cell[reply_point(t, size)].stone = (uint8_t)(c ? WHITE : BLACK);
    }
    ref.to_move = to_move;
    board_rebuild(&ref);
}

/* A quiet middle game with black to move (the brain is black). */
#define QUIET_BOARD "BOARD\n7,7,1\n8,8,2\n6,8,1\n8,6,2\n9,7,1\n5,9,2\nDONE"

/* ---- starting a game -------------------------------------------------- */

Test(pbrain, start_answers_ok_for_sizes_5_to_25_and_error_for_anything_else, .init = setup, .fini = teardown)
{
    cr_assert_str_eq(say("START 5"), "OK");
    cr_assert_str_eq(say("START 15"), "OK");
    cr_assert_str_eq(say("START 20"), "OK");
    cr_assert_str_eq(say("START 25"), "OK");
    const char *bad[] = {"START 4", "START 26", "START 0", "START", "START abc", "START 15 16", "START -15",
                         "START 99999999999999999999", "START 15x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert(starts_with(say(bad[i]), "ERROR "), "'%s' got '%s'", bad[i], said);
}

Test(pbrain, rectstart_accepts_only_square_supported_boards, .init = setup, .fini = teardown)
{
    cr_assert_str_eq(say("RECTSTART 15,15"), "OK");
    cr_assert_str_eq(say("RECTSTART 20, 20"), "OK");
    const char *bad[] = {"RECTSTART 20,15", "RECTSTART 30,30", "RECTSTART 15", "RECTSTART 15,", "RECTSTART ,15",
                         "RECTSTART a,b", "RECTSTART"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert(starts_with(say(bad[i]), "ERROR "), "'%s' got '%s'", bad[i], said);
}

Test(pbrain, commands_that_need_a_board_are_errors_before_start, .init = setup_light, .fini = teardown)
{
    const char *cmds[] = {"BEGIN", "TURN 7,7", "RESTART", "TAKEBACK 7,7", "YXNBEST 2", "YXSHOWFORBID"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
        cr_assert(starts_with(say(cmds[i]), "ERROR "), "'%s' got '%s'", cmds[i], said);
    cr_assert(starts_with(script("BOARD\n7,7,1\nDONE"), "ERROR BOARD"), "got '%s'", said);
}

Test(pbrain, restart_empties_the_board, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO max_node 2000");
    reply_point(say("TURN 7,7"), 15);
    cr_assert_str_eq(say("RESTART"), "OK");
    Move m = reply_point(say("BEGIN"), 15); /* BEGIN needs an empty board */
    cr_assert_neq(m, MOVE_NONE);
}

/* ---- moves ------------------------------------------------------------ */

Test(pbrain, begin_makes_the_brain_play_first_and_remember_its_move, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO max_node 3000");
    Move m = reply_point(say("BEGIN"), 15);
    char turn[32];
    snprintf(turn, sizeof turn, "TURN %d,%d", MOVE_X(m), MOVE_Y(m));
    cr_assert(starts_with(say(turn), "ERROR "), "its own stone is taken: got '%s'", said);
}

Test(pbrain, begin_on_a_board_with_stones_is_an_error, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO max_node 2000");
    say("TURN 7,7");
    cr_assert(starts_with(say("BEGIN"), "ERROR "));
}

Test(pbrain, turn_answers_with_a_legal_move_and_keeps_both_stones, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO max_node 3000");
    Move m = reply_point(say("TURN 7,7"), 15);
    cr_assert_neq(m, MOVE_XY(7, 7));
    char turn[32];
    snprintf(turn, sizeof turn, "TURN %d,%d", MOVE_X(m), MOVE_Y(m));
    cr_assert(starts_with(say(turn), "ERROR "), "got '%s'", said);
    cr_assert(starts_with(say("TURN 7,7"), "ERROR "), "got '%s'", said);
    Move m2 = reply_point(say("TURN 0,0"), 15);
    cr_assert(m2 != m && m2 != MOVE_XY(7, 7) && m2 != MOVE_XY(0, 0));
}

Test(pbrain, turn_with_malformed_coordinates_is_an_error_and_places_nothing, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO max_node 2000");
    const char *bad[] = {"TURN",       "TURN 7",    "TURN 7,",   "TURN ,7",   "TURN 15,0",
                         "TURN 0,15",  "TURN -1,3", "TURN a,b",  "TURN 7,7,7", "TURN 7;7",
                         "TURN 007,7", "TURN 7.5,7", "TURN 7 7", "TURN 99999999999,1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert(starts_with(say(bad[i]), "ERROR "), "'%s' got '%s'", bad[i], said);
    reply_point(say("BEGIN"), 15); /* the board is still empty */
}

Test(pbrain, board_with_as_many_stones_each_makes_the_brain_black_and_it_wins, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO max_depth 4");
    /* own: an open four on row 7; opponent: an open three on row 9 */
    const char *r = script("BOARD\n5,7,1\n5,9,2\n6,7,1\n6,9,2\n7,7,1\n7,9,2\n8,7,1\n0,0,2\nDONE");
    Move m = reply_point(r, 15);
    cr_assert(m == MOVE_XY(4, 7) || m == MOVE_XY(9, 7), "the brain makes its five, not %s", r);
}

Test(pbrain, board_with_one_more_opponent_stone_makes_the_brain_white, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO max_depth 4");
    /* own (white): a four closed at 4,7 that makes five at 9,7 */
    const char *r = script("BOARD\n4,7,2\n5,7,1\n0,0,2\n6,7,1\n2,0,2\n7,7,1\n0,2,2\n8,7,1\n14,14,2\nDONE");
    cr_assert_str_eq(r, "9,7");
}

Test(pbrain, board_with_counts_where_the_brain_is_not_to_move_is_an_error, .init = setup, .fini = teardown)
{
    say("START 15");
    cr_assert(starts_with(script("BOARD\n1,1,1\n2,2,1\n3,3,1\n4,4,2\nDONE"), "ERROR BOARD"), "got '%s'", said);
    cr_assert(starts_with(script("BOARD\n1,1,1\n2,2,1\n4,4,2\nDONE"), "ERROR BOARD"), "got '%s'", said);
    cr_assert(starts_with(script("BOARD\n1,1,2\n2,2,2\n4,4,2\nDONE"), "ERROR BOARD"), "got '%s'", said);
}

Test(pbrain, board_with_a_bad_line_is_one_error_at_done_and_keeps_the_old_position, .init = setup,
     .fini = teardown)
{
    say("START 15");
    say("INFO max_node 2000");
    reply_point(say("TURN 7,7"), 15);
    const char *bad[] = {"0,0,1\n0,0,2", "x,y,1", "1,2", "1,2,4", "15,1,1", "1,2,1,1", "1,2,", "-1,-1,1",
                         "1,2,01"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[256];
        snprintf(text, sizeof text, "BOARD\n3,3,2\n%s\n5,5,1\nDONE", bad[i]);
        const char *r = script(text);
        cr_assert(starts_with(r, "ERROR BOARD") && !strchr(r, '\n'), "'%s' got '%s'", bad[i], r);
    }
    cr_assert(starts_with(say("TURN 7,7"), "ERROR "), "7,7 is still taken: got '%s'", said);
    cr_assert(starts_with(say("TURN 3,3"), "ERROR ") == false, "3,3 was never placed");
}

Test(pbrain, board_never_plays_on_the_field_3_points_of_a_continuous_game, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO rule 2");
    say("INFO max_depth 4");
    /* own four on row 7 whose two ends are taken by finished lines */
    const char *r = script("BOARD\n4,7,3\n9,7,3\n5,7,1\n6,7,1\n7,7,1\n8,7,1\n0,0,2\n14,14,2\n2,0,2\n0,2,2\nDONE");
    Move m = reply_point(r, 15);
    cr_assert(m != MOVE_XY(4, 7) && m != MOVE_XY(9, 7), "played a blocked point: %s", r);
    const char *taken[] = {"5,7", "6,7", "7,7", "8,7", "0,0", "14,14", "2,0", "0,2"};
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++) cr_assert_str_neq(r, taken[i]);
    cr_assert(starts_with(say("TURN 4,7"), "ERROR "), "a field 3 point is not empty: got '%s'", said);
}

Test(pbrain, yxboard_sets_a_position_without_replying, .init = setup, .fini = teardown)
{
    say("START 15");
    int before = out_count();
    script("YXBOARD\n7,7,1\n8,8,2\nDONE");
    cr_assert_eq(out_count(), before, "YXBOARD answered '%s'", lines_since(before, true));
    cr_assert(starts_with(say("TURN 8,8"), "ERROR "), "8,8 is taken: got '%s'", said);
}

Test(pbrain, takeback_removes_a_stone_and_refuses_points_without_one, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO max_node 2000");
    Move m = reply_point(say("TURN 7,7"), 15);
    char cmd[32];
    snprintf(cmd, sizeof cmd, "TAKEBACK %d,%d", MOVE_X(m), MOVE_Y(m));
    cr_assert_str_eq(say(cmd), "OK");
    cr_assert_str_eq(say("TAKEBACK 7,7"), "OK");
    const char *bad[] = {"TAKEBACK 7,7", "TAKEBACK", "TAKEBACK 20,20", "TAKEBACK x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert(starts_with(say(bad[i]), "ERROR "), "'%s' got '%s'", bad[i], said);
    reply_point(say("BEGIN"), 15); /* empty again */
}

Test(pbrain, end_asks_the_caller_to_quit_even_inside_a_board, .init = setup_light, .fini = teardown)
{
    say("BOARD");
    say("1,1,1");
    int before = out_count();
    cr_assert_eq(pbrain_feed(pb, "END"), PBRAIN_QUIT);
    cr_assert_eq(pbrain_feed(pb, "ABOUT"), PBRAIN_QUIT, "nothing is handled after END");
    cr_assert_eq(out_count(), before);
}

Test(pbrain, end_in_any_case_asks_the_caller_to_quit, .init = setup_light, .fini = teardown)
{
    cr_assert_eq(pbrain_feed(pb, "end\r\n"), PBRAIN_QUIT);
}

/* ---- information ------------------------------------------------------ */

Test(pbrain, about_names_the_brain_and_its_version, .init = setup_light, .fini = teardown)
{
    const char *r = say("ABOUT");
    cr_assert(starts_with(r, "name=\"gomokud\", version=\"" GOMOKUD_VERSION "\""), "got '%s'", r);
    cr_assert(strstr(r, "author=\"gomokud team\"") && strstr(r, "country=\""), "got '%s'", r);
}

Test(pbrain, info_settings_are_silent_and_unknown_keys_are_ignored, .init = setup, .fini = teardown)
{
    const char *lines[] = {"INFO timeout_turn 5000", "INFO timeout_match 100000", "INFO time_left 90000",
                           "INFO max_memory 0",      "INFO game_type 1",          "INFO rule 1",
                           "INFO rule 0",            "INFO folder some folder",   "INFO evaluate 3,4",
                           "INFO max_depth 5",       "INFO max_node 1000",        "INFO max_node -1",
                           "INFO thread_num 4",      "INFO foo",                  "INFO TIMEOUT_TURN 300"};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        cr_assert_str_eq(say(lines[i]), "", "'%s' got '%s'", lines[i], said);
}

Test(pbrain, info_with_a_bad_value_is_an_error, .init = setup, .fini = teardown)
{
    const char *bad[] = {"INFO",           "INFO timeout_turn",     "INFO timeout_turn abc", "INFO timeout_turn -5",
                         "INFO rule 8",    "INFO max_memory 12x",   "INFO time_left 1.5",    "INFO max_depth deep",
                         "INFO rule 4 4"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert(starts_with(say(bad[i]), "ERROR "), "'%s' got '%s'", bad[i], said);
}

Test(pbrain, unknown_commands_are_answered_unknown, .init = setup_light, .fini = teardown)
{
    const char *cmds[] = {"FOO", "HELLO WORLD", "yxfoo 1", "BOARDS", "STARTS 15", "7,7"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
        cr_assert(starts_with(say(cmds[i]), "UNKNOWN "), "'%s' got '%s'", cmds[i], said);
}

Test(pbrain, lines_may_end_in_crlf_and_commands_ignore_case, .init = setup, .fini = teardown)
{
    cr_assert_str_eq(say("start 15\r\n"), "OK");
    cr_assert_str_eq(say("Info Max_Node 2000\r"), "");
    reply_point(say("Begin\r\n"), 15);
    cr_assert(starts_with(say("about\n"), "name="));
    cr_assert(starts_with(script("yxboard\n7,7,1\ndone\nyxshowforbid"), "FORBID "), "got '%s'", said);
}

Test(pbrain, empty_and_blank_lines_are_ignored, .init = setup_light, .fini = teardown)
{
    cr_assert_str_eq(say(""), "");
    cr_assert_str_eq(say("   \t "), "");
    cr_assert_str_eq(say("\r\n"), "");
    cr_assert_eq(out_count(), 0);
}

Test(pbrain, garbage_and_overlong_lines_get_one_error_each_and_break_nothing, .init = setup, .fini = teardown)
{
    say("START 15");
    uint32_t seed = 12345;
    char line[300];
    for (int i = 0; i < 400; i++) {
        int len = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 200;
        for (int k = 0; k < len; k++) line[k] = (char)(1 + ((seed = seed * 1103515245u + 12345u) >> 16) % 255);
        line[0] = '#'; /* not a command letter, so never a real command */
        line[len] = 0;
        int before = out_count();
        cr_assert_eq(pbrain_feed(pb, line), PBRAIN_CONTINUE);
        cr_assert_eq(out_count(), before + 1, "one reply to garbage line %d", i);
        cr_assert(starts_with(lines_since(before, true), "UNKNOWN "), "got '%s'", said);
    }
    const char *prefixes[] = {"TURN ", "INFO timeout_turn ", "START ", "TAKEBACK ", "YXNBEST ", "RECTSTART "};
    for (int i = 0; i < 300; i++) {
        int n = snprintf(line, sizeof line, "%s", prefixes[i % 6]);
        int len = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 40;
        for (int k = 0; k < len; k++) line[n++] = (char)(32 + ((seed = seed * 1103515245u + 12345u) >> 16) % 95);
        line[n++] = 'q'; /* makes sure the argument is not a valid one */
        line[n] = 0;
        int before = out_count();
        cr_assert_eq(pbrain_feed(pb, line), PBRAIN_CONTINUE);
        cr_assert(starts_with(lines_since(before, true), "ERROR "), "'%s' got '%s'", line, said);
    }
    static char longline[5000];
    memset(longline, 'A', sizeof longline - 1);
    cr_assert(starts_with(say(longline), "ERROR line too long"), "got '%s'", said);
    memset(longline, ' ', sizeof longline - 1);
    memcpy(longline, "TURN 7,7", 8);
    longline[sizeof longline - 2] = 'x';
    cr_assert(starts_with(say(longline), "ERROR line too long"), "got '%s'", said);
    cr_assert_str_eq(say("START 15"), "OK");
    say("INFO max_node 2000");
    reply_point(say("BEGIN"), 15);
}

/* ---- renju and the Yixin-Board extensions ------------------------------ */

/* Black: a three on row 7 (5,7 6,7) and on column 7 (7,9 7,8): 7,7 makes a
 * double three. White: four stones out of the way. */
#define DOUBLE_THREE_YXBOARD "YXBOARD\n5,7,1\n0,0,2\n6,7,1\n0,2,2\n7,9,1\n14,0,2\n7,8,1\n14,2,2\nDONE"

Test(pbrain, yxshowforbid_lists_black_forbidden_points_as_xxyy, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO rule 4");
    script(DOUBLE_THREE_YXBOARD);
    const char *r = say("YXSHOWFORBID");

    ref_stones(15, RULE_RENJU, "5,7 6,7 7,9 7,8", "0,0 0,2 14,0 14,2", BLACK);
    Move pts[BOARD_MAX_MOVES];
    int n = rules_forbidden_points(&ref, pts);
    char expect[4096] = "FORBID ";
    for (int i = 0; i < n; i++)
        snprintf(expect + strlen(expect), sizeof expect - strlen(expect), "%02d%02d", MOVE_X(pts[i]), MOVE_Y(pts[i]));
    strcat(expect, ".");
    cr_assert_str_eq(r, expect);
    cr_assert(strstr(r, "0707"), "7,7 is a double three: got '%s'", r);
}

Test(pbrain, yxshowforbid_is_empty_outside_renju_or_with_white_to_move, .init = setup, .fini = teardown)
{
    say("START 15");
    script(DOUBLE_THREE_YXBOARD);
    cr_assert_str_eq(say("YXSHOWFORBID"), "FORBID .");
    say("INFO rule 4");
    script("YXBOARD\n5,7,2\n0,0,1\n6,7,2\n0,2,1\n7,9,2\n14,0,1\n7,8,2\nDONE");
    cr_assert_str_eq(say("YXSHOWFORBID"), "FORBID .", "white is to move");
}

Test(pbrain, renju_black_never_plays_a_forbidden_point, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO rule 4");
    say("INFO max_depth 4");
    /* 7,7 would be a double four for black (row 4..6 and column 4..6), its
     * only strong point */
    const char *r = script("BOARD\n4,7,1\n3,7,2\n5,7,1\n7,11,2\n6,7,1\n0,14,2\n7,4,1\n0,12,2\n7,5,1\n14,14,2\n"
                           "7,6,1\n14,12,2\nDONE");
    Move m = reply_point(r, 15);
    ref_stones(15, RULE_RENJU, "4,7 5,7 6,7 7,4 7,5 7,6", "3,7 7,11 0,14 0,12 14,14 14,12", BLACK);
    cr_assert(rules_is_forbidden(&ref, MOVE_XY(7, 7)), "the test position has its forbidden point");
    cr_assert(rules_is_legal(&ref, m), "black played %s, which it may not", r);
}

Test(pbrain, yxnbest_reports_each_line_and_plays_the_first, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO max_depth 3");
    script("YXBOARD\n7,7,1\n8,8,2\n8,7,1\n6,6,2\nDONE");
    int from = out_count();
    const char *move = say("YXNBEST 3");
    Move m = reply_point(move, 15);
    const char *all = lines_since(from, true);
    char first[64] = "";
    for (int k = 1; k <= 3; k++) {
        char tag[32];
        snprintf(tag, sizeof tag, "MESSAGE nbest %d score ", k);
        const char *at = strstr(all, tag);
        cr_assert_not_null(at, "line %d is reported: got '%s'", k, all);
        if (k == 1) sscanf(strstr(at, " pv ") + 4, "%63s", first);
    }
    cr_assert_eq(m, reply_point(first, 15), "the move is the first line's");
    cr_assert(starts_with(say("YXNBEST 0"), "ERROR "));
    cr_assert(starts_with(say("YXNBEST x"), "ERROR "));
}

Test(pbrain, message_lines_show_depth_score_and_pv_up_to_max_depth, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO max_depth 3");
    int from = out_count();
    script(QUIET_BOARD);
    int depth = 0, lines = 0;
    pthread_mutex_lock(&out.mu);
    for (int i = from; i < out.n; i++) {
        int d;
        if (sscanf(out.lines[i], "MESSAGE depth %d", &d) != 1) continue;
        cr_assert_eq(d, depth + 1, "depths come in order: '%s'", out.lines[i]);
        cr_assert(strstr(out.lines[i], " score ") && strstr(out.lines[i], " winrate 0.") && strstr(out.lines[i], " pv "),
                  "'%s'", out.lines[i]);
        depth = d, lines++;
    }
    pthread_mutex_unlock(&out.mu);
    cr_assert_eq(depth, 3, "max_depth 3 stops at depth 3");
    cr_assert_eq(lines, 3);
}

/* ---- time and memory -------------------------------------------------- */

Test(pbrain, budget_never_exceeds_the_turn_limit_or_the_time_left)
{
    const int64_t turns[] = {0, 1, 30, 100, 200, 1000, 30000, INT64_MAX};
    const int64_t matches[] = {0, 1000, 180000, INT64_MAX};
    const int64_t lefts[] = {-1, 0, 10, 500, 100000, 2147483647};
    const int empties[] = {0, 50, 225, 625};
    for (size_t a = 0; a < 8; a++)
        for (size_t b = 0; b < 4; b++)
            for (size_t c = 0; c < 6; c++)
                for (size_t d = 0; d < 4; d++) {
                    int64_t t = turns[a], mt = matches[b], l = lefts[c], optimum = -1;
                    int64_t got = pbrain_budget_ms(t, mt, l, empties[d], &optimum);
                    cr_assert_geq(got, 5, "some time to find a move");
                    cr_assert_leq(got, 1000000000, "a search always ends some day");
                    cr_assert_geq(optimum, 5, "an aim the search can reach");
                    int64_t turn_cap = t - t / 50 - 30; /* 2% and 30 ms */
                    if (t > 0) cr_assert_leq(got, turn_cap > 5 ? turn_cap : 5, "turn %lld", (long long)t);
                    int64_t left = l >= 0 ? l : mt;
                    if ((mt > 0 || l >= 0) && left != 2147483647) {
                        /* two shares of the time left over at least ten moves */
                        cr_assert_leq(got, left / 5 > 5 ? left / 5 : 5, "left %lld", (long long)left);
                        cr_assert_leq(optimum, left / 10 > 5 ? left / 10 : 5, "left %lld", (long long)left);
                    }
                }
}

Test(pbrain, budget_spreads_the_match_time_over_the_moves_left)
{
    int64_t optimum = 0;
    int64_t opening = pbrain_budget_ms(30000, 180000, 180000, 225, &optimum);
    cr_assert_eq(optimum, 8790, "a twentieth of the match, less 2%% and 30 ms");
    cr_assert_eq(opening, 17580, "up to two shares when the search needs them");
    int64_t late = pbrain_budget_ms(30000, 180000, 1000, 10, &optimum);
    cr_assert_leq(late, 200);
    cr_assert_leq(optimum, 100);
    /* a turn limit below the share: the turn is the hard limit, the share the aim */
    cr_assert_eq(pbrain_budget_ms(500, 20000, 20000, 221, &optimum), 460, "500 ms less 2%% and 30 ms");
    cr_assert_eq(optimum, 950, "a twentieth of 20 s, less the margin");
    cr_assert_eq(pbrain_budget_ms(200, 0, -1, 225, &optimum), 166, "200 ms less 2%% and 30 ms");
    cr_assert_geq(optimum, 1000000, "no match limit: the whole turn is used");
    cr_assert_eq(pbrain_budget_ms(200, 0, 2147483647, 225, NULL), 166, "2147483647 means no match limit");
}

Test(pbrain, max_memory_sizes_the_table_to_fit_the_limit, .init = setup, .fini = teardown)
{
    size_t mib = pbrain_tt_mib_for_memory(350u << 20, 64);
    cr_assert(mib >= 128 && (mib << 20) + (32u << 20) <= (350u << 20), "got %zu MiB", mib);
    cr_assert_eq(mib & (mib - 1), 0, "a power of two");
    cr_assert_eq(pbrain_tt_mib_for_memory(0, 64), 64);
    cr_assert_eq(pbrain_tt_mib_for_memory(10u << 20, 64), 1);

    cr_assert_str_eq(say("INFO max_memory 52428800"), "");
    size_t bytes = pbrain_tt_bytes(pb);
    cr_assert(bytes > 0 && bytes <= (18u << 20), "50 MiB leaves at most 18 MiB for the table: %zu", bytes);
    say("INFO max_memory 0");
    cr_assert_leq(pbrain_tt_bytes(pb), 1u << 20, "back to the configured 1 MiB");
    cr_assert_str_eq(say("START 15"), "OK");
}

static int64_t ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

Test(pbrain, the_move_comes_within_the_turn_time, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO timeout_turn 500");
    int64_t t0 = ms_now();
    reply_point(script(QUIET_BOARD), 15);
    cr_assert_lt(ms_now() - t0, 500);
}

Test(pbrain, the_move_comes_within_the_match_time_left, .init = setup, .fini = teardown)
{
    say("START 15");
    say("INFO timeout_turn 30000");
    say("INFO timeout_match 600000");
    say("INFO time_left 1000");
    int64_t t0 = ms_now();
    reply_point(script(QUIET_BOARD), 15);
    cr_assert_lt(ms_now() - t0, 100, "a share of one second over the moves left");
}

/* ---- a search on the worker thread ------------------------------------ */

/* Waits up to ms for the number of non-MESSAGE lines since `from` to reach n. */
static bool wait_replies(int from, int n, int ms)
{
    for (int64_t end = ms_now() + ms; ms_now() < end; usleep(2000)) {
        int got = 0;
        pthread_mutex_lock(&out.mu);
        for (int i = from; i < out.n; i++) got += strncmp(out.lines[i], "MESSAGE", 7) != 0;
        pthread_mutex_unlock(&out.mu);
        if (got >= n) return true;
    }
    return false;
}

Test(pbrain, yxstop_stops_a_long_search_and_the_move_comes_at_once, .init = setup_threaded, .fini = teardown)
{
    say("START 15");
    say("INFO timeout_turn 600000");
    int from = out_count();
    script(QUIET_BOARD);
    usleep(200 * 1000);
    cr_assert(pbrain_busy(pb), "still thinking with ten minutes to go");
    int64_t t0 = ms_now();
    cr_assert_str_eq(say("YXSTOP"), "");
    cr_assert(wait_replies(from, 1, 3000), "the move came after YXSTOP");
    cr_assert_lt(ms_now() - t0, 3000);
    pbrain_wait(pb);
    cr_assert_not(pbrain_busy(pb));
    reply_point(lines_since(from, false), 15);
}

Test(pbrain, commands_sent_while_thinking_are_answered_in_order_after_the_move, .init = setup_threaded,
     .fini = teardown)
{
    say("START 15");
    say("INFO timeout_turn 600000");
    int from = out_count();
    script(QUIET_BOARD);
    cr_assert(starts_with(say("ABOUT"), "name="), "ABOUT is answered at once");
    say("YXSHOWFORBID");
    say("RESTART");
    say("YXSTOP");
    pbrain_wait(pb);
    const char *all = lines_since(from, false);
    char move[16];
    cr_assert_eq(sscanf(all, "name=%*[^\n]\n%15[^\n]\n", move), 1, "got '%s'", all);
    reply_point(move, 15);
    cr_assert(strstr(all, "\nFORBID .\nOK") && !strcmp(all + strlen(all) - 3, "\nOK"), "got '%s'", all);
}

Test(pbrain, end_during_a_search_quits_without_a_move, .init = setup_threaded, .fini = teardown)
{
    say("START 15");
    say("INFO timeout_turn 600000");
    int from = out_count();
    script(QUIET_BOARD);
    int64_t t0 = ms_now();
    cr_assert_eq(pbrain_feed(pb, "END"), PBRAIN_QUIT);
    pbrain_free(pb);
    pb = NULL;
    cr_assert_lt(ms_now() - t0, 3000, "the search stopped");
    cr_assert_str_eq(lines_since(from, false), "");
}

/* ---- the real binary through pipes ------------------------------------ */

typedef struct {
    pid_t pid;
    int to, from;
    char buf[1 << 16];
    size_t len;
} Proc;

static void proc_start(Proc *p)
{
    const char *dir = getenv("GOMOKUD_BIN_DIR");
    cr_assert_not_null(dir, "GOMOKUD_BIN_DIR names the directory of pbrain-gomokud");
    char path[4096];
    snprintf(path, sizeof path, "%s/pbrain-gomokud", dir);
    cr_assert_eq(access(path, X_OK), 0, "%s is not built", path);
    int in[2], outp[2];
    cr_assert(pipe(in) == 0 && pipe(outp) == 0);
    signal(SIGPIPE, SIG_IGN);
    p->pid = fork();
    cr_assert_geq(p->pid, 0);
    if (p->pid == 0) {
        dup2(in[0], 0);
        dup2(outp[1], 1);
        close(in[0]), close(in[1]), close(outp[0]), close(outp[1]);
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(outp[1]);
    p->to = in[1];
    p->from = outp[0];
    p->len = 0;
}

static void proc_send(Proc *p, const char *line)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "%s\r\n", line);
    cr_assert_eq(write(p->to, buf, (size_t)n), n, "the brain is gone (sending '%s')", line);
}

/* The next line, or NULL after timeout_ms or at the end of the output. */
static const char *proc_line(Proc *p, int timeout_ms)
{
    static char line[1 << 16];
    int64_t end = ms_now() + timeout_ms;
    for (;;) {
        char *nl = memchr(p->buf, '\n', p->len);
        if (nl) {
            size_t n = (size_t)(nl - p->buf);
            memcpy(line, p->buf, n);
            line[n] = 0;
            if (n && line[n - 1] == '\r') line[n - 1] = 0;
            memmove(p->buf, nl + 1, p->len - n - 1);
            p->len -= n + 1;
            return line;
        }
        int wait = (int)(end - ms_now());
        if (wait <= 0 || p->len == sizeof p->buf) return NULL;
        struct pollfd pfd = {.fd = p->from, .events = POLLIN};
        if (poll(&pfd, 1, wait) <= 0) return NULL;
        ssize_t got = read(p->from, p->buf + p->len, sizeof p->buf - p->len);
        if (got <= 0) return NULL;
        p->len += (size_t)got;
    }
}

/* The next reply that is not a MESSAGE or DEBUG line. */
static const char *proc_reply(Proc *p, int timeout_ms)
{
    int64_t end = ms_now() + timeout_ms;
    for (;;) {
        int left = (int)(end - ms_now());
        const char *l = proc_line(p, left > 0 ? left : 0);
        if (!l || (strncmp(l, "MESSAGE", 7) && strncmp(l, "DEBUG", 5))) return l;
    }
}

/* Sends END and returns the exit status (fails the test after 5 s). */
static int proc_end(Proc *p)
{
    proc_send(p, "END");
    close(p->to);
    int status = -1;
    for (int64_t end = ms_now() + 5000; ms_now() < end; usleep(5000))
        if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
            close(p->from);
            return status;
        }
    kill(p->pid, SIGKILL);
    waitpid(p->pid, &status, 0);
    close(p->from);
    cr_assert_fail("the brain did not exit after END");
    return -1;
}

#define TURN_MS 200
#define REPLY_MARGIN_MS 400

/* Two copies of the brain play one game on 15x15; every reply is checked
 * against a referee board: on the board, empty, not forbidden to black
 * under renju, and in time. Returns the winner (EMPTY for a full board). */
static Color self_play(int rule_bits, Rule rule, const char *limit)
{
    Proc procs[2];
    for (int i = 0; i < 2; i++) {
        proc_start(&procs[i]);
        char info[64];
        snprintf(info, sizeof info, "INFO rule %d", rule_bits);
        proc_send(&procs[i], "INFO max_memory 41943040");
        proc_send(&procs[i], "START 15");
        const char *ok = proc_reply(&procs[i], 5000);
        cr_assert(ok && !strcmp(ok, "OK"), "START 15 got '%s'", ok ? ok : "(nothing)");
        proc_send(&procs[i], info);
        snprintf(info, sizeof info, "INFO timeout_turn %d", TURN_MS);
        proc_send(&procs[i], info);
        proc_send(&procs[i], "INFO timeout_match 0");
        if (limit) proc_send(&procs[i], limit);
    }
    cr_assert(board_reset(&ref, 15, rule));
    proc_send(&procs[0], "BEGIN");
    Color winner = EMPTY;
    for (int ply = 0; ply < 15 * 15; ply++) {
        Proc *p = &procs[ply % 2];
        int64_t t0 = ms_now();
        const char *r = proc_reply(p, TURN_MS + REPLY_MARGIN_MS);
        int64_t took = ms_now() - t0;
        cr_assert_not_null(r, "no reply within %d ms at ply %d", TURN_MS + REPLY_MARGIN_MS, ply);
        Move m = reply_point(r, 15);
        cr_assert(board_empty(&ref, m), "ply %d: %s is taken", ply, r);
        if (rule == RULE_RENJU && ref.to_move == BLACK)
            cr_assert_not(rules_is_forbidden(&ref, m), "ply %d: %s is forbidden to black", ply, r);
        cr_assert_leq(took, TURN_MS + REPLY_MARGIN_MS);
        board_play(&ref, m);
        winner = rules_winner(&ref);
        if (winner != EMPTY || board_full(&ref)) break;
        char turn[32];
        snprintf(turn, sizeof turn, "TURN %s", r);
        proc_send(&procs[(ply + 1) % 2], turn);
    }
    for (int i = 0; i < 2; i++) {
        int status = proc_end(&procs[i]);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "brain %d exit status %d", i, status);
    }
    cr_log_info("%s game: %d moves, %s", rule_name(rule), ref.nmoves,
                winner == BLACK ? "black won" : winner == WHITE ? "white won" : "a full board");
    cr_assert(winner != EMPTY || board_full(&ref), "the game ran to its end");
    if (winner != EMPTY) cr_assert_geq(ref.nmoves, 9, "a five needs at least nine moves");
    return winner;
}

Test(pbrain, real_brain_plays_a_whole_freestyle_game_against_itself, .timeout = 60)
{
    cr_assert(engine_init());
    self_play(0, RULE_FREESTYLE, "INFO max_node 3000");
}

Test(pbrain, real_brain_plays_a_whole_renju_game_against_itself, .timeout = 60)
{
    cr_assert(engine_init());
    self_play(4, RULE_RENJU, "INFO max_node 3000");
}

Test(pbrain, real_brain_answers_in_time_with_only_a_turn_limit, .timeout = 60)
{
    cr_assert(engine_init());
    Proc p;
    proc_start(&p);
    proc_send(&p, "START 15");
    proc_send(&p, "INFO timeout_turn 150");
    const char *ok = proc_reply(&p, 5000);
    cr_assert(ok && !strcmp(ok, "OK"), "got '%s'", ok ? ok : "(nothing)");
    cr_assert(board_reset(&ref, 15, RULE_FREESTYLE));
    /* scripted opponent: the first empty point of a spiral walk from 3,3 */
    proc_send(&p, "BEGIN");
    for (int turn = 0; turn < 10; turn++) {
        int64_t t0 = ms_now();
        const char *r = proc_reply(&p, 150 + REPLY_MARGIN_MS);
        cr_assert_not_null(r, "no reply in time at turn %d", turn);
        cr_assert_leq(ms_now() - t0, 150 + REPLY_MARGIN_MS);
        Move m = reply_point(r, 15);
        cr_assert(board_empty(&ref, m), "%s is taken", r);
        board_play(&ref, m);
        if (rules_winner(&ref) != EMPTY) break;
        Move o = MOVE_NONE;
        for (int k = 0; k < 225 && o == MOVE_NONE; k++) {
            Move c = MOVE_XY((3 + 5 * k) % 15, (3 + 7 * k + k / 15) % 15);
            if (board_empty(&ref, c)) o = c;
        }
        cr_assert_neq(o, MOVE_NONE);
        board_play(&ref, o);
        if (rules_winner(&ref) != EMPTY) break;
        char cmd[32];
        snprintf(cmd, sizeof cmd, "TURN %d,%d", MOVE_X(o), MOVE_Y(o));
        proc_send(&p, cmd);
    }
    int status = proc_end(&p);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

Test(pbrain, real_brain_survives_garbage_and_exits_on_end, .timeout = 30)
{
    Proc p;
    proc_start(&p);
    proc_send(&p, "ABOUT");
    const char *r = proc_reply(&p, 5000);
    cr_assert(r && starts_with(r, "name=\"gomokud\""), "got '%s'", r ? r : "(nothing)");
    proc_send(&p, "\x01\x02\x7f garbage \xff\xfe");
    r = proc_reply(&p, 5000);
    cr_assert(r && starts_with(r, "UNKNOWN"), "got '%s'", r ? r : "(nothing)");
    static char longline[3000];
    memset(longline, 'Z', sizeof longline - 1);
    char *cr = longline;
    cr_assert_eq(write(p.to, cr, strlen(cr)), (ssize_t)strlen(cr));
    proc_send(&p, "");
    r = proc_reply(&p, 5000);
    cr_assert(r && starts_with(r, "ERROR line too long"), "got '%s'", r ? r : "(nothing)");
    proc_send(&p, "START 15");
    r = proc_reply(&p, 5000);
    cr_assert(r && !strcmp(r, "OK"), "got '%s'", r ? r : "(nothing)");
    proc_send(&p, "TURN 7,7,x");
    r = proc_reply(&p, 5000);
    cr_assert(r && starts_with(r, "ERROR"), "got '%s'", r ? r : "(nothing)");
    int status = proc_end(&p);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
}

Test(pbrain, real_brain_answers_its_last_move_when_the_input_ends, .timeout = 30)
{
    Proc p;
    proc_start(&p);
    proc_send(&p, "START 9");
    proc_send(&p, "INFO max_node 2000");
    proc_send(&p, "BEGIN");
    close(p.to);
    const char *ok = proc_reply(&p, 5000);
    cr_assert(ok && !strcmp(ok, "OK"), "got '%s'", ok ? ok : "(nothing)");
    const char *r = proc_reply(&p, 5000);
    cr_assert_not_null(r, "the move of the last command still comes");
    reply_point(r, 9);
    int status = -1;
    for (int64_t end = ms_now() + 5000; ms_now() < end && waitpid(p.pid, &status, WNOHANG) != p.pid;) usleep(5000);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
    close(p.from);
}

/* SWAP2BOARD: the brain plays every decision of swap2, both sides. */
Test(pbrain, swap2board_is_played_through_against_itself, .init = setup, .fini = teardown, .timeout = 120)
{
    cr_assert_str_eq(script("START 15\nINFO rule 0\nINFO timeout_turn 300"), "OK");
    const char *three = script("SWAP2BOARD\nDONE");
    Move m[5];
    char a[16], b[16], c[16], tail[64];
    cr_assert_eq(sscanf(three, "%15s %15s %15s", a, b, c), 3, "three stones: '%s'", three);
    m[0] = reply_point(a, 15);
    m[1] = reply_point(b, 15);
    m[2] = reply_point(c, 15);
    char buf[256];
    snprintf(buf, sizeof buf, "SWAP2BOARD\n%s\n%s\n%s\nDONE", a, b, c);
    snprintf(tail, sizeof tail, "%s", script(buf));
    if (!strcmp(tail, "SWAP")) return; /* takes black */
    char d[16], e[16];
    int n = sscanf(tail, "%15s %15s", d, e);
    cr_assert(n == 1 || n == 2, "SWAP, a move or two stones: '%s'", tail);
    m[3] = reply_point(d, 15);
    for (int i = 0; i < 3; i++) cr_assert_neq(m[3], m[i], "on a stone: '%s'", tail);
    if (n == 1) return; /* plays white */
    m[4] = reply_point(e, 15);
    snprintf(buf, sizeof buf, "SWAP2BOARD\n%s\n%s\n%s\n%s\n%s\nDONE", a, b, c, d, e);
    const char *last = script(buf);
    cr_assert(!strcmp(last, "SWAP") || move_parse_xy(last, 15) != MOVE_NONE, "SWAP or white's move: '%s'", last);
    if (strcmp(last, "SWAP")) {
        Move w = reply_point(last, 15);
        for (int i = 0; i < 5; i++) cr_assert_neq(w, m[i]);
    }
}

Test(pbrain, swap2board_refuses_other_stone_counts_and_bad_lines, .init = setup, .fini = teardown)
{
    cr_assert_str_eq(script("START 15"), "OK");
    cr_assert(starts_with(script("SWAP2BOARD\n7,7\nDONE"), "ERROR SWAP2BOARD: 1 stones"));
    cr_assert(starts_with(script("SWAP2BOARD\n7,7\nbanana\n8,8\nDONE"), "ERROR SWAP2BOARD: 'banana'"));
    cr_assert(starts_with(script("SWAP2BOARD\n7,7\n7,7\n8,8\nDONE"), "ERROR SWAP2BOARD:"));
}

/* ---- the opening book ---------------------------------------------------- */

/* A book whose only entry answers h8 (freestyle) with a corner, a move no
 * search would choose, so a reply shows where it came from. */
static EngineBook *corner_book(void)
{
    Position p = {.rule = RULE_FREESTYLE, .size = 15, .ordered = true, .nmoves = 1, .moves = {MOVE_XY(7, 7)}};
    char text[128];
    cr_assert_gt(engine_book_format_entry(&p, MOVE_XY(0, 0), 0, 10, text, sizeof text), 0);
    char err[200];
    EngineBook *b = engine_book_parse(text, strlen(text), err, sizeof err);
    cr_assert_not_null(b, "%s", err);
    return b;
}

static bool is_corner(Move m)
{
    int x = MOVE_X(m), y = MOVE_Y(m);
    return (x == 0 || x == 14) && (y == 0 || y == 14);
}

Test(pbrain, the_brain_plays_from_its_book_unless_info_book_0)
{
    cr_assert(engine_init());
    EngineBook *book = corner_book();
    PbrainOptions opt = {.threaded = false, .tt_mib = 1, .book = book};
    pb = pbrain_new(&opt, collect, NULL);
    cr_assert_not_null(pb);
    say("START 15");
    say("INFO max_node 3000");
    Move m = reply_point(say("TURN 7,7"), 15);
    cr_assert(is_corner(m), "the book's move (a corner), not %d,%d", MOVE_X(m), MOVE_Y(m));
    say("RESTART");
    cr_assert_str_eq(say("INFO book 0"), "");
    m = reply_point(say("TURN 7,7"), 15);
    cr_assert_not(is_corner(m), "searched, not the book's corner");
    say("RESTART");
    say("INFO book 1");
    cr_assert(is_corner(reply_point(say("TURN 7,7"), 15)));
    teardown();
    engine_book_free(book);
}
