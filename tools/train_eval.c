/*
 * train_eval.c - fits the evaluation's code tables to self-play games and
 * writes engine/eval_tables.c (`make train`).
 *
 *   build/bin/train-eval --out engine/eval_tables.c [--iterations N] [--l2 X] GAMES...
 *   build/bin/train-eval --out engine/eval_tables.c --prior
 *
 * GAMES are files of build/bin/gen-data (`make selfplay-data`): one game per
 * line. Every quiet position of a game after its opening (no five, straight
 * four or four-three point for either side: the search settles those) is a
 * sample: the result for the side to move (1, 0.5, 0), and per code how many
 * empty points hold it for the side to move and for the other side.
 *
 * The model is the engine's evaluation itself:
 *   v = sum over points of V[set(me)][MOVER][code_me] - V[set(op)][WAITER][code_op] + tempo[set(me)]
 * and the predicted score sigmoid(v / S). S is fitted first with the prior
 * (below), so the fitted values stay on the scale the search's margins were
 * set in; then every value is fitted by Adam on the cross-entropy, with an
 * L2 pull towards the prior, so that a code the games rarely show keeps
 * about its prior value. One game in twenty is held out and both losses are
 * printed.
 *
 * The prior is the additive evaluation the codes replaced: a point's value
 * is the sum of its four direction patterns' weights plus the weight of the
 * threat level they combine into (hand-set, then fitted to results as a
 * linear model). --prior writes it alone (the tables then reproduce that
 * evaluation exactly).
 *
 * Codes without shape (every direction dead, an overline, or a lone stone)
 * stay at 0: their counts grow with the stones for both sides alike, and
 * values that differed between the roles would make the evaluation drift
 * with the move number. In renju, black's certainly forbidden points (an
 * overline or a double four) are worth nothing to black.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/board.h"
#include "engine/eval.h"
#include "engine/rules.h"

#define HOLD_OUT 20 /* one game in HOLD_OUT is for validation */
#define DEFAULT_ITERATIONS 600
#define DEFAULT_L2 2e-7
#define DEFAULT_LAMBDA 0.5 /* weight of the result against the search's score */
#define LEARNING_RATE 1.0
#define NVALUES (EVAL_SETS * EVAL_ROLES * PATTERN_CODES)
#define NPARAMS (NVALUES + EVAL_SETS) /* the values, then the tempo per set */

/* The additive prior: per direction pattern and per threat level, for the
 * side to move and for the side that waits. */
static const int own_pattern[P_COUNT] = {
    [P_B2] = 3, [P_F2] = 13, [P_F2A] = 11, [P_B3] = 17, [P_F3] = 37, [P_F3S] = 46, [P_B4] = 41, [P_F4] = 88,
    [P_F44] = 88, [P_F5] = 150,
};
static const int opp_pattern[P_COUNT] = {
    [P_F2] = 10, [P_F2A] = 3, [P_B3] = 14, [P_F3] = 29, [P_F3S] = 36, [P_B4] = 33, [P_F4] = 70, [P_F44] = 70,
    [P_F5] = 120,
};
static const int own_threat[T_COUNT] = {
    [T_F2] = -6, [T_B3] = 2, [T_F2X2] = 14, [T_F3] = 1, [T_F3P] = 39, [T_B4P] = 50, [T_F3X2] = 150,
    [T_B4F3] = 250, [T_F4] = 313,
};
static const int opp_threat[T_COUNT] = {
    [T_F2] = -6, [T_B3] = 1, [T_F2X2] = 10, [T_F3] = 1, [T_F3P] = 30, [T_B4P] = 40, [T_F3X2] = 120,
    [T_B4F3] = 200, [T_F4] = 250,
};
#define PRIOR_TEMPO 8
#define PRIOR_SCALE 2000.0 /* S of this prior on the first 1,263 games of gen-data */

static int vindex(int set, int role, unsigned code) { return (set * PATTERN_CODES + (int)code) * EVAL_ROLES + role; }

static uint16_t code_pat4(unsigned code)
{
    Pattern p[4];
    pattern_code_patterns(code, p);
    return (uint16_t)(p[0] | p[1] << 4 | p[2] << 8 | p[3] << 12);
}

static double prior_value(int set, int role, unsigned code)
{
    Pattern p[4];
    pattern_code_patterns(code, p);
    const int *pw = role == EVAL_MOVER ? own_pattern : opp_pattern;
    const int *tw = role == EVAL_MOVER ? own_threat : opp_threat;
    double v = 0;
    for (int d = 0; d < 4; d++) v += pw[p[d]];
    return v + tw[threat_of(code_pat4(code), set == EVAL_SET_RENJU_BLACK)];
}

/* Values fixed at their start: no shape, or a point black may not take. */
static bool frozen(int set, unsigned code, bool trained)
{
    Pattern p[4];
    pattern_code_patterns(code, p);
    if (p[3] <= P_F1) return true; /* ascending: the best direction is p[3] */
    return trained && set == EVAL_SET_RENJU_BLACK && threat_of(code_pat4(code), true) == T_FORBID;
}

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

/* ---- samples ------------------------------------------------------------- */

typedef struct {
    uint32_t index;
    int32_t coef;
} Term;

typedef struct {
    float y;      /* the target: the result, or its blend with the search's score */
    float result; /* the game's result for the side to move */
    float score;  /* the search's score at the position (gen-data), if has_score */
    uint32_t first, n; /* terms[first .. first + n) */
    bool held_out, has_score;
} Sample;

static Term *terms;
static size_t nterms, cap_terms;
static Sample *samples;
static size_t nsamples, cap_samples;
static long ngames;

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    void *q = realloc(p, c * size);
    if (!q) {
        fprintf(stderr, "train-eval: out of memory\n");
        exit(1);
    }
    *cap = c;
    return q;
}

static void add_term(uint32_t index, int32_t coef)
{
    terms = grow(terms, &cap_terms, nterms + 1, sizeof *terms);
    terms[nterms++] = (Term){index, coef};
}

static bool quiet(const Board *b)
{
    for (int c = 0; c < 2; c++)
        if (b->tcount[c][T_FIVE] || b->tcount[c][T_F4] || b->tcount[c][T_B4F3]) return false;
    return true;
}

static void add_sample(const Board *b, double y, bool held_out, bool has_score, double score)
{
    static int count[2][PATTERN_CODES];
    static unsigned seen[2][BOARD_MAX_MOVES];
    int nseen[2] = {0, 0};
    int me = b->to_move - 1, op = 1 - me;
    int set[2] = {eval_set(b->rule, b->to_move), eval_set(b->rule, OPPONENT(b->to_move))};
    size_t first = nterms;
    for (int y0 = 0; y0 < b->size; y0++)
        for (int x0 = 0; x0 < b->size; x0++) {
            const Cell *c = &b->cell[MOVE_XY(x0, y0)];
            if (c->stone != EMPTY) continue;
            for (int r = 0; r < 2; r++) {
                unsigned code = pattern_code(c->pat4[r == 0 ? me : op]);
                if (!count[r][code]++) seen[r][nseen[r]++] = code;
            }
        }
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < nseen[r]; i++) {
            unsigned code = seen[r][i];
            int role = r == 0 ? EVAL_MOVER : EVAL_WAITER;
            if (!frozen(set[r], code, false)) add_term((uint32_t)vindex(set[r], role, code), r == 0 ? count[r][code] : -count[r][code]);
            count[r][code] = 0;
        }
    add_term((uint32_t)(NVALUES + set[0]), 1);
    samples = grow(samples, &cap_samples, nsamples + 1, sizeof *samples);
    samples[nsamples++] = (Sample){(float)y, (float)y, (float)score, (uint32_t)first, (uint32_t)(nterms - first),
                                   held_out, has_score};
}

static void load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "train-eval: cannot open %s\n", path);
        exit(1);
    }
    static char line[8192];
    static Board b;
    while (fgets(line, sizeof line, f)) {
        char rule_s[16], res;
        int first, off;
        Rule rule;
        if (sscanf(line, "%15s %c %d%n", rule_s, &res, &first, &off) != 3 || !rule_parse(rule_s, &rule)) continue;
        board_reset(&b, 15, rule);
        bool held_out = ngames++ % HOLD_OUT == HOLD_OUT - 1;
        int ply = 0;
        for (char *save = NULL, *tok = strtok_r(line + off, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
            char *slash = strchr(tok, '/');
            if (slash) *slash = 0;
            Move m = move_parse(tok, 15);
            if (m == MOVE_NONE || !board_empty(&b, m)) break;
            if (ply >= first && quiet(&b)) {
                double y = res == 'D' ? 0.5 : (res == 'B') == (b.to_move == BLACK) ? 1.0 : 0.0;
                add_sample(&b, y, held_out, slash != NULL, slash ? atof(slash + 1) : 0);
            }
            board_play(&b, m);
            ply++;
        }
    }
    fclose(f);
}

/* ---- the fit ------------------------------------------------------------- */


static double value_of(const double *w, const Sample *s)
{
    double v = 0;
    for (uint32_t i = 0; i < s->n; i++) v += w[terms[s->first + i].index] * terms[s->first + i].coef;
    if (v > EVAL_MAX) v = EVAL_MAX;
    if (v < -EVAL_MAX) v = -EVAL_MAX;
    return v;
}

static double cross_entropy(double y, double p)
{
    const double eps = 1e-9;
    return -(y * log(p + eps) + (1 - y) * log(1 - p + eps));
}

/* Mean cross-entropy over the training or the held-out samples; with grad,
 * also its gradient (training samples only). */
static double loss(const double *w, double scale, bool held_out, double *grad)
{
    double total = 0;
    size_t n = 0;
    if (grad) memset(grad, 0, NPARAMS * sizeof *grad);
    for (size_t k = 0; k < nsamples; k++) {
        const Sample *s = &samples[k];
        if (s->held_out != held_out) continue;
        double p = sigmoid(value_of(w, s) / scale);
        total += cross_entropy(held_out ? s->result : s->y, p); /* held out: against the results alone */
        n++;
        if (grad) {
            double g = (p - s->y) / scale;
            for (uint32_t i = 0; i < s->n; i++) grad[terms[s->first + i].index] += g * terms[s->first + i].coef;
        }
    }
    if (grad)
        for (int i = 0; i < NPARAMS; i++) grad[i] /= n ? (double)n : 1;
    return n ? total / (double)n : 0;
}

static double fit_scale(const double *w)
{
    double lo = 20, hi = 3000;
    for (int i = 0; i < 60; i++) { /* golden section on the training loss */
        double a = hi - (hi - lo) / 1.618, b = lo + (hi - lo) / 1.618;
        if (loss(w, a, false, NULL) < loss(w, b, false, NULL)) hi = b;
        else lo = a;
    }
    return (lo + hi) / 2;
}

/* ---- output -------------------------------------------------------------- */

static void write_tables(const char *path, const double *w, int argc, char **argv, double scale, double l_train0,
                         double l_val0, double l_train, double l_val, size_t ntrain, size_t nval)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "train-eval: cannot write %s\n", path);
        exit(1);
    }
    fprintf(f, "/* eval_tables.c - generated by tools/train_eval.c; do not edit.\n *\n *   train-eval");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *slash = strrchr(a, '/');
        fprintf(f, " %s", a[0] == '/' && slash ? slash + 1 : a); /* no machine paths */
    }
    if (nsamples)
        fprintf(f,
                "\n *\n * %ld games, %zu training and %zu held-out positions; scale S = %.1f.\n"
                " * Cross-entropy, training / held out: prior %.5f / %.5f, fitted %.5f / %.5f.\n */\n",
                ngames, ntrain, nval, scale, l_train0, l_val0, l_train, l_val);
    else
        fprintf(f, "\n *\n * The prior alone: the additive evaluation the codes replaced.\n */\n");
    fprintf(f, "#include \"eval_tables.h\"\n\n");
    static const char *set_names[EVAL_SETS] = {"freestyle", "standard", "renju black", "renju white"};
    fprintf(f, "/* {side to move, side waiting} per code */\n");
    fprintf(f, "const int16_t eval_code_value[EVAL_SETS][PATTERN_CODES][EVAL_ROLES] = {\n");
    for (int s = 0; s < EVAL_SETS; s++) {
        fprintf(f, "    { /* %s */", set_names[s]);
        for (unsigned c = 0; c < PATTERN_CODES; c++) {
            if (c % 8 == 0) fprintf(f, "\n       ");
            fprintf(f, " {%ld, %ld},", lround(w[vindex(s, EVAL_MOVER, c)]), lround(w[vindex(s, EVAL_WAITER, c)]));
        }
        fprintf(f, "\n    },\n");
    }
    fprintf(f, "};\n\nconst int16_t eval_tempo[EVAL_SETS] = {");
    for (int s = 0; s < EVAL_SETS; s++) fprintf(f, "%s%ld", s ? ", " : "", lround(w[NVALUES + s]));
    fprintf(f, "};\n\nconst double eval_winrate_scale = %.1f;\n", scale);
    fclose(f);
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    bool prior_only = false, tie_roles = false;
    int iterations = DEFAULT_ITERATIONS;
    double l2 = DEFAULT_L2, lambda = DEFAULT_LAMBDA;
    int first_file = argc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--prior")) prior_only = true;
        else if (!strcmp(argv[i], "--tie-roles")) tie_roles = true;
        else if (!strcmp(argv[i], "--iterations") && i + 1 < argc) iterations = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--l2") && i + 1 < argc) l2 = atof(argv[++i]);
        else if (!strcmp(argv[i], "--lambda") && i + 1 < argc) lambda = atof(argv[++i]);
        else if (argv[i][0] == '-') {
            fprintf(stderr, "train-eval: unknown argument %s\n", argv[i]);
            return 2;
        } else {
            first_file = i;
            break;
        }
    }
    if (!out || (!prior_only && first_file == argc) || iterations < 0) {
        fprintf(stderr, "usage: train-eval --out FILE [--iterations N] [--l2 X] GAMES... | --out FILE --prior\n");
        return 2;
    }
    if (!board_init_tables()) return 1;
    static double w0[NPARAMS], w[NPARAMS], grad[NPARAMS], m1[NPARAMS], m2[NPARAMS];
    for (int s = 0; s < EVAL_SETS; s++) {
        for (int r = 0; r < EVAL_ROLES; r++)
            for (unsigned c = 0; c < PATTERN_CODES; c++)
                w0[vindex(s, r, c)] = frozen(s, c, false) ? 0 : prior_value(s, r, c);
        w0[NVALUES + s] = PRIOR_TEMPO;
    }
    memcpy(w, w0, sizeof w);
    if (prior_only) {
        write_tables(out, w, argc, argv, PRIOR_SCALE, 0, 0, 0, 0, 0, 0);
        return 0;
    }
    for (int i = first_file; i < argc; i++) load(argv[i]);
    size_t nval = 0;
    for (size_t k = 0; k < nsamples; k++) nval += samples[k].held_out;
    fprintf(stderr, "train-eval: %ld games, %zu positions (%zu held out), %zu terms\n", ngames, nsamples, nval,
            nterms);
    if (nsamples == nval || nval == 0) {
        fprintf(stderr, "train-eval: too few games\n");
        return 1;
    }
    /* forbidden points of black: nothing, from the start */
    for (int r = 0; r < EVAL_ROLES; r++)
        for (unsigned c = 0; c < PATTERN_CODES; c++)
            if (frozen(EVAL_SET_RENJU_BLACK, c, true)) w[vindex(EVAL_SET_RENJU_BLACK, r, c)] = w0[vindex(EVAL_SET_RENJU_BLACK, r, c)] = 0;
    double scale = fit_scale(w);
    /* the targets: where the search's score is known, the result blended
     * with the score's win rate on the prior's scale */
    size_t scored = 0;
    for (size_t k = 0; k < nsamples; k++) {
        Sample *s = &samples[k];
        if (!s->has_score) continue;
        s->y = (float)(lambda * s->result + (1 - lambda) * sigmoid(s->score / scale));
        scored++;
    }
    fprintf(stderr, "train-eval: %zu positions with a search score, lambda %.2f\n", scored, lambda);
    double lt0 = loss(w, scale, false, NULL), lv0 = loss(w, scale, true, NULL);
    fprintf(stderr, "train-eval: S = %.1f; prior loss %.5f / held out %.5f\n", scale, lt0, lv0);
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
    double best_val = lv0;
    static double best[NPARAMS];
    memcpy(best, w, sizeof w);
    for (int it = 1; it <= iterations; it++) {
        double lt = loss(w, scale, false, grad);
        if (tie_roles) /* one change for both roles: the sum of their gradients */
            for (int i = 0; i < NVALUES; i += EVAL_ROLES) grad[i] = grad[i + 1] = grad[i] + grad[i + 1];
        for (int i = 0; i < NPARAMS; i++) {
            if (i < NVALUES) {
                int s = i / (EVAL_ROLES * PATTERN_CODES);
                if (frozen(s, (unsigned)(i / EVAL_ROLES % PATTERN_CODES), true)) continue;
            }
            double g = grad[i] + 2 * l2 * (w[i] - w0[i]);
            m1[i] = b1 * m1[i] + (1 - b1) * g;
            m2[i] = b2 * m2[i] + (1 - b2) * g * g;
            double mh = m1[i] / (1 - pow(b1, it)), vh = m2[i] / (1 - pow(b2, it));
            w[i] -= LEARNING_RATE * mh / (sqrt(vh) + eps);
        }
        if (it % 25 == 0 || it == iterations) {
            double lv = loss(w, scale, true, NULL);
            fprintf(stderr, "train-eval: iteration %d: loss %.5f, held out %.5f\n", it, lt, lv);
            if (lv < best_val) {
                best_val = lv;
                memcpy(best, w, sizeof w);
            }
        }
    }
    /* the values the held-out games liked best (early stopping) */
    double lt = loss(best, scale, false, NULL), lv = loss(best, scale, true, NULL);
    fprintf(stderr, "train-eval: kept: loss %.5f, held out %.5f\n", lt, lv);
    /* the win rate's S: refitted on the kept values (close to S) */
    double wscale = fit_scale(best);
    fprintf(stderr, "train-eval: win rate scale %.1f\n", wscale);
    write_tables(out, best, argc, argv, wscale, lt0, lv0, lt, lv, nsamples - nval, nval);
    return 0;
}
