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
/* the pipe's identity: a program may close it, and its number go to a file */
static dev_t chan_dev;
static ino_t chan_ino;

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
/* This thread's ring (NULL: none taken yet), its bytes mapped twice in a
 * row (a record that runs past the end goes on at the start, and is
 * written in place all the same), what it has written and published, and
 * how far it may write before it looks at the recorder's tail again. */
static TLS struct dp_ring_ctl *my_ring;
static TLS uint8_t *my_data;
static TLS uint64_t my_head, my_pub, my_limit;
static TLS pid_t my_ring_pid; /* the process that took it */
static TLS int no_ring; /* none to be had, or given back: the pipe from now */
static TLS uint32_t my_epoch; /* rings taken by this thread (its copy, after fork) */

uint64_t dp_chan_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The channel's own mappings, made by system calls and not through libc:
 * the heap tracker hooks mmap and munmap, and a hook's record written from
 * here went into the ring being mapped or unmapped (after fork, the
 * parent's: the child's record then overwrote the parent's, which the
 * recorder took for malformed data). */
static void *own_mmap(void *at, size_t len, int prot, int flags, int fd, off_t off)
{
	long r = syscall(SYS_mmap, at, len, prot, flags, fd, off);

	return r < 0 && r > -4096 ? MAP_FAILED : (void *)r;
}

static void own_munmap(void *at, size_t len)
{
	syscall(SYS_munmap, at, len);
}

static void drop_ring_map(void)
{
	uint8_t *data = my_data;

	my_data = NULL;
	my_ring = NULL;
	if (data)
		own_munmap(data, 2 * (size_t)DP_RING_SLOT_BYTES);
}

void dp_chan_close(void)
{
	/* a vfork child (its _exit) runs on its parent's memory, thread
	 * variables and ring included: the ring stays the parent's */
	if (my_ring && (pid_t)syscall(SYS_getpid) != my_ring_pid)
		return;
	dp_chan_flush();
	if (my_ring) {
		/* what it wrote stays for the recorder, which then frees it */
		__atomic_store_n(&my_ring->state, DP_RING_SLOT_CLOSED, __ATOMIC_RELEASE);
		drop_ring_map();
	}
	no_ring = 1;
}

void dp_chan_before_exec(void)
{
	if (my_ring)
		dp_chan_close(); /* (which leaves a vfork child's ring to its parent) */
	else
		dp_chan_flush();
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
	tb.len = 0;	 /* the parent sent it */
	drop_ring_map(); /* the parent's thread keeps it: the child takes its own */
	no_ring = 0;
}

/* The open descriptor the variable name gives, with its status; -1 if none.
 * secure_getenv: a setuid program never writes to a descriptor its caller
 * names (nor do the other variables reach it). */
static int env_fd(const char *name, struct stat *sb)
{
	const char *v = secure_getenv(name);
	char *end = NULL;
	long fd = v && *v ? strtol(v, &end, 10) : -1;

	if (fd < 0 || fd > INT_MAX || *end || fstat((int)fd, sb) < 0)
		return -1;
	return (int)fd;
}

/* The recorder's memory file, if it gave one: a sealed memfd of the size
 * the layout says (never a path, never a file of the program's). */
static struct dp_ring_header *map_rings(void)
{
	struct stat sb;
	int fd = env_fd(DP_AGENT_RING_ENV, &sb);
	struct dp_ring_header *h;

	if (fd < 0 || !S_ISREG(sb.st_mode) || sb.st_size != (off_t)DP_RING_FILE_BYTES ||
	    !(fcntl(fd, F_GET_SEALS) & F_SEAL_SHRINK))
		return NULL;
	h = own_mmap(NULL, DP_RING_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return NULL;
	if (h->magic != DP_RING_MAGIC || h->nslots != DP_RING_SLOTS ||
	    h->slot_bytes != DP_RING_SLOT_BYTES) {
		own_munmap(h, DP_RING_FILE_BYTES);
		return NULL;
	}
	return h;
}

int dp_chan_fd(void)
{
	if (chan_fd == -2) {
		struct stat sb;
		int fd = env_fd(DP_AGENT_FD_ENV, &sb);

		/* only a pipe handed to us by dataprof: never a path, never a file */
		chan_fd = fd >= 0 && S_ISFIFO(sb.st_mode) ? fd : -1;
		if (chan_fd >= 0) {
			chan_dev = sb.st_dev;
			chan_ino = sb.st_ino;
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

/* Whether chan_fd is still the pipe it was: a program that closed it and
 * opened a file that got its number must not find our batches in it. */
static int still_the_pipe(void)
{
	struct stat sb;

	if (fstat(chan_fd, &sb) == 0 && sb.st_dev == chan_dev && sb.st_ino == chan_ino)
		return 1;
	chan_fd = -1; /* the channel is gone: nothing is recorded from here on */
	return 0;
}

static void send_all(const void *p, size_t n)
{
	if (!still_the_pipe()) {
		dropped++;
		return;
	}
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

/* Slot i's bytes, twice in a row; NULL if the mappings cannot be had.
 * Made from the memory file's mapping (mremap of an old size 0 maps the
 * same shared pages again), not from its descriptor: the program may have
 * closed that since, and given its number to a file of its own. */
static uint8_t *map_twice(uint32_t i)
{
	size_t n = DP_RING_SLOT_BYTES;
	uint8_t *slot = (uint8_t *)rings + DP_RING_DATA_OFF + (size_t)i * n;
	uint8_t *va = own_mmap(NULL, 2 * n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (va == MAP_FAILED)
		return NULL;
	for (int half = 0; half < 2; half++) {
		void *at = va + (size_t)half * n;

		if ((void *)syscall(SYS_mremap, slot, 0, n, MREMAP_MAYMOVE | MREMAP_FIXED, at) !=
		    at) {
			own_munmap(va, 2 * n);
			return NULL;
		}
	}
	return va;
}

static int take_ring(void)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);

	for (uint32_t i = 0; i < DP_RING_SLOTS; i++) {
		struct dp_ring_ctl *c = &rings->ctl[i];
		uint64_t free_slot = dp_ring_state_tid(DP_RING_SLOT_FREE,
						       __atomic_load_n(&c->tid, __ATOMIC_RELAXED));

		/* state and tid at once: the recorder frees a slot whose tid is
		 * a thread gone, and a slot taken first and given our tid after
		 * had the last owner's in between (it freed one so, and the
		 * writer then waited for room forever). TAKING until our memory
		 * maps it: nothing is in it, but a taker killed meanwhile leaves
		 * a tid the recorder finds gone. */
		if (!__atomic_compare_exchange_n(&c->state_tid, &free_slot,
						 dp_ring_state_tid(DP_RING_SLOT_TAKING, tid), 0,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		my_data = map_twice(i);
		if (!my_data) {
			__atomic_store_n(&c->state, DP_RING_SLOT_FREE, __ATOMIC_RELEASE);
			break;
		}
		my_ring = c;
		my_epoch++;
		my_ring_pid = (pid_t)syscall(SYS_getpid);
		my_head = my_pub = __atomic_load_n(&c->head, __ATOMIC_RELAXED);
		my_limit = __atomic_load_n(&c->tail, __ATOMIC_ACQUIRE) + DP_RING_SLOT_BYTES;
		__atomic_store_n(&c->state, DP_RING_SLOT_OWNED, __ATOMIC_RELEASE);
		return 1;
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

/* Lets the recorder see every record reserved so far (each filled in by
 * now: a caller fills its record before its next call here). */
static void publish(void)
{
	my_pub = my_head;
	__atomic_store_n(&my_ring->head, my_head, __ATOMIC_RELEASE);
}

/* Room for size bytes in this thread's ring, written in place; published
 * a batch at a time, as the pipe's writes were. NULL once the recorder is
 * gone. */
static void *ring_reserve(size_t size)
{
	void *p;

	if (my_head - my_pub >= DP_AGENT_BATCH)
		publish();
	while (my_head + size > my_limit) {
		publish(); /* a full ring: all of it for the recorder to take */
		my_limit = __atomic_load_n(&my_ring->tail, __ATOMIC_ACQUIRE) + DP_RING_SLOT_BYTES;
		if (my_head + size > my_limit && !wait_for_room()) {
			dropped++;
			return NULL;
		}
	}
	p = my_data + (my_head & (DP_RING_SLOT_BYTES - 1));
	my_head += size;
	/* the lines written next, asked for now: each record's first store
	 * to a line the recorder read last missed (2.5% of the wall time of
	 * record --heap on Lua) */
	__builtin_prefetch((uint8_t *)p + 2048, 1);
	return p;
}

void dp_chan_flush(void)
{
	if (my_ring && my_head != my_pub)
		publish();
	if (tb.len && dp_chan_fd() >= 0)
		send_all(tb.buf, tb.len);
	tb.len = 0;
}

void *dp_chan_reserve(size_t size)
{
	void *p;

	if (size > DP_AGENT_BATCH || (size & 7))
		return NULL;
	/* a thread with a ring took it here, the channel open and the thread
	 * registered: the rest is for its first record */
	if (my_ring)
		return ring_reserve(size);
	if (dp_chan_fd() < 0)
		return NULL;
	if (!tb_registered) {
		tb_registered = 1;
		pthread_once(&key_once, make_key);
		pthread_setspecific(flush_key, &tb);
	}
	if (my_ring || (rings && !no_ring && take_ring()))
		return ring_reserve(size);
	if (tb.len + size > DP_AGENT_BATCH)
		dp_chan_flush();
	p = (char *)tb.buf + tb.len;
	tb.len += size;
	return p;
}

uint32_t dp_chan_on_ring(void)
{
	return my_ring ? my_epoch : 0;
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
