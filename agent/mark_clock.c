#include "mark_clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_SPAN 100000 /* ticks between the two pairs of a line (~40 µs) */

static dp_clock_pair start;

dp_clock_pair dp_clock_take_pair(void)
{
	dp_clock_pair best = {0, 0};
	uint64_t width = UINT64_MAX;

	/* a clock_gettime between two tick reads; the narrowest bracket wins */
	for (int i = 0; i < 7; i++) {
		unsigned aux;
		uint64_t a, b, ns;

#if DP_HAVE_TSC
		a = __rdtscp(&aux);
		ns = dp_clock_mono();
		b = __rdtscp(&aux);
#else
		(void)aux;
		a = b = ns = dp_clock_mono();
#endif
		if (b - a < width) {
			width = b - a;
			best.ticks = a + (b - a) / 2;
			best.ns = ns;
		}
	}
	return best;
}

void dp_clock_source(char *cs, size_t len)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	cs[0] = 0;
	if (f) {
		if (!fgets(cs, (int)len, f))
			cs[0] = 0;
		fclose(f);
	}
	cs[strcspn(cs, "\n")] = 0;
}

static bool tsc_is_the_clock(void)
{
	const char *env = secure_getenv("DATAPROF_MARKER_CLOCK");
	char cs[32];

	if (!DP_HAVE_TSC || (env && !strcmp(env, "monotonic")))
		return false;
	if (env && !strcmp(env, "tsc"))
		return true;
	dp_clock_source(cs, sizeof(cs));
	return !strcmp(cs, "tsc");
}

bool dp_clock_uses_ticks(void)
{
	static int decided = -1;

	if (decided < 0)
		decided = tsc_is_the_clock();
	return decided;
}

void dp_clock_start(void)
{
	start = dp_clock_take_pair();
}

dp_clock_line dp_clock_line_through(dp_clock_pair a, dp_clock_pair b)
{
	dp_clock_line l = {a, 0, 0};
	uint64_t dt = b.ticks - a.ticks, dns = b.ns - a.ns;

	if (b.ticks <= a.ticks || b.ns < a.ns)
		return l; /* no slope to be had: every time is a's */
	l.whole = dns / dt;
	l.frac = (uint64_t)(((unsigned __int128)(dns % dt) << 64) / dt);
	return l;
}

dp_clock_line dp_clock_line_now(void)
{
	dp_clock_pair p = dp_clock_take_pair();

	/* too close to the start for a good slope: wait a little (once, early) */
	while (p.ticks - start.ticks < MIN_SPAN)
		p = dp_clock_take_pair();
	return dp_clock_line_through(start, p);
}
