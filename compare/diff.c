#include "diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *dp_diff_per_name(dp_diff_per p)
{
	static const char *const n[] = {"second", "run", "ginsn", "interval"};
	return (unsigned)p < DP_ARRAY_LEN(n) ? n[p] : "?";
}

const char *dp_diff_per_text(dp_diff_per p)
{
	static const char *const n[] = {"per second of recorded time", "per run",
					"per 1e9 instructions", "per marker interval"};
	return (unsigned)p < DP_ARRAY_LEN(n) ? n[p] : "?";
}

const char *dp_diff_key_text(const dp_diff_result *r, const dp_diff_row *row, bool new_side)
{
	int32_t k = new_side ? row->nkey : row->bkey;

	return k < 0 ? "" : dp_rtable_str(&r->tab, r->tab.keys.v[k].text);
}

const char *dp_diff_key_val(const dp_diff_result *r, const dp_diff_row *row, int i)
{
	int32_t k = row->nkey >= 0 ? row->nkey : row->bkey;

	return k < 0 ? "" : dp_rtable_str(&r->tab, r->tab.keys.v[k].vals[i]);
}

int dp_diff_read_runs(const char *const *paths, size_t n, dp_diff_result *r, dp_diff_side *side,
		      dp_error *err)
{
	dp_rtable *t = &r->tab;

	for (size_t i = 0; i < n; i++) {
		dp_run run, *rp = &run;

		if (dp_run_read(paths[i], &r->o->run, &t, &rp, 1, err) < 0)
			return -1;
		dp_vec_push(&side->runs, run);
	}
	return 0;
}

/* x against ref: one program, one event; -1 with the error if not. */
static int comparable(const dp_run *x, const dp_run *ref, dp_error *err)
{
	if (*ref->program && *x->program && strcmp(ref->program, x->program))
		dp_error_set(err,
			     "%s is a profile of '%s' but %s is of '%s': diff compares "
			     "runs of one program (--force compares them anyway)",
			     x->path, x->program, ref->path, ref->program);
	else if (strcmp(ref->event, x->event))
		dp_error_set(err,
			     "%s samples %s but %s samples %s: diff compares one event "
			     "(--event chooses it; --force compares them anyway)",
			     x->path, x->event, ref->path, ref->event);
	else
		return 0;
	return -1;
}

/* Every run against the first base run: one program, one event. */
static int check_runs(const dp_diff_opts *o, dp_diff_result *r, dp_error *err)
{
	const dp_run *ref = &r->base.runs.v[0];

	for (int s = 0; s < 2; s++) {
		const dp_diff_side *side = s ? &r->new_ : &r->base;

		for (size_t i = 0; i < side->runs.n; i++) {
			const dp_run *x = &side->runs.v[i];

			if (o->force)
				continue;
			if (comparable(x, ref, err) < 0)
				return -1;
			if (o->metric == DP_M_SAMPLES && (x->sample_freq != ref->sample_freq ||
							  x->sample_period != ref->sample_period))
				fprintf(
				    stderr,
				    "dataprof: warning: %s and %s sample %s at different rates: "
				    "compare --metric period, not samples\n",
				    x->path, ref->path, x->event);
		}
	}
	return 0;
}

/* x has nothing to divide by under --per: why, as an error. */
static int no_exposure(const dp_diff_opts *o, const dp_run *x, dp_error *err)
{
	if (o->per == DP_PER_SECOND)
		dp_error_set(err, "%s covers no time (no samples?): use --per run", x->path);
	else if (o->per == DP_PER_GINSN)
		dp_error_set(err,
			     "%s counted no instructions: record with -e instructions as "
			     "well (needs a hardware PMU), or use --per second or --per run",
			     x->path);
	else
		dp_error_set(err,
			     !x->markers ? "%s carries no code markers: --per interval "
					   "needs a run recorded with --markers"
			     : !o->run.sel.between[0]
				 ? "%s: --per interval counts the intervals of "
				   "--between A B: name the two markers"
				 : "%s has no interval from the first marker to the "
				   "second",
			     x->path);
	return -1;
}

static int exposure(const dp_diff_opts *o, dp_diff_side *side, dp_error *err)
{
	side->exposure = side->seconds = 0;
	side->samples = 0;
	for (size_t i = 0; i < side->runs.n; i++) {
		const dp_run *x = &side->runs.v[i];
		double e = 0;

		switch (o->per) {
		case DP_PER_SECOND:
			e = x->seconds;
			break;
		case DP_PER_RUN:
			e = 1;
			break;
		case DP_PER_GINSN:
			e = x->ginsn;
			break;
		case DP_PER_INTERVAL:
			e = x->intervals;
			break;
		}
		if (e <= 0)
			return no_exposure(o, x, err);
		side->runs.v[i].exposure = e;
		side->exposure += e;
		side->seconds += x->seconds;
		side->samples += x->kept;
		for (size_t k = 0; k < x->stats.n; k++)
			dp_run_add(&side->pool, x->stats.v[k].key, x->stats.v[k].x,
				   x->stats.v[k].q);
	}
	return 0;
}

/* Run-to-run noise beyond Poisson, from sides of two runs or more. Each
 * key's per-run counts (effective samples, scaled to the run's exposure)
 * have a mean m and a variance v; Poisson says v = m. Two things add to
 * it: noise of the machine that scales every count of a run (load, caches,
 * frequency: v = m + kappa m^2, kappa shared by all keys, the negative
 * binomial's), and a key's own (code whose time depends on the kernel).
 * kappa is estimated from the keys' excess variance; a key's own ratio v/m
 * from its runs; a key's variance is the larger of the two, never below
 * Poisson's. Counts of steady loops under a timer vary less than Poisson
 * (the timer samples them at a fixed period): they are taken as Poisson. */
static void dispersion(dp_diff_result *r)
{
	double num[3] = {0}, den[3] = {0};
	double cv = r->o->noise;

	r->key_noise = dp_calloc(r->tab.keys.n ? r->tab.keys.n : 1, sizeof(*r->key_noise));
	for (int s = 0; s < 2; s++) {
		const dp_diff_side *side = s ? &r->new_ : &r->base;
		double runs = (double)side->runs.n;

		if (side->runs.n < 2)
			continue;
		r->noise_measured = true;
		for (size_t k = 0; k < side->pool.stats.n; k++) {
			const dp_rstat *tot = &side->pool.stats.v[k];

			for (int j = 0; j < 3; j++) {
				double scale = tot->q[j] > 0 ? tot->q[j] / tot->x[j] : 1;
				double m = tot->x[j] / scale / runs, v = 0;

				if (m < 2) /* too few to tell noise from nothing */
					continue;
				for (size_t i = 0; i < side->runs.n; i++) {
					const dp_run *x = &side->runs.v[i];
					const dp_rstat *st = dp_run_stat(x, tot->key);
					double got = st ? st->x[j] / scale : 0;
					/* as if the run had the side's mean exposure */
					double c = got * side->exposure / runs / x->exposure;

					v += (c - m) * (c - m) / (runs - 1);
				}
				r->key_noise[tot->key].own[s][j] = v / m;
				r->key_noise[tot->key].measured[s][j] = true;
				num[j] += (runs - 1) * (v > m ? v - m : 0);
				den[j] += (runs - 1) * m * m;
			}
		}
	}
	for (int j = 0; j < 3; j++) {
		r->kappa[j] = den[j] > 0 ? num[j] / den[j] : 0;
		if (r->kappa[j] < cv * cv)
			r->kappa[j] = cv * cv;
	}
}

/* How many runs' worth the trend 1 + kappa m is, against a key's own
 * variance from its runs (limma's prior degrees of freedom, fixed): with
 * two runs a side a key's own estimate has one degree of freedom each, too
 * few to stand alone. */
#define PRIOR_DF 4.0

/* The variance of a row's side over Poisson's -- the machine's trend for a
 * key of its size and the key's own, weighted by their degrees of freedom
 * (moderated, as limma's) -- and those degrees of freedom (INFINITY:
 * nothing measured). */
static double side_phi(const dp_diff_result *r, const dp_diff_row *row, int s, int j, double *df)
{
	const dp_diff_side *side = s ? &r->new_ : &r->base;
	double x = s ? row->xn[j] : row->xb[j], q = s ? row->qn[j] : row->qb[j];
	double m = x > 0 && q > 0 ? x * x / q / (double)side->runs.n : 0;
	double prior = 1 + r->kappa[j] * m, own = 0, d = 0, phi;

	/* a key's own noise is its code's: measured on either side, it holds on both */
	for (int k = 0; k < 2; k++) {
		int32_t key = k ? row->nkey : row->bkey;
		const dp_diff_side *ks = k ? &r->new_ : &r->base;

		if (key >= 0 && r->key_noise[key].measured[k][j]) {
			own += ((double)ks->runs.n - 1) * r->key_noise[key].own[k][j];
			d += (double)ks->runs.n - 1;
		}
	}
	if (!r->noise_measured) {
		*df = INFINITY;
		return prior;
	}
	phi = (PRIOR_DF * prior + own) / (PRIOR_DF + d);
	*df = PRIOR_DF + d;
	return phi > 1 ? phi : 1;
}

/* The two sides of a row for metric j, and the degrees of freedom of the
 * variance of their difference (Welch-Satterthwaite). */
static double obs(const dp_diff_result *r, const dp_diff_row *row, int j, dp_rate_obs *b,
		  dp_rate_obs *n)
{
	double v[2], e[2], df[2];

	b->x = row->xb[j], b->q = row->qb[j], b->t = r->base.exposure;
	n->x = row->xn[j], n->q = row->qn[j], n->t = r->new_.exposure;
	b->phi = side_phi(r, row, 0, j, &df[0]);
	n->phi = side_phi(r, row, 1, j, &df[1]);
	/* a rate's Poisson variance is sum(w^2) / t^2; noise makes it phi times that */
	for (int s = 0; s < 2; s++) {
		const dp_rate_obs *o = s ? n : b;
		double pois = o->t > 0 ? o->q / (o->t * o->t) : 0;

		v[s] = o->phi * pois;
		e[s] = (o->phi - 1) * pois;
	}
	return dp_welch_df(v, e, df, 2);
}

static void compare(dp_diff_result *r)
{
	double alpha = 1 - r->o->confidence;
	double *minp = dp_malloc((r->rows.n ? r->rows.n : 1) * sizeof(double));
	dp_rate_obs b, n;

	for (size_t i = 0; i < r->rows.n; i++) {
		dp_diff_row *row = &r->rows.v[i];
		const dp_rstat *sb =
		    row->bkey >= 0 ? dp_run_stat(&r->base.pool, (uint32_t)row->bkey) : NULL;
		const dp_rstat *sn =
		    row->nkey >= 0 ? dp_run_stat(&r->new_.pool, (uint32_t)row->nkey) : NULL;

		for (int j = 0; j < 3; j++) {
			row->xb[j] = sb ? sb->x[j] : 0, row->qb[j] = sb ? sb->q[j] : 0;
			row->xn[j] = sn ? sn->x[j] : 0, row->qn[j] = sn ? sn->q[j] : 0;
		}
	}
	for (int j = 0; j < 3; j++) {
		for (size_t i = 0; i < r->rows.n; i++) {
			obs(r, &r->rows.v[i], j, &b, &n);
			minp[i] = dp_rate_min_p(&b, &n);
		}
		r->m[j] = dp_rate_tarone_m(minp, r->rows.n, alpha);
		r->z[j] = dp_norm_quantile(1 - alpha / (2 * (double)r->m[j]));
		for (size_t i = 0; i < r->rows.n; i++) {
			double df = obs(r, &r->rows.v[i], j, &b, &n);

			/* noise measured from few runs is uncertain itself: t, not z */
			dp_rate_compare(&b, &n,
					dp_t_quantile(1 - alpha / (2 * (double)r->m[j]), df),
					&r->rows.v[i].c[j]);
		}
		/* the whole is one more comparison, at the unadjusted level */
		dp_diff_row *t = &r->total;
		t->bkey = t->nkey = -1;
		for (int k = 0; k < 3; k++) {
			t->xb[k] = r->base.pool.total[k], t->qb[k] = r->base.pool.total_q[k];
			t->xn[k] = r->new_.pool.total[k], t->qn[k] = r->new_.pool.total_q[k];
		}
		double df = obs(r, t, j, &b, &n);
		dp_rate_compare(&b, &n, dp_t_quantile(1 - alpha / 2, df), &t->c[j]);
	}
	free(minp);
}

static const dp_diff_result *sorting;

static int by_change(const void *a, const void *b)
{
	const dp_diff_row *x = a, *y = b;
	int m = sorting->o->metric;
	double dx = fabs(x->c[m].delta), dy = fabs(y->c[m].delta);

	if (x->c[m].significant != y->c[m].significant)
		return x->c[m].significant ? -1 : 1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(dp_diff_key_text(sorting, x, x->nkey >= 0),
		      dp_diff_key_text(sorting, y, y->nkey >= 0));
}

static int check_by(const dp_agg_level *by, dp_error *err)
{
	for (int i = 0; i < by->nattrs; i++) {
		const char *why = dp_rtable_unstable(by->attrs[i].id);

		if (why) {
			dp_error_set(err,
				     "--by %s: %s, so diff cannot match them: compare by function, "
				     "line, object or member",
				     dp_attr_name(by->attrs[i].id), why);
			return -1;
		}
	}
	return 0;
}

void dp_diff_init(dp_diff_result *r, const dp_diff_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	dp_rtable_init(&r->tab, &o->by);
}

int dp_diff_compute(dp_diff_result *r, dp_error *err)
{
	const dp_diff_opts *o = r->o;
	int m = o->metric;

	if (check_by(&o->by, err) < 0 || check_runs(o, r, err) < 0 ||
	    exposure(o, &r->base, err) < 0 || exposure(o, &r->new_, err) < 0)
		return -1;
	dp_rtable_finish(&r->tab);
	dispersion(r);
	dp_diff_match(r);
	compare(r);
	for (size_t i = 0; i < r->rows.n; i++) {
		dp_diff_row *row = &r->rows.v[i];

		row->share_b =
		    r->base.pool.total[m] > 0 ? 100 * row->xb[m] / r->base.pool.total[m] : 0;
		row->share_n =
		    r->new_.pool.total[m] > 0 ? 100 * row->xn[m] / r->new_.pool.total[m] : 0;
		r->nsignificant += row->c[m].significant;
		r->nshifted += row->bkey >= 0 && row->nkey >= 0 && row->bkey != row->nkey;
	}
	for (size_t i = 0; i < o->nfail; i++) {
		r->held[i] = dp_failif_eval(r->fail[i], r, (unsigned)i);
		r->failed |= r->held[i];
	}
	sorting = r;
	if (r->rows.n > 1)
		qsort(r->rows.v, r->rows.n, sizeof(dp_diff_row), by_change);
	sorting = NULL;
	return 0;
}

int dp_diff_start(dp_diff_result *r, const dp_diff_opts *o, dp_error *err)
{
	dp_diff_init(r, o);
	for (size_t i = 0; i < o->nfail; i++)
		if (!(r->fail[i] = dp_failif_parse(o->fail_if[i], &o->by, err))) {
			dp_diff_free(r);
			return -1;
		}
	return 0;
}

int dp_diff_build(const dp_diff_opts *o, dp_diff_result *r, dp_error *err)
{
	memset(r, 0, sizeof(*r));
	if (check_by(&o->by, err) < 0)
		return -1;
	if (!o->nbase || !o->nnew) {
		dp_error_set(err, "diff needs a BASE and a NEW profile");
		return -1;
	}
	if (dp_diff_start(r, o, err) < 0)
		return -1;
	if (dp_diff_read_runs(o->base, o->nbase, r, &r->base, err) < 0 ||
	    dp_diff_read_runs(o->new_, o->nnew, r, &r->new_, err) < 0 ||
	    dp_diff_compute(r, err) < 0) {
		dp_diff_free(r);
		return -1;
	}
	return 0;
}

void dp_diff_free(dp_diff_result *r)
{
	for (int s = 0; s < 2; s++) {
		dp_diff_side *side = s ? &r->new_ : &r->base;

		for (size_t i = 0; i < side->runs.n; i++)
			dp_run_free(&side->runs.v[i]);
		dp_vec_free(&side->runs);
		dp_run_free(&side->pool);
	}
	for (size_t i = 0; i < DP_DIFF_MAX_FAIL; i++)
		dp_failif_free(r->fail[i]);
	dp_vec_free(&r->rows);
	free(r->key_noise);
	dp_rtable_free(&r->tab);
	memset(r, 0, sizeof(*r));
}
