/* dataprof report: stream a profile through decode and annotate, keep the
 * chosen samples, aggregate them by attributes and print the result. */
#ifndef DP_REPORT_H
#define DP_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "agg.h"

typedef enum dp_out_format { DP_OUT_TEXT, DP_OUT_CSV, DP_OUT_JSON } dp_out_format;

typedef struct dp_report_opts {
	const char *input;
	const char *symfs;
	dp_agg_level levels[DP_AGG_MAX_LEVELS];
	int nlevels;
	const char *by_text;     /* as given, for headers */
	const char *where;
	const char *time_range;  /* "1s..2.5s" */
	const char *between[2];  /* --between A B: marker names */
	const char *counters;    /* --counters GLOBS, next to time buckets */
	dp_metric metric;
	bool metric_given;
	unsigned verdicts;       /* bit per dp_verdict; 0: all */
	size_t top[DP_AGG_MAX_LEVELS];
	dp_out_format format;
	const char *sqlite;      /* export the samples and the rows to this file */
	bool default_view;       /* no --by: the overview */
	bool progress;           /* stderr is a terminal */
	int width;               /* text width (80) */
	FILE *out;
	/* called for every kept sample, after the filters (diff, layout, view) */
	void (*on_row)(void *ctx, dp_attr_ctx *attrs, dp_row *row);
	void *on_row_ctx;
} dp_report_opts;

/* Builds, prints in o->format to o->out, frees. */
int dp_report_run(const dp_report_opts *o, dp_error *err);

/* What the outputs get. */
typedef struct dp_report_result {
	const dp_report_opts *o;
	dp_profile *p;
	dp_decoder *dec;
	dp_annotator *ann;
	dp_attr_ctx *attrs;
	dp_agg agg;
	uint64_t read, kept;
	const dp_event_info *ev;
	size_t nev;
	struct dp_row_ctx *rows;
} dp_report_result;

/* Streams the profile and aggregates, without printing: for commands that
 * build on report (diff, layout, view). Free with dp_report_result_free. */
int dp_report_build(const dp_report_opts *o, dp_report_result *res, dp_error *err);
void dp_report_result_free(dp_report_result *res);

void dp_report_text(const dp_report_result *r, FILE *f);
void dp_report_csv(const dp_report_result *r, FILE *f);
void dp_report_json(const dp_report_result *r, FILE *f);

/* SQLite export (out_sqlite.c): opened before the samples stream. */
typedef struct dp_sqlite_out dp_sqlite_out;
dp_sqlite_out *dp_sqlite_open(const char *path, const dp_report_result *r, dp_error *err);
void dp_sqlite_sample(dp_sqlite_out *s, dp_attr_ctx *c, dp_row *row);
int dp_sqlite_close(dp_sqlite_out *s, const dp_report_result *r, dp_error *err);

#endif
