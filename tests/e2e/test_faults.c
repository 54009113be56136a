/* Faults of the target during a recording (the misbehave fixture): it
 * segfaults, aborts, execs another program, forks 100 children, makes and
 * ends 1000 threads, dlcloses a library with samples and loads another in
 * its place, and unmaps code to map other code at the same address. The
 * recorder must not crash, every sample must be read back, and decode and
 * report must attribute each to the code that ran then. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "fault_util.h"
#include "tu_feature.h"
#include "tu_group.h"
#include "util.h"

static char *misbehave(void)
{
	return tu_fixture("misbehave_O2");
}

/* ---- the target dies of a signal ---- */

static void check_killed_by(const char *mode, int sig)
{
	char *prof = tu_path("sig.dprof"), *fx = misbehave(), *cmd;
	struct dp_rec_finish f;
	tu_result res;
	size_t n;

	cmd = dp_asprintf("'%s' %s 300", fx, mode);
	tu_sh(&res, "'%s' record -q -e cpu-clock -F 2000 -o '%s' -- %s", DATAPROF_BIN, prof, cmd);
	/* dataprof exits as its command did: 128 + the signal */
	assert_int_equal(res.status, 128 + sig);
	n = rec_each(prof, NULL, NULL);
	assert_true(fault_finish(prof, &f));
	printf("%s: exit %d, %zu samples, FINISH says signal %d\n", mode, res.status, n,
	       WIFSIGNALED(f.wait_status) ? WTERMSIG(f.wait_status) : 0);
	assert_true(WIFSIGNALED(f.wait_status));
	assert_int_equal(WTERMSIG(f.wait_status), sig);
	assert_int_equal(f.samples, n);
	assert_true(n > 100);
	fault_check_usable(prof, NULL);
	tu_result_free(&res);
	free(cmd);
	free(fx);
	free(prof);
}

static void test_target_segfaults(void **state)
{
	(void)state;
	check_killed_by("segv", SIGSEGV);
}

static void test_target_aborts(void **state)
{
	(void)state;
	check_killed_by("abort", SIGABRT);
}

/* ---- exec: the samples after it belong to the new program ---- */

typedef struct exec_ctx {
	size_t before, after, other;
} exec_ctx;

static void test_target_execs(void **state)
{
	char *prof = tu_path("exec.dprof"), *fx = misbehave(), *sl = tu_fixture("sleeper_O2");
	char *cmd = dp_asprintf("'%s' exec 300 '%s' 300", fx, sl);
	tu_result res;

	(void)state;
	assert_int_equal(rec_run(&res, prof, "-e cpu-clock -F 2000", cmd), 0);
	tu_result_free(&res);
	fault_check_usable(prof, NULL);
	/* both programs burn in a function called burn: the process names them */
	assert_int_equal(tu_sh(&res, "'%s' report --by process,function '%s'", DATAPROF_BIN, prof),
			 0);
	printf("%s", res.out);
	tu_assert_contains(res.out, "misbehave_O2  |  burn", "sleeper_O2  |  burn", NULL);
	tu_result_free(&res);
	free(cmd);
	free(sl);
	free(fx);
	free(prof);
}

/* ---- many processes and threads: each one's samples, none lost ---- */

static void check_many(const char *mode, const char *kind, const char *key, size_t count,
		       size_t min_hits)
{
	char *prof = tu_path("many.dprof"), *fx = misbehave();
	char *cmd = dp_asprintf("'%s' %s %zu", fx, mode, count);
	rec_id_hits h;
	tu_result res;
	tu_truth *t;
	size_t n, lines = 0, missing = 0;
	uint64_t lost;

	assert_int_equal(rec_run(&res, prof, "-e page-faults", cmd), 0);
	n = tu_truth_parse(res.out, &t);
	rec_count_id_hits(&h, prof, t, n, kind, key, false);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(t[i].kind, kind))
			continue;
		lines++;
		missing += h.hits[i] < min_hits;
	}
	assert_int_equal(lines, count);
	printf("%s %zu: %zu of them with fewer than %zu samples, %zu FORK records\n", mode, count,
	       missing, min_hits, h.forks);
	assert_int_equal(missing, 0);
	assert_true(h.forks >= count);
	fault_check_usable(prof, &lost);
	assert_int_equal(lost, 0);
	free(h.hits);
	free(t);
	tu_result_free(&res);
	free(cmd);
	free(fx);
	free(prof);
}

static void test_target_forks_100(void **state)
{
	(void)state;
	/* each child touches 4 fresh pages: 4 page faults at least */
	check_many("fork", "child", "pid", 100, 4);
}

static void test_target_1000_threads(void **state)
{
	(void)state;
	check_many("threads", "thread", "tid", 1000, 1);
}

/* ---- code that goes away while it has samples ---- */

typedef struct phase {
	uint64_t t0, t1, base;
	char func[32];
	size_t total, right;
} phase;

typedef struct phase_ctx {
	phase ph[16];
	size_t n;
} phase_ctx;

static void phase_row(void *ctx, uint64_t time, uint32_t pid, const char *function)
{
	phase_ctx *c = ctx;

	(void)pid;
	for (size_t i = 0; i < c->n; i++) {
		phase *p = &c->ph[i];

		if (time < p->t0 || time > p->t1)
			continue;
		p->total++;
		p->right += !strcmp(function, p->func);
	}
}

/* Records misbehave MODE and checks that the samples of each phase are
 * attributed to the function that ran in it. Returns false if the fixture
 * could not set the phases up here. */
static bool check_phases(const char *mode, const char *args)
{
	char *prof = tu_path("phases.dprof"), *fx = misbehave(), *cmd;
	char *la = tu_fixture("libdpfault_a.so"), *lb = tu_fixture("libdpfault_b.so");
	phase_ctx c = {0};
	tu_result res;
	tu_truth *t;
	size_t n;
	bool reused = false, set_up = true;

	cmd = dp_asprintf("'%s' %s '%s' '%s' %s", fx, mode, la, lb, args);
	assert_int_equal(rec_run(&res, prof, "-e cpu-clock -F 2000", cmd), 0);
	n = tu_truth_parse(res.out, &t);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(t[i].kind, "skip")) {
			printf("%s: %s\n", mode, tu_truth_get(&t[i], "reason"));
			set_up = false;
			goto out;
		}
		if (strcmp(t[i].kind, "phase") || c.n == 16)
			continue;
		phase *p = &c.ph[c.n++];
		p->t0 = tu_truth_u64(&t[i], "t0");
		p->t1 = tu_truth_u64(&t[i], "t1");
		p->base = tu_truth_u64(&t[i], "base");
		snprintf(p->func, sizeof(p->func), "%s", tu_truth_get(&t[i], "func"));
		reused |= c.n > 1 && p->base == c.ph[c.n - 2].base;
	}
	assert_true(c.n >= 2);
	fault_each_row(prof, phase_row, &c);
	for (size_t i = 0; i < c.n; i++) {
		phase *p = &c.ph[i];

		printf("%s phase %zu: %s at %#llx: %zu of %zu samples attributed to it\n", mode, i,
		       p->func, (unsigned long long)p->base, p->right, p->total);
		/* 100 ms at 2 kHz: 200 expected; a loaded machine gives fewer */
		assert_true(p->total >= 20);
		/* the edges of a phase may hold the call and the clock reads */
		assert_true(p->right * 100 >= p->total * 95);
	}
	printf("%s: the second library %s the first one's address\n", mode,
	       reused ? "reused" : "did not reuse");
	fault_check_usable(prof, NULL);
out:
	free(t);
	tu_result_free(&res);
	free(cmd);
	free(la);
	free(lb);
	free(fx);
	free(prof);
	return set_up;
}

static void test_dlclose_with_samples(void **state)
{
	(void)state;
	assert_true(check_phases("dlopen", "100 3"));
}

static void test_munmap_code_with_samples(void **state)
{
	(void)state;
	if (!check_phases("munmap", "150"))
		skip();
}

TU_MAIN_AFTER(
    {
	    tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT);
	    signal(SIGPIPE, SIG_IGN);
    },
    NULL, tu_teardown, test_target_segfaults, test_target_aborts, test_target_execs,
    test_target_forks_100, test_target_1000_threads, test_dlclose_with_samples,
    test_munmap_code_with_samples)
