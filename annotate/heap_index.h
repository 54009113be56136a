/* Heap blocks over time, from the tracker's ALLOC and FREE records: which
 * block of a process held an address at a given time. Blocks are replayed
 * in time order as samples ask for later times. Each block is entered in
 * the cells of a grid that it covers, the grid's cell size chosen by the
 * block's size (1 KiB for blocks up to 16 KiB, then 1 MiB, 256 MiB, then
 * one cell for all). A cell keeps its live blocks sorted by address, so a
 * lookup is one hash probe and a binary search however many blocks a
 * program made there, and a list of the blocks freed there, latest free
 * first: a sample a little out of order (rings of different CPUs are
 * drained in turn) walks it only as far as the blocks freed after its
 * time. */
#ifndef DP_HEAP_INDEX_H
#define DP_HEAP_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "dataprof/profile.h"
#include "hashmap.h"
#include "util.h"

#define DP_HEAP_FRAMES 8

/* A live block as its cells keep it: what a lookup checks, so that it
 * reads no block (a cache miss a sample on a large heap). */
struct heap_entry {
	uint64_t addr, end; /* a live block's [addr, end) */
	uint64_t t_alloc;
	uint32_t block, pid;
};

struct heap_cell {
	struct heap_entry *e; /* the live blocks, by address */
	uint32_t n, cap;
	uint32_t freed; /* head of its list in freed: the latest free first */
	bool overlap;	/* two live blocks overlap (a free the tracker missed) */
};

struct heap_freed {
	uint32_t block, next;
};

typedef struct dp_heap_block {
	uint64_t addr, size;
	uint64_t t_alloc, t_free; /* t_free UINT64_MAX: never freed */
	uint32_t pid, tid;
	uint8_t kind;
	uint8_t nframes;
	/* the block a realloc made this one from (its contents, so its type),
	 * UINT32_MAX: none */
	uint32_t origin;
	/* the allocation's return addresses, innermost first; bits 48-63: the
	 * stack word where the tracker found it (0: an exact unwind). One copy
	 * per distinct chain, shared by its blocks (the index's chains). */
	const uint64_t *frames;
} dp_heap_block;

#define DP_HEAP_LEVELS 4 /* three grids and one cell for huge blocks */

/* What the records say: every block with its life, and the allocations and
 * frees in time order. Built once (dp_heap_observe, dp_heap_finish), then
 * only read, so that the readers of one profile share it (dp_heap_share). */
typedef struct dp_heap_history {
	DP_VEC(dp_heap_block) blocks; /* all, in allocation order */
	DP_VEC(struct heap_event {
		uint64_t time;
		uint64_t addr;	/* a free's; an allocation's is its block's */
		uint32_t block; /* an allocation's index in blocks; a free's, with
				   HEAP_FREED (after dp_heap_finish); NIL: not yet matched */
		uint32_t pid;	/* a free's */
	})
	ev;
	/* the distinct call chains, in pages that never move (blocks point
	 * into them) */
	DP_VEC(uint64_t *) chain_pages;
	size_t chain_used;   /* words used of the last page */
	dp_hashmap chain_of; /* hash of a chain (+ probe) -> its words */
	/* a realloc's block -> the address it was asked to move from (the
	 * FREE its thread recorded just before it), until dp_heap_finish */
	dp_hashmap realloc_from;
	struct dp_rec_free last_free; /* the last record, if a FREE (time != 0) */
	/* the last record, if a realloc's ALLOC (block + 1; 0: not): its
	 * old block's FREE may follow (the sim tool's order) */
	uint32_t last_realloc, last_realloc_pid, last_realloc_tid;
	/* the execs of processes: an exec ends every block of its process */
	DP_VEC(struct heap_exec {
		uint64_t time;
		uint32_t pid;
	})
	execs;
	uint64_t first_alloc; /* the earliest block's time (UINT64_MAX: none) */
	uint64_t unmatched_frees;
	unsigned users; /* the indexes that read it */
} dp_heap_history;

/* One reader's replay of a history: the blocks live at its time. */
typedef struct dp_heap_index {
	dp_heap_history *hist;
	dp_hashmap cell_of; /* (level, pid, cell) -> index in cells */
	DP_VEC(struct heap_cell) cells;
	DP_VEC(struct heap_freed) freed; /* the cells' lists of freed blocks */
	size_t at_level[DP_HEAP_LEVELS]; /* cells made there */
	size_t next_ev;			 /* replay position */
} dp_heap_index;

void dp_heap_init(dp_heap_index *h);
void dp_heap_free(dp_heap_index *h);
/* Pass 1: every ALLOC and FREE record. */
void dp_heap_observe(dp_heap_index *h, const dp_record *r);
/* After pass 1: the history is read only from here on. Frees are matched
 * to their blocks in up to threads threads (the result is the same for any
 * number). */
#define DP_HEAP_MAX_THREADS 64
void dp_heap_finish(dp_heap_index *h, unsigned threads);
/* h reads the history of from (finished) instead of its own, which must be
 * empty: readers of one profile in threads, each its own replay. from must
 * outlive h's lookups; the history is freed with its last reader. */
void dp_heap_share(dp_heap_index *h, dp_heap_index *from);
/* The block of pid holding addr at time t, or NULL. */
const dp_heap_block *dp_heap_find(dp_heap_index *h, uint32_t pid, uint64_t addr, uint64_t t);
/* The block that realloc moved or grew into b, or NULL. */
static inline const dp_heap_block *dp_heap_origin(const dp_heap_index *h, const dp_heap_block *b)
{
	return b->origin < h->hist->blocks.n ? &h->hist->blocks.v[b->origin] : NULL;
}
static inline bool dp_heap_empty(const dp_heap_index *h)
{
	return h->hist->blocks.n == 0;
}

#endif
