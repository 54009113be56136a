#include "collector.h"
#include "../profile/writer_timeline.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define DRAIN_NS  100000000ull /* the recorder drains at least this often */
#define MIN_SLOTS 8
#define MAX_RING  (64u << 20)

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ull + (uint64_t)t->tv_nsec;
}

static struct timespec ns_ts(uint64_t ns)
{
	struct timespec t = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
	return t;
}

int dp_collector_open(dp_collector *k, const dp_source_ctx *ctx, const char *list,
		      uint64_t interval_ns, dp_error *err)
{
	size_t want;

	memset(k, 0, sizeof(*k));
	if (dp_counters_open(&k->c, ctx, list, err) < 0)
		return -1;
	for (const char *p = k->c.warnings.p; p && *p;) {
		const char *nl = strchr(p, '\n');

		fprintf(stderr, "dataprof: warning: %.*s\n", (int)(nl - p), p);
		p = nl + 1;
	}
	k->open = true;
	k->interval_ns = interval_ns;
	k->lens_off = 16;
	k->raw_off = DP_ALIGN(k->lens_off + 4 * (k->c.active.n + 1), 8);
	k->slot_size = DP_ALIGN(k->raw_off + k->c.raw_size, 64);
	/* room for four drain periods of readings; a stalled main loop then skips */
	want = (size_t)(4 * DRAIN_NS / interval_ns) + 1;
	k->nslots = DP_MAX(want, (size_t)MIN_SLOTS);
	if (k->nslots * k->slot_size > MAX_RING)
		k->nslots = DP_MAX((size_t)MIN_SLOTS, MAX_RING / k->slot_size);
	k->values = dp_calloc(k->c.chosen.n + 1, sizeof(*k->values));
	return 0;
}

void dp_collector_write_sensors(dp_collector *k, dp_writer *w)
{
	if (!k->open)
		return;
	dp_counters_write_sensors(&k->c, w);
	for (const char *p = k->c.warnings.p; p && *p;) {
		const char *nl = strchr(p, '\n');
		char *line = dp_strndup(p, (size_t)(nl - p));

		dp_writer_add_warning(w, dp_now_ns(), line);
		free(line);
		p = nl + 1;
	}
}

static void collect_one(dp_collector *k)
{
	uint64_t head = k->head, tail = __atomic_load_n(&k->tail, __ATOMIC_ACQUIRE);
	struct timespec t0, t1;
	uint8_t *slot;

	if (head - tail >= k->nslots) {
		k->skipped++;
		return;
	}
	slot = k->slots + (head % k->nslots) * k->slot_size;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	dp_counters_collect(&k->c, slot + k->raw_off, (int32_t *)(slot + k->lens_off));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	((uint64_t *)slot)[0] = ts_ns(&t0);
	((uint64_t *)slot)[1] = ts_ns(&t1);
	__atomic_store_n(&k->head, head + 1, __ATOMIC_RELEASE);
}

static void *thread_main(void *arg)
{
	dp_collector *k = arg;
	struct pollfd stop = {k->stop_fd, POLLIN, 0};
	struct timespec cpu, now, left;
	uint64_t next, t_start = dp_now_ns();

	pthread_setname_np(pthread_self(), "dp-collector");
	next = t_start;
	for (;;) {
		collect_one(k);
		next += k->interval_ns;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (next <= ts_ns(&now)) {
			/* fell behind (descheduled): keep the period, skip the missed ticks */
			uint64_t missed = (ts_ns(&now) - next) / k->interval_ns + 1;

			k->late += missed;
			next += missed * k->interval_ns;
		}
		/* sleep until the next tick, or until stop writes the eventfd */
		left = ns_ts(next - ts_ns(&now));
		if (ppoll(&stop, 1, &left, NULL) > 0)
			break;
	}
	collect_one(k); /* the values at the end */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	k->cpu_ns = ts_ns(&cpu);
	k->wall_ns = dp_now_ns() - t_start;
	return NULL;
}

int dp_collector_start(dp_collector *k, dp_error *err)
{
	int e;

	if (!k->open || !k->c.chosen.n)
		return 0;
	k->slots = dp_calloc(k->nslots, k->slot_size);
	k->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (k->stop_fd < 0) {
		dp_error_set(err, "cannot start the counter collector: eventfd: %s",
			     strerror(errno));
		return -1;
	}
	e = pthread_create(&k->thread, NULL, thread_main, k);
	if (e) {
		close(k->stop_fd);
		dp_error_set(err, "cannot start the counter collector thread: %s", strerror(e));
		return -1;
	}
	k->started = k->running = true;
	return 0;
}

void dp_collector_drain(dp_collector *k, dp_writer *w)
{
	uint64_t head;

	if (!k->started)
		return;
	head = __atomic_load_n(&k->head, __ATOMIC_ACQUIRE);
	while (k->tail < head) {
		const uint8_t *slot = k->slots + (k->tail % k->nslots) * k->slot_size;
		const uint64_t *times = (const uint64_t *)slot;

		dp_counters_decode(&k->c, slot + k->raw_off, (const int32_t *)(slot + k->lens_off),
				   k->values);
		dp_writer_add_reading(w, times[0],
				      (uint32_t)DP_MIN(times[1] - times[0], UINT32_MAX), 0,
				      k->values, k->c.chosen.n);
		if (k->on_reading)
			k->on_reading(k->on_reading_ctx, &k->c, times[0], k->values);
		k->readings++;
		__atomic_store_n(&k->tail, k->tail + 1, __ATOMIC_RELEASE);
	}
}

void dp_collector_stop(dp_collector *k)
{
	if (!k->running)
		return;
	uint64_t one = 1;

	if (write(k->stop_fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		abort(); /* an eventfd write of 1 cannot fail */
	pthread_join(k->thread, NULL);
	close(k->stop_fd);
	k->running = false;
}

void dp_collector_finish(dp_collector *k, dp_writer *w)
{
	char msg[256];

	if (!k->started)
		return;
	dp_collector_stop(k);
	dp_collector_drain(k, w);
	if (k->skipped) {
		snprintf(msg, sizeof(msg),
			 "%llu counter collections were skipped: the recorder fell behind "
			 "(use a longer --interval)",
			 (unsigned long long)k->skipped);
		fprintf(stderr, "dataprof: warning: %s\n", msg);
		dp_writer_add_warning(w, dp_now_ns(), msg);
	}
	if (k->late) {
		/* the machine was busy: readings stay exact, they are only fewer */
		snprintf(msg, sizeof(msg),
			 "%llu counter collections came late and were left out (the collector "
			 "thread was not scheduled in time)",
			 (unsigned long long)k->late);
		dp_writer_add_warning(w, dp_now_ns(), msg);
	}
}

void dp_collector_close(dp_collector *k)
{
	if (!k->open)
		return;
	dp_collector_stop(k);
	dp_counters_close(&k->c);
	free(k->slots);
	free(k->values);
	memset(k, 0, sizeof(*k));
}
