/* Building kernel-format records by hand, for tests of the readers. */
#ifndef DP_SYNTH_RECORDS_H
#define DP_SYNTH_RECORDS_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dataprof/format.h"
#include "dataprof/profile.h"
#include "profile/writer.h"
#include "util.h"

/* An event's attr as record opens it: of type and config, sampling
 * sample_type (the user registers 0xff0fff where it has them), each record
 * with its sample_id trailer. */
static inline struct perf_event_attr synth_attr(uint32_t type, uint64_t config,
						uint64_t sample_type)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.sample_type = sample_type;
	if (sample_type & PERF_SAMPLE_REGS_USER)
		a.sample_regs_user = 0xff0fff;
	a.sample_id_all = 1;
	return a;
}

/* The page-fault event of the synthetic profiles, each sample with its
 * identifier, IP, pid and tid, time, data address, CPU and period. */
#define SYNTH_PF_SAMPLE_TYPE                                                                       \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
/* A sample of that event, in the kernel's layout */
struct synth_pf_sample {
	struct perf_event_header h;
	uint64_t id, ip;
	uint32_t pid, tid;
	uint64_t time, addr;
	uint32_t cpu, res;
	uint64_t period;
};
static inline struct perf_event_attr synth_page_fault_attr(void)
{
	return synth_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, SYNTH_PF_SAMPLE_TYPE);
}
/* The least a sample of the reader's needs: its event, IP, thread, time. */
static inline struct perf_event_attr synth_minimal_attr(void)
{
	return synth_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
			  PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			      PERF_SAMPLE_TIME);
}

/* The FINISH record a profile ends with, counting samples samples. */
static inline void synth_finish(dp_writer *w, uint64_t samples)
{
	struct dp_rec_finish f;

	memset(&f, 0, sizeof(f));
	f.samples = samples;
	dp_writer_add_dp(w, DP_REC_FINISH, (uint8_t *)&f + 8, sizeof(f) - 8);
}

/* Zeroes rec, a tracker record (struct dp_rec_alloc, _free, _thread), and
 * sets the fields they all start with: of its type, its own size. */
#define SYNTH_REC_START(rec, type_, time_, pid_, tid_)                                             \
	do {                                                                                       \
		memset(&(rec), 0, sizeof(rec));                                                    \
		(rec).h.type = (type_);                                                            \
		(rec).h.size = sizeof(rec);                                                        \
		(rec).time = (time_);                                                              \
		(rec).pid = (pid_);                                                                \
		(rec).tid = (tid_);                                                                \
	} while (0)

/* A heap tracker's ALLOC record (a malloc of pid and tid 42) with its n
 * frames, at out; returns its size. */
/* An MMAP2 record of an executable mapping of pid, [start, start + len)
 * of path, up to its sample_id trailer (which the caller adds, then sets
 * h.size to b's length). */
static inline void synth_exec_mmap2(dp_buf *b, uint32_t pid, uint64_t start, uint64_t len,
				    const char *path)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		uint32_t maj, min;
		uint64_t ino, ino_gen;
		uint32_t prot, flags;
	} m = {.h = {PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 0},
	       .pid = pid,
	       .tid = pid,
	       .start = start,
	       .len = len,
	       .prot = 5,   /* PROT_READ|PROT_EXEC */
	       .flags = 2}; /* MAP_PRIVATE */
	static const char zeros[8];

	dp_buf_add(b, &m, sizeof(m));
	dp_buf_add(b, path, strlen(path) + 1);
	dp_buf_add(b, zeros, DP_ALIGN(b->len, 8) - b->len);
}

static inline size_t synth_alloc(uint8_t *out, uint64_t time, uint64_t addr, uint64_t size,
				 const uint64_t *frames, uint32_t n)
{
	struct dp_rec_alloc a;

	SYNTH_REC_START(a, DP_REC_ALLOC, time, 42, 42);
	a.h.size = (uint16_t)(sizeof(a) + n * 8);
	a.addr = addr;
	a.size = size;
	a.kind = DP_ALLOC_MALLOC;
	a.nframes = n;
	memcpy(out, &a, sizeof(a));
	memcpy(out + sizeof(a), frames, n * 8ull);
	return a.h.size;
}

/* A PERF_RECORD_SAMPLE laid out for attr, from the fields of s, with a
 * branch stack of br_nr entries (newest first) when attr asks for one. */
static inline void synth_sample_br(dp_buf *b, const struct perf_event_attr *a, uint64_t id,
				   uint64_t ip, uint32_t pid, uint32_t tid, uint64_t time,
				   uint64_t addr, uint32_t cpu, uint64_t period, uint64_t weight,
				   uint64_t data_src, const uint64_t *regs, const uint64_t *chain,
				   uint64_t chain_nr, const struct perf_branch_entry *br,
				   uint64_t br_nr)
{
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0};
	size_t start = b->len;
	uint64_t st = a->sample_type;
	uint32_t pt[2] = {pid, tid}, cr[2] = {cpu, 0};
	/* the 8-byte fields that come first, in the kernel's order */
	const struct {
		uint64_t bit;
		const void *v;
	} head[] = {
	    {PERF_SAMPLE_IDENTIFIER, &id}, {PERF_SAMPLE_IP, &ip},	  {PERF_SAMPLE_TID, pt},
	    {PERF_SAMPLE_TIME, &time},	   {PERF_SAMPLE_ADDR, &addr},	  {PERF_SAMPLE_ID, &id},
	    {PERF_SAMPLE_CPU, cr},	   {PERF_SAMPLE_PERIOD, &period},
	};

	dp_buf_add(b, &h, sizeof(h));
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		if (st & head[i].bit)
			dp_buf_add(b, head[i].v, 8);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		dp_buf_add(b, &chain_nr, 8);
		dp_buf_add(b, chain, chain_nr * 8);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		dp_buf_add(b, &br_nr, 8);
		dp_buf_add(b, br, br_nr * sizeof(*br));
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		uint64_t abi = PERF_SAMPLE_REGS_ABI_64;
		dp_buf_add(b, &abi, 8);
		for (unsigned i = 0, k = 0; i < 64; i++)
			if (a->sample_regs_user & (1ull << i))
				dp_buf_add(b, &regs[k++], 8);
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		dp_buf_add(b, &weight, 8);
	if (st & PERF_SAMPLE_DATA_SRC)
		dp_buf_add(b, &data_src, 8);
	((struct perf_event_header *)(b->p + start))->size = (uint16_t)(b->len - start);
}

static inline void synth_sample(dp_buf *b, const struct perf_event_attr *a, uint64_t id,
				uint64_t ip, uint32_t pid, uint32_t tid, uint64_t time,
				uint64_t addr, uint32_t cpu, uint64_t period, uint64_t weight,
				uint64_t data_src, const uint64_t *regs, const uint64_t *chain,
				uint64_t chain_nr)
{
	synth_sample_br(b, a, id, ip, pid, tid, time, addr, cpu, period, weight, data_src, regs,
			chain, chain_nr, NULL, 0);
}

/* Reading back: the IP of the first sample at or after pos. */
static inline uint64_t synth_sample_ip_at(dp_profile *p, uint64_t pos)
{
	dp_record r;

	dp_profile_seek(p, pos);
	while (dp_profile_next(p, &r) > 0)
		if (r.kind == DP_R_SAMPLE)
			return r.sample->ip;
	return 0;
}

#endif
