/* A time correlation index over the events of a profile that share its time
 * axis: samples, system counter readings, code marks. Each kind is kept
 * sorted by time; given a time, a query finds the nearest event of a kind
 * (or the last one at or before it, or the first at or after it) by binary
 * search, then scans both ways for the nearest that passes a filter (a
 * thread, say).
 *
 * Only the overlap is correlated: the period from the latest first event to
 * the earliest last event over the kinds that have events. Outside it some
 * kind had not started or had already stopped, and its nearest event would
 * describe another moment; queries there find nothing.
 *
 * How report uses it (one pass over the profile to fill it, then lookups):
 *   --by time:100ms --counters  buckets [t, t+100ms) within the overlap;
 *                               dp_timeline_lower() gives each bucket's
 *                               samples and readings (rates: the difference of
 *                               the readings around the bucket over their times)
 *   region (a sample attribute) DP_TL_BEFORE on DP_TL_MARK with the sample's
 *                               thread as filter: the last mark the thread made
 *   --between A B               dp_marks_between() (report/marks.h) gives the
 *                               intervals; samples of the thread with times
 *                               inside them are kept */
#ifndef DP_REPORT_TIMELINE_H
#define DP_REPORT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum dp_tl_kind {
	DP_TL_SAMPLE,
	DP_TL_READING,
	DP_TL_MARK,
	DP_TL_KINDS,
} dp_tl_kind;

typedef struct dp_tl_event {
	uint64_t time;
	uint32_t pid, tid; /* 0 for readings: they belong to the machine */
	uint64_t ref;      /* the caller's: a sample number, an index in dp_marks... */
} dp_tl_event;

typedef struct dp_timeline dp_timeline;

dp_timeline *dp_timeline_new(void);
void dp_timeline_free(dp_timeline *t);
void dp_timeline_add(dp_timeline *t, dp_tl_kind k, uint64_t time, uint32_t pid, uint32_t tid,
		     uint64_t ref);
/* Sorts each kind (equal times keep the order they were added in) and finds
 * the overlap. Call after the last add and before the first query. */
void dp_timeline_build(dp_timeline *t);

/* The events of kind k, by time. */
const dp_tl_event *dp_timeline_events(const dp_timeline *t, dp_tl_kind k, size_t *n);
/* The overlap [lo, hi]; false when no kind has events (or they do not overlap). */
bool dp_timeline_overlap(const dp_timeline *t, uint64_t *lo, uint64_t *hi);
/* Index of the first event of kind k at or after time (n if none). */
size_t dp_timeline_lower(const dp_timeline *t, dp_tl_kind k, uint64_t time);

typedef enum dp_tl_dir {
	DP_TL_NEAREST, /* either side; the earlier one on a tie */
	DP_TL_BEFORE,  /* the last at or before the time */
	DP_TL_AFTER,   /* the first at or after the time */
} dp_tl_dir;

/* Which events a query may return; NULL: any. */
typedef bool (*dp_tl_filter)(const dp_tl_event *e, const void *ctx);
/* ctx: a const uint32_t * thread ID */
bool dp_tl_same_tid(const dp_tl_event *e, const void *tid);

/* The event of kind k for time, or NULL when time is outside the overlap or
 * no event passes the filter. */
const dp_tl_event *dp_timeline_find(const dp_timeline *t, dp_tl_kind k, uint64_t time,
				    dp_tl_dir dir, dp_tl_filter filter, const void *ctx);

#endif
