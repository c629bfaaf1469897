/* The SPRT statistics of `gomokud selfplay --sprt` (server/cmd_selfplay.c),
 * checked against values worked out by hand from
 *   LLR = N (s1 - s0) (2 mean - s0 - s1) / (2 var),  s(elo) = 1 / (1 + 10^(-elo/400)),
 * mean and var the sample mean and variance of the N results on [0, 1]. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "server/selfplay.h"

/* s(10) = 1 / (1 + 10^-0.025) = 1 / 1.944060876 = 0.5143871842
 * s(50) = 1 / (1 + 10^-0.125) = 1 / 1.749894209 = 0.5714631174 */
#define S10 0.5143871841659987
#define S50 0.5714631174083814

static void assert_close(double got, double want)
{
    cr_assert(fabs(got - want) <= 1e-6 * fabs(want), "got %.12f, want %.12f", got, want);
}

Test(selfplay_sprt, trinomial_55_wins_45_losses)
{
    /* 100 games, +55 =0 -45: mean 0.55, var = 0.55 - 0.55^2 = 0.2475;
     * LLR = 100 (S10 - 0.5)(1.1 - 0.5 - S10) / (2 * 0.2475)
     *     = 100 * 0.0143871842 * 0.0856128158 / 0.495 = 0.2488338078 */
    int c[3] = {45, 0, 55};
    double want = 100 * (S10 - 0.5) * (1.1 - 0.5 - S10) / (2 * 0.2475);
    assert_close(want, 0.2488338078);
    assert_close(selfplay_llr(c, 3, 0, 10), want);
}

Test(selfplay_sprt, trinomial_with_draws_and_a_negative_elo0)
{
    /* +5 =5 -10 of 20: mean (5 + 2.5) / 20 = 0.375; second moment
     * (5 + 5/4) / 20 = 0.3125, var = 0.3125 - 0.140625 = 0.171875;
     * s(-5) = 1 - s(5), so s0 + s1 = 1 and
     * LLR = 20 (s(5) - s(-5)) (0.75 - 1) / (2 * 0.171875) = -0.2093114679 */
    int c[3] = {10, 5, 5};
    assert_close(selfplay_llr(c, 3, -5, 5), -0.2093114679);
}

Test(selfplay_sprt, pentanomial_pairs)
{
    /* 50 pairs scored 0, 1/4, 1/2, 3/4, 1 (A's points / 2) counted 2, 10, 20, 14, 4:
     * mean = (2.5 + 10 + 10.5 + 4) / 50 = 0.54,
     * second moment = (0.625 + 5 + 7.875 + 4) / 50 = 0.35, var = 0.35 - 0.2916 = 0.0584;
     * LLR = 50 (S10 - 0.5)(1.08 - 0.5 - S10) / (2 * 0.0584) = 0.4041025963 */
    int c[5] = {2, 10, 20, 14, 4};
    assert_close(selfplay_llr(c, 5, 0, 10), 0.4041025963);
}

Test(selfplay_sprt, one_kind_of_result_gets_half_a_result_at_each_end)
{
    /* 6 pairs all won: counted as 0.5, 0, 0, 0, 6.5: N = 7, mean = 6.5/7,
     * var = mean (1 - mean) = 3.25/49; LLR = 7 (S50 - 0.5)(13/7 - 0.5 - S50) / (6.5/49)
     * = 2.9628405163, past ln(19) = 2.944; 5 won pairs give 2.1382280126. */
    int six[5] = {0, 0, 0, 0, 6}, five[5] = {0, 0, 0, 0, 5};
    assert_close(selfplay_llr(six, 5, 0, 50), 2.9628405163);
    assert_close(selfplay_llr(five, 5, 0, 50), 2.1382280126);
    /* all lost: the mirror image */
    int lost[5] = {6, 0, 0, 0, 0};
    cr_assert_lt(selfplay_llr(lost, 5, 0, 50), -2.9628405163);
    /* all even: 4 pairs counted as 0.5, 0, 4, 0, 0.5: N = 5, mean 0.5,
     * var = 2 * 0.5 * 0.25 / 5 = 0.05; LLR = 5 (S50 - 0.5)(0.5 - S50) / 0.1
     * = -50 (S50 - 0.5)^2 = -0.2553488575 */
    int even[5] = {0, 0, 4, 0, 0};
    assert_close(selfplay_llr(even, 5, 0, 50), -50 * (S50 - 0.5) * (S50 - 0.5));
}

Test(selfplay_sprt, no_results_or_a_bad_scale_give_zero)
{
    int none[3] = {0, 0, 0}, one[1] = {4};
    cr_assert_eq(selfplay_llr(none, 3, 0, 10), 0);
    cr_assert_eq(selfplay_llr(one, 1, 0, 10), 0);
}

Test(selfplay_sprt, bounds)
{
    double lo, hi;
    selfplay_sprt_bounds(0.05, 0.05, &lo, &hi);
    assert_close(lo, -2.9444389792); /* ln(0.05 / 0.95) = -ln 19 */
    assert_close(hi, 2.9444389792);
    selfplay_sprt_bounds(0.05, 0.1, &lo, &hi);
    assert_close(lo, -2.2512917986); /* ln(0.1 / 0.95) */
    assert_close(hi, 2.8903717579);  /* ln(0.9 / 0.05) */
}
