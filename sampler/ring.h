/* One perf_event ring buffer: mapped once, drained by the recorder. */
#ifndef DP_RING_H
#define DP_RING_H

#include <stddef.h>
#include <stdint.h>

typedef struct dp_ring {
	int fd;
	void *base; /* the control page, then data_size bytes */
	size_t map_len;
	uint64_t data_size;
	uint8_t *data;
	uint8_t *bounce; /* a record that wraps around the end is copied here */
} dp_ring;

/* Maps 1 + pages data pages (pages a power of two). */
int dp_ring_map(dp_ring *r, int fd, size_t pages);
void dp_ring_unmap(dp_ring *r);

/* Calls fn for each complete record now in the ring, then frees the space.
 * Returns the number of records. */
typedef void (*dp_ring_fn)(void *ctx, const void *rec, size_t size);
size_t dp_ring_drain(dp_ring *r, dp_ring_fn fn, void *ctx);

#endif
