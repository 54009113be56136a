/* Annotate throughput: samples per second through decode/ and annotate/
 * once their caches are warm, how long the first pass (which reads the
 * DWARF) took, and how much DWARF was read. Give it a profile of a million
 * samples or more (bench/inflate), of a program with many functions
 * (bench/gen_wide.py; bench/annotate.sh does all of it):
 *   annotate_bench PROFILE [WARM_PASSES]   (default 3; the best pass is shown) */
#include <stdio.h>
#include <stdlib.h>

#include "annotate/annotate.h"
#include "bench_util.h"
#include "dataprof/profile.h"
#include "decode/decode.h"

/* One pass over the samples; decode only when a is NULL. Returns seconds. */
static double pass(dp_profile *p, dp_decoder *d, dp_annotator *a, size_t *n, size_t *member)
{
	double t0 = bench_now();
	dp_record r;
	dp_decoded x;
	dp_annotation an;

	dp_profile_rewind(p);
	*n = *member = 0;
	while (dp_profile_next(p, &r) > 0) {
		if (r.kind != DP_R_SAMPLE)
			continue;
		dp_decode_sample(d, r.sample, &x);
		if (a) {
			dp_annotate(a, r.sample, &x, &an);
			*member += an.member != 0;
		}
		(*n)++;
	}
	return bench_now() - t0;
}

int main(int argc, char **argv)
{
	const char *src = argc > 1 ? argv[1] : "dataprof.dprof";
	int passes = argc > 2 ? atoi(argv[2]) : 3;
	dp_error err;
	size_t n, member;
	dp_profile *p = dp_profile_open(src, &err);

	if (!p) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	double t0 = bench_now();
	dp_decoder *d = dp_decoder_new(p, NULL, &err);
	dp_annotator *a = d ? dp_annotator_new(d, p, &err) : NULL;
	dp_record r;

	if (!a) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	while (dp_profile_next(p, &r) > 0)
		if (r.kind != DP_R_SAMPLE) {
			dp_decoder_observe(d, &r);
			dp_annotator_observe(a, &r);
		}
	dp_decoder_ready(d);
	dp_annotator_ready(a, 1);
	double t_open = bench_now() - t0;
	double t_cold = pass(p, d, a, &n, &member);
	double t_dec = pass(p, d, NULL, &n, &member);
	for (int i = 1; i < passes; i++) {
		double t = pass(p, d, NULL, &n, &member);

		t_dec = t < t_dec ? t : t_dec;
	}
	double t_warm = pass(p, d, a, &n, &member);
	for (int i = 1; i < passes; i++) {
		double t = pass(p, d, a, &n, &member);

		t_warm = t < t_warm ? t : t_warm;
	}
	dp_dwarf_use u = dp_annotator_dwarf_use(a);
	const dp_decode_stats *st = dp_decoder_stats(d);

	printf("profile: %s, %zu samples\n", src, n);
	printf("distinct instructions: %llu in %llu functions; DWARF read: %zu units, "
	       "%zu source locations, %zu frames, in %zu of %zu binaries\n",
	       (unsigned long long)st->instructions_cached,
	       (unsigned long long)st->functions_decoded, u.units_indexed, u.instructions,
	       u.frames, u.with_dwarf, u.images);
	printf("open (side-band pass):      %8.3f s\n", t_open);
	printf("first pass (reads DWARF):   %8.3f s\n", t_cold);
	printf("warm, decode only:          %8.3f s  %6.2f M samples/s (best of %d)\n", t_dec,
	       n / t_dec / 1e6, passes);
	printf("warm, decode + annotate:    %8.3f s  %6.2f M samples/s (best of %d)\n", t_warm,
	       n / t_warm / 1e6, passes);
	printf("with a member path: %.1f%%\n", 100.0 * (double)member / (double)n);
	printf("peak RSS %.1f MiB (the mapped profile included); anonymous memory %.1f MiB\n",
	       bench_status_mib("VmHWM:"), bench_status_mib("RssAnon:"));
	dp_annotator_free(a);
	dp_decoder_free(d);
	dp_profile_close(p);
	return 0;
}
