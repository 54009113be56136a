/* A profile rewritten with its heap records packed (heap_pack.h) as record
 * packs them when it runs: for profiles recorded with
 * DATAPROF_RECORD_NO_PACK, and for the tests, which compare the two. */
#ifndef DP_HEAP_REPACK_H
#define DP_HEAP_REPACK_H

#include <stdint.h>

#include "util.h"

/* Writes the profile at in to out, its records in the same order, the
 * heap records packed. Fills *raw and *packed with the heap records'
 * bytes before and after. */
int dp_heap_repack(const char *in, const char *out, uint64_t *raw, uint64_t *packed, dp_error *err);

#endif
