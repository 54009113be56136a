/* The simulated caches and TLB of the dataprof Valgrind tool: set-associative,
 * true LRU, write-allocate. Plain C (no libc, no Valgrind), so that the unit
 * tests can drive it natively and the tool links it as is. */
#ifndef DPS_CACHE_H
#define DPS_CACHE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct dps_cache {
	uint64_t *tags; /* sets * ways block numbers, MRU first; ~0: empty */
	uint64_t sets, ways;
	uint32_t line_bits; /* log2 of the line (or page) size */
	bool pow2;	    /* sets is a power of two: bit selection, else modulo */
} dps_cache;

/* Is the geometry possible? size bytes (or entries * line for a TLB), ways,
 * line a power of two, size a multiple of ways * line. */
bool dps_cache_geometry_ok(uint64_t size, uint64_t ways, uint64_t line);
/* tags: sets * ways words the caller allocated (dps_cache_words). */
uint64_t dps_cache_words(uint64_t size, uint64_t ways, uint64_t line);
void dps_cache_init(dps_cache *c, uint64_t size, uint64_t ways, uint64_t line, uint64_t *tags);
/* One access of size bytes at addr: true if it missed. An access across two
 * lines touches both and misses if either missed (as Cachegrind counts). */
bool dps_cache_access(dps_cache *c, uint64_t addr, uint64_t size);

#endif
