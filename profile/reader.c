/* Opening a profile and reading dataprof's raw profile container. */
#include "reader_impl.h"
#include "perf_record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "heap_codec.h"

#define MAX_EVENTS 4096

dp_event_info *dp_profile_add_event(dp_profile *p, uint32_t index, const char *name,
				    const void *attr, size_t attr_size)
{
	dp_event_info *e;

	/* one description per event: no room in the file, no event */
	if (index >= MAX_EVENTS || index >= p->size / sizeof(struct dp_rec_event))
		return NULL;
	if (index >= p->events.n) {
		size_t old = p->events.n;

		dp_vec_grow(&p->events, (size_t)index + 1);
		memset(p->events.v + old, 0, (index + 1 - old) * sizeof(*p->events.v));
		p->events.n = index + 1;
	}
	e = &p->events.v[index];
	e->index = index;
	if (name && !e->name)
		e->name = dp_strdup(name);
	memset(&e->attr, 0, sizeof(e->attr));
	memcpy(&e->attr, attr, DP_MIN(attr_size, sizeof(e->attr)));
	return e;
}

void dp_profile_add_id(dp_profile *p, uint64_t id, uint32_t index)
{
	dp_hashmap_put(&p->id2event, id, index);
}

bool dp_profile_event_of_id(const dp_profile *p, uint64_t id, uint32_t *index)
{
	uint64_t v;

	if (!dp_hashmap_get(&p->id2event, id, &v) || v >= p->events.n)
		return false;
	*index = (uint32_t)v;
	return true;
}

void dp_profile_set_meta(dp_profile *p, const char *key, const char *value)
{
	for (size_t i = 0; i < p->meta.n; i++) {
		if (!strcmp(p->meta.v[i].key, key)) {
			free(p->meta.v[i].value);
			p->meta.v[i].value = dp_strdup(value);
			return;
		}
	}
	dp_meta_kv kv = {dp_strdup(key), dp_strdup(value)};
	dp_vec_push(&p->meta, kv);
}

/* The attr that locates IDs in records: the first event's. */
static const struct perf_event_attr *id_attr(const dp_profile *p)
{
	for (size_t i = 0; i < p->events.n; i++)
		if (p->events.v[i].name || p->events.v[i].attr.sample_type)
			return &p->events.v[i].attr;
	return NULL;
}

static int event_of(const dp_profile *p, const void *rec, size_t size, uint32_t *ev)
{
	const struct perf_event_attr *a = id_attr(p);
	uint64_t id;

	if (!a)
		return -1;
	if (p->events.n == 1 || dp_perf_record_id(a, rec, size, &id) < 0) {
		*ev = 0;
		return p->events.n ? 0 : -1;
	}
	return dp_profile_event_of_id(p, id, ev) ? 0 : -1;
}

static void add_lost(dp_profile *p, uint32_t ev, int32_t cpu, uint64_t n)
{
	for (size_t i = 0; i < p->lost_by.n; i++)
		if (p->lost_by.v[i].event == ev && p->lost_by.v[i].cpu == cpu) {
			p->lost_by.v[i].count += n;
			return;
		}
	/* a hostile file could name many CPUs: the table stays small */
	if (p->lost_by.n == 4096)
		cpu = -1, ev = DP_LOST_NO_EVENT;
	for (size_t i = 0; p->lost_by.n == 4096 && i < p->lost_by.n; i++)
		if (p->lost_by.v[i].event == ev && p->lost_by.v[i].cpu == cpu) {
			p->lost_by.v[i].count += n;
			return;
		}
	dp_vec_push(&p->lost_by, ((dp_lost_count){ev, cpu, n}));
}

/* LOST (its id in the body) and LOST_SAMPLES (in the trailer): per event
 * and CPU; an id no event has counts under none. */
static void count_lost(dp_profile *p, uint64_t id, int32_t cpu, uint64_t n)
{
	uint32_t ev = DP_LOST_NO_EVENT;

	if (p->events.n == 1)
		ev = 0;
	else if (!dp_profile_event_of_id(p, id, &ev))
		ev = DP_LOST_NO_EVENT;
	add_lost(p, ev, cpu, n);
}

int dp_profile_decode_kernel(dp_profile *p, const void *rec, size_t size, dp_record *r)
{
	const struct perf_event_header *h = rec;
	uint32_t ev = 0;
	int32_t lost_cpu = -1;

	if (h->type == PERF_RECORD_SAMPLE) {
		dp_sample *s = &p->sample;

		if (event_of(p, rec, size, &ev) < 0 ||
		    dp_perf_parse_sample(&p->events.v[ev].attr, rec, size, s) < 0) {
			p->st.bad_samples++;
			return -1;
		}
		s->event = ev;
		r->kind = DP_R_SAMPLE;
		r->sample = s;
		r->time = s->time;
		r->has_time = (s->sample_type & PERF_SAMPLE_TIME) != 0;
		r->pid = s->pid;
		r->tid = s->tid;
		r->cpu = s->cpu;
		p->events.v[ev].samples++;
		p->st.samples++;
		return 0;
	}
	if (dp_perf_decode_side_record(rec, size, r) < 0)
		return -1;
	/* every kernel record type carries the sample_id trailer, even those
	 * this reader does not interpret (SWITCH, KSYMBOL...) */
	bool known = dp_perf_record_type_name(h->type) != NULL && h->type < 64;
	if (known && p->events.n) {
		const struct perf_event_attr *a = id_attr(p);
		dp_sample_id sid;

		if (event_of(p, rec, size, &ev) == 0)
			a = &p->events.v[ev].attr;
		if (a && dp_perf_parse_sample_id(a, rec, size, &sid) == 0) {
			r->time = sid.time;
			r->has_time = sid.has_time;
			r->cpu = sid.cpu;
			lost_cpu = sid.has_cpu ? (int32_t)sid.cpu : -1;
			if (sid.has_tid) {
				r->pid = sid.pid;
				r->tid = sid.tid;
			}
			if (r->kind == DP_R_LOST_SAMPLES && sid.has_id)
				r->lost.id = sid.id;
		}
	}
	switch (r->kind) {
	case DP_R_MMAP:
		r->pid = r->mmap.pid;
		r->tid = r->mmap.tid;
		break;
	case DP_R_FORK:
	case DP_R_EXIT:
		r->pid = r->task.pid;
		r->tid = r->task.tid;
		break;
	case DP_R_LOST:
		p->st.lost += r->lost.count;
		count_lost(p, r->lost.id, lost_cpu, r->lost.count);
		break;
	case DP_R_LOST_SAMPLES:
		p->st.lost_samples += r->lost.count;
		count_lost(p, r->lost.id, lost_cpu, r->lost.count);
		break;
	case DP_R_THROTTLE:
		p->st.throttles++;
		break;
	case DP_R_OTHER:
		if (!known)
			p->st.unknown_records++;
		break;
	default:
		break;
	}
	return 0;
}

/* dataprof's own record types. */
static int decode_dp_record(dp_profile *p, const uint8_t *rec, size_t size, dp_record *r,
			    bool first_pass)
{
	const struct dp_rec_header *h = (const void *)rec;
	const uint8_t *end = rec + size;

	switch (h->type) {
	case DP_REC_META: {
		const char *k = (const char *)rec + 8, *v;
		const char *z = memchr(k, 0, (size_t)(end - (const uint8_t *)k));

		if (!z)
			return -1;
		v = z + 1;
		if ((const uint8_t *)v >= end || !memchr(v, 0, (size_t)(end - (const uint8_t *)v)))
			return -1;
		r->kind = DP_R_META;
		r->meta.key = k;
		r->meta.value = v;
		if (first_pass)
			dp_profile_set_meta(p, k, v);
		return 0;
	}
	case DP_REC_EVENT: {
		const struct dp_rec_event *e = (const void *)rec;
		const char *name;

		if (size < sizeof(*e) || e->attr_size > size - sizeof(*e) ||
		    e->name_len > size - sizeof(*e) - e->attr_size || e->name_len == 0)
			return -1;
		name = (const char *)rec + sizeof(*e) + e->attr_size;
		if (name[e->name_len - 1] != 0)
			return -1;
		r->kind = DP_R_EVENT;
		r->event = e->index;
		if (first_pass) {
			dp_event_info *ei =
			    dp_profile_add_event(p, e->index, name, e + 1, e->attr_size);

			if (!ei)
				return -1;
			ei->ip_sem = e->ip_sem;
			ei->evclass = e->evclass;
		}
		return 0;
	}
	case DP_REC_EVENT_IDS: {
		const struct dp_rec_event_ids *e = (const void *)rec;

		if (!DP_REC_HOLDS(size, e, n, 8))
			return -1;
		r->kind = DP_R_OTHER;
		r->other = rec;
		if (first_pass)
			for (uint32_t i = 0; i < e->n; i++)
				dp_profile_add_id(p, e->ids[i], e->index);
		return 0;
	}
	case DP_REC_FINISH:
		if (size < sizeof(struct dp_rec_finish))
			return -1;
		r->finish = (const void *)rec;
		dp_rec_at(r, DP_R_FINISH, r->finish->time);
		p->st.finished = true;
		return 0;
	case DP_REC_THREAD:
		if (size < sizeof(struct dp_rec_thread))
			return -1;
		r->thread = (const void *)rec;
		return dp_rec_of_thread(r, DP_R_THREAD, r->thread->time, r->thread->pid,
					r->thread->tid);
	case DP_REC_ALLOC: {
		const struct dp_rec_alloc *a = (const void *)rec;

		if (!DP_REC_HOLDS(size, a, nframes, 8))
			return -1;
		r->alloc = a;
		return dp_rec_of_thread(r, DP_R_ALLOC, a->time, a->pid, a->tid);
	}
	case DP_REC_FREE: {
		const struct dp_rec_free *f = (const void *)rec;

		if (size < sizeof(*f))
			return -1;
		r->free_rec = f;
		return dp_rec_of_thread(r, DP_R_FREE, f->time, f->pid, f->tid);
	}
	case DP_REC_WARNING: {
		const char *t = (const char *)rec + 16;

		if (size < 17 || rec[size - 1] != 0)
			return -1;
		r->kind = DP_R_WARNING;
		memcpy(&r->time, rec + 8, 8);
		r->has_time = true;
		r->warning = t;
		return 0;
	}
	case DP_REC_SENSOR:
	case DP_REC_READING:
	case DP_REC_MARKER:
	case DP_REC_MARKER_NAME:
		return dp_profile_decode_timeline(p, rec, size, r, first_pass);
	case DP_REC_SIM_TRUTH: /* known, read by dataprof accuracy from r->other */
		r->kind = DP_R_OTHER;
		r->other = rec;
		return 0;
	default:
		r->kind = DP_R_OTHER;
		r->other = rec;
		p->st.unknown_records++;
		return 0;
	}
}

#define RELEASE_STEP (8u << 20)

/* A long profile is read once from start to end: give the pages before the
 * current record back to the kernel as we go (they are the file's, read
 * again on a rewind), so memory does not grow with the profile's size. */
void dp_profile_give_back(dp_profile *p, size_t lo, size_t hi)
{
	if (hi > p->size)
		hi = p->size;
	if (!p->map || lo >= hi)
		return;
	dp_win_forget(&p->win, lo, hi); /* their buffers would be emptied */
	madvise((uint8_t *)p->map + lo, hi - lo, MADV_DONTNEED);
}

void dp_profile_release_consumed(dp_profile *p, size_t upto)
{
	size_t pg = 4096, end = upto & ~(pg - 1);

	/* (read through windows, the file's own pages are hardly touched) */
	if (p->win.fd >= 0 || end < p->dropped + RELEASE_STEP)
		return;
	dp_profile_give_back(p, p->dropped, end);
	p->dropped = end;
}

#define MAX_RAW (1u << 20) /* the recorder packs 128 KiB (plus one record): more is damage */

/* A codec PACKED record's frame: decompressed, then decoded into inner. */
static size_t unpack_coded(dp_profile *p, const uint8_t *src, size_t frame, unsigned codec,
			   int *damaged)
{
	size_t cap = dp_heap_encode_bound(MAX_RAW), n;

	if (!p->coded)
		p->coded = dp_malloc(cap);
	n = ZSTD_decompress(p->coded, cap, src, frame);
	if (ZSTD_isError(n))
		return SIZE_MAX;
	return dp_heap_decode(p->coded, n, codec, p->inner, MAX_RAW, damaged);
}

/* Decompresses a PACKED record: its records are read next. 0: as written;
 * 1: read, but its header's sizes disagreed with its frame's (the frame
 * decides, so that every complete record inside is kept); -1: nothing in it
 * can be read. */
static int unpack(dp_profile *p, const uint8_t *rec, size_t size, size_t off)
{
	const struct dp_rec_packed *k = (const void *)rec;
	const uint8_t *src = rec + sizeof(*k);
	unsigned long long declared;
	size_t frame, raw, n;
	int damaged = 0;

	if (size < sizeof(*k) || k->h.misc > DP_PACK_HEAP_CODEC2)
		return -1;
	frame = ZSTD_findFrameCompressedSize(src, size - sizeof(*k));
	if (ZSTD_isError(frame))
		return -1;
	damaged |= frame != k->packed_size;
	raw = k->raw_size;
	if (k->h.misc == DP_PACK_HEAP_CODEC || k->h.misc == DP_PACK_HEAP_CODEC2) {
		/* the frame holds the encoding, whose decoding says the size */
		if (p->inner_cap < MAX_RAW) {
			p->inner = dp_realloc(p->inner, MAX_RAW);
			p->inner_cap = MAX_RAW;
		}
		n = unpack_coded(p, src, frame, k->h.misc, &damaged);
		if (n == SIZE_MAX)
			return -1;
		goto done;
	}
	declared = ZSTD_getFrameContentSize(src, frame);
	if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR &&
	    declared != raw) {
		damaged = 1;
		raw = declared;
	}
	if (raw > MAX_RAW)
		return -1;
	if (p->inner_cap < raw) {
		p->inner = dp_realloc(p->inner, raw);
		p->inner_cap = raw;
	}
	n = ZSTD_decompress(p->inner, raw, src, frame);
	if (ZSTD_isError(n))
		return -1;
done:
	p->inner_len = n;
	p->inner_pos = 0;
	p->inner_off = off;
	return damaged || n != raw;
}

/* r emptied, then the fields of h, the record's header at offset */
static inline void record_head(dp_record *r, const struct perf_event_header *h, uint64_t offset)
{
	memset(r, 0, sizeof(*r));
	r->type = h->type;
	r->misc = h->misc;
	r->size = h->size;
	r->offset = offset;
}

/* The next record of the PACKED record being read: 1, or 0 when none is
 * left. Damage inside costs only what it touches. */
static int inner_next(dp_profile *p, dp_record *r, bool first_pass)
{
	while (p->inner_pos + sizeof(struct perf_event_header) <= p->inner_len) {
		const struct perf_event_header *h = (const void *)(p->inner + p->inner_pos);

		if (h->size < sizeof(*h) || (h->size & 7) || h->size > p->inner_len - p->inner_pos)
			break; /* the rest cannot be told apart */
		p->inner_pos += h->size;
		p->st.records++;
		if (h->type < DP_REC_BASE || h->type == DP_REC_PACKED) {
			/* only dataprof's own records are packed, once */
			p->st.unknown_records++;
			continue;
		}
		record_head(r, h, p->inner_off);
		if (decode_dp_record(p, (const uint8_t *)h, h->size, r, first_pass) < 0) {
			p->st.unknown_records++;
			continue;
		}
		return 1;
	}
	if (p->inner_pos < p->inner_len)
		p->st.unknown_records++;
	p->inner_len = p->inner_pos = 0;
	return 0;
}

/* Reads the next raw-profile record. */
static int dprof_next(dp_profile *p, dp_record *r, bool first_pass)
{
	for (;;) {
		if (p->inner_len && inner_next(p, r, first_pass))
			return 1;
		const struct perf_event_header *h;
		size_t left = p->size - p->pos;
		bool more = p->seg + 1 < p->segs.n; /* a series: the next file follows */

		if (left == 0 || left < sizeof(*h)) {
			if (left)
				p->st.truncated_at = p->base + p->pos;
			if (!more)
				return 0;
			dp_profile_seg_enter(p, p->seg + 1);
			continue;
		}
		dp_win_need(&p->win, p->pos, sizeof(*h));
		h = (const void *)(p->data + p->pos);
		/* a page ahead, as the perf.data walk (perf_file.c) */
		__builtin_prefetch(p->data + p->pos + 4096);
		if (h->size < sizeof(*h) || (h->size & 7)) {
			snprintf(p->st.error, sizeof(p->st.error),
				 "corrupt record at offset %llu (type %u, size %u): the profile is "
				 "damaged from here on",
				 (unsigned long long)(p->base + p->pos), h->type, h->size);
			return -1;
		}
		if (h->size > left) {
			/* a file of a series cut short: the next one is whole */
			p->st.truncated_at = p->base + p->pos;
			if (!more)
				return 0;
			dp_profile_seg_enter(p, p->seg + 1);
			continue;
		}
		dp_win_need(&p->win, p->pos, h->size);
		if (h->type == PERF_RECORD_SAMPLE &&
		    dp_profile_skips_sample(p, p->base + p->pos, false)) {
			p->pos += h->size;
			p->st.records++;
			dp_profile_release_consumed(p, p->pos - h->size);
			continue;
		}
		dp_profile_release_consumed(p, p->pos);
		if (h->type == DP_REC_INDEX || h->type == DP_REC_INDEX_END) {
			/* the file's map, read at open (profile/index.c): not a
			 * record of the run */
			p->pos += h->size;
			continue;
		}
		if (p->skip_heap && (h->type == DP_REC_PACKED || h->type == DP_REC_ALLOC ||
				     h->type == DP_REC_FREE)) {
			/* returned unread, not passed over here: a caller reading
			 * up to a place (a part's chunk) sees where it ends */
			record_head(r, h, p->base + p->pos);
			p->pos += h->size;
			r->kind = DP_R_OTHER;
			r->other = h;
			return 1;
		}
		if (h->type == DP_REC_PACKED) {
			p->pos += h->size;
			if (unpack(p, (const uint8_t *)h, h->size, p->base + p->pos - h->size) != 0)
				p->st.unknown_records++;
			continue;
		}
		record_head(r, h, p->base + p->pos);
		p->pos += h->size;
		p->st.records++;
		int rc = h->type >= DP_REC_BASE
			     ? decode_dp_record(p, (const uint8_t *)h, h->size, r, first_pass)
			     : dp_profile_decode_kernel(p, h, h->size, r);
		if (rc < 0) {
			if (h->type != PERF_RECORD_SAMPLE)
				p->st.unknown_records++;
			continue; /* skip one malformed record, keep the rest */
		}
		return 1;
	}
}

/* a later file of a series describes its events again: the same */
static int dprof_next_record(dp_profile *p, dp_record *r)
{
	return dprof_next(p, r, p->seg > 0 || p->pos >= p->prescan_end);
}

static uint64_t dprof_tell(const dp_profile *p);
static void dprof_seek(dp_profile *p, uint64_t pos);
static void dprof_rewind(dp_profile *p);

static const dp_format_ops dprof_ops = {dprof_next_record, dprof_rewind, dprof_tell, dprof_seek,
					NULL};

static bool read_whole(int fd, dp_profile *p, dp_error *err)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0) {
		dp_error_set(err, "%s: %s", p->path, strerror(errno));
		return false;
	}
	if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
		p->map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p->map != MAP_FAILED) {
			p->data = p->map;
			p->size = (size_t)sb.st_size;
			return true;
		}
		p->map = NULL;
	}
	/* a pipe, or mmap refused: read it all */
	dp_buf b = {0};
	for (;;) {
		dp_buf_reserve(&b, 1 << 20);
		ssize_t n = read(fd, b.p + b.len, b.cap - b.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			dp_error_set(err, "%s: %s", p->path, strerror(errno));
			dp_buf_free(&b);
			return false;
		}
		if (n == 0)
			break;
		b.len += (size_t)n;
	}
	p->owned = (uint8_t *)b.p;
	p->data = p->owned;
	p->size = b.len;
	return true;
}

dp_profile *dp_profile_open_file(const char *path, dp_error *err)
{
	static const dp_profile_open_opts plain;

	return dp_profile_open_file_with(path, &plain, err);
}

dp_profile *dp_profile_open_file_with(const char *path, const dp_profile_open_opts *o,
				      dp_error *err)
{
	dp_profile *p = dp_calloc(1, sizeof(*p));
	int fd = !strcmp(path, "-") ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	dp_record r;

	p->win.fd = -1;
	p->path = dp_strdup(path);
	if (fd < 0) {
		dp_error_set(err, "cannot open profile '%s': %s%s", path, strerror(errno),
			     errno == ENOENT ? " (record one with 'dataprof record')" : "");
		dp_profile_close(p);
		return NULL;
	}
	bool ok = read_whole(fd, p, err);
	if (fd > 0)
		close(fd);
	if (ok && p->map) {
		dp_win_open(&p->win, path, &p->map, p->size);
		p->data = p->map;
	}
	if (!ok) {
		dp_profile_close(p);
		return NULL;
	}
	dp_hashmap_init(&p->id2event, 16);
	/* perf.data: "PERFILE2" as a little-endian u64 reads "2ELIFREP" when the
	 * file comes from a big-endian machine; "PERFFILE" is perf's version 1.
	 * The perf reader takes all three, to refuse the last two clearly. */
	if (p->size >= 8 && (!memcmp(p->data, "PERFILE2", 8) || !memcmp(p->data, "2ELIFREP", 8) ||
			     !memcmp(p->data, "PERFFILE", 8))) {
		p->beside = o->beside;
		p->walkers = o->threads;
		if (dp_perf_open(p, err) < 0) {
			dp_profile_close(p);
			return NULL;
		}
		p->beside = NULL;
		return p;
	}
	if (p->size < DP_FILE_HEADER_SIZE || memcmp(p->data, DP_FILE_MAGIC, DP_FILE_MAGIC_LEN)) {
		dp_error_set(err, "'%s' is not a dataprof profile nor a perf.data file%s", path,
			     p->size < DP_FILE_HEADER_SIZE ? " (too short)" : " (unknown magic)");
		dp_profile_close(p);
		return NULL;
	}
	memcpy(&p->hdr, p->data, sizeof(p->hdr));
	if (p->hdr.version > DP_FILE_VERSION || p->hdr.header_size < DP_FILE_HEADER_SIZE ||
	    p->hdr.header_size > p->size || (p->hdr.header_size & 7)) {
		dp_error_set(err,
			     "'%s': raw profile version %u (header %u bytes) is not one this "
			     "dataprof reads (version %u); use a newer dataprof",
			     path, p->hdr.version, p->hdr.header_size, DP_FILE_VERSION);
		dp_profile_close(p);
		return NULL;
	}
	p->fmt = DP_FMT_DPROF;
	p->ops = &dprof_ops;
	p->first = p->pos = p->hdr.header_size;
	/* The description records (META, EVENT, EVENT_IDS) come first: read them
	 * now so that events are known before the first sample. */
	for (;;) {
		size_t at = p->pos;
		int rc = dprof_next(p, &r, true);

		if (rc <= 0 || r.type < DP_REC_BASE) {
			p->prescan_end = rc > 0 ? at : p->pos;
			break;
		}
	}
	dp_profile_read_index(p);
	dp_profile_rewind(p);
	return p;
}

int dp_profile_next(dp_profile *p, dp_record *r)
{
	int rc = p->ops->next(p, r);

	if (rc > 0 && p->skip_samples && p->index_chunk) {
		/* where the side-band records are (a PACKED one's records share its offset) */
		if (r->decompressed)
			p->unseekable = true;
		else if (!p->side_offs.n || p->side_offs.v[p->side_offs.n - 1] != r->offset)
			dp_vec_push(&p->side_offs, r->offset);
	}
	return rc;
}

void dp_profile_index(dp_profile *p, uint64_t chunk)
{
	p->index_chunk = chunk;
	p->index_seen = 0;
	p->side_offs.n = p->chunk_offs.n = 0;
	p->unseekable = false;
}

bool dp_profile_index_get(const dp_profile *p, dp_profile_map *m)
{
	if (!p->index_chunk || p->unseekable)
		return false;
	m->side = p->side_offs.v;
	m->nside = p->side_offs.n;
	m->chunks = p->chunk_offs.v;
	m->nchunks = p->chunk_offs.n;
	m->seq = NULL;
	m->samples = p->index_seen;
	m->stored = false;
	return true;
}

uint64_t dp_profile_tell(const dp_profile *p)
{
	return p->ops->tell(p);
}

void dp_profile_seek(dp_profile *p, uint64_t pos)
{
	p->ops->seek(p, pos);
}

static uint64_t dprof_tell(const dp_profile *p)
{
	/* inside a PACKED record: its records are its offset's */
	return p->inner_pos < p->inner_len ? p->inner_off : p->base + p->pos;
}

static void dprof_seek(dp_profile *p, uint64_t pos)
{
	if (p->segs.n) {
		size_t k = dp_profile_seg_find(p, pos);

		if (k != p->seg)
			dp_profile_seg_enter(p, k);
		pos -= p->base;
	}
	p->pos = pos < p->first ? p->first : pos > p->size ? p->size : pos;
	p->inner_len = p->inner_pos = 0;
}

void dp_profile_skip_samples(dp_profile *p, bool skip)
{
	p->skip_samples = skip;
}

void dp_profile_skip_heap(dp_profile *p, bool skip)
{
	p->skip_heap = skip;
}

void dp_profile_side_band(dp_profile *p, void (*observe)(void *ctx, const dp_record *r), void *ctx)
{
	dp_record r;

	dp_profile_rewind(p);
	dp_profile_skip_samples(p, true);
	while (dp_profile_next(p, &r) > 0)
		observe(ctx, &r);
	dp_profile_skip_samples(p, false);
	dp_profile_rewind(p);
}

void dp_profile_share_samples(dp_profile *p, unsigned part, unsigned parts, uint64_t chunk)
{
	p->share_part = part;
	p->share_parts = parts;
	p->share_chunk = chunk ? chunk : 1;
}

uint64_t dp_profile_samples_met(const dp_profile *p)
{
	return p->sample_seq;
}

void dp_profile_add_counts(dp_profile *p, const dp_profile *other, bool records)
{
	p->st.samples += other->st.samples;
	p->st.bad_samples += other->st.bad_samples;
	for (size_t i = 0; i < p->events.n && i < other->events.n; i++)
		p->events.v[i].samples += other->events.v[i].samples;
	if (!records)
		return;
	/* the readers read parts of the file (dp_profile_seek): every record
	 * was counted by one of them */
	p->st.records += other->st.records;
	p->st.lost += other->st.lost;
	p->st.lost_samples += other->st.lost_samples;
	for (size_t i = 0; i < other->lost_by.n; i++)
		add_lost(p, other->lost_by.v[i].event, other->lost_by.v[i].cpu,
			 other->lost_by.v[i].count);
	p->st.throttles += other->st.throttles;
	p->st.unknown_records += other->st.unknown_records;
	p->st.readings += other->st.readings;
	p->st.marks += other->st.marks;
	p->st.finished |= other->st.finished;
	if (other->st.truncated_at)
		p->st.truncated_at = other->st.truncated_at;
	if (other->st.error[0])
		memcpy(p->st.error, other->st.error, sizeof(p->st.error));
}

void dp_profile_rewind(dp_profile *p)
{
	dp_profile_format f = p->fmt;

	p->dropped = 0;
	p->sample_seq = 0;
	memset(&p->st, 0, sizeof(p->st));
	p->st.format = f;
	p->lost_by.n = 0;
	for (size_t i = 0; i < p->events.n; i++)
		p->events.v[i].samples = 0;
	p->ops->rewind(p); /* after the reset: it may count what its header skipped */
}

static void dprof_rewind(dp_profile *p)
{
	if (p->segs.n)
		dp_profile_seg_enter(p, 0);
	else
		p->pos = p->first;
	p->inner_len = p->inner_pos = 0;
}

void dp_profile_close(dp_profile *p)
{
	if (!p)
		return;
	if (p->ops && p->ops->close)
		p->ops->close(p);
	dp_profile_segs_free(p);
	dp_win_off(&p->win);
	if (p->map)
		munmap(p->map, p->size);
	free(p->owned);
	free(p->inner);
	free(p->coded);
	dp_vec_free(&p->side_offs);
	dp_vec_free(&p->lost_by);
	dp_vec_free(&p->chunk_offs);
	dp_vec_free(&p->stored_side);
	dp_vec_free(&p->stored_chunks);
	dp_vec_free(&p->stored_seq);
	for (size_t i = 0; i < p->events.n; i++)
		free((char *)p->events.v[i].name);
	dp_vec_free(&p->events);
	for (size_t i = 0; i < p->meta.n; i++) {
		free(p->meta.v[i].key);
		free(p->meta.v[i].value);
	}
	dp_vec_free(&p->meta);
	dp_vec_free(&p->sensors);
	dp_hashmap_free(&p->id2event);
	free(p->path);
	free(p);
}

const dp_lost_count *dp_profile_lost(const dp_profile *p, size_t *n)
{
	*n = p->lost_by.n;
	return p->lost_by.v;
}

const dp_read_status *dp_profile_status(const dp_profile *p)
{
	return &p->st;
}

const dp_event_info *dp_profile_events(const dp_profile *p, size_t *n)
{
	*n = p->events.n;
	return p->events.v;
}

const char *dp_profile_meta(const dp_profile *p, const char *key)
{
	for (size_t i = 0; i < p->meta.n; i++)
		if (!strcmp(p->meta.v[i].key, key))
			return p->meta.v[i].value;
	return NULL;
}

const void *dp_profile_record_bytes(const dp_profile *p, const dp_record *r)
{
	const struct perf_event_header *h;
	const uint8_t *data = p->data;
	uint64_t off = r->offset, size = p->size;

	if (p->segs.n) {
		const dp_profile_seg *s = &p->segs.v[dp_profile_seg_find(p, off)];

		data = s->data;
		size = s->size;
		off -= s->base;
	}
	if (p->fmt != DP_FMT_DPROF || off + r->size > size || r->size < sizeof(*h))
		return NULL;
	h = (const void *)(data + off);
	return h->type == r->type && h->size == r->size ? h : NULL;
}

const struct dp_file_header *dp_profile_header(const dp_profile *p)
{
	return &p->hdr;
}

#define NAME_IN(n, k, dflt) name_in(n, DP_ARRAY_LEN(n), (unsigned)(k), dflt)

/* n[k], or dflt where k is past n or has no name there */
static const char *name_in(const char *const *n, size_t count, unsigned k, const char *dflt)
{
	return k < count && n[k] ? n[k] : dflt;
}

const char *dp_record_kind_name(enum dp_record_kind k)
{
	static const char *const n[] = {
	    [DP_R_SAMPLE] = "SAMPLE",
	    [DP_R_MMAP] = "MMAP",
	    [DP_R_COMM] = "COMM",
	    [DP_R_FORK] = "FORK",
	    [DP_R_EXIT] = "EXIT",
	    [DP_R_LOST] = "LOST",
	    [DP_R_LOST_SAMPLES] = "LOST_SAMPLES",
	    [DP_R_THROTTLE] = "THROTTLE",
	    [DP_R_UNTHROTTLE] = "UNTHROTTLE",
	    [DP_R_META] = "META",
	    [DP_R_EVENT] = "EVENT",
	    [DP_R_FINISH] = "FINISH",
	    [DP_R_THREAD] = "THREAD",
	    [DP_R_WARNING] = "WARNING",
	    [DP_R_ALLOC] = "ALLOC",
	    [DP_R_FREE] = "FREE",
	    [DP_R_AUX] = "AUX",
	    [DP_R_SENSOR] = "SENSOR",
	    [DP_R_READING] = "READING",
	    [DP_R_MARKER] = "MARKER",
	    [DP_R_MARKER_NAME] = "MARKER_NAME",
	    [DP_R_OTHER] = "OTHER",
	};
	return NAME_IN(n, k, "?");
}

const char *dp_ip_semantics_name(enum dp_ip_semantics s)
{
	static const char *const n[] = {
	    [DP_IP_EXACT] = "exact",
	    [DP_IP_EXACT_AFTER] = "exact-regs-after",
	    [DP_IP_AFTER] = "after",
	};
	return NAME_IN(n, s, "none");
}

const char *dp_event_class_name(enum dp_event_class c)
{
	static const char *const n[] = {
	    [DP_EVC_LOAD] = "load",
	    [DP_EVC_STORE] = "store",
	    [DP_EVC_MEMORY] = "memory",
	    [DP_EVC_TIME] = "time",
	};
	return NAME_IN(n, c, "none");
}
