/* record --heap: the environment that loads the heap tracker
 * (libdataprof_heap.so) into the launched command (docs/heap.md). */
#ifndef DP_HEAP_ENV_H
#define DP_HEAP_ENV_H

#include <stdint.h>

#include "util.h"

typedef DP_VEC(char *) dp_env_vec;

/* Appends to env (each entry malloc'd) LD_PRELOAD with lib before the one
 * in dataprof's environment, DATAPROF_HEAP_MIN (blocks of at least min
 * bytes) and DATAPROF_HEAP_DEPTH (depth frames; 0: 1), and for CPython
 * PYTHONMALLOC=malloc unless the user set it or min is above pymalloc's
 * 512 bytes. */
void dp_heap_env(const char *lib, uint64_t min, uint64_t depth, dp_env_vec *env);

#endif
