/* dataprof diff on a program built twice with two layouts of one struct
 * (fixture layout, variant b): the member-level change is found and
 * nothing else changes beyond noise (but .a, which shares .b's visits); --fail-if exits 3 exactly
 * when its threshold is crossed; runs of one build are seldom flagged (the false-positive rate is
 * printed); lines that moved are matched; the JSON follows its schema; bad input gets one line and
 * a non-zero status.
 *
 * cpu-clock is the event: the layout change shows as time no longer spent
 * waiting for .b's cache line, and sampled time is as noisy as real CI
 * runs are. Runs of the two builds are recorded in turn, so that the
 * machine's load falls on both alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_util.h"
#include "tu_feature.h"
#include "util.h"
#include "tu_group.h"

#define NA 8 /* runs of layout A */
#define NB 3 /* runs of layout B */

static char *prof_a[NA], *prof_b[NB];

static void record(char **out, const char *fixture, int i, const char *args)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%d.dprof", strchr(fixture, '/') ? "b" : "a", i);
	*out = rec_fixture(fixture, args, "--heap -e cpu-clock -F 4000", name);
}

static void record_all(void)
{
	if (prof_a[0])
		return;
	for (int i = 0; i < NA; i++) {
		record(&prof_a[i], "layout_O2", i, "");
		if (i < NB)
			record(&prof_b[i], "b/layout_O2", i, "");
	}
}

typedef struct row {
	bool sig;
	char dir[8];
	long shift;
	double change, base, new_;
	char key[256];
} row;

typedef struct diff_out {
	row rows[256];
	int n;
	int status;
	bool total_sig;
	char *text; /* stderr */
} diff_out;

/* Runs dataprof diff ARGS --json, checks the JSON against its schema and
 * reads its rows. */
static void diff(diff_out *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diff(diff_out *d, const char *fmt, ...)
{
	char *json = tu_path("diff.json"), *args;
	tu_result res;

	REC_VFORMAT(args, fmt);
	memset(d, 0, sizeof(*d));
	tu_sh(&res,
	      "'%s' diff %s --json > '%s'; rc=$?; /usr/bin/python3 '%s/tests/schema/diff_rows.py' "
	      "'%s/docs/schema/diff.schema.json' < '%s' || exit 99; exit $rc",
	      DATAPROF_BIN, args, json, SOURCE_DIR, SOURCE_DIR, json);
	if (res.status == 99)
		fail_msg("diff %s: JSON not valid: %s", args, res.err);
	d->status = res.status;
	for (char *save = NULL, *l = strtok_r(res.out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		row *r = &d->rows[d->n];
		char change[32];
		int sig, k = 0;

		if (!strncmp(l, "TOTAL sig=", 10))
			d->total_sig = l[10] == '1';
		if (strncmp(l, "ROW ", 4) || d->n == 256)
			continue;
		if (sscanf(l, "ROW sig=%d dir=%7s shift=%ld change=%31s base=%lf new=%lf key=%n",
			   &sig, r->dir, &r->shift, change, &r->base, &r->new_, &k) < 6 ||
		    !k)
			fail_msg("unexpected line: %s", l);
		r->sig = sig;
		r->change = strcmp(change, "none") ? atof(change) : NAN;
		snprintf(r->key, sizeof(r->key), "%s", l + k);
		d->n++;
	}
	d->text = res.err;
	res.err = NULL;
	tu_result_free(&res);
	free(args);
	free(json);
}

static const row *find(const diff_out *d, const char *key)
{
	for (int i = 0; i < d->n; i++)
		if (!strcmp(d->rows[i].key, key))
			return &d->rows[i];
	return NULL;
}

static void show(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void show(const char *fmt, ...)
{
	char *args;
	tu_result res;

	REC_VFORMAT(args, fmt);
	tu_sh(&res, "'%s' diff %s", DATAPROF_BIN, args);
	printf("$ dataprof diff %s\n%s%s", args, res.out, res.err);
	tu_result_free(&res);
	free(args);
}

/* "a.dprof b.dprof -- c.dprof": runs [from, from+n) of A against B */
static char *sides(char **base, int nb, char **news, int nn)
{
	dp_buf b = {0};

	for (int i = 0; i < nb; i++)
		dp_buf_printf(&b, "'%s' ", base[i]);
	dp_buf_puts(&b, "--");
	for (int i = 0; i < nn; i++)
		dp_buf_printf(&b, " '%s'", news[i]);
	return b.p;
}

static void test_layout_change(void **state)
{
	char *s;
	diff_out d;
	const row *b, *other;

	(void)state;
	record_all();
	s = sides(prof_a, NB, prof_b, NB);
	/* the samples with a data address: the others ([no causing
	 * instruction]: the timer stopped walk() between its loads) follow the
	 * loop's timing, which the layout changes too */
	/* at 99.9%: cpu-clock runs on a loaded machine vary more than a few
	 * runs a side can measure (test_same_build: a quarter of the diffs of
	 * two runs a side flag some key at 95%), and this asserts that nothing
	 * but .b is flagged; .b's drop (-98%) is far beyond any level */
	show("--per run --by member --verdict exact,verified --confidence 0.999 %s", s);
	diff(&d, "--per run --by member --verdict exact,verified --confidence 0.999 %s", s);
	assert_int_equal(d.status, 0);
	b = find(&d, "struct item.b");
	assert_non_null(b);
	printf("struct item.b: %+.1f%% (%s); %d keys\n", b->change,
	       b->sig ? "beyond noise" : "noise", d.n);
	assert_true(b->sig);
	assert_string_equal(b->dir, "down");
	assert_true(b->change < -50);
	/* .a shares .b's visits: in B the one miss is all .a's, in A the time
	 * .b's miss took longer went to .b (see the fixture); any change of
	 * .a is the stall moving, not noise, and is not asserted */
	other = find(&d, "struct item.a");
	assert_non_null(other);
	printf("struct item.a: %+.1f%% (%s)\n", other->change,
	       other->sig ? "beyond noise" : "noise");
	for (int i = 0; i < d.n; i++) {
		const row *o = &d.rows[i];

		if (o != b && o != other && o->sig)
			fail_msg("%s changed %+.1f%%, beyond noise: only struct item.b should",
				 o->key, o->change);
	}
	/* the arithmetic of compute() touches no struct: unchanged too */
	free(d.text);
	diff(&d, "--per run --by function --confidence 0.999 %s", s);
	other = find(&d, "compute");
	assert_non_null(other);
	printf("compute: %+.1f%% (%s)\n", other->change, other->sig ? "beyond noise" : "noise");
	assert_false(other->sig);
	free(d.text);
	free(s);
}

static void expect_status(int want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void expect_status(int want, const char *fmt, ...)
{
	char *args, *s = sides(prof_a, NB, prof_b, NB);
	tu_result res;

	REC_VFORMAT(args, fmt);
	tu_sh(&res, "'%s' diff --per run --by member %s %s > /dev/null", DATAPROF_BIN, s, args);
	printf("exit %d (want %d): %s\n", res.status, want, args);
	if (res.status != want)
		fail_msg("%s: exit %d, want %d: %s", args, res.status, want, res.err);
	tu_result_free(&res);
	free(args);
	free(s);
}

/* diff SIDES's exit status with --fail-if 'member=struct item.b: samples >
 * RATIO'. */
static int fail_if_b_above(const char *sides, const char *ratio)
{
	tu_result res;

	tu_sh(&res,
	      "'%s' diff --per run --by member %s --fail-if 'member=struct item.b: "
	      "samples > %s' >/dev/null",
	      DATAPROF_BIN, sides, ratio);
	int status = res.status;
	tu_result_free(&res);
	return status;
}

static void test_fail_if(void **state)
{
	char *s;
	diff_out d;
	const row *b;
	double c;

	(void)state;
	record_all();
	s = sides(prof_a, NB, prof_b, NB);
	diff(&d, "--per run --by member %s", s);
	b = find(&d, "struct item.b");
	assert_non_null(b);
	c = b->change;
	free(d.text);
	/* the change measured is c: a threshold a point on either side of it */
	expect_status(3, "--fail-if 'member=struct item.b: samples < %+.1f%%'", c + 1);
	expect_status(0, "--fail-if 'member=struct item.b: samples < %+.1f%%'", c - 1);
	expect_status(3, "--fail-if 'type.member=\"struct item.b\": samples <= %+.1f%%'", c + 1);
	expect_status(0, "--fail-if 'member~\"*.b\": samples > +10%%'");
	/* a regression the other way round: the new build is A */
	free(s);
	s = sides(prof_b, NB, prof_a, NB);
	diff(&d, "--per run --by member %s", s);
	b = find(&d, "struct item.b");
	assert_non_null(b);
	printf("struct item.b from layout B to A: %.0f -> %.0f\n", b->base, b->new_);
	free(d.text);
	if (b->base <= 0) {
		/* layout B's runs had no sample on .b at all (its load hits the
		 * line .a's just missed): from nothing, any ratio is exceeded */
		assert_int_equal(fail_if_b_above(s, "1000x"), 3);
	} else {
		char ratio[32];

		c = b->new_ / b->base;
		snprintf(ratio, sizeof(ratio), "%.2fx", c * 0.9);
		assert_int_equal(fail_if_b_above(s, ratio), 3);
		snprintf(ratio, sizeof(ratio), "%.2fx", c * 1.1);
		assert_int_equal(fail_if_b_above(s, ratio), 0);
	}
	free(s);
	/* crossing without being beyond noise does not fail */
	expect_status(0, "--fail-if 'member=double: samples > -90%%'");
	expect_status(0, "--fail-if 'total: samples > +1000%%'");
	expect_status(3, "--fail-if 'member=x: samples > 0%%' --fail-if 'member=struct item.b: "
			 "samples < -10%%'");
	/* a typo selects nothing: a warning, no failure */
	expect_status(0, "--fail-if 'member=struct item.c: samples < -1%%'");
	/* errors are not failures */
	expect_status(1, "--fail-if 'member=struct item.b: speed < -1%%'");
	expect_status(1, "--fail-if 'function=walk: samples > 5%%'");
}

static int count_flags(const diff_out *d)
{
	int n = 0;

	for (int i = 0; i < d->n; i++)
		n += d->rows[i].sig;
	return n;
}

/* What the diffs of runs of one build flagged. */
typedef struct tally {
	int flagged, diffs, keys, flags; /* diffs flagging any key, diffs, keys, keys flagged */
} tally;

/* Diffs SIDES, runs of one build, by attribute `by`: none of it is an
 * error; what it flags goes to t, and is printed (what: how many runs a
 * side). */
static void tally_same(tally *t, const char *what, const char *by, const char *sides)
{
	diff_out d;

	diff(&d, "--per run --by %s %s", by, sides);
	assert_int_equal(d.status, 0);
	t->diffs++, t->keys += d.n;
	t->flags += count_flags(&d);
	t->flagged += count_flags(&d) > 0;
	for (int k = 0; k < d.n; k++)
		if (d.rows[k].sig)
			printf("  %s a side, by %s: %s %+.1f%% flagged\n", what, by, d.rows[k].key,
			       d.rows[k].change);
	free(d.text);
}

/* Runs of one build: how often is anything flagged? Pairs of single runs
 * (Poisson alone) and pairs of two runs a side (the noise between runs
 * measured). */
static void test_same_build(void **state)
{
	static const char *const bys[] = {"member", "function"};
	tally t[2][2] = {{{0}}}; /* [one run a side, two][by] */

	(void)state;
	record_all();
	for (int by = 0; by < 2; by++) {
		for (int i = 0; i + 1 < NA; i += 2) {
			char *s = sides(&prof_a[i], 1, &prof_a[i + 1], 1);

			tally_same(&t[0][by], "one run", bys[by], s);
			free(s);
		}
		for (int i = 0; i + 3 < NA; i += 4) {
			/* the runs of each side recorded in turn with the other's */
			char *b[2] = {prof_a[i], prof_a[i + 2]},
			     *n[2] = {prof_a[i + 1], prof_a[i + 3]};
			char *s = sides(b, 2, n, 2);

			for (int half = 0; half < 2; half++) {
				/* and the other way of pairing them */
				if (half) {
					free(s);
					char *b2[2] = {prof_a[i], prof_a[i + 3]};
					char *n2[2] = {prof_a[i + 1], prof_a[i + 2]};
					s = sides(b2, 2, n2, 2);
				}
				tally_same(&t[1][by], "two runs", bys[by], s);
			}
			free(s);
		}
	}
	for (int m = 0; m < 2; m++)
		for (int by = 0; by < 2; by++)
			printf(
			    "ACCURACY same build, %s a side, by %s: %d of %d diffs flag something "
			    "(%.0f%%, nominal at most 5%%), %d of %d keys (%.1f%%)\n",
			    m ? "two runs" : "one run", bys[by], t[m][by].flagged, t[m][by].diffs,
			    100.0 * t[m][by].flagged / t[m][by].diffs, t[m][by].flags,
			    t[m][by].keys, 100.0 * t[m][by].flags / t[m][by].keys);
	/* With the noise measured, keys are seldom flagged: 1-2% of them in
	 * this machine's runs (but a quarter of the diffs flag one: cpu-clock
	 * runs on a loaded machine vary more than two runs a side can measure,
	 * so "at most 2 of 8 diffs" failed now and then). Asserted on keys,
	 * with room: at most 10%. A diff that ignored the noise between runs
	 * flags 6-8% of the keys of one run a side (Poisson alone) and more
	 * of these; one that also dropped the correction for many keys, more
	 * still. */
	{
		int f = t[1][0].flags + t[1][1].flags, k = t[1][0].keys + t[1][1].keys;

		printf("two runs a side: %d of %d keys flagged (%.1f%%)\n", f, k,
		       k ? 100.0 * f / k : 0.0);
		assert_true(k > 0);
		assert_true(f * 10 <= k);
	}
}

static void test_moved_lines(void **state)
{
	char *s;
	diff_out d;
	int moved = 0, gone = 0;

	(void)state;
	record_all();
	s = sides(prof_a, 1, prof_b, 1);
	show("--per run --by line --metric samples --top 8 %s", s);
	diff(&d, "--per run --by line --metric samples %s", s);
	for (int i = 0; i < d.n; i++) {
		const row *r = &d.rows[i];

		if (!strstr(r->key, "layout.c:"))
			continue;
		moved += r->shift == 3;
		/* every line with samples enough to tell, found in both builds,
		 * moved by 3; one the new build has no sample on is gone (the
		 * layout moves stalls between lines: .b's load, layout.c:71,
		 * had 97 samples in A and none in B), not paired with another */
		if (r->base >= 20 && r->new_ > 0 && r->shift != 3)
			fail_msg("%s (%.0f samples): shift %ld, not 3", r->key, r->base, r->shift);
		gone += r->base >= 20 && r->new_ == 0;
	}
	printf("%d lines of layout.c matched 3 lines further down, %d heavy ones gone\n", moved,
	       gone);
	assert_true(moved >= 3);
	free(d.text);
	/* exact keys only: the same lines are new and gone */
	diff(&d, "--per run --by line --line-tolerance 0 %s", s);
	for (int i = 0; i < d.n; i++)
		assert_int_equal(d.rows[i].shift, 0);
	assert_non_null(strchr(d.rows[0].key, ':'));
	free(d.text);
	/* heap blocks are named by the line of their allocation */
	diff(&d, "--per run --by object %s", s);
	for (int i = 0; i < d.n; i++)
		if (!strncmp(d.rows[i].key, "heap@layout.c:", 14)) {
			printf("heap object %s: shift %ld\n", d.rows[i].key, d.rows[i].shift);
			assert_int_equal(d.rows[i].shift, 3);
			moved = -1;
		}
	assert_int_equal(moved, -1);
	free(d.text);
	free(s);
}

static void test_formats(void **state)
{
	char *s;
	tu_result res;

	(void)state;
	record_all();
	s = sides(prof_a, 2, prof_b, 2);
	assert_int_equal(tu_sh(&res, "'%s' diff --per run %s --markdown", DATAPROF_BIN, s), 0);
	printf("%s", res.out);
	tu_assert_contains(res.out, "| member | base | new | change | 95% interval |",
			   "|---|---|---:|---:|---:|---|", "| ▼ | `struct item.b` |", NULL);
	tu_result_free(&res);
	assert_int_equal(tu_sh(&res, "'%s' diff %s", DATAPROF_BIN, s), 0);
	tu_assert_contains(res.out, "# dataprof diff of layout_O2, event cpu-clock",
			   "per second of recorded time", "run-to-run noise measured", NULL);
	tu_result_free(&res);
	free(s);
}

/* --per interval --between A B: the unit of work is an interval of the
 * program's own code marks; with one busy phase a run, busy's period per
 * interval is what report gives for that phase. */
static void test_per_interval(void **state)
{
	char *p[2];
	tu_result res;
	diff_out d;
	double want;

	(void)state;
	for (int i = 0; i < 2; i++) {
		char name[32];

		snprintf(name, sizeof(name), "phases%d.dprof", i);
		p[i] = rec_fixture("phases_O2", "", "--markers -e cpu-clock", name);
	}
	assert_int_equal(tu_sh(&res,
			       "'%s' report '%s' --between 'busy begin' 'busy end' --by function "
			       "--csv | awk -F, '$2 == \"busy\" { print $4 }'",
			       DATAPROF_BIN, p[0]),
			 0);
	want = atof(res.out);
	tu_result_free(&res);
	assert_true(want > 0);
	diff(&d, "--per interval --between 'busy begin' 'busy end' --by function '%s' '%s'", p[0],
	     p[1]);
	assert_int_equal(d.status, 0);
	const row *busy = find(&d, "busy");
	assert_non_null(busy);
	show("per interval: busy base %.0f, report of the phase %.0f", busy->base, want);
	assert_true(fabs(busy->base - want) <= 1e-6 * want);
	free(d.text);
	/* the two markers are needed, and must exist */
	assert_int_equal(
	    tu_sh(&res, "'%s' diff --per interval '%s' '%s'", DATAPROF_BIN, p[0], p[1]), 1);
	assert_non_null(strstr(res.err, "--between A B"));
	tu_result_free(&res);
	assert_int_equal(tu_sh(&res,
			       "'%s' diff --per interval --between 'busy begin' nope '%s' '%s'",
			       DATAPROF_BIN, p[0], p[1]),
			 1);
	assert_non_null(strstr(res.err, "no code marker 'nope'"));
	tu_result_free(&res);
	for (int i = 0; i < 2; i++)
		free(p[i]);
}

static void test_bad_input(void **state)
{
	/* options diff refuses with A and B, and the one line each gets */
	static const char *const bad[][2] = {
	    {"--by objekt", "unknown attribute 'objekt'; the attributes are:"},
	    {"--by function,addr", "--by addr: addresses move with every build and run"},
	    {"--per ginsn", "counted no instructions"},
	    {"--per interval", "carries no code markers"},
	    {"--per week", "--per 'week': use second, run, ginsn or interval"},
	    {"--confidence 2", "--confidence '2'"},
	    {"--event page-faults", "has no event 'page-faults' (its events: cpu-clock)"},
	};
	char *a = prof_a[0], *b = prof_b[0], *spin, *faults;
	tu_result res;

	(void)state;
	record_all();
	spin = rec_fixture("spin_O2", "100", "-e cpu-clock", "spin.dprof");
	faults = rec_fixture("layout_O2", "1000 1", "-e page-faults", "faults.dprof");

	rec_expect_error(REC_ERR_NOT3, "is a profile of 'spin_O2' but", "diff '%s' '%s'", a, spin);
	assert_int_equal(tu_sh(&res, "'%s' diff --force '%s' '%s'", DATAPROF_BIN, a, spin), 0);
	tu_result_free(&res);
	rec_expect_error(REC_ERR_NOT3, "samples page-faults but", "diff '%s' '%s'", a, faults);
	for (size_t i = 0; i < DP_ARRAY_LEN(bad); i++)
		rec_expect_error(REC_ERR_NOT3, bad[i][1], "diff %s '%s' '%s'", bad[i][0], a, b);
	rec_expect_error(REC_ERR_NOT3, "diff needs BASE and NEW profiles", "diff '%s'", a);
	rec_expect_error(REC_ERR_NOT3, "3 profiles: write BASE... -- NEW...", "diff '%s' '%s' '%s'",
			 a, b, b);
	rec_expect_error(REC_ERR_NOT3, "/nonexistent.dprof", "diff '%s' /nonexistent.dprof", a);
	rec_expect_error(REC_ERR_NOT3,
			 "--fail-if 'struct item.b > 5': write [ATTR=VALUE:] METRIC OP CHANGE",
			 "diff --fail-if 'struct item.b > 5' '%s' '%s'", a, b);
	free(spin);
	free(faults);
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < NA; i++)
		free(prof_a[i]);
	for (int i = 0; i < NB; i++)
		free(prof_b[i]);
	tu_cleanup();
	return 0;
}

TU_MAIN_AFTER(tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT), NULL,
	      teardown, test_layout_change, test_fail_if, test_same_build, test_moved_lines,
	      test_formats, test_bad_input, test_per_interval)
