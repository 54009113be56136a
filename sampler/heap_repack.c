#include "heap_repack.h"

#include "dataprof/profile.h"
#include "heap_pack.h"

int dp_heap_repack(const char *in, const char *out, uint64_t *raw, uint64_t *packed, dp_error *err)
{
	dp_profile *p = dp_profile_open(in, err);
	const struct dp_file_header *hdr;
	dp_heap_pack k;
	dp_writer w;
	dp_record r;
	int rc = 0;

	if (!p)
		return -1;
	hdr = dp_profile_header(p);
	if (!hdr || dp_writer_open(&w, out, hdr->start_time_ns, hdr->start_realtime_ns, err) < 0) {
		if (!hdr)
			dp_error_set(err, "%s: not a raw profile", in);
		dp_profile_close(p);
		return -1;
	}
	dp_heap_pack_init(&k);
	/* the reader's records are views into the file (or its unpacked
	 * records): each is copied as it is, the heap ones through the packer */
	const uint8_t *base = NULL;
	for (uint64_t n = 0; dp_profile_next(p, &r) > 0; n++) {
		if (r.kind == DP_R_ALLOC)
			dp_heap_pack_add(&k, r.alloc, r.size, &w);
		else if (r.kind == DP_R_FREE)
			dp_heap_pack_add(&k, r.free_rec, r.size, &w);
		else if ((base = dp_profile_record_bytes(p, &r)))
			dp_writer_add(&w, base, r.size);
		if (!(n & 4095) && dp_writer_flush(&w) < 0)
			break;
	}
	dp_heap_pack_flush(&k, &w);
	*raw = k.raw;
	*packed = k.packed;
	if (dp_writer_close(&w) < 0) {
		dp_error_set(err, "cannot write '%s'", out);
		rc = -1;
	}
	dp_heap_pack_free(&k);
	dp_profile_close(p);
	return rc;
}
