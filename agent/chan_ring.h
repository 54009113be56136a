/* The agent channel's shared rings: a memory file the recorder makes and
 * the target maps (its descriptor in DP_AGENT_RING_ENV), one ring per
 * thread of the target, where the tracker writes its records in place
 * instead of a write() of each batch to the pipe (the kernel's copy, its
 * locks and the recorder's read were two thirds of `record --heap`'s cost
 * on Lua). A thread takes a free slot when it first
 * sends and gives it back when it ends; a thread that finds none, or a
 * target without the ring, writes to the pipe as before. Each ring has one
 * writer (its thread) and one reader (the recorder): the writer publishes
 * `head` after whole records, a batch at a time, the reader `tail` after
 * taking them, both byte counts that only grow. The recorder trusts nothing it reads here: a head
 * that is not possible ends the rings' use (sampler/agent_sink.c). */
#ifndef DP_AGENT_RING_H
#define DP_AGENT_RING_H

#include <stdint.h>

#include "dataprof/format.h"

#define DP_AGENT_RING_ENV   "DATAPROF_AGENT_RING"
#define DP_RING_MAGIC	    0x314752504144ull /* "DAPRG1" */
#define DP_RING_SLOTS	    64
#define DP_RING_SLOT_BYTES  (1u << 22) /* ~30 ms of the busiest allocator measured */
#define DP_RING_SLOT_FREE   0u
#define DP_RING_SLOT_OWNED  1u
#define DP_RING_SLOT_CLOSED 2u /* its thread ended: the recorder frees it once empty */
/* being taken: the taker's memory is not mapped yet, nothing is in it;
 * OWNED once it is */
#define DP_RING_SLOT_TAKING 3u

/* One slot's counters, head and tail on cache lines of their own. */
struct dp_ring_ctl {
	/* A slot's state and its thread change together (one compare-and-swap
	 * takes a slot): its tid is never an earlier owner's, which the
	 * recorder would find gone and free the slot under its new owner. */
	union {
		struct {
			uint32_t state; /* DP_RING_SLOT_* */
			uint32_t tid;	/* its thread, for a reader of the memory */
		};
		uint64_t state_tid;
	};
	uint64_t head; /* bytes written, by the thread */
	uint8_t pad0[48];
	uint64_t tail; /* bytes taken, by the recorder */
	uint8_t pad1[56];
};

struct dp_ring_header {
	uint64_t magic;
	uint32_t nslots, slot_bytes;
	uint8_t pad[48];
	struct dp_ring_ctl ctl[DP_RING_SLOTS];
};

/* The state_tid of a slot in state with thread tid. */
static inline uint64_t dp_ring_state_tid(uint32_t state, uint32_t tid)
{
	union {
		struct {
			uint32_t state, tid;
		} s;
		uint64_t v;
	} u = {.s = {state, tid}};

	return u.v;
}

/* Heap records as a thread writes them to its ring, smaller than the
 * profile's (format.h): the thread and its process are the ring's, told by
 * the ring's first heap or THREAD record, which is always a whole one (a
 * thread takes its ring with it), so these carry neither; a FREE's kind is
 * in bits 8-15 of misc and it has no size (a munmap's is a whole FREE).
 * The recorder writes them out as the profile's records. Together they
 * were a third of what the tracker wrote, and its writes a sixth of its
 * cost on Lua. */
#define DP_RING_REC_ALLOC (DP_REC_BASE + 0x100u)
#define DP_RING_REC_FREE  (DP_REC_BASE + 0x101u)

struct dp_ring_alloc {
	struct dp_rec_header h;
	uint64_t time, addr;
	uint64_t size_kind_n; /* size (bits 0-47), kind (48-55), frames (56-63) */
	uint64_t frames[];
};

struct dp_ring_free {
	struct dp_rec_header h;
	uint64_t time, addr;
};

#define DP_RING_SIZE_BITS 48

/* Where slot 0's bytes begin, and the memory file's size. */
#define DP_RING_DATA_OFF   ((sizeof(struct dp_ring_header) + 4095) & ~(size_t)4095)
#define DP_RING_FILE_BYTES (DP_RING_DATA_OFF + (size_t)DP_RING_SLOTS * DP_RING_SLOT_BYTES)

#endif
