/* dataprof history: the aggregates of runs kept in a database -- an SQLite
 * file, or a PostgreSQL database many CI jobs share (store.h) -- one row per
 * key of each attribute list per run, so that CI can add each commit's runs,
 * show how every key went since, and check a new commit against the recent
 * commits of its branch. The tables are documented in docs/history.md. */
#ifndef DP_HISTORY_H
#define DP_HISTORY_H

#include <stdio.h>

#include "diff.h"
#include "store.h"

/* history_meta's 'schema' value: "dataprof-history/N" */
#define DP_HISTORY_SCHEMA_NAME "dataprof-history/"
#define DP_HISTORY_VERSION     2
#define DP_HISTORY_MAX_BY      8

typedef struct dp_history dp_history;

/* Opens the history in db (a file, or a PostgreSQL connection string),
 * creating its tables when create is set, migrating an older schema;
 * refuses a newer one. */
dp_history *dp_history_open(const char *db, bool create, dp_error *err);
void dp_history_close(dp_history *h);
dp_store *dp_history_store(dp_history *h);
const char *dp_history_name(const dp_history *h); /* for messages */
const char *dp_history_db(const dp_history *h);	  /* --db as given */

/* history_schema.c: creates the tables or brings them to this version, in
 * one transaction; -1 naming the database when it is newer. */
int dp_history_schema(dp_store *s, bool create, dp_error *err);

/* history_id.c: a run's identity, the SHA-256 of its profile's bytes, as 64
 * hex digits. Two recordings never have the same bytes (the header holds
 * when recording began): the same identity is the same file added again. */
int dp_history_identity(const char *path, char hex[65], dp_error *err);
void dp_history_sha256(const void *data, size_t len, char hex[65]);
/* "2024-05-01T12:00:00+02:00", "2024-05-01 10:00:00Z", "1714557600" or
 * "@1714557600" (as git log's %cI, %ct) into UTC, "2024-05-01T10:00:00Z". */
bool dp_history_time(const char *in, char *out, size_t len);

typedef struct dp_history_add_opts {
	const char *commit, *branch, *label;
	const char *commit_time;	    /* UTC as dp_history_time writes it; NULL: now */
	dp_agg_level by[DP_HISTORY_MAX_BY]; /* the attribute lists to keep */
	int nby;
	dp_run_opts run;
} dp_history_add_opts;

/* Reads every profile (one that fails: nothing is written), then stores
 * them as runs of o->commit in one transaction. A run already stored (same
 * identity, event and --where) is kept once: its lists not stored yet are
 * added; stored under another commit, it is refused. *added: the new runs. */
/* The attribute lists add keeps: function, line, object and member, each
 * on its own, when o gives none; -1 with err when a list has an attribute
 * that a rebuild changes (an address: dp_rtable_unstable). */
int dp_history_add_levels(dp_history_add_opts *o, dp_error *err);
int dp_history_add(dp_history *h, const char *const *profiles, size_t n,
		   const dp_history_add_opts *o, size_t *added, dp_error *err);

/* One run's columns and one of its rows, as stored (history.c; copied by
 * history_copy.c). */
typedef struct dp_history_runrow {
	const char *sha256, *selection, *commit, *commit_time, *branch, *label, *added_at;
	const char *profile, *program, *event, *hostname;
	double seconds, ginsn;
	int64_t read, kept, lost;
} dp_history_runrow;

typedef struct dp_history_aggrow {
	const char *key, *anchor;
	double v[5]; /* samples, period, weight, period_sq, weight_sq */
} dp_history_aggrow;

/* Inserts the run unless one of its identity is stored: its id into *id,
 * and into *commit (malloc'd) the commit of the one stored before. */
int dp_history_insert_run(dp_store *s, const dp_history_runrow *r, int64_t *id, char **commit,
			  bool *existed, dp_error *err);
/* Inserts the rows of one list of a run, but those it has already. */
int dp_history_insert_rows(dp_store *s, int64_t id, const char *attrs,
			   const dp_history_aggrow *rows, size_t n, dp_error *err);

/* "object,line": the attribute names of a list as stored. */
void dp_history_by_text(const dp_agg_level *by, char *buf, size_t len);

/* The runs a query is about: stored by the list "by", of program and event,
 * of branch (NULL: any). */
typedef struct dp_history_sel {
	const char *by, *program, *event, *branch;
} dp_history_sel;

typedef struct dp_history_commit {
	char *sha;
	char *time;    /* its earliest commit_time */
	int64_t first; /* its first run added: ties of time in the order added */
	int runs;
} dp_history_commit;

typedef DP_VEC(dp_history_commit) dp_history_commits;

/* The newest n commits with runs of sel, oldest first: ordered by commit
 * time, then as added; with before, only those before that commit. */
int dp_history_commit_list(dp_history *h, const dp_history_sel *sel, const char *before, size_t n,
			   dp_history_commits *out, dp_error *err);
void dp_history_commits_free(dp_history_commits *c);
/* The commit ref names, into *sha (malloc'd): a commit of the history or a
 * unique prefix of one; NULL when none. -1 when several match. */
int dp_history_commit_find(dp_history *h, const char *ref, char **sha, dp_error *err);
/* The program and event of the newest run of sel (its program, event or
 * branch may be NULL), into *program and *event where they are NULL. */
int dp_history_newest(dp_history *h, const dp_history_sel *sel, char **program, char **event,
		      dp_error *err);
/* The runs of one commit of sel as diff's runs, keyed by t, into side. */
int dp_history_load(dp_history *h, const char *commit, const dp_history_sel *sel, dp_rtable *t,
		    dp_diff_side *side, dp_error *err);

typedef struct dp_history_show_opts {
	dp_diff_opts diff; /* by, metric, per, confidence, noise, line tolerance, top */
	size_t last;	   /* the newest commits shown */
	const char *program, *event, *branch; /* NULL: those of the newest run */
	bool csv;
} dp_history_show_opts;

/* Each key's value per commit and the steps between commits (diffs of one
 * commit's runs against the one before), for show and its page. */
typedef struct dp_history_key {
	const char *key; /* in the last step's table */
	bool gone;	 /* not in the newest commit */
	double *v;
	bool *have, *sig; /* a value at commit i; beyond noise from commit i-1 */
	const dp_diff_row *trend;
} dp_history_key;

typedef struct dp_history_model {
	const dp_history_show_opts *o;
	char *program, *event, by[256];
	dp_history_commits commits;
	dp_diff_result *steps; /* [i]: commit i-1 against commit i (i >= 1) */
	dp_diff_result trend;  /* the first commit against the last (three or more) */
	bool have_trend;
	DP_VEC(dp_history_key) keys; /* by the newest value, largest first */
} dp_history_model;

int dp_history_model_build(dp_history *h, const dp_history_show_opts *o, dp_history_model *m,
			   dp_error *err);
void dp_history_model_free(dp_history_model *m);
/* The model as JSON for the trend page (docs/history.md: dataprof-history-page/1). */
void dp_history_model_json(const dp_history_model *m, const char *db, FILE *f);

/* Prints each key's value per commit, oldest first, marking the changes
 * from one commit to the next that are beyond noise. */
int dp_history_show(dp_history *h, const dp_history_show_opts *o, FILE *f, dp_error *err);

typedef enum dp_history_format { DP_HF_TEXT, DP_HF_JSON, DP_HF_MARKDOWN } dp_history_format;

typedef struct dp_history_check_opts {
	dp_diff_opts diff;	     /* by, metric, per, ..., fail_if */
	const char *commit;	     /* the commit checked: its stored runs */
	const char *const *profiles; /* or these profiles (not stored) */
	size_t nprofiles;
	const char *branch;	     /* of the commit and its baseline */
	const char *baseline;	     /* a commit, or a branch; NULL: branch */
	size_t baseline_commits;     /* N: the last N commits (default 5) */
	const char *program, *event; /* NULL: those of the new runs */
	dp_history_format format;
} dp_history_check_opts;

/* Compares the new runs with a rolling baseline -- the runs of the last N
 * commits of the branch before the checked one, or of a named commit --
 * as diff compares two sets of runs, --fail-if included; prints diff's
 * text, JSON (in dataprof-history-check/1) or Markdown. *failed: a
 * --fail-if held. No baseline yet: says so, not failed. */
int dp_history_check(dp_history *h, const dp_history_check_opts *o, FILE *f, bool *failed,
		     dp_error *err);

/* history_copy.c: copies every run of from into to (import, export), in one
 * transaction, each run once by its identity; *copied, *present: runs new
 * to it and runs it had already. */
int dp_history_copy(dp_history *from, dp_history *to, size_t *copied, size_t *present,
		    dp_error *err);
/* history import and export: every run of the history at database from into
 * the one at to (created when missing), then "dataprof: N runs copied into
 * TO, N there already" on msg: 0, or -1 with err. */
int dp_history_copy_db(const char *from, const char *to, FILE *msg, dp_error *err);

#endif
