#include "channel.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "chan_ring.h"

static int chan_fd = -2; /* -2: not looked up yet */
static uint64_t dropped;
static pthread_key_t flush_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static struct dp_ring_header *rings; /* NULL: batches go to the pipe */

typedef struct batch {
	size_t len;
	uint64_t buf[DP_AGENT_BATCH / 8];
} batch;

/* In the preloaded heap tracker, the static TLS block (no __tls_get_addr
 * per record); the collector is dlopen'ed, where that room is not sure. */
#ifdef DP_CHAN_TLS_INITIAL_EXEC
#define TLS __thread __attribute__((tls_model("initial-exec")))
#else
#define TLS __thread
#endif

static TLS batch tb;
static TLS int tb_registered;
/* this thread's ring (NULL: none taken yet), and what it has written */
static TLS struct dp_ring_ctl *my_ring;
static TLS uint64_t my_head;
static TLS int no_ring; /* none to be had, or given back: the pipe from now */

uint64_t dp_chan_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void dp_chan_close(void)
{
	dp_chan_flush();
	if (my_ring) {
		/* what it wrote stays for the recorder, which then frees it */
		__atomic_store_n(&my_ring->state, DP_RING_SLOT_CLOSED, __ATOMIC_RELEASE);
		my_ring = NULL;
	}
	no_ring = 1;
}

static void thread_exit(void *unused)
{
	(void)unused;
	dp_chan_close();
}

static void make_key(void)
{
	pthread_key_create(&flush_key, thread_exit);
}

static void before_fork(void)
{
	dp_chan_flush();
}

static void child_after_fork(void)
{
	tb.len = 0; /* the parent sent it */
	my_ring = NULL; /* the parent's thread keeps it: the child takes its own */
	no_ring = 0;
}

/* The recorder's memory file, if it gave one: a sealed memfd of the size
 * the layout says (never a path, never a file of the program's). */
static struct dp_ring_header *map_rings(void)
{
	const char *v = secure_getenv(DP_AGENT_RING_ENV);
	char *end = NULL;
	long fd = v && *v ? strtol(v, &end, 10) : -1;
	struct stat sb;
	struct dp_ring_header *h;

	if (fd < 0 || fd > INT_MAX || *end || fstat((int)fd, &sb) < 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_size != (off_t)DP_RING_FILE_BYTES ||
	    !(fcntl((int)fd, F_GET_SEALS) & F_SEAL_SHRINK))
		return NULL;
	h = mmap(NULL, DP_RING_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (h == MAP_FAILED)
		return NULL;
	if (h->magic != DP_RING_MAGIC || h->nslots != DP_RING_SLOTS ||
	    h->slot_bytes != DP_RING_SLOT_BYTES) {
		munmap(h, DP_RING_FILE_BYTES);
		return NULL;
	}
	return h;
}

int dp_chan_fd(void)
{
	if (chan_fd == -2) {
		/* secure_getenv: a setuid program never writes to a descriptor
		 * its caller names (nor do the variables below reach it) */
		const char *v = secure_getenv(DP_AGENT_FD_ENV);
		char *end = NULL;
		long fd = v && *v ? strtol(v, &end, 10) : -1;
		struct stat sb;

		/* only a pipe handed to us by dataprof: never a path, never a file */
		if (fd < 0 || fd > INT_MAX || *end || fstat((int)fd, &sb) < 0 ||
		    !S_ISFIFO(sb.st_mode))
			fd = -1;
		chan_fd = (int)fd;
		if (fd >= 0) {
			rings = map_rings();
			pthread_atfork(before_fork, NULL, child_after_fork);
		}
	}
	return chan_fd;
}

/* write(2) made here, not in libc: a sample taken while the kernel copies
 * our batch then has its user IP in this library, and is reported as
 * dataprof's own work instead of the program's write(). */
static ssize_t own_write(int fd, const void *p, size_t n)
{
#if defined(__x86_64__)
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"((long)SYS_write), "D"((long)fd), "S"(p), "d"(n)
			 : "rcx", "r11", "memory");
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (ssize_t)r;
#else
	return write(fd, p, n);
#endif
}

static void send_all(const void *p, size_t n)
{
	while (n) {
		ssize_t w = own_write(chan_fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			dropped++;
			return;
		}
		p = (const char *)p + w;
		n -= (size_t)w;
	}
}

static int take_ring(void)
{
	for (uint32_t i = 0; i < DP_RING_SLOTS; i++) {
		struct dp_ring_ctl *c = &rings->ctl[i];
		uint32_t free_state = DP_RING_SLOT_FREE;

		if (__atomic_compare_exchange_n(&c->state, &free_state, DP_RING_SLOT_OWNED, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			my_ring = c;
			my_head = __atomic_load_n(&c->head, __ATOMIC_RELAXED);
			c->tid = (uint32_t)syscall(SYS_gettid);
			return 1;
		}
	}
	no_ring = 1;
	return 0;
}

/* Waits for the recorder to take from a full ring; 0 once the recorder is
 * gone (its end of the pipe closed). */
static int wait_for_room(void)
{
	struct pollfd p = {chan_fd, POLLOUT, 0};
	struct timespec t = {0, 200000};

	if (poll(&p, 1, 0) > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL)))
		return 0;
	nanosleep(&t, NULL);
	return 1;
}

/* Copies the batch into this thread's ring; 0 when the pipe must carry it. */
static int ring_send(const void *p, size_t n)
{
	size_t at, first;
	uint8_t *data;

	if (!rings || no_ring || (!my_ring && !take_ring()))
		return 0;
	while (my_head + n - __atomic_load_n(&my_ring->tail, __ATOMIC_ACQUIRE) > DP_RING_SLOT_BYTES)
		if (!wait_for_room()) {
			dropped++;
			return 1;
		}
	data = (uint8_t *)rings + DP_RING_DATA_OFF +
	       (size_t)(my_ring - rings->ctl) * DP_RING_SLOT_BYTES;
	at = (size_t)(my_head & (DP_RING_SLOT_BYTES - 1));
	first = n < DP_RING_SLOT_BYTES - at ? n : DP_RING_SLOT_BYTES - at;
	memcpy(data + at, p, first);
	memcpy(data, (const uint8_t *)p + first, n - first);
	my_head += n;
	__atomic_store_n(&my_ring->head, my_head, __ATOMIC_RELEASE);
	return 1;
}

void dp_chan_flush(void)
{
	if (tb.len && dp_chan_fd() >= 0 && !ring_send(tb.buf, tb.len))
		send_all(tb.buf, tb.len);
	tb.len = 0;
}

void *dp_chan_reserve(size_t size)
{
	void *p;

	if (dp_chan_fd() < 0 || size > DP_AGENT_BATCH || (size & 7))
		return NULL;
	if (!tb_registered) {
		tb_registered = 1;
		pthread_once(&key_once, make_key);
		pthread_setspecific(flush_key, &tb);
	}
	if (tb.len + size > DP_AGENT_BATCH)
		dp_chan_flush();
	p = (char *)tb.buf + tb.len;
	tb.len += size;
	return p;
}

void dp_chan_put(const void *rec, size_t size)
{
	void *p = dp_chan_reserve(size);

	if (p)
		memcpy(p, rec, size);
}

uint64_t dp_chan_dropped(void)
{
	return dropped;
}
