/*
 * cmd_opengen.c - `gomokud opengen`: balanced openings for tournaments and
 * self-play, one per line, from engine/opening.c's generator (the one
 * `gomokud selfplay` and POST /v1/openings/balanced use).
 *
 *   gomokud opengen --rule R --stones N --count K [--seed S] [--size N] [--depth D] [--json]
 *
 * Each line is the opening's moves in notation, black first, then its score
 * at the balance check (side to move's view): "h8 j9 g10 f8  # score 12".
 * With --json each line is the JSON object POST /v1/openings/balanced puts in
 * its "openings" array. The same arguments give the same openings.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/board.h"
#include "engine/opening.h"
#include "engine/rules.h"
#include "server/commands.h"

#define OPENGEN_MAX_COUNT 1000
#define OPENGEN_TRIES_PER_OPENING 2000 /* about 20 times what an opening takes on average */

static const char usage[] =
    "usage: gomokud opengen --rule freestyle|standard|renju --stones N --count K [--seed S]\n"
    "                       [--size N] [--depth D] [--json]\n"
    "  --stones N   stones of each opening, 1..12 (black first, alternating)\n"
    "  --count K    openings to make, 1..1000\n"
    "  --seed S     generator seed (default 0): the same seed gives the same openings\n"
    "  --size N     board size, 5..25 (default 15)\n"
    "  --depth D    depth of the balance check, 1..8 (default 4)\n"
    "  --json       one JSON object per line instead of notation\n"
    "An opening is kept when the search finds |score| <= 60 (win rate 0.5 +- 0.009) and no forced five;\n"
    "at most 2000 tries per opening asked.\n";

static bool parse_num(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

int cmd_opengen(int argc, char **argv)
{
    Rule rule = RULE_FREESTYLE;
    long long stones = 0, count = 0, seed = 0, size = BOARD_DEFAULT_SIZE, depth = OPENING_DEPTH;
    bool json = false, have_rule = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(a, "--json")) {
            json = true;
            continue;
        }
        bool ok = v != NULL;
        if (ok && !strcmp(a, "--rule")) ok = have_rule = rule_parse(v, &rule);
        else if (ok && !strcmp(a, "--stones")) ok = parse_num(v, 1, OPENING_MAX_STONES, &stones);
        else if (ok && !strcmp(a, "--count")) ok = parse_num(v, 1, OPENGEN_MAX_COUNT, &count);
        else if (ok && !strcmp(a, "--seed")) ok = parse_num(v, 0, 9007199254740991LL, &seed);
        else if (ok && !strcmp(a, "--size")) ok = parse_num(v, BOARD_MIN_SIZE, BOARD_MAX_SIZE, &size);
        else if (ok && !strcmp(a, "--depth")) ok = parse_num(v, 1, 8, &depth);
        else ok = false;
        if (!ok) {
            fprintf(stderr, "gomokud opengen: bad or missing value for '%s'\n%s", a, usage);
            return 2;
        }
        i++;
    }
    if (!have_rule || !stones || !count) {
        fprintf(stderr, "gomokud opengen: --rule, --stones and --count are required\n%s", usage);
        return 2;
    }
    int region = size < OPENING_REGION ? (int)size : OPENING_REGION;
    if (stones > region * region / 2) {
        fprintf(stderr, "gomokud opengen: %lld stones do not fit the %dx%d centre of a %lldx%lld board\n", stones,
                region, region, size, size);
        return 2;
    }
    Engine *e = engine_new(&(EngineOptions){.tt_mib = 16});
    BalancedOpening *out = calloc((size_t)count, sizeof *out);
    if (!e || !out) {
        fprintf(stderr, "gomokud opengen: out of memory\n");
        engine_free(e);
        free(out);
        return 1;
    }
    OpeningGenParams p = {.rule = rule, .size = (int)size, .min_stones = (int)stones, .max_stones = (int)stones,
                          .seed = (uint64_t)seed, .depth = (int)depth,
                          .max_tries = (int)count * OPENGEN_TRIES_PER_OPENING};
    OpeningGenStats st;
    int n = opening_balanced(e, &p, out, (int)count, &st);
    for (int i = 0; i < n; i++) {
        char buf[8];
        if (json) fputs("{\"moves\":[", stdout);
        for (int k = 0; k < out[i].n; k++) {
            move_to_notation(out[i].moves[k], (int)size, buf);
            printf(json ? "%s\"%s\"" : "%s%s", k ? (json ? "," : " ") : "", buf);
        }
        if (json)
            printf("],\"to_move\":\"%s\",\"score\":%d}\n", out[i].to_move == WHITE ? "white" : "black",
                   (int)out[i].score);
        else
            printf("  # score %d\n", (int)out[i].score);
    }
    fprintf(stderr, "gomokud opengen: %d of %lld openings, %d tries, %lld nodes\n", n, count, st.tries,
            (long long)st.nodes);
    engine_free(e);
    free(out);
    return n == count ? 0 : 1;
}
