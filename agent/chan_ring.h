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
 * cost on Lua.
 * A ring FREE has no time either: the recorder gives it the time of the
 * next timed record of its ring (the thread's next allocation), a time
 * after the free and before anything the thread did next, so one thread's
 * frees and allocations keep their order, and a block is never taken for
 * dead while it lives. Its clock read was a tenth of the tracker's cost.
 * Another thread may reuse the address in between: annotate's matching
 * gives such a FREE to the block it ended (heap_index.c). */
#define DP_RING_REC_ALLOC (DP_REC_BASE + 0x100u)
#define DP_RING_REC_FREE  (DP_REC_BASE + 0x101u)

struct dp_ring_alloc {
	struct dp_rec_header h;
	uint64_t time, addr;
	/* size (bits 0-47), kind (48-55), frames (56-62), and bit 63: the
	 * frames are not here but in the ring's chain table */
	uint64_t size_kind_n;
	uint64_t frames[];
};

/* The ring's chain table: a thread's recent call chains (of at most
 * DP_RING_CHAIN_FRAMES frames), DP_RING_CHAINS of them by a hash of their
 * words, kept alike by the writer and the recorder, which see the same
 * records in the same order. An ALLOC's misc bits 8-15 say its place + 1
 * (0: none): one that carries its frames puts them there, one with bit 63
 * of size_kind_n takes them from there. Lua makes its millions of blocks
 * from a few hundred chains, and 64 places hold its recent ones 99.99% of
 * the time: an ALLOC of 5 frames is 32 bytes instead of 72. Both sides
 * start the table empty with the ring (the recorder when it frees a slot,
 * the thread when it takes one: dp_chan_on_ring). */
#define DP_RING_CHAINS	     64
#define DP_RING_CHAIN_FRAMES 8
#define DP_RING_CHAIN_REF    (1ull << 63)

struct dp_ring_chain {
	uint64_t n, frames[DP_RING_CHAIN_FRAMES];
};

/* The place of chain f[0..n) in the table. */
static inline unsigned dp_ring_chain_at(const uint64_t *f, unsigned n)
{
	uint64_t h = n;

	for (unsigned i = 0; i < n; i++)
		h = (h ^ f[i]) * 0x9e3779b97f4a7c15ull;
	_Static_assert(DP_RING_CHAINS == 64, "a place is the hash's top 6 bits");
	return (unsigned)(h >> 58);
}

struct dp_ring_free {
	struct dp_rec_header h;
	uint64_t addr;
};

#define DP_RING_SIZE_BITS 48

/* Where slot 0's bytes begin, and the memory file's size. */
#define DP_RING_DATA_OFF   ((sizeof(struct dp_ring_header) + 4095) & ~(size_t)4095)
#define DP_RING_FILE_BYTES (DP_RING_DATA_OFF + (size_t)DP_RING_SLOTS * DP_RING_SLOT_BYTES)

#endif
