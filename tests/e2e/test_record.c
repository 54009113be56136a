/* dataprof record on real kernel samples: page faults, cpu-clock, data
 * breakpoints, threads, forks, attach, signals, and bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record_util.h"
#include "tu_group.h"
#include "tu_feature.h"
#include "sampler/event_spec.h"
#include "util.h"

/* ---- page faults: every touched address, exactly ---- */

static void test_page_faults(void **state)
{
	const char *fixture = *state;
	rec_truth_run r;
	rec_pf_result c;

	rec_fixture_truth(&r, fixture, "64", "-e page-faults", "pf.dprof");
	rec_pf_check(r.profile, r.res.out, &c);
	assert_int_equal(c.accesses, 64);
	tu_report_accuracy(fixture, c.matched, c.in_region, c.accesses);
	/* one fault per page, each at the address the program touched */
	assert_int_equal(c.in_region, c.accesses);
	assert_int_equal(c.matched, c.accesses);
	/* page faults have exact IPs: in the program's own code */
	assert_int_equal(c.exact_ip, c.accesses);
	rec_truth_run_free(&r);
}

/* ---- cpu-clock: samples land in the functions that burn time ---- */

typedef struct cc_ctx {
	uint64_t a_lo, a_hi, b_lo, b_hi;
	uint32_t pid;
	size_t in_a, in_b, total;
} cc_ctx;

static void cc_visit(void *ctx, const dp_record *r)
{
	cc_ctx *c = ctx;

	if (r->kind != DP_R_SAMPLE || r->sample->pid != c->pid)
		return;
	c->total++;
	if (r->sample->ip >= c->a_lo && r->sample->ip < c->a_hi)
		c->in_a++;
	else if (r->sample->ip >= c->b_lo && r->sample->ip < c->b_hi)
		c->in_b++;
}

static void test_cpu_clock_functions(void **state)
{
	char *fx = tu_fixture("spin_O2");
	rec_truth_run run;
	uint64_t sa = 0, sb = 0;
	cc_ctx c = {0};

	(void)state;
	rec_fixture_truth(&run, "spin_O2", "800", "-e cpu-clock -F 2000", "cc.dprof");
	assert_true(run.n >= 2);
	tu_elf_symbol(fx, "hot_a", &sa);
	tu_elf_symbol(fx, "hot_b", &sb);
	assert_true(sa > 0 && sb > 0);
	c.a_lo = tu_truth_u64(&run.t[0], "addr");
	c.a_hi = c.a_lo + sa;
	c.b_lo = tu_truth_u64(&run.t[1], "addr");
	c.b_hi = c.b_lo + sb;
	/* the target is the only process that ran hot_a: take the pid from any sample in it */
	dp_error err;
	dp_profile *p = dp_profile_open(run.profile, &err);
	dp_record r;
	while (dp_profile_next(p, &r) > 0)
		if (r.kind == DP_R_SAMPLE && r.sample->ip >= c.a_lo && r.sample->ip < c.a_hi) {
			c.pid = r.sample->pid;
			break;
		}
	dp_profile_close(p);
	assert_true(c.pid != 0);
	rec_each(run.profile, cc_visit, &c);
	double in = (double)(c.in_a + c.in_b) / (double)c.total;
	double share_a = (double)c.in_a / (double)(c.in_a + c.in_b);
	printf(
	    "cpu-clock: %zu samples, %.1f%% in hot_a+hot_b, hot_a share %.1f%% (expected 70%%)\n",
	    c.total, 100 * in, 100 * share_a);
	assert_true(c.total > 400);
	assert_true(in > 0.85);
	assert_true(share_a > 0.60 && share_a < 0.80);
	rec_truth_run_free(&run);
	free(fx);
}

/* ---- data breakpoints: one sample per access, at the watched address ---- */

typedef struct bp_ctx {
	uint64_t addr;
	size_t at_addr, other;
} bp_ctx;

static void bp_visit(void *ctx, const dp_record *r)
{
	bp_ctx *c = ctx;

	if (r->kind != DP_R_SAMPLE)
		return;
	if (r->sample->addr == c->addr)
		c->at_addr++;
	else
		c->other++;
}

static void check_breakpoint(const char *fixture, const char *type, size_t expect)
{
	char *prof = tu_path("bp.dprof"), *fx = tu_fixture(fixture), *opts, *cmd;
	tu_result res;
	bp_ctx c = {0};

	c.addr = tu_elf_symbol(fx, "watched", NULL);
	assert_true(c.addr != 0);
	opts = dp_asprintf("-e mem:0x%llx/8:%s", (unsigned long long)c.addr, type);
	cmd = dp_asprintf("'%s' 10 5", fx);
	assert_int_equal(rec_run(&res, prof, opts, cmd), 0);
	assert_null(strstr(res.err, "gave no sample")); /* it fired: no warning */
	rec_each(prof, bp_visit, &c);
	printf("breakpoint %s on %s: %zu samples at the address (expected %zu), %zu elsewhere\n",
	       type, fixture, c.at_addr, expect, c.other);
	assert_int_equal(c.at_addr, expect);
	assert_int_equal(c.other, 0);
	free(opts);
	free(cmd);
	free(fx);
	free(prof);
	tu_result_free(&res);
}

static void test_breakpoint_rw(void **state)
{
	(void)state;
	tu_require(DP_PROBE_BREAKPOINT);
	check_breakpoint("watch_O0", "rw", 15);
	check_breakpoint("watch_O2", "rw", 15);
}

static void test_breakpoint_w(void **state)
{
	(void)state;
	tu_require(DP_PROBE_BREAKPOINT);
	check_breakpoint("watch_O2", "w", 10);
}

/* ---- threads and children are followed ---- */

static size_t check_pairs(const char *fixture, const char *args, const char *idkey, size_t *forks)
{
	rec_truth_run r;
	rec_id_hits h;
	size_t found = 0, want = 0;

	rec_fixture_truth(&r, fixture, args, "-e page-faults", "pairs.dprof");
	rec_count_id_hits(&h, r.profile, r.t, r.n, "access", idkey, true);
	for (size_t i = 0; i < r.n; i++) {
		if (strcmp(r.t[i].kind, "access"))
			continue;
		want++;
		found += h.hits[i] > 0;
	}
	tu_report_accuracy(fixture, found, want, want);
	assert_int_equal(found, want);
	if (forks)
		*forks = h.children;
	free(h.hits);
	rec_truth_run_free(&r);
	return want;
}

static void test_threads_followed(void **state)
{
	(void)state;
	assert_int_equal(check_pairs("threads_O2", "4 16", "tid", NULL), 64);
}

static void test_children_followed(void **state)
{
	size_t forks = 0;

	(void)state;
	assert_int_equal(check_pairs("forker_O2", "3", "pid", &forks), 24);
	assert_true(forks >= 3);
}

/* The heap tracker asks the kernel for its ids once per thread: after a
 * fork the child's blocks and thread pointer must carry the child's. */
typedef struct fork_heap_ctx {
	tu_truth *truth;
	size_t ntruth;
	size_t right, wrong, threads;
} fork_heap_ctx;

static void fork_heap_visit(void *ctx, const dp_record *r)
{
	fork_heap_ctx *c = ctx;

	if (r->kind == DP_R_THREAD) {
		c->threads++;
		return;
	}
	if (r->kind != DP_R_ALLOC || r->alloc->kind != DP_ALLOC_MMAP)
		return;
	/* children may get the same address: the record is right when one of
	 * the children that touched it is its pid (and, single-threaded, tid) */
	bool touched = false, own = false;
	for (size_t i = 0; i < c->ntruth; i++) {
		if (strcmp(c->truth[i].kind, "access") ||
		    tu_truth_u64(&c->truth[i], "addr") != r->alloc->addr + 16)
			continue;
		uint32_t pid = (uint32_t)tu_truth_u64(&c->truth[i], "pid");

		touched = true;
		own |= r->alloc->pid == pid && r->alloc->tid == pid;
	}
	if (touched) {
		c->right += own;
		c->wrong += !own;
	}
}

/* The tracker's times in CPU ticks (DATAPROF_MARKER_CLOCK=tsc forces them
 * where the kernel's clock is not the TSC) reach the profile as
 * CLOCK_MONOTONIC ns, on the samples' axis: a thread's first block right
 * after its THREAD record (whose time is clock_gettime's), each child's
 * mapping before the page faults on it, nothing after the end. */
typedef struct tick_ctx {
	uint64_t thread_time[64], first_alloc[64], finish;
	uint32_t tids[64];
	size_t nthreads, allocs, leaked;
	uint64_t map_addr[16], map_size[16], map_time[16];
	uint32_t map_pid[16], fault_pid[4096];
	size_t nmaps;
	uint64_t fault_addr[4096], fault_time[4096];
	size_t nfaults;
} tick_ctx;

static size_t tick_thread(tick_ctx *c, uint32_t tid)
{
	for (size_t i = 0; i < c->nthreads; i++)
		if (c->tids[i] == tid)
			return i;
	if (c->nthreads == 64)
		return 63;
	c->tids[c->nthreads] = tid;
	return c->nthreads++;
}

static void tick_visit(void *ctx, const dp_record *r)
{
	tick_ctx *c = ctx;

	if (r->kind == DP_R_FINISH)
		c->finish = r->finish->time;
	if (r->kind == DP_R_THREAD)
		c->thread_time[tick_thread(c, r->thread->tid)] = r->thread->time;
	if (r->kind == DP_R_SAMPLE && c->nfaults < 4096 && r->sample->addr) {
		c->fault_pid[c->nfaults] = r->sample->pid;
		c->fault_addr[c->nfaults] = r->sample->addr;
		c->fault_time[c->nfaults++] = r->sample->time;
	}
	if (r->kind != DP_R_ALLOC)
		return;
	size_t t = tick_thread(c, r->alloc->tid);

	c->allocs++;
	c->leaked += r->misc != 0;
	if (!c->first_alloc[t] || r->alloc->time < c->first_alloc[t])
		c->first_alloc[t] = r->alloc->time;
	if (r->alloc->kind == DP_ALLOC_MMAP && c->nmaps < 16) {
		c->map_pid[c->nmaps] = r->alloc->pid;
		c->map_addr[c->nmaps] = r->alloc->addr;
		c->map_size[c->nmaps] = r->alloc->size;
		c->map_time[c->nmaps++] = r->alloc->time;
	}
}

static void test_heap_ticks(void **state)
{
	char *prof = tu_path("heapticks.dprof"), *fx = tu_fixture("forker_O2"), *cmd;
	tu_result res;
	tick_ctx *c = calloc(1, sizeof(*c));
	size_t faults_in_maps = 0;

	(void)state;
#if !defined(__x86_64__)
	skip();
#endif
	cmd = dp_asprintf("'%s' 3", fx);
	setenv("DATAPROF_MARKER_CLOCK", "tsc", 1);
	assert_int_equal(rec_run(&res, prof, "--heap -e page-faults", cmd), 0);
	unsetenv("DATAPROF_MARKER_CLOCK");
	rec_each(prof, tick_visit, c);
	assert_true(c->allocs > 0);
	assert_int_equal(c->leaked, 0);
	assert_true(c->finish > 0);
	for (size_t i = 0; i < c->nthreads; i++) {
		if (!c->first_alloc[i] || !c->thread_time[i])
			continue;
		/* sent together: within a few ms whatever the load */
		assert_true(c->first_alloc[i] + 1000 >= c->thread_time[i]);
		assert_true(c->first_alloc[i] - c->thread_time[i] < 50000000ull);
		assert_true(c->first_alloc[i] <= c->finish);
	}
	for (size_t m = 0; m < c->nmaps; m++)
		for (size_t f = 0; f < c->nfaults; f++)
			if (c->fault_pid[f] == c->map_pid[m] &&
			    c->fault_addr[f] >= c->map_addr[m] &&
			    c->fault_addr[f] < c->map_addr[m] + c->map_size[m]) {
				faults_in_maps++;
				assert_true(c->fault_time[f] + 1000 >= c->map_time[m]);
			}
	assert_true(faults_in_maps >= 3);
	free(c);
	free(cmd);
	free(fx);
	free(prof);
	tu_result_free(&res);
}

static void test_heap_ids_after_fork(void **state)
{
	rec_truth_run r;
	fork_heap_ctx c = {0};

	(void)state;
	rec_fixture_truth(&r, "forker_O2", "3", "--heap -e page-faults", "forkheap.dprof");
	c.truth = r.t;
	c.ntruth = r.n;
	rec_each(r.profile, fork_heap_visit, &c);
	/* each child's mapping, recorded once, with the child's pid and tid */
	tu_report_accuracy("forked children's heap records: own pid", c.right, c.right + c.wrong,
			   3);
	assert_int_equal(c.right, 3);
	assert_int_equal(c.wrong, 0);
	assert_true(c.threads >= 4); /* the parent and each child report their thread */
	rec_truth_run_free(&r);
}

/* Forks and vforks while the parent allocates (chanfork): every block of the
 * parent and of each child is recorded, and nothing malformed reaches the
 * recorder; a vfork child's _exit leaves its parent's ring alone. */
typedef struct chanfork_ctx {
	uint64_t sizes[2], want[2], got[2];
	size_t warnings;
	uint32_t pids[512];
	size_t npids;
} chanfork_ctx;

static void chanfork_visit(void *ctx, const dp_record *r)
{
	chanfork_ctx *c = ctx;
	size_t i = 0;

	c->warnings += r->kind == DP_R_WARNING;
	if (r->kind != DP_R_ALLOC)
		return;
	for (int k = 0; k < 2; k++)
		c->got[k] += r->alloc->size == c->sizes[k];
	while (i < c->npids && c->pids[i] != r->alloc->pid)
		i++;
	if (i == c->npids && c->npids < 512)
		c->pids[c->npids++] = r->alloc->pid;
}

static void test_heap_fork_and_vfork(void **state)
{
	rec_truth_run r;
	chanfork_ctx c = {0};

	(void)state;
	rec_fixture_truth(&r, "chanfork_O2", "20", "--heap -e page-faults", "chanfork.dprof");
	assert_int_equal(r.n, 2);
	for (size_t i = 0; i < 2; i++) {
		c.sizes[i] = tu_truth_u64(&r.t[i], "size");
		c.want[i] = tu_truth_u64(&r.t[i], "count");
	}
	rec_each(r.profile, chanfork_visit, &c);
	tu_report_accuracy("parent's blocks recorded", (size_t)c.got[0], (size_t)c.want[0],
			   (size_t)c.want[0]);
	tu_report_accuracy("forked children's blocks recorded", (size_t)c.got[1], (size_t)c.want[1],
			   (size_t)c.want[1]);
	assert_int_equal(c.warnings, 0);
	assert_int_equal(c.got[0], c.want[0]);
	assert_int_equal(c.got[1], c.want[1]);
	rec_truth_run_free(&r);
}

/* bash running 200 command substitutions, each a forked subshell that
 * allocates: the channel unmapped its parent's ring in the child through
 * libc's munmap, which the heap tracker hooks, and the hook's record went
 * into the parent's ring, over the parent's own (every run here: "the agent
 * channel sent malformed data" and the heap records lost from then on). */
static void test_heap_subshells(void **state)
{
	char *prof = tu_path("subshells.dprof");
	tu_result res;
	chanfork_ctx c = {0};

	(void)state;
	assert_int_equal(rec_run(&res, prof, "--heap -e page-faults",
				 "bash -c 'for i in $(seq 200); do x=$(echo $i); done'"),
			 0);
	rec_each(prof, chanfork_visit, &c);
	printf("bash: heap records of %zu processes, %zu warnings\n", c.npids, c.warnings);
	assert_int_equal(c.warnings, 0);
	assert_true(c.npids > 200); /* bash and each subshell */
	free(prof);
	tu_result_free(&res);
}

/* A program that closes the channel's descriptors and opens files of its own
 * that get their numbers (fdreuse): its files keep what it wrote, with the
 * rings and with the pipe alone (DATAPROF_AGENT_NO_RING: the recorder makes
 * no rings). A thread's ring was mapped from the memory file's descriptor
 * when the thread first allocated, and the pipe's batches written to its
 * number, whatever it had become. */
static void fdreuse_run(bool rings)
{
	char *prof = tu_path("fdreuse.dprof"), *fx = tu_fixture("fdreuse_O2"), *cmd;
	tu_result res;

	cmd = dp_asprintf("'%s' '%s'", fx, tu_tmpdir());
	if (!rings)
		setenv("DATAPROF_AGENT_NO_RING", "1", 1);
	assert_int_equal(rec_run(&res, prof, "--heap -e page-faults", cmd), 0);
	unsetenv("DATAPROF_AGENT_NO_RING");
	assert_non_null(strstr(res.out, "name=pipe-fd"));
	assert_true(rings == (strstr(res.out, "name=ring-fd") != NULL));
	for (int i = 0; i < 2; i++) {
		char *path = tu_path(i ? "ring-fd" : "pipe-fd");
		size_t len = 0;
		char *got = tu_file_read(path, &len);

		if (i == 0 || rings) {
			assert_non_null(got);
			printf("%s, %s: %zu bytes\n", rings ? "rings" : "pipe alone", path, len);
			assert_int_equal(len, 4);
			assert_memory_equal(got, "keep", 4);
		}
		free(got);
		unlink(path);
		free(path);
	}
	free(cmd);
	free(fx);
	free(prof);
	tu_result_free(&res);
}

static void test_heap_channel_fds_reused(void **state)
{
	(void)state;
	fdreuse_run(true);
	fdreuse_run(false);
}

/* ---- signals: SIGKILL leaves a readable prefix; SIGINT a complete file ---- */

typedef struct fin_ctx {
	bool finished, interrupted, detached;
	size_t samples, mmaps_of;
	uint32_t pid;
	const char *name;
} fin_ctx;

static void fin_visit(void *ctx, const dp_record *r)
{
	fin_ctx *c = ctx;

	if (r->kind == DP_R_FINISH) {
		c->finished = true;
		c->interrupted = r->finish->flags & DP_FINISH_INTERRUPTED;
		c->detached = r->finish->flags & DP_FINISH_DETACHED;
	}
	if (r->kind == DP_R_SAMPLE && (!c->pid || r->sample->pid == c->pid))
		c->samples++;
	if (r->kind == DP_R_MMAP && c->name && strstr(r->mmap.filename, c->name) &&
	    (!c->pid || r->mmap.pid == c->pid))
		c->mmaps_of++;
}

static void test_sigkill_leaves_prefix(void **state)
{
	char *prof = tu_path("killed.dprof"), *out = tu_path("killed.out");
	char *fx = tu_fixture("sleeper_O2");
	tu_result res;
	fin_ctx c = {0};

	(void)state;
	tu_sh(&res,
	      "'%s' record -q -e cpu-clock -F 1000 -o '%s' -- '%s' 20000 > '%s' & R=$!; "
	      /* once the target runs, half a second of its CPU time (~500
	       * samples, however loaded the machine; slow under Valgrind) */
	      "while [ ! -s '%s' ]; do sleep 0.1; done; T=$(sed -n 's/TRUTH pid pid=//p' '%s'); "
	      "sh '%s' $T 50; kill -9 $R; sleep 0.2; kill $T 2>/dev/null; wait $R; exit 0",
	      DATAPROF_BIN, prof, fx, out, out, out, tu_wait_cpu_script());
	rec_each(prof, fin_visit, &c);
	printf("after SIGKILL: %zu samples readable, finish record %s\n", c.samples,
	       c.finished ? "present" : "absent");
	assert_true(c.samples > 100);
	assert_false(c.finished);
	tu_result_free(&res);
	free(prof);
	free(out);
	free(fx);
}

static void test_sigint_stops_target(void **state)
{
	char *prof = tu_path("int.dprof"), *out = tu_path("int.out");
	char *fx = tu_fixture("sleeper_O2");
	char *argv[] = {DATAPROF_BIN, "record", "-q", "-e",    "cpu-clock", "-o",
			prof,	      "--",	fx,   "20000", NULL};
	fin_ctx c = {0};
	int st;
	pid_t pid;

	(void)state;
	pid = rec_start(argv, out);
	/* the target runs (its pid printed) and has burned 20 ticks (200 ms)
	 * of CPU time, however loaded the machine */
	tu_wait_cpu(tu_wait_truth_pid(out), 20);
	kill(pid, SIGINT);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	/* the recorder passed SIGINT on; the target died of it: 128 + 2 */
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 130);
	rec_each(prof, fin_visit, &c);
	assert_true(c.finished);
	assert_true(c.interrupted);
	printf("SIGINT after 200 ms of the target's CPU time: %zu samples\n", c.samples);
	assert_true(c.samples > 50);
	free(prof);
	free(out);
	free(fx);
}

static void test_attach_pid(void **state)
{
	char *prof = tu_path("attach.dprof"), *out = tu_path("attach.out");
	char *fx = tu_fixture("sleeper_O2");
	tu_result res;
	tu_truth *t;
	fin_ctx c = {0};

	(void)state;
	/* the recording lasts until the target has burned 40 ticks (400 ms)
	 * of CPU time, however loaded the machine: about 400 samples */
	tu_sh(&res,
	      "'%s' 60000 > '%s' & S=$!; sleep 0.3; "
	      "'%s' record -q -e cpu-clock -F 1000 -o '%s' -p $S -- sh '%s' $S 40; echo \"rc=$?\"; "
	      "kill -0 $S && echo alive; kill $S; wait $S 2>/dev/null; exit 0",
	      fx, out, DATAPROF_BIN, prof, tu_wait_cpu_script());
	assert_non_null(strstr(res.out, "rc=0"));
	assert_non_null(strstr(res.out, "alive")); /* detached, not killed */
	tu_result_free(&res);
	tu_sh(&res, "cat '%s'", out);
	assert_int_equal(tu_truth_parse(res.out, &t), 1);
	c.pid = (uint32_t)tu_truth_u64(&t[0], "pid");
	c.name = "sleeper_O2";
	rec_each(prof, fin_visit, &c);
	printf("attached to %u: %zu samples, %zu synthesized mappings of the binary\n", c.pid,
	       c.samples, c.mmaps_of);
	assert_true(c.samples > 200);
	assert_true(c.mmaps_of >= 1);
	assert_true(c.finished && c.detached);
	free(t);
	tu_result_free(&res);
	free(prof);
	free(out);
	free(fx);
}

/* ---- a full disk stops the recording cleanly ---- */

static void test_disk_full(void **state)
{
	char *prof = tu_path("full.dprof"), *fx = tu_fixture("pagetouch_O2");
	tu_result res;
	struct stat sb;

	(void)state;
	/* ulimit -f counts KiB: 16 KiB of profile, then EFBIG as a full disk gives ENOSPC */
	tu_sh(&res, "ulimit -f 16; '%s' record -e page-faults -o '%s' -- '%s' 3000 >/dev/null",
	      DATAPROF_BIN, prof, fx);
	assert_int_not_equal(res.status, 0);
	assert_non_null(strstr(res.err, "recording stopped"));
	assert_int_equal(stat(prof, &sb), 0);
	assert_true(sb.st_size <= 16 * 1024);
	size_t n = rec_each(prof, NULL, NULL); /* reads cleanly, no truncated tail */
	dp_error err;
	dp_profile *p = dp_profile_open(prof, &err);
	dp_record r;
	while (dp_profile_next(p, &r) > 0)
		;
	assert_int_equal(dp_profile_status(p)->truncated_at, 0);
	dp_profile_close(p);
	printf("disk full after %lld bytes: %zu samples kept\n", (long long)sb.st_size, n);
	assert_true(n > 10);
	tu_result_free(&res);
	free(prof);
	free(fx);
}

/* ---- bad input: one line, a clear message, a non-zero exit ---- */

static void expect_error(const char *args, int status, const char *want)
{
	rec_expect_exit(status, want, "'%s' %s", DATAPROF_BIN, args);
}

static void test_bad_input(void **state)
{
	(void)state;
	expect_error("record -e no_such_event -- true", 125, "unknown event 'no_such_event'");
	expect_error("record -e cpu-clok -- true", 125, "did you mean");
	if (!dp_have_hw_pmu())
		expect_error("record -e cycles -- true", 125, "no hardware PMU");
	expect_error("record -e cpu-clock -- /nonexistent/program", 127,
		     "cannot execute '/nonexistent/program'");
	expect_error("record -e cpu-clock -o /nonexistent/dir/p.dprof -- true", 125,
		     "cannot write the profile");
	expect_error("record", 125, "nothing to record");
	expect_error("record -c 0 -- true", 125, "-c needs a positive count");
	expect_error("record -c 10 -F 10 -- true", 125, "-c and -F");
	expect_error("record -p 0 -- true", 125, "-p needs a process ID");
	expect_error("record -e cpu-clock -p 99999999 -- true", 125, "no process 99999999");
	expect_error("record -e mem:0x1001/8 -- true", 125, "not aligned");
	expect_error("frobnicate", 2, "not a command");
	expect_error("dump /nonexistent.dprof", 1, "cannot open profile");
}

static void test_help_and_version(void **state)
{
	const char *cmds[] = {"record", "dump", "list"};

	(void)state;
	rec_expect_output("dataprof ", "--version");
	for (size_t i = 0; i < DP_ARRAY_LEN(cmds); i++)
		rec_expect_output("usage: dataprof", "%s --help", cmds[i]);
}

static void test_list(void **state)
{
	tu_result res;

	(void)state;
	assert_int_equal(tu_sh(&res, "'%s' list -o 'perf::*'", DATAPROF_BIN), 0);
	/* software events can always be opened */
	tu_assert_contains(res.out, "PERF_COUNT_SW_CPU_CLOCK", "PERF_COUNT_SW_PAGE_FAULTS", NULL);
	tu_result_free(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    REC_CASE_BUILDS("test_page_faults", test_page_faults, "pagetouch"),
	    cmocka_unit_test(test_cpu_clock_functions),
	    cmocka_unit_test(test_breakpoint_rw),
	    cmocka_unit_test(test_breakpoint_w),
	    cmocka_unit_test(test_threads_followed),
	    cmocka_unit_test(test_heap_ids_after_fork),
	    cmocka_unit_test(test_heap_fork_and_vfork),
	    cmocka_unit_test(test_heap_subshells),
	    cmocka_unit_test(test_heap_channel_fds_reused),
	    cmocka_unit_test(test_heap_ticks),
	    cmocka_unit_test(test_children_followed),
	    cmocka_unit_test(test_sigkill_leaves_prefix),
	    cmocka_unit_test(test_sigint_stops_target),
	    cmocka_unit_test(test_attach_pid),
	    cmocka_unit_test(test_disk_full),
	    cmocka_unit_test(test_bad_input),
	    cmocka_unit_test(test_help_and_version),
	    cmocka_unit_test(test_list),
	};
	tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT);
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, tu_teardown);
}
