/* Decode throughput: samples per second through decode/ once its caches
 * are warm, on a profile of at least a million samples, and peak memory.
 * The profile is a real recording whose samples are repeated until there
 * are enough (so that cost per sample, not per instruction, is measured).
 *   decode_bench PROFILE [MIN_SAMPLES]   (record one with bench/run.sh) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "dataprof/profile.h"
#include "decode/decode.h"
#include "profile/writer.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes a copy of src with its samples repeated until min samples. */
static size_t inflate(const char *src, const char *dst, size_t min)
{
	dp_error err;
	dp_profile *p = dp_profile_open(src, &err);
	dp_record r;
	dp_writer w;
	size_t samples = 0, written = 0;
	const uint8_t *base;
	FILE *f;

	if (!p) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
	/* raw bytes of each record: re-read the file */
	f = fopen(src, "rb");
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	uint8_t *all = malloc((size_t)sz);
	fseek(f, 0, SEEK_SET);
	if (fread(all, 1, (size_t)sz, f) != (size_t)sz)
		exit(1);
	fclose(f);
	base = all;
	dp_writer_open(&w, dst, 0, 0, &err);
	while (dp_profile_next(p, &r) > 0) {
		if (r.kind == DP_R_FINISH)
			continue;
		dp_writer_add(&w, base + r.offset, r.size);
		samples += r.kind == DP_R_SAMPLE;
	}
	written = samples;
	for (int round = 1; written < min; round++) {
		dp_profile_rewind(p);
		while (dp_profile_next(p, &r) > 0 && written < min) {
			if (r.kind != DP_R_SAMPLE)
				continue;
			dp_writer_add(&w, base + r.offset, r.size);
			written++;
		}
		dp_writer_flush(&w);
	}
	dp_writer_close(&w);
	dp_profile_close(p);
	free(all);
	return written;
}

int main(int argc, char **argv)
{
	const char *src = argc > 1 ? argv[1] : "dataprof.dprof";
	size_t min = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000000;
	char big[] = "/tmp/dataprof-decode-bench-XXXXXX";
	int fd = mkstemp(big);
	dp_error err;
	dp_record r;
	dp_decoded x;
	struct rusage ru;
	double t0, t_read, t_cold, t_warm;
	size_t n = 0, verified = 0;

	close(fd);
	size_t total = inflate(src, big, min);
	dp_profile *p = dp_profile_open(big, &err);
	if (!p) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	/* reading alone, for reference */
	t0 = now();
	while (dp_profile_next(p, &r) > 0)
		n += r.kind == DP_R_SAMPLE;
	t_read = now() - t0;

	t0 = now();
	dp_decoder *d = dp_decoder_open(p, NULL, &err);
	double t_open = now() - t0;
	/* first pass: decodes each distinct instruction once */
	t0 = now();
	while (dp_profile_next(p, &r) > 0)
		if (r.kind == DP_R_SAMPLE)
			dp_decode_sample(d, r.sample, &x);
	t_cold = now() - t0;
	/* second pass: caches warm */
	dp_profile_rewind(p);
	t0 = now();
	while (dp_profile_next(p, &r) > 0)
		if (r.kind == DP_R_SAMPLE) {
			dp_decode_sample(d, r.sample, &x);
			verified += x.verdict == DP_V_VERIFIED || x.verdict == DP_V_EXACT;
		}
	t_warm = now() - t0;
	getrusage(RUSAGE_SELF, &ru);
	const dp_decode_stats *st = dp_decoder_stats(d);
	printf("profile: %s inflated to %zu samples (%zu read)\n", src, total, n);
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
	/* the profile is mapped, so the peak RSS counts its pages; the decoder's own
	 * memory is the anonymous part */
	FILE *st_f = fopen("/proc/self/status", "r");
	char line[256];
	long anon_kb = -1;
	while (st_f && fgets(line, sizeof(line), st_f))
		if (!strncmp(line, "RssAnon:", 8))
			anon_kb = atol(line + 8);
	if (st_f)
		fclose(st_f);
	printf("peak RSS %.1f MiB, of which the mapped profile; anonymous memory now %.1f MiB\n",
	       ru.ru_maxrss / 1024.0, anon_kb / 1024.0);
	dp_decoder_free(d);
	dp_profile_close(p);
	unlink(big);
	return 0;
}
