/* Writes a copy of a raw profile whose samples are repeated N times: a
 * larger profile with the same distinct instructions, functions and
 * attribute values, to show that report's cost and memory grow with the
 * latter, not with samples.   inflate IN OUT N */
#include <stdio.h>
#include <stdlib.h>

#include "dataprof/profile.h"
#include "profile/writer.h"

int main(int argc, char **argv)
{
	dp_error err;
	dp_profile *p;
	dp_record r;
	dp_writer w;
	FILE *f;
	long n = argc > 3 ? atol(argv[3]) : 2, sz;
	unsigned char *all;

	if (argc < 4) {
		fprintf(stderr, "usage: inflate IN OUT N\n");
		return 2;
	}
	p = dp_profile_open(argv[1], &err);
	f = fopen(argv[1], "rb");
	if (!p || !f) {
		fprintf(stderr, "%s\n", p ? argv[1] : err.msg);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	all = malloc((size_t)sz);
	fseek(f, 0, SEEK_SET);
	if (fread(all, 1, (size_t)sz, f) != (size_t)sz)
		return 1;
	fclose(f);
	if (dp_writer_open(&w, argv[2], dp_profile_header(p)->start_time_ns,
			   dp_profile_header(p)->start_realtime_ns, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	for (long round = 0; round < n; round++) {
		dp_profile_rewind(p);
		while (dp_profile_next(p, &r) > 0) {
			if (r.kind == DP_R_FINISH)
				continue;
			if (round && r.kind != DP_R_SAMPLE)
				continue; /* side-band records once */
			dp_writer_add(&w, all + r.offset, r.size);
		}
		dp_writer_flush(&w);
	}
	dp_writer_close(&w);
	dp_profile_close(p);
	free(all);
	return 0;
}
