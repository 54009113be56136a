/* Parsing the kernel's perf_event records (shared by the raw-profile and
 * perf.data readers). Every read is bounds-checked: the bytes may come from
 * a corrupt or hostile file. */
#ifndef DP_PERF_RECORD_H
#define DP_PERF_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "dataprof/profile.h"

/* Linux 6.8 (newer than some system headers): per-branch event counters. */
#define DP_SAMPLE_BRANCH_COUNTERS (1ull << 19)

/* Parses a PERF_RECORD_SAMPLE (header included) laid out per attr.
 * Returns 0, or -1 when the record is shorter than its fields. */
int dp_perf_parse_sample(const struct perf_event_attr *attr, const void *rec, size_t size,
			 dp_sample *s);

/* The sample_id trailer of a non-sample record (attr.sample_id_all). */
typedef struct dp_sample_id {
	uint32_t pid, tid, cpu;
	uint64_t time, id;
	unsigned has_tid : 1, has_time : 1, has_cpu : 1, has_id : 1;
} dp_sample_id;
int dp_perf_parse_sample_id(const struct perf_event_attr *attr, const void *rec, size_t size,
			    dp_sample_id *sid);

/* The event ID of a record without knowing its event yet: valid when every
 * attr of the profile shares the layout up to the ID (as perf requires).
 * Returns 0 and sets *id, or -1 when the record carries none. */
int dp_perf_record_id(const struct perf_event_attr *attr, const void *rec, size_t size,
		      uint64_t *id);

/* Decodes the fixed fields of MMAP, MMAP2, COMM, FORK, EXIT, LOST,
 * LOST_SAMPLES, THROTTLE/UNTHROTTLE, AUX into r (kind and union). Returns 0,
 * -1 when the record is malformed; other types get DP_R_OTHER. */
int dp_perf_decode_side_record(const void *rec, size_t size, dp_record *r);

/* The name of a record type: the kernel's (MMAP, SAMPLE, SWITCH...) and
 * perf's own (FINISHED_ROUND, COMPRESSED...); NULL for a type this reader
 * does not know. */
const char *dp_perf_record_type_name(uint32_t type);

/* perf register names, by perf register number (x86-64). */
const char *dp_perf_reg_name(unsigned reg);

#endif
