/* record -a and -C: every process on the CPUs. Two fixture programs run
 * (spin: hot_a/hot_b; layout: struct item's members), started by the test,
 * not by dataprof; record -a --duration 2 attributes samples to both, each
 * to its own functions and data; -C 0 keeps CPU 0's; bad input gets one
 * line. Skipped, with the reason, where the kernel does not let this
 * process sample every CPU (CAP_PERFMON, perf_event_paranoid). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_util.h"
#include "tu_group.h"
#include "tu_feature.h"
#include "util.h"

static char *prof;

static char *report(const char *args)
{
	tu_result res;
	char *out;

	if (tu_sh(&res, "'%s' report --csv -m samples -n 50 -i '%s' %s", DATAPROF_BIN, prof,
		  args) != 0)
		fail_msg("report %s: %s", args, res.err);
	out = res.out;
	res.out = NULL;
	tu_result_free(&res);
	return out;
}

/* Both programs run (each has burned CPU time) before the recording starts
 * and after it ends; they are killed after. */
static void test_two_programs(void **state)
{
	char *spin = tu_fixture("spin_O2"), *layout = tu_fixture("layout_O2"), *csv;
	tu_result res;
	unsigned long s_spin, s_layout;

	(void)state;
	prof = tu_path("all.dprof");
	tu_sh(&res,
	      "'%s' 600000 > /dev/null & S=$!; '%s' 2000000000 1 > /dev/null & L=$!; "
	      "sh '%s' $S 5; sh '%s' $L 5; "
	      "'%s' record -q -a --duration 2 -e cpu-clock -F 1000 -o '%s'; echo \"rc=$?\"; "
	      "kill $S $L; wait $S $L 2>/dev/null; exit 0",
	      spin, layout, tu_wait_cpu_script(), tu_wait_cpu_script(), DATAPROF_BIN, prof);
	if (strstr(res.err, "needs CAP_PERFMON")) {
		printf("skipped: %s", res.err);
		tu_result_free(&res);
		free(spin), free(layout);
		skip();
	}
	if (!strstr(res.out, "rc=0"))
		fail_msg("record -a: %s%s", res.out, res.err);
	tu_result_free(&res);
	csv = report("--by process");
	printf("%s", csv);
	s_spin = rec_csv_samples(csv, "spin_O2");
	s_layout = rec_csv_samples(csv, "layout_O2");
	assert_true(s_spin > 50);
	assert_true(s_layout > 50);
	free(csv);
	/* each by its own code and data */
	csv = report("--where 'process=\"spin_O2\"' --by function");
	assert_true(rec_csv_samples(csv, "hot_a") + rec_csv_samples(csv, "hot_b") > s_spin / 2);
	free(csv);
	csv = report("--where 'process=\"layout_O2\"' --by member");
	printf("%s", csv);
	assert_true(rec_csv_samples(csv, "struct item.a") + rec_csv_samples(csv, "struct item.b") >
		    0);
	free(csv);
	csv = report("--where 'process=\"layout_O2\"' --by function");
	assert_true(rec_csv_samples(csv, "walk") > 0);
	assert_int_equal(rec_csv_samples(csv, "hot_a"), 0);
	free(csv);
	free(spin);
	free(layout);
}

/* -C 0: the events of CPU 0 only; with a command, until it exits (the
 * command is pinned there: the samples of CPU 0 are all of its) */
static void test_one_cpu(void **state)
{
	char *spin = tu_fixture("spin_O2"), *p = tu_path("cpu0.dprof"), *save = NULL;
	tu_result res;
	int rows = 0;

	(void)state;
	if (tu_sh(&res, "'%s' record -q -C 0 -e cpu-clock -F 1000 -o '%s' -- taskset -c 0 '%s' 300",
		  DATAPROF_BIN, p, spin) != 0) {
		if (strstr(res.err, "needs CAP_PERFMON")) {
			printf("skipped: %s", res.err);
			tu_result_free(&res);
			free(spin), free(p);
			skip();
		}
		fail_msg("record -C 0: %s", res.err);
	}
	tu_result_free(&res);
	assert_int_equal(
	    tu_sh(&res, "'%s' report --csv --by cpu -m samples -i '%s'", DATAPROF_BIN, p), 0);
	printf("%s", res.out);
	for (char *l = strtok_r(res.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "1,", 2))
			continue;
		assert_int_equal(strncmp(l, "1,0,", 4), 0);  /* CPU 0 alone */
		assert_true(strtoul(l + 4, NULL, 10) > 100); /* spin's 300 ms */
		rows++;
	}
	assert_int_equal(rows, 1);
	tu_result_free(&res);
	free(spin);
	free(p);
}

static void expect_error(const char *args, const char *want)
{
	rec_expect_error(REC_ERR_EOL, want, "record %s", args);
}

static void test_bad_input(void **state)
{
	(void)state;
	expect_error("-e cpu-clock -C 70000 -o /dev/null --duration 1",
		     "-C '70000' is not a CPU list");
	expect_error("-e cpu-clock -C 4095 -o /dev/null --duration 1",
		     "-C: CPU 4095 is not online");
	expect_error("-e cpu-clock -C x -o /dev/null", "-C 'x' is not a CPU list");
	expect_error("-e cpu-clock -C 1-0 -o /dev/null", "-C '1-0' is not a CPU list");
	expect_error("-e cpu-clock -a --duration 0 -o /dev/null",
		     "--duration needs a positive number");
	expect_error("-e cpu-clock --duration 1 -o /dev/null -- true", "--duration stops -a or -p");
	expect_error("-e cpu-clock -a --heap -o /dev/null -- true",
		     "-a and -C record every process");
	expect_error("-e cpu-clock -a -p 1 -o /dev/null", "-a and -C record every process");
	expect_error("-a -e sim:loads -o /dev/null -- true", "-p, -a, -C, -F, -g");
}

static int teardown(void **state)
{
	(void)state;
	free(prof);
	tu_cleanup();
	return 0;
}

TU_MAIN_AFTER(tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_COUNT), NULL, teardown,
	      test_two_programs, test_one_cpu, test_bad_input)
