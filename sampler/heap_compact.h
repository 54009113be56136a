/* Heap records that cannot name anything are dropped once the run is over:
 * a block is only ever named to a sample taken while it was live, so a
 * block allocated and freed with no sample of the run in between (most of
 * them, in a program that allocates a lot) leaves the profile with its
 * ALLOC and FREE. The attribution of every sample stays what it was. The
 * others are compressed (zstd) into PACKED records. */
#ifndef DP_HEAP_COMPACT_H
#define DP_HEAP_COMPACT_H

#include <stdint.h>

#include "util.h"

typedef struct dp_heap_compact_stats {
	uint64_t blocks, kept;		    /* allocations seen, kept */
	uint64_t bytes_before, bytes_after; /* of the file */
} dp_heap_compact_stats;

/* Rewrites the profile at path without the heap records of blocks no
 * sample saw live, the others packed. On any failure the file is left as
 * it was. */
int dp_heap_compact(const char *path, dp_heap_compact_stats *st, dp_error *err);

#endif
