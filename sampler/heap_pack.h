/* Heap records packed as they arrive: the tracker's ALLOC and FREE records
 * (a hundred bytes per allocation, most of it the same call chains and
 * nearby addresses and times) are gathered into chunks of ~128 KiB,
 * rewritten by the heap codec (profile/heap_codec.h: a fifth of the bytes)
 * and written as PACKED records (zstd), which the reader unpacks in place.
 * A chunk that does not compress into one record is written as it came. */
#ifndef DP_HEAP_PACK_H
#define DP_HEAP_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "../profile/writer.h"
#include "util.h"

typedef struct dp_heap_pack {
	dp_buf chunk;
	void *z, *cctx;
	uint8_t *coded; /* the chunk in the heap codec */
	size_t zcap;
	uint64_t raw, packed; /* bytes in, bytes of PACKED records out */
} dp_heap_pack;

void dp_heap_pack_init(dp_heap_pack *k);
void dp_heap_pack_free(dp_heap_pack *k);
/* Adds one complete record; writes a PACKED record to w when a chunk is full. */
void dp_heap_pack_add(dp_heap_pack *k, const void *rec, size_t size, dp_writer *w);
/* Writes what is gathered. */
void dp_heap_pack_flush(dp_heap_pack *k, dp_writer *w);

#endif
