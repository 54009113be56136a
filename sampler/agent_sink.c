#include "agent_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../agent/chan_ring.h"

#define PIPE_BYTES (1 << 20)
/* At most this much per drain: a target that writes as fast as we read must
 * not keep the recorder from its rings, nor grow the writer's buffer. More
 * than the pipe holds, so that the last drain empties it. */
#define DRAIN_BYTES (4 * PIPE_BYTES)
#define READ_BYTES  (256 << 10)

/* The rings' memory file, sealed at its size (the tracker checks the seal:
 * a file of the program's is never taken for it). Without one (no memfd,
 * no memory), the pipe carries everything. */
static void open_rings(dp_agent_sink *s)
{
	int fd = memfd_create("dataprof-agent-rings", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	struct dp_ring_header *h;

	if (fd < 0)
		return;
	if (ftruncate(fd, (off_t)DP_RING_FILE_BYTES) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		close(fd);
		return;
	}
	h = mmap(NULL, DP_RING_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		close(fd);
		return;
	}
	h->magic = DP_RING_MAGIC;
	h->nslots = DP_RING_SLOTS;
	h->slot_bytes = DP_RING_SLOT_BYTES;
	s->rings = h;
	s->ring_fd = fd;
	s->ring_tail = dp_calloc(DP_RING_SLOTS, sizeof(*s->ring_tail));
	s->ring_who = dp_calloc(DP_RING_SLOTS, sizeof(*s->ring_who));
	s->ring_held = dp_calloc(DP_RING_SLOTS, sizeof(*s->ring_held));
	s->ring_last = dp_calloc(DP_RING_SLOTS, sizeof(*s->ring_last));
	s->ring_chains = dp_calloc((size_t)DP_RING_SLOTS * DP_RING_CHAINS, sizeof(*s->ring_chains));
}

int dp_agent_sink_open(dp_agent_sink *s, dp_error *err)
{
	int p[2];

	memset(s, 0, sizeof(*s));
	s->rfd = s->wfd = s->ring_fd = -1;
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
	if (!getenv("DATAPROF_AGENT_NO_RING"))
		open_rings(s);
	dp_agent_ticks_start(&s->ticks);
	return 0;
}

void dp_agent_sink_close_writer(dp_agent_sink *s)
{
	if (s->wfd >= 0)
		close(s->wfd);
	if (s->ring_fd >= 0)
		close(s->ring_fd); /* the mapping stays */
	s->wfd = s->ring_fd = -1;
}

/* A record of size bytes at rec holds its fixed part, *rec, and exactly n
 * entries of each bytes after it (n read only once the fixed part is known
 * to be there). */
#define HOLDS_EXACTLY(size, rec, n, each)                                                          \
	((size) >= sizeof(*(rec)) && ((size) - sizeof(*(rec))) % (each) == 0 &&                    \
	 (n) == ((size) - sizeof(*(rec))) / (each))

bool dp_agent_record_ok(const void *rec, size_t size)
{
	const struct dp_rec_header *h = rec;

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
		return size >= sizeof(struct dp_rec_free);
	case DP_RING_REC_ALLOC: {
		const struct dp_ring_alloc *a = rec;

		/* its frames here, or none here: the chain table's */
		if (size >= sizeof(*a) && (a->size_kind_n & DP_RING_CHAIN_REF))
			return size == sizeof(*a);
		return HOLDS_EXACTLY(size, a, a->size_kind_n >> 56 & 0x7f, 8);
	}
	case DP_RING_REC_FREE:
		return size == sizeof(struct dp_ring_free);
	case DP_REC_THREAD:
		return size >= sizeof(struct dp_rec_thread);
	case DP_REC_MARKER: {
		const struct dp_rec_marker *m = rec;

		/* every mark counted in n is there, and no more than that */
		return HOLDS_EXACTLY(size, m, m->n, sizeof(struct dp_mark)) && m->n;
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

/* Malformed data from the target: its records from here on are dropped,
 * said once in the profile. */
static void set_broken(dp_agent_sink *s, dp_writer *w)
{
	if (!s->broken)
		dp_writer_add_warning(w, dp_now_ns(),
				      "the agent channel sent malformed data; its records from "
				      "here on were dropped");
	s->broken = true;
}

_Static_assert(offsetof(struct dp_rec_alloc, pid) == offsetof(struct dp_rec_free, pid) &&
		   offsetof(struct dp_rec_alloc, pid) == offsetof(struct dp_rec_thread, pid),
	       "a heap or THREAD record's thread where the others have it");

/* A ring ALLOC's frames: its own, or its ring's chain table's
 * (chan_ring.h), which one that carries them updates; NULL if the table
 * has no such chain. */
static const uint64_t *alloc_frames(dp_agent_sink *s, const struct dp_ring_alloc *ra, int slot,
				    uint32_t n)
{
	struct dp_ring_chain *c;
	unsigned at = ra->h.misc >> 8;

	if (!at)
		return ra->size_kind_n & DP_RING_CHAIN_REF ? NULL : ra->frames;
	if (at > DP_RING_CHAINS || n > DP_RING_CHAIN_FRAMES)
		return NULL;
	c = &s->ring_chains[(size_t)slot * DP_RING_CHAINS + at - 1];
	if (ra->size_kind_n & DP_RING_CHAIN_REF)
		return c->n == n ? c->frames : NULL;
	c->n = n;
	memcpy(c->frames, ra->frames, (size_t)n * 8);
	return ra->frames;
}

/* A ring's ALLOC (chan_ring.h) as the profile's, in s->whole, its
 * thread the ring's (slot's who: pid << 32 | tid); NULL when the ring has
 * not said its thread. Another record: its thread, if it says one, is the
 * ring's from now on. slot: -1 for the pipe. */
static struct dp_rec_header *made_whole(dp_agent_sink *s, struct dp_rec_header *h, int slot)
{
	const struct dp_ring_alloc *ra = (const void *)h;
	uint64_t *who = slot < 0 ? NULL : &s->ring_who[slot];
	const uint64_t *frames;
	struct dp_rec_alloc *a;
	uint32_t n;

	switch (h->type) {
	case DP_REC_ALLOC:
	case DP_REC_FREE:
	case DP_REC_THREAD:
		if (who) {
			a = (void *)h; /* (pid and tid where all three have them) */
			*who = (uint64_t)a->pid << 32 | a->tid;
		}
		return h;
	case DP_RING_REC_ALLOC:
		if (slot < 0)
			return NULL;
		/* (the chain table as the thread has it, even if the record is
		 * not kept) */
		n = (uint32_t)(ra->size_kind_n >> 56) & 0x7f;
		frames = alloc_frames(s, ra, slot, n);
		if (!*who || !frames)
			return NULL;
		s->whole.len = 0;
		dp_buf_reserve(&s->whole, sizeof(*a) + (size_t)n * 8);
		a = (void *)s->whole.p;
		a->h.type = DP_REC_ALLOC;
		a->h.misc = h->misc & 0xff;
		a->h.size = (uint16_t)(sizeof(*a) + (size_t)n * 8);
		a->time = ra->time;
		a->pid = (uint32_t)(*who >> 32);
		a->tid = (uint32_t)*who;
		a->addr = ra->addr;
		a->size = ra->size_kind_n & ((1ull << DP_RING_SIZE_BITS) - 1);
		a->kind = (uint32_t)(ra->size_kind_n >> DP_RING_SIZE_BITS) & 0xff;
		a->nframes = n;
		memcpy(a->frames, frames, (size_t)n * 8);
		return &a->h;
	}
	return h;
}

/* A record into the profile: heap records packed, others as they are. */
static void put(dp_agent_sink *s, struct dp_rec_header *h, dp_writer *w)
{
	if (!s->no_pack && (h->type == DP_REC_ALLOC || h->type == DP_REC_FREE))
		dp_heap_pack_add(&s->pack, h, h->size, w);
	else
		dp_writer_add(w, h, h->size);
	s->records++;
}

/* Slot i's held FREEs into the profile, as the profile's, at time ns. */
static void held_out(dp_agent_sink *s, uint32_t i, uint64_t ns, dp_writer *w)
{
	dp_buf *held = &s->ring_held[i];

	for (size_t off = 0; off < held->len; off += sizeof(struct dp_ring_free)) {
		const struct dp_ring_free *rf = (const void *)(held->p + off);
		struct dp_rec_free f = {
		    .h = {.type = DP_REC_FREE, .size = sizeof(f)},
		    .time = ns,
		    .pid = (uint32_t)(s->ring_who[i] >> 32),
		    .tid = (uint32_t)s->ring_who[i],
		    .addr = rf->addr,
		    .kind = rf->h.misc >> 8,
		};

		put(s, &f.h, w);
	}
	held->len = 0;
}

/* At most this many bytes of FREEs wait in a slot (a thread that frees and
 * never allocates): beyond, they go out at the ring's last time, before
 * the frees (a block then looks dead a little early, never wrongly alive). */
#define HELD_MAX (4u << 20)

static size_t held_max(const dp_agent_sink *s)
{
	return s->held_max ? s->held_max : HELD_MAX;
}

/* The whole records at the start of b into the profile; what follows them
 * (a record's beginning) is left in b. slot: the ring b comes from, -1
 * for the pipe. */
static void take(dp_agent_sink *s, dp_buf *b, int slot, dp_writer *w)
{
	uint64_t *who = slot < 0 ? NULL : &s->ring_who[slot];
	size_t off = 0;

	while (b->len - off >= sizeof(struct dp_rec_header)) {
		struct dp_rec_header *h = (void *)(b->p + off);

		if (h->size < sizeof(*h) || (h->size & 7)) {
			set_broken(s, w);
			break;
		}
		if (b->len - off < h->size)
			break; /* the rest comes with the next read */
		if (!dp_agent_record_ok(h, h->size)) {
			s->rejected++;
		} else if (h->type == DP_RING_REC_FREE) {
			if (!who || !*who) { /* a ring that has not said its thread, or the pipe */
				s->rejected++;
			} else {
				if (s->ring_held[slot].len >= held_max(s))
					held_out(s, (uint32_t)slot, s->ring_last[slot], w);
				dp_buf_add(&s->ring_held[slot], h, sizeof(struct dp_ring_free));
			}
		} else if ((h = made_whole(s, h, slot))) {
			if ((h->misc & DP_AGENT_TICKS) &&
			    (h->type == DP_REC_ALLOC || h->type == DP_REC_FREE))
				to_ns(s, h);
			if (slot >= 0 && (h->type == DP_REC_ALLOC || h->type == DP_REC_FREE)) {
				/* the frees before it end now at the latest */
				s->ring_last[slot] = ((struct dp_rec_free *)h)->time;
				held_out(s, (uint32_t)slot, s->ring_last[slot], w);
			}
			put(s, h, w);
		} else {
			s->rejected++;
		}
		off += ((struct dp_rec_header *)(b->p + off))->size;
	}
	if (s->broken) {
		b->len = 0;
		return;
	}
	memmove(b->p, b->p + off, b->len - off);
	b->len -= off;
}

bool dp_agent_sink_can_rest(const dp_agent_sink *s)
{
	return s->pipe_bytes >= PIPE_BYTES / 2;
}

/* Whether an owned slot's thread is gone without giving it back (a process
 * that ended by a signal; another thread of a process that exec'ed): looked
 * at now and then, for slots found empty, so that a program of many short
 * processes keeps its rings. */
static bool owner_gone(const struct dp_ring_ctl *c)
{
	uint32_t tid = __atomic_load_n(&c->tid, __ATOMIC_RELAXED);

	return tid && tid <= INT32_MAX && kill((pid_t)tid, 0) < 0 && errno == ESRCH;
}

/* Takes what each thread's ring holds; a slot whose thread ended is freed
 * once empty. Every count is checked: a head that is not possible (behind
 * what was taken, or ahead by more than the ring) is malformed data. */
static size_t drain_rings(dp_agent_sink *s, dp_writer *w)
{
	size_t got = 0;
	uint64_t now = dp_now_ns();
	bool look = now - s->ring_checked > 100000000ull; /* 100 ms */

	s->ring_flowed = false;
	if (!s->rings)
		return 0;
	if (s->broken) {
		/* nothing is read from here on, but no writer may wait for room */
		for (uint32_t i = 0; i < DP_RING_SLOTS; i++)
			__atomic_store_n(&s->rings->ctl[i].tail,
					 __atomic_load_n(&s->rings->ctl[i].head, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
		return 0;
	}
	if (look)
		s->ring_checked = now;
	for (uint32_t i = 0; i < DP_RING_SLOTS && !s->broken; i++) {
		struct dp_ring_ctl *c = &s->rings->ctl[i];
		uint32_t state = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE);
		uint64_t head, tail = s->ring_tail[i];
		size_t n, at, first;
		const uint8_t *data;

		/* (a slot being taken is read as an owned one: its head is where
		 * the last owner left it, all taken, and its tid the taker's,
		 * written with the state) */
		if (state == DP_RING_SLOT_FREE)
			continue;
		head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
		if (head - tail > DP_RING_SLOT_BYTES) {
			set_broken(s, w);
			break;
		}
		n = (size_t)(head - tail);
		if (n) {
			data = (const uint8_t *)s->rings + DP_RING_DATA_OFF +
			       (size_t)i * DP_RING_SLOT_BYTES;
			at = (size_t)(tail & (DP_RING_SLOT_BYTES - 1));
			first = n < DP_RING_SLOT_BYTES - at ? n : DP_RING_SLOT_BYTES - at;
			/* copied first: the target may write there while we read */
			s->ring_data.len = 0;
			dp_buf_add(&s->ring_data, data + at, first);
			dp_buf_add(&s->ring_data, data, n - first);
			s->ring_tail[i] = head;
			__atomic_store_n(&c->tail, head, __ATOMIC_RELEASE);
			s->ticks.fresh = false;
			take(s, &s->ring_data, (int)i, w);
			/* a ring carries whole batches: a record cut at the head is malformed */
			if (s->ring_data.len)
				set_broken(s, w);
			got += n;
			s->ring_flowed = true;
		}
		/* closed before its head was read: nothing can follow what was taken */
		if ((state == DP_RING_SLOT_CLOSED || (!n && look && owner_gone(c))) &&
		    __atomic_compare_exchange_n(&c->state, &state, DP_RING_SLOT_FREE, false,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
			/* its thread ended: its last frees were before now */
			held_out(s, i, dp_now_ns(), w);
			s->ring_who[i] = 0; /* its next thread says who it is */
			memset(&s->ring_chains[(size_t)i * DP_RING_CHAINS], 0,
			       DP_RING_CHAINS * sizeof(*s->ring_chains)); /* and its chains */
		}
	}
	return got;
}

int dp_agent_sink_poll_ms(const dp_agent_sink *s)
{
	if (!s->rings)
		return -1;
	return s->ring_flowed ? 1 : 4;
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
		take(s, &s->pending, -1, w);
	}
	return got + drain_rings(s, w);
}

void dp_agent_sink_flush(dp_agent_sink *s, dp_writer *w, bool last)
{
	/* the target's end follows every free; a file of a series that goes
	 * on takes a thread's last time, which its next records follow */
	for (uint32_t i = 0; s->rings && i < DP_RING_SLOTS; i++)
		if (s->ring_held[i].len)
			held_out(s, i, last ? dp_now_ns() : s->ring_last[i], w);
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
	dp_buf_free(&s->ring_data);
	if (s->rings)
		munmap(s->rings, DP_RING_FILE_BYTES);
	s->rings = NULL;
	free(s->ring_tail);
	s->ring_tail = NULL;
	free(s->ring_who);
	s->ring_who = NULL;
	for (uint32_t i = 0; s->ring_held && i < DP_RING_SLOTS; i++)
		dp_buf_free(&s->ring_held[i]);
	free(s->ring_held);
	s->ring_held = NULL;
	free(s->ring_last);
	s->ring_last = NULL;
	free(s->ring_chains);
	s->ring_chains = NULL;
	dp_buf_free(&s->whole);
}
