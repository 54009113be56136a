#include "record_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>

#include "tu_feature.h"
#include "util.h"

int rec_run(tu_result *res, const char *profile, const char *opts, const char *cmd)
{
	int rc;

	/* an event this machine does not deliver: the test should have skipped */
	tu_check_events(opts);
	rc = tu_sh(res, "'%s' record -q -o '%s' %s -- %s", DATAPROF_BIN, profile, opts, cmd);

	if (rc != 0)
		fprintf(stderr, "record exited %d: %s\n", rc, res->err);
	return rc;
}

size_t rec_each(const char *profile, rec_sample_fn fn, void *ctx)
{
	dp_error err = {{0}};
	dp_profile *p = dp_profile_open(profile, &err);
	dp_record r;
	int rc;

	if (!p)
		fail_msg("%s", err.msg);
	while ((rc = dp_profile_next(p, &r)) > 0)
		if (fn)
			fn(ctx, p, &r);
	assert_int_equal(rc, 0);
	size_t n = dp_profile_status(p)->samples;
	dp_profile_close(p);
	return n;
}
