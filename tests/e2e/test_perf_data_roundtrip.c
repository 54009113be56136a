/* perf record on this machine, read back by dataprof: every address the
 * pagetouch fixture touched comes out as a page-faults sample address
 * (file mode, pipe mode, zstd-compressed), and cpu-clock samples carry the
 * user registers perf was asked for. Skipped where perf cannot record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <asm/perf_regs.h>

#include "record_util.h"
#include "tu_group.h"
#include "tu_feature.h"
#include "util.h"

/* perf record, quiet; the target's stdout (truth lines) in res->out;
 * rings of 4 MiB a CPU where allowed, as rec_run's. */
static int perf_rec(tu_result *res, const char *opts, const char *cmd)
{
	/* -N: no build-id cache in ~/.debug, which would outlive the test */
	int rc =
	    tu_sh(res, "perf record -q -N %s %s -- %s", geteuid() == 0 ? "-m 1024" : "", opts, cmd);

	if (rc != 0)
		fprintf(stderr, "perf record exited %d: %s\n", rc, res->err);
	return rc;
}

static int have_perf(void **state)
{
	tu_result res;
	char *out = tu_path("probe.data");
	int rc = tu_sh(&res, "perf record -q -N -e page-faults -o '%s' -- true", out);

	(void)state;
	tu_result_free(&res);
	free(out);
	return rc == 0 ? 0 : -1;
}

/* mode: "file", "pipe" (perf writes to stdout) or "zstd" (perf -z). -c 1:
 * every fault; perf's default (4000 samples a second) would keep a few. */
static void check_page_faults(const char *fixture, const char *mode)
{
	char *data = tu_path("pf.data"), *fx = tu_fixture(fixture), *cmd, *what;
	tu_result res;
	rec_pf_result c;
	size_t nev;

	if (!strcmp(mode, "pipe")) {
		/* the fixture's truth goes to a file: perf's stdout is the data */
		char *truth = tu_path("truth.txt");

		cmd = dp_asprintf(
		    "perf record -q -N -e page-faults -c 1 -d -o - -- sh -c \"'%s' 64 > '%s'\" "
		    "> '%s'",
		    fx, truth, data);
		assert_int_equal(tu_sh(&res, "%s", cmd), 0);
		tu_result_free(&res);
		assert_int_equal(tu_sh(&res, "cat '%s'", truth), 0);
		free(truth);
	} else {
		char *opts = dp_asprintf("-e page-faults -c 1 -d %s -o '%s'",
					 !strcmp(mode, "zstd") ? "-z" : "", data);

		cmd = dp_asprintf("'%s' 64", fx);
		assert_int_equal(perf_rec(&res, opts, cmd), 0);
		free(opts);
	}
	rec_pf_check(data, res.out, &c);
	assert_int_equal(c.accesses, 64);

	dp_error err;
	dp_profile *p = dp_profile_open(data, &err);
	assert_non_null(p);
	const dp_event_info *ev = dp_profile_events(p, &nev);
	assert_string_equal(ev[0].name, "page-faults");
	assert_int_equal(ev[0].ip_sem, DP_IP_EXACT);
	assert_int_equal(ev[0].evclass, DP_EVC_MEMORY);
	assert_int_equal(dp_profile_status(p)->format,
			 !strcmp(mode, "pipe") ? DP_FMT_PERF_PIPE : DP_FMT_PERF_FILE);
	dp_profile_close(p);

	what = dp_asprintf("perf.data (%s) %s", mode, fixture);
	tu_report_accuracy(what, c.matched, c.in_region, c.accesses);
	/* one fault per page, each at the address the program touched, with
	 * the IP in the program's own code */
	assert_int_equal(c.in_region, c.accesses);
	assert_int_equal(c.matched, c.accesses);
	assert_int_equal(c.exact_ip, c.accesses);
	/* -z: the samples came out of perf's compressed records */
	assert_int_equal(c.decompressed, !strcmp(mode, "zstd") ? c.accesses : 0);
	free(what);
	free(cmd);
	free(fx);
	free(data);
	tu_result_free(&res);
}

static void test_page_faults_file(void **state)
{
	(void)state;
	check_page_faults("pagetouch_O0", "file");
	check_page_faults("pagetouch_O2", "file");
}

static void test_page_faults_pipe(void **state)
{
	(void)state;
	check_page_faults("pagetouch_O2", "pipe");
}

static void test_page_faults_zstd(void **state)
{
	(void)state;
	check_page_faults("pagetouch_O2", "zstd");
}

/* ---- cpu-clock with user registers ---- */

#define USER_REGS "ax,bx,cx,dx,si,di,bp,sp,ip,flags,r8,r9,r10,r11,r12,r13,r14,r15"
/* perf register numbers: AX..FLAGS are 0..9, R8..R15 16..23 */
#define USER_MASK 0xff03ffull

typedef struct regs_ctx {
	uint32_t pid;
	size_t user, filled, ip_match;
} regs_ctx;

/* The target's pid, from its COMM exec record. A pass of its own: perf writes
 * each CPU's ring in turn, so the record can come after the samples in the
 * file (the target moved to another CPU after its exec). */
static void target_visit(void *ctx, const dp_record *r)
{
	regs_ctx *c = ctx;

	if (r->kind == DP_R_COMM && r->comm.exec && strstr(r->comm.comm, "spin"))
		c->pid = r->pid;
}

static void regs_visit(void *ctx, const dp_record *r)
{
	regs_ctx *c = ctx;
	const dp_sample *s;

	if (r->kind != DP_R_SAMPLE || r->sample->pid != c->pid || !c->pid)
		return;
	s = r->sample;
	if ((s->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)
		return;
	c->user++;
	if (s->regs_user.abi == PERF_SAMPLE_REGS_ABI_64 && s->regs_user.mask == USER_MASK &&
	    s->regs_user.regs[PERF_REG_X86_SP] != 0)
		c->filled++;
	/* in user mode, the interrupted IP is the user registers' IP */
	c->ip_match += s->regs_user.regs[PERF_REG_X86_IP] == s->ip;
}

static void test_cpu_clock_user_regs(void **state)
{
	char *data = tu_path("regs.data"), *fx = tu_fixture("spin_O2"), *cmd, *opts;
	tu_result res;
	regs_ctx c = {0};

	(void)state;
	opts = dp_asprintf("-e cpu-clock -F 2000 --user-regs=" USER_REGS " -o '%s'", data);
	cmd = dp_asprintf("'%s' 300", fx);
	assert_int_equal(perf_rec(&res, opts, cmd), 0);
	rec_each(data, target_visit, &c);
	rec_each(data, regs_visit, &c);
	printf("cpu-clock: %zu user samples of the target, %zu with every register, %zu with "
	       "regs ip == sample ip\n",
	       c.user, c.filled, c.ip_match);
	assert_true(c.user > 100);
	assert_int_equal(c.filled, c.user);
	assert_int_equal(c.ip_match, c.user);
	free(opts);
	free(cmd);
	free(fx);
	free(data);
	tu_result_free(&res);
}

/* dataprof dump reads what perf wrote, by path and by -i. */
static void test_dump(void **state)
{
	char *data = tu_path("dump.data"), *fx = tu_fixture("pagetouch_O0"), *cmd, *opts;
	tu_result res;

	(void)state;
	opts = dp_asprintf("-e page-faults -d -o '%s'", data);
	cmd = dp_asprintf("'%s' 8", fx);
	assert_int_equal(perf_rec(&res, opts, cmd), 0);
	tu_result_free(&res);
	assert_int_equal(tu_sh(&res, "'%s' dump -i '%s'", DATAPROF_BIN, data), 0);
	tu_assert_contains(res.out, "# perf.data, file mode", "# event #0 page-faults",
			   "SAMPLE page-faults", "0 unknown, 0 bad samples", NULL);
	tu_result_free(&res);
	assert_int_equal(tu_sh(&res, "'%s' dump -s '%s'", DATAPROF_BIN, data), 0);
	assert_non_null(strstr(res.out, " samples (page-faults "));
	free(opts);
	free(cmd);
	free(fx);
	free(data);
	tu_result_free(&res);
}

/* every test compares with what perf itself records: skipped without it */
static void require_perf(void)
{
	tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT);
	if (have_perf(NULL) < 0) {
		printf(
		    "perf cannot record here (not installed, or perf_event_paranoid): skipped\n");
		tu_cleanup();
		exit(77);
	}
}

TU_MAIN_AFTER(require_perf(), NULL, tu_teardown, test_page_faults_file, test_page_faults_pipe,
	      test_page_faults_zstd, test_cpu_clock_user_regs, test_dump)
