/* dataprof report on recorded fixtures whose answer is known: a 70/30
 * split of stall time between two struct members, filter-then-regroup
 * against filtering the CSV by hand, the JSON and CSV against their
 * schema, the SQLite export queried, and bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record_util.h"
#include "tu_feature.h"
#include "util.h"
#include "tu_group.h"

static char *split_profile;

/* Records the split fixture once for every test here. */
static const char *profile(void)
{
	if (!split_profile)
		split_profile =
		    rec_fixture("split_O2", "1000", "--heap -e cpu-clock -F 4000", "split.dprof");
	return split_profile;
}

typedef struct csv_row {
	char f[8][160];
	int n;
} csv_row;

/* A CSV line without quoted commas (enough for these tests' keys). */
static int csv_split(const char *line, csv_row *r)
{
	const char *p = line;

	r->n = 0;
	while (r->n < 8) {
		size_t k = 0;
		bool q = *p == '"';

		if (q)
			p++;
		while (*p && *p != '\n' && (q ? *p != '"' : *p != ',') && k + 1 < sizeof(r->f[0]))
			r->f[r->n][k++] = *p++;
		r->f[r->n][k] = 0;
		if (q && *p == '"')
			p++;
		r->n++;
		if (*p != ',')
			break;
		p++;
	}
	return r->n;
}

static char *report(const char *args)
{
	tu_result res;
	char *out;

	if (tu_sh(&res, "'%s' report '%s' %s", DATAPROF_BIN, profile(), args) != 0)
		fail_msg("report %s: %s", args, res.err);
	out = res.out;
	free(res.err);
	return out;
}

static void test_member_split(void **state)
{
	char *out = report("--by member --where 'member~\"struct rec.*\"' --csv");
	double hot = 0, warm = 0;
	char *save = NULL;

	(void)state;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		csv_row r;

		if (csv_split(l, &r) < 6 || strcmp(r.f[0], "1"))
			continue;
		if (!strcmp(r.f[1], "struct rec.hot"))
			hot = atof(r.f[5]);
		else if (!strcmp(r.f[1], "struct rec.warm"))
			warm = atof(r.f[5]);
	}
	printf("stall time split by member: struct rec.hot %.1f%%, struct rec.warm %.1f%% "
	       "(expected 70/30)\n",
	       hot, warm);
	assert_true(hot > 64 && hot < 76);
	assert_true(warm > 24 && warm < 36);
	free(out);
}

/* A member's samples: summed by hand, from --where, from --then */
enum { BY_HAND, FILTERED, NESTED };
typedef struct member_sums {
	char member[160];
	long n[3];
} member_sums;

/* Where csv (a report's CSV, cut up by strtok_r) has a row of depth level
 * whose column col names one of m's members: the samples in the next
 * column, into that member's n[which]. */
static void read_member_samples(char *csv, const char *level, int col, member_sums *m, int nm,
				int which)
{
	char *save = NULL;

	for (char *l = strtok_r(csv, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		csv_row r;
		if (csv_split(l, &r) < col + 2 || strcmp(r.f[0], level))
			continue;
		for (int k = 0; k < nm; k++)
			if (!strcmp(m[k].member, r.f[col]))
				m[k].n[which] = atol(r.f[col + 1]);
	}
}

/* Summing the flat CSV by hand gives what --where then --by gives. */
static void test_filter_then_regroup(void **state)
{
	char *flat = report("--by object,member --csv --metric samples");
	char *kept = report("--by member --where 'object!=\"[unresolvable]\" and kind=heap' --csv "
			    "--metric samples");
	char *nested = report("--by kind --where 'kind=heap' --then member --csv --metric samples");
	member_sums m[64];
	int nm = 0;
	char *save = NULL;

	(void)state;
	memset(m, 0, sizeof(m));
	/* objects of kind heap: from a report by object,kind */
	char *kinds = report("--by object,kind --csv");
	char heap_objs[16][160];
	int nh = 0;
	for (char *l = strtok_r(kinds, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		csv_row r;
		if (csv_split(l, &r) >= 3 && !strcmp(r.f[2], "heap") && nh < 16)
			snprintf(heap_objs[nh++], sizeof(heap_objs[0]), "%s", r.f[1]);
	}
	assert_true(nh >= 1);
	for (char *l = strtok_r(flat, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		csv_row r;
		bool heap = false;

		if (csv_split(l, &r) < 4 || strcmp(r.f[0], "1"))
			continue;
		for (int i = 0; i < nh; i++)
			heap |= !strcmp(r.f[1], heap_objs[i]);
		if (!heap)
			continue;
		int k;
		for (k = 0; k < nm && strcmp(m[k].member, r.f[2]); k++)
			;
		if (k == nm && nm < 64)
			snprintf(m[nm++].member, sizeof(m[0].member), "%s", r.f[2]);
		m[k].n[BY_HAND] += atol(r.f[3]);
	}
	read_member_samples(kept, "1", 1, m, nm, FILTERED);
	read_member_samples(nested, "2", 2, m, nm, NESTED);
	assert_true(nm >= 2);
	for (int k = 0; k < nm; k++) {
		printf("%-24s by hand %6ld  --where %6ld  --then %6ld\n", m[k].member,
		       m[k].n[BY_HAND], m[k].n[FILTERED], m[k].n[NESTED]);
		assert_int_equal(m[k].n[BY_HAND], m[k].n[FILTERED]);
		assert_int_equal(m[k].n[BY_HAND], m[k].n[NESTED]);
	}
	free(flat);
	free(kept);
	free(nested);
	free(kinds);
}

static void test_formats_against_schema(void **state)
{
	tu_result res;

	(void)state;
	tu_sh(&res,
	      "/usr/bin/python3 '%s/tests/schema/check_report_formats.py' '%s' "
	      "'%s/docs/schema/report.schema.json' '%s'",
	      SOURCE_DIR, DATAPROF_BIN, SOURCE_DIR, profile());
	printf("%s%s", res.out, res.err);
	assert_int_equal(res.status, 0);
	tu_result_free(&res);
}

/* Lost samples where the kernel says: a one-page ring and a fault on every
 * page of a 20,000-page walk, dataprof and so the walker pinned to CPU 0
 * from the start (pinning the walker alone with taskset left taskset's own
 * start on another CPU, whose ring overflowed too on a loaded machine: CI
 * of a fresh clone): what is lost is lost there, on page-faults, in the
 * text, the JSON (adding up, the same with --jobs 2) and the viewer's data. A machine fast enough
 * to keep up loses nothing: then only that is checked (the per-event split is test_perf_data's, on
 * perf.data files perf itself counted). */
static void test_lost_by_cpu(void **state)
{
	char *prof = tu_path("lost.dprof"), *fx = tu_fixture("pagetouch_O2"), *cmd;
	tu_result res, j2;
	unsigned long lost = 0, by = 0, n;
	int cpu;
	char *at;

	(void)state;
	cmd = dp_asprintf("'%s' 20000", fx);
	tu_check_events("-e page-faults");
	if (tu_sh(&res, "taskset -c 0 '%s' record -q -m 1 -e page-faults -c 1 -o '%s' -- %s",
		  DATAPROF_BIN, prof, cmd) != 0)
		fail_msg("record: %s", res.err);
	tu_result_free(&res);
	assert_int_equal(
	    tu_sh(&res, "'%s' report --json -m samples -j 1 -i '%s'", DATAPROF_BIN, prof), 0);
	assert_non_null(at = strstr(res.out, "\"lost\":"));
	lost = strtoul(at + 7, NULL, 10);
	for (at = strstr(res.out, "\"lost_by\":["); at && (at = strstr(at, "\"cpu\":"));) {
		assert_int_equal(sscanf(at, "\"cpu\":%d,\"count\":%lu", &cpu, &n), 2);
		assert_int_equal(cpu, 0);
		by += n;
		at++;
	}
	printf("lost %lu samples, %lu of them on CPU 0\n", lost, by);
	assert_int_equal(by, lost);
	if (lost) {
		assert_non_null(
		    strstr(strstr(res.out, "\"lost_by\":"), "{\"event\":\"page-faults\""));
		assert_int_equal(
		    tu_sh(&j2, "'%s' report --json -m samples -j 2 -i '%s'", DATAPROF_BIN, prof),
		    0);
		assert_string_equal(strstr(j2.out, "\"lost_by\":"),
				    strstr(res.out, "\"lost_by\":"));
		tu_result_free(&j2);
		assert_int_equal(tu_sh(&j2, "'%s' report -i '%s'", DATAPROF_BIN, prof), 0);
		assert_non_null(strstr(j2.out, "#   lost by event and CPU: page-faults CPU 0 "));
		tu_result_free(&j2);
	} else {
		printf("this machine kept up with a one-page ring: nothing lost to place\n");
	}
	tu_result_free(&res);
	free(cmd);
	free(fx);
	free(prof);
}

static long query_long(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long v = -1;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void test_sqlite_export(void **state)
{
	char *db_path = tu_path("report.sqlite");
	char *args = dp_asprintf("--by member --sqlite '%s' --csv --metric samples", db_path);
	char *out = report(args);
	sqlite3 *db;
	long hot_csv = -1;
	char *save = NULL;

	(void)state;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		csv_row r;
		if (csv_split(l, &r) >= 3 && !strcmp(r.f[1], "struct rec.hot"))
			hot_csv = atol(r.f[2]);
	}
	assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	long samples = query_long(db, "SELECT count(*) FROM samples");
	long hot = query_long(db, "SELECT count(*) FROM samples WHERE member = 'struct rec.hot'");
	long rows_hot = query_long(db, "SELECT samples FROM report WHERE depth = 1 AND "
				       "key = 'struct rec.hot'");
	long total = query_long(db, "SELECT sum(samples) FROM report WHERE depth = 1");
	long events = query_long(db, "SELECT count(*) FROM events WHERE name = 'cpu-clock'");
	printf("sqlite: %ld samples, %ld on struct rec.hot (report table %ld, CSV %ld)\n", samples,
	       hot, rows_hot, hot_csv);
	assert_true(samples > 1000);
	assert_int_equal(hot, hot_csv);
	assert_int_equal(rows_hot, hot_csv);
	assert_int_equal(total, samples);
	assert_int_equal(events, 1);
	sqlite3_close(db);
	free(out);
	free(args);
	free(db_path);
}

static void expect_error(const char *args, const char *want)
{
	rec_expect_error(REC_ERR_USAGE, want, "report '%s' %s", profile(), args);
}

static void test_bad_input(void **state)
{
	(void)state;
	expect_error("--by objekt", "unknown attribute 'objekt'; the attributes are: event,");
	expect_error("--by object --then memmber", "unknown attribute 'memmber'");
	expect_error("--where 'object='", "a value is missing at character 8");
	expect_error("--where 'object=x and'", "an attribute name is expected at character 13");
	expect_error("--where '(object=x'", "')' is missing at character 10");
	expect_error("--where 'cpu~1'", "a number cannot be matched with ~ at character 5");
	expect_error("--where 'frob=1'", "unknown attribute 'frob'");
	expect_error("--where 'object=x member=y'",
		     "unexpected text (join predicates with and/or) at character 10");
	expect_error("--where 'time=1x..2s'", "'1x': the unit 'x' is not ns, us, ms, s, min or h");
	expect_error("--by time:fast", "the bucket width 'fast' is not a duration");
	expect_error("--by member:1s", "only time takes a bucket width");
	expect_error("--time 3s", "--time '3s' is not a range: write START..END");
	/* one syntax for every time: a bare number is refused the same way */
	expect_error("--by time:100", "'time:100': the bucket width '100' has no unit");
	expect_error("--where 'time=100..'", "--where 'time=100..': '100' has no unit");
	expect_error("--where 'time>=5'", "--where 'time>=5': '5' has no unit");
	expect_error("--time 100..", "--time '100' has no unit");
	expect_error("--time 2s..1s", "--time '2s..1s' ends before it starts");
	expect_error("--time 1s..+1e3ms", "the unit 'e3ms' is not");
	expect_error("--where 'time<inf'", "'inf' is not a duration");
	expect_error("--verdict maybe", "--verdict: 'maybe' is not one of");
	expect_error("--metric speed", "--metric 'speed'");
	expect_error("--then member", "--then regroups the groups of --by");
}

static void test_truncated_profile(void **state)
{
	char *cut = tu_path("cut.dprof");
	struct stat sb;
	tu_result res;

	(void)state;
	stat(profile(), &sb);
	tu_sh(&res, "head -c %lld '%s' > '%s'", (long long)sb.st_size * 2 / 3 + 5, profile(), cut);
	tu_result_free(&res);
	assert_int_equal(tu_sh(&res, "'%s' report '%s' --by function", DATAPROF_BIN, cut), 0);
	assert_non_null(strstr(res.err, "ends inside a record at offset"));
	assert_non_null(strstr(res.out, "walk"));
	tu_result_free(&res);
	free(cut);
}

static void test_default_view(void **state)
{
	char *out = report("");

	(void)state;
	tu_assert_contains(out, "by object, then member, then line", "struct rec.hot",
			   "# verdicts:", "heap@split.c:", NULL);
	free(out);
}

/* Marks and counters on the report's time axis: the phases fixture marks
 * its phases; samples fall in their regions, --between keeps one phase,
 * counter rates show next to time buckets. */
static char *phases_profile;

static const char *phases(void)
{
	if (!phases_profile)
		phases_profile =
		    rec_fixture("phases_O2", "",
				"-e cpu-clock -F 2000 --markers --counters default --interval 20ms",
				"phases.dprof");
	return phases_profile;
}

static long csv_value(const char *out, int depth, const char *key, int col)
{
	char *copy = dp_strdup(out), *save = NULL;
	long v = -1;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		csv_row r;
		if (csv_split(l, &r) > col && atoi(r.f[0]) == depth && !strcmp(r.f[depth], key))
			v = atol(r.f[col]);
	}
	free(copy);
	return v;
}

static void test_marker_regions(void **state)
{
	tu_result res;

	(void)state;
	assert_int_equal(tu_sh(&res,
			       "'%s' report '%s' --by region --then function --csv "
			       "--metric samples",
			       DATAPROF_BIN, phases()),
			 0);
	long region = csv_value(res.out, 1, "busy begin..busy end", 3);
	long busy = csv_value(res.out, 2, "busy", 3);
	printf("region busy begin..busy end: %ld samples, %ld of them in busy()\n", region, busy);
	assert_true(region > 200);
	assert_true(busy * 100 >= region * 95);
	tu_result_free(&res);

	assert_int_equal(tu_sh(&res,
			       "'%s' report '%s' --between 'busy begin' 'busy end' "
			       "--by function --csv --metric samples",
			       DATAPROF_BIN, phases()),
			 0);
	long kept = csv_value(res.out, 1, "busy", 2);
	printf("--between busy begin, busy end: %ld samples in busy() (region: %ld)\n", kept, busy);
	assert_int_equal(kept, busy);
	tu_result_free(&res);
}

static void test_counters_per_bucket(void **state)
{
	tu_result res;

	(void)state;
	assert_int_equal(
	    tu_sh(&res,
		  "'%s' report '%s' --by time:100ms --counters "
		  "'proc/stat/cpu_user' --json > '%s/counters.json' && "
		  "/usr/bin/python3 -c \"import json,sys,jsonschema; "
		  "d=json.load(open('%s/counters.json')); "
		  "jsonschema.validate(d, json.load(open('%s/docs/schema/report.schema.json'))); "
		  "r=[x['counters']['proc/stat/cpu_user'] for x in d['rows']]; "
		  "print(len(r), sum(v is not None for v in r))\"",
		  DATAPROF_BIN, phases(), tu_tmpdir(), tu_tmpdir(), SOURCE_DIR),
	    0);
	int buckets = 0, with_rate = 0;
	sscanf(res.out, "%d %d", &buckets, &with_rate);
	printf("time buckets: %d, with a cpu_user rate: %d\n", buckets, with_rate);
	/* the phases take about a second: every 100 ms bucket after the first has a rate */
	assert_true(buckets >= 9);
	assert_true(with_rate >= buckets - 2);
	tu_result_free(&res);
}

/* A hostile file's counter readings span 1.1M buckets of 1 ms: report fills
 * at most 100,000 of them without samples, says so, and ends. */
static void test_counters_span_bound(void **state)
{
	char *path = tu_data_path("hostile/counters-span.profile");
	tu_result res;
	size_t lines = 0;

	(void)state;
	if (tu_sh(&res, "'%s' report -i '%s' --by time:1ms --counters '*' --csv", DATAPROF_BIN,
		  path) != 0)
		fail_msg("report of %s: %s", path, res.err);
	for (const char *p = res.out; (p = strchr(p, '\n')); p++)
		lines++;
	printf("rows: %zu; %s", lines, res.err);
	assert_non_null(strstr(res.err, "readings span 1099512 buckets of 1000000 ns"));
	assert_non_null(strstr(res.err, "use a wider --by time:WIDTH"));
	assert_true(lines >= 100000 && lines <= 100010); /* the header, then the buckets */
	tu_result_free(&res);
	free(path);
}

static void test_marks_and_counters_errors(void **state)
{
	(void)state;
	expect_error("--by function --counters proc/stat/cpu_user",
		     "--counters shows rates per time bucket");
	expect_error("--between a b", "--between: the profile has no code marks");
	tu_result res;
	tu_sh(&res, "'%s' report '%s' --between 'busy begin' nosuchmark", DATAPROF_BIN, phases());
	assert_int_not_equal(res.status, 0);
	assert_non_null(strstr(res.err, "no marker 'nosuchmark'"));
	tu_result_free(&res);
	tu_sh(&res, "'%s' report '%s' --by time:100ms --counters 'nope/*'", DATAPROF_BIN, phases());
	assert_non_null(strstr(res.err, "no sensor of the profile matches 'nope/*'"));
	tu_result_free(&res);
}

static int teardown(void **state)
{
	(void)state;
	free(split_profile);
	split_profile = NULL;
	free(phases_profile);
	phases_profile = NULL;
	tu_cleanup();
	return 0;
}

TU_MAIN_AFTER(tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_COUNT), NULL, teardown,
	      test_member_split, test_filter_then_regroup, test_formats_against_schema,
	      test_sqlite_export, test_bad_input, test_truncated_profile, test_default_view,
	      test_marker_regions, test_counters_per_bucket, test_counters_span_bound,
	      test_marks_and_counters_errors, test_lost_by_cpu)
