/* The time correlation index (report/timeline.h) and the intervals between
 * code marks (report/marks.h), on events with known answers, and the index
 * against a brute-force search on random events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/writer_timeline.h"
#include "report/context.h"
#include "report/marks.h"
#include "report/timeline.h"
#include "tu_group.h"

static dp_timeline *small(void)
{
	dp_timeline *t = dp_timeline_new();

	/* added out of order on purpose */
	for (int i = 10; i >= 1; i--)
		dp_timeline_add(t, DP_TL_SAMPLE, 100 * (uint64_t)i, 7, i & 1 ? 1 : 2, (uint64_t)i);
	for (uint64_t r = 50; r <= 1050; r += 200)
		dp_timeline_add(t, DP_TL_READING, r, 0, 0, r);
	dp_timeline_add(t, DP_TL_MARK, 150, 7, 1, 0);
	dp_timeline_add(t, DP_TL_MARK, 500, 7, 2, 1);
	dp_timeline_add(t, DP_TL_MARK, 900, 7, 1, 2);
	dp_timeline_build(t);
	return t;
}

static void test_known(void **state)
{
	/* the reading found for a time */
	static const struct {
		uint64_t time;
		dp_tl_dir dir;
		uint64_t want;
	} readings[] = {
	    /* nearest; a tie goes to the earlier */
	    {300, DP_TL_NEAREST, 250},
	    {350, DP_TL_NEAREST, 250},
	    {351, DP_TL_NEAREST, 450},
	    /* before and after include the time itself */
	    {450, DP_TL_BEFORE, 450},
	    {450, DP_TL_AFTER, 450},
	    {451, DP_TL_AFTER, 650},
	};
	dp_timeline *t = small();
	uint64_t lo, hi;
	uint32_t tid1 = 1, tid9 = 9;
	size_t n;
	const dp_tl_event *e, *s = dp_timeline_events(t, DP_TL_SAMPLE, &n);

	(void)state;
	assert_int_equal(n, 10);
	for (size_t i = 1; i < n; i++)
		assert_true(s[i - 1].time < s[i].time);
	/* samples 100..1000, readings 50..1050, marks 150..900 */
	assert_true(dp_timeline_overlap(t, &lo, &hi));
	assert_int_equal(lo, 150);
	assert_int_equal(hi, 900);
	for (size_t i = 0; i < DP_ARRAY_LEN(readings); i++) {
		e = dp_timeline_find(t, DP_TL_READING, readings[i].time, readings[i].dir, NULL,
				     NULL);
		assert_int_equal(e->time, readings[i].want);
	}
	/* the marker region of a sample: the last mark of its own thread */
	e = dp_timeline_find(t, DP_TL_MARK, 600, DP_TL_BEFORE, dp_tl_same_tid, &tid1);
	assert_int_equal(e->time, 150);
	e = dp_timeline_find(t, DP_TL_MARK, 600, DP_TL_BEFORE, NULL, NULL);
	assert_int_equal(e->time, 500);
	/* nearest with a filter looks past closer events of other threads */
	e = dp_timeline_find(t, DP_TL_SAMPLE, 400, DP_TL_NEAREST, dp_tl_same_tid, &tid1);
	assert_true(e->time == 300 || e->time == 500);
	assert_int_equal(e->tid, 1);
	assert_int_equal(e->time, 300); /* tie: the earlier */
	assert_null(dp_timeline_find(t, DP_TL_SAMPLE, 400, DP_TL_NEAREST, dp_tl_same_tid, &tid9));
	/* outside the overlap nothing is correlated */
	assert_null(dp_timeline_find(t, DP_TL_READING, 100, DP_TL_NEAREST, NULL, NULL));
	assert_null(dp_timeline_find(t, DP_TL_SAMPLE, 901, DP_TL_BEFORE, NULL, NULL));
	assert_non_null(dp_timeline_find(t, DP_TL_SAMPLE, 900, DP_TL_BEFORE, NULL, NULL));
	/* ranges */
	assert_int_equal(dp_timeline_lower(t, DP_TL_SAMPLE, 250), 2);
	assert_int_equal(dp_timeline_lower(t, DP_TL_SAMPLE, 300), 2);
	assert_int_equal(dp_timeline_lower(t, DP_TL_SAMPLE, 5000), 10);
	dp_timeline_free(t);
}

static void test_empty_kinds(void **state)
{
	dp_timeline *t = dp_timeline_new();
	uint64_t lo, hi;

	(void)state;
	dp_timeline_build(t);
	assert_false(dp_timeline_overlap(t, &lo, &hi));
	assert_null(dp_timeline_find(t, DP_TL_SAMPLE, 1, DP_TL_NEAREST, NULL, NULL));
	dp_timeline_free(t);
	/* a kind without events does not narrow the overlap */
	t = dp_timeline_new();
	dp_timeline_add(t, DP_TL_SAMPLE, 10, 1, 1, 0);
	dp_timeline_add(t, DP_TL_SAMPLE, 20, 1, 1, 1);
	dp_timeline_add(t, DP_TL_SAMPLE, 20, 1, 1, 2); /* equal times keep their order */
	dp_timeline_build(t);
	assert_true(dp_timeline_overlap(t, &lo, &hi));
	assert_int_equal(lo, 10);
	assert_int_equal(hi, 20);
	assert_int_equal(dp_timeline_find(t, DP_TL_SAMPLE, 20, DP_TL_BEFORE, NULL, NULL)->ref, 2);
	assert_int_equal(dp_timeline_find(t, DP_TL_SAMPLE, 20, DP_TL_AFTER, NULL, NULL)->ref, 1);
	dp_timeline_free(t);
	/* kinds that do not overlap: nothing is correlated */
	t = dp_timeline_new();
	dp_timeline_add(t, DP_TL_SAMPLE, 10, 1, 1, 0);
	dp_timeline_add(t, DP_TL_READING, 20, 0, 0, 0);
	dp_timeline_build(t);
	assert_false(dp_timeline_overlap(t, &lo, &hi));
	assert_null(dp_timeline_find(t, DP_TL_SAMPLE, 15, DP_TL_NEAREST, NULL, NULL));
	dp_timeline_free(t);
}

/* against brute force on random events */
static void test_random(void **state)
{
	dp_timeline *t = dp_timeline_new();
	const dp_tl_event *ev;
	uint64_t lo, hi;
	size_t n;

	(void)state;
	srand(42);
	for (int i = 0; i < 3000; i++)
		dp_timeline_add(t, DP_TL_SAMPLE, (uint64_t)(rand() % 100000), 1,
				(uint32_t)(rand() % 4), (uint64_t)i);
	dp_timeline_add(t, DP_TL_READING, 0, 0, 0, 0);
	dp_timeline_add(t, DP_TL_READING, 100000, 0, 0, 0);
	dp_timeline_build(t);
	assert_true(dp_timeline_overlap(t, &lo, &hi));
	ev = dp_timeline_events(t, DP_TL_SAMPLE, &n);
	for (int q = 0; q < 2000; q++) {
		uint64_t time = lo + (uint64_t)rand() % (hi - lo + 1);
		uint32_t tid = (uint32_t)(rand() % 5); /* 4: no such thread */
		const dp_tl_event *b = NULL, *a = NULL, *near;

		for (size_t i = 0; i < n; i++) {
			if (ev[i].tid != tid)
				continue;
			if (ev[i].time <= time)
				b = &ev[i]; /* the last of equal times */
			if (ev[i].time >= time && !a)
				a = &ev[i];
		}
		near = !b ? a : !a ? b : a->time - time < time - b->time ? a : b;
		assert_ptr_equal(
		    dp_timeline_find(t, DP_TL_SAMPLE, time, DP_TL_BEFORE, dp_tl_same_tid, &tid), b);
		assert_ptr_equal(
		    dp_timeline_find(t, DP_TL_SAMPLE, time, DP_TL_AFTER, dp_tl_same_tid, &tid), a);
		const dp_tl_event *got =
		    dp_timeline_find(t, DP_TL_SAMPLE, time, DP_TL_NEAREST, dp_tl_same_tid, &tid);
		/* equal distance either side: the earlier one */
		if (near && got)
			assert_int_equal(got->time, near->time);
		else
			assert_ptr_equal(got, near);
	}
	dp_timeline_free(t);
}

/* ---- intervals between marks ---- */

static void add_marks(dp_marks *m, uint32_t tid, const struct dp_mark *k, uint32_t n)
{
	dp_record r;

	memset(&r, 0, sizeof(r));
	r.kind = DP_R_MARKER;
	r.pid = 5;
	r.tid = tid;
	r.marker.app = 9;
	r.marker.n = n;
	r.marker.marks = k;
	dp_marks_add(m, &r);
}

static void add_name(dp_marks *m, uint32_t id, const char *name)
{
	dp_record r;

	memset(&r, 0, sizeof(r));
	r.kind = DP_R_MARKER_NAME;
	r.marker_name.app = 9;
	r.marker_name.id = id;
	r.marker_name.name = name;
	dp_marks_add(m, &r);
}

enum { A = 1, X = 2, B = 3 };

static void test_intervals(void **state)
{
	/* thread 1: A X B A B; thread 2 interleaved: B A (must not pair with 1) */
	const struct dp_mark t1a[] = {{A, 0, 1000, 1010}, {X, 0, 1500, 1520}, {B, 0, 2000, 2005}};
	const struct dp_mark t1b[] = {{A, DP_MARK_FLUSHED, 3000, 3010}, {B, 0, 3500, 3505}};
	const struct dp_mark t2[] = {{B, 0, 1200, 1201}, {A, 0, 2500, 2501}};
	dp_marks m = {0};
	dp_interval_sets s = {0};
	char buf[16];
	uint32_t id;

	(void)state;
	add_marks(&m, 1, t1a, 3);
	add_marks(&m, 2, t2, 2);
	add_marks(&m, 1, t1b, 2);
	add_name(&m, A, "A");
	add_name(&m, A, "A"); /* again, from another process: kept once */
	add_name(&m, DP_MARKER_APP, "app");
	dp_marks_done(&m);
	assert_int_equal(m.v.n, 7);
	assert_int_equal(m.names.n, 2);
	assert_int_equal(m.hand_overs, 1);
	assert_string_equal(dp_marks_name(&m, 9, A, buf, sizeof(buf)), "A");
	assert_string_equal(dp_marks_name(&m, 9, B, buf, sizeof(buf)), "#3");
	assert_true(dp_marks_lookup(&m, "A", &id) && id == A);
	assert_true(dp_marks_lookup(&m, "#3", &id) && id == B);
	assert_true(dp_marks_lookup(&m, "3", &id) && id == B);
	assert_false(dp_marks_lookup(&m, "nope", &id));

	/* A to the next B, minus the overheads of A and of the marks between */
	dp_marks_between(&m, A, B, &s);
	assert_int_equal(s.n, 1); /* thread 2 has no A before a B */
	assert_int_equal(s.v[0].tid, 1);
	assert_int_equal(s.v[0].v.n, 2);
	assert_int_equal(s.v[0].v.v[0].raw, 1000);
	assert_int_equal(s.v[0].v.v[0].overhead, 30);
	assert_int_equal(s.v[0].v.v[0].ns, 970);
	assert_int_equal(s.v[0].v.v[1].ns, 490);
	assert_int_equal(s.v[0].min, 490);
	assert_int_equal(s.v[0].max, 970);
	assert_int_equal(s.v[0].median, 730);
	assert_int_equal(s.v[0].total, 1460);
	dp_interval_sets_free(&s);

	/* consecutive marks: per thread and pair of markers */
	dp_marks_consecutive(&m, &s);
	uint64_t ax = 0, xb = 0, ba = 0, ab = 0, t2ba = 0;
	for (size_t i = 0; i < s.n; i++) {
		const dp_interval_set *e = &s.v[i];

		if (e->tid == 2) {
			assert_true(e->from_id == B && e->to_id == A);
			t2ba = e->v.v[0].ns;
			continue;
		}
		if (e->from_id == A && e->to_id == X)
			ax = e->v.v[0].ns;
		if (e->from_id == X && e->to_id == B)
			xb = e->v.v[0].ns;
		if (e->from_id == B && e->to_id == A)
			ba = e->v.v[0].ns;
		if (e->from_id == A && e->to_id == B)
			ab = e->v.v[0].ns;
	}
	assert_int_equal(s.n, 5);
	assert_int_equal(ax, 490);
	assert_int_equal(xb, 480);
	assert_int_equal(ba, 995);
	assert_int_equal(ab, 490);
	assert_int_equal(t2ba, 1299);
	dp_interval_sets_free(&s);

	/* a marker with itself: between its occurrences */
	dp_marks_between(&m, A, A, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.v[0].v.n, 1);
	assert_int_equal(s.v[0].v.v[0].ns, 2000 - (10 + 20 + 5));
	dp_interval_sets_free(&s);
	dp_marks_free(&m);
}

static void test_median(void **state)
{
	uint64_t odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2}, one[] = {7};

	(void)state;
	assert_int_equal(dp_median_u64(odd, 3), 3);
	assert_int_equal(dp_median_u64(even, 4), 2); /* (2 + 3) / 2 rounded down */
	assert_int_equal(dp_median_u64(one, 1), 7);
	assert_int_equal(dp_median_u64(NULL, 0), 0);
}

/* Counter rates per time bucket: a counter growing 1,000 every 100 ms read
 * at 0, 100, 200, 500 and 600 ms (the reader was late between 200 and 500:
 * a loaded machine). Each bucket gets 10,000/s, also those without a
 * reading of their own (test_report's counters_per_bucket lost 7 of 62
 * buckets under load); none after the last reading. */
static void test_counter_rates(void **state)
{
	static const unsigned ms[] = {0, 100, 200, 500, 600};
	const uint64_t t0 = 1000000000ull, MS = 1000000ull;
	char *path = tu_path("counters.dprof"), text[64];
	dp_writer w;
	dp_error err;
	dp_profile *p;
	dp_record r;
	dp_strtab strs;
	dp_report_ctx *c;
	double v;

	(void)state;
	assert_int_equal(dp_writer_open(&w, path, 1, 2, &err), 0);
	dp_writer_add_sensor(&w, 0, DP_SENSOR_COUNTER, "events", "c");
	for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		uint64_t val = 10 * (uint64_t)ms[i];

		dp_writer_add_reading(&w, t0 + ms[i] * MS, 1, 0, &val, 1);
	}
	assert_int_equal(dp_writer_close(&w), 0);
	p = dp_profile_open(path, &err);
	assert_non_null(p);
	dp_strtab_init(&strs);
	c = dp_report_ctx_new(&strs);
	while (dp_profile_next(p, &r) > 0)
		dp_report_ctx_observe(c, &r);
	dp_report_ctx_ready(c);
	assert_int_equal(dp_report_ctx_counters(c, p, "c", &err), 0);
	for (unsigned b = 0; b + 100 <= 600; b += 50) {
		bool got = dp_report_ctx_counter(c, 0, t0 + b * MS, t0 + (b + 100) * MS, &v, text,
						 sizeof(text));

		printf("[%u ms, %u ms): %s\n", b, b + 100, got ? text : "no rate");
		assert_true(got);
		assert_true(v > 9999.999 && v < 10000.001);
	}
	assert_false(
	    dp_report_ctx_counter(c, 0, t0 + 650 * MS, t0 + 750 * MS, &v, text, sizeof(text)));
	dp_report_ctx_free(c);
	dp_strtab_free(&strs);
	dp_profile_close(p);
	free(path);
}

TU_MAIN(NULL, NULL, test_known, test_empty_kinds, test_random, test_intervals, test_median,
	test_counter_rates)
