#include "scope_index.h"
#include "dwarf_util.h"

#include <dwarf.h>
#include <stdlib.h>

typedef struct scope_range {
	uint64_t lo, hi;
	Dwarf_Die die;
} scope_range;

struct dp_unit_scopes {
	DP_VEC(scope_range) v; /* sorted by lo */
};

void dp_scope_index_init(dp_scope_index *x)
{
	dp_hashmap_init(&x->units, 16);
	x->v.v = NULL;
	x->v.n = x->v.cap = 0;
}

void dp_scope_index_free(dp_scope_index *x)
{
	for (size_t i = 0; i < x->v.n; i++) {
		dp_vec_free(&x->v.v[i]->v);
		free(x->v.v[i]);
	}
	dp_vec_free(&x->v);
	dp_hashmap_free(&x->units);
}

static bool is_code_scope(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block;
}

/* The scopes child_with_pc (dwarf_util.c) would look at, with their ranges. */
static void collect(struct dp_unit_scopes *u, Dwarf_Die *parent, int depth)
{
	Dwarf_Die c;

	if (depth > 8 || dwarf_child(parent, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);

		if (is_code_scope(tag)) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;

			while ((off = dwarf_ranges(&c, off, &base, &lo, &hi)) > 0)
				if (hi > lo) {
					scope_range r = {lo, hi, c};
					dp_vec_push(&u->v, r);
				}
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_structure_type ||
			   tag == DW_TAG_class_type) {
			collect(u, &c, depth + 1);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int by_lo(const void *a, const void *b)
{
	const scope_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static struct dp_unit_scopes *unit(dp_scope_index *x, Dwarf_Die *cu)
{
	uint64_t key = dwarf_dieoffset(cu), v;
	struct dp_unit_scopes *u;

	if (dp_hashmap_get(&x->units, key, &v))
		return x->v.v[v];
	u = dp_calloc(1, sizeof(*u));
	collect(u, cu, 0);
	if (u->v.n > 1)
		qsort(u->v.v, u->v.n, sizeof(*u->v.v), by_lo);
	dp_vec_push(&x->v, u);
	dp_hashmap_put(&x->units, key, x->v.n - 1);
	return u;
}

int dp_scope_index_scopes(dp_scope_index *x, Dwarf_Die *cu, uint64_t pc, Dwarf_Die *out, int max)
{
	struct dp_unit_scopes *u = unit(x, cu);
	size_t lo;

	if (max < 1)
		return 0;
	/* the last range starting at or below pc */
	lo = DP_PARTITION_POINT(u->v.n, i, u->v.v[i].lo <= pc);
	if (lo && pc < u->v.v[lo - 1].hi) {
		out[0] = u->v.v[lo - 1].die;
		return 1 + dp_concrete_scopes(&out[0], pc, out + 1, max - 1);
	}
	/* ranges that overlap (odd DWARF) or none: the walk decides */
	return dp_concrete_scopes(cu, pc, out, max);
}
