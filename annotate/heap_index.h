/* Heap blocks over time, from the tracker's ALLOC and FREE records: which
 * block of a process held an address at a given time. Blocks are replayed
 * in time order as samples ask for later times; a freed block is kept for a
 * window so that samples a little out of order (rings of different CPUs are
 * drained in turn) still find it. Lookups hash the page: O(1) expected. */
#ifndef DP_HEAP_INDEX_H
#define DP_HEAP_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "dataprof/profile.h"
#include "hashmap.h"
#include "util.h"

#define DP_HEAP_FRAMES 8

typedef struct dp_heap_block {
	uint64_t addr, size;
	uint64_t t_alloc, t_free; /* t_free UINT64_MAX: never freed */
	uint32_t pid, tid;
	uint32_t kind;
	uint32_t nframes;
	/* the allocation's return addresses, innermost first; bits 48-63: the
	 * stack word where the tracker found it (0: an exact unwind). One copy
	 * per distinct chain, shared by its blocks (the index's chains). */
	const uint64_t *frames;
} dp_heap_block;

struct heap_link {
	uint32_t block, next;
};

typedef struct dp_heap_index {
	DP_VEC(dp_heap_block) blocks; /* all, in allocation order */
	struct heap_event {
		uint64_t time;
		uint64_t addr;	/* a free's; an allocation's is its block's */
		uint32_t block; /* an allocation's index in blocks; NIL: a free */
		uint32_t pid;	/* a free's */
	} * ev;
	size_t nev, evcap, next_ev; /* replay position */
	/* the distinct call chains, in pages that never move (blocks point
	 * into them) */
	DP_VEC(uint64_t *) chain_pages;
	size_t chain_used;   /* words used of the last page */
	dp_hashmap chain_of; /* hash of a chain (+ probe) -> its words */
	dp_hashmap live;     /* (pid, addr) -> block, for FREE */
	dp_hashmap pages;    /* (pid, page) -> head of a list in links */
	DP_VEC(struct heap_link) links;
	DP_VEC(uint32_t) large; /* blocks spanning many pages: scanned */
	uint64_t now, window;
	uint64_t unmatched_frees;
} dp_heap_index;

void dp_heap_init(dp_heap_index *h);
void dp_heap_free(dp_heap_index *h);
/* Pass 1: every ALLOC and FREE record. */
void dp_heap_observe(dp_heap_index *h, const dp_record *r);
/* After pass 1. */
void dp_heap_finish(dp_heap_index *h);
/* The block of pid holding addr at time t, or NULL. */
const dp_heap_block *dp_heap_find(dp_heap_index *h, uint32_t pid, uint64_t addr, uint64_t t);
static inline bool dp_heap_empty(const dp_heap_index *h)
{
	return h->blocks.n == 0;
}

#endif
