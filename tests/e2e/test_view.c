/* dataprof view and export on bad input: one line naming the thing and what
 * to do, a non-zero exit, no file left behind; --help on both. (The page
 * itself is tested in a browser: tests/browser/.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record_util.h"
#include "tu_feature.h"
#include "util.h"
#include "tu_group.h"

static char *plain;

/* split, without counters or marks */
static const char *profile(void)
{
	if (!plain)
		plain = rec_fixture("split_O2", "100", "-e cpu-clock -F 2000", "plain.dprof");
	return plain;
}

static void expect_error(const char *args, const char *want)
{
	rec_expect_error(REC_ERR_TMPDIR, want, "%s", args);
}

static void test_help(void **state)
{
	tu_result res;

	(void)state;
	rec_expect_output("usage: dataprof view", "view --help");
	rec_expect_output("--perfetto FILE", "export --help");
	assert_int_equal(tu_sh(&res, "'%s' --help", DATAPROF_BIN), 0);
	tu_assert_contains(res.out, "view ", "export ", NULL);
	tu_result_free(&res);
}

static void test_bad_input(void **state)
{
	(void)state;
	expect_error("view /nonexistent.dprof", "/nonexistent.dprof");
	expect_error("export --pprof x.pb.gz /nonexistent.dprof", "/nonexistent.dprof");
	expect_error("view --buckets 3", "--buckets needs a count from 16 to 262144");
	expect_error("view --annotate-top x", "--annotate-top needs a count from 0 to 1000");
	expect_error("export", "export needs --perfetto FILE.json or --pprof FILE.pb.gz");
	rec_expect_error(REC_ERR_TMPDIR,
			 "the profile has no counter readings (record with --counters)",
			 "view --counters 'proc/*' '%s'", profile());
	rec_expect_error(REC_ERR_TMPDIR, "cannot write '/nonexistent/dir/p.html.tmp'",
			 "view -o /nonexistent/dir/p.html '%s'", profile());
	rec_expect_error(REC_ERR_TMPDIR, "cannot write '/nonexistent/t.json'",
			 "export --perfetto /nonexistent/t.json '%s'", profile());
	rec_expect_error(REC_ERR_TMPDIR, "unknown attribute 'frob'", "view --where 'frob=1' '%s'",
			 profile());
	rec_expect_error(REC_ERR_TMPDIR, "unknown attribute 'frob'",
			 "export --pprof p.pb.gz --where 'frob=1' '%s'", profile());
	/* a failed export leaves no file */
	char *p = tu_path("p.pb.gz");
	assert_int_not_equal(access(p, F_OK), 0);
	free(p);
}

static void test_default_output(void **state)
{
	tu_result res;
	char *html = tu_path("plain.html");

	(void)state;
	assert_int_equal(tu_sh(&res, "cd '%s' && '%s' view plain.dprof", tu_tmpdir(), DATAPROF_BIN),
			 0);
	tu_result_free(&res);
	assert_int_equal(access(html, R_OK), 0);
	assert_int_equal(tu_sh(&res, "grep -c 'dataprof-view/1' '%s'", html), 0);
	tu_result_free(&res);
	/* the annotate pane's data by default; --annotate-top 0 leaves it out */
	assert_int_equal(tu_sh(&res, "grep -c '\"annotate\":{\"top\":8,' '%s'", html), 0);
	tu_result_free(&res);
	assert_int_equal(tu_sh(&res,
			       "cd '%s' && '%s' view plain.dprof --annotate-top 0 -o - | grep -c "
			       "'\"annotate\":null'",
			       tu_tmpdir(), DATAPROF_BIN),
			 0);
	tu_result_free(&res);
	free(html);
}

/* -i names the profile as in report and perf (the positional name too) */
static void test_input_option(void **state)
{
	tu_result res;

	(void)state;
	assert_int_equal(
	    tu_sh(&res,
		  "cd '%s' && '%s' view -i plain.dprof -o by_i.html && "
		  "'%s' view plain.dprof -o by_pos.html && cmp -s by_i.html by_pos.html",
		  tu_tmpdir(), DATAPROF_BIN, DATAPROF_BIN),
	    0);
	tu_result_free(&res);
	assert_int_equal(tu_sh(&res, "cd '%s' && '%s' export -i plain.dprof --perfetto by_i.json",
			       tu_tmpdir(), DATAPROF_BIN),
			 0);
	tu_result_free(&res);
}

/* An output that is not a file (a pipe, /dev/null) is written into and
 * never removed: view's page was written aside and renamed over it (`view
 * -o /dev/null` once put a file in /dev/null's place), and an output that
 * failed (a target that cannot start, an export of a profile that cannot
 * be read) was unlinked, /dev/null included. Tried on a FIFO, a reader at its end. */
static void test_outputs_not_files(void **state)
{
	static const char *const cmds[] = {
	    "'%s' view plain.dprof -o pipe",
	    "! '%s' export no-such.dprof --perfetto pipe",
	    "! '%s' record -q -e cpu-clock -o pipe -- ./no-such-program",
	};
	tu_result res;

	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *cmd = dp_asprintf(cmds[i], DATAPROF_BIN);

		if (tu_sh(&res,
			  "cd '%s' && rm -f pipe from_pipe && mkfifo pipe && "
			  "{ timeout 20 cat pipe > from_pipe & } && %s; wait; test -p pipe",
			  tu_tmpdir(), cmd) != 0)
			fail_msg("%s: the pipe is gone or the command did not do as it should: %s",
				 cmd, res.err);
		tu_result_free(&res);
		free(cmd);
	}
	/* and the page came through the pipe whole */
	assert_int_equal(
	    tu_sh(&res,
		  "cd '%s' && rm -f pipe && mkfifo pipe && "
		  "{ timeout 20 cat pipe > from_pipe & } && '%s' view plain.dprof -o pipe && "
		  "wait && '%s' view plain.dprof -o - | cmp - from_pipe && ! ls pipe.tmp",
		  tu_tmpdir(), DATAPROF_BIN, DATAPROF_BIN),
	    0);
	tu_result_free(&res);
}

static int setup(void **state)
{
	(void)state;
	profile();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(plain);
	plain = NULL;
	tu_cleanup();
	return 0;
}

TU_MAIN_AFTER(tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_COUNT), setup, teardown, test_help,
	      test_bad_input, test_default_output, test_input_option, test_outputs_not_files)
