/* perf.data internals shared by the container reader (perf_file.c) and the
 * reader of what a perf.data file says about itself (perf_header.c). */
#ifndef DP_PERF_FILE_H
#define DP_PERF_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "reader_impl.h"

/* perf's own record types (tools/perf/util/event.h), not in the kernel's
 * headers. */
enum {
	DP_PERF_HEADER_ATTR = 64,
	DP_PERF_HEADER_EVENT_TYPE = 65,
	DP_PERF_HEADER_TRACING_DATA = 66,
	DP_PERF_HEADER_BUILD_ID = 67,
	DP_PERF_FINISHED_ROUND = 68,
	DP_PERF_AUXTRACE_INFO = 70,
	DP_PERF_AUXTRACE = 71,
	DP_PERF_EVENT_UPDATE = 78,
	DP_PERF_HEADER_FEATURE = 80,
	DP_PERF_COMPRESSED = 81,
	DP_PERF_FINISHED_INIT = 82,
	DP_PERF_COMPRESSED2 = 83,
};

/* Feature bits of the file header (and ids of HEADER_FEATURE records). */
enum {
	DP_FEAT_TRACING_DATA = 1,
	DP_FEAT_BUILD_ID = 2,
	DP_FEAT_HOSTNAME = 3,
	DP_FEAT_OSRELEASE = 4,
	DP_FEAT_VERSION = 5,
	DP_FEAT_ARCH = 6,
	DP_FEAT_NRCPUS = 7,
	DP_FEAT_CPUDESC = 8,
	DP_FEAT_CPUID = 9,
	DP_FEAT_CMDLINE = 11,
	DP_FEAT_EVENT_DESC = 12,
	DP_FEAT_CLOCKID = 23,
	DP_FEAT_LAST_KNOWN = 31, /* PMU_CAPS: features up to here are skipped silently */
};

/* A little-endian cursor over bytes that may be hostile: reads past the
 * end return 0 and set bad. */
typedef struct dp_pcur {
	const uint8_t *p, *end;
	bool bad;
} dp_pcur;

static inline bool dp_pc_has(dp_pcur *c, uint64_t n)
{
	if (c->bad || (uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		return false;
	}
	return true;
}

/* n bytes into v, which stays as it is where they are not there */
static inline void dp_pc_read(dp_pcur *c, void *v, size_t n)
{
	if (dp_pc_has(c, n)) {
		memcpy(v, c->p, n);
		c->p += n;
	}
}

static inline uint32_t dp_pc_u32(dp_pcur *c)
{
	uint32_t v = 0;

	dp_pc_read(c, &v, 4);
	return v;
}

static inline uint64_t dp_pc_u64(dp_pcur *c)
{
	uint64_t v = 0;

	dp_pc_read(c, &v, 8);
	return v;
}

static inline const uint8_t *dp_pc_take(dp_pcur *c, uint64_t n)
{
	const uint8_t *r = c->p;

	if (!dp_pc_has(c, n))
		return NULL;
	c->p += n;
	return r;
}

/* One COMPRESSED record's output, prefixed by what the previous one left
 * of a record cut in two. Kept until close: records point into it. */
typedef struct dp_zchunk {
	uint8_t *buf;
	size_t len;	   /* bytes in buf */
	size_t whole;	   /* [0, whole) holds complete records */
	uint64_t zoff;	   /* offset of buf[0] in the decompressed stream */
	uint64_t file_off; /* the COMPRESSED record it came from */
	char *error;	   /* reading stops after [0, whole) with this message */
} dp_zchunk;

struct dp_perf_state {
	bool pipe;
	size_t data_end;       /* end of the record stream (p->first is its start) */
	size_t declared_end;   /* where the header says it ends (beyond data_end: cut) */
	uint64_t unknown_feat; /* feature sections of the header this reader skipped */
	uint32_t header_attrs; /* events from the file header's attribute section */
	bool complete;	       /* file mode: perf wrote its final header */

	/* the walk over the stream */
	size_t chunk;	       /* index of the chunk being read, or SIZE_MAX */
	size_t cpos;	       /* position in that chunk */
	size_t nz;	       /* compressed records met on this pass */
	uint32_t nattr;	       /* HEADER_ATTR records met on this pass */
	uint64_t chunk_at;     /* the opening walk: the sample that starts the next chunk */
	void *zds;	       /* ZSTD_DStream, one for the whole stream as perf writes it */
	uint64_t zbytes, zcap; /* decompressed bytes, and the most the input justifies */
	DP_VEC(dp_zchunk) chunks;

	/* aligned copies of records that start off an 8-byte boundary, by
	 * position (top bit: in the decompressed stream); kept until close */
	dp_hashmap copies;
	DP_VEC(uint8_t *) copy_bufs;

	DP_VEC(dp_build_id) build_ids;
};

/* perf_header.c: what the file says about itself. Each returns 0, or -1
 * when the bytes are malformed (the caller skips them); dp_perf_feature
 * returns 1 for a feature this reader does not know. */
int dp_perf_feature(dp_profile *p, uint64_t feat, const uint8_t *b, size_t n);
int dp_perf_attr_record(dp_profile *p, const uint8_t *rec, size_t n, uint32_t index);
int dp_perf_event_update(dp_profile *p, const uint8_t *rec, size_t n);
int dp_perf_event_type(dp_profile *p, const uint8_t *rec, size_t n);
int dp_perf_build_id_record(dp_profile *p, const uint8_t *rec, size_t n);
/* Gives every event a name and its IP semantics and class. */
void dp_perf_finish_events(dp_profile *p);
/* Replaces an event's name. */
void dp_perf_set_event_name(dp_profile *p, uint32_t index, const char *name, size_t len);

#endif
