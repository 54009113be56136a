/* A raw profile of the calling process, made in memory for fuzz targets
 * that need a real report context: its mappings and threads (as -p
 * synthesizes them), page-fault samples at the given code and data
 * addresses, a heap block, marks and a counter. */
#ifndef DP_FUZZ_SELF_PROFILE_H
#define DP_FUZZ_SELF_PROFILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct self_sample {
	uint64_t ip, addr;
} self_sample;

/* Writes the profile to path (a memfd's /proc/self/fd/N); 0 or -1. The
 * heap block [heap, heap + heap_size) gets an ALLOC record from site. */
int self_profile_write(const char *path, const self_sample *s, size_t n, uint64_t heap,
		       uint64_t heap_size, uint64_t site);

#endif
