#include "heap_compact.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dataprof/profile.h"
#include "hashmap.h"
#include <zstd.h>

struct hev {
	uint64_t time, offset, key;
	uint32_t size;
	uint8_t is_free, pinned; /* pinned: an mmap block, always kept */
	uint8_t drop;
};

static int cmp_time(const void *a, const void *b)
{
	const struct hev *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->is_free != y->is_free)
		return x->is_free ? 1 : -1; /* allocations first, as the heap index */
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int cmp_offset(const void *a, const void *b)
{
	const struct hev *x = a, *y = b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Whether some sample time lies in [from, to). */
static int sampled(const uint64_t *t, size_t n, uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first time >= from */
		size_t mid = (lo + hi) / 2;

		if (t[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && t[lo] < to;
}

#define CHUNK (128u << 10) /* raw bytes of records per PACKED record */

typedef struct out_file {
	int fd;
	uint64_t written;
	dp_buf chunk; /* heap records waiting to be packed */
	void *z;      /* compressed */
	size_t zcap;
} out_file;

static int put(out_file *o, const void *p, size_t n)
{
	while (n) {
		ssize_t k = write(o->fd, p, n);

		if (k <= 0)
			return -1;
		p = (const char *)p + k;
		n -= (size_t)k;
		o->written += (uint64_t)k;
	}
	return 0;
}

/* Writes the waiting heap records as one PACKED record (as they are, when
 * they do not compress into one record's 64 KiB). */
static int flush_chunk(out_file *o)
{
	struct dp_rec_packed k;
	size_t z, total;
	static const char zeros[8];
	int rc = 0;

	if (!o->chunk.len)
		return 0;
	z = ZSTD_compress(o->z, o->zcap, o->chunk.p, o->chunk.len, 3);
	total = DP_ALIGN(sizeof(k) + z, 8);
	if (ZSTD_isError(z) || total > 65528) {
		rc = put(o, o->chunk.p, o->chunk.len);
	} else {
		memset(&k, 0, sizeof(k));
		k.h.type = DP_REC_PACKED;
		k.h.size = (uint16_t)total;
		k.raw_size = (uint32_t)o->chunk.len;
		k.packed_size = (uint32_t)z;
		rc = put(o, &k, sizeof(k)) < 0 || put(o, o->z, z) < 0 ||
			     put(o, zeros, total - sizeof(k) - z) < 0
			 ? -1
			 : 0;
	}
	o->chunk.len = 0;
	return rc;
}

/* Copies the profile: its records as they are, but for the heap records:
 * the dropped ones left out, the others packed. */
static int copy_kept(const char *path, const struct hev *ev, size_t nev, uint64_t *after,
		     dp_error *err)
{
	char *tmp = dp_asprintf("%s.compact", path);
	int in = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	struct stat sb;
	char *map = MAP_FAILED;
	uint64_t pos = 0;
	out_file o = {-1, 0, {0}, NULL, 0};

	if (in < 0 || fstat(in, &sb) < 0 ||
	    (map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, in, 0)) == MAP_FAILED ||
	    (o.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		dp_error_set(err, "cannot compact '%s': %s", path, strerror(errno));
		goto out;
	}
	o.zcap = ZSTD_compressBound(CHUNK + 65536);
	o.z = dp_malloc(o.zcap);
	/* in file order: the bytes before each heap record, then the record */
	for (size_t i = 0; i <= nev; i++) {
		uint64_t end = i < nev ? ev[i].offset : (uint64_t)sb.st_size;

		if (put(&o, map + pos, (size_t)(end - pos)) < 0)
			goto fail;
		if (i == nev)
			break;
		pos = ev[i].offset + ev[i].size;
		if (ev[i].drop)
			continue;
		dp_buf_add(&o.chunk, map + ev[i].offset, ev[i].size);
		if (o.chunk.len >= CHUNK && flush_chunk(&o) < 0)
			goto fail;
	}
	if (flush_chunk(&o) < 0)
		goto fail;
	if (fsync(o.fd) < 0 || rename(tmp, path) < 0) {
		dp_error_set(err, "cannot replace '%s': %s", path, strerror(errno));
		goto out;
	}
	*after = o.written;
	rc = 0;
	goto out;
fail:
	dp_error_set(err, "cannot write '%s': %s", tmp, strerror(errno));
out:
	if (rc < 0 && o.fd >= 0)
		unlink(tmp);
	if (o.fd >= 0)
		close(o.fd);
	if (map != MAP_FAILED)
		munmap(map, (size_t)sb.st_size);
	if (in >= 0)
		close(in);
	dp_buf_free(&o.chunk);
	free(o.z);
	free(tmp);
	return rc;
}

int dp_heap_compact(const char *path, dp_heap_compact_stats *st, dp_error *err)
{
	dp_profile *p = dp_profile_open(path, err);
	DP_VEC(struct hev) ev = {0};
	DP_VEC(uint64_t) times = {0};
	dp_hashmap live;
	dp_record r;
	size_t ndrop = 0;
	int rc = 0;

	memset(st, 0, sizeof(*st));
	if (!p)
		return -1;
	{
		struct stat sb;

		st->bytes_before = st->bytes_after =
		    stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
	}
	while (dp_profile_next(p, &r) > 0) {
		struct hev e = {0};

		if (r.kind == DP_R_SAMPLE) {
			dp_vec_push(&times, r.sample->time);
			continue;
		}
		if (r.kind == DP_R_ALLOC) {
			e.time = r.alloc->time;
			e.key = ((uint64_t)r.alloc->pid << 48) ^ r.alloc->addr;
			e.pinned = r.alloc->kind == DP_ALLOC_MMAP;
			st->blocks++;
		} else if (r.kind == DP_R_FREE) {
			e.time = r.free_rec->time;
			e.key = ((uint64_t)r.free_rec->pid << 48) ^ r.free_rec->addr;
			e.pinned = r.free_rec->kind == DP_ALLOC_MMAP;
			e.is_free = 1;
		} else {
			continue;
		}
		e.offset = r.offset;
		e.size = r.size;
		dp_vec_push(&ev, e);
	}
	dp_profile_close(p);
	if (times.n > 1)
		qsort(times.v, times.n, sizeof(uint64_t), cmp_u64);
	if (ev.n > 1)
		qsort(ev.v, ev.n, sizeof(ev.v[0]), cmp_time);
	/* replay in time order: each block's life, dropped with its free when
	 * no sample falls in it */
	dp_hashmap_init(&live, 1024);
	for (size_t i = 0; i < ev.n; i++) {
		struct hev *e = &ev.v[i];
		uint64_t v;

		if (!e->is_free) {
			dp_hashmap_put(&live, e->key, i + 1);
			continue;
		}
		if (!dp_hashmap_get(&live, e->key, &v) || !v)
			continue; /* its block was not recorded: kept as it was */
		dp_hashmap_put(&live, e->key, 0);
		struct hev *a = &ev.v[v - 1];
		if (!a->pinned && !e->pinned && !sampled(times.v, times.n, a->time, e->time)) {
			a->drop = e->drop = 1;
			ndrop += 2;
		}
	}
	dp_hashmap_free(&live);
	for (size_t i = 0; i < ev.n; i++)
		st->kept += !ev.v[i].is_free && !ev.v[i].drop;
	if (ev.n) {
		qsort(ev.v, ev.n, sizeof(ev.v[0]), cmp_offset);
		rc = copy_kept(path, ev.v, ev.n, &st->bytes_after, err);
	}
	dp_vec_free(&ev);
	dp_vec_free(&times);
	return rc;
}
