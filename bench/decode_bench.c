/* Decode throughput: samples per second through decode/ once its caches
 * are warm, and its memory. Give it a profile of a million samples or more
 * (bench/inflate repeats a real recording's samples, so that cost per
 * sample, not per distinct instruction, is measured):
 *   decode_bench PROFILE            (bench/run.sh records and inflates one) */
#include <stdio.h>

#include "bench_util.h"
#include "dataprof/profile.h"
#include "decode/decode.h"

int main(int argc, char **argv)
{
	const char *src = argc > 1 ? argv[1] : "dataprof.dprof";
	dp_error err;
	dp_record r;
	dp_decoded x;
	double t0, t_read, t_cold, t_warm;
	size_t n = 0, verified = 0;

	dp_profile *p = dp_profile_open(src, &err);
	if (!p) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	/* reading alone, for reference */
	t0 = bench_now();
	while (dp_profile_next(p, &r) > 0)
		n += r.kind == DP_R_SAMPLE;
	t_read = bench_now() - t0;

	t0 = bench_now();
	dp_decoder *d = dp_decoder_open(p, NULL, &err);
	double t_open = bench_now() - t0;
	/* first pass: decodes each distinct instruction once */
	t0 = bench_now();
	while (dp_profile_next(p, &r) > 0)
		if (r.kind == DP_R_SAMPLE)
			dp_decode_sample(d, r.sample, &x);
	t_cold = bench_now() - t0;
	/* second pass: caches warm */
	dp_profile_rewind(p);
	t0 = bench_now();
	while (dp_profile_next(p, &r) > 0)
		if (r.kind == DP_R_SAMPLE) {
			dp_decode_sample(d, r.sample, &x);
			verified += x.verdict == DP_V_VERIFIED || x.verdict == DP_V_EXACT;
		}
	t_warm = bench_now() - t0;
	const dp_decode_stats *st = dp_decoder_stats(d);
	printf("profile: %s, %zu samples\n", src, n);
	printf("distinct instructions cached: %llu, functions decoded: %llu\n",
	       (unsigned long long)st->instructions_cached,
	       (unsigned long long)st->functions_decoded);
	printf("read only:          %8.3f s  %6.2f M samples/s\n", t_read, n / t_read / 1e6);
	printf("decoder open:       %8.3f s  (side-band pass)\n", t_open);
	printf("decode, first pass: %8.3f s  %6.2f M samples/s (read + decode)\n", t_cold,
	       n / t_cold / 1e6);
	printf("decode, warm:       %8.3f s  %6.2f M samples/s (read + decode)\n", t_warm,
	       n / t_warm / 1e6);
	printf("decode alone, warm: %6.2f M samples/s\n", n / (t_warm - t_read) / 1e6);
	printf("exact or verified: %.1f%%\n", 100.0 * (double)verified / (double)n);
	printf("peak RSS %.1f MiB (the mapped profile included); anonymous memory %.1f MiB\n",
	       bench_status_mib("VmHWM:"), bench_status_mib("RssAnon:"));
	dp_decoder_free(d);
	dp_profile_close(p);
	return 0;
}
