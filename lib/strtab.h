/* Interned strings: each distinct string stored once and named by a small
 * number, so that attribute values compare and group as integers. Id 0 is
 * the empty string ("none"). */
#ifndef DP_STRTAB_H
#define DP_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "util.h"

typedef struct dp_strtab {
	dp_hashmap index; /* hash -> id (collisions probe the next hash) */
	DP_VEC(char *) strs;
} dp_strtab;

void dp_strtab_init(dp_strtab *t);
void dp_strtab_free(dp_strtab *t);
uint32_t dp_strtab_intern(dp_strtab *t, const char *s);
uint32_t dp_strtab_intern_n(dp_strtab *t, const char *s, size_t n);
static inline const char *dp_strtab_get(const dp_strtab *t, uint32_t id)
{
	return id < t->strs.n ? t->strs.v[id] : "";
}
/* The id in dst of src's string id (0, the empty string, stays 0): a
 * string moved between two tables, as parts' results merge. */
static inline uint32_t dp_strtab_from(dp_strtab *dst, const dp_strtab *src, uint32_t id)
{
	return id ? dp_strtab_intern(dst, dp_strtab_get(src, id)) : 0;
}
static inline size_t dp_strtab_count(const dp_strtab *t)
{
	return t->strs.n;
}

#endif
