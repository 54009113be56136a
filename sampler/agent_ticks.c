#include "agent_ticks.h"

#include <sched.h>
#include <string.h>

void dp_agent_ticks_start(dp_agent_ticks *t)
{
	t->start = t->now = dp_clock_take_pair();
	t->line = dp_clock_line_through(t->start, t->now);
}

void dp_agent_ticks_update(dp_agent_ticks *t)
{
	t->now = dp_clock_take_pair();
	t->line = dp_clock_line_through(t->start, t->now);
	t->fresh = true;
}

bool dp_agent_ticks_probe(void)
{
	static const char *const on_tsc[] = {"kvm-clock", "hyperv_clocksource_tsc_page", "xen"};
	char cs[64];
	cpu_set_t old, one;
	dp_clock_pair a, b, p[CPU_SETSIZE];
	int first = -1, n = 0;
	bool known = false;

	if (!DP_HAVE_TSC)
		return false;
	dp_clock_source(cs, sizeof(cs));
	if (!strcmp(cs, "tsc"))
		return true; /* the target decides so itself (mark_clock.c) */
	for (size_t i = 0; i < sizeof(on_tsc) / sizeof(on_tsc[0]); i++)
		known |= !strcmp(cs, on_tsc[i]);
	if (!known || sched_getaffinity(0, sizeof(old), &old) < 0)
		return false;
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &old))
			first = c;
	if (first < 0)
		return false;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		return false;
	a = dp_clock_take_pair();
	for (int c = first + 1; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &old))
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (sched_setaffinity(0, sizeof(one), &one) == 0)
			p[n++] = dp_clock_take_pair();
	}
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	sched_setaffinity(0, sizeof(one), &one);
	b = dp_clock_take_pair();
	sched_setaffinity(0, sizeof(old), &old);
	return dp_agent_ticks_agree(a, b, p, (size_t)n);
}

bool dp_agent_ticks_agree(dp_clock_pair a, dp_clock_pair b, const dp_clock_pair *p, size_t n)
{
	dp_clock_line line;

	if (b.ticks <= a.ticks || b.ns <= a.ns)
		return false;
	line = dp_clock_line_through(a, b);
	for (size_t i = 0; i < n; i++) {
		uint64_t at = dp_clock_to_ns(p[i].ticks, &line);
		uint64_t off = at > p[i].ns ? at - p[i].ns : p[i].ns - at;

		if (p[i].ticks <= a.ticks || p[i].ticks >= b.ticks || off > DP_TICKS_CPU_SKEW_NS)
			return false;
	}
	return true;
}
