/* libFuzzer target: one kernel record through the shared parser
 * (perf_record.c), laid out per an attr that comes from the input too:
 * sample_type, read_format, branch_sample_type, the register masks and
 * sample_id_all in the first 41 bytes, the record after them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/perf_record.h"

#define ATTR_BYTES 41

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_attr a;
	dp_sample s;
	dp_sample_id sid;
	dp_record r;
	uint64_t id;
	uint8_t *rec;
	size_t n;

	if (size < ATTR_BYTES)
		return 0;
	memset(&a, 0, sizeof(a));
	memcpy(&a.sample_type, data, 8);
	memcpy(&a.read_format, data + 8, 8);
	memcpy(&a.branch_sample_type, data + 16, 8);
	memcpy(&a.sample_regs_user, data + 24, 8);
	memcpy(&a.sample_regs_intr, data + 32, 8);
	a.sample_id_all = data[40] & 1;
	/* an exact-size, aligned copy: ASan flags any read past it */
	n = size - ATTR_BYTES;
	rec = malloc(n ? n : 1);
	memcpy(rec, data + ATTR_BYTES, n);
	if (n >= sizeof(struct perf_event_header)) {
		if (dp_perf_parse_sample(&a, rec, n, &s) == 0) {
			for (uint32_t i = 0; i < s.callchain_nr; i++)
				sink += s.callchain[i];
			for (uint64_t i = 0; i < s.branch_nr; i++)
				sink += s.branches[i].from;
			if (s.raw_size)
				sink += ((const uint8_t *)s.raw)[s.raw_size - 1];
			if (s.stack_user_size)
				sink += ((const uint8_t *)s.stack_user)[s.stack_user_size - 1];
			if (s.read_size)
				sink += ((const uint8_t *)s.read)[s.read_size - 1];
			if (s.aux_size)
				sink += ((const uint8_t *)s.aux)[s.aux_size - 1];
		}
		if (dp_perf_parse_sample_id(&a, rec, n, &sid) == 0)
			sink += sid.time;
		if (dp_perf_record_id(&a, rec, n, &id) == 0)
			sink += id;
		memset(&r, 0, sizeof(r));
		if (dp_perf_decode_side_record(rec, n, &r) == 0 && r.kind == DP_R_MMAP)
			sink += strlen(r.mmap.filename);
	}
	free(rec);
	return 0;
}
