/* Member paths of typed objects, computed once per distinct access. */
#include "path_cache.h"

#include <string.h>

/* Past this many entries, paths are computed and not kept: a program that
 * touches millions of distinct offsets of distinct types costs time, not
 * unbounded memory. */
#define MAX_PATHS (1u << 20)

void dp_path_cache_init(dp_path_cache *c)
{
	memset(c, 0, sizeof(*c));
	dp_hashmap_init(&c->strides, 64);
	dp_hashmap_init(&c->index, 256);
}

void dp_path_cache_free(dp_path_cache *c)
{
	dp_hashmap_free(&c->strides);
	dp_hashmap_free(&c->index);
	dp_vec_free(&c->paths);
}

/* Offsets in an array object are the same access element after element. */
static uint64_t element_offset(dp_path_cache *c, Dwarf_Die *t, uint64_t off)
{
	uint64_t key = (uint64_t)(uintptr_t)t->addr, stride;

	if (!dp_hashmap_get(&c->strides, key, &stride)) {
		stride = dp_array_stride(t) + 1;
		dp_hashmap_put(&c->strides, key, stride);
	}
	return stride > 1 ? off % (stride - 1) : off;
}

static void compute(dp_object_path_entry *e, dp_strtab *strs, Dwarf_Die *t)
{
	dp_buf member = {0}, tn = {0};

	e->result = dp_object_path(t, e->off, e->size, &tn, &member);
	e->type = tn.p ? dp_strtab_intern(strs, tn.p) : 0;
	e->member = e->result == DP_PATH_OK && member.len ? dp_strtab_intern(strs, member.p) : 0;
	dp_buf_free(&member);
	dp_buf_free(&tn);
}

const dp_object_path_entry *dp_path_cache_get(dp_path_cache *c, dp_strtab *strs, Dwarf_Die *t,
					      uint64_t off, unsigned size)
{
	dp_object_path_entry e = {.die = t->addr, .off = element_offset(c, t, off), .size = size};
	uint64_t key = dp_hash64((uint64_t)(uintptr_t)e.die ^ dp_hash64(e.off * 64 + size)), v;

	if (dp_hashmap_get(&c->index, key, &v)) {
		const dp_object_path_entry *hit = &c->paths.v[v];

		if (hit->die == e.die && hit->off == e.off && hit->size == e.size)
			return hit;
	} else if (c->paths.n < MAX_PATHS) {
		compute(&e, strs, t);
		dp_vec_push(&c->paths, e);
		dp_hashmap_put(&c->index, key, c->paths.n - 1);
		return &c->paths.v[c->paths.n - 1];
	}
	/* a hash collision, or the cache is full */
	c->scratch = e;
	compute(&c->scratch, strs, t);
	return &c->scratch;
}
