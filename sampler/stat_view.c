/* dataprof stat's table of the system counters: live, then the summary. */
#include "stat_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIVE_NS 1000000000ull /* redraw a terminal at most once a second */

static void human(char *out, size_t len, double v, const char *unit, bool rate)
{
	static const char *const bsuf[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int i = 0;

	if (!strcmp(unit, "bytes")) {
		while (fabs(v) >= 1024 && i < 4) {
			v /= 1024;
			i++;
		}
		snprintf(out, len, "%.4g %s%s", v, bsuf[i], rate ? "/s" : "");
	} else if (!strcmp(unit, "ns")) {
		snprintf(out, len, "%.4f s%s", v / 1e9, rate ? "/s" : "");
	} else if (rate) {
		snprintf(out, len, "%.1f/s", v);
	} else {
		snprintf(out, len, "%.0f", v);
	}
}

static double rate(uint64_t v0, uint64_t t0, uint64_t v1, uint64_t t1)
{
	return t1 > t0 ? (double)(v1 - v0) * 1e9 / (double)(t1 - t0) : 0;
}

static void draw_live(dp_stat_view *v, uint64_t now)
{
	char a[48];

	fprintf(stderr, "\033[H\033[J dataprof stat: %llu readings\n\n %-48s %s\n",
		(unsigned long long)v->readings, "sensor", "now");
	for (size_t i = 0; i < v->n; i++) {
		dp_sensor_stat *s = &v->s[i];

		if (!s->n)
			continue;
		if (s->kind == DP_SENSOR_COUNTER)
			human(a, sizeof(a), rate(s->shown, s->t_shown, s->last, s->t_last), s->unit,
			      true);
		else
			human(a, sizeof(a), (double)s->last, s->unit, false);
		fprintf(stderr, " %-48s %s\n", s->name, a);
		s->shown = s->last;
		s->t_shown = s->t_last;
	}
	v->next_draw = now + DP_MAX(LIVE_NS, v->interval_ns);
}

void dp_stat_view_reading(void *ctx, const dp_counters *c, uint64_t time, const uint64_t *values)
{
	dp_stat_view *v = ctx;

	if (!v->s) {
		v->n = c->chosen.n;
		v->s = dp_calloc(c->chosen.n + 1, sizeof(*v->s));
		for (size_t i = 0; i < v->n; i++) {
			const dp_sensor *se = c->chosen.v[i].sensor;

			v->s[i].name = dp_strdup(se->name);
			v->s[i].kind = se->kind;
			snprintf(v->s[i].unit, sizeof(v->s[i].unit), "%s", se->unit);
		}
		v->next_draw = time + DP_MAX(LIVE_NS, v->interval_ns);
	}
	v->readings++;
	for (size_t i = 0; i < v->n; i++) {
		dp_sensor_stat *s = &v->s[i];
		uint64_t x = values[i];

		if (x == DP_READING_NONE)
			continue;
		if (!s->n++) {
			s->first = s->min = s->max = s->shown = x;
			s->t_first = s->t_shown = time;
		}
		s->last = x;
		s->t_last = time;
		s->min = DP_MIN(s->min, x);
		s->max = DP_MAX(s->max, x);
		s->sum += (double)x;
	}
	if (v->live && time >= v->next_draw)
		draw_live(v, time);
}

void dp_stat_view_summary(const dp_stat_view *v, const dp_record_result *res)
{
	char a[48], b[48], c[48], d[48];
	bool any = false;

	fprintf(stderr, "\n dataprof stat: %llu readings every %.3g ms",
		(unsigned long long)v->readings, (double)v->interval_ns / 1e6);
	if (res->collector_wall_ns)
		fprintf(stderr, "; collector thread: %.2f ms of CPU in %.3f s (%.3f%% of a core)",
			(double)res->collector_cpu_ns / 1e6, (double)res->collector_wall_ns / 1e9,
			100.0 * (double)res->collector_cpu_ns / (double)res->collector_wall_ns);
	fprintf(stderr, "\n\n");
	for (size_t i = 0; i < v->n; i++) {
		const dp_sensor_stat *s = &v->s[i];

		if (s->kind != DP_SENSOR_COUNTER)
			continue;
		if (!any)
			fprintf(stderr, " %-48s %16s %16s\n", "counter", "total", "per second");
		any = true;
		if (!s->n) {
			fprintf(stderr, " %-48s %16s\n", s->name, "-");
			continue;
		}
		human(a, sizeof(a), (double)(s->last - s->first), s->unit, false);
		human(b, sizeof(b), rate(s->first, s->t_first, s->last, s->t_last), s->unit, true);
		fprintf(stderr, " %-48s %16s %16s\n", s->name, a, b);
	}
	any = false;
	for (size_t i = 0; i < v->n; i++) {
		const dp_sensor_stat *s = &v->s[i];

		if (s->kind != DP_SENSOR_GAUGE)
			continue;
		if (!any)
			fprintf(stderr, "%s %-48s %12s %12s %12s %12s\n", i ? "\n" : "", "gauge",
				"min", "mean", "max", "last");
		any = true;
		if (!s->n) {
			fprintf(stderr, " %-48s %12s\n", s->name, "-");
			continue;
		}
		human(a, sizeof(a), (double)s->min, s->unit, false);
		human(b, sizeof(b), s->sum / (double)s->n, s->unit, false);
		human(c, sizeof(c), (double)s->max, s->unit, false);
		human(d, sizeof(d), (double)s->last, s->unit, false);
		fprintf(stderr, " %-48s %12s %12s %12s %12s\n", s->name, a, b, c, d);
	}
}

void dp_stat_view_free(dp_stat_view *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->s[i].name);
	free(v->s);
}
