/* Address spaces over time, rebuilt from MMAP/COMM/FORK records: which
 * file (or anonymous region) was mapped at an address of a process at a
 * given time. Samples may come before their mappings in file order (the
 * rings of different CPUs are drained in turn), so all side-band records
 * are loaded first and samples are looked up by time. */
#ifndef DP_MAPS_H
#define DP_MAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "dataprof/profile.h"
#include "hashmap.h"
#include "util.h"

struct dp_image;

typedef struct dp_map {
	uint64_t start, end, pgoff;
	uint64_t time;	   /* mapped at */
	uint64_t end_time; /* replaced at (UINT64_MAX: still mapped) */
	uint32_t prot;
	bool exec;
	uint8_t build_id_size;
	uint8_t build_id[20];
	const char *name; /* interned: "/usr/bin/ls", "[heap]", "//anon"... */
	/* filled by decode on first use */
	struct dp_image *image;
	uint64_t bias;	     /* runtime address - ELF virtual address */
	int image_state;     /* 0 not tried, 1 usable, -1 failed */
	uint32_t image_slot; /* the decoder's record of the file */
} dp_map;

typedef struct dp_addr_space dp_addr_space;

typedef struct dp_maps {
	dp_hashmap by_pid; /* pid -> index in spaces */
	DP_VEC(dp_addr_space *) spaces;
	dp_hashmap names; /* interned names: hash -> index in name_v */
	DP_VEC(char *) name_v;
	uint32_t seq;		   /* file order of observed records */
	dp_addr_space *last_space; /* the last one looked up */
} dp_maps;

void dp_maps_init(dp_maps *m);
void dp_maps_free(dp_maps *m);

/* Pass 1: feed every MMAP, COMM, FORK record (in file order). */
void dp_maps_observe(dp_maps *m, const dp_record *r);
/* Pass 1 too: a block the heap tracker reported (record --heap) at time
 * t. An address in one is the program's data even where no mapping
 * record covers it: glibc's realloc moves a large block with mremap, of
 * which the kernel records nothing. Only blocks of a page or more are
 * kept (mremap moves whole pages). */
void dp_maps_observe_block(dp_maps *m, uint32_t pid, uint64_t addr, uint64_t size, uint64_t t);
/* After pass 1: order the records by time and build the lookup structures. */
void dp_maps_finish(dp_maps *m);

/* The mapping of pid covering addr at time t, or NULL. */
dp_map *dp_maps_find(dp_maps *m, uint32_t pid, uint64_t addr, uint64_t t);

/* Whether addr of pid lay in a block observed at t or before. The blocks
 * are kept as their union, each part from the first block in it, and
 * their frees are not: it tells a data address from a wild one, not
 * which block held it. */
bool dp_maps_in_block(dp_maps *m, uint32_t pid, uint64_t addr, uint64_t t);

/* Every mapping pid ever had (sorted by start), for scans. */
dp_map *dp_maps_list(dp_maps *m, uint32_t pid, size_t *n);

/* Classify an address with no mapping record for stack growth: [stack]
 * grows down below its recorded start; returns that map if addr is within
 * the stack rlimit below it. */
dp_map *dp_maps_find_stack(dp_maps *m, uint32_t pid, uint64_t addr, uint64_t t);

#endif
