/* One sample as report sees it: the profile's fields, decode's verdict and
 * addresses, annotate's attributes, and names of processes, threads and
 * callers. Built per sample without allocation; strings are ids in the
 * annotator's table. */
#ifndef DP_ROW_H
#define DP_ROW_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "../annotate/annotate.h"

typedef struct dp_row {
	const dp_sample *s;
	const dp_decoded *x;
	const dp_annotation *a;
	uint64_t time_rel; /* ns since the profile began */
	/* the sample's place in the profile: increasing in file order, the same
	 * whatever the parts (a key to put rows of parts back in order) */
	uint64_t seq;
	uint32_t process, thread, caller, insn, level, tlb, op;
} dp_row;

typedef struct dp_row_ctx dp_row_ctx;

/* Prepares the derived columns; COMM records (names over time) are given
 * with dp_row_ctx_observe during the side-band pass, then dp_row_ctx_ready. */
dp_row_ctx *dp_row_ctx_new(dp_profile *p, dp_decoder *d, dp_annotator *a);
void dp_row_ctx_observe(dp_row_ctx *c, const dp_record *r);
void dp_row_ctx_ready(dp_row_ctx *c);
void dp_row_ctx_free(dp_row_ctx *c);
void dp_row_fill(dp_row_ctx *c, const dp_sample *s, const dp_decoded *x, const dp_annotation *a,
		 dp_row *r);
uint64_t dp_row_ctx_start(const dp_row_ctx *c);
/* Columns computed only when a report asks for them. */
uint32_t dp_row_caller(dp_row_ctx *c, dp_row *r);
uint32_t dp_row_region(dp_row_ctx *c, dp_row *r);
/* Marks and counters of the profile (report/context.h). */
struct dp_report_ctx *dp_row_ctx_marks(dp_row_ctx *c);
uint32_t dp_row_insn(dp_row_ctx *c, dp_row *r);

/* Where the return addresses in s's callchain begin: after its context
 * markers (which may stand among them too) and the IP itself, which the
 * chain starts with; callchain_nr where there is none. */
static inline uint32_t dp_callchain_returns(const dp_sample *s)
{
	bool after_ip = false;

	for (uint32_t i = 0; i < s->callchain_nr; i++) {
		if (s->callchain[i] >= PERF_CONTEXT_MAX)
			continue;
		if (after_ip)
			return i;
		after_ip = true;
	}
	return s->callchain_nr;
}

#endif
