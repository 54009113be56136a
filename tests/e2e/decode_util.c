#include "decode_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

void rec_decode_each(const char *profile, rec_decoded_fn fn, void *ctx)
{
	dp_error err = {{0}};
	dp_profile *p = dp_profile_open(profile, &err);
	dp_decoder *d;
	dp_record r;
	dp_decoded x;

	if (!p)
		fail_msg("%s", err.msg);
	d = dp_decoder_open(p, NULL, &err);
	if (!d)
		fail_msg("%s", err.msg);
	while (dp_profile_next(p, &r) > 0) {
		if (r.kind != DP_R_SAMPLE)
			continue;
		dp_decode_sample(d, r.sample, &x);
		fn(ctx, r.sample, &x);
	}
	dp_decoder_free(d);
	dp_profile_close(p);
}
