#include "channel.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int chan_fd = -2; /* -2: not looked up yet */
static uint64_t dropped;
static pthread_key_t flush_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

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

uint64_t dp_chan_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void thread_exit(void *unused)
{
	(void)unused;
	dp_chan_flush();
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
		if (fd >= 0)
			pthread_atfork(before_fork, NULL, child_after_fork);
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

void dp_chan_flush(void)
{
	if (tb.len && dp_chan_fd() >= 0)
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
