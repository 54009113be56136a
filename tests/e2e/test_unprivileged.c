/* dataprof as a normal user, at kernel.perf_event_paranoid 2: profiling
 * the user's own programs works (user space only); what needs more
 * privilege fails with one line saying what (kernel samples, another
 * user's process); a set-user-ID program is neither profiled nor made to
 * load or write what the environment names; profiles get the user's umask.
 * Needs root to make the user (dataprof-test, useradd) and run as it
 * (setpriv): skipped (77) without, or at another paranoid level. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "record_util.h"
#include "tu_group.h"
#include "tu_feature.h"
#include "util.h"

#define USER "dataprof-test"

static uid_t uid;
static gid_t gid;
static char *dir; /* the user's working directory */
/* Copies of dataprof (with its agent libraries) and of the fixtures where
 * the user can reach them: the build tree may be under a directory only
 * root can enter (a clone in /root, or in a mktemp -d directory). */
static char *pub, *bin;

static char *user_fixture(const char *name)
{
	return dp_asprintf("%s/fx/%s", pub, name);
}

/* Runs a shell script as the user, in dir. */
static int as_user(tu_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int as_user(tu_result *res, const char *fmt, ...)
{
	char *script = dp_asprintf("%s/cmd.sh", dir), *body;
	FILE *f;

	REC_VFORMAT(body, fmt);
	f = fopen(script, "w");
	assert_non_null(f);
	fprintf(f, "cd '%s' || exit 99\nexport ASAN_OPTIONS=detect_leaks=0\n%s\n", dir, body);
	fclose(f);
	chmod(script, 0755);
	tu_sh(res, "setpriv --reuid=%u --regid=%u --clear-groups -- /bin/sh '%s'", (unsigned)uid,
	      (unsigned)gid, script);
	free(body);
	free(script);
	return res->status;
}

/* One line from dataprof; Valgrind's own ("--PID-- WARNING: unhandled
 * syscall") are not dataprof's, under tests/valgrind.sh. */
static void assert_one_line(const tu_result *res)
{
	int lines = 0;

	for (const char *l = res->err; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		if (!strncmp(l, "--", 2) || !strncmp(l, "==", 2))
			continue;
		lines++;
	}
	if (lines != 1)
		fail_msg("not one line: %s", res->err);
}

/* ---- the user's own programs ---- */

typedef struct own_ctx {
	size_t samples, kernel_ip, not_user_mode, kernel_maps;
} own_ctx;

static void own_visit(void *ctx, const dp_record *r)
{
	own_ctx *c = ctx;

	if (r->kind == DP_R_MMAP && r->mmap.start >= 0x800000000000ull)
		c->kernel_maps++;
	if (r->kind != DP_R_SAMPLE)
		return;
	c->samples++;
	c->kernel_ip += r->sample->ip >= 0x800000000000ull;
	c->not_user_mode += (r->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER;
}

static void check_own(const char *event, const char *fixture, const char *args)
{
	char *fx = user_fixture(fixture), *prof = dp_asprintf("%s/own.dprof", dir);
	own_ctx c = {0};
	tu_result res;
	struct stat sb;

	if (as_user(&res, "'%s' record -q -e %s -o own.dprof -- '%s' %s >/dev/null", bin,
		    event, fx, args) != 0)
		fail_msg("record -e %s as %s: exit %d: %s", event, USER, res.status, res.err);
	tu_result_free(&res);
	assert_int_equal(stat(prof, &sb), 0);
	assert_int_equal(sb.st_uid, uid);
	rec_each(prof, own_visit, &c);
	printf("%s as %s: %zu samples, %zu with a kernel IP, %zu not in user mode, %zu kernel "
	       "mappings\n",
	       event, USER, c.samples, c.kernel_ip, c.not_user_mode, c.kernel_maps);
	assert_true(c.samples > 10);
	assert_int_equal(c.kernel_ip, 0);
	assert_int_equal(c.not_user_mode, 0);
	assert_int_equal(c.kernel_maps, 0);
	assert_int_equal(as_user(&res, "'%s' report own.dprof", bin), 0);
	tu_result_free(&res);
	free(prof);
	free(fx);
}

static void test_own_program(void **state)
{
	struct stat sb;
	char cap[64];

	(void)state;
	/* dataprof itself asks for nothing: no set-ID bit, no file capabilities */
	assert_int_equal(stat(DATAPROF_BIN, &sb), 0);
	assert_false(sb.st_mode & (S_ISUID | S_ISGID));
	assert_true(getxattr(DATAPROF_BIN, "security.capability", cap, sizeof(cap)) < 0);
	check_own("page-faults", "pagetouch_O2", "64");
	check_own("cpu-clock -F 2000", "spin_O2", "300");
}

/* ---- what needs more privilege: one line saying what ---- */

static void test_kernel_sampling_refused(void **state)
{
	const char *events[] = {"cpu-clock:k", "page-faults:k", "cpu-clock:uk"};
	tu_result res;

	(void)state;
	for (size_t i = 0; i < DP_ARRAY_LEN(events); i++) {
		as_user(&res, "'%s' record -e %s -o k.dprof -- true", bin, events[i]);
		printf("-e %s: exit %d: %s", events[i], res.status, res.err);
		assert_int_equal(res.status, 125);
		assert_one_line(&res);
		tu_assert_contains(res.err, "perf_event_paranoid 1 or lower", "CAP_PERFMON", NULL);
		tu_result_free(&res);
	}
}

/* -a: every process is more than one's own: one line saying what it needs */
static void test_system_wide_refused(void **state)
{
	tu_result res;

	(void)state;
	as_user(&res, "'%s' record -e cpu-clock -a --duration 0.2 -o a.dprof", bin);
	printf("-a: exit %d: %s", res.status, res.err);
	assert_int_equal(res.status, 125);
	assert_one_line(&res);
	assert_non_null(strstr(res.err, "needs CAP_PERFMON (or root) or "
					"kernel.perf_event_paranoid 0 or lower (it is 2)"));
	tu_result_free(&res);
}

static void test_other_users_process(void **state)
{
	char *fx = user_fixture("sleeper_O2");
	char *argv[] = {fx, "20000", NULL};
	tu_result res;
	pid_t pid;
	int st;

	(void)state;
	pid = fork(); /* root's */
	assert_true(pid >= 0);
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		execv(fx, argv);
		_exit(127);
	}
	usleep(100 * 1000);
	as_user(&res, "'%s' record -e cpu-clock -o other.dprof -p %d -- sleep 0.2", bin,
		(int)pid);
	printf("-p %d (root's): exit %d: %s", (int)pid, res.status, res.err);
	assert_int_equal(res.status, 125);
	assert_one_line(&res);
	assert_non_null(strstr(res.err, "it is user root's"));
	tu_result_free(&res);
	/* its counters: the kernel's perf counters are refused, and the warning
	 * says whose it is; what /proc shows everyone is read */
	assert_int_equal(as_user(&res, "'%s' stat -q --counters 'perf/sw/*,proc/pid_stat/*' "
				       "-p %d -- sleep 0.2",
				 bin, (int)pid),
			 0);
	printf("stat -p %d (root's): %s", (int)pid, res.err);
	assert_non_null(strstr(res.err, "it is user root's (that needs that user, or root)"));
	tu_result_free(&res);
	/* nothing of it was written: no profile, or one without samples */
	struct stat sb;
	char *prof = dp_asprintf("%s/other.dprof", dir);
	if (stat(prof, &sb) == 0)
		assert_int_equal(rec_each(prof, NULL, NULL), 0);
	free(prof);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	free(fx);
}

/* ---- set-user-ID programs ---- */

/* A copy of fixture in dir, set-user-ID to nobody. */
static char *setuid_copy(const char *fixture)
{
	char *fx = user_fixture(fixture), *copy = dp_asprintf("%s/%s_suid", dir, fixture);
	struct passwd *nobody = getpwnam("nobody");
	tu_result res;

	assert_non_null(nobody);
	assert_int_equal(tu_sh(&res, "cp '%s' '%s'", fx, copy), 0);
	tu_result_free(&res);
	assert_int_equal(chown(copy, nobody->pw_uid, nobody->pw_gid), 0);
	assert_int_equal(chmod(copy, 04755), 0);
	free(fx);
	return copy;
}

static void test_setuid_not_profiled(void **state)
{
	char *copy = setuid_copy("pagetouch_O2"), *prof = dp_asprintf("%s/suid.dprof", dir);
	tu_result res;
	size_t n;

	(void)state;
	assert_int_equal(as_user(&res, "'%s' record -e page-faults -o suid.dprof -- '%s' 64 "
				       ">/dev/null",
				 bin, copy),
			 0);
	printf("set-user-ID target: %s", res.err);
	assert_non_null(strstr(res.err, "is set-user-ID (it runs as user nobody)"));
	tu_result_free(&res);
	n = rec_each(prof, NULL, NULL);
	printf("samples of it: %zu\n", n);
	assert_int_equal(n, 0);
	free(prof);
	free(copy);
}

static void test_setuid_ignores_environment(void **state)
{
	char *copy = setuid_copy("trustenv_O2"), *fx = user_fixture("trustenv_O2");
	char *evil = user_fixture("libevil_collector.so");
	char *heap = dp_asprintf("%.*s/libdataprof_heap.so",
				 (int)(strrchr(bin, '/') - bin), bin);
	/* where the library can leave its proof as whichever user loaded it */
	char *proofs = dp_asprintf("%s/proofs", dir);
	char *proof = dp_asprintf("%s/proof", proofs), *proof_suid = dp_asprintf("%s/suid", proofs);
	tu_result res;
	tu_truth *t;
	struct stat sb;

	(void)state;
	assert_int_equal(mkdir(proofs, 0755), 0);
	assert_int_equal(chmod(proofs, 01777), 0);
	/* an ordinary program loads what DATAPROF_COLLECTOR names: the check can fail */
	assert_int_equal(as_user(&res, "DATAPROF_COLLECTOR='%s' EVIL_PROOF='%s' '%s'", evil, proof,
				 fx),
			 0);
	assert_int_equal(stat(proof, &sb), 0);
	tu_result_free(&res);
	/* a set-user-ID one does not */
	assert_int_equal(as_user(&res, "DATAPROF_COLLECTOR='%s' EVIL_PROOF='%s' '%s'", evil,
				 proof_suid, copy),
			 0);
	assert_int_equal(tu_truth_parse(res.out, &t), 2);
	printf("set-user-ID program: %s", res.out);
	assert_int_not_equal(tu_truth_u64(&t[0], "uid"), tu_truth_u64(&t[0], "euid"));
	assert_true(stat(proof_suid, &sb) < 0 && errno == ENOENT); /* not loaded */
	assert_int_equal(tu_truth_u64(&t[0], "on"), 0);
	assert_non_null(strstr(tu_truth_get(&t[0], "error"), "DATAPROF_COLLECTOR is ignored"));
	free(t);
	tu_result_free(&res);
	/* LD_PRELOAD (record --heap's): the dynamic loader drops it for the
	 * set-user-ID program, not for the other one */
	for (int suid = 0; suid < 2; suid++) {
		assert_int_equal(as_user(&res, "LD_PRELOAD='%s' '%s'", heap, suid ? copy : fx), 0);
		assert_int_equal(tu_truth_parse(res.out, &t), 2);
		printf("LD_PRELOAD of the heap tracker, %s: heap=%s\n",
		       suid ? "set-user-ID" : "ordinary", tu_truth_get(&t[1], "heap"));
		assert_int_equal(tu_truth_u64(&t[1], "heap"), suid ? 0 : 1);
		free(t);
		tu_result_free(&res);
	}
	/* nor the collector and channel record --markers gives it (the
	 * kernel's part aside: it would not profile it anyway) */
	assert_int_equal(as_user(&res, "'%s' record -q --markers -e page-faults -o m.dprof -- "
				       "'%s'",
				 bin, copy),
			 0);
	assert_non_null(strstr(res.out, "on=0"));
	tu_result_free(&res);
	free(proof_suid);
	free(proof);
	free(proofs);
	free(heap);
	free(evil);
	free(fx);
	free(copy);
}

/* ---- files get the user's umask ---- */

static void test_umask(void **state)
{
	const struct {
		const char *umask;
		mode_t mode;
	} cases[] = {{"077", 0600}, {"022", 0644}};
	tu_result res;

	(void)state;
	for (size_t i = 0; i < DP_ARRAY_LEN(cases); i++) {
		char *prof = dp_asprintf("%s/umask%s.dprof", dir, cases[i].umask);
		struct stat sb;

		assert_int_equal(as_user(&res, "umask %s; '%s' record -q -e page-faults -o '%s' -- "
					       "true",
					 cases[i].umask, bin, prof),
				 0);
		tu_result_free(&res);
		assert_int_equal(stat(prof, &sb), 0);
		printf("umask %s: profile mode %04o\n", cases[i].umask, sb.st_mode & 07777);
		assert_int_equal(sb.st_mode & 07777, cases[i].mode);
		free(prof);
	}
}

/* 0 when the test can run here; else why not. */
static const char *setup_user(void)
{
	static char why[128];
	struct passwd *pw;
	tu_result res;
	int paranoid = -9;
	FILE *f;

	if (geteuid() != 0)
		return "not root: cannot make a user and run as it";
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (!f || fscanf(f, "%d", &paranoid) != 1)
		paranoid = -9;
	if (f)
		fclose(f);
	if (paranoid != 2) {
		snprintf(why, sizeof(why), "kernel.perf_event_paranoid is %d, not 2", paranoid);
		return why;
	}
	if (!getpwnam(USER)) {
		tu_sh(&res, "useradd --system --no-create-home --shell /usr/sbin/nologin %s", USER);
		tu_result_free(&res);
	}
	pw = getpwnam(USER);
	if (!pw)
		return "useradd " USER " failed";
	uid = pw->pw_uid;
	gid = pw->pw_gid;
	if (tu_sh(&res, "command -v setpriv >/dev/null") != 0) {
		tu_result_free(&res);
		return "no setpriv";
	}
	tu_result_free(&res);
	/* the user must reach its directory: open the test's own on the way */
	dir = tu_path("user");
	if (chmod(tu_tmpdir(), 0755) < 0 || mkdir(dir, 0755) < 0 || chown(dir, uid, gid) < 0)
		return "cannot make the user's directory";
	pub = tu_path("pub");
	bin = dp_asprintf("%s/bin/dataprof", pub);
	char *bindir = dp_strndup(DATAPROF_BIN, (size_t)(strrchr(DATAPROF_BIN, '/') - DATAPROF_BIN));
	char *fx = tu_fixture("pagetouch_O2");
	char *fxdir = dp_strndup(fx, (size_t)(strrchr(fx, '/') - fx));
	int rc = tu_sh(&res,
		       "set -e; mkdir -p '%s/bin' '%s/fx'; cp '%s' '%s'/libdataprof_*.so '%s/bin/';"
		       "cd '%s'; cp pagetouch_O2 spin_O2 sleeper_O2 trustenv_O2 "
		       "libevil_collector.so '%s/fx/'; chmod -R a+rX '%s'",
		       pub, pub, DATAPROF_BIN, bindir, pub, fxdir, pub, pub);
	tu_result_free(&res);
	free(fx);
	free(fxdir);
	free(bindir);
	if (rc)
		return "cannot copy dataprof and the fixtures where the user reaches them";
	return NULL;
}

/* every test runs as another user: skipped where there is none */
static void require_user(void)
{
	const char *why;

	tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT);
	signal(SIGPIPE, SIG_IGN);
	why = setup_user();
	if (why) {
		printf("test_unprivileged: skipped: %s\n", why);
		tu_cleanup();
		exit(77);
	}
}

TU_MAIN_AFTER(require_user(), NULL, tu_teardown, test_own_program, test_kernel_sampling_refused,
	      test_system_wide_refused, test_other_users_process, test_setuid_not_profiled,
	      test_setuid_ignores_environment, test_umask)
