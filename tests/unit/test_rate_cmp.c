/* The statistics of dataprof diff: normal quantiles, the Wilson interval
 * for the conditional binomial, keys that cannot be tested, and -- by
 * simulation -- the family-wise false-positive rate of a diff of runs that
 * differ by Poisson noise only, and its power on a real change. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "compare/rate_cmp.h"
#include "tu_group.h"

static void test_quantile(void **state)
{
	(void)state;
	assert_true(fabs(dp_norm_quantile(0.975) - 1.959964) < 1e-6);
	assert_true(fabs(dp_norm_quantile(0.995) - 2.575829) < 1e-6);
	assert_true(fabs(dp_norm_quantile(0.5)) < 1e-9);
	assert_true(fabs(dp_norm_quantile(0.025) + 1.959964) < 1e-6);
	assert_true(fabs(dp_norm_quantile(1 - 0.05 / 2000) - 4.055626) < 1e-5);
	/* Student's t, against the tables */
	assert_true(fabs(dp_t_quantile(0.975, 1) - 12.7062) < 1e-3);
	assert_true(fabs(dp_t_quantile(0.975, 2) - 4.3027) < 1e-3);
	assert_true(fabs(dp_t_quantile(0.995, 4) - 4.6041) < 1e-3);
	assert_true(fabs(dp_t_quantile(0.975, 10) - 2.2281) < 1e-3);
	/* (checked by integrating the density) */
	assert_true(fabs(dp_t_quantile(0.975, 2.5) - 3.5747) < 1e-3);
	assert_true(fabs(dp_t_quantile(0.999, 1.5) - 52.184) < 1e-2);
	assert_true(fabs(dp_t_quantile(0.975, 1e9) - 1.959964) < 1e-5);
	assert_true(fabs(dp_t_quantile(0.025, 10) + 2.2281) < 1e-3);
	/* Welch-Satterthwaite */
	double v[2] = {4, 1}, e[2] = {3, 0}, df[2] = {2, 0};
	assert_true(fabs(dp_welch_df(v, e, df, 2) - 25.0 / 4.5) < 1e-12);
	e[0] = 0;
	assert_true(isinf(dp_welch_df(v, e, df, 2)));
}

static dp_rate_cmp cmp(double xb, double xn, double tb, double tn)
{
	dp_rate_obs b = {xb, xb, tb, 1}, n = {xn, xn, tn, 1};
	dp_rate_cmp c;

	dp_rate_compare(&b, &n, 1.959964, &c);
	return c;
}

static void test_compare(void **state)
{
	dp_rate_cmp c;

	(void)state;
	/* 100 against 100: no change */
	c = cmp(100, 100, 1, 1);
	assert_false(c.significant);
	assert_true(c.ratio_lo < 1 && c.ratio_hi > 1 && fabs(c.ratio - 1) < 1e-12);
	/* 100 against 200: Wilson's interval for 200 of 300 is [0.6115, 0.7176] */
	c = cmp(100, 200, 1, 1);
	assert_true(c.significant);
	assert_true(fabs(c.ratio - 2) < 1e-12);
	assert_true(fabs(c.ratio_lo - 0.61150 / (1 - 0.61150)) < 2e-3);
	assert_true(fabs(c.ratio_hi - 0.71762 / (1 - 0.71762)) < 2e-3);
	/* the delta's interval maps the same interval: it contains the delta */
	assert_true(c.delta_lo < 100 && c.delta_hi > 100 && c.delta_lo > 0);
	/* twice the exposure, twice the count: no change */
	c = cmp(100, 200, 1, 2);
	assert_false(c.significant);
	assert_true(fabs(c.ratio - 1) < 1e-12);
	/* from nothing */
	c = cmp(0, 30, 1, 1);
	assert_true(c.significant && isinf(c.ratio) && isinf(c.ratio_hi));
	c = cmp(0, 2, 1, 1);
	assert_false(c.significant);
	/* to nothing */
	c = cmp(30, 0, 1, 1);
	assert_true(c.significant && c.ratio == 0 && c.ratio_lo == 0);
	/* a constant period scales the totals, not the verdict */
	dp_rate_obs b = {100 * 250000.0, 100 * 250000.0 * 250000.0, 1, 1};
	dp_rate_obs n = {130 * 250000.0, 130 * 250000.0 * 250000.0, 1, 1};
	dp_rate_cmp p, s = cmp(100, 130, 1, 1);
	dp_rate_compare(&b, &n, 1.959964, &p);
	assert_true(fabs(p.ratio_lo - s.ratio_lo) < 1e-9 && p.significant == s.significant);
	assert_true(fabs(p.ratio - s.ratio) < 1e-12);
	/* noise measured at 4x Poisson widens the interval, not the estimate */
	b.phi = n.phi = 4;
	dp_rate_compare(&b, &n, 1.959964, &p);
	assert_true(p.ratio_lo < s.ratio_lo && p.ratio_hi > s.ratio_hi);
	assert_true(fabs(p.ratio - s.ratio) < 1e-12);
	/* on one side only */
	b.phi = 1;
	dp_rate_compare(&b, &n, 1.959964, &p);
	assert_true(p.ratio_lo < s.ratio_lo && fabs(p.ratio - s.ratio) < 1e-12);
}

static void test_tarone(void **state)
{
	double p1[] = {1e-10, 1e-10, 0.5, 0.5, 0.9};
	double p2[] = {1e-10, 1e-10, 1e-10, 1e-10};
	dp_rate_obs b = {1, 1, 1, 1}, n = {2, 2, 1, 1};

	(void)state;
	assert_int_equal(dp_rate_tarone_m(p1, 5, 0.05), 2);
	assert_int_equal(dp_rate_tarone_m(p2, 4, 0.05), 4);
	assert_int_equal(dp_rate_tarone_m(NULL, 0, 0.05), 1);
	/* 3 samples split evenly expected: all on one side has p = 2 * 0.5^3 */
	assert_true(fabs(dp_rate_min_p(&b, &n) - 0.25) < 1e-12);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* Knuth's method, in chunks so that exp() does not underflow */
static double poisson(double mean)
{
	double k = 0;

	while (mean > 0) {
		double step = mean > 500 ? 500 : mean, l = exp(-step), p = 1;

		mean -= step;
		for (;;) {
			p *= uniform();
			if (p <= l)
				break;
			k++;
		}
	}
	return k;
}

/* The keys of a diff by line: each one's mean samples in the base, the
 * factor by which the new build changes that, and whether the last
 * simulated diff flagged it. */
#define NKEYS 20
typedef struct keyset {
	double mean[NKEYS], factor[NKEYS];
	bool flags[NKEYS];
} keyset;

/* One simulated diff of the keys; the rates of base and new differ by
 * factor[k]. Returns how many keys were flagged, and which in flags. */
static int simulate(keyset *ks, double exposure_new)
{
	dp_rate_obs b[NKEYS], n[NKEYS];
	double minp[NKEYS] = {0}, z;
	size_t m;
	int flagged = 0;

	for (int k = 0; k < NKEYS; k++) {
		double xb = poisson(ks->mean[k]),
		       xn = poisson(ks->mean[k] * ks->factor[k] * exposure_new);

		b[k] = (dp_rate_obs){xb, xb, 1, 1};
		n[k] = (dp_rate_obs){xn, xn, exposure_new, 1};
		minp[k] = dp_rate_min_p(&b[k], &n[k]);
	}
	m = dp_rate_tarone_m(minp, NKEYS, 0.05);
	z = dp_norm_quantile(1 - 0.05 / (2 * (double)m));
	for (int k = 0; k < NKEYS; k++) {
		dp_rate_cmp c;

		dp_rate_compare(&b[k], &n[k], z, &c);
		ks->flags[k] = c.significant;
		flagged += c.significant;
	}
	return flagged;
}

/* 20 keys from plenty of samples down to a handful, as a diff by line has,
 * none of them changed */
static void unchanged_keys(keyset *ks)
{
	for (int k = 0; k < NKEYS; k++) {
		ks->mean[k] = 2000.0 / (k + 1) / (k + 1) + 1;
		ks->factor[k] = 1;
	}
}

static void test_false_positive_rate(void **state)
{
	keyset ks;
	int runs = 4000, families = 0, keys = 0;

	(void)state;
	unchanged_keys(&ks);
	for (int i = 0; i < runs; i++) {
		/* the new run a little longer: exposures differ */
		int f = simulate(&ks, 1.1);

		families += f > 0;
		keys += f;
	}
	printf("ACCURACY simulated diffs of unchanged runs: %.2f%% with any key flagged "
	       "(%d of %d, 20 keys each, nominal 5%%), %.3f%% of keys\n",
	       100.0 * families / runs, families, runs, 100.0 * keys / (runs * 20.0));
	assert_true(families <= runs * 0.05 * 1.15);
}

static void test_power(void **state)
{
	keyset ks;
	int runs = 1000, found = 0, others = 0;

	(void)state;
	unchanged_keys(&ks);
	ks.factor[2] = 1.5; /* 223 samples, 50% more */
	for (int i = 0; i < runs; i++) {
		simulate(&ks, 1);
		found += ks.flags[2];
		for (int k = 0; k < NKEYS; k++)
			others += k != 2 && ks.flags[k];
	}
	printf("ACCURACY simulated +50%% change on a key of ~220 samples: found in %.1f%% of "
	       "diffs; unchanged keys flagged in %.1f%%\n",
	       100.0 * found / runs, 100.0 * others / runs);
	assert_true(found > runs * 0.8);
	assert_true(others <= runs * 0.05 * 1.3);
}

TU_MAIN(NULL, NULL, test_quantile, test_compare, test_tarone, test_false_positive_rate, test_power)
