/* Small helpers shared by the benchmark programs. */
#ifndef DP_BENCH_UTIL_H
#define DP_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds of this process's CPU time: the benchmarks are single-threaded,
 * and CPU time does not count the waits of a machine shared with other work
 * (wall time can be had with BENCH_WALL=1). */
static inline double bench_now(void)
{
	static int wall = -1;
	struct timespec ts;

	if (wall < 0)
		wall = getenv("BENCH_WALL") != NULL;
	clock_gettime(wall ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wall-clock seconds: for the targets, which time their own work, threads
 * and all. */
static inline double bench_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The random number after x (xorshift64, shifts 13, 7, 17; x not 0): the
 * targets' random addresses and sizes. */
static inline uint64_t bench_xorshift(uint64_t x)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

/* A line of /proc/self/status in MiB ("RssAnon:", "VmHWM:"); -1 if absent.
 * The profile is mapped, so peak RSS counts its pages; the anonymous part
 * is the program's own memory. */
static inline double bench_status_mib(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	double v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key)) / 1024.0;
	if (f)
		fclose(f);
	return v;
}

#endif
