/* System counters and code markers on the samples' time axis, on a real
 * kernel: the phases fixture (busy, sleeping, allocating 200 MiB, forking 50
 * children, each between two marks) recorded with cpu-clock samples,
 * counters every 10 ms and markers. Counter rates must match the phases,
 * marker intervals must agree with the program's own clock, and samples must
 * fall in the marker region of the phase they were taken in. Also dataprof
 * stat, list --counters, and the errors of these options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record_util.h"
#include "tu_feature.h"
#include "sampler/event_spec.h"
#include "report/marks.h"
#include "report/timeline.h"
#include "util.h"
#include "tu_group.h"

#define MIB (1024.0 * 1024.0)

enum { BUSY, SLEEP, ALLOC, FORK, NPHASES };
static const char *const phase_names[] = {"busy", "sleep", "alloc", "fork"};

typedef struct phase {
	uint64_t a0, a1, b0, b1;
	uint64_t cpu; /* CPU time the program used in it, by its own clock */
} phase;

typedef struct reading {
	uint64_t time;
	uint64_t *v;
} reading;

/* What the test reads back from the profile. */
typedef struct run {
	phase ph[NPHASES];
	uint32_t pid;
	int mib, children;
	DP_VEC(char *) sensors;
	DP_VEC(reading) readings;
	DP_VEC(dp_sample) samples;
	dp_marks marks;
	dp_timeline *tl;
} run;

static run R; /* recorded once, checked by several tests */

static void visit(void *ctx, const dp_record *r)
{
	run *x = ctx;

	switch (r->kind) {
	case DP_R_SENSOR:
		dp_vec_grow(&x->sensors, r->sensor.id + 1);
		while (x->sensors.n <= r->sensor.id)
			x->sensors.v[x->sensors.n++] = NULL;
		x->sensors.v[r->sensor.id] = dp_strdup(r->sensor.name);
		break;
	case DP_R_READING: {
		reading g = {r->time, calloc(x->sensors.n + 1, 8)};

		assert_int_equal(r->reading.first, 0); /* a few sensors: one record each */
		assert_int_equal(r->reading.n, x->sensors.n);
		memcpy(g.v, r->reading.values, 8 * r->reading.n);
		dp_vec_push(&x->readings, g);
		break;
	}
	case DP_R_SAMPLE:
		dp_vec_push(&x->samples, *r->sample);
		break;
	default:
		break;
	}
	dp_marks_add(&x->marks, r);
}

static size_t sensor(const char *name)
{
	for (size_t i = 0; i < R.sensors.n; i++)
		if (R.sensors.v[i] && !strcmp(R.sensors.v[i], name))
			return i;
	fail_msg("no sensor %s in the profile", name);
	return 0;
}

#define COUNTERS                                                                                   \
	"proc/stat/cpu_user,proc/stat/cpu_nice,proc/stat/processes,proc/pid_stat/utime,"           \
	"proc/pid_stat/stime,proc/pid_stat/minflt,proc/pid_stat/rss,proc/vmstat/pgfault,"          \
	"perf/sw/*"

static int setup(void **state)
{
	char *prof = tu_path("phases.dprof"), *fx = tu_fixture("phases_O2"), *cmd;
	tu_result res;
	tu_truth *t;
	size_t n;

	(void)state;
	cmd = dp_asprintf("'%s'", fx);
	if (rec_run(&res, prof,
		    "-e cpu-clock -F 1000 --markers --interval 10ms --counters '" COUNTERS "'",
		    cmd) != 0)
		return -1;
	n = tu_truth_parse(res.out, &t);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(t[i].kind, "pid")) {
			R.pid = (uint32_t)tu_truth_u64(&t[i], "pid");
			R.mib = (int)tu_truth_u64(&t[i], "mib");
			R.children = (int)tu_truth_u64(&t[i], "children");
			if (!tu_truth_u64(&t[i], "markers"))
				return -1; /* the collector did not load */
		}
		for (int k = 0; k < NPHASES; k++) {
			if (strcmp(t[i].kind, "phase") || strcmp(tu_truth_get(&t[i], "name"),
								 phase_names[k]))
				continue;
			R.ph[k].a0 = tu_truth_u64(&t[i], "a0");
			R.ph[k].a1 = tu_truth_u64(&t[i], "a1");
			R.ph[k].b0 = tu_truth_u64(&t[i], "b0");
			R.ph[k].b1 = tu_truth_u64(&t[i], "b1");
			R.ph[k].cpu = tu_truth_u64(&t[i], "cpu");
		}
	}
	free(t);
	tu_result_free(&res);
	rec_each(prof, visit, &R);
	dp_marks_done(&R.marks);
	/* the index: samples, readings, marks on one axis */
	R.tl = dp_timeline_new();
	for (size_t i = 0; i < R.samples.n; i++)
		dp_timeline_add(R.tl, DP_TL_SAMPLE, R.samples.v[i].time, R.samples.v[i].pid,
				R.samples.v[i].tid, i);
	for (size_t i = 0; i < R.readings.n; i++)
		dp_timeline_add(R.tl, DP_TL_READING, R.readings.v[i].time, 0, 0, i);
	for (size_t i = 0; i < R.marks.v.n; i++)
		dp_timeline_add(R.tl, DP_TL_MARK, R.marks.v.v[i].time, R.marks.v.v[i].pid,
				R.marks.v.v[i].tid, i);
	dp_timeline_build(R.tl);
	free(cmd);
	free(fx);
	free(prof);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < R.sensors.n; i++)
		free(R.sensors.v[i]);
	dp_vec_free(&R.sensors);
	for (size_t i = 0; i < R.readings.n; i++)
		free(R.readings.v[i].v);
	dp_vec_free(&R.readings);
	dp_vec_free(&R.samples);
	dp_marks_free(&R.marks);
	dp_timeline_free(R.tl);
	tu_cleanup();
	return 0;
}

/* ---- counter rates match the phases ---- */

/* The readings around a phase: the last before its begin mark, the first
 * after its end mark, so that the whole phase lies between them. */
static void around(int k, const reading **r0, const reading **r1)
{
	size_t n, i0 = dp_timeline_lower(R.tl, DP_TL_READING, R.ph[k].a0),
		  i1 = dp_timeline_lower(R.tl, DP_TL_READING, R.ph[k].b1);
	const dp_tl_event *e = dp_timeline_events(R.tl, DP_TL_READING, &n);

	/* the collector read once before the program started, and once after */
	assert_true(i0 > 0);
	assert_true(i1 < n);
	*r0 = &R.readings.v[e[i0 - 1].ref];
	*r1 = &R.readings.v[e[i1].ref];
}

static double delta(int k, const char *name)
{
	const reading *r0, *r1;
	size_t s = sensor(name);

	around(k, &r0, &r1);
	assert_true(r0->v[s] != DP_READING_NONE && r1->v[s] != DP_READING_NONE);
	return (double)r1->v[s] - (double)r0->v[s];
}

/* per second */
static double rate(int k, const char *name)
{
	const reading *r0, *r1;

	around(k, &r0, &r1);
	return delta(k, name) * 1e9 / (double)(r1->time - r0->time);
}

/* The machine's user time, at any niceness: a test run under nice puts the
 * program's time in the nice column of /proc/stat, and none in user. */
static double machine_user_rate(int k)
{
	return rate(k, "proc/stat/cpu_user") + rate(k, "proc/stat/cpu_nice");
}

static void test_counter_rates(void **state)
{
	const char *cpu[] = {"proc/pid_stat/utime", "perf/sw/task-clock"};

	(void)state;
	printf("%zu readings every 10 ms, %zu samples, %zu marks\n", R.readings.n, R.samples.n,
	       R.marks.v.n);
	for (int k = 0; k < NPHASES; k++)
		printf("%-5s own CPU clock %.3f s; utime %.2f s/s, task-clock %.2f s/s, "
		       "machine user %.2f s/s, "
		       "minflt %+.0f, page-faults %+.0f, pgfault %+.0f, rss %+.1f MiB, "
		       "processes %+.0f\n",
		       phase_names[k], (double)R.ph[k].cpu / 1e9, rate(k, cpu[0]) / 1e9,
		       rate(k, cpu[1]) / 1e9, machine_user_rate(k) / 1e9,
		       delta(k, "proc/pid_stat/minflt"), delta(k, "perf/sw/page-faults"),
		       delta(k, "proc/vmstat/pgfault"), delta(k, "proc/pid_stat/rss") / MIB,
		       delta(k, "proc/stat/processes"));
	/* CPU time: high while busy, low while sleeping. The machine is shared, so
	 * "high" is what the program's own CPU clock says it got: the counters must
	 * agree with it (utime counts whole ticks; the readings around a phase
	 * reach up to 10 ms into the rest before and after it) */
	double busy = (double)R.ph[BUSY].cpu, tick = 1e9 / (double)sysconf(_SC_CLK_TCK);
	const char *why;
	int ncpu = 2;

	assert_true(busy >= 0.3e9); /* the fixture burns 300 ms of its CPU time */
	/* user and system time together: the kernel splits the CPU time between
	 * them by where its ticks landed, and sampling itself is system time */
	assert_true(fabs(delta(BUSY, "proc/pid_stat/utime") + delta(BUSY, "proc/pid_stat/stime") -
			 busy) < 0.05 * busy + 4 * tick);
	assert_true(delta(BUSY, "proc/pid_stat/utime") > 0.5 * busy);
	if (tu_have(DP_PROBE_TASK_CLOCK, &why))
		assert_true(fabs(delta(BUSY, "perf/sw/task-clock") - busy) < 0.05 * busy + 5e6);
	else {
		printf("task-clock against the CPU clock: not checked here (%s)\n", why);
		ncpu = 1; /* cpu[1] is task-clock */
	}
	for (int i = 0; i < ncpu; i++) {
		assert_true(rate(SLEEP, cpu[i]) < 0.05e9);
		assert_true(rate(BUSY, cpu[i]) > 10 * rate(SLEEP, cpu[i]));
	}
	/* the machine's user time holds the program's */
	assert_true(machine_user_rate(BUSY) > 0.8 * rate(BUSY, cpu[0]));
	/* allocation: one fault per page touched, and the resident size grows by them */
	double pages = R.mib * MIB / (double)sysconf(_SC_PAGESIZE);
	assert_true(delta(ALLOC, "proc/pid_stat/minflt") >= pages);
	assert_true(delta(ALLOC, "perf/sw/page-faults") >= pages);
	assert_true(delta(ALLOC, "proc/vmstat/pgfault") >= pages);
	assert_true(delta(ALLOC, "proc/pid_stat/rss") >= 0.98 * R.mib * MIB);
	assert_true(delta(BUSY, "proc/pid_stat/minflt") < pages / 100);
	/* forks: the machine's count of processes made grows by the children (and
	 * by whatever else forks on this machine meanwhile: only a lower bound) */
	assert_true(delta(FORK, "proc/stat/processes") >= R.children);
}

/* ---- marker intervals agree with the program's clock ---- */

static void test_marker_intervals(void **state)
{
	(void)state;
	for (int k = 0; k < NPHASES; k++) {
		char b[32], e[32];
		uint32_t from, to;
		dp_interval_sets s = {0};
		const phase *p = &R.ph[k];

		snprintf(b, sizeof(b), "%s begin", phase_names[k]);
		snprintf(e, sizeof(e), "%s end", phase_names[k]);
		assert_true(dp_marks_lookup(&R.marks, b, &from));
		assert_true(dp_marks_lookup(&R.marks, e, &to));
		dp_marks_between(&R.marks, from, to, &s);
		assert_int_equal(s.n, 1);
		assert_int_equal(s.v[0].v.n, 1);
		/* The begin mark lies in [a0, a1] and its overhead ends before a1; the end
		 * mark's time lies in [b0, b1]: the interval, overhead taken off, lies in
		 * [b0 - a1, b1 - a0]. Slack: the marks' ticks become CLOCK_MONOTONIC on a
		 * line through two points, a few ppm off where the kernel slews the clock. */
		uint64_t ns = s.v[0].v.v[0].ns, lo = p->b0 - p->a1, hi = p->b1 - p->a0;
		uint64_t slack = 1000 + lo / 50000; /* 1 µs + 20 ppm */
		printf("%-5s markers %llu ns, program's clock [%llu, %llu] (width %llu ns), "
		       "overhead %llu ns\n",
		       phase_names[k], (unsigned long long)ns, (unsigned long long)lo,
		       (unsigned long long)hi, (unsigned long long)(hi - lo),
		       (unsigned long long)s.v[0].v.v[0].overhead);
		assert_true(ns + slack >= lo);
		assert_true(ns <= hi + slack);
		dp_interval_sets_free(&s);
	}
}

/* ---- samples fall in the marker region of their phase ---- */

static void test_sample_regions(void **state)
{
	size_t agree = 0, checked = 0, in_busy = 0;
	uint32_t tid = R.pid;

	(void)state;
	for (size_t i = 0; i < R.samples.n; i++) {
		const dp_sample *s = &R.samples.v[i];
		const dp_tl_event *m;
		char buf[16];
		const char *region, *want = NULL;
		char wbuf[32];

		if (s->pid != R.pid || s->tid != R.pid)
			continue;
		/* the program's own clock says which phase (inside the marks: unclear) */
		for (int k = 0; k < NPHASES && !want; k++) {
			const phase *p = &R.ph[k];

			if (s->time >= p->a0 && s->time <= p->a1)
				break;
			if (s->time >= p->b0 && s->time <= p->b1)
				break;
			if (s->time > p->a1 && s->time < p->b0) {
				snprintf(wbuf, sizeof(wbuf), "%s begin", phase_names[k]);
				want = wbuf;
			} else if (s->time > p->b1 &&
				   (k == NPHASES - 1 || s->time < R.ph[k + 1].a0)) {
				snprintf(wbuf, sizeof(wbuf), "%s end", phase_names[k]);
				want = wbuf;
			}
		}
		/* the index says which: the last mark of the sample's thread */
		m = dp_timeline_find(R.tl, DP_TL_MARK, s->time, DP_TL_BEFORE, dp_tl_same_tid, &tid);
		if (!want || !m)
			continue; /* outside the marks, or outside the overlap */
		const dp_mark_rec *k = &R.marks.v.v[m->ref];
		region = dp_marks_name(&R.marks, k->app, k->id, buf, sizeof(buf));
		checked++;
		agree += !strcmp(region, want);
		in_busy += !strcmp(region, "busy begin");
	}
	tu_report_accuracy("marker regions of cpu-clock samples", agree, checked, checked);
	/* cpu-clock at 1000 Hz: a sample a millisecond of the CPU time busy got */
	printf("%zu samples in the busy region, for %.1f ms of CPU\n", in_busy,
	       (double)R.ph[BUSY].cpu / 1e6);
	assert_true(in_busy > 20);
	assert_true((double)in_busy > 0.8 * (double)R.ph[BUSY].cpu / 1e6);
	assert_int_equal(agree, checked);
}

/* ---- dataprof markers on the recorded file ---- */

static void test_markers_command(void **state)
{
	char *prof = tu_path("phases.dprof");
	tu_result res;

	(void)state;
	assert_int_equal(tu_sh(&res, "'%s' markers '%s'", DATAPROF_BIN, prof), 0);
	tu_assert_contains(res.out, "busy begin -> busy end", "fork begin -> fork end", NULL);
	tu_result_free(&res);
	assert_int_equal(tu_sh(&res, "'%s' markers --json -b 'busy begin,busy end' '%s'",
			       DATAPROF_BIN, prof),
			 0);
	tu_assert_contains(res.out, "\"from\": \"busy begin\"",
			   "\"occurrences\": [{\"start_ns\": ", NULL);
	assert_null(strstr(res.out, "sleep begin"));
	tu_result_free(&res);
	free(prof);
}

/* ---- dataprof stat ---- */

static void test_stat(void **state)
{
	char *prof = tu_path("stat.dprof"), *fx = tu_fixture("phases_O2");
	tu_result res;
	size_t readings = 0;
	dp_error err;
	dp_profile *p;
	dp_record r;

	(void)state;
	assert_int_equal(tu_sh(&res, "'%s' stat --interval 20ms -o '%s' -- '%s' 100 20 5",
			       DATAPROF_BIN, prof, fx),
			 0);
	assert_non_null(strstr(res.out, "TRUTH phase name=fork"));
	/* the summary: counters as totals and rates, gauges as levels */
	tu_assert_contains(res.err, "proc/pid_stat/utime", "per second", "proc/pid_stat/rss",
			   "collector thread:", NULL);
	tu_result_free(&res);
	/* the file: readings, no samples */
	p = dp_profile_open(prof, &err);
	assert_non_null(p);
	while (dp_profile_next(p, &r) > 0)
		readings += r.kind == DP_R_READING;
	assert_int_equal(dp_profile_status(p)->samples, 0);
	assert_true(dp_profile_status(p)->finished);
	printf("stat: %zu readings\n", readings);
	assert_true(readings >= 5); /* ~0.25 s every 20 ms, fewer on a busy machine */
	dp_profile_close(p);
	/* the command's exit status */
	assert_int_equal(tu_sh(&res, "'%s' stat -q -- sh -c 'exit 3'", DATAPROF_BIN), 3);
	tu_result_free(&res);
	free(prof);
	free(fx);
}

static void test_list_counters(void **state)
{
	tu_result res;

	(void)state;
	assert_int_equal(tu_sh(&res, "'%s' list --counters", DATAPROF_BIN), 0);
	tu_assert_contains(res.out, "proc/stat/cpu_user#cpuN", "proc/meminfo/MemFree",
			   "proc/pid_stat/minflt", "perf/sw/context-switches", NULL);
	tu_result_free(&res);
	/* and the new commands have help */
	assert_int_equal(tu_sh(&res, "'%s' stat --help && '%s' markers --help", DATAPROF_BIN,
			       DATAPROF_BIN),
			 0);
	tu_assert_contains(res.out, "usage: dataprof stat", "usage: dataprof markers", NULL);
	tu_result_free(&res);
}

/* ---- bad input and missing pieces: one line, and what to do ---- */

/* Runs the shell command from fmt in tu_tmpdir(): it exits with status,
 * with one line on stderr that holds want. */
static void test_errors(void **state)
{
	(void)state;
	rec_expect_exit(125,
			"unknown counter 'proc/meminfo/MemFre' (did you mean "
			"proc/meminfo/MemFree",
			"'%s' record -q --counters proc/meminfo/MemFre -- true", DATAPROF_BIN);
	rec_expect_exit(125, "did you mean proc/meminfo/*",
			"'%s' stat -q --counters 'proc/memnifo/*' -- true", DATAPROF_BIN);
	rec_expect_exit(125, "--interval '0' has no unit", "'%s' record -q --interval 0 -- true",
			DATAPROF_BIN);
	rec_expect_exit(125, "--markers needs a command", "'%s' record -q --markers -p 1 -- true",
			DATAPROF_BIN);
	rec_expect_exit(1, "cannot open profile", "'%s' markers /nonexistent.dprof", DATAPROF_BIN);
	/* no marker collector to be found: markers off, one warning, the run goes on */
	rec_expect_exit(0, "no marker collector",
			"DATAPROF_COLLECTOR=/nonexistent.so '%s' record -q -o m.dprof "
			"--markers -- '%s/phases_O2' 1 1 1 >/dev/null",
			DATAPROF_BIN, FIXTURE_DIR);
	/* a collector that does not load: the program says so, once, and runs on */
	rec_expect_exit(0, "dataprof markers: cannot load the collector /etc/hostname",
			"DATAPROF_COLLECTOR=/etc/hostname '%s' record -q -o m.dprof --markers "
			"-- '%s/phases_O2' 1 1 1 >/dev/null",
			DATAPROF_BIN, FIXTURE_DIR);
	rec_expect_exit(1, "has no code marks", "'%s' markers m.dprof", DATAPROF_BIN);
	/* PMU counters on a machine without one: a warning, not an error */
	if (!dp_have_hw_pmu()) {
		rec_expect_exit(0,
				"warning: perf/hw/cycles, perf/hw/instructions, "
				"perf/hw/cache-misses skipped: no hardware PMU",
				"'%s' stat -q --counters 'perf/hw/*,proc/stat/ctxt' -- true",
				DATAPROF_BIN);
	}
}

TU_MAIN_AFTER(
    {
	    tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT);
	    signal(SIGPIPE, SIG_IGN);
    },
    setup, teardown, test_counter_rates, test_marker_intervals, test_sample_regions,
    test_markers_command, test_stat, test_list_counters, test_errors)
