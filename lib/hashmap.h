/* Open-addressing hash map from a 64-bit key to a 64-bit value (often an
 * index into an array owned by the caller). Per-sample caches live on it,
 * so lookups allocate nothing and touch one cache line of the table. */
#ifndef DP_HASHMAP_H
#define DP_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dp_hashmap_slot {
	uint64_t key, val;
} dp_hashmap_slot;

typedef struct dp_hashmap {
	dp_hashmap_slot *slots; /* key and value side by side: one cache line a probe */
	uint64_t *used;         /* a bit a slot: small enough to stay in cache */
	size_t cap;             /* power of two */
	size_t n;
} dp_hashmap;

void dp_hashmap_init(dp_hashmap *m, size_t expected);
void dp_hashmap_free(dp_hashmap *m);
/* Returns true and sets *val when key is present. */
bool dp_hashmap_get(const dp_hashmap *m, uint64_t key, uint64_t *val);
/* Inserts or replaces. */
void dp_hashmap_put(dp_hashmap *m, uint64_t key, uint64_t val);
/* Removes key; false if it was not there. The table does not shrink. */
bool dp_hashmap_del(dp_hashmap *m, uint64_t key);
/* Iterates the entries in no particular order: start with *pos = 0;
 * returns false past the last. */
bool dp_hashmap_next(const dp_hashmap *m, size_t *pos, uint64_t *key, uint64_t *val);
uint64_t dp_hash64(uint64_t x);
uint64_t dp_hash_bytes(const void *p, size_t n, uint64_t seed);

#endif
