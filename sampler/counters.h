/* The system counters one recording collects: the sensors the user chose
 * (globs over sensor names), their ids in the profile, and the turning of
 * raw snapshots into values, counters with their wraps unfolded. */
#ifndef DP_COUNTERS_H
#define DP_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source.h"
#include "../profile/writer.h"
#include "util.h"

/* What --counters default means: the totals that explain most phases, from
 * few files (each read costs the collector 3-20 µs of kernel time), so that
 * collecting every 10 ms stays under 1% of a core. */
#define DP_COUNTERS_DEFAULT                                                                        \
	"proc/stat/cpu_user,proc/stat/cpu_system,proc/stat/cpu_idle,proc/stat/cpu_iowait,"       \
	"proc/stat/cpu_steal,proc/stat/ctxt,proc/stat/processes,proc/stat/procs_running,"         \
	"proc/meminfo/MemFree,proc/meminfo/MemAvailable,proc/meminfo/Cached,"                     \
	"proc/vmstat/pgfault,proc/vmstat/pgmajfault,proc/vmstat/pswpin,proc/vmstat/pswpout,"      \
	"proc/pid_stat/utime,proc/pid_stat/stime,proc/pid_stat/minflt,proc/pid_stat/majflt,"      \
	"proc/pid_stat/num_threads,proc/pid_stat/rss,perf/sw/*"

/* Running total of a counter: raw values that wrap after width bits become
 * one 64-bit total. A 64-bit counter that steps back (the kernel's idle
 * accounting does, by a tick) adds nothing for that step. */
typedef struct dp_counter_state {
	uint64_t last, total;
	bool seen;
} dp_counter_state;
uint64_t dp_counter_extend(dp_counter_state *st, uint64_t raw, unsigned width);

/* A sensor chosen, where its values come from, and its running total. */
typedef struct dp_chosen_sensor {
	const dp_sensor *sensor;
	uint32_t src; /* its active source */
	uint32_t idx; /* its index in that source */
	dp_counter_state state;
} dp_chosen_sensor;

typedef struct dp_counters {
	dp_source_vec all;    /* every source, prepared or unavailable */
	dp_source_vec active; /* those with chosen sensors, in collection order */
	size_t *raw_off;      /* offset of each active source in a snapshot */
	size_t raw_size;      /* bytes of one raw snapshot */
	DP_VEC(dp_chosen_sensor) chosen; /* by id */
	uint64_t *scratch;		 /* decode: one source's values */
	dp_buf warnings;   /* one line each: sources asked for but not available here */
} dp_counters;

/* Prepares the sources of ctx and chooses the sensors of list (comma-separated
 * globs; "default" stands for DP_COUNTERS_DEFAULT). A name that matches no
 * sensor is an error that names close ones. Sensors of sources not available
 * here are left out with a warning line in c->warnings. */
int dp_counters_open(dp_counters *c, const dp_source_ctx *ctx, const char *list, dp_error *err);
void dp_counters_close(dp_counters *c);

/* SENSOR records of the chosen sensors (ids 0..n-1). */
void dp_counters_write_sensors(const dp_counters *c, dp_writer *w);

/* The collector thread: raw bytes of every active source into raw
 * (raw_size bytes), lens[i] the bytes of source i or -1. No allocation. */
void dp_counters_collect(dp_counters *c, uint8_t *raw, int32_t *lens);
/* The main thread: values[n] from one snapshot, in base units, counters as
 * running totals, DP_READING_NONE where a source gave nothing. */
void dp_counters_decode(dp_counters *c, const uint8_t *raw, const int32_t *lens,
			uint64_t *values);

#endif
