/*
 * tune_eval.c - fits the evaluation's weights to game results (a logistic
 * regression, "Texel tuning").
 *
 *   gomokud selfplay --a all --b all --time-ms 20 --games 3000 --positions pos.txt
 *   build/bin/tune-eval pos.txt > weights.txt
 *
 * Each input line is one quiet position: the result for the side to move
 * (1, 0.5 or 0), then the side to move's pattern counts (P_COUNT) and threat
 * counts (T_COUNT), then the opponent's. The model is the evaluation's own
 * form, v = sum(own_w * own) - sum(opp_w * opp) + tempo, and the predicted
 * score is sigmoid(v / S). S is fitted first with the current weights, so
 * the fitted evaluation keeps the scale the search's margins are set in;
 * then every weight is fitted by Adam on the cross-entropy, with an L2 pull
 * towards the current weights (the weights of shapeless counts stay fixed:
 * see frozen()). One position in twenty is held out; both
 * losses are printed (stderr) and the weights come out as C (stdout).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/eval.h"
#include "engine/pattern.h"

#define NF (P_COUNT + T_COUNT) /* features per side */
#define NW (2 * NF + 1)        /* own weights, opponent weights, tempo */
#define ITERATIONS 3000
#define LEARNING_RATE 0.5
#define L2 1e-4
#define HOLD_OUT 20

typedef struct {
    float y;
    int16_t x[2 * NF];
} Sample;

/* Dead pairs, overlines and lone stones stay as they are: their counts
 * grow with the stones on the board for both sides alike, and weights that
 * differed between the side to move and the other would make the
 * evaluation drift with the move number instead of the position. */
static bool frozen(int k)
{
    int f = k % NF;
    return k < 2 * NF && (f == P_DEAD || f == P_OL || f == P_B1 || f == P_F1 || f == P_COUNT + T_NONE ||
                          f == P_COUNT + T_LOW || f == P_COUNT + T_FIVE || f == P_COUNT + T_FORBID);
}

static double predict(const double *w, const Sample *s, double scale)
{
    double v = w[2 * NF];
    for (int k = 0; k < NF; k++) v += w[k] * s->x[k] - w[NF + k] * s->x[NF + k];
    if (v > EVAL_MAX) v = EVAL_MAX;
    if (v < -EVAL_MAX) v = -EVAL_MAX;
    return 1.0 / (1.0 + exp(-v / scale));
}

static double loss(const double *w, const Sample *s, size_t n, double scale, bool held_out)
{
    double sum = 0;
    size_t cnt = 0;
    for (size_t i = 0; i < n; i++) {
        if ((i % HOLD_OUT == 0) != held_out) continue;
        double p = predict(w, &s[i], scale);
        if (p < 1e-9) p = 1e-9;
        if (p > 1 - 1e-9) p = 1 - 1e-9;
        sum -= s[i].y * log(p) + (1 - s[i].y) * log(1 - p);
        cnt++;
    }
    return cnt ? sum / (double)cnt : 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tune-eval POSITIONS\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    size_t n = 0, cap = 1 << 16;
    Sample *s = malloc(cap * sizeof *s);
    char line[4096];
    while (s && fgets(line, sizeof line, f)) {
        if (n == cap) s = realloc(s, (cap *= 2) * sizeof *s);
        if (!s) break;
        char *p = line, *end;
        s[n].y = strtof(p, &end);
        bool ok = end != p;
        for (int k = 0; ok && k < 2 * NF; k++) {
            p = end;
            long v = strtol(p, &end, 10);
            ok = end != p && v >= 0 && v < 32768;
            s[n].x[k] = (int16_t)v;
        }
        if (ok) n++;
    }
    fclose(f);
    if (!s || n < 1000) {
        fprintf(stderr, "tune-eval: %zu positions; need at least 1000\n", n);
        return 1;
    }

    double w0[NW], w[NW];
    eval_weights(w0, w0 + NF, &w0[2 * NF]);
    memcpy(w, w0, sizeof w);

    /* the scale, by golden-section search on the training loss */
    double lo = 20, hi = 2000;
    for (int it = 0; it < 60; it++) {
        double a = hi - (hi - lo) / 1.618, b = lo + (hi - lo) / 1.618;
        if (loss(w, s, n, a, false) < loss(w, s, n, b, false)) hi = b;
        else lo = a;
    }
    double scale = (lo + hi) / 2;
    fprintf(stderr, "tune-eval: %zu positions, scale %.1f, loss %.5f (held out %.5f) with the current weights\n", n,
            scale, loss(w, s, n, scale, false), loss(w, s, n, scale, true));

    double m[NW] = {0}, v2[NW] = {0}, g[NW];
    for (int it = 1; it <= ITERATIONS; it++) {
        memset(g, 0, sizeof g);
        size_t cnt = 0;
        for (size_t i = 0; i < n; i++) {
            if (i % HOLD_OUT == 0) continue;
            double err = (predict(w, &s[i], scale) - s[i].y) / scale;
            for (int k = 0; k < NF; k++) {
                g[k] += err * s[i].x[k];
                g[NF + k] -= err * s[i].x[NF + k];
            }
            g[2 * NF] += err;
            cnt++;
        }
        for (int k = 0; k < NW; k++) {
            if (frozen(k)) continue;
            g[k] = g[k] / (double)cnt + L2 * (w[k] - w0[k]);
            m[k] = 0.9 * m[k] + 0.1 * g[k];
            v2[k] = 0.999 * v2[k] + 0.001 * g[k] * g[k];
            double mh = m[k] / (1 - pow(0.9, it)), vh = v2[k] / (1 - pow(0.999, it));
            w[k] -= LEARNING_RATE * mh / (sqrt(vh) + 1e-12);
        }
        if (it % 500 == 0)
            fprintf(stderr, "tune-eval: iteration %d, loss %.5f (held out %.5f)\n", it, loss(w, s, n, scale, false),
                    loss(w, s, n, scale, true));
    }

    printf("/* fitted by tools/tune_eval.c on %zu positions, scale %.1f */\n", n, scale);
    const char *names[2] = {"own", "opp"};
    for (int side = 0; side < 2; side++) {
        printf("%s patterns:", names[side]);
        for (int k = 0; k < P_COUNT; k++) printf(" [%s] = %ld,", pattern_name((Pattern)k), lround(w[side * NF + k]));
        printf("\n%s threats:", names[side]);
        for (int k = 0; k < T_COUNT; k++)
            printf(" [%s] = %ld,", threat_name((Threat)k), lround(w[side * NF + P_COUNT + k]));
        printf("\n");
    }
    printf("tempo: %ld\n", lround(w[2 * NF]));
    free(s);
    return 0;
}
