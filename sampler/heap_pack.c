#include "heap_pack.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "../profile/heap_codec.h"

#define CHUNK	 (128u << 10)
#define MAX_SIZE 65528 /* a record's u16 size, a multiple of 8 */
/* zstd's first fast level: on the codec's output it takes half of level
 * 1's time for 10% more bytes (bench/heap.sh's Lua run: ratio 35 for 39) */
#define LEVEL (-1)

void dp_heap_pack_init(dp_heap_pack *k)
{
	memset(k, 0, sizeof(*k));
}

void dp_heap_pack_free(dp_heap_pack *k)
{
	dp_buf_free(&k->chunk);
	free(k->z);
	free(k->coded);
	ZSTD_freeCCtx(k->cctx);
	memset(k, 0, sizeof(*k));
}

/* The chunk's records one by one, as they came. */
static void add_raw(dp_heap_pack *k, dp_writer *w)
{
	for (size_t off = 0; off + 8 <= k->chunk.len;) {
		const struct dp_rec_header *h = (const void *)(k->chunk.p + off);

		dp_writer_add(w, h, h->size);
		off += h->size;
	}
}

void dp_heap_pack_flush(dp_heap_pack *k, dp_writer *w)
{
	struct dp_rec_packed r;
	size_t z, total, coded;

	if (!k->chunk.len)
		return;
	if (!k->cctx) {
		k->cctx = ZSTD_createCCtx();
		k->zcap = ZSTD_compressBound(dp_heap_encode_bound(CHUNK + MAX_SIZE));
		k->z = dp_malloc(sizeof(r) + k->zcap + 8);
		k->coded = dp_malloc(dp_heap_encode_bound(CHUNK + MAX_SIZE));
	}
	coded = dp_heap_encode((const uint8_t *)k->chunk.p, k->chunk.len, k->coded);
	/* a fast level: the recorder must keep up with the program */
	z = k->cctx ? ZSTD_compressCCtx(k->cctx, (char *)k->z + sizeof(r), k->zcap, k->coded, coded,
					LEVEL)
		    : (size_t)-1;
	total = ZSTD_isError(z) ? SIZE_MAX : DP_ALIGN(sizeof(r) + z, 8);
	k->raw += k->chunk.len;
	if (total > MAX_SIZE) {
		add_raw(k, w);
		k->packed += k->chunk.len;
	} else {
		memset(&r, 0, sizeof(r));
		r.h.type = DP_REC_PACKED;
		_Static_assert(DP_HEAP_CODEC == DP_PACK_HEAP_CODEC2, "the encoder's codec");
		r.h.misc = DP_PACK_HEAP_CODEC2;
		r.h.size = (uint16_t)total;
		r.raw_size = (uint32_t)k->chunk.len;
		r.packed_size = (uint32_t)z;
		memcpy(k->z, &r, sizeof(r));
		memset((char *)k->z + sizeof(r) + z, 0, total - sizeof(r) - z);
		dp_writer_add(w, k->z, total);
		k->packed += total;
	}
	k->chunk.len = 0;
}

void dp_heap_pack_add(dp_heap_pack *k, const void *rec, size_t size, dp_writer *w)
{
	dp_buf_add(&k->chunk, rec, size);
	if (k->chunk.len >= CHUNK)
		dp_heap_pack_flush(k, w);
}
