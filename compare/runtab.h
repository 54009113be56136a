/* Aggregates of whole runs under keys that survive a rebuild, for
 * comparing runs of different builds (diff) and keeping them (history).
 * A key is the text of its attribute values -- "struct node.next",
 * "hash.c:120", "heap@table.c:88" -- never an address or a string id of
 * one profile. Keys holding a source line remember the function (or the
 * allocating function) most of their samples had, so that a line that
 * moved can be matched to where it went. */
#ifndef DP_RUNTAB_H
#define DP_RUNTAB_H

#include <stdbool.h>
#include <stdint.h>

#include "../report/agg.h"
#include "../report/report.h"

/* One distinct key of a table. */
typedef struct dp_rkey {
	uint32_t text;			 /* the values joined by " | " */
	uint32_t vals[DP_AGG_MAX_ATTRS]; /* each value */
	uint32_t anchor;		 /* "function|allocating function", 0: none */
	struct {
		uint32_t id;
		uint64_t n;
	} cand[4]; /* anchor candidates while reading */
} dp_rkey;

/* The keys of one attribute list, shared by every run read into it. */
typedef struct dp_rtable {
	dp_agg_level by;
	dp_strtab strs;
	DP_VEC(dp_rkey) keys;
	dp_hashmap index; /* text id -> key */
	bool anchor_func, anchor_site;
} dp_rtable;

/* One key in one run: metric totals and sums of squares. */
typedef struct dp_rstat {
	uint32_t key;
	double x[3], q[3]; /* samples, period, weight */
} dp_rstat;

/* One profile read into one table. */
typedef struct dp_run {
	char *path;
	char *program;			     /* the profiled command's file name */
	char *event;			     /* the event compared */
	char *events;			     /* all the profile's events, comma-separated */
	char *hostname;			     /* where it was recorded */
	uint64_t sample_period, sample_freq; /* of the event, as opened */
	double seconds;			     /* recorded time */
	double ginsn;			     /* instructions counted, in 1e9; 0: none */
	bool markers;			     /* the profile carries code markers */
	double intervals;		     /* with --between A B: how many A..B intervals */
	double exposure;		     /* set by the comparison: in its unit of work */
	uint64_t read, kept, lost;
	double total[3], total_q[3];
	DP_VEC(dp_rstat) stats;
	dp_hashmap index; /* key -> stats */
} dp_run;

/* Attributes whose values do not survive a rebuild or a rerun (addresses,
 * process and thread IDs); NULL if a is fine, else why not. */
const char *dp_rtable_unstable(dp_attr_id a);

void dp_rtable_init(dp_rtable *t, const dp_agg_level *by);
void dp_rtable_free(dp_rtable *t);
/* Counts n samples of key in the function (and allocating function)
 * "anchor" ("walk|"), for keys read from elsewhere (history). */
void dp_rtable_anchor_add(dp_rtable *t, uint32_t key, const char *anchor, uint64_t n);
/* After reading: each key's anchor. */
void dp_rtable_finish(dp_rtable *t);
/* "hash.c:120" -> 120, with the text before the number in *prefix_len;
 * false if the value holds no line. */
bool dp_rkey_line(const char *val, size_t *prefix_len, long *line);
static inline const char *dp_rtable_str(const dp_rtable *t, uint32_t id)
{
	return dp_strtab_get(&t->strs, id);
}

typedef struct dp_run_opts {
	dp_select sel;	   /* --between A B: what each thread did from A to B */
	const char *event; /* the event to compare; NULL: the profile's first */
} dp_run_opts;

/* Reads the profile at path once, into runs[i] keyed by tables[i]. */
int dp_run_read(const char *path, const dp_run_opts *o, dp_rtable **tables, dp_run **runs, int n,
		dp_error *err);
void dp_run_free(dp_run *r);
/* The stats of key in r, or NULL. */
const dp_rstat *dp_run_stat(const dp_run *r, uint32_t key);
/* Adds x (of another run or a stored row) to r under key. */
void dp_run_add(dp_run *r, uint32_t key, const double x[3], const double q[3]);
/* The key with this text (interned), created if new. */
uint32_t dp_rtable_key(dp_rtable *t, const char *const *vals);

#endif
