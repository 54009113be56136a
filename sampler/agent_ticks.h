/* The heap tracker's times in CPU ticks (DP_AGENT_TICKS), made
 * CLOCK_MONOTONIC nanoseconds as they arrive: a tick count read in the
 * target costs a third of a clock_gettime, on every allocation and free.
 * The slope is the line's from a pair taken before the target started to
 * one taken after each read of the channel, and a record is placed back
 * from that last pair, so that its error is the slope's over its own age
 * (microseconds: records arrive within a batch's life) and not over the
 * whole run, which the clock's slewing (NTP) would bend. */
#ifndef DP_AGENT_TICKS_H
#define DP_AGENT_TICKS_H

#include <stdbool.h>
#include <stdint.h>

#include "../agent/mark_clock.h"

typedef struct dp_agent_ticks {
	dp_clock_pair start, now;
	dp_clock_line line; /* start to now */
	bool fresh;	    /* now was taken after the last read */
} dp_agent_ticks;

/* Before the target runs. */
void dp_agent_ticks_start(dp_agent_ticks *t);
/* After a read of the channel, before its first record in ticks: its
 * records were stamped before this. */
void dp_agent_ticks_update(dp_agent_ticks *t);

/* Whether the target may read ticks though the kernel's clocksource is not
 * the TSC itself but a paravirtual clock made from it (kvm-clock, Hyper-V's
 * TSC page, Xen): on every CPU this process may run on, a (ticks, ns) pair
 * falls within DP_TICKS_CPU_SKEW_NS of the line through two pairs taken on
 * the first. A probe, not a promise: the recorder then sets
 * DATAPROF_MARKER_CLOCK=tsc for the target, unless the user set it. On the
 * kernel's own "tsc" it answers true without probing. */
bool dp_agent_ticks_probe(void);
#define DP_TICKS_CPU_SKEW_NS 2000
/* The probe's verdict: pairs a and b taken on the first CPU, before and
 * after the n pairs p taken on the others; each of p must lie between them
 * and within DP_TICKS_CPU_SKEW_NS of their line. */
bool dp_agent_ticks_agree(dp_clock_pair a, dp_clock_pair b, const dp_clock_pair *p, size_t n);

static inline uint64_t dp_agent_ticks_ns(const dp_agent_ticks *t, uint64_t ticks)
{
	uint64_t d;

	if (ticks <= t->start.ticks) /* before the target ran: clock noise or a lie */
		return t->start.ns;
	if (ticks >= t->now.ticks) /* read after the pair: another CPU's skew */
		return t->now.ns;
	d = t->now.ticks - ticks;
	return t->now.ns - t->line.whole * d -
	       (uint64_t)(((unsigned __int128)t->line.frac * d) >> 64);
}

#endif
