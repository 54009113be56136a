/* Data sources on canned /proc text: prepare finds the sensors, collect
 * reads the files, decode gives values in base units; counters are running
 * totals whose wraps are unfolded; unknown names fail with close matches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sampler/counters.h"
#include "sampler/event_spec.h"
#include "tu_group.h"

static char *proc; /* the canned /proc */
static int tids[2];
static uint64_t tick_ns, page;

static void put(const char *rel, const char *text)
{
	char *path = dp_asprintf("%s/%s", proc, rel), *dir = dp_strdup(path);
	FILE *f;

	*strrchr(dir, '/') = 0;
	for (char *p = dir + strlen(proc) + 1; (p = strchr(p, '/')); *p++ = '/') {
		*p = 0;
		mkdir(dir, 0755);
	}
	mkdir(dir, 0755);
	/* rewritten in place: descriptors opened by prepare see the new text */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
	free(dir);
}

static char *pidrel(const char *fmt)
{
	return dp_asprintf(fmt, (int)getpid(), tids[1]);
}

static void put_pid(const char *fmt, const char *text)
{
	char *rel = pidrel(fmt);

	put(rel, text);
	free(rel);
}

static void write_canned(int step)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
		 "cpu  %d 1 50 1000 5 0 2 3 0 0\n"
		 "cpu0 %d 1 30 500 5 0 1 2 0 0\n"
		 "cpu1 40 0 20 500 0 0 1 1 0 0\n"
		 "intr 12345 1 2 3\nctxt %d\nbtime 1\nprocesses 77\n"
		 "procs_running 3\nprocs_blocked 1\nsoftirq 55 1 2\n",
		 100 + step, 60 + step, 999 + step);
	put("stat", buf);
	put("meminfo", "MemTotal:        1000 kB\nMemFree:          500 kB\n"
		       "HugePages_Total:       4\nHugepagesize:       2048 kB\n");
	snprintf(buf, sizeof(buf), "nr_free_pages 10\npgfault %d\nnr_dirtied 7\nnuma_hit 3\n",
		 500 + step);
	put("vmstat", buf);
	put("pressure/cpu", "some avg10=1.00 avg60=0.00 avg300=0.00 total=1500\n"
			    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	snprintf(buf, sizeof(buf),
		 "%d (my (odd) prog) S 1 2 3 0 -1 4194560 %d 50 3 1 250 30 7 2 20 0 2 0 "
		 "1234 1000000 300 18446744073709551615 1 2 3\n",
		 (int)getpid(), 1000 + step);
	put_pid("%d/stat", buf);
	put_pid("%d/task/%d/stat", buf);
	put_pid("%d/status", "Name:\tprog\nState:\tS (sleeping)\nVmRSS:\t    2048 kB\n"
			     "Threads:\t2\nvoluntary_ctxt_switches:\t10\n"
			     "nonvoluntary_ctxt_switches:\t4\n");
	put_pid("%d/task/%d/status", "Name:\tprog\nVmRSS:\t    2048 kB\n"
				     "voluntary_ctxt_switches:\t6\n");
	put_pid("%d/io", "rchar: 100\nwchar: 200\nsyscr: 3\nsyscw: 4\nread_bytes: 4096\n"
			 "write_bytes: 8192\ncancelled_write_bytes: 0\n");
}

static int setup(void **state)
{
	(void)state;
	proc = tu_path("proc");
	mkdir(proc, 0755);
	tids[0] = (int)getpid();
	tids[1] = tids[0] + 1000000; /* a thread of the canned process only */
	tick_ns = 1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK);
	page = (uint64_t)sysconf(_SC_PAGESIZE);
	write_canned(0);
	return 0;
}

static dp_source_ctx ctx(void)
{
	dp_source_ctx x = {proc, getpid(), tids, 2, false};
	return x;
}

/* value of a sensor by name in the last decode */
static uint64_t value(const dp_counters *c, const uint64_t *v, const char *name)
{
	for (size_t i = 0; i < c->chosen.n; i++)
		if (!strcmp(c->chosen.v[i].sensor->name, name))
			return v[i];
	fail_msg("no sensor %s", name);
	return 0;
}

static const dp_sensor *sensor(const dp_counters *c, const char *name)
{
	for (size_t i = 0; i < c->chosen.n; i++)
		if (!strcmp(c->chosen.v[i].sensor->name, name))
			return c->chosen.v[i].sensor;
	fail_msg("no sensor %s", name);
	return NULL;
}

static void snapshot(dp_counters *c, uint64_t *v)
{
	uint8_t *raw = malloc(c->raw_size);
	int32_t *lens = calloc(c->active.n + 1, sizeof(*lens));

	dp_counters_collect(c, raw, lens);
	dp_counters_decode(c, raw, lens, v);
	free(raw);
	free(lens);
}

static void test_decode(void **state)
{
	dp_source_ctx x = ctx();
	dp_counters c;
	dp_error err;
	uint64_t *v;
	char name[64];

	(void)state;
	assert_int_equal(dp_counters_open(&c, &x,
					  "proc/stat/*,proc/meminfo/*,proc/vmstat/*,"
					  "proc/pressure/*,"
					  "proc/pid_*/*,proc/task_*/*",
					  &err),
			 0);
	v = calloc(c.chosen.n, 8);
	snapshot(&c, v);

	/* /proc/stat: ticks become ns; per CPU and in total */
	assert_int_equal(value(&c, v, "proc/stat/cpu_user"), 100 * tick_ns);
	assert_int_equal(value(&c, v, "proc/stat/cpu_user#cpu0"), 60 * tick_ns);
	assert_int_equal(value(&c, v, "proc/stat/cpu_steal#cpu1"), 1 * tick_ns);
	assert_int_equal(value(&c, v, "proc/stat/cpu_idle"), 1000 * tick_ns);
	assert_int_equal(value(&c, v, "proc/stat/ctxt"), 999);
	assert_int_equal(value(&c, v, "proc/stat/intr"), 12345);
	assert_int_equal(value(&c, v, "proc/stat/processes"), 77);
	assert_int_equal(value(&c, v, "proc/stat/procs_blocked"), 1);
	assert_int_equal(sensor(&c, "proc/stat/procs_running")->kind, DP_SENSOR_GAUGE);
	assert_int_equal(sensor(&c, "proc/stat/cpu_user")->kind, DP_SENSOR_COUNTER);
	assert_string_equal(sensor(&c, "proc/stat/cpu_user")->unit, "ns");
	/* meminfo: kB become bytes; counts stay */
	assert_int_equal(value(&c, v, "proc/meminfo/MemFree"), 500 * 1024);
	assert_int_equal(value(&c, v, "proc/meminfo/HugePages_Total"), 4);
	assert_string_equal(sensor(&c, "proc/meminfo/MemFree")->unit, "bytes");
	assert_int_equal(sensor(&c, "proc/meminfo/MemFree")->kind, DP_SENSOR_GAUGE);
	/* vmstat: nr_* are levels, except running totals such as nr_dirtied */
	assert_int_equal(value(&c, v, "proc/vmstat/pgfault"), 500);
	assert_int_equal(sensor(&c, "proc/vmstat/pgfault")->kind, DP_SENSOR_COUNTER);
	assert_int_equal(sensor(&c, "proc/vmstat/nr_free_pages")->kind, DP_SENSOR_GAUGE);
	assert_int_equal(sensor(&c, "proc/vmstat/nr_dirtied")->kind, DP_SENSOR_COUNTER);
	assert_int_equal(value(&c, v, "proc/vmstat/numa_hit"), 3);
	/* pressure: total µs becomes ns; absent files give no value */
	assert_int_equal(value(&c, v, "proc/pressure/cpu_some"), 1500000);
	assert_int_equal(value(&c, v, "proc/pressure/cpu_full"), 0);
	assert_true(value(&c, v, "proc/pressure/io_some") == DP_READING_NONE);
	/* the target's stat, after a command name with blanks and parentheses */
	assert_int_equal(value(&c, v, "proc/pid_stat/minflt"), 1000);
	assert_int_equal(value(&c, v, "proc/pid_stat/cminflt"), 50);
	assert_int_equal(value(&c, v, "proc/pid_stat/majflt"), 3);
	assert_int_equal(value(&c, v, "proc/pid_stat/utime"), 250 * tick_ns);
	assert_int_equal(value(&c, v, "proc/pid_stat/cstime"), 2 * tick_ns);
	assert_int_equal(value(&c, v, "proc/pid_stat/num_threads"), 2);
	assert_int_equal(value(&c, v, "proc/pid_stat/vsize"), 1000000);
	assert_int_equal(value(&c, v, "proc/pid_stat/rss"), 300 * page);
	snprintf(name, sizeof(name), "proc/task_stat/utime#tid%d", tids[1]);
	assert_int_equal(value(&c, v, name), 250 * tick_ns);
	/* status: memory levels in bytes, switches as counters; text lines skipped */
	assert_int_equal(value(&c, v, "proc/pid_status/VmRSS"), 2048 * 1024);
	assert_int_equal(value(&c, v, "proc/pid_status/Threads"), 2);
	assert_int_equal(value(&c, v, "proc/pid_status/voluntary_ctxt_switches"), 10);
	snprintf(name, sizeof(name), "proc/task_status/voluntary_ctxt_switches#tid%d", tids[1]);
	assert_int_equal(value(&c, v, name), 6);
	/* io */
	assert_int_equal(value(&c, v, "proc/pid_io/read_bytes"), 4096);
	assert_int_equal(value(&c, v, "proc/pid_io/syscw"), 4);

	/* a second collection reads the files again through the same descriptors */
	write_canned(7);
	snapshot(&c, v);
	assert_int_equal(value(&c, v, "proc/stat/cpu_user"), 107 * tick_ns);
	assert_int_equal(value(&c, v, "proc/stat/cpu_user#cpu0"), 67 * tick_ns);
	assert_int_equal(value(&c, v, "proc/stat/ctxt"), 1006);
	assert_int_equal(value(&c, v, "proc/vmstat/pgfault"), 507);
	assert_int_equal(value(&c, v, "proc/pid_stat/minflt"), 1007);
	write_canned(0);
	free(v);
	dp_counters_close(&c);
}

/* A file that disappears (the process exited) gives no value, not a crash. */
static void test_gone(void **state)
{
	dp_source_ctx x = ctx();
	dp_counters c;
	dp_error err;
	uint64_t v[64];
	char *rel = pidrel("%d/stat");

	(void)state;
	assert_int_equal(dp_counters_open(&c, &x, "proc/pid_stat/minflt,proc/stat/ctxt", &err), 0);
	assert_int_equal(c.chosen.n, 2);
	snapshot(&c, v);
	assert_int_equal(value(&c, v, "proc/pid_stat/minflt"), 1000);
	put_pid("%d/stat", ""); /* what a reaped process's file reads as, near enough */
	snapshot(&c, v);
	assert_true(value(&c, v, "proc/pid_stat/minflt") == DP_READING_NONE);
	assert_int_equal(value(&c, v, "proc/stat/ctxt"), 999);
	write_canned(0);
	free(rel);
	dp_counters_close(&c);
}

static void test_wrap(void **state)
{
	dp_counter_state s32 = {0}, s64 = {0};

	(void)state;
	/* a 32-bit counter that wraps keeps counting */
	assert_int_equal(dp_counter_extend(&s32, 0xfffffff0u, 32), 0xfffffff0u);
	assert_int_equal(dp_counter_extend(&s32, 0x10, 32), 0xfffffff0ull + 0x20);
	assert_int_equal(dp_counter_extend(&s32, 0x30, 32), 0xfffffff0ull + 0x40);
	/* twice round is not seen: readings must come faster than a wrap */
	assert_int_equal(dp_counter_extend(&s64, 1000, 64), 1000);
	assert_int_equal(dp_counter_extend(&s64, 1500, 64), 1500);
	/* a 64-bit counter that steps back adds nothing, then counts on */
	assert_int_equal(dp_counter_extend(&s64, 1490, 64), 1500);
	assert_int_equal(dp_counter_extend(&s64, 1600, 64), 1610);
	/* no value stays no value and changes nothing */
	assert_true(dp_counter_extend(&s64, DP_READING_NONE, 64) == DP_READING_NONE);
	assert_int_equal(dp_counter_extend(&s64, 1700, 64), 1710);
}

static void expect_unknown(const char *list, const char *want)
{
	dp_source_ctx x = ctx();
	dp_counters c;
	dp_error err = {{0}};

	assert_int_equal(dp_counters_open(&c, &x, list, &err), -1);
	if (!strstr(err.msg, want))
		fail_msg("'%s': message '%s' lacks '%s'", list, err.msg, want);
	assert_null(strchr(err.msg, '\n'));
}

static void test_unknown(void **state)
{
	(void)state;
	expect_unknown("proc/meminfo/MemFre", "unknown counter 'proc/meminfo/MemFre'");
	expect_unknown("proc/meminfo/MemFre", "did you mean proc/meminfo/MemFree");
	expect_unknown("proc/memnifo/*", "did you mean proc/meminfo/*");
	expect_unknown("proc/stat/cpu_usr#cpu1", "proc/stat/cpu_user#cpu1");
	expect_unknown("proc/stat/ctxt,bogus/thing", "unknown counter 'bogus/thing';");
	expect_unknown("proc/stat/ctxt,bogus/thing", "dataprof list --counters");
}

/* Sources this machine lacks are warnings: no hardware PMU, no PSI files. */
static void test_unavailable(void **state)
{
	dp_source_ctx x = ctx();
	dp_counters c;
	dp_error err;
	char *saved = proc;

	(void)state;
	assert_int_equal(dp_counters_open(&c, &x, "perf/*,proc/stat/ctxt", &err), 0);
	if (!dp_have_hw_pmu()) {
		tu_assert_contains(c.warnings.p, "perf/hw/cycles", "no hardware PMU", NULL);
		assert_null(strchr(strchr(c.warnings.p, '\n') + 1, '\n')); /* one line */
	}
	/* the software counters of the target (this test) work */
	assert_non_null(sensor(&c, "perf/sw/page-faults"));
	dp_counters_close(&c);

	proc = tu_path("empty");
	mkdir(proc, 0755);
	x = ctx();
	assert_int_equal(dp_counters_open(&c, &x, "proc/pressure/*", &err), 0);
	assert_int_equal(c.chosen.n, 0);
	tu_assert_contains(c.warnings.p, "proc/pressure/cpu_some", "no ", NULL);
	dp_counters_close(&c);
	free(proc);
	proc = saved;
}

/* perf counters: summed over threads, scaled up when multiplexed. The raw
 * layout depends on whether this kernel reads inherited counters as a group. */
static void test_perf_decode(void **state)
{
	int self = (int)getpid();
	dp_source_ctx x = {"/proc", self, &self, 1, false};
	dp_counters c;
	dp_error err;
	dp_source *s;
	uint64_t raw[32] = {0}, v[8];

	(void)state;
	assert_int_equal(dp_counters_open(&c, &x, "perf/sw/*", &err), 0);
	assert_int_equal(c.active.n, 1);
	s = c.active.v[0];
	assert_int_equal(s->sensors.n, 4);
	if (s->raw_cap == (3 + 4) * 8) {
		/* one group: nr, time enabled, time running, then the values */
		uint64_t g[] = {4, 200, 100, 10, 20, 30, 40};

		memcpy(raw, g, sizeof(g));
	} else {
		/* one read each: value, time enabled, time running */
		uint64_t each[] = {10, 200, 100, 20, 200, 100, 30, 200, 100, 40, 200, 100};

		assert_int_equal(s->raw_cap, sizeof(each));
		memcpy(raw, each, sizeof(each));
	}
	for (int i = 0; i < 4; i++)
		v[i] = DP_READING_NONE;
	s->ops->decode(s, raw, s->raw_cap, v);
	/* counted half the time they were enabled: twice what they saw */
	assert_int_equal(v[0], 20);
	assert_int_equal(v[1], 40);
	assert_int_equal(v[3], 80);
	/* and a real collection of this process's counters */
	assert_true(s->ops->collect(s, raw) == (ssize_t)s->raw_cap);
	dp_counters_close(&c);
}

static int teardown(void **state)
{
	(void)state;
	free(proc);
	tu_cleanup();
	return 0;
}

TU_MAIN(setup, teardown, test_decode, test_gone, test_wrap, test_unknown, test_unavailable,
	test_perf_decode)
