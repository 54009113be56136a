/* The code marks of a profile and the intervals between them. An interval
 * from mark A to a later mark B of the same thread is
 *
 *	(time of B - time of A) - the overheads of the marks from A up to B
 *
 * (A's own included, B's not: B's overhead comes after its time), so that
 * what the marks cost is not counted in what they measure. */
#ifndef DP_REPORT_MARKS_H
#define DP_REPORT_MARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dataprof/profile.h"
#include "util.h"

typedef struct dp_mark_rec {
	uint64_t time, end; /* end - time: the mark's overhead */
	uint32_t pid, tid, app, id, flags;
} dp_mark_rec;

typedef struct dp_mark_name {
	uint32_t app, id; /* id DP_MARKER_APP: the application */
	char *name;
} dp_mark_name;

typedef struct dp_marks {
	DP_VEC(dp_mark_rec) v; /* by pid, tid, then time */
	DP_VEC(dp_mark_name) names;
	uint64_t hand_overs;   /* marks that found their block full (DP_MARK_FLUSHED) */
} dp_marks;

/* For a caller's own pass over a profile: keeps MARKER and MARKER_NAME records. */
void dp_marks_add(dp_marks *m, const dp_record *r);
/* Sorts; call after the last add. */
void dp_marks_done(dp_marks *m);
void dp_marks_free(dp_marks *m);

/* The name of marker id of application app, or "#id" in buf. */
const char *dp_marks_name(const dp_marks *m, uint32_t app, uint32_t id, char *buf, size_t len);
/* A marker by what a user wrote: its name, or a number. */
bool dp_marks_lookup(const dp_marks *m, const char *what, uint32_t *id);

typedef struct dp_interval {
	size_t from, to;    /* indexes in dp_marks.v */
	uint64_t ns;        /* the interval, overheads subtracted */
	uint64_t raw;       /* time of to - time of from */
	uint64_t overhead;  /* what was subtracted */
} dp_interval;

/* The intervals of one thread between one marker and another. */
typedef struct dp_interval_set {
	uint32_t pid, tid, app, from_id, to_id;
	DP_VEC(dp_interval) v; /* in time order */
	uint64_t min, median, max, total;
} dp_interval_set;

typedef DP_VEC(dp_interval_set) dp_interval_sets;

/* Between consecutive marks of each thread, one set per (thread, from, to). */
void dp_marks_consecutive(const dp_marks *m, dp_interval_sets *out);
/* From each mark a to the next mark b of the same thread; a second a before
 * b starts the interval again. a == b: between its consecutive marks. */
void dp_marks_between(const dp_marks *m, uint32_t a, uint32_t b, dp_interval_sets *out);
void dp_interval_sets_free(dp_interval_sets *s);

/* Thread by thread, each thread's sets in the order of their first
 * interval (marks_out.c). */
void dp_interval_sets_sort(dp_interval_sets *s);
/* The marks of path and the intervals s as text: a header with the marks'
 * overheads, then per thread a line per set (count, min, median, max,
 * total), with each every occurrence under it. */
void dp_marks_text(FILE *f, const char *path, const dp_marks *m, const dp_interval_sets *s,
		   bool each);
/* The same as JSON (docs/markers.md), with every occurrence. */
void dp_marks_json(FILE *f, const char *path, const dp_marks *m, const dp_interval_sets *s);

/* The median of n values (sorted in place); the mean of the middle two for an
 * even n. */
uint64_t dp_median_u64(uint64_t *v, size_t n);

#endif
