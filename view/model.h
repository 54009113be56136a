/* The data behind `dataprof view`: the samples of a profile pre-aggregated
 * on its time axis, so that a page stays small and fast however many
 * samples there were. Per lane (a thread, or a CPU on request), per time
 * bucket, per combination of attribute values (event, object, member, line,
 * function, level, verdict, site, region): a count and the summed period.
 * Per thread and bucket, a sample group: its count and mean time, for the
 * page's grid. Then the counter series and the code marks of the profile.
 *
 * Buckets are 2^k ns wide: k grows (neighbouring buckets merge) while the
 * samples stream past, so that the profile needs one pass and no more than
 * max_buckets buckets, and again afterwards until the cells fit max_cells.
 * docs/view.md describes the JSON it writes. */
#ifndef DP_VIEW_MODEL_H
#define DP_VIEW_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../report/report.h"

typedef struct dp_view_opts {
	const char *counters; /* sensor globs; NULL: a default set, those present */
	bool cpu_lanes;	      /* a lane per CPU too */
	uint32_t max_buckets; /* buckets over the samples' span (default 4096) */
	size_t max_cells;     /* (lane, bucket, combination) cells (default 1M) */
	uint32_t max_points;  /* points per counter series (default 4000) */
} dp_view_opts;

typedef struct dp_view_model dp_view_model;
struct dp_view_annot;

dp_view_model *dp_view_model_new(const dp_view_opts *o);
void dp_view_model_free(dp_view_model *m);
/* The report's on_row hook: ctx is the model. */
void dp_view_model_row(void *ctx, dp_attr_ctx *attrs, dp_row *row);
/* Adds src, a part of the same pass (its share of the samples), to dst. */
void dp_view_model_merge(dp_view_model *dst, dp_view_model *src);
/* After dp_report_build: counters, marks, the final bucket width. res must
 * live until the model is written. */
int dp_view_model_finish(dp_view_model *m, dp_report_result *res, dp_error *err);
/* The data as one JSON object (format dataprof-view/1). */
void dp_view_model_json(dp_view_model *m, FILE *f);

/* The annotate pane's data (view/annot.h), written into the page with the
 * model's strings; the model does not own it. */
void dp_view_model_set_annot(dp_view_model *m, struct dp_view_annot *a);

uint64_t dp_view_model_samples(const dp_view_model *m);
uint64_t dp_view_model_bucket_ns(const dp_view_model *m);
size_t dp_view_model_cells(const dp_view_model *m);

#endif
