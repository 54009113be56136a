#include "hashmap.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

uint64_t dp_hash64(uint64_t x)
{
	/* splitmix64 finaliser: good avalanche for addresses that differ in low bits */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint64_t dp_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	/* FNV-1a, then mixed: used for strings, which are short */
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ull ^ seed;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ull;
	}
	return dp_hash64(h);
}

static inline bool used(const dp_hashmap *m, size_t i)
{
	return m->used[i >> 6] >> (i & 63) & 1;
}

void dp_hashmap_init(dp_hashmap *m, size_t expected)
{
	size_t cap = 64;

	while (cap < expected * 2)
		cap *= 2;
	m->cap = cap;
	m->n = 0;
	m->slots = dp_malloc(cap * sizeof(*m->slots));
	m->used = dp_calloc(cap / 64, sizeof(*m->used));
}

void dp_hashmap_free(dp_hashmap *m)
{
	free(m->slots);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

bool dp_hashmap_get(const dp_hashmap *m, uint64_t key, uint64_t *val)
{
	size_t mask = m->cap - 1, i;

	if (!m->cap)
		return false;
	for (i = dp_hash64(key) & mask; used(m, i); i = (i + 1) & mask) {
		if (m->slots[i].key == key) {
			*val = m->slots[i].val;
			return true;
		}
	}
	return false;
}

static void grow(dp_hashmap *m)
{
	dp_hashmap n;

	dp_hashmap_init(&n, m->cap);
	/* filled to three eighths at once, in random places: every page of a
	 * large table, faulted in by one system call */
	if (n.cap * sizeof(*n.slots) >= (1u << 20))
		dp_prefault(n.slots, n.cap * sizeof(*n.slots));
	for (size_t i = 0; i < m->cap; i++)
		if (used(m, i))
			dp_hashmap_put(&n, m->slots[i].key, m->slots[i].val);
	dp_hashmap_free(m);
	*m = n;
}

void dp_hashmap_put(dp_hashmap *m, uint64_t key, uint64_t val)
{
	size_t mask, i;

	if (!m->cap)
		dp_hashmap_init(m, 8);
	if ((m->n + 1) * 4 > m->cap * 3)
		grow(m);
	mask = m->cap - 1;
	for (i = dp_hash64(key) & mask; used(m, i); i = (i + 1) & mask) {
		if (m->slots[i].key == key) {
			m->slots[i].val = val;
			return;
		}
	}
	m->used[i >> 6] |= 1ull << (i & 63);
	m->slots[i].key = key;
	m->slots[i].val = val;
	m->n++;
}

bool dp_hashmap_del(dp_hashmap *m, uint64_t key)
{
	size_t mask = m->cap - 1, i, j;

	if (!m->cap)
		return false;
	for (i = dp_hash64(key) & mask; used(m, i); i = (i + 1) & mask)
		if (m->slots[i].key == key)
			break;
	if (!used(m, i))
		return false;
	/* no tombstones: each later entry of the run whose home is not
	 * cyclically in (i, j] moves back into the hole, which moves on */
	for (j = (i + 1) & mask; used(m, j); j = (j + 1) & mask) {
		size_t home = dp_hash64(m->slots[j].key) & mask;

		if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->used[i >> 6] &= ~(1ull << (i & 63));
	m->n--;
	return true;
}

bool dp_hashmap_next(const dp_hashmap *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (; *pos < m->cap; (*pos)++) {
		if (used(m, *pos)) {
			*key = m->slots[*pos].key;
			*val = m->slots[*pos].val;
			(*pos)++;
			return true;
		}
	}
	return false;
}
