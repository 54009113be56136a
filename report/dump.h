/* dataprof dump: a profile's records as text, one line each, like perf
 * script -D: every record as read (dump_record.c), or one line per sample
 * with its decoded instruction and data address, or with its annotation
 * (dump_sample.c); then a summary of what was read (dump.c). */
#ifndef DP_REPORT_DUMP_H
#define DP_REPORT_DUMP_H

#include <stdbool.h>
#include <stdio.h>

#include "dataprof/profile.h"
#include "util.h"

typedef struct dp_dump_opts {
	bool regs;	   /* -r: the sampled registers */
	bool callchain;	   /* -g: call chains */
	bool branches;	   /* -b: branch stacks */
	bool summary_only; /* -s: the summary only */
	bool decoded;	   /* -d: one line per sample, decoded */
	bool annotated;	   /* -a: one line per sample, annotated (implies decoded) */
	const char *symfs; /* --symfs */
} dp_dump_opts;

/* Every record of p to f as o asks, then the summary (and with decoded,
 * decode's and annotate's): 0 when every record was read, 1 when reading
 * stopped at an error (dp_profile_status says which), -1 with err when the
 * decoder could not be opened (nothing printed). */
int dp_dump(dp_profile *p, const dp_dump_opts *o, FILE *f, dp_error *err);

/* One record's line, as read (dump_record.c). */
void dp_dump_record(FILE *f, const dp_profile *p, const dp_record *r, const dp_dump_opts *o);
/* A perf.data file's header lines: metadata, events, build-ids. */
void dp_dump_perf_header(FILE *f, const dp_profile *p);
/* " SECONDS.NANOSECONDS", or " -" for a record without a time. */
void dp_dump_time(FILE *f, const dp_record *r);
/* One sample's line with its causing instruction, data address and verdict
 * (-d), or with its function, line, data object and member (-a):
 * dump_sample.c. */
struct dp_decoder;
struct dp_annotator;
void dp_dump_decoded(FILE *f, const dp_profile *p, const dp_record *r, struct dp_decoder *dec);
void dp_dump_annotated(FILE *f, const dp_profile *p, const dp_record *r, struct dp_decoder *dec,
		       struct dp_annotator *ann);
/* The name of event ev of p, or "?". */
const char *dp_dump_event_name(const dp_profile *p, uint32_t ev);

#endif
