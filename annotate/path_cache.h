/* The member paths of typed objects, cached: the type and member an access
 * at an offset into an object of a DWARF type touches is computed once per
 * distinct (type, offset within the element, access size), so a sample that
 * lands in a known global, stack variable or typed block costs lookups. */
#ifndef DP_PATH_CACHE_H
#define DP_PATH_CACHE_H

#include <elfutils/libdw.h>
#include <stdint.h>

#include "dwarf_util.h"
#include "hashmap.h"
#include "strtab.h"
#include "util.h"

typedef struct dp_object_path_entry {
	const void *die; /* the type DIE's address: unique while its Dwarf lives */
	uint64_t off;
	uint32_t size;
	uint32_t type, member; /* interned; member 0: the whole object */
	dp_path_result result;
} dp_object_path_entry;

typedef struct dp_path_cache {
	dp_hashmap strides; /* type DIE -> array stride + 1 */
	dp_hashmap index;   /* hash of (DIE, off, size) -> index in paths */
	DP_VEC(dp_object_path_entry) paths;
	dp_object_path_entry scratch; /* a path not kept */
} dp_path_cache;

void dp_path_cache_init(dp_path_cache *c);
void dp_path_cache_free(dp_path_cache *c);
/* The path of an access of size bytes at off into an object of type t.
 * The pointer is valid until the next call. */
const dp_object_path_entry *dp_path_cache_get(dp_path_cache *c, dp_strtab *strs, Dwarf_Die *t,
					      uint64_t off, unsigned size);

#endif
