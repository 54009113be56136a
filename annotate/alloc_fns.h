/* Allocator code: the functions a heap block's call chain is followed past
 * to find its allocation site (the first frame outside them). A built-in
 * list of common allocators and wrappers, plus the globs `record
 * --alloc-fn` adds. Names are matched without template arguments,
 * parameters or return type ("std::vector::_M_realloc_insert",
 * "luaM_malloc_"). */
#ifndef DP_ALLOC_FNS_H
#define DP_ALLOC_FNS_H

#include <stdbool.h>
#include <stdint.h>

#include "hashmap.h"
#include "strtab.h"
#include "util.h"

typedef struct dp_alloc_fns {
	DP_VEC(char *) globs; /* the user's */
	dp_hashmap known;     /* function name id -> 1 allocator, 2 not */
} dp_alloc_fns;

void dp_alloc_fns_init(dp_alloc_fns *f);
void dp_alloc_fns_free(dp_alloc_fns *f);
/* Adds the comma-separated globs of list. */
void dp_alloc_fns_add(dp_alloc_fns *f, const char *list);
/* Whether the function named name (a string of strs) is allocator code. */
bool dp_alloc_fns_match(dp_alloc_fns *f, const dp_strtab *strs, uint32_t name);
/* name without template arguments, parameters or return type, into out */
void dp_alloc_fn_plain(const char *name, char *out, size_t cap);
/* Whether plain (a name as dp_alloc_fn_plain gives it) is an arena
 * allocator's: the blocks it gets hold pieces it hands out unseen. Its
 * mappings are arenas; *by_malloc (when not NULL) says whether the blocks
 * it gets from malloc are too (SQLite's lookaside) or its bookkeeping
 * (pymalloc's table of arenas). */
bool dp_alloc_fn_is_arena(const char *plain, bool *by_malloc);
/* The same for a name given as text (uncached). */
bool dp_alloc_fn_name_matches(const dp_alloc_fns *f, const char *name);

#endif
