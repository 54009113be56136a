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

#define DP_AGENT_RING_ENV   "DATAPROF_AGENT_RING"
#define DP_RING_MAGIC	    0x314752504144ull /* "DAPRG1" */
#define DP_RING_SLOTS	    64
#define DP_RING_SLOT_BYTES  (1u << 22) /* ~30 ms of the busiest allocator measured */
#define DP_RING_SLOT_FREE   0u
#define DP_RING_SLOT_OWNED  1u
#define DP_RING_SLOT_CLOSED 2u /* its thread ended: the recorder frees it once empty */
/* being taken: its tid is not written yet (the last owner's is), so the
 * recorder leaves it alone; OWNED once the tid is there */
#define DP_RING_SLOT_TAKING 3u

/* One slot's counters, head and tail on cache lines of their own. */
struct dp_ring_ctl {
	uint32_t state; /* DP_RING_SLOT_* */
	uint32_t tid;	/* its thread, for a reader of the memory */
	uint64_t head;	/* bytes written, by the thread */
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

/* Where slot 0's bytes begin, and the memory file's size. */
#define DP_RING_DATA_OFF   ((sizeof(struct dp_ring_header) + 4095) & ~(size_t)4095)
#define DP_RING_FILE_BYTES (DP_RING_DATA_OFF + (size_t)DP_RING_SLOTS * DP_RING_SLOT_BYTES)

#endif
