/* Is a change in a sampled count beyond noise? Sample counts of one key
 * in two sets of runs are compared as Poisson rates: given the total
 * n = n_base + n_new, n_new is binomial with a probability that depends
 * only on the ratio of the two rates (the conditional, or "C", test), so
 * an interval for that binomial probability (Wilson's score interval) is
 * an interval for the ratio. Wilson's interval keeps close to its nominal
 * coverage down to a handful of samples and stays inside [0, 1] when one
 * side has none (Brown, Cai and DasGupta, Statist. Sci. 2001).
 *
 * Summed metrics (period, weight) are compound Poisson: a total x with
 * per-sample values w has variance sum(w^2), i.e. x^2 / sum(w^2)
 * "effective samples" -- exactly the sample count when w is constant.
 * Noise beyond Poisson measured between repeated runs (a variance phi
 * times Poisson's, phi >= 1) divides a side's effective samples by phi. */
#ifndef DP_RATE_CMP_H
#define DP_RATE_CMP_H

#include <stdbool.h>
#include <stddef.h>

/* One side: a total x of a metric, the sum of its squared per-sample
 * values q, over an exposure t (seconds, runs, 1e9 instructions), with a
 * variance phi times Poisson's (0 or 1: Poisson). */
typedef struct dp_rate_obs {
	double x, q, t, phi;
} dp_rate_obs;

typedef struct dp_rate_cmp {
	double base, new_;		  /* rates: x / t */
	double delta, delta_lo, delta_hi; /* new_ - base and its interval */
	double ratio, ratio_lo, ratio_hi; /* new_ / base; INFINITY when base is 0 */
	double n_eff;			  /* effective samples of both sides together */
	bool significant;		  /* the interval excludes "no change" */
} dp_rate_cmp;

/* Compares b and n at two-sided normal quantile z (1.96 for 95%). */
void dp_rate_compare(const dp_rate_obs *b, const dp_rate_obs *n, double z, dp_rate_cmp *out);

/* The smallest two-sided p-value the comparison could reach with this many
 * samples, whatever their split: keys too small to ever be significant do
 * not count against the others (Tarone's refinement of Bonferroni). */
double dp_rate_min_p(const dp_rate_obs *b, const dp_rate_obs *n);

/* How many of the n comparisons, with smallest attainable p-values
 * min_p[], a family-wise level alpha is divided among: the least m with
 * #{min_p <= alpha/m} <= m (Tarone 1990). At least 1. */
size_t dp_rate_tarone_m(const double *min_p, size_t n, double alpha);

/* The x with P(Z <= x) = p for a standard normal Z, 0 < p < 1. */
double dp_norm_quantile(double p);
/* The same for Student's t with df degrees of freedom (df > 0; infinite:
 * the normal's). When noise beyond Poisson is measured from a few runs,
 * its estimate is uncertain too: the interval takes t's quantile at the
 * Welch-Satterthwaite degrees of freedom. */
double dp_t_quantile(double p, double df);
/* Welch-Satterthwaite: the degrees of freedom of a sum of variances
 * v[i], of which the parts e[i] were estimated with df[i] degrees of
 * freedom (the rest known: Poisson). INFINITY when nothing was estimated. */
double dp_welch_df(const double *v, const double *e, const double *df, int n);

#endif
