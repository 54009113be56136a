/* dataprof diff: BASE runs against NEW runs of one program, aggregated by
 * the same attributes under keys that survive a rebuild (runtab.h), each
 * key's change normalised per unit of work, with a confidence interval and
 * a verdict: beyond noise or not (rate_cmp.h). */
#ifndef DP_DIFF_H
#define DP_DIFF_H

#include <stdbool.h>
#include <stdio.h>

#include "rate_cmp.h"
#include "runtab.h"

typedef enum dp_diff_per {
	DP_PER_SECOND,	 /* per second of recorded time */
	DP_PER_RUN,	 /* per run: each run did the same work */
	DP_PER_GINSN,	 /* per 1e9 instructions counted */
	DP_PER_INTERVAL, /* per code-marker interval */
} dp_diff_per;

const char *dp_diff_per_name(dp_diff_per p); /* "second", "run", ... */
const char *dp_diff_per_text(dp_diff_per p); /* "per second of recorded time" */

#define DP_DIFF_MAX_FAIL 16

typedef struct dp_diff_opts {
	const char *const *base, *const *new_;
	size_t nbase, nnew;
	dp_agg_level by;
	const char *by_text; /* as given */
	dp_metric metric;
	dp_diff_per per;
	double confidence; /* 0.95 */
	unsigned line_tolerance;
	dp_run_opts run; /* event, --where, --time, --verdict, --symfs */
	bool force;	 /* compare different programs or events anyway */
	double noise;	 /* assumed per-run noise of the machine (0.05: 5%), at least */
	const char *fail_if[DP_DIFF_MAX_FAIL];
	size_t nfail;
	size_t top; /* rows shown (text, Markdown); 0: 20 */
	int width;
	const char
	    *title; /* of the text and Markdown, for what is compared; NULL: "dataprof diff" */
} dp_diff_opts;

/* One compared key: base key and new key (-1: none on that side). */
typedef struct dp_diff_row {
	int32_t bkey, nkey;
	long shift;		 /* line shift new - base, when matched by tolerance */
	double xb[3], xn[3];	 /* totals of samples, period, weight */
	double qb[3], qn[3];	 /* their sums of squares */
	double share_b, share_n; /* of the side's total of the shown metric, in % */
	dp_rate_cmp c[3];	 /* per metric */
	uint32_t fails;		 /* bit per --fail-if that this row makes hold */
} dp_diff_row;

typedef struct dp_diff_side {
	DP_VEC(dp_run) runs;
	dp_run pool;	 /* the runs summed */
	double exposure; /* in units of the normalisation */
	double seconds;
	uint64_t samples; /* kept, of the compared event */
} dp_diff_side;

typedef struct dp_failif dp_failif;

typedef struct dp_diff_result {
	const dp_diff_opts *o;
	dp_rtable tab;
	dp_diff_side base, new_;
	DP_VEC(dp_diff_row) rows; /* significant first, then by the size of the change */
	dp_diff_row total;
	double kappa[3];     /* squared per-run noise of the machine, per metric (0: none) */
	bool noise_measured; /* some side had two runs or more */
	struct dp_key_noise {
		double own[2][3]; /* its runs' variance over their mean, per side and metric */
		bool measured[2][3];
	} * key_noise;
	size_t m[3];		       /* comparisons the confidence is shared among, per metric */
	double z[3];		       /* the normal quantile each interval uses */
	size_t nsignificant, nshifted; /* of the shown metric */
	dp_failif *fail[DP_DIFF_MAX_FAIL];
	bool held[DP_DIFF_MAX_FAIL];
	bool failed;
} dp_diff_result;

/* Reads the profiles of o and compares them. */
int dp_diff_build(const dp_diff_opts *o, dp_diff_result *r, dp_error *err);
/* For runs from elsewhere (history): init (start: and parse o's
 * --fail-if), add runs to r->base.runs and r->new_.runs keyed by r->tab
 * (read_runs: from profiles), compute. */
void dp_diff_init(dp_diff_result *r, const dp_diff_opts *o);
int dp_diff_start(dp_diff_result *r, const dp_diff_opts *o, dp_error *err);
int dp_diff_read_runs(const char *const *paths, size_t n, dp_diff_result *r, dp_diff_side *side,
		      dp_error *err);
int dp_diff_compute(dp_diff_result *r, dp_error *err);
void dp_diff_free(dp_diff_result *r);

/* The text of a row's key on one side ("" when the side has none). */
const char *dp_diff_key_text(const dp_diff_result *r, const dp_diff_row *row, bool new_side);
/* The value of attribute i of a row's key (new side if present). */
const char *dp_diff_key_val(const dp_diff_result *r, const dp_diff_row *row, int i);

/* Numbers for people (diff_fmt.c): 3 significant digits with k, M, G, T;
 * a change as "+12.3%" ("new" from nothing); its interval "[-4.1%, +7.9%]". */
const char *dp_diff_fmt_num(double v, bool sign, char *buf, size_t len);
const char *dp_diff_fmt_change(const dp_rate_cmp *c, char *buf, size_t len);
const char *dp_diff_fmt_interval(const dp_rate_cmp *c, const char *sep, char *buf, size_t len);
/* How run-to-run noise was accounted for, in words, for metric m. */
const char *dp_diff_noise_text(const dp_diff_result *r, int m);
/* The key of a row as text: "hash.c:120 -> hash.c:123" for a line that moved. */
const char *dp_diff_fmt_key(const dp_diff_result *r, const dp_diff_row *row, char *buf, size_t len);

void dp_diff_text(const dp_diff_result *r, FILE *f);
void dp_diff_json(const dp_diff_result *r, FILE *f);
void dp_diff_markdown(const dp_diff_result *r, FILE *f);

/* Key matching across builds (diff_match.c): fills r->rows with one row per
 * key of either side, exact matches first, then lines that moved. */
void dp_diff_match(dp_diff_result *r);

/* --fail-if (diff_failif.c):
 *	[ATTR=VALUE[ and ATTR~GLOB...]:] METRIC OP CHANGE
 *	'member=struct node.next: period > +10%'   'samples > 1.5x'
 * METRIC: samples, period, weight; OP: > >= < <=; CHANGE: +10%, -5%, 1.5x
 * (ratio), or a number (the delta per unit). Holds when a selected row's
 * change crosses it and is beyond noise. */
dp_failif *dp_failif_parse(const char *src, const dp_agg_level *by, dp_error *err);
void dp_failif_free(dp_failif *f);
/* Marks the rows that make f hold (bit in row->fails); true if any does. */
bool dp_failif_eval(dp_failif *f, dp_diff_result *r, unsigned bit);

#endif
