/* The marks' clock. A mark reads the CPU's time-stamp counter (rdtsc, about
 * a third of a clock_gettime here) when the kernel itself keeps
 * CLOCK_MONOTONIC on it (clocksource "tsc": invariant and synchronized
 * across CPUs); the ticks become CLOCK_MONOTONIC nanoseconds when marks are
 * handed over, by the line through a (ticks, ns) pair taken at start and one
 * taken then. Elsewhere marks read CLOCK_MONOTONIC directly. */
#ifndef DP_MARK_CLOCK_H
#define DP_MARK_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define DP_HAVE_TSC 1
#else
#define DP_HAVE_TSC 0
#endif

/* Internal to each library that holds a copy (the heap tracker, the
 * collector): hidden, so that a copy never binds to another's (a preloaded
 * library's symbols come first) and calls within a library are direct. */
#pragma GCC visibility push(hidden)

static inline uint64_t dp_clock_mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static inline uint64_t dp_clock_ticks(void)
{
#if DP_HAVE_TSC
	return __rdtsc();
#else
	return dp_clock_mono();
#endif
}

/* One (ticks, ns) pair: the tightest of a few tries. */
typedef struct dp_clock_pair {
	uint64_t ticks, ns;
} dp_clock_pair;

/* The line from the start pair to a later one: ns = start + whole * ticks +
 * (frac * ticks) / 2^64, so that a conversion is two multiplications. */
typedef struct dp_clock_line {
	dp_clock_pair start;
	uint64_t whole, frac;
} dp_clock_line;

/* The kernel's clocksource ("tsc", "kvm-clock"...; "" if unreadable). */
void dp_clock_source(char *cs, size_t len);
/* Whether marks read ticks (true) or CLOCK_MONOTONIC; decided once.
 * DATAPROF_MARKER_CLOCK=monotonic|tsc overrides. */
bool dp_clock_uses_ticks(void);
/* Takes the start pair. */
void dp_clock_start(void);
/* The line for converting the ticks of marks made until now. */
dp_clock_line dp_clock_line_now(void);
/* A (ticks, ns) pair now, and the line through two of them (the recorder
 * converts the heap tracker's ticks with these: heap.c). */
dp_clock_pair dp_clock_take_pair(void);
dp_clock_line dp_clock_line_through(dp_clock_pair a, dp_clock_pair b);

/* ticks (from after the start) to CLOCK_MONOTONIC ns. */
static inline uint64_t dp_clock_to_ns(uint64_t ticks, const dp_clock_line *l)
{
	uint64_t d = ticks - l->start.ticks;

	if (ticks < l->start.ticks) /* a mark cannot precede init; clock noise */
		return l->start.ns;
	return l->start.ns + l->whole * d + (uint64_t)(((unsigned __int128)l->frac * d) >> 64);
}

#pragma GCC visibility pop

#endif
