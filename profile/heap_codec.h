/* The heap records' codec, inside PACKED records of DP_PACK_HEAP_CODEC and
 * DP_PACK_HEAP_CODEC2 (format.h): ALLOC and FREE records rewritten as
 * varints of their differences from the record before, call chains seen
 * before in the chunk by their place (codec 2): a tenth of the bytes, which
 * zstd then packs smaller and sooner than the records themselves.
 * Lossless: decoding gives back the very records. State starts afresh in
 * each chunk, so every PACKED record decodes alone. */
#ifndef DP_HEAP_CODEC_H
#define DP_HEAP_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes encoding len bytes of records can give. */
size_t dp_heap_encode_bound(size_t len);
/* Encodes the complete records in recs[0..len) into out (room for
 * dp_heap_encode_bound(len) bytes), in the codec DP_HEAP_CODEC; returns
 * the bytes written. */
size_t dp_heap_encode(const uint8_t *recs, size_t len, uint8_t *out);
#define DP_HEAP_CODEC 2
/* Decodes in[0..len), in the given codec (1 or 2: PACKED's misc), into at
 * most cap bytes of records at out; returns the length of the complete
 * records decoded. *damaged: set when the input is not wholly an encoding
 * (the records before the damage are kept). */
size_t dp_heap_decode(const uint8_t *in, size_t len, unsigned codec, uint8_t *out, size_t cap,
		      int *damaged);

#endif
