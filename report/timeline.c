#include "timeline.h"
#include "merge_sort.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct dp_timeline {
	DP_VEC(dp_tl_event) ev[DP_TL_KINDS];
	uint64_t lo, hi;
	bool overlap;
};

dp_timeline *dp_timeline_new(void)
{
	return dp_calloc(1, sizeof(dp_timeline));
}

void dp_timeline_free(dp_timeline *t)
{
	if (!t)
		return;
	for (int k = 0; k < DP_TL_KINDS; k++)
		dp_vec_free(&t->ev[k]);
	free(t);
}

void dp_timeline_add(dp_timeline *t, dp_tl_kind k, uint64_t time, uint32_t pid, uint32_t tid,
		     uint64_t ref)
{
	dp_tl_event e = {time, pid, tid, ref};

	dp_vec_push(&t->ev[k], e);
}

/* equal times keep the order they were added in */
DP_MERGE_SORT(merge_sort, dp_tl_event, time)

void dp_timeline_build(dp_timeline *t)
{
	bool any = false;

	t->lo = 0;
	t->hi = UINT64_MAX;
	for (int k = 0; k < DP_TL_KINDS; k++) {
		size_t n = t->ev[k].n;
		dp_tl_event *tmp;

		if (!n)
			continue;
		tmp = dp_malloc(n * sizeof(*tmp));
		merge_sort(t->ev[k].v, tmp, n);
		free(tmp);
		any = true;
		t->lo = DP_MAX(t->lo, t->ev[k].v[0].time);
		t->hi = DP_MIN(t->hi, t->ev[k].v[n - 1].time);
	}
	t->overlap = any && t->lo <= t->hi;
}

const dp_tl_event *dp_timeline_events(const dp_timeline *t, dp_tl_kind k, size_t *n)
{
	*n = t->ev[k].n;
	return t->ev[k].v;
}

bool dp_timeline_overlap(const dp_timeline *t, uint64_t *lo, uint64_t *hi)
{
	*lo = t->lo;
	*hi = t->hi;
	return t->overlap;
}

size_t dp_timeline_lower(const dp_timeline *t, dp_tl_kind k, uint64_t time)
{
	const dp_tl_event *v = t->ev[k].v;

	return DP_PARTITION_POINT(t->ev[k].n, i, v[i].time < time);
}

bool dp_tl_same_tid(const dp_tl_event *e, const void *tid)
{
	return e->tid == *(const uint32_t *)tid;
}

static bool pass(const dp_tl_event *e, dp_tl_filter f, const void *ctx)
{
	return !f || f(e, ctx);
}

const dp_tl_event *dp_timeline_find(const dp_timeline *t, dp_tl_kind k, uint64_t time,
				    dp_tl_dir dir, dp_tl_filter f, const void *ctx)
{
	const dp_tl_event *v = t->ev[k].v;
	size_t n = t->ev[k].n, at;
	const dp_tl_event *before = NULL, *after = NULL;

	if (!t->overlap || time < t->lo || time > t->hi || !n)
		return NULL;
	/* first event after time: those at time count as "before" */
	at = dp_timeline_lower(t, k, time);
	while (at < n && v[at].time == time)
		at++;
	if (dir != DP_TL_AFTER) {
		for (size_t i = at; i-- > 0;) {
			if (pass(&v[i], f, ctx)) {
				before = &v[i];
				break;
			}
		}
		if (dir == DP_TL_BEFORE)
			return before;
	}
	/* after: also those at time itself when looking forward only */
	if (dir == DP_TL_AFTER)
		at = dp_timeline_lower(t, k, time);
	for (size_t i = at; i < n; i++) {
		/* nearest: stop once farther than what is before */
		if (before && v[i].time - time > time - before->time)
			break;
		if (pass(&v[i], f, ctx)) {
			after = &v[i];
			break;
		}
	}
	if (dir == DP_TL_AFTER || !before)
		return after;
	if (!after)
		return before;
	return after->time - time < time - before->time ? after : before;
}
