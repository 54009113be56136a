#include "strtab.h"

#include <stdlib.h>
#include <string.h>

void dp_strtab_init(dp_strtab *t)
{
	memset(t, 0, sizeof(*t));
	dp_hashmap_init(&t->index, 256);
	dp_vec_push(&t->strs, dp_strdup(""));
}

void dp_strtab_free(dp_strtab *t)
{
	dp_vec_free_each(&t->strs, free);
	dp_hashmap_free(&t->index);
}

uint32_t dp_strtab_intern_n(dp_strtab *t, const char *s, size_t n)
{
	uint64_t h, v;

	if (!s || !n)
		return 0;
	for (h = dp_hash_bytes(s, n, 0);; h++) {
		if (!dp_hashmap_get(&t->index, h, &v))
			break;
		if (!strncmp(t->strs.v[v], s, n) && t->strs.v[v][n] == 0)
			return (uint32_t)v;
	}
	dp_vec_push(&t->strs, dp_strndup(s, n));
	dp_hashmap_put(&t->index, h, t->strs.n - 1);
	return (uint32_t)(t->strs.n - 1);
}

uint32_t dp_strtab_intern(dp_strtab *t, const char *s)
{
	return s ? dp_strtab_intern_n(t, s, strlen(s)) : 0;
}
