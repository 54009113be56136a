#include "annot_util.h"
#include "decode_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

void rec_annotate_each(const char *profile, rec_annotated_fn fn, void *ctx)
{
	dp_error err = {{0}};
	dp_profile *p;
	dp_decoder *d = rec_decoder_open(profile, &p);
	dp_annotator *an;
	dp_record r;

	an = dp_annotator_open(d, p, &err);
	if (!an)
		fail_msg("%s", err.msg);
	while (dp_profile_next(p, &r) > 0) {
		dp_decoded x;
		dp_annotation a;
		rec_annotated ra;

		if (r.kind != DP_R_SAMPLE)
			continue;
		dp_decode_sample(d, r.sample, &x);
		dp_annotate(an, r.sample, &x, &a);
		ra = (rec_annotated){r.sample, &x, &a, dp_annotator_strings(an), d};
		fn(ctx, &ra);
	}
	dp_annotator_free(an);
	dp_decoder_free(d);
	dp_profile_close(p);
}
