/* record --heap: the heap tracker's environment in the launched command. */
#include "heap_env.h"

#include <stdlib.h>

void dp_heap_env(const char *lib, uint64_t min, uint64_t depth, dp_env_vec *env)
{
	const char *old = getenv("LD_PRELOAD");

	dp_vec_push(env, dp_asprintf("LD_PRELOAD=%s%s%s", lib, old ? ":" : "", old ? old : ""));
	dp_vec_push(env, dp_asprintf("DATAPROF_HEAP_MIN=%llu", (unsigned long long)min));
	dp_vec_push(
	    env, dp_asprintf("DATAPROF_HEAP_DEPTH=%llu", (unsigned long long)(depth ? depth : 1)));
	/* CPython's pymalloc hands out its objects from arenas the tracker
	 * sees only whole: its documented switch makes each one a malloc,
	 * named by its site (docs/heap.md, Python). Only CPython reads it; the
	 * user's own choice stands. Above pymalloc's 512 bytes every object is
	 * a malloc already: not worth its cost. */
	if (!getenv("PYTHONMALLOC") && min <= 512)
		dp_vec_push(env, dp_strdup("PYTHONMALLOC=malloc"));
}
