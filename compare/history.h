/* dataprof history: the aggregates of runs kept in an SQLite file, one row
 * per key of each attribute list per run, so that CI can add each
 * commit's runs and show how every key went since. The tables are
 * documented in docs/diff.md, for loading the same rows into a shared
 * database. */
#ifndef DP_HISTORY_H
#define DP_HISTORY_H

#include <stdio.h>

#include "diff.h"

#define DP_HISTORY_SCHEMA "dataprof-history/1"
#define DP_HISTORY_MAX_BY 8

typedef struct dp_history dp_history;

/* Opens (creating when missing) the history in path. */
dp_history *dp_history_open(const char *path, dp_error *err);
void dp_history_close(dp_history *h);

typedef struct dp_history_add_opts {
	const char *commit, *branch, *label;
	dp_agg_level by[DP_HISTORY_MAX_BY]; /* the attribute lists to keep */
	int nby;
	dp_run_opts run;
} dp_history_add_opts;

/* Reads profile once and stores its aggregates for every list in o->by,
 * in one transaction. */
int dp_history_add(dp_history *h, const char *profile, const dp_history_add_opts *o, dp_error *err);

typedef struct dp_history_show_opts {
	dp_diff_opts diff; /* by, metric, per, confidence, noise, line tolerance, top */
	size_t last;	   /* the newest commits shown */
	const char *program, *event, *branch; /* NULL: those of the newest run */
	bool csv;
} dp_history_show_opts;

/* Prints each key's value per commit, oldest first, marking the changes
 * from one commit to the next that are beyond noise. */
int dp_history_show(dp_history *h, const dp_history_show_opts *o, FILE *f, dp_error *err);

/* "object,line": the attribute names of a list as stored. */
void dp_history_by_text(const dp_agg_level *by, char *buf, size_t len);

/* For history_show.c: the database, and the runs of one commit (of this
 * program and event, and branch unless NULL) as diff's runs, keyed by t. */
struct sqlite3 *dp_history_db(dp_history *h);
const char *dp_history_path(const dp_history *h);
int dp_history_load(dp_history *h, const char *commit, const char *program, const char *event,
		    const char *branch, dp_rtable *t, dp_diff_side *side, dp_error *err);

#endif
