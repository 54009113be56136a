/* record --switch-output and --max-files, and reading several files as one
 * profile. page-faults on pagetouch give the same samples in every run (one
 * per page, at the fixture's two lines: pages/2 each), so a series and a
 * single file are compared sample for sample, and each file read alone must
 * attribute its own samples (it carries the mappings it needs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dataprof/format.h"
#include "dataprof/profile.h"
#include "record_util.h"
#include "tu_group.h"
#include "tu_feature.h"
#include "util.h"

#define PAGES 20000 /* pagetouch's pages: a fault each, PAGES / 2 per line */

/* The report's CSV by line of a profile spec (files, patterns). */
static char *report_lines(const char *spec)
{
	tu_result res;
	char *out;

	if (tu_sh(&res, "'%s' report --csv -m samples --by line -n 1000 %s", DATAPROF_BIN, spec) !=
	    0)
		fail_msg("report %s: %s", spec, res.err);
	out = res.out;
	res.out = NULL;
	tu_result_free(&res);
	return out;
}

static unsigned long fixture_samples(const char *csv)
{
	return rec_csv_samples(csv, "pagetouch.c:24") + rec_csv_samples(csv, "pagetouch.c:27");
}

/* The series' files in name order: their count, the paths in *g. */
static size_t series_files(const char *name, glob_t *g)
{
	char *pat = dp_asprintf("%s/%s.*", tu_tmpdir(), name);
	int rc = glob(pat, 0, NULL, g);

	free(pat);
	return rc ? 0 : g->gl_pathc;
}

typedef struct file_facts {
	uint64_t samples, finish_samples, index, lost;
	int finishes;
	uint32_t finish_flags;
} file_facts;

static file_facts read_file(const char *path)
{
	dp_error err = {{0}};
	dp_profile *p = dp_profile_open(path, &err);
	file_facts f = {0};
	dp_record r;
	const char *ix;

	if (!p)
		fail_msg("%s", err.msg);
	while (dp_profile_next(p, &r) > 0) {
		if (r.kind == DP_R_SAMPLE)
			f.samples++;
		if (r.kind == DP_R_FINISH) {
			f.finishes++;
			f.finish_samples = r.finish->samples;
			f.finish_flags = r.finish->flags;
		}
	}
	f.lost = dp_profile_status(p)->lost + dp_profile_status(p)->lost_samples;
	ix = dp_profile_meta(p, "series_index");
	assert_non_null(ix);
	assert_true(dp_parse_u64(ix, &f.index));
	assert_null(dp_profile_status(p)->error[0] ? "error" : NULL);
	dp_profile_close(p);
	return f;
}

/* The samples the kernel dropped in the files of a series, or in one file
 * (a ring full while the recorder waited for a CPU: only under heavy
 * load, where the tests' counts then fall short by as many). */
static uint64_t lost_in(const char *name)
{
	glob_t g;
	uint64_t lost = 0;
	size_t n = series_files(name, &g);

	for (size_t i = 0; i < n; i++)
		lost += read_file(g.gl_pathv[i]).lost;
	if (n)
		globfree(&g);
	return lost;
}

/* got of the fixture's want samples: all of them, or what the kernel did
 * not drop of them (lost counts the other samples' too). */
static void assert_all_but_lost(unsigned long got, unsigned long want, uint64_t lost,
				const char *what)
{
	if (lost)
		print_message("%s: %lu of %lu, %" PRIu64 " samples lost\n", what, got, want, lost);
	if (lost ? got > want || got + lost < want : got != want)
		fail_msg("%s: %lu of the fixture's %lu samples (%" PRIu64 " lost)", what, got, want,
			 lost);
}

/* A series by size is the single run's profile cut in complete files:
 * every file alone ends with its FINISH and attributes its samples; read
 * together (a pattern, the shell's expansion, repeated -i) they give the
 * single run's counts. */
static void test_series_by_size(void **state)
{
	char *one = rec_fixture("pagetouch_O2", "20000", "-e page-faults", "one.dprof");
	char *series = rec_fixture("pagetouch_O2", "20000", "-e page-faults --switch-output 64K",
				   "series.dprof");
	char *csv_one = report_lines(one), *csv, *spec;
	unsigned long alone = 0, total = 0, together;
	uint64_t lost = 0, lost_one;
	glob_t g;
	size_t n = series_files("series.dprof", &g);

	(void)state;
	print_message("series of %zu files\n", n);
	assert_true(n >= 5);
	/* -o names no file itself: the series' files carry its name */
	assert_int_equal(access(series, F_OK), -1);
	for (size_t i = 0; i < n; i++) {
		file_facts f = read_file(g.gl_pathv[i]);
		char *c = report_lines(g.gl_pathv[i]);

		assert_int_equal(f.index, i + 1); /* names sort as the series goes */
		assert_int_equal(f.finishes, 1);
		assert_int_equal(f.finish_samples, f.samples);
		assert_int_equal(f.finish_flags, i + 1 < n ? DP_FINISH_SWITCHED : 0);
		total += f.samples;
		lost += f.lost;
		alone += fixture_samples(c);
		free(c);
	}
	/* each file alone knows the fixture's mappings: its samples are
	 * attributed as in the series, those of a file begun while the fixture
	 * was exiting too (under load, 1 run in 4 before sampler/live_procs.c
	 * kept its mappings) */
	print_message("each file alone: %lu of %d on the fixture's lines\n", alone, PAGES);
	spec = dp_asprintf("-i '%s/series.dprof.*'", tu_tmpdir());
	csv = report_lines(spec);
	together = fixture_samples(csv);
	assert_int_equal(alone, together);
	assert_all_but_lost(together, PAGES, lost, "the series");
	if (!lost)
		assert_int_equal(rec_csv_samples(csv, "pagetouch.c:24"), PAGES / 2);
	{
		dp_error err = {{0}};
		dp_profile *p = dp_profile_open(one, &err);

		assert_non_null(p);
		while (dp_profile_next(p, &(dp_record){0}) > 0)
			;
		lost_one = dp_profile_status(p)->lost + dp_profile_status(p)->lost_samples;
		dp_profile_close(p);
		assert_all_but_lost(fixture_samples(csv_one), PAGES, lost_one, "one file");
	}
	{
		/* workers in parallel seek through the series as through a file */
		tu_result r1, r4;

		assert_int_equal(tu_sh(&r1, "'%s' report -j 1 %s", DATAPROF_BIN, spec), 0);
		assert_int_equal(tu_sh(&r4, "'%s' report -j 4 %s", DATAPROF_BIN, spec), 0);
		assert_string_equal(r1.out, r4.out);
		tu_result_free(&r1);
		tu_result_free(&r4);
	}
	/* the loader's own faults vary by a few between runs, not more */
	assert_true(labs((long)(total + lost) - (long)PAGES) < 200);
	free(csv);
	free(spec);

	/* a file named twice: by itself and by the pattern */
	spec = dp_asprintf("'%s' %s/series.dprof.*", g.gl_pathv[n - 1], tu_tmpdir());
	{
		tu_result res;

		assert_int_not_equal(tu_sh(&res, "'%s' report %s", DATAPROF_BIN, spec), 0);
		assert_non_null(strstr(res.err, "the same part of one recording"));
		tu_result_free(&res);
	}
	free(spec);
	spec = dp_asprintf("-i '%s' -i '%s/series.dprof.*'", g.gl_pathv[0], tu_tmpdir());
	{
		tu_result res;

		assert_int_not_equal(tu_sh(&res, "'%s' report %s", DATAPROF_BIN, spec), 0);
		assert_non_null(strstr(res.err, "the same part of one recording"));
		tu_result_free(&res);
	}
	free(spec);
	{
		/* what report --jobs sizes its parts by: the series' bytes, and
		 * none for input read once (a pipe, standard input) */
		uint64_t bytes = 0, sum = 0;
		char *pat = dp_asprintf("%s/series.dprof.*", tu_tmpdir());
		char *two = dp_asprintf("%s%s%s", g.gl_pathv[0], DP_PROFILE_SPEC_SEP, pat);
		struct stat sb;

		for (size_t i = 0; i < n; i++) {
			assert_int_equal(stat(g.gl_pathv[i], &sb), 0);
			sum += (uint64_t)sb.st_size;
		}
		assert_true(dp_profile_spec_bytes(pat, &bytes));
		assert_int_equal(bytes, sum);
		assert_true(dp_profile_spec_bytes(two, &bytes)); /* as opened: named twice */
		assert_true(bytes > sum);
		assert_false(dp_profile_spec_bytes("-", &bytes));
		free(two);
		free(pat);
	}
	spec = dp_asprintf("%s/series.dprof.*", tu_tmpdir()); /* the shell expands it */
	csv = report_lines(spec);
	assert_int_equal(fixture_samples(csv), PAGES);
	free(csv);
	free(spec);
	globfree(&g);
	free(csv_one);
	free(one);
	free(series);
}

/* --max-files 2: the newest two files stay, read as one. */
static void test_max_files(void **state)
{
	tu_result res;
	char *prof = tu_path("kept.dprof"), *fx = tu_fixture("pagetouch_O2"), *csv, *spec;
	glob_t g;
	unsigned long kept;

	(void)state;
	assert_int_equal(tu_sh(&res,
			       "'%s' record -e page-faults --switch-output 64K --max-files 2 -o "
			       "'%s' -- '%s' 20000 >/dev/null",
			       DATAPROF_BIN, prof, fx),
			 0);
	assert_non_null(strstr(res.err, "removed (--max-files)"));
	tu_result_free(&res);
	assert_int_equal(series_files("kept.dprof", &g), 2);
	spec = dp_asprintf("-i '%s.*'", prof);
	csv = report_lines(spec);
	kept = fixture_samples(csv);
	assert_true(kept > 0 && kept < PAGES);
	/* the newest files hold the end of the run: the last pages */
	assert_int_equal(read_file(g.gl_pathv[1]).finish_flags, 0);
	globfree(&g);
	free(csv);
	free(spec);
	free(fx);
	free(prof);
}

/* Records sh -c script (pagetouch's path is $F) with opts into name: the
 * number of files of the series, and the fixture's samples of all of them
 * read as one. */
static size_t record_script(const char *name, const char *opts, const char *script,
			    unsigned long *samples, uint64_t *lost)
{
	char *prof = tu_path(name), *fx = tu_fixture("pagetouch_O2"), *spec;
	char *cmd = dp_asprintf("env F='%s' sh -c '%s'", fx, script), *csv;
	tu_result res;
	glob_t g;
	size_t n;

	assert_int_equal(rec_run(&res, prof, opts, cmd), 0);
	tu_result_free(&res);
	n = series_files(name, &g);
	if (n)
		globfree(&g);
	*lost = lost_in(name);
	spec = dp_asprintf("-i '%s.*'", prof);
	csv = report_lines(spec);
	*samples = fixture_samples(csv);
	free(csv);
	free(spec);
	free(cmd);
	free(fx);
	free(prof);
	return n;
}

/* By time: two runs of pagetouch 2.2 s apart (a sleep: no load makes it
 * shorter) make two files at least at 1s, which hold both runs in full. */
static void test_series_by_time(void **state)
{
	unsigned long samples;
	uint64_t lost;
	size_t n;

	(void)state;
	n = record_script("timed.dprof", "-e page-faults --switch-output 1s",
			  "\"$F\" 4000 >/dev/null; sleep 2.2; \"$F\" 4000 >/dev/null", &samples,
			  &lost);
	print_message("%zu files in 2.2 s and more\n", n);
	assert_true(n >= 2); /* 3 unless the recorder waited 200 ms for a CPU */
	assert_all_but_lost(samples, 2 * 4000, lost, "both runs, every page");
}

/* By signal: SIGUSR2 to the recorder (the command's parent) starts the next
 * file, once per signal. */
static void test_series_by_signal(void **state)
{
	unsigned long samples;
	uint64_t lost;

	(void)state;
	assert_int_equal(record_script("signalled.dprof", "-e page-faults --switch-output signal",
				       "\"$F\" 2000 >/dev/null; kill -USR2 $PPID; sleep 0.5; "
				       "\"$F\" 2000 >/dev/null",
				       &samples, &lost),
			 2);
	assert_all_but_lost(samples, 2 * 2000, lost, "both runs");
}

/* A file of the series cut short: the others are read whole, the cut one
 * up to its last complete record, as it is read alone. */
static void test_truncated_file(void **state)
{
	char *prof =
	    rec_fixture("pagetouch_O2", "20000", "-e page-faults --switch-output 64K", "cut.dprof");
	char *spec = dp_asprintf("-i '%s.*'", prof), *csv;
	glob_t g;
	size_t n = series_files("cut.dprof", &g);
	struct stat sb;
	unsigned long before, left, whole, kept;
	const char *mid;

	(void)state;
	assert_true(n >= 5);
	csv = report_lines(spec);
	before = fixture_samples(csv); /* PAGES, less what the kernel dropped */
	free(csv);
	/* a file from the middle of the run: the fixture's samples only (the
	 * first ones also hold the loader's), in both its halves */
	mid = g.gl_pathv[n / 2];
	csv = report_lines(mid);
	whole = fixture_samples(csv);
	free(csv);
	assert_int_equal(stat(mid, &sb), 0);
	assert_int_equal(truncate(mid, sb.st_size / 2), 0);
	csv = report_lines(mid);
	kept = fixture_samples(csv);
	free(csv);
	print_message("file %zu of %zu cut: %lu of its %lu samples kept\n", n / 2 + 1, n, kept,
		      whole);
	assert_true(kept > 0 && kept < whole);
	/* the series: the others' samples all, the cut one's up to the cut */
	csv = report_lines(spec);
	left = fixture_samples(csv);
	if (left != before - whole + kept)
		fail_msg("%lu samples left of %lu: the cut file lost %lu", left, before,
			 whole - kept);
	free(csv);
	globfree(&g);
	free(spec);
	free(prof);
}

static void expect_error(const char *args, const char *words)
{
	rec_expect_error(REC_ERR_TMPDIR | REC_ERR_EOL, words, "%s", args);
}

/* Bad options and files that are not one series: one line, non-zero. */
static void test_bad_input(void **state)
{
	(void)state;
	expect_error("record --switch-output 10x -- true", "is no SIZE");
	expect_error("record --switch-output 1K -- true", "4K at least");
	expect_error("record --switch-output 1ms -- true", "every 10ms");
	expect_error("record --max-files 3 -- true", "give both");
	expect_error("record --max-files 0 --switch-output 1M -- true", "1 or more");
	expect_error("record --switch-output 1M -o - -- true", "standard output");
	expect_error("record -e sim:l1d-miss --switch-output 1M -- true", "one file");
	expect_error("report -i 'nothing.dprof.*'", "no file matches");
	/* a series and another recording; a profile and a perf.data file */
	free(rec_fixture("pagetouch_O2", "64", "-e page-faults", "other.dprof"));
	free(rec_fixture("pagetouch_O2", "2000", "-e page-faults --switch-output 16K",
			 "mixed.dprof"));
	expect_error("report -i other.dprof -i 'mixed.dprof.*'", "is not a file of a series");
	expect_error("report -i 'mixed.dprof.*' -i 'series.dprof.*'", "two recordings");
	{
		char *perf = tu_data_path("perf-data/perfparser-vector_static_gcc.data");
		char *args = dp_asprintf("report -i 'mixed.dprof.*' -i '%s'", perf);

		expect_error(args, "is a perf.data file");
		free(args);
		free(perf);
	}
}

TU_MAIN_AFTER(tu_require_program(DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT), NULL, NULL,
	      test_series_by_size, test_max_files, test_series_by_time, test_series_by_signal,
	      test_truncated_file, test_bad_input)
