/*
 * cmd_selfplay.c - `gomokud selfplay`: two engine configurations play each
 * other from a set of openings, each opening twice with colours swapped, at
 * equal time (or equal nodes) per move; prints wins/draws/losses of A and the
 * Elo difference with its 95% error bar, and optionally runs a sequential
 * probability ratio test that stops the match once it is decided.
 *
 *   gomokud selfplay [--a FEATURES] [--b FEATURES] [--time-ms MS | --nodes N]
 *                    [--games N] [--rule R] [--threads N] [--max-moves N]
 *                    [--sprt ELO0,ELO1 [--alpha A] [--beta B]] [--log FILE]
 *                    [--a-level N] [--b-level N]
 * FEATURES: "all" or a comma list of nopvs, nott, noordering, nothreats, nohorizon,
 *           nofutility, nomovecount, nolmr, nomovecheck, nofailhigh, nocorrection, noprobcut,
 *           noattackhistory;
 * "plain" means nopvs,nott,noordering (plain alpha-beta with static order).
 *
 * With --nodes every search is single-threaded and node-limited, and both
 * engines forget everything between games (engine_clear), so each game is a
 * function of its opening and colours alone: the same command replays the
 * same games, whatever --threads is.
 *
 * --a-level / --b-level N make a side play as the server's POST /v1/move
 * does at level N (engine/level.h): the level's node cap and lines, its
 * seeded choice among them (the seed is the game's number, mixed with the
 * position), and engines that start every search afresh. The top level uses
 * --time-ms. `make calibrate-levels` plays each level against the next.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/board.h"
#include "engine/engine.h"
#include "engine/level.h"
#include "engine/opening.h"
#include "engine/rules.h"
#include "server/commands.h"
#include "server/selfplay.h"

#define SELFPLAY_TT_MIB 32
#define SELFPLAY_MAX_THREADS 8
#define SELFPLAY_MAX_GAMES 100000
/* The SPRT gives no verdict on fewer pairs: the LLR rests on the variance
 * of the pair scores, which two or three pairs estimate too roughly (two
 * pairs 0 and 1 point of 2 already "accept" H0 at elo0 = 0, elo1 = 200). */
#define SPRT_MIN_PAIRS 5

/* Openings: four to six stones in the 7x7 centre, made from a fixed seed
 * and kept only when a short search finds them roughly balanced; a bare
 * two-stone start is a sure win for black at any depth that matters. The
 * generator is engine/opening.c's (also behind gomokud opengen and POST
 * /v1/openings/balanced), with its threshold: |score| <= OPENING_BALANCE at
 * OPENING_DEPTH. Only as many are made as the match needs (games / 2 + 1),
 * so raising the caps changes neither the first openings nor the cost of a
 * short match. About one try in a hundred is kept, at a few ms a try: 256
 * freestyle openings took 138 s of one (shared) core, 64 about 30 s. Should
 * OPENING_TRIES run out first, the match has fewer openings (see the
 * --nodes cap below). */
#define OPENING_TRIES 40000
#define OPENING_SEED 0x5e1f9147ull
#define MAX_OPENINGS 256

typedef BalancedOpening Opening;

static int make_openings(Rule rule, Opening *out, int want)
{
    Engine *e = engine_new(&(EngineOptions){.tt_mib = 4});
    if (!e) return 0;
    OpeningGenParams p = {.rule = rule, .size = 15, .min_stones = 4, .max_stones = 6, .seed = OPENING_SEED,
                          .max_tries = OPENING_TRIES};
    int n = opening_balanced(e, &p, out, want, NULL);
    engine_free(e);
    return n;
}

/* ---- SPRT ----------------------------------------------------------------
 * The generalised SPRT in the normal approximation that cutechess-cli and
 * fishtest use (Michel Van den Bergh's note,
 * hardy.uhasselt.be/Toga/GSPRT_approximation.pdf; talkchess, "The SPRT
 * without draw model, elo model or whatever", 2016): with N results of sample
 * mean m and variance v per result, and s0, s1 the expected scores of the two
 * hypotheses, LLR = N (s1 - s0) (2m - s0 - s1) / (2v). The variance comes
 * from the data, so the draw rate needs no model; it holds for any result
 * on [0, 1], a single game (trinomial) or a colour-swapped pair (pentanomial).
 * The selfplay unit is the pair: in gomoku the first move is worth a lot, so
 * the two games of a pair are far from independent, which per-game counting
 * assumes; the variance of pair scores takes that into account. */

static double expected_score(double elo)
{
    return 1.0 / (1.0 + pow(10.0, -elo / 400.0));
}

static double llr_of(const double *n, int k, double s0, double s1)
{
    double total = 0, sum = 0;
    for (int i = 0; i < k; i++) {
        total += n[i];
        sum += n[i] * i / (k - 1);
    }
    double mean = sum / total, var = 0;
    for (int i = 0; i < k; i++) {
        double d = (double)i / (k - 1) - mean;
        var += n[i] * d * d;
    }
    var /= total;
    return total * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var);
}

double selfplay_llr(const int *counts, int k, double elo0, double elo1)
{
    if (k < 2 || k > SELFPLAY_LLR_MAX_OUTCOMES) return 0;
    double n[SELFPLAY_LLR_MAX_OUTCOMES];
    int kinds = 0;
    long total = 0;
    for (int i = 0; i < k; i++) {
        n[i] = counts[i] > 0 ? counts[i] : 0;
        kinds += counts[i] > 0;
        total += counts[i] > 0 ? counts[i] : 0;
    }
    if (total == 0) return 0;
    /* One kind of result only: the sample variance is 0 and the formula has
     * no value. Half a result at each end (a Jeffreys-like prior) keeps it
     * finite and conservative: at elo0 = 0, elo1 = 50 six straight won pairs
     * reach 2.96, just past the 2.94 bound of alpha = beta = 0.05. */
    if (kinds < 2) {
        n[0] += 0.5;
        n[k - 1] += 0.5;
    }
    return llr_of(n, k, expected_score(elo0), expected_score(elo1));
}

void selfplay_sprt_bounds(double alpha, double beta, double *lower, double *upper)
{
    *lower = log(beta / (1 - alpha));
    *upper = log((1 - beta) / alpha);
}

/* ---- the match ------------------------------------------------------------ */

typedef struct {
    unsigned disable_a, disable_b;
    int time_ms, games, max_moves;
    int64_t nodes; /* > 0: nodes per move, no clock */
    Rule rule;
    const char *fa, *fb;
    const Level *level_a, *level_b; /* NULL: plain engine play (best move) */
    char name_a[32], name_b[32];
    atomic_int next;  /* next game to start */
    atomic_bool stop; /* the SPRT has decided: no new pair starts */
    pthread_mutex_t lock; /* everything below, and the output */
    int wins, draws, losses; /* of A */
    signed char *result;     /* per game: A's points x2 (0, 1, 2), or -1 while unfinished */
    /* SPRT: pairs counted in pair order, so that the verdict does not depend
     * on which thread finishes first; frozen once a bound is crossed. */
    bool sprt;
    double elo0, elo1, alpha, beta, lower, upper, llr;
    int pairs, ptnml[5], verdict; /* ptnml[A's points x2 in the pair]; verdict +1 H1, -1 H0 */
    FILE *log;
    int nopenings;
    Opening openings[MAX_OPENINGS];
} Match;

/* Writes prefix, the formatted text and suffix to out and, when there is
 * one, to the log file with log_prefix in front; both flushed. */
static void write_both(Match *m, FILE *out, const char *prefix, const char *log_prefix, const char *suffix,
                       const char *fmt, va_list ap)
{
    if (m->log) {
        va_list aq;
        va_copy(aq, ap);
        fputs(log_prefix, m->log);
        vfprintf(m->log, fmt, aq);
        fputs(suffix, m->log);
        fflush(m->log);
        va_end(aq);
    }
    fputs(prefix, out);
    vfprintf(out, fmt, ap);
    fputs(suffix, out);
    fflush(out);
}

/* Prints a line to stdout and to the log file, both flushed. Caller holds
 * m->lock once threads run. */
__attribute__((format(printf, 2, 3))) static void emit(Match *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    write_both(m, stdout, "", "", "", fmt, ap);
    va_end(ap);
}

/* A remark for the operator: to stderr, and to the log file as a "# " line. */
__attribute__((format(printf, 2, 3))) static void note(Match *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    write_both(m, stderr, "gomokud selfplay: ", "# ", "\n", fmt, ap);
    va_end(ap);
}

static bool parse_features(const char *s, unsigned *out)
{
    *out = 0;
    if (!strcmp(s, "all")) return true;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strcmp(tok, "nopvs")) *out |= ENGINE_NO_PVS;
        else if (!strcmp(tok, "nott")) *out |= ENGINE_NO_TT;
        else if (!strcmp(tok, "noordering")) *out |= ENGINE_NO_ORDERING;
        else if (!strcmp(tok, "nothreats")) *out |= ENGINE_NO_THREATS;
        else if (!strcmp(tok, "nohorizon")) *out |= ENGINE_NO_HORIZON;
        else if (!strcmp(tok, "nofutility")) *out |= ENGINE_NO_FUTILITY;
        else if (!strcmp(tok, "nomovecount")) *out |= ENGINE_NO_MOVECOUNT;
        else if (!strcmp(tok, "nolmr")) *out |= ENGINE_NO_LMR;
        else if (!strcmp(tok, "nomovecheck")) *out |= ENGINE_NO_MOVE_CHECK;
        else if (!strcmp(tok, "nofailhigh")) *out |= ENGINE_NO_FAIL_HIGH;
        else if (!strcmp(tok, "nocorrection")) *out |= ENGINE_NO_CORRECTION;
        else if (!strcmp(tok, "noprobcut")) *out |= ENGINE_NO_PROBCUT;
        else if (!strcmp(tok, "noattackhistory")) *out |= ENGINE_NO_ATTACK_HISTORY;
        else if (!strcmp(tok, "plain")) *out |= ENGINE_NO_PVS | ENGINE_NO_TT | ENGINE_NO_ORDERING;
        else return false;
    }
    return true;
}

/* Plays game g; returns +1 when A wins, 0 for a draw, -1 when B wins, and
 * the number of stones on the board at the end in *stones. */
static int play_game(Match *m, Engine *a, Engine *b, int g, int *stones)
{
    bool a_black = g % 2 == 0;
    Position p = {.rule = m->rule, .size = 15, .ordered = true};
    const Opening *o = &m->openings[(g / 2) % m->nopenings];
    p.nmoves = o->n;
    memcpy(p.moves, o->moves, sizeof(Move) * (size_t)o->n);
    engine_clear(a);
    engine_clear(b);
    static _Thread_local Board board;
    board_reset(&board, p.size, p.rule);
    for (int i = 0; i < p.nmoves; i++) board_play(&board, p.moves[i]);
    Limits limits = m->nodes > 0 ? (Limits){.nodes = m->nodes, .play = true} : (Limits){.time_ms = m->time_ms, .play = true};
    /* a level's node cap replaces the time; the top level keeps the time */
    Limits limits_a = m->level_a ? level_limits(m->level_a, limits) : limits;
    Limits limits_b = m->level_b ? level_limits(m->level_b, limits) : limits;
    if (m->level_a && m->level_a->nodes > 0) limits_a.time_ms = 0;
    if (m->level_b && m->level_b->nodes > 0) limits_b.time_ms = 0;
    int outcome = 0;
    while (p.nmoves < m->max_moves && !board_full(&board)) {
        bool black = board.to_move == BLACK;
        Engine *e = black == a_black ? a : b;
        const Level *lv = e == a ? m->level_a : m->level_b;
        EngineResult r;
        if (engine_analyze(e, &p, e == a ? &limits_a : &limits_b, &r, NULL) != POSITION_OK ||
            r.best_move == MOVE_NONE)
            break; /* cannot happen with a sound engine; scored as a draw */
        Move mv = r.best_move;
        if (lv) mv = r.pvs[level_choose(&r, lv, level_position_seed(&p, (uint64_t)g), NULL)].move;
        if (!rules_is_legal(&board, mv)) break; /* as above */
        bool five = board_makes_five(&board, mv, board.to_move);
        board_play(&board, mv);
        p.moves[p.nmoves++] = mv;
        if (five) {
            outcome = e == a ? 1 : -1;
            break;
        }
    }
    *stones = p.nmoves;
    return outcome;
}

/* Counts game g's result r (as play_game) and prints its line; takes m->lock. */
static void record(Match *m, int g, int r, int stones)
{
    pthread_mutex_lock(&m->lock);
    if (r > 0) m->wins++;
    else if (r < 0) m->losses++;
    else m->draws++;
    m->result[g] = (signed char)(r + 1);
    /* one pair at a time: the test stops at the first pair that crosses a bound */
    while (m->sprt && !m->verdict && 2 * m->pairs + 1 < m->games && m->result[2 * m->pairs] >= 0 &&
           m->result[2 * m->pairs + 1] >= 0) {
        m->ptnml[m->result[2 * m->pairs] + m->result[2 * m->pairs + 1]]++;
        m->pairs++;
        m->llr = selfplay_llr(m->ptnml, 5, m->elo0, m->elo1);
        if (m->pairs < SPRT_MIN_PAIRS) continue;
        if (m->llr >= m->upper) m->verdict = 1;
        else if (m->llr <= m->lower) m->verdict = -1;
        if (m->verdict) atomic_store(&m->stop, true);
    }
    char sprt[96] = "";
    if (m->sprt)
        snprintf(sprt, sizeof sprt, ", LLR %.2f (%.2f, %.2f)%s", m->llr, m->lower, m->upper,
                 m->verdict > 0 ? " H1 accepted" : m->verdict < 0 ? " H0 accepted" : "");
    emit(m, "game %3d: opening %2d, A plays %s: %s, %d stones; +%d =%d -%d%s\n", g + 1,
         (g / 2) % m->nopenings + 1, g % 2 == 0 ? "black" : "white", r > 0 ? "A wins" : r < 0 ? "B wins" : "draw",
         stones, m->wins, m->draws, m->losses, sprt);
    pthread_mutex_unlock(&m->lock);
}

static void *worker(void *arg)
{
    Match *m = arg;
    /* persistent, as in a real game: each side keeps its table from move to
     * move; a level plays as the server does, every search afresh */
    Engine *a = engine_new(&(EngineOptions){.tt_mib = SELFPLAY_TT_MIB, .disable = m->disable_a, .persistent = !m->level_a});
    Engine *b = engine_new(&(EngineOptions){.tt_mib = SELFPLAY_TT_MIB, .disable = m->disable_b, .persistent = !m->level_b});
    if (!a || !b) goto done;
    for (;;) {
        /* Games are taken in order; once the SPRT has stopped the match, the
         * second game of a started pair is still played, a new pair is not. */
        int g = atomic_load(&m->next);
        if (g >= m->games || (g % 2 == 0 && atomic_load(&m->stop))) break;
        if (!atomic_compare_exchange_weak(&m->next, &g, g + 1)) continue;
        int stones, r = play_game(m, a, b, g, &stones);
        record(m, g, r, stones);
    }
done:
    engine_free(a);
    engine_free(b);
    return NULL;
}

static double elo_of(double score)
{
    if (score <= 0.0005) score = 0.0005;
    if (score >= 0.9995) score = 0.9995;
    return -400.0 * log10(1.0 / score - 1.0) + 0.0; /* + 0.0: no "-0" */
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool parse_double(const char *s, char stop, double *out, const char **rest)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != stop || !isfinite(v)) return false;
    *out = v;
    if (rest) *rest = end + (stop ? 1 : 0);
    return true;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static const char usage[] =
    "usage: gomokud selfplay [--a FEATURES] [--b FEATURES] [--time-ms MS | --nodes N] [--games N]\n"
    "                        [--rule freestyle|standard|renju] [--threads N] [--max-moves N]\n"
    "                        [--sprt ELO0,ELO1 [--alpha A] [--beta B]] [--log FILE]\n"
    "FEATURES: all, or a comma list of nopvs, nott, noordering, nothreats, nohorizon,\n"
                   "          nofutility, nomovecount, nolmr, nomovecheck, nofailhigh, nocorrection, noprobcut,\n"
                   "          noattackhistory, plain\n"
    "  --time-ms MS      time per move (default 50)\n"
    "  --nodes N         N nodes per move instead of a time: the same command plays the same games\n"
    "  --games N         games, two per opening with colours swapped (default 32); with --sprt the\n"
    "                    most to play; with --nodes at most two per distinct opening (up to 256)\n"
    "  --threads N       games played at once, 1..8 (default 2)\n"
    "  --max-moves N     stones on the board at which a game is a draw (default 225)\n"
    "  --sprt E0,E1      sequential probability ratio test on game pairs, H0: A is E0 Elo\n"
    "                    stronger than B, H1: E1 (E0 < E1); no new pair starts once decided\n"
    "                    (at the earliest after 5 pairs)\n"
    "  --alpha, --beta   its error rates (default 0.05 each)\n"
    "  --log FILE        also append every game line and the summary to FILE, flushed\n"
    "  --a-level N       A plays as level N of POST /v1/move (1..10; the node cap replaces\n"
    "                    --time-ms, which level 10 uses); --b-level N the same for B\n"
    "  --list-levels     print the level table: number name nodes depth multipv temperature safe elo\n";

int cmd_selfplay(int argc, char **argv)
{
    static Match m;
    memset(&m, 0, sizeof m);
    m.time_ms = 50;
    m.games = 32;
    m.max_moves = 225;
    m.rule = RULE_FREESTYLE;
    m.alpha = m.beta = 0.05;
    m.fa = "all";
    m.fb = "plain";
    long threads = 2, v;
    bool time_given = false;
    const char *log_path = NULL;
    for (int i = 0; i < argc; i += 2) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(a, "--list-levels")) { /* for tools/calibrate_levels.sh */
            for (int n = LEVEL_MIN; n <= LEVEL_MAX; n++) {
                const Level *lv = level_get(n);
                printf("%d %s %lld %d %d %g %s %d\n", lv->number, lv->name, (long long)lv->nodes, lv->depth,
                       lv->multipv, lv->temperature, lv->safe ? "safe" : "-", lv->elo);
            }
            return 0;
        }
        if (!val) goto bad;
        if (!strcmp(a, "--a")) m.fa = val;
        else if (!strcmp(a, "--b")) m.fb = val;
        else if (!strcmp(a, "--time-ms") && parse_long(val, 1, 3600000, &v)) m.time_ms = (int)v, time_given = true;
        else if (!strcmp(a, "--nodes") && parse_long(val, 1, 1000000000L, &v)) m.nodes = v;
        else if (!strcmp(a, "--games") && parse_long(val, 1, SELFPLAY_MAX_GAMES, &v)) m.games = (int)v;
        else if (!strcmp(a, "--threads") && parse_long(val, 1, SELFPLAY_MAX_THREADS, &v)) threads = v;
        else if (!strcmp(a, "--max-moves") && parse_long(val, 5, 225, &v)) m.max_moves = (int)v;
        else if (!strcmp(a, "--rule") && rule_parse(val, &m.rule)) continue;
        else if (!strcmp(a, "--sprt")) {
            const char *rest;
            if (!parse_double(val, ',', &m.elo0, &rest) || !parse_double(rest, '\0', &m.elo1, NULL) ||
                !(m.elo0 < m.elo1))
                goto bad;
            m.sprt = true;
        } else if (!strcmp(a, "--alpha") && parse_double(val, '\0', &m.alpha, NULL) && m.alpha > 0 && m.alpha < 0.5)
            continue;
        else if (!strcmp(a, "--beta") && parse_double(val, '\0', &m.beta, NULL) && m.beta > 0 && m.beta < 0.5)
            continue;
        else if (!strcmp(a, "--log")) log_path = val;
        else if (!strcmp(a, "--a-level") && parse_long(val, LEVEL_MIN, LEVEL_MAX, &v)) m.level_a = level_get((int)v);
        else if (!strcmp(a, "--b-level") && parse_long(val, LEVEL_MIN, LEVEL_MAX, &v)) m.level_b = level_get((int)v);
        else goto bad;
    }
    if (!parse_features(m.fa, &m.disable_a) || !parse_features(m.fb, &m.disable_b) || (time_given && m.nodes > 0))
        goto bad;
    if ((m.level_a || m.level_b) && m.nodes > 0) goto bad; /* a level sets its own nodes */
    /* a level is the server's engine: every feature on, whatever --a / --b say */
    if (m.level_a) snprintf(m.name_a, sizeof m.name_a, "level %d", m.level_a->number), m.fa = m.name_a, m.disable_a = 0;
    if (m.level_b) snprintf(m.name_b, sizeof m.name_b, "level %d", m.level_b->number), m.fb = m.name_b, m.disable_b = 0;
    selfplay_sprt_bounds(m.alpha, m.beta, &m.lower, &m.upper);
    if (log_path) {
        if (!(m.log = fopen(log_path, "a"))) {
            fprintf(stderr, "gomokud selfplay: cannot open %s: %s\n", log_path, strerror(errno));
            return 1;
        }
        /* a header, so that the runs appended to one file can be told apart */
        time_t now = time(NULL);
        char when[32] = "";
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        fprintf(m.log, "# %s gomokud selfplay", when);
        for (int i = 0; i < argc; i++) fprintf(m.log, " %s", argv[i]);
        fputc('\n', m.log);
        fflush(m.log);
    }

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int want = m.games / 2 + 1 < MAX_OPENINGS ? m.games / 2 + 1 : MAX_OPENINGS;
    if (want > 32) note(&m, "making up to %d openings, about half a second each", want);
    m.nopenings = make_openings(m.rule, m.openings, want);
    int rc = 1;
    if (m.nopenings == 0) {
        note(&m, "no balanced opening found");
        goto out;
    }
    note(&m, "%d openings made in %.1f s", m.nopenings, seconds_since(&t0));
    /* With fixed nodes a repeated opening replays its two games move for
     * move: they would add no information, and to an SPRT false evidence. */
    if (m.nodes > 0 && m.games > 2 * m.nopenings) {
        note(&m, "%d games asked, but only %d distinct openings: playing %d", m.games, m.nopenings, 2 * m.nopenings);
        m.games = 2 * m.nopenings;
    }
    if (!(m.result = malloc((size_t)m.games))) {
        note(&m, "out of memory");
        goto out;
    }
    memset(m.result, -1, (size_t)m.games);

    pthread_mutex_init(&m.lock, NULL);
    pthread_t th[SELFPLAY_MAX_THREADS];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, ENGINE_THREAD_STACK);
    int started = 0;
    for (int t = 0; t < threads; t++) started += pthread_create(&th[started], &attr, worker, &m) == 0;
    pthread_attr_destroy(&attr);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    pthread_mutex_destroy(&m.lock);

    int w = m.wins, d = m.draws, l = m.losses, n = w + d + l;
    if (n == 0) {
        note(&m, "no game was played (out of memory?)");
        goto out;
    }
    double s = (w + 0.5 * d) / n;
    double var = (w * (1 - s) * (1 - s) + d * (0.5 - s) * (0.5 - s) + l * s * s) / n;
    double se = sqrt(var / n);
    double elo = elo_of(s), lo = elo_of(s - 1.96 * se), hi = elo_of(s + 1.96 * se);
    char per_move[64], sprt[192] = "";
    if (m.level_a || m.level_b) snprintf(per_move, sizeof per_move, "levels, full strength at %d ms/move", m.time_ms);
    else if (m.nodes > 0) snprintf(per_move, sizeof per_move, "%lld nodes/move", (long long)m.nodes);
    else snprintf(per_move, sizeof per_move, "%d ms/move", m.time_ms);
    if (m.sprt)
        snprintf(sprt, sizeof sprt, "; SPRT elo0=%g elo1=%g: LLR %.2f (%.2f, %.2f) %s, %d pairs %d-%d-%d-%d-%d",
                 m.elo0, m.elo1, m.llr, m.lower, m.upper,
                 m.verdict > 0 ? "H1 accepted" : m.verdict < 0 ? "H0 accepted" : "inconclusive", m.pairs,
                 m.ptnml[0], m.ptnml[1], m.ptnml[2], m.ptnml[3], m.ptnml[4]);
    emit(&m,
         "selfplay %s, %s: A (%s) vs B (%s): +%d =%d -%d of %d, score %.1f%%, Elo %+.0f (95%%: %+.0f to %+.0f)%s\n",
         rule_name(m.rule), per_move, m.fa, m.fb, w, d, l, n, 100 * s, elo, lo, hi, sprt);
    rc = 0;
out:
    free(m.result);
    if (m.log) fclose(m.log);
    return rc;
bad:
    fprintf(stderr, "gomokud selfplay: bad arguments (see gomokud selfplay --help)\n");
    return 2;
}
