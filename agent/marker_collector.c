/* libdataprof_collector.so: records code marks inside the target and hands
 * them to dataprof through the agent channel (channel.h).
 *
 * Each thread that marks gets a block of marks on its first mark (from the
 * blocks of threads that exited, or a new mapping); after that a mark is two
 * clock reads and four stores into the thread's own block, no lock, no
 * allocation. A full block is handed over by the mark that finds it full:
 * that mark's overhead then holds the cost, so intervals stay right, and the
 * mark carries DP_MARK_FLUSHED. Blocks are handed over also at thread exit,
 * at dp_markers_uninit and at process exit; marks that found no memory for a
 * block are counted and reported. */
#include "collector_api.h"
#include "channel.h"
#include "mark_clock.h"
#include "dataprof/format.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define DP_EXPORT      __attribute__((visibility("default")))
#define DEFAULT_BLOCK  16384 /* marks: 384 KiB of address space a thread that marks */
#define NAME_TABLE     1024  /* names sent, process-wide */
#define THREAD_NAMES   16    /* names this thread knows were sent */

typedef struct block {
	struct block *next; /* every block made, never freed: blocks are reused */
	int owned;          /* atomic: a live thread marks into it */
	int lock;           /* atomic: held while handing marks over, never by a mark */
	uint32_t tid;
	uint64_t count;     /* marks written; stored (release) after the mark is complete */
	uint64_t sent;      /* marks handed over already */
	uint32_t named[THREAD_NAMES];
	unsigned named_next;
	struct dp_mark m[];
} block;

static block *blocks;
static size_t cap = DEFAULT_BLOCK;
static bool ticks;
static bool started;
static uint32_t app_id;
static pid_t pid;
static pthread_key_t key;
static uint64_t lost; /* marks that found no block */
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t names[NAME_TABLE];
/* Not initial-exec: with the channel's batch this module's TLS is too big for
 * the static TLS a dlopen may use. */
static __thread block *mine;

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

/* ---- handing marks over ---- */

static void lock(block *b)
{
	while (__atomic_exchange_n(&b->lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void unlock(block *b)
{
	__atomic_store_n(&b->lock, 0, __ATOMIC_RELEASE);
}

/* Marks from..to of b as MARKER records, times in CLOCK_MONOTONIC ns. */
static void send(block *b, uint64_t from, uint64_t to)
{
	union {
		struct dp_rec_marker r;
		uint8_t bytes[DP_AGENT_BATCH];
	} u;
	dp_clock_line line = {{0, 0}, 0, 0};

	if (from >= to)
		return;
	if (ticks)
		line = dp_clock_line_now();
	while (from < to) {
		uint32_t n = (uint32_t)(to - from < DP_MARKER_MAX_MARKS ? to - from
								  : DP_MARKER_MAX_MARKS);
		size_t size = sizeof(u.r) + n * sizeof(struct dp_mark);

		u.r.h.type = DP_REC_MARKER;
		u.r.h.misc = 0;
		u.r.h.size = (uint16_t)size;
		u.r.pid = (uint32_t)pid;
		u.r.tid = b->tid;
		u.r.app = app_id;
		u.r.n = n;
		memcpy(u.r.marks, &b->m[from], n * sizeof(struct dp_mark));
		for (uint32_t i = 0; ticks && i < n; i++) {
			u.r.marks[i].time = dp_clock_to_ns(u.r.marks[i].time, &line);
			u.r.marks[i].end = dp_clock_to_ns(u.r.marks[i].end, &line);
		}
		dp_chan_put(&u, size);
		from += n;
	}
	dp_chan_flush();
}

/* restart: the owner empties its block (full, or its thread ends). */
static void hand_over(block *b, bool restart)
{
	uint64_t n;

	lock(b);
	n = __atomic_load_n(&b->count, __ATOMIC_ACQUIRE);
	send(b, b->sent, n);
	if (restart)
		__atomic_store_n(&b->count, 0, __ATOMIC_RELAXED);
	b->sent = restart ? 0 : n;
	unlock(b);
}

static void send_name(uint32_t id, const char *name)
{
	union {
		struct dp_rec_marker_name r;
		uint8_t bytes[DP_AGENT_BATCH];
	} u;
	size_t len = strnlen(name, sizeof(u) - sizeof(u.r) - 8);
	size_t size = (sizeof(u.r) + len + 1 + 7) & ~(size_t)7;

	memset(&u, 0, size);
	u.r.h.type = DP_REC_MARKER_NAME;
	u.r.h.size = (uint16_t)size;
	u.r.pid = (uint32_t)pid;
	u.r.app = app_id;
	u.r.id = id;
	memcpy(u.bytes + sizeof(u.r), name, len);
	dp_chan_put(&u, size);
	dp_chan_flush();
}

/* Sends a name once per process (as long as the table has room). */
static void name_once(uint32_t id, const char *name)
{
	bool known = false;
	size_t i = id % NAME_TABLE;

	pthread_mutex_lock(&names_lock);
	for (size_t k = 0; k < NAME_TABLE && names[i]; k++, i = (i + 1) % NAME_TABLE) {
		if (names[i] == id) {
			known = true;
			break;
		}
	}
	if (!known && !names[i])
		names[i] = id;
	if (!known)
		send_name(id, name);
	pthread_mutex_unlock(&names_lock);
}

static void flush_all(void)
{
	char msg[160];
	uint64_t n = __atomic_exchange_n(&lost, 0, __ATOMIC_RELAXED);

	/* this thread's own block starts again empty; others' go on filling */
	for (block *b = __atomic_load_n(&blocks, __ATOMIC_ACQUIRE); b; b = b->next)
		if (b == mine || __atomic_load_n(&b->count, __ATOMIC_ACQUIRE) > b->sent)
			hand_over(b, b == mine);
	if (n) {
		struct {
			struct dp_rec_header h;
			uint64_t time;
			char text[160];
		} w;
		size_t size;

		snprintf(msg, sizeof(msg), "%llu marks were lost: no memory for a thread's block",
			 (unsigned long long)n);
		memset(&w, 0, sizeof(w));
		w.time = dp_clock_mono();
		memcpy(w.text, msg, strlen(msg) + 1);
		size = (16 + strlen(msg) + 1 + 7) & ~(size_t)7;
		w.h.type = DP_REC_WARNING;
		w.h.size = (uint16_t)size;
		dp_chan_put(&w, size);
		fprintf(stderr, "dataprof markers: %s\n", msg);
	}
	dp_chan_flush();
	if (dp_chan_dropped())
		fprintf(stderr,
			"dataprof markers: %llu batches of marks could not be sent (dataprof's "
			"channel was closed)\n",
			(unsigned long long)dp_chan_dropped());
}

/* ---- threads ---- */

static void thread_exit(void *v)
{
	block *b = v;

	hand_over(b, true);
	mine = NULL;
	__atomic_store_n(&b->owned, 0, __ATOMIC_RELEASE);
}

/* A block for this thread: one a finished thread left, or a new one. */
static __attribute__((noinline)) block *claim(void)
{
	block *b;

	for (b = __atomic_load_n(&blocks, __ATOMIC_ACQUIRE); b; b = b->next) {
		int zero = 0;

		if (__atomic_compare_exchange_n(&b->owned, &zero, 1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
	}
	if (!b) {
		/* pages come as the first marks fill them (a fault inside a mark is
		 * inside its overhead); a thread that marks little costs little */
		b = mmap(NULL, sizeof(*b) + cap * sizeof(struct dp_mark), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b == MAP_FAILED) {
			__atomic_fetch_add(&lost, 1, __ATOMIC_RELAXED);
			return NULL;
		}
		b->owned = 1;
		b->next = __atomic_load_n(&blocks, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&blocks, &b->next, b, true, __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED))
			;
	}
	b->tid = (uint32_t)gettid();
	b->count = b->sent = 0;
	memset(b->named, 0, sizeof(b->named));
	mine = b;
	pthread_setspecific(key, b);
	return b;
}

/* ---- marks ---- */

static inline __attribute__((always_inline)) void record(uint32_t id, uint64_t t, bool tsc)
{
	block *b = mine;
	uint32_t flags = 0;
	uint64_t n;

	if (__builtin_expect(!b, 0) && !(b = claim()))
		return;
	n = b->count;
	if (__builtin_expect(n == cap, 0)) {
		hand_over(b, true);
		n = 0;
		flags = DP_MARK_FLUSHED;
	}
	b->m[n].id = id;
	b->m[n].flags = flags;
	b->m[n].time = t;
	b->m[n].end = tsc ? dp_clock_ticks() : dp_clock_mono();
	__atomic_store_n(&b->count, n + 1, __ATOMIC_RELEASE);
}

static void mark_tsc(uint32_t id)
{
	record(id, dp_clock_ticks(), true);
}

static void mark_mono(uint32_t id)
{
	record(id, dp_clock_mono(), false);
}

static uint32_t named_id(const char *name)
{
	uint32_t id = DP_MARKER_NAMED | (fnv1a(name) & ~DP_MARKER_NAMED);
	block *b = mine;

	for (unsigned i = 0; b && i < THREAD_NAMES; i++)
		if (b->named[i] == id)
			return id;
	name_once(id, name);
	if (b)
		b->named[b->named_next++ % THREAD_NAMES] = id;
	return id;
}

static void mark_name_tsc(const char *name)
{
	uint64_t t = dp_clock_ticks();

	record(named_id(name), t, true);
}

static void mark_name_mono(const char *name)
{
	uint64_t t = dp_clock_mono();

	record(named_id(name), t, false);
}

/* ---- the entry points ---- */

static void after_fork_child(void)
{
	/* the parent hands over what the blocks held; the child starts empty */
	pid = getpid();
	pthread_mutex_init(&names_lock, NULL);
	for (block *b = blocks; b; b = b->next) {
		b->lock = 0;
		b->count = b->sent = 0;
		if (b != mine)
			b->owned = 0;
	}
	if (mine)
		mine->tid = (uint32_t)gettid();
}

static int init(const char *app, char *err, size_t errlen)
{
	const char *bs = secure_getenv("DATAPROF_MARKER_BLOCK");

	if (started)
		return 0;
	if (dp_chan_fd() < 0) {
		snprintf(err, errlen,
			 "no channel to dataprof (%s is not a pipe): run the program under "
			 "'dataprof record --markers'",
			 DP_AGENT_FD_ENV);
		return -1;
	}
	if (bs && atol(bs) > 0)
		cap = (size_t)atol(bs);
	if (pthread_key_create(&key, thread_exit)) {
		snprintf(err, errlen, "pthread_key_create: %s", strerror(errno));
		return -1;
	}
	pthread_atfork(NULL, NULL, after_fork_child);
	ticks = dp_clock_uses_ticks();
	if (ticks)
		dp_clock_start();
	pid = getpid();
	if (!app || !*app)
		app = program_invocation_short_name;
	app_id = fnv1a(app);
	send_name(DP_MARKER_APP, app);
	started = true;
	return 0;
}

static void define(uint32_t id, const char *name)
{
	name_once(id, name);
}

static void uninit(void)
{
	if (started)
		flush_all();
}

static __attribute__((destructor)) void at_exit(void)
{
	if (started) {
		flush_all();
		dp_chan_close();
	}
}

static dp_collector_api api_tsc = {
	DP_COLLECTOR_API_VERSION, sizeof(dp_collector_api), init, mark_tsc, mark_name_tsc,
	define, uninit,
};
static dp_collector_api api_mono = {
	DP_COLLECTOR_API_VERSION, sizeof(dp_collector_api), init, mark_mono, mark_name_mono,
	define, uninit,
};

/* The clock is chosen here, before init, so that marks call straight into
 * the right function: no test of the clock in a mark. */
DP_EXPORT const dp_collector_api *dp_collector_api_v1(void)
{
	return dp_clock_uses_ticks() ? &api_tsc : &api_mono;
}
