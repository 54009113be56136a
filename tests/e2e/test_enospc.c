/* The disk fills up during a recording: the profile goes to a 256 KiB
 * tmpfs that a page-fault recording of 4000 fresh pages overflows. The
 * recording stops cleanly (the message says so, and why), the command
 * runs to its end, dataprof exits non-zero, and the file reads to its end
 * without a truncated tail, decodes and reports; when the room the cut
 * record left allows it, a FINISH record says "disk full". Mounting needs
 * root: without it the test is skipped (77). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault_util.h"
#include "tu_feature.h"
#include "util.h"

#define FS_BYTES (256 * 1024)

static char *mnt;

static void test_disk_full(void **state)
{
	char *prof = dp_asprintf("%s/full.dprof", mnt), *fx = tu_fixture("pagetouch_O2");
	struct dp_rec_finish f;
	tu_result res;
	struct stat sb;
	dp_error err;
	dp_profile *p;
	dp_record r;
	size_t n;

	(void)state;
	tu_sh(&res, "'%s' record -e page-faults -o '%s' -- '%s' 4000 >/dev/null", DATAPROF_BIN,
	      prof, fx);
	printf("record: exit %d: %s", res.status, res.err);
	assert_int_not_equal(res.status, 0);
	assert_non_null(strstr(res.err, "recording stopped"));
	assert_non_null(strstr(res.err, strerror(ENOSPC)));
	/* the command ran to its end: pagetouch prints after its last page */
	assert_int_equal(stat(prof, &sb), 0);
	assert_true(sb.st_size <= FS_BYTES);
	/* every record reads; the file ends on a record boundary */
	p = dp_profile_open(prof, &err);
	assert_non_null(p);
	while (dp_profile_next(p, &r) > 0)
		;
	assert_int_equal(dp_profile_status(p)->truncated_at, 0);
	assert_int_equal(dp_profile_status(p)->error[0], 0);
	n = dp_profile_status(p)->samples;
	dp_profile_close(p);
	printf("disk full after %lld bytes: %zu samples kept\n", (long long)sb.st_size, n);
	assert_true(n > 100);
	if (fault_finish(prof, &f)) {
		printf("FINISH: flags %#x, %llu bytes before it\n", f.flags,
		       (unsigned long long)f.bytes);
		assert_true(f.flags & DP_FINISH_DISK_FULL);
	} else {
		printf("no room was left for the FINISH record\n");
	}
	fault_check_usable(prof, NULL);
	tu_result_free(&res);
	free(fx);
	free(prof);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disk_full),
	};
	char opts[64];
	int rc;
	tu_require_program(DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT);

	signal(SIGPIPE, SIG_IGN);
	mnt = tu_path("fs");
	snprintf(opts, sizeof(opts), "size=%d,mode=0755", FS_BYTES);
	if (mkdir(mnt, 0755) < 0 || mount("dataprof-test", mnt, "tmpfs", 0, opts) < 0) {
		printf("cannot mount a tmpfs at %s (%s): skipped\n", mnt, strerror(errno));
		tu_cleanup();
		return 77;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	umount2(mnt, MNT_DETACH);
	tu_cleanup();
	free(mnt);
	return rc;
}
