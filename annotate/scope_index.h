/* The outermost code scopes of each compilation unit (functions, also those
 * inside namespaces and classes), sorted by address and built once per
 * unit, so that finding the function of an address is a binary search: a
 * unit of 50,000 functions was walked whole for every distinct address. */
#ifndef DP_SCOPE_INDEX_H
#define DP_SCOPE_INDEX_H

#include <elfutils/libdw.h>
#include <stdint.h>

#include "hashmap.h"
#include "util.h"

typedef struct dp_scope_index {
	dp_hashmap units; /* CU DIE offset -> index in v */
	DP_VEC(struct dp_unit_scopes *) v;
} dp_scope_index;

void dp_scope_index_init(dp_scope_index *x);
void dp_scope_index_free(dp_scope_index *x);

/* dp_concrete_scopes (dwarf_util.h), its first step through the index. */
int dp_scope_index_scopes(dp_scope_index *x, Dwarf_Die *cu, uint64_t pc, Dwarf_Die *out,
			  int max);

#endif
