/* The attributes of the sample rows (report/attr.h): every name parsed back
 * to itself, time buckets and what is refused, which are numbers, keys of
 * hand-made rows (cache line, page, time bucket, what an untrusted address
 * or a missing name shows), ordering by text rather than string id, and
 * keys carried from one pipeline's string table to another's (issue 17). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixture.h"
#include "tu_group.h"

static void test_every_name(void **state)
{
	char *all = strdup(dp_attr_all_names()), *save = NULL;
	int n = 0;

	(void)state;
	for (char *name = strtok_r(all, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
		dp_attr a;
		dp_error err = {{0}};

		if (!dp_attr_parse(name, &a, &err))
			fail_msg("'%s' refused: %s", name, err.msg);
		assert_int_equal(a.id, n);
		assert_int_equal(a.bucket, 0);
		assert_string_equal(dp_attr_name(a.id), name);
		n++;
	}
	/* every attribute is listed, once, in id order */
	assert_int_equal(n, DP_A_COUNT);
	assert_string_equal(dp_attr_name(DP_A_COUNT), "?");
	free(all);
}

static void parse_bad(const char *name, const char *why)
{
	dp_attr a;
	dp_error err = {{0}};

	if (dp_attr_parse(name, &a, &err))
		fail_msg("'%s' taken", name);
	if (!strstr(err.msg, why))
		fail_msg("'%s': '%s' lacks '%s'", name, err.msg, why);
}

static void test_parse(void **state)
{
	dp_attr a;
	dp_error err = {{0}};

	(void)state;
	assert_true(dp_attr_parse("time:100ms", &a, &err));
	assert_int_equal(a.id, DP_A_TIME);
	assert_int_equal(a.bucket, 100000000);
	assert_true(dp_attr_parse("time:2.5s", &a, &err));
	assert_int_equal(a.bucket, 2500000000ull);
	assert_true(dp_attr_parse("time:1ns", &a, &err));
	assert_int_equal(a.bucket, 1);
	/* diff's spelling of the member path */
	assert_true(dp_attr_parse("type.member", &a, &err));
	assert_int_equal(a.id, DP_A_MEMBER);

	parse_bad("time:", "the bucket width");
	parse_bad("time:0", "'0' has no unit");
	parse_bad("time:0ms", "must be more than 0");
	parse_bad("time:abc", "'abc' is not a duration");
	parse_bad("time:100", "has no unit");
	parse_bad("cpu:1ms", "only time takes a bucket width");
	parse_bad("nosuch", "unknown attribute 'nosuch'");
	parse_bad("nosuch", dp_attr_all_names());
	parse_bad("", "unknown attribute ''");
	parse_bad("Time", "unknown attribute 'Time'"); /* names are lower case */
	parse_bad("tim", "unknown attribute 'tim'");
	parse_bad("times", "unknown attribute 'times'");
	parse_bad("type.membe", "unknown attribute");
}

/* A long unknown name still leaves room for the list of valid ones. */
static void test_parse_long_name(void **state)
{
	char name[2000];

	(void)state;
	memset(name, 'q', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	parse_bad(name, dp_attr_all_names());
	parse_bad(name, "unknown attribute 'qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq...'");
	/* and one with a bucket width, the reason */
	memcpy(name, "cpu:", 4);
	parse_bad(name, "only time takes a bucket width");
	memcpy(name, "time:", 5);
	/* (lib/units.h quotes the whole width in its reason, cut at 160 bytes) */
	parse_bad(name, "'time:qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq...': the bucket width");
}

static void test_numeric(void **state)
{
	static const dp_attr_id numbers[] = {DP_A_PID,	     DP_A_TID,	DP_A_CPU,
					     DP_A_TIME,	     DP_A_IP,	DP_A_ADDR,
					     DP_A_CACHELINE, DP_A_PAGE, DP_A_WEIGHT};

	(void)state;
	for (int i = 0; i < DP_A_COUNT; i++) {
		bool want = false;
		for (size_t k = 0; k < sizeof(numbers) / sizeof(numbers[0]); k++)
			want |= numbers[k] == (dp_attr_id)i;
		if (dp_attr_numeric((dp_attr_id)i) != want)
			fail_msg("%s: numeric %d", dp_attr_name((dp_attr_id)i), !want);
	}
	assert_false(dp_attr_numeric(DP_A_COUNT));
	assert_false(dp_attr_numeric((dp_attr_id)-1));
}

typedef struct afx {
	rfx f, g; /* two pipelines over the same profile */
} afx;

static int setup(void **state)
{
	afx *x = calloc(1, sizeof(*x));

	rfx_open(&x->f, "attr_f.dprof");
	rfx_open(&x->g, "attr_g.dprof");
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	afx *x = *state;

	rfx_close(&x->f);
	rfx_close(&x->g);
	free(x);
	return 0;
}

static uint64_t key(rfx *f, rsample *m, const char *attr)
{
	dp_attr a;
	dp_error err = {{0}};

	if (!dp_attr_parse(attr, &a, &err))
		fail_msg("%s", err.msg);
	return dp_attr_key(f->attrs, &m->r, &a);
}

/* The key's text, as reports print it. */
static const char *text(rfx *f, rsample *m, const char *attr)
{
	static char buf[256];
	dp_attr a;
	dp_error err = {{0}};

	if (!dp_attr_parse(attr, &a, &err))
		fail_msg("%s", err.msg);
	return dp_attr_format(f->attrs, &a, dp_attr_key(f->attrs, &m->r, &a), buf, sizeof(buf));
}

static void test_numeric_keys(void **state)
{
	afx *x = *state;
	rfx *f = &x->f;
	rsample m;

	rsample_init(&m);
	m.s.cpu = 7;
	m.s.pid = 100;
	m.s.tid = 101;
	m.s.ip = 0x401234;
	m.s.weight = 250;
	m.x.data_addr = 0x7f001234567fULL;
	m.r.time_rel = 1550000000; /* 1.55 s */
	assert_int_equal(key(f, &m, "cpu"), 7);
	assert_int_equal(key(f, &m, "pid"), 100);
	assert_int_equal(key(f, &m, "tid"), 101);
	assert_int_equal(key(f, &m, "ip"), 0x401234);
	assert_int_equal(key(f, &m, "weight"), 250);
	assert_int_equal(key(f, &m, "addr"), 0x7f001234567fULL);
	assert_int_equal(key(f, &m, "cacheline"), 0x7f0012345640ULL);
	assert_int_equal(key(f, &m, "page"), 0x7f0012345000ULL);
	assert_string_equal(text(f, &m, "cacheline"), "0x7f0012345640");
	assert_string_equal(text(f, &m, "page"), "0x7f0012345000");
	assert_string_equal(text(f, &m, "cpu"), "7");
	/* time: ns since the start, or the bucket's number, printed as its start */
	assert_int_equal(key(f, &m, "time"), 1550000000);
	assert_int_equal(key(f, &m, "time:100ms"), 15);
	assert_int_equal(key(f, &m, "time:1s"), 1);
	assert_int_equal(key(f, &m, "time:2s"), 0);
	assert_string_equal(text(f, &m, "time"), "1.550s");
	assert_string_equal(text(f, &m, "time:100ms"), "1.500s");
	assert_string_equal(text(f, &m, "time:1s"), "1.000s");
	/* a bucket's edges: the start is in it, the end in the next */
	m.r.time_rel = 1600000000;
	assert_int_equal(key(f, &m, "time:100ms"), 16);
	m.r.time_rel = 1599999999;
	assert_int_equal(key(f, &m, "time:100ms"), 15);
	/* addresses at the edges of a line and a page */
	m.x.data_addr = 0x1040;
	assert_int_equal(key(f, &m, "cacheline"), 0x1040);
	m.x.data_addr = 0x103f;
	assert_int_equal(key(f, &m, "cacheline"), 0x1000);
	assert_int_equal(key(f, &m, "page"), 0x1000);
	m.x.data_addr = 0xfff;
	assert_int_equal(key(f, &m, "page"), 0);
	/* names never used as numbers */
	assert_null(dp_attr_string(f->attrs, &(dp_attr){DP_A_CPU, 0}, 7));
}

static void test_name_keys(void **state)
{
	afx *x = *state;
	rfx *f = &x->f;
	rsample m;

	rsample_init(&m);
	m.s.event = 1;
	/* what a row lacks */
	assert_string_equal(text(f, &m, "function"), "[unknown]");
	assert_string_equal(text(f, &m, "file"), "[unknown]");
	assert_string_equal(text(f, &m, "process"), "[unknown]");
	assert_string_equal(text(f, &m, "inline"), "-");
	assert_string_equal(text(f, &m, "site"), "-");
	assert_string_equal(text(f, &m, "type"), "-");
	assert_string_equal(text(f, &m, "member"), "-");
	assert_string_equal(text(f, &m, "level"), "-");
	assert_string_equal(text(f, &m, "object"), "[unknown]");
	/* from the profile and decode */
	assert_string_equal(text(f, &m, "event"), "cycles");
	m.s.event = 0;
	assert_string_equal(text(f, &m, "event"), "page-faults");
	m.s.event = 9;
	assert_string_equal(text(f, &m, "event"), "?");
	assert_string_equal(text(f, &m, "verdict"), "exact");
	assert_string_equal(text(f, &m, "reason"), "-");
	/* the annotator's names */
	m.a.function = rfx_str(f, "walk");
	m.a.object = rfx_str(f, "nodes");
	m.a.type = rfx_str(f, "struct node");
	m.a.obj_kind = DP_OBJ_HEAP;
	assert_string_equal(text(f, &m, "function"), "walk");
	assert_string_equal(text(f, &m, "object"), "nodes");
	assert_string_equal(text(f, &m, "kind"), dp_object_kind_name(DP_OBJ_HEAP));
	/* no member: the whole object, named by its type */
	assert_string_equal(text(f, &m, "member"), "struct node");
	m.a.member = rfx_str(f, "struct node.next");
	assert_string_equal(text(f, &m, "member"), "struct node.next");
	/* an address that is not trusted is never merged with an object */
	m.x.verdict = DP_V_UNVERIFIABLE;
	assert_string_equal(text(f, &m, "object"), "[unverifiable]");
	assert_string_equal(text(f, &m, "kind"), "[unverifiable]");
	assert_string_equal(text(f, &m, "verdict"), "unverifiable");
	m.x.verdict = DP_V_VERIFIED;
	assert_string_equal(text(f, &m, "object"), "nodes");
}

/* Names order by their text whatever order they were met in; numbers by
 * value. */
static void test_compare(void **state)
{
	afx *x = *state;
	rfx *f = &x->f;
	dp_attr fn = {DP_A_FUNCTION, 0}, addr = {DP_A_ADDR, 0}, ev = {DP_A_EVENT, 0};
	uint32_t zeta = rfx_str(f, "zeta"), alpha = rfx_str(f, "alpha"), mid = rfx_str(f, "mid");

	(void)state;
	assert_true(zeta < alpha); /* met first: the smaller id */
	assert_int_equal(dp_attr_compare(f->attrs, &fn, alpha, zeta), -1);
	assert_int_equal(dp_attr_compare(f->attrs, &fn, zeta, alpha), 1);
	assert_int_equal(dp_attr_compare(f->attrs, &fn, mid, zeta), -1);
	assert_int_equal(dp_attr_compare(f->attrs, &fn, alpha, mid), -1);
	assert_int_equal(dp_attr_compare(f->attrs, &fn, mid, mid), 0);
	assert_int_equal(dp_attr_compare(f->attrs, &addr, 0x2000, 0x10000), -1);
	assert_int_equal(dp_attr_compare(f->attrs, &addr, UINT64_MAX, 0), 1);
	assert_int_equal(dp_attr_compare(f->attrs, &addr, 5, 5), 0);
	/* events are indices: by index */
	assert_int_equal(dp_attr_compare(f->attrs, &ev, 0, 1), -1);
}

/* A key of one pipeline's table is the same name in another's, whose ids
 * differ; numbers stay themselves. */
static void test_key_in(void **state)
{
	afx *x = *state;
	dp_attr fn = {DP_A_FUNCTION, 0}, cpu = {DP_A_CPU, 0}, ev = {DP_A_EVENT, 0},
		verdict = {DP_A_VERDICT, 0};

	/* met in opposite orders */
	uint32_t f_a = rfx_str(&x->f, "a_func"), f_b = rfx_str(&x->f, "b_func");
	uint32_t g_b = rfx_str(&x->g, "b_func"), g_a = rfx_str(&x->g, "a_func");

	assert_int_not_equal(f_a, g_a);
	assert_int_equal(dp_attr_key_in(x->g.attrs, x->f.attrs, &fn, f_a), g_a);
	assert_int_equal(dp_attr_key_in(x->g.attrs, x->f.attrs, &fn, f_b), g_b);
	assert_int_equal(dp_attr_key_in(x->f.attrs, x->g.attrs, &fn, g_a), f_a);
	/* a name only the source has is added to the destination */
	uint32_t f_c = rfx_str(&x->f, "c_only_in_f");
	uint64_t g_c = dp_attr_key_in(x->g.attrs, x->f.attrs, &fn, f_c);
	assert_string_equal(dp_attr_string(x->g.attrs, &fn, g_c), "c_only_in_f");
	assert_int_equal(rfx_str(&x->g, "c_only_in_f"), g_c);
	/* numbers, events and verdicts are not string ids */
	assert_int_equal(dp_attr_key_in(x->g.attrs, x->f.attrs, &cpu, 12345), 12345);
	assert_int_equal(dp_attr_key_in(x->g.attrs, x->f.attrs, &ev, 1), 1);
	assert_int_equal(dp_attr_key_in(x->g.attrs, x->f.attrs, &verdict, DP_V_VERIFIED),
			 DP_V_VERIFIED);
}

TU_MAIN_PLAIN_THEN_EACH(setup, teardown,
			(test_every_name, test_parse, test_parse_long_name, test_numeric),
			test_numeric_keys, test_name_keys, test_compare, test_key_in)
