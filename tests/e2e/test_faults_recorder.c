/* Faults of the recorder itself: SIGINT, SIGTERM and SIGKILL sent to it,
 * and ring buffers that overflow because it could not drain them (stopped
 * with SIGSTOP). Every complete record must survive, the lost samples must
 * be counted in the profile and shown by dump, report and report --json,
 * and the profile must decode and report. (The disk filling up is
 * test_enospc; RLIMIT_FSIZE is test_record's test_disk_full.) */
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

#include "fault_util.h"
#include "tu_feature.h"
#include "tu_group.h"
#include "util.h"

/* Until the recorder is up: its profile exists (slow under Valgrind). */
static void wait_profile(const char *prof)
{
	struct stat sb;

	while (stat(prof, &sb) < 0 || !sb.st_size)
		usleep(20 * 1000);
}

static int wait_exit(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* SIGINT or SIGTERM to the recorder alone: passed on to the command, which
 * dies of it; the profile is complete and says it was interrupted. */
static void check_interrupt(int sig)
{
	char *name = dp_asprintf("int%d.dprof", sig), *prof = tu_path(name);
	char *fx = tu_fixture("sleeper_O2");
	char *argv[] = {DATAPROF_BIN, "record", "-q", "-e", "cpu-clock", "-F", "2000", "-o", prof,
			"--", fx, "20000", NULL};
	struct dp_rec_finish f;
	pid_t pid = rec_start(argv, "/dev/null");
	size_t n;

	wait_profile(prof);
	usleep(700 * 1000);
	kill(pid, sig);
	assert_int_equal(wait_exit(pid), 128 + sig);
	n = rec_each(prof, NULL, NULL);
	assert_true(fault_finish(prof, &f));
	printf("signal %d to the recorder: %zu samples, FINISH flags %#x, target status %#x\n",
	       sig, n, f.flags, (unsigned)f.wait_status);
	assert_true(f.flags & DP_FINISH_INTERRUPTED);
	assert_true(WIFSIGNALED(f.wait_status) && WTERMSIG(f.wait_status) == sig);
	assert_int_equal(f.samples, n);
	assert_true(n > 50); /* 700 ms at 2 kHz, on a machine that may be busy */
	fault_check_usable(prof, NULL);
	free(prof);
	free(name);
	free(fx);
}

static void test_sigint(void **state)
{
	(void)state;
	check_interrupt(SIGINT);
}

static void test_sigterm(void **state)
{
	(void)state;
	check_interrupt(SIGTERM);
}

/* SIGKILL: no FINISH, but every record written so far reads, decodes and
 * reports; dump says the recorder did not finish. */
static void test_sigkill(void **state)
{
	char *prof = tu_path("killed.dprof"), *fx = tu_fixture("sleeper_O2");
	char *out = tu_path("killed.out");
	char *argv[] = {DATAPROF_BIN, "record", "-q", "-e", "cpu-clock", "-F", "2000", "-o", prof,
			"--", fx, "20000", NULL};
	struct dp_rec_finish f;
	tu_result res;
	pid_t pid = rec_start(argv, out);
	tu_truth *t;
	size_t n;

	(void)state;
	wait_profile(prof);
	/* half a second of the target's CPU time: ~1,000 samples at 2 kHz,
	 * however loaded the machine */
	tu_wait_cpu(tu_wait_truth_pid(out), 50);
	kill(pid, SIGKILL);
	assert_int_equal(wait_exit(pid), 128 + SIGKILL);
	n = rec_each(prof, NULL, NULL);
	printf("after SIGKILL: %zu samples readable\n", n);
	assert_false(fault_finish(prof, &f));
	assert_true(n > 200);
	fault_check_usable(prof, NULL);
	assert_int_equal(tu_sh(&res, "'%s' dump -s '%s'", DATAPROF_BIN, prof), 0);
	assert_non_null(strstr(res.err, "no end record"));
	tu_result_free(&res);
	/* the orphaned target runs on until its time is up: end it */
	tu_sh(&res, "cat '%s'", out);
	if (tu_truth_parse(res.out, &t) >= 1) {
		kill((pid_t)tu_truth_u64(&t[0], "pid"), SIGKILL);
		free(t);
	}
	tu_result_free(&res);
	free(out);
	free(prof);
	free(fx);
}

/* Rings that overflow: a high rate into 4 KiB rings while the recorder is
 * stopped. The kernel's LOST records are kept and counted: FINISH, dump,
 * report and JSON give the same number. */
static void test_ring_overflow(void **state)
{
	char *prof = tu_path("lost.dprof"), *fx = tu_fixture("sleeper_O2");
	char *argv[] = {DATAPROF_BIN, "record", "-e", "cpu-clock", "-F", "20000", "-m", "1",
			"-o", prof, "--", fx, "1500", NULL};
	struct dp_rec_finish f;
	uint64_t lost = 0;
	pid_t pid = rec_start(argv, "/dev/null");
	size_t n;

	(void)state;
	wait_profile(prof);
	usleep(300 * 1000);
	kill(pid, SIGSTOP);
	usleep(700 * 1000);
	kill(pid, SIGCONT);
	assert_int_equal(wait_exit(pid), 0);
	n = rec_each(prof, NULL, NULL);
	assert_true(fault_finish(prof, &f));
	fault_check_usable(prof, &lost);
	printf("rings overflowed: %zu samples kept, %llu lost (FINISH: %llu)\n", n,
	       (unsigned long long)lost, (unsigned long long)f.lost);
	assert_true(lost > 0);
	assert_int_equal(f.lost, lost);
	assert_int_equal(f.samples, n);
	free(prof);
	free(fx);
}

TU_MAIN_AFTER(
    {
	    tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_COUNT);
	    signal(SIGPIPE, SIG_IGN);
    },
    NULL, tu_teardown, test_sigint, test_sigterm, test_sigkill, test_ring_overflow)
