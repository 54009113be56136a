#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_REC 0xfff8u /* the largest size a u16 header can hold, 8-aligned */

int dp_writer_open(dp_writer *w, const char *path, uint64_t start_ns, uint64_t start_real_ns,
		   dp_error *err)
{
	struct dp_file_header h;

	memset(w, 0, sizeof(*w));
	w->path = dp_strdup(path);
	if (!strcmp(path, "-"))
		w->fd = dup(1);
	else
		w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (w->fd < 0) {
		dp_error_set(err, "cannot write the profile '%s': %s (choose another file with -o)",
			     path, strerror(errno));
		free(w->path);
		return -1;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, DP_FILE_MAGIC, DP_FILE_MAGIC_LEN);
	h.version = DP_FILE_VERSION;
	h.header_size = DP_FILE_HEADER_SIZE;
	h.start_time_ns = start_ns;
	h.start_realtime_ns = start_real_ns;
	h.arch = DP_ARCH_X86_64;
	errno = 0;
	if (write(w->fd, &h, sizeof(h)) != (ssize_t)sizeof(h)) {
		dp_error_set(err, "cannot write the profile '%s': %s", path,
			     errno ? strerror(errno) : "short write");
		close(w->fd);
		free(w->path);
		return -1;
	}
	w->written = sizeof(h);
	return 0;
}

/* Notes where a record of this type starts, for the index. */
static void note(dp_writer *w, uint32_t type)
{
	uint64_t at = w->written + w->buf.len;

	if (type != PERF_RECORD_SAMPLE)
		dp_vec_push(&w->side, at);
	else if (w->samples++ % DP_INDEX_CHUNK == 0)
		dp_vec_push(&w->chunks, at);
}

void dp_writer_add(dp_writer *w, const void *rec, size_t size)
{
	uint32_t type;

	if (w->failed)
		return;
	memcpy(&type, rec, sizeof(type));
	note(w, type);
	dp_buf_add(&w->buf, rec, size);
	w->records++;
}

void dp_writer_add_dp(dp_writer *w, uint32_t type, const void *payload, size_t len)
{
	struct dp_rec_header h;
	size_t total = DP_ALIGN(sizeof(h) + len, 8);
	static const uint8_t zeros[8];

	if (w->failed)
		return;
	if (total > MAX_REC) {
		len = MAX_REC - sizeof(h);
		total = MAX_REC;
	}
	h.type = type;
	h.misc = 0;
	h.size = (uint16_t)total;
	note(w, type);
	dp_buf_add(&w->buf, &h, sizeof(h));
	dp_buf_add(&w->buf, payload, len);
	dp_buf_add(&w->buf, zeros, total - sizeof(h) - len);
	w->records++;
}

void dp_writer_add_meta(dp_writer *w, const char *key, const char *value)
{
	dp_buf b = {0};
	size_t kl = strlen(key) + 1, vl = strlen(value) + 1;

	/* a value longer than a record holds is cut; metadata is for people */
	if (kl + vl > MAX_REC - 16)
		vl = MAX_REC - 16 - kl;
	dp_buf_add(&b, key, kl);
	dp_buf_add(&b, value, vl - 1);
	dp_buf_add(&b, "", 1);
	dp_writer_add_dp(w, DP_REC_META, b.p, b.len);
	dp_buf_free(&b);
}

void dp_writer_add_warning(dp_writer *w, uint64_t time, const char *text)
{
	dp_buf b = {0};
	size_t tl = strlen(text);

	if (tl > MAX_REC - 32)
		tl = MAX_REC - 32;
	dp_buf_add(&b, &time, 8);
	dp_buf_add(&b, text, tl);
	dp_buf_add(&b, "", 1);
	dp_writer_add_dp(w, DP_REC_WARNING, b.p, b.len);
	dp_buf_free(&b);
}

void dp_writer_add_event(dp_writer *w, uint32_t index, const char *name,
			 const struct perf_event_attr *attr, enum dp_ip_semantics ip_sem,
			 enum dp_event_class evclass, const uint64_t *ids, size_t nids)
{
	struct dp_rec_event e;
	size_t nl = strlen(name) + 1;
	dp_buf b = {0};

	if (nl > 4096)
		nl = 4096;
	memset(&e, 0, sizeof(e));
	e.index = index;
	e.ip_sem = (uint16_t)ip_sem;
	e.evclass = (uint16_t)evclass;
	e.attr_size = sizeof(*attr);
	e.name_len = (uint32_t)nl;
	dp_buf_add(&b, (const uint8_t *)&e + sizeof(e.h), sizeof(e) - sizeof(e.h));
	dp_buf_add(&b, attr, sizeof(*attr));
	dp_buf_add(&b, name, nl - 1);
	dp_buf_add(&b, "", 1);
	dp_writer_add_dp(w, DP_REC_EVENT, b.p, b.len);

	/* IDs in chunks that fit a record */
	for (size_t done = 0; done < nids || (done == 0 && nids == 0);) {
		size_t n = DP_MIN(nids - done, (size_t)4096);
		uint32_t hdr[2] = {index, (uint32_t)n};

		b.len = 0;
		dp_buf_add(&b, hdr, sizeof(hdr));
		dp_buf_add(&b, ids + done, n * 8);
		dp_writer_add_dp(w, DP_REC_EVENT_IDS, b.p, b.len);
		done += n;
		if (n == 0)
			break;
	}
	dp_buf_free(&b);
}

int dp_writer_flush(dp_writer *w)
{
	size_t off = 0;

	if (w->failed)
		return -1;
	while (off < w->buf.len) {
		ssize_t n = write(w->fd, w->buf.p + off, w->buf.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->failed = true;
			w->failed_errno = n < 0 ? errno : ENOSPC;
			/* Cut the partial record away: the file ends on a boundary.
			 * Records of this batch that did fit stay. */
			uint64_t keep = w->written;
			size_t pos = 0;

			while (pos < off) {
				uint16_t sz;

				memcpy(&sz, w->buf.p + pos + 6, 2);
				if (sz < 8 || pos + sz > off)
					break;
				pos += sz;
				keep = w->written + pos;
			}
			if (ftruncate(w->fd, (off_t)keep) == 0)
				w->written = keep;
			w->buf.len = 0;
			return -1;
		}
		off += (size_t)n;
	}
	w->written += w->buf.len;
	w->buf.len = 0;
	return 0;
}

int dp_writer_last(dp_writer *w, const void *rec, size_t size)
{
	ssize_t n;

	if (w->fd < 0)
		return -1;
	do
		n = pwrite(w->fd, rec, size, (off_t)w->written);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)size) {
		w->written += size;
		w->records++;
		return 0;
	}
	if (n > 0 && ftruncate(w->fd, (off_t)w->written) < 0)
		return -1;
	return -1;
}

/* One kind of offsets, in as many INDEX records as they need. */
static void add_offsets(dp_writer *w, uint32_t what, const uint64_t *v, size_t n)
{
	const size_t most = (MAX_REC - sizeof(struct dp_rec_index)) / 8;

	for (size_t done = 0; done < n;) {
		struct dp_rec_index x;
		size_t k = DP_MIN(n - done, most);

		memset(&x, 0, sizeof(x));
		x.h.type = DP_REC_INDEX;
		x.h.size = (uint16_t)(sizeof(x) + k * 8);
		x.what = what;
		x.count = (uint32_t)k;
		dp_buf_add(&w->buf, &x, sizeof(x));
		dp_buf_add(&w->buf, v + done, k * 8);
		done += k;
	}
}

/* The index, after the last record: not noted in itself. */
static void add_index(dp_writer *w)
{
	struct dp_rec_index_end e;

	size_t from = w->buf.len;

	memset(&e, 0, sizeof(e));
	e.index_at = w->written + w->buf.len;
	add_offsets(w, DP_INDEX_SIDE, w->side.v, w->side.n);
	add_offsets(w, DP_INDEX_CHUNKS, w->chunks.v, w->chunks.n);
	e.h.type = DP_REC_INDEX_END;
	e.h.size = sizeof(e);
	e.chunk = DP_INDEX_CHUNK;
	e.nside = w->side.n;
	e.nchunks = w->chunks.n;
	e.samples = w->samples;
	e.magic = DP_INDEX_MAGIC;
	/* (no offsets at all: nothing to hash, and maybe no buffer either) */
	e.check = w->buf.len > from ? dp_fnv1a(w->buf.p + from, w->buf.len - from, DP_FNV_INIT)
				    : DP_FNV_INIT;
	e.check = dp_fnv1a(&e, offsetof(struct dp_rec_index_end, check), e.check);
	dp_buf_add(&w->buf, &e, sizeof(e));
}

int dp_writer_close(dp_writer *w)
{
	if (!w->failed && w->fd >= 0)
		add_index(w);
	int rc = dp_writer_flush(w);

	if (w->fd >= 0 && close(w->fd) < 0 && rc == 0) {
		w->failed = true;
		w->failed_errno = errno;
		rc = -1;
	}
	w->fd = -1;
	dp_buf_free(&w->buf);
	dp_vec_free(&w->side);
	dp_vec_free(&w->chunks);
	free(w->path);
	w->path = NULL;
	return rc;
}
