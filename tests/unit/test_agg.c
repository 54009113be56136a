/* The aggregation tree (report/agg.h): groups at one and two levels and of
 * two attributes together, the sums of every metric and event, ordering
 * by the metric with ties in the order of the keys' text (not of string
 * ids nor of arrival), time buckets in time order, the top N as report
 * prints them, and merging parts as report --jobs does
 * (dp_report_part_merge): the same tree whatever the split (issue 17). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/agg.h"
#include "report_fixture.h"
#include "tu_group.h"

static dp_agg_level level(const char *a, const char *b)
{
	dp_agg_level lv;
	dp_error err = {{0}};

	memset(&lv, 0, sizeof(lv));
	if (!dp_attr_parse(a, &lv.attrs[0], &err))
		fail_msg("%s", err.msg);
	lv.nattrs = 1;
	if (b) {
		if (!dp_attr_parse(b, &lv.attrs[1], &err))
			fail_msg("%s", err.msg);
		lv.nattrs = 2;
	}
	return lv;
}

/* One sample as the report streams it: keys from its row at every level. */
static void add(dp_agg *g, rfx *f, const char *function, const char *member, uint32_t cpu,
		uint32_t event, uint64_t period, uint64_t weight, uint64_t time_rel)
{
	rsample m;
	uint64_t keys[DP_AGG_MAX_LEVELS][DP_AGG_MAX_ATTRS];

	rsample_init(&m);
	m.a.function = rfx_str(f, function);
	m.a.member = member ? rfx_str(f, member) : 0;
	m.s.cpu = cpu;
	m.s.event = event;
	m.r.time_rel = time_rel;
	dp_agg_keys(g, f->attrs, &m.r, keys);
	dp_agg_add(g, (const uint64_t(*)[DP_AGG_MAX_ATTRS])keys, event, period, weight);
}

/* The tree as text, children in their order: what two trees built in
 * different pipelines must agree on. */
static void dump_node(const dp_agg *g, rfx *f, uint32_t i, dp_buf *out)
{
	const dp_agg_node *n = &g->nodes.v[i];
	char buf[128];

	if (i) {
		const dp_agg_level *lv = &g->levels[n->depth - 1];
		dp_buf_printf(out, "%*s", (int)n->depth * 2, "");
		for (int k = 0; k < lv->nattrs; k++)
			dp_buf_printf(
			    out, "%s%s", k ? "," : "",
			    dp_attr_format(f->attrs, &lv->attrs[k], n->key[k], buf, sizeof(buf)));
	}
	dp_buf_printf(out, " %llu/%llu/%llu", (unsigned long long)n->m[0],
		      (unsigned long long)n->m[1], (unsigned long long)n->m[2]);
	for (uint32_t e = 0; e < g->nev; e++) {
		const uint64_t *em = dp_agg_event_m(g, i, e);
		dp_buf_printf(out, " [%llu/%llu/%llu]", (unsigned long long)em[0],
			      (unsigned long long)em[1], (unsigned long long)em[2]);
	}
	dp_buf_printf(out, "\n");
	for (uint32_t c = 0; c < n->nchildren; c++)
		dump_node(g, f, n->children[c], out);
}

static char *dump(const dp_agg *g, rfx *f)
{
	dp_buf b = {0};

	dump_node(g, f, 0, &b);
	dp_buf_add(&b, "", 1);
	return (char *)b.p;
}

/* The text of child c of node i at attribute k. */
static const char *child_text(const dp_agg *g, rfx *f, uint32_t i, uint32_t c, int k)
{
	static char buf[128];
	const dp_agg_node *n = &g->nodes.v[g->nodes.v[i].children[c]];

	return dp_attr_format(f->attrs, &g->levels[n->depth - 1].attrs[k], n->key[k], buf,
			      sizeof(buf));
}

/* A NULL-ended list of names, in place. */
#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* The first children of node i, in order, read the names at attribute 0. */
#define ASSERT_CHILDREN(g, f, i, ...) assert_children(g, f, i, NAMES(__VA_ARGS__))

static void assert_children(const dp_agg *g, rfx *f, uint32_t i, const char *const *want)
{
	for (uint32_t c = 0; want[c]; c++)
		assert_string_equal(child_text(g, f, i, c, 0), want[c]);
}

typedef struct gfx {
	rfx f[3];
} gfx;

static int setup(void **state)
{
	gfx *x = calloc(1, sizeof(*x));
	char name[32];

	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "agg%d.dprof", i);
		rfx_open(&x->f[i], name);
	}
	/* names met in another order in each table: their ids differ */
	const char *names[] = {"zeta", "mid", "alpha", "f0", "f1", "f2", "f3", "m0", "m1", "m2"};
	for (int k = 9; k >= 0; k--)
		rfx_str(&x->f[1], names[k]);
	for (int k = 0; k < 10; k++)
		rfx_str(&x->f[2], names[(k * 7) % 10]);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	gfx *x = *state;

	for (int i = 0; i < 3; i++)
		rfx_close(&x->f[i]);
	free(x);
	return 0;
}

/* A sample of a function alone: on cpu 0, at time 0. */
typedef struct fsample {
	const char *function;
	uint32_t event;
	uint64_t period, weight;
} fsample;

static void add_samples(dp_agg *g, rfx *f, const fsample *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		add(g, f, s[i].function, NULL, 0, s[i].event, s[i].period, s[i].weight, 0);
}

/* The samples grouped by function, ordered by metric m: the functions in
 * the order of want. */
static void assert_order(rfx *f, size_t nev, dp_metric m, const fsample *s, size_t n,
			 const char *const *want)
{
	dp_agg_level lv[1] = {level("function", NULL)};
	dp_agg g;

	dp_agg_init(&g, lv, 1, nev, m);
	add_samples(&g, f, s, n);
	dp_agg_finish(&g, f->attrs);
	assert_children(&g, f, 0, want);
	dp_agg_free(&g);
}

/* Over two events: walk 3 (period 60, weight 19), main 2 (1050, 17),
 * hash 1 (40, 9). */
static const fsample walk_main_hash[] = {
    {"walk", 0, 10, 5}, {"walk", 1, 20, 6}, {"main", 0, 1000, 7},
    {"walk", 0, 30, 8}, {"hash", 1, 40, 9}, {"main", 1, 50, 10},
};
#define NWMH (sizeof(walk_main_hash) / sizeof(walk_main_hash[0]))

static void test_one_level(void **state)
{
	gfx *x = *state;
	rfx *f = &x->f[0];
	dp_agg_level lv[1] = {level("function", NULL)};
	dp_agg g;

	dp_agg_init(&g, lv, 1, 2, DP_M_SAMPLES);
	add_samples(&g, f, walk_main_hash, NWMH);
	dp_agg_finish(&g, f->attrs);
	const dp_agg_node *root = &g.nodes.v[0];
	assert_int_equal(root->m[0], 6);
	assert_int_equal(root->m[1], 1150);
	assert_int_equal(root->m[2], 45);
	assert_int_equal(root->nchildren, 3);
	/* by samples: walk 3, main 2, hash 1 */
	ASSERT_CHILDREN(&g, f, 0, "walk", "main", "hash");
	uint32_t walk = root->children[0];
	assert_int_equal(g.nodes.v[walk].m[0], 3);
	assert_int_equal(g.nodes.v[walk].m[1], 60);
	assert_int_equal(g.nodes.v[walk].m[2], 19);
	assert_int_equal(g.nodes.v[walk].nchildren, 0);
	/* per event: walk has 2 of page-faults (event 0), 1 of cycles */
	assert_int_equal(dp_agg_event_m(&g, walk, 0)[0], 2);
	assert_int_equal(dp_agg_event_m(&g, walk, 0)[1], 40);
	assert_int_equal(dp_agg_event_m(&g, walk, 0)[2], 13);
	assert_int_equal(dp_agg_event_m(&g, walk, 1)[0], 1);
	assert_int_equal(dp_agg_event_m(&g, walk, 1)[1], 20);
	assert_int_equal(dp_agg_event_m(&g, 0, 1)[1], 110);
	dp_agg_free(&g);

	/* the same samples by period: main 1050 first, hash 40 above... walk 60 */
	assert_order(f, 2, DP_M_PERIOD, walk_main_hash, NWMH, NAMES("main", "walk", "hash"));

	/* and by weight: walk 19, main 17, hash 9 */
	static const fsample by_weight[] = {
	    {"main", 0, 1000, 7}, {"hash", 1, 40, 9}, {"walk", 0, 10, 19}, {"main", 1, 50, 10}};
	assert_order(f, 2, DP_M_WEIGHT, by_weight, 4, NAMES("walk", "main", "hash"));
}

/* --by function --then member: each function's samples regrouped, the
 * children's sums their parent's. Two attributes at one level: --by
 * function,cpu. */
static void test_two_levels(void **state)
{
	gfx *x = *state;
	rfx *f = &x->f[0];
	dp_agg_level lv[2] = {level("function", NULL), level("member", "cpu")};
	dp_agg g;

	dp_agg_init(&g, lv, 2, 2, DP_M_SAMPLES);
	for (int i = 0; i < 4; i++)
		add(&g, f, "walk", "struct node.next", 1, 0, 1, 1, 0);
	add(&g, f, "walk", "struct node.next", 2, 0, 1, 1, 0);
	add(&g, f, "walk", "struct node.v", 1, 0, 1, 1, 0);
	add(&g, f, "walk", "struct node.v", 1, 0, 1, 1, 0);
	add(&g, f, "hash", "struct node.v", 1, 0, 1, 1, 0);
	dp_agg_finish(&g, f->attrs);
	const dp_agg_node *root = &g.nodes.v[0];
	assert_int_equal(root->nchildren, 2);
	assert_string_equal(child_text(&g, f, 0, 0, 0), "walk");
	uint32_t walk = root->children[0], hash = root->children[1];
	const dp_agg_node *w = &g.nodes.v[walk];
	assert_int_equal(w->m[0], 7);
	assert_int_equal(w->nchildren, 3);
	/* (next, 1) 4, (v, 1) 2, (next, 2) 1 */
	assert_string_equal(child_text(&g, f, walk, 0, 0), "struct node.next");
	assert_string_equal(child_text(&g, f, walk, 0, 1), "1");
	assert_string_equal(child_text(&g, f, walk, 1, 0), "struct node.v");
	assert_string_equal(child_text(&g, f, walk, 1, 1), "1");
	assert_string_equal(child_text(&g, f, walk, 2, 0), "struct node.next");
	assert_string_equal(child_text(&g, f, walk, 2, 1), "2");
	uint64_t sum = 0;
	for (uint32_t c = 0; c < w->nchildren; c++) {
		const dp_agg_node *n = &g.nodes.v[w->children[c]];
		assert_int_equal(n->parent, walk);
		assert_int_equal(n->depth, 2);
		sum += n->m[0];
	}
	assert_int_equal(sum, w->m[0]);
	/* the same member under another function is another group */
	assert_int_equal(g.nodes.v[hash].nchildren, 1);
	assert_int_equal(g.nodes.v[g.nodes.v[hash].children[0]].m[0], 1);
	dp_agg_free(&g);
}

/* Equal metrics go by the keys' text, whatever order the samples came in
 * and whatever ids the names have; equal periods by samples first. */
static void test_ties(void **state)
{
	gfx *x = *state;
	dp_agg_level lv[1] = {level("function", "cpu")};
	const char *names[] = {"zeta", "mid", "alpha"};
	char *want = NULL;

	for (int t = 0; t < 3; t++) {
		rfx *f = &x->f[t];
		dp_agg g;

		dp_agg_init(&g, lv, 1, 2, DP_M_SAMPLES);
		/* rotated arrival order per table */
		for (int i = 0; i < 6; i++)
			add(&g, f, names[(i + t) % 3], NULL, (uint32_t)(i / 3), 0, 1, 0, 0);
		dp_agg_finish(&g, f->attrs);
		char *got = dump(&g, f);
		assert_int_equal(g.nodes.v[0].nchildren, 6);
		assert_string_equal(child_text(&g, f, 0, 0, 0), "alpha");
		assert_string_equal(child_text(&g, f, 0, 0, 1), "0");
		assert_string_equal(child_text(&g, f, 0, 1, 0), "alpha");
		assert_string_equal(child_text(&g, f, 0, 1, 1), "1");
		assert_string_equal(child_text(&g, f, 0, 2, 0), "mid");
		assert_string_equal(child_text(&g, f, 0, 5, 0), "zeta");
		assert_string_equal(child_text(&g, f, 0, 5, 1), "1");
		if (want)
			assert_string_equal(got, want);
		free(want);
		want = got;
		dp_agg_free(&g);
	}
	free(want);

	/* by period, a tie goes to more samples, then to the text */
	static const fsample tied[] = {
	    {"zeta", 0, 100, 0}, {"alpha", 0, 100, 0}, {"mid", 0, 50, 0}, {"mid", 0, 50, 0}};
	assert_order(&x->f[0], 1, DP_M_PERIOD, tied, 4, NAMES("mid", "alpha", "zeta"));
}

/* report prints the first N children of each node (--top): the same N
 * whatever the order of arrival. */
static void test_top(void **state)
{
	gfx *x = *state;
	rfx *f = &x->f[0];
	dp_agg_level lv[1] = {level("function", NULL)};
	char name[16];

	for (int order = 0; order < 2; order++) {
		dp_agg g;

		dp_agg_init(&g, lv, 1, 1, DP_M_SAMPLES);
		/* function fK gets K+1 samples, except f5..f9 all get 3 */
		for (int k = 0; k < 10; k++) {
			int kk = order ? 9 - k : k;
			int n = kk < 5 ? kk + 1 : 3;
			snprintf(name, sizeof(name), "f%d", kk);
			for (int i = 0; i < n; i++)
				add(&g, f, name, NULL, 0, 0, 1, 0, 0);
		}
		dp_agg_finish(&g, f->attrs);
		/* top 5: f4 (5), f3 (4), then the 3s by text: f2 f5 f6 */
		ASSERT_CHILDREN(&g, f, 0, "f4", "f3", "f2", "f5", "f6");
		for (uint32_t c = 1; c < g.nodes.v[0].nchildren; c++)
			assert_true(g.nodes.v[g.nodes.v[0].children[c - 1]].m[0] >=
				    g.nodes.v[g.nodes.v[0].children[c]].m[0]);
		dp_agg_free(&g);
	}
}

/* Time buckets stay in time order, empty ones included (dp_agg_ensure),
 * and the level under them sorts by the metric. */
static void test_time_buckets(void **state)
{
	gfx *x = *state;
	rfx *f = &x->f[0];
	dp_agg_level lv[2] = {level("time:100ms", NULL), level("function", NULL)};
	dp_agg g;

	dp_agg_init(&g, lv, 2, 1, DP_M_SAMPLES);
	add(&g, f, "late", NULL, 0, 0, 1, 0, 350000000);
	for (int i = 0; i < 5; i++)
		add(&g, f, "busy", NULL, 0, 0, 1, 0, 120000000 + (uint64_t)i);
	add(&g, f, "idle", NULL, 0, 0, 1, 0, 199999999);
	add(&g, f, "early", NULL, 0, 0, 1, 0, 0);
	for (uint64_t b = 0; b < 4; b++)
		dp_agg_ensure(&g, &b);
	dp_agg_finish(&g, f->attrs);
	const dp_agg_node *root = &g.nodes.v[0];
	assert_int_equal(root->nchildren, 4);
	for (uint32_t c = 0; c < 4; c++)
		assert_int_equal(g.nodes.v[root->children[c]].key[0], c);
	assert_string_equal(child_text(&g, f, 0, 1, 0), "0.100s");
	assert_int_equal(g.nodes.v[root->children[2]].m[0], 0); /* 200ms..300ms: empty */
	assert_int_equal(g.nodes.v[root->children[2]].nchildren, 0);
	uint32_t b1 = root->children[1];
	assert_int_equal(g.nodes.v[b1].m[0], 6);
	ASSERT_CHILDREN(&g, f, b1, "busy", "idle");
	dp_agg_free(&g);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define NSAMPLES 400

/* The samples of one part: [from, to) of the same random sequence. */
static void add_range(dp_agg *g, rfx *f, int from, int to)
{
	static const char *fn[] = {"f0", "f1", "f2", "f3", "zeta", "alpha"};
	static const char *mb[] = {"m0", "m1", "m2", "mid"};
	uint64_t s = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < to; i++) {
		uint64_t r = rnd(&s);
		if (i < from)
			continue;
		add(g, f, fn[r % 6], mb[(r >> 8) % 4], (uint32_t)((r >> 16) % 3),
		    (uint32_t)((r >> 20) & 1), 1 + (r >> 24) % 1000, (r >> 40) % 50,
		    (r >> 48) % 1000000000);
	}
}

/* Merging the aggregate of the samples after a split point into that of
 * the samples before it (each part with a string table of its own, as
 * report --jobs has) gives the tree of all the samples in one part, at
 * every split point. */
static void test_merge(void **state)
{
	gfx *x = *state;
	dp_agg_level lv[3] = {level("function", NULL), level("member", "cpu"),
			      level("time:250ms", NULL)};
	dp_agg whole;

	dp_agg_init(&whole, lv, 3, 2, DP_M_PERIOD);
	add_range(&whole, &x->f[0], 0, NSAMPLES);
	dp_agg_finish(&whole, x->f[0].attrs);
	char *want = dump(&whole, &x->f[0]);
	assert_int_equal(whole.nodes.v[0].m[0], NSAMPLES);

	for (int split = 0; split <= NSAMPLES; split += 37) {
		dp_agg a, b;

		dp_agg_init(&a, lv, 3, 2, DP_M_PERIOD);
		dp_agg_init(&b, lv, 3, 2, DP_M_PERIOD);
		add_range(&a, &x->f[1], 0, split);
		add_range(&b, &x->f[2], split, NSAMPLES);
		dp_agg_merge(&a, x->f[1].attrs, &b, x->f[2].attrs);
		dp_agg_finish(&a, x->f[1].attrs);
		char *got = dump(&a, &x->f[1]);
		if (strcmp(got, want))
			fail_msg("split at %d:\n%s\nwhole:\n%s", split, got, want);
		free(got);
		/* samples added after a merge still go to their groups */
		add_range(&a, &x->f[1], 0, 1);
		assert_int_equal(a.nodes.v[0].m[0], NSAMPLES + 1);
		assert_int_equal(a.nodes.n, whole.nodes.n);
		dp_agg_free(&a);
		dp_agg_free(&b);
	}
	/* merging into an empty aggregate, and an empty one into it */
	dp_agg a, e;
	dp_agg_init(&a, lv, 3, 2, DP_M_PERIOD);
	dp_agg_init(&e, lv, 3, 2, DP_M_PERIOD);
	add_range(&e, &x->f[2], 0, NSAMPLES);
	dp_agg_merge(&a, x->f[1].attrs, &e, x->f[2].attrs);
	dp_agg_free(&e);
	dp_agg_init(&e, lv, 3, 2, DP_M_PERIOD);
	dp_agg_merge(&a, x->f[1].attrs, &e, x->f[2].attrs);
	dp_agg_finish(&a, x->f[1].attrs);
	char *got = dump(&a, &x->f[1]);
	assert_string_equal(got, want);
	free(got);
	dp_agg_free(&a);
	dp_agg_free(&e);
	free(want);
	dp_agg_free(&whole);
}

TU_MAIN_EACH(setup, teardown, test_one_level, test_two_levels, test_ties, test_top,
	     test_time_buckets, test_merge)
