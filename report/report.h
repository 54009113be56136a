/* dataprof report: stream a profile through decode and annotate, keep the
 * chosen samples, aggregate them by attributes and print the result. */
#ifndef DP_REPORT_H
#define DP_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "agg.h"

typedef struct dp_report_result dp_report_result;

/* Which samples a reading command keeps and how it reads them: what
 * --where, --time, --between, --verdict, --symfs and --jobs say, alike for
 * report, diff, layout, view, export and history. */
typedef struct dp_select {
	const char *symfs;
	const char *where;
	const char *time_range; /* "1s..2.5s" */
	const char *between[2]; /* --between A B: marker names */
	unsigned verdicts;	/* bit per dp_verdict; 0: all */
	unsigned jobs;		/* --jobs: parts read in parallel; 0: the default */
} dp_select;

typedef struct dp_report_opts {
	const char *input;
	dp_select sel;
	dp_agg_level levels[DP_AGG_MAX_LEVELS];
	int nlevels;
	const char *by_text;  /* as given, for headers */
	const char *counters; /* --counters GLOBS, next to time buckets */
	dp_metric metric;
	bool metric_given;
	size_t top[DP_AGG_MAX_LEVELS];
	bool default_view; /* no --by: the overview */
	bool progress;	   /* stderr is a terminal */
	int width;	   /* text width (80) */
	FILE *out;
	/* Outputs that follow the samples as they stream (SQLite, Perfetto,
	 * pprof, diff, layout, view), all with on_row_ctx: on_start once the
	 * profile and the attributes are ready, before the first sample (-1
	 * stops the report with err set); on_row for every kept sample, after
	 * the filters. */
	int (*on_start)(void *ctx, dp_report_result *res, dp_error *err);
	void (*on_row)(void *ctx, dp_attr_ctx *attrs, dp_row *row);
	void *on_row_ctx;
	/* Outputs that sum what the samples say take them in parts instead
	 * (dp_report_parts); NULL: none */
	const struct dp_report_parts *parts;
} dp_report_opts;

/* Outputs that sum what the samples say (diff, history, annotate, view,
 * export) take them in parts, so that the report stays parallel,
 * all with the report's on_row_ctx: part_new makes part i's state (part 0's
 * on the calling thread after on_start, which the output keeps: it may be
 * on_row_ctx itself; the others' on their parts' threads), part_row takes
 * the part's kept samples with its attributes (their string ids the part's
 * own), part_merge adds part i to part 0 on the calling thread, in part
 * order, both parts open (their strings readable), then part_free ends
 * part i's state. What they make must not depend on how the samples were
 * split. */
typedef struct dp_report_parts {
	void *(*part_new)(void *ctx, unsigned index, const dp_report_result *part);
	void (*part_row)(void *state, dp_attr_ctx *attrs, dp_row *row);
	void (*part_merge)(void *ctx, void *dst, const dp_report_result *dst_part, void *src,
			   const dp_report_result *src_part);
	void (*part_free)(void *ctx, void *state);
} dp_report_parts;

/* What the outputs get. */
struct dp_report_result {
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
};

/* o's levels: one, by event. For the outputs that take the samples
 * themselves (on_row, parts) and leave the report's own tree unused: the
 * cheapest tree. */
void dp_report_by_event(dp_report_opts *o);
/* Streams the profile and aggregates, without printing: for commands that
 * build on report (diff, layout, view). Free with dp_report_result_free. */
int dp_report_build(const dp_report_opts *o, dp_report_result *res, dp_error *err);
void dp_report_result_free(dp_report_result *res);
/* --jobs by default: the CPUs this process may run on (sched_getaffinity).
 * A report with on_row reads in one part (in file order); the
 * default gives each part at least 4 MiB of the file and 64K samples (every
 * part replays the side band: a --heap profile's blocks). The result is the
 * same whatever the number of parts. */
unsigned dp_report_jobs_default(void);

/* The report as text (out_text.c); CSV, JSON and SQLite are exports
 * (export/export.h). */
void dp_report_text(const dp_report_result *r, FILE *f);
/* The lost samples per event and CPU as a JSON array (report --json and
 * the viewer's data: docs/schema/report.schema.json, lost_by). */
void dp_report_lost_json(const dp_report_result *r, FILE *f);

#endif
