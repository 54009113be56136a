#include "agent_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIPE_BYTES (1 << 20)
/* At most this much per drain: a target that writes as fast as we read must
 * not keep the recorder from its rings, nor grow the writer's buffer. More
 * than the pipe holds, so that the last drain empties it. */
#define DRAIN_BYTES (4 * PIPE_BYTES)
#define READ_BYTES  (256 << 10)

int dp_agent_sink_open(dp_agent_sink *s, dp_error *err)
{
	int p[2];

	memset(s, 0, sizeof(*s));
	s->rfd = s->wfd = -1;
	if (pipe2(p, O_CLOEXEC) < 0) {
		dp_error_set(err, "cannot create the agent pipe: %s", strerror(errno));
		return -1;
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	/* room for bursts while the recorder is busy; the kernel may give less */
	fcntl(p[1], F_SETPIPE_SZ, PIPE_BYTES);
	s->pipe_bytes = fcntl(p[1], F_GETPIPE_SZ);
	s->rfd = p[0];
	s->wfd = p[1];
	s->no_pack = getenv("DATAPROF_RECORD_NO_PACK") != NULL;
	dp_agent_ticks_start(&s->ticks);
	return 0;
}

void dp_agent_sink_close_writer(dp_agent_sink *s)
{
	if (s->wfd >= 0)
		close(s->wfd);
	s->wfd = -1;
}

bool dp_agent_record_ok(const void *rec, size_t size)
{
	const struct dp_rec_header *h = rec;
	size_t min;

	if (size < sizeof(*h) || (size & 7) || h->size != size)
		return false;
	switch (h->type) {
	case DP_REC_ALLOC: {
		const struct dp_rec_alloc *a = rec;
		if (size < sizeof(*a))
			return false;
		return a->nframes <= (size - sizeof(*a)) / 8;
	}
	case DP_REC_FREE:
		min = sizeof(struct dp_rec_free);
		break;
	case DP_REC_THREAD:
		min = sizeof(struct dp_rec_thread);
		break;
	case DP_REC_MARKER: {
		const struct dp_rec_marker *m = rec;

		if (size < sizeof(*m))
			return false;
		/* every mark counted in n is there, and no more than that */
		return m->n && m->n == (size - sizeof(*m)) / sizeof(struct dp_mark) &&
		       (size - sizeof(*m)) % sizeof(struct dp_mark) == 0;
	}
	case DP_REC_MARKER_NAME:
		/* a name, ended within the record */
		return size > sizeof(struct dp_rec_marker_name) &&
		       memchr((const char *)rec + sizeof(struct dp_rec_marker_name), 0,
			      size - sizeof(struct dp_rec_marker_name));
	case DP_REC_WARNING:
		return size >= 17 && ((const char *)rec)[size - 1] == 0;
	default:
		return false;
	}
	return size >= min;
}

/* A heap record's time in ticks, made ns: in place, in pending. */
static void to_ns(dp_agent_sink *s, struct dp_rec_header *h)
{
	struct dp_rec_free *f = (void *)h;

	_Static_assert(offsetof(struct dp_rec_free, time) == offsetof(struct dp_rec_alloc, time),
		       "an ALLOC's time is where a FREE has it");

	if (!s->ticks.fresh)
		dp_agent_ticks_update(&s->ticks);
	f->time = dp_agent_ticks_ns(&s->ticks, f->time);
	h->misc &= (uint16_t)~DP_AGENT_TICKS;
}

static void take(dp_agent_sink *s, dp_writer *w)
{
	size_t off = 0;

	while (s->pending.len - off >= sizeof(struct dp_rec_header)) {
		struct dp_rec_header *h = (void *)(s->pending.p + off);

		if (h->size < sizeof(*h) || (h->size & 7)) {
			s->broken = true;
			break;
		}
		if (s->pending.len - off < h->size)
			break; /* the rest comes with the next read */
		if (dp_agent_record_ok(h, h->size)) {
			if ((h->misc & DP_AGENT_TICKS) &&
			    (h->type == DP_REC_ALLOC || h->type == DP_REC_FREE))
				to_ns(s, h);
			if (!s->no_pack && (h->type == DP_REC_ALLOC || h->type == DP_REC_FREE))
				dp_heap_pack_add(&s->pack, h, h->size, w);
			else
				dp_writer_add(w, h, h->size);
			s->records++;
		} else {
			s->rejected++;
		}
		off += h->size;
	}
	if (s->broken) {
		dp_writer_add_warning(w, dp_now_ns(),
				      "the agent channel sent malformed data; its records from "
				      "here on were dropped");
		s->pending.len = 0;
		return;
	}
	memmove(s->pending.p, s->pending.p + off, s->pending.len - off);
	s->pending.len -= off;
}

bool dp_agent_sink_can_rest(const dp_agent_sink *s)
{
	return s->pipe_bytes >= PIPE_BYTES / 2;
}

size_t dp_agent_sink_drain(dp_agent_sink *s, dp_writer *w)
{
	size_t got = 0;

	if (s->rfd < 0)
		return 0;
	while (got < DRAIN_BYTES) {
		ssize_t n;

		/* read behind what a record split between reads left */
		dp_buf_reserve(&s->pending, READ_BYTES);
		n = read(s->rfd, s->pending.p + s->pending.len, READ_BYTES);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (s->broken)
			continue; /* keep the pipe empty so the target never blocks */
		s->ticks.fresh = false;
		s->pending.len += (size_t)n;
		take(s, w);
	}
	return got;
}

void dp_agent_sink_flush(dp_agent_sink *s, dp_writer *w)
{
	dp_heap_pack_flush(&s->pack, w);
}

void dp_agent_sink_close(dp_agent_sink *s)
{
	dp_heap_pack_free(&s->pack);
	if (s->rfd >= 0)
		close(s->rfd);
	dp_agent_sink_close_writer(s);
	s->rfd = -1;
	dp_buf_free(&s->pending);
}
