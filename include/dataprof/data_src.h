/* Reading the kernel's perf_mem_data_src (PERF_SAMPLE_DATA_SRC) as words. */
#ifndef DATAPROF_DATA_SRC_H
#define DATAPROF_DATA_SRC_H

#include <stddef.h>
#include <stdint.h>

/* "load", "store", "prefetch", "exec" or "n/a" */
const char *dp_data_src_op(uint64_t v);
/* Where the access was served: "L1 hit", "L3 miss", "LFB hit", "RAM hit",
 * "remote RAM hit", "n/a"... */
void dp_data_src_level(uint64_t v, char *buf, size_t len);
/* The data TLB: "L1 hit", "L2 miss, walker", "n/a"... */
void dp_data_src_tlb(uint64_t v, char *buf, size_t len);
/* "hit", "miss", "hitm", "none" or "n/a" */
const char *dp_data_src_snoop(uint64_t v);
/* 1: locked, 0: not, -1: not available */
int dp_data_src_locked(uint64_t v);

#endif
