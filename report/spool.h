/* Rows of a report's part kept in file order on disk, for the outputs that
 * write every sample (Perfetto, SQLite) while the report reads in parallel:
 * each part spools its rows' records with their place in the profile
 * (dp_row.seq), and the end reads all parts' back in that order. Memory
 * stays flat in samples. */
#ifndef DP_SPOOL_H
#define DP_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dp_spool dp_spool;

/* A spool in a temporary file (TMPDIR); NULL when none can be made. */
dp_spool *dp_spool_new(void);
/* A record, after those of smaller seq (a part reads in file order). */
void dp_spool_add(dp_spool *s, uint64_t seq, const void *data, uint32_t len);
void dp_spool_free(dp_spool *s);

/* Calls fn with every record of the n spools, least seq first. Returns 0,
 * or -1 when a spool failed or cannot be read back. */
int dp_spool_merge(dp_spool *const *v, size_t n,
		   void (*fn)(void *ctx, const void *data, uint32_t len), void *ctx);

#endif
