#include "decode_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

dp_decoder *rec_decoder_open(const char *profile, dp_profile **p)
{
	dp_error err = {{0}};
	dp_decoder *d;

	*p = dp_profile_open(profile, &err);
	if (!*p)
		fail_msg("%s", err.msg);
	d = dp_decoder_open(*p, NULL, &err);
	if (!d)
		fail_msg("%s", err.msg);
	return d;
}

void rec_decode_each_with(const char *profile, rec_decoded_d_fn fn, void *ctx, dp_decoder **keep,
			  dp_profile **keep_p)
{
	dp_profile *p;
	dp_decoder *d = rec_decoder_open(profile, &p);
	dp_record r;
	dp_decoded x;

	while (dp_profile_next(p, &r) > 0) {
		if (r.kind != DP_R_SAMPLE)
			continue;
		dp_decode_sample(d, r.sample, &x);
		fn(ctx, r.sample, &x, d);
	}
	if (keep) {
		*keep = d;
		*keep_p = p;
	} else {
		dp_decoder_free(d);
		dp_profile_close(p);
	}
}

struct plain {
	rec_decoded_fn fn;
	void *ctx;
};

static void call_plain(void *ctx, const dp_sample *s, const dp_decoded *x, dp_decoder *d)
{
	struct plain *pl = ctx;

	(void)d;
	pl->fn(pl->ctx, s, x);
}

void rec_decode_each(const char *profile, rec_decoded_fn fn, void *ctx)
{
	struct plain pl = {fn, ctx};

	rec_decode_each_with(profile, call_plain, &pl, NULL, NULL);
}
