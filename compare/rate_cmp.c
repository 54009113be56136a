#include "rate_cmp.h"

#include <math.h>
#include <stdlib.h>

#include "util.h"

double dp_norm_quantile(double p)
{
	double lo = -40, hi = 40;

	if (p <= 0)
		return -INFINITY;
	if (p >= 1)
		return INFINITY;
	/* bisection on the CDF: slow next to a rational approximation, but
	 * exact to double precision and called a handful of times per diff */
	for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * erfc(-mid / M_SQRT2) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* The regularized incomplete beta function I_x(a, b), by its continued
 * fraction (DLMF 8.17.22) evaluated with the modified Lentz method, on the
 * side of the symmetry I_x(a, b) = 1 - I_1-x(b, a) where it converges fast. */
static double inc_beta(double x, double a, double b)
{
	double front, f, c, d;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	if (x > (a + 1) / (a + b + 2))
		return 1 - inc_beta(1 - x, b, a);
	front = exp(a * log(x) + b * log1p(-x) - (lgamma(a) + lgamma(b) - lgamma(a + b))) / a;
	f = 1, c = 1, d = 0;
	for (int i = 0; i <= 400; i++) {
		int m = i / 2;
		double num, cd;

		if (i == 0)
			num = 1;
		else if (i % 2)
			num = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
		else
			num = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		d = fabs(d) < 1e-300 ? 1e-300 : d;
		d = 1 / d;
		c = 1 + num / c;
		c = fabs(c) < 1e-300 ? 1e-300 : c;
		cd = c * d;
		f *= cd;
		if (fabs(1 - cd) < 1e-14)
			break;
	}
	return front * (f - 1);
}

static double t_cdf(double t, double df)
{
	double tail = 0.5 * inc_beta(df / (df + t * t), df / 2, 0.5);

	return t >= 0 ? 1 - tail : tail;
}

double dp_t_quantile(double p, double df)
{
	double lo = 0, hi = 1;

	if (!(df < 1e7))
		return dp_norm_quantile(p);
	if (p < 0.5)
		return -dp_t_quantile(1 - p, df);
	if (p >= 1)
		return INFINITY;
	while (t_cdf(hi, df) < p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double dp_welch_df(const double *v, const double *e, const double *df, int n)
{
	double tot = 0, den = 0;

	for (int i = 0; i < n; i++) {
		tot += v[i];
		if (e[i] > 0 && df[i] > 0 && isfinite(df[i]))
			den += e[i] * e[i] / df[i];
	}
	return den > 0 ? tot * tot / den : INFINITY;
}

/* Effective samples n and value per sample s of one side: x = n * s. */
static void effective(const dp_rate_obs *o, double *n, double *s)
{
	if (o->x <= 0) {
		*n = 0;
		*s = 0;
		return;
	}
	*s = o->q > 0 ? o->q / o->x : 1;
	*n = o->x / *s;
}

/* The two sides' effective samples and scales, a side without samples
 * taking the other's scale; noise beyond Poisson makes fewer samples of
 * a larger scale. */
static void sides(const dp_rate_obs *b, const dp_rate_obs *n, double *nb, double *sb, double *nn,
		  double *sn)
{
	effective(b, nb, sb);
	effective(n, nn, sn);
	if (!*sb)
		*sb = *sn;
	if (!*sn)
		*sn = *sb;
	if (b->phi > 1)
		*nb /= b->phi, *sb *= b->phi;
	if (n->phi > 1)
		*nn /= n->phi, *sn *= n->phi;
}

/* Wilson's score interval for a binomial proportion: k of n, quantile z. */
static void wilson(double k, double n, double z, double *lo, double *hi)
{
	double p = k / n, z2 = z * z, d = 1 + z2 / n;
	double c = (p + z2 / (2 * n)) / d;
	double h = z / d * sqrt(p * (1 - p) / n + z2 / (4 * n * n));

	*lo = c - h < 0 ? 0 : c - h;
	*hi = c + h > 1 ? 1 : c + h;
	/* exact at the ends, where rounding would leave a sliver */
	if (k <= 0)
		*lo = 0;
	if (k >= n)
		*hi = 1;
}

void dp_rate_compare(const dp_rate_obs *b, const dp_rate_obs *n, double z, dp_rate_cmp *out)
{
	double nb, sb, nn, sn, tot, c, pi_lo, pi_hi, pi0;

	out->base = b->t > 0 ? b->x / b->t : 0;
	out->new_ = n->t > 0 ? n->x / n->t : 0;
	out->delta = out->delta_lo = out->delta_hi = out->new_ - out->base;
	out->ratio = out->base > 0 ? out->new_ / out->base : out->new_ > 0 ? INFINITY : 1;
	out->ratio_lo = out->ratio_hi = out->ratio;
	out->significant = false;
	sides(b, n, &nb, &sb, &nn, &sn);
	tot = nb + nn;
	out->n_eff = tot;
	if (tot <= 0 || b->t <= 0 || n->t <= 0)
		return;
	/* rate_new / rate_base = pi / (1 - pi) * c, pi = new's part of the samples */
	c = (sn * b->t) / (sb * n->t);
	pi0 = 1 / (1 + c);
	wilson(nn, tot, z, &pi_lo, &pi_hi);
	out->ratio_lo = pi_lo / (1 - pi_lo) * c;
	out->ratio_hi = pi_hi >= 1 ? INFINITY : pi_hi / (1 - pi_hi) * c;
	/* the delta is increasing in pi at the observed total */
	out->delta_lo = tot * (pi_lo * sn / n->t - (1 - pi_lo) * sb / b->t);
	out->delta_hi = tot * (pi_hi * sn / n->t - (1 - pi_hi) * sb / b->t);
	out->significant = pi_lo > pi0 || pi_hi < pi0;
}

double dp_rate_min_p(const dp_rate_obs *b, const dp_rate_obs *n)
{
	double nb, sb, nn, sn, tot, pi0, p;

	sides(b, n, &nb, &sb, &nn, &sn);
	tot = nb + nn;
	if (tot <= 0 || b->t <= 0 || n->t <= 0)
		return 1;
	pi0 = 1 / (1 + (sn * b->t) / (sb * n->t));
	/* every sample on one side: the most extreme split there is */
	p = 2 * fmin(pow(pi0, tot), pow(1 - pi0, tot));
	return p < 1 ? p : 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

size_t dp_rate_tarone_m(const double *min_p, size_t n, double alpha)
{
	double *s;
	size_t m, k = 0;

	if (!n)
		return 1;
	s = dp_malloc(n * sizeof(*s));
	for (size_t i = 0; i < n; i++)
		s[i] = min_p[i];
	qsort(s, n, sizeof(*s), cmp_double);
	while (k < n && s[k] <= alpha)
		k++;
	/* K(m) = #{min_p <= alpha/m} falls as m grows: the first m with K(m) <= m */
	for (m = 1; m < n; m++) {
		while (k > 0 && s[k - 1] > alpha / (double)m)
			k--;
		if (k <= m)
			break;
	}
	free(s);
	return m;
}
