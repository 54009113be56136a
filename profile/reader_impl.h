/* Internals shared by the profile readers (raw profile and perf.data). */
#ifndef DP_READER_IMPL_H
#define DP_READER_IMPL_H

#include "dataprof/profile.h"
#include "hashmap.h"
#include "util.h"
#include "window.h"

/* file offsets, or sample numbers */
typedef DP_VEC(uint64_t) dp_u64_vec;

typedef struct dp_meta_kv {
	char *key, *value;
} dp_meta_kv;

struct dp_perf_state; /* perf.data container state, perf_file.c */

/* A format's reader, behind dp_profile_next, _rewind, _tell, _seek and
 * _close: the raw profile (reader.c) and perf.data, file and pipe mode
 * (perf_file.c). Its open, given the whole input, sets dp_profile.ops; the
 * profile's generic state (events, counts, the sample share, the index)
 * stays with the caller. next gives the next record the reader keeps (1),
 * the end (0) or damage it cannot pass (-1); positions are the series'. */
typedef struct dp_format_ops {
	int (*next)(dp_profile *p, dp_record *r);
	void (*rewind)(dp_profile *p); /* after the counts are reset */
	uint64_t (*tell)(const dp_profile *p);
	void (*seek)(dp_profile *p, uint64_t pos);
	void (*close)(dp_profile *p); /* its own state; NULL: none */
} dp_format_ops;

/* One file of a series read as one profile (profile/series.c). Positions
 * the reader hands out (record offsets, tell, seek, the index) are the
 * series': a file's base plus the offset in it. */
typedef struct dp_profile_seg {
	void *map;
	uint8_t *owned;
	const uint8_t *data;
	size_t size, first;
	uint64_t base;
} dp_profile_seg;

struct dp_profile {
	dp_profile_format fmt;
	const dp_format_ops *ops;
	char *path;
	const uint8_t *data; /* the whole input, mapped or read */
	size_t size;
	void *map;
	uint8_t *owned;
	size_t first, pos; /* offsets of the first record and of the next one */
	size_t prescan_end;
	struct dp_file_header hdr;
	DP_VEC(dp_event_info) events;
	dp_hashmap id2event;
	DP_VEC(dp_meta_kv) meta;
	DP_VEC(dp_sensor_info) sensors;
	dp_sample sample;
	dp_read_status st;
	DP_VEC(dp_lost_count) lost_by; /* per event and CPU, in order first seen */
	struct dp_perf_state *perf;
	/* a series (several files): data, size, map and owned are the current
	 * file's, pos is in it; none for one file, whose base is 0 */
	DP_VEC(dp_profile_seg) segs;
	size_t seg;
	uint64_t base;
	bool skip_samples; /* side-band passes: samples are not even parsed */
	bool skip_heap;	   /* heap records (PACKED ones too) are passed over */
	/* dp_profile_share_samples: this reader's share of the samples */
	unsigned share_part, share_parts;
	uint64_t share_chunk, sample_seq; /* sample_seq: samples met since the rewind */
	/* dp_profile_index: made during a side-band pass */
	uint64_t index_chunk, index_seen;
	DP_VEC(uint64_t) side_offs, chunk_offs;
	bool unseekable; /* a record came from a compressed perf.data stream */
	/* the index the file ends with (profile/index.c), when it agrees; or
	 * (walked) the map perf.data's opening walk made */
	bool stored, walked;
	/* while opening: the map another reader's walk of the same perf.data
	 * made (dp_profile_open_with), or NULL */
	const dp_profile_map *beside;
	unsigned walkers; /* while opening: threads perf.data's opening walk may use */
	uint64_t stored_samples;
	dp_u64_vec stored_side, stored_chunks;
	dp_u64_vec stored_seq; /* each chunk's first sample (none: chunk c's is c * chunk) */
	size_t dropped;	 /* pages of the mapping before this were given back */
	dp_window win;	 /* the mapping, read through buffers (window.h) */
	/* the records of the PACKED record being read (decompressed) */
	uint8_t *inner;
	size_t inner_len, inner_cap, inner_pos, inner_off;
	uint8_t *coded; /* a PACKED record's frame, in the heap codec */
};

/* A .dprof record of size bytes at rec holds its fixed part, *rec, and the
 * rec->n entries of each bytes that follow it (n read only once the fixed
 * part is known to be there). */
#define DP_REC_HOLDS(size, rec, n, each)                                                           \
	((size) >= sizeof(*(rec)) && (rec)->n <= ((size) - sizeof(*(rec))) / (each))

/* A record of one time: its kind and time. */
static inline void dp_rec_at(dp_record *r, enum dp_record_kind kind, uint64_t time)
{
	r->kind = kind;
	r->time = time;
	r->has_time = true;
}

/* A record of one thread at one time (THREAD, ALLOC, FREE, MARKER): 0, what
 * its decoding returns. */
static inline int dp_rec_of_thread(dp_record *r, enum dp_record_kind kind, uint64_t time,
				   uint32_t pid, uint32_t tid)
{
	dp_rec_at(r, kind, time);
	r->pid = pid;
	r->tid = tid;
	return 0;
}

/* A sample record at off (inner: in a compressed perf.data stream) is
 * next: true when this reader skips it unparsed (a side-band pass, or
 * another reader's share). A side-band pass with dp_profile_index notes
 * where every index_chunk-th sample starts. */
static inline bool dp_profile_skips_sample(dp_profile *p, uint64_t off, bool inner)
{
	if (p->skip_samples) {
		if (p->index_chunk) {
			if (inner)
				p->unseekable = true;
			else if (p->index_seen % p->index_chunk == 0)
				dp_vec_push(&p->chunk_offs, off);
			p->index_seen++;
		}
		return true;
	}
	if (p->share_parts < 2) {
		p->sample_seq++;
		return false;
	}
	return (p->sample_seq++ / p->share_chunk) % p->share_parts != p->share_part;
}

/* Reads a raw profile's own index, if it has a good one (profile/index.c). */
void dp_profile_read_index(dp_profile *p);
/* The map in stored_side, stored_chunks and stored_samples, made by a
 * walk over the whole file (perf.data's opening walk), is good: every
 * record was read where it lies. */
void dp_profile_walked_index(dp_profile *p, bool good);
/* A series' index, from its files' (q, n; p is q[0], its positions the
 * series'), when every file has one. */
void dp_profile_join_index(dp_profile *p, dp_profile *const *q, size_t n);

/* One file, as dp_profile_open opens it when given one path. */
dp_profile *dp_profile_open_file(const char *path, struct dp_error *err);
/* The same, as o says (dp_profile_open_with). */
dp_profile *dp_profile_open_file_with(const char *path, const dp_profile_open_opts *o,
				      struct dp_error *err);
/* Makes segment k of a series the current one, at its first record. */
void dp_profile_seg_enter(dp_profile *p, size_t k);
/* The segment holding series position pos. */
size_t dp_profile_seg_find(const dp_profile *p, uint64_t pos);
void dp_profile_segs_free(dp_profile *p);

/* Registers an event; index may arrive out of order. */
dp_event_info *dp_profile_add_event(dp_profile *p, uint32_t index, const char *name,
				    const void *attr, size_t attr_size);
/* IDs may name an event that no record describes (a hostile or truncated
 * file): the lookup, not the registration, refuses those. */
void dp_profile_add_id(dp_profile *p, uint64_t id, uint32_t index);
/* The described event whose file descriptor had sample ID id. */
bool dp_profile_event_of_id(const dp_profile *p, uint64_t id, uint32_t *index);
void dp_profile_set_meta(dp_profile *p, const char *key, const char *value);
/* Decodes SENSOR, READING, MARKER and MARKER_NAME records (records.c).
 * Returns 0, or -1 if malformed. */
int dp_profile_decode_timeline(dp_profile *p, const uint8_t *rec, size_t size, dp_record *r,
			       bool first_pass);

/* Decodes one kernel record (type < PERF_RECORD_MAX or any unknown) that
 * lies at rec[0..size) into r. Returns 0, or -1 if a known record is
 * malformed (counted; the caller skips it). */
int dp_profile_decode_kernel(dp_profile *p, const void *rec, size_t size, dp_record *r);
/* Gives the mapped file's pages before offset upto back to the kernel (a
 * long profile is read front to back; a rewind reads them again). */
void dp_profile_release_consumed(dp_profile *p, size_t upto);
/* [lo, hi) of the file's mapping back to the kernel (read again from the
 * file when touched): the one way pages are given back. */
void dp_profile_give_back(dp_profile *p, size_t lo, size_t hi);

/* perf.data containers (perf_file.c): sets p->ops. */
int dp_perf_open(dp_profile *p, struct dp_error *err);

#endif
