/* The collector thread: every interval it runs the collect stage of the
 * chosen sources into the next slot of a ring preallocated at start, stamped
 * with CLOCK_MONOTONIC. The recorder's main loop, which owns the profile
 * writer, drains the ring: decode, then READING records. The thread never
 * allocates, never parses and never touches the writer; the ring is one
 * producer, one consumer, two atomic indexes. A full ring (the main loop
 * stalled) skips a collection and counts it. */
#ifndef DP_COLLECTOR_H
#define DP_COLLECTOR_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "counters.h"
#include "../profile/writer.h"

/* Called by drain for each decoded reading (dataprof stat shows them). */
typedef void (*dp_reading_fn)(void *ctx, const dp_counters *c, uint64_t time,
			      const uint64_t *values);

typedef struct dp_collector {
	dp_counters c;
	bool open, started, running;
	uint64_t interval_ns;
	dp_reading_fn on_reading;
	void *on_reading_ctx;
	/* the ring: slot = {u64 time, u64 end, i32 lens[], raw} */
	uint8_t *slots;
	size_t nslots, slot_size, lens_off, raw_off;
	uint64_t head, tail; /* atomic: head by the thread, tail by drain */
	uint64_t *values;
	/* the thread */
	pthread_t thread;
	int stop_fd; /* an eventfd: written once to end the thread */
	/* counts, read after the thread ended (readings and late also live) */
	uint64_t readings, skipped, late, cpu_ns, wall_ns;
} dp_collector;

/* Prepares the sources of ctx and chooses the sensors of list. Sources not
 * available here are printed as one warning line each (and kept for the
 * profile). Returns 0, or -1 with an unknown name in err. */
int dp_collector_open(dp_collector *k, const dp_source_ctx *ctx, const char *list,
		      uint64_t interval_ns, dp_error *err);
/* SENSOR records, and a WARNING record for each source skipped. */
void dp_collector_write_sensors(dp_collector *k, dp_writer *w);
/* Starts the thread; it collects at once, then every interval. */
int dp_collector_start(dp_collector *k, dp_error *err);
/* Decodes what the thread collected and writes it. */
void dp_collector_drain(dp_collector *k, dp_writer *w);
/* Collects one last time and ends the thread (then drain once more). */
void dp_collector_stop(dp_collector *k);
/* stop, the last drain, and warnings for collections skipped or late. */
void dp_collector_finish(dp_collector *k, dp_writer *w);
void dp_collector_close(dp_collector *k);

#endif
