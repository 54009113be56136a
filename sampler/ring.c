#include "ring.h"
#include "util.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int dp_ring_map(dp_ring *r, int fd, size_t pages)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->map_len = (pages + 1) * pg;
	r->base = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return -1;
	}
	r->data_size = pages * pg;
	r->data = (uint8_t *)r->base + pg;
	r->bounce = dp_malloc(0x10000);
	return 0;
}

void dp_ring_unmap(dp_ring *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	free(r->bounce);
	r->base = NULL;
	r->bounce = NULL;
}

size_t dp_ring_drain(dp_ring *r, dp_ring_fn fn, void *ctx)
{
	struct perf_event_mmap_page *pc = r->base;
	uint64_t head, tail, mask = r->data_size - 1;
	size_t n = 0;

	if (!pc)
		return 0;
	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	tail = pc->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail & mask;
		const void *rec;

		/* the header itself may straddle the end */
		if (off + sizeof(h) <= r->data_size) {
			memcpy(&h, r->data + off, sizeof(h));
		} else {
			size_t first = r->data_size - off;
			memcpy(&h, r->data + off, first);
			memcpy((uint8_t *)&h + first, r->data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || tail + h.size > head)
			break; /* cannot happen with a sane kernel; never spin */
		if (off + h.size <= r->data_size) {
			rec = r->data + off;
		} else {
			size_t first = r->data_size - off;
			memcpy(r->bounce, r->data + off, first);
			memcpy(r->bounce + first, r->data, h.size - first);
			rec = r->bounce;
		}
		fn(ctx, rec, h.size);
		tail += h.size;
		n++;
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}
