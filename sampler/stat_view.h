/* dataprof stat's view of the system counters while a command runs: each
 * sensor's first, last, least and greatest values, a live table on a
 * terminal (redrawn at most once a second), and the summary at the end:
 * counters' totals and rates, gauges' min, mean, max and last. */
#ifndef DP_STAT_VIEW_H
#define DP_STAT_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "counters.h"
#include "recorder.h"

/* What the table shows of one sensor. */
typedef struct dp_sensor_stat {
	char *name; /* copied: the recorder's sensors end with the run */
	enum dp_sensor_kind kind;
	char unit[DP_SENSOR_UNIT_LEN];
	uint64_t first, last, min, max;
	uint64_t t_first, t_last;
	uint64_t shown, t_shown; /* value and time at the last redraw */
	double sum;
	uint64_t n;
} dp_sensor_stat;

typedef struct dp_stat_view {
	dp_sensor_stat *s;
	size_t n;
	bool live; /* redraw the table on stderr (a terminal) */
	uint64_t next_draw, readings, interval_ns;
} dp_stat_view;

/* A dp_reading_fn (dp_record_opts.on_reading) with ctx a dp_stat_view
 * (zeroed, then live and interval_ns set): takes each reading, and redraws
 * the live table when it is due. */
void dp_stat_view_reading(void *ctx, const dp_counters *c, uint64_t time, const uint64_t *values);
/* The summary on stderr, with the collector thread's cost from res. */
void dp_stat_view_summary(const dp_stat_view *v, const dp_record_result *res);
void dp_stat_view_free(dp_stat_view *v);

#endif
