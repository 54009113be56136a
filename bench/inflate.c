/* Writes a copy of a raw profile whose samples are repeated: a larger
 * profile with the same distinct instructions, functions and attribute
 * values, to show that cost and memory grow with the latter, not with
 * samples.
 *   inflate IN OUT N            the samples N times
 *   inflate IN OUT -s MIN       the samples repeated until at least MIN */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataprof/profile.h"
#include "profile/writer.h"

/* The whole file, for the raw bytes of each record. */
static unsigned char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *all;
	long sz;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	all = malloc((size_t)sz + 1);
	fseek(f, 0, SEEK_SET);
	if (!all || fread(all, 1, (size_t)sz, f) != (size_t)sz) {
		free(all);
		all = NULL;
	}
	fclose(f);
	return all;
}

int main(int argc, char **argv)
{
	dp_error err;
	dp_profile *p;
	dp_record r;
	dp_writer w;
	unsigned char *all;
	long times = 0, min = 0, written = 0;
	uint64_t packed_done = UINT64_MAX;

	if (argc == 4)
		times = atol(argv[3]);
	else if (argc == 5 && !strcmp(argv[3], "-s"))
		min = atol(argv[4]);
	if ((times <= 0 && min <= 0) || argc < 4) {
		fprintf(stderr, "usage: inflate IN OUT N | inflate IN OUT -s MIN_SAMPLES\n");
		return 2;
	}
	p = dp_profile_open(argv[1], &err);
	if (!p) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	if (!(all = slurp(argv[1]))) {
		fprintf(stderr, "%s: cannot read\n", argv[1]);
		return 1;
	}
	if (dp_writer_open(&w, argv[2], dp_profile_header(p)->start_time_ns,
			   dp_profile_header(p)->start_realtime_ns, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	for (long round = 0; times ? round < times : written < min; round++) {
		long before = written;

		dp_profile_rewind(p);
		while (dp_profile_next(p, &r) > 0) {
			if (r.kind == DP_R_FINISH)
				continue;
			if (round && r.kind != DP_R_SAMPLE)
				continue; /* side-band records once */
			if (r.kind == DP_R_SAMPLE && min && written >= min)
				break;
			const struct perf_event_header *h = (const void *)(all + r.offset);

			if (h->type != r.type || h->size != r.size) {
				/* a heap record from inside a PACKED one (its offset is
				 * the PACKED record's): the PACKED record, once */
				if (r.offset != packed_done)
					dp_writer_add(&w, h, h->size);
				packed_done = r.offset;
				continue;
			}
			dp_writer_add(&w, all + r.offset, r.size);
			written += r.kind == DP_R_SAMPLE;
		}
		dp_writer_flush(&w);
		if (written == before)
			break; /* no samples to repeat */
	}
	dp_writer_close(&w);
	dp_profile_close(p);
	free(all);
	fprintf(stderr, "%s: %ld samples\n", argv[2], written);
	return 0;
}
