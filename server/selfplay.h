/* selfplay.h - the statistics behind `gomokud selfplay --sprt` (server/cmd_selfplay.c),
 * exposed for the unit tests. */
#ifndef GOMOKUD_SERVER_SELFPLAY_H
#define GOMOKUD_SERVER_SELFPLAY_H

#define SELFPLAY_LLR_MAX_OUTCOMES 16

/* Log-likelihood ratio of H1 (Elo difference elo1) against H0 (elo0) for
 * results with k equally spaced outcomes: counts[i] results scored i/(k-1)
 * (k = 3: loss, draw, win; k = 5: the 0, 1/2, 1, 3/2, 2 points of a game
 * pair). Uses the normal approximation of the generalised SPRT:
 *   LLR = N (s1 - s0) (2 mean - s0 - s1) / (2 var)
 * with s = 1 / (1 + 10^(-elo/400)), mean and var the sample mean and
 * variance per result. When every result is the same (var = 0), half a
 * result is added at each end of the scale so a one-sided match can still
 * end. 0 when there is no result, or k is outside 2..SELFPLAY_LLR_MAX_OUTCOMES. */
double selfplay_llr(const int *counts, int k, double elo0, double elo1);

/* Wald's stopping bounds for error rates alpha (false H1) and beta (false H0):
 * accept H0 when LLR <= *lower = ln(beta / (1 - alpha)), H1 when LLR >= *upper
 * = ln((1 - beta) / alpha). */
void selfplay_sprt_bounds(double alpha, double beta, double *lower, double *upper);

#endif
