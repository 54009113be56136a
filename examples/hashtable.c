/* The bundled example: a chained hash table that is looked up far more
 * often than it fits in cache. Most of its time goes to loading
 * struct bucket.next and .key of buckets allocated in table_insert(),
 * which is what dataprof should say.
 * Usage: hashtable [buckets] [lookups] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct bucket {
	uint64_t key;
	uint64_t hits;
	char payload[48]; /* cold: never read on lookup */
	struct bucket *next;
};

struct table {
	size_t nslots;
	struct bucket **slots;
};

static struct table *table_new(size_t nslots)
{
	struct table *t = malloc(sizeof(*t));

	t->nslots = nslots;
	t->slots = calloc(nslots, sizeof(*t->slots));
	return t;
}

static void table_insert(struct table *t, uint64_t key)
{
	struct bucket *b = malloc(sizeof(*b));
	size_t s = (key * 0x9e3779b97f4a7c15ull) % t->nslots;

	b->key = key;
	b->hits = 0;
	b->next = t->slots[s];
	t->slots[s] = b;
}

__attribute__((noinline)) static struct bucket *table_find(struct table *t, uint64_t key)
{
	struct bucket *b = t->slots[(key * 0x9e3779b97f4a7c15ull) % t->nslots];

	while (b && b->key != key)
		b = b->next;
	return b;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1u << 20;
	size_t lookups = argc > 2 ? strtoul(argv[2], NULL, 0) : 8u << 20;
	struct table *t = table_new(n / 4); /* four buckets per slot: chains to chase */
	uint64_t x = 88172645463325252ull, found = 0;

	for (size_t i = 0; i < n; i++)
		table_insert(t, i);
	for (size_t i = 0; i < lookups; i++) {
		struct bucket *b;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b = table_find(t, x % (n + n / 8));
		if (b) {
			b->hits++;
			found++;
		}
	}
	printf("%zu lookups, %llu found\n", lookups, (unsigned long long)found);
	return 0;
}
