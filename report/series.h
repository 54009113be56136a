/* Counter series over the whole time axis, for pages and exports that draw
 * them (view, export --perfetto): a point at each reading time (every k-th
 * when there are more than max_points), a counter's rate per second over
 * the interval that ends there, a gauge's level. Same arithmetic as
 * report --counters (report/context.h). */
#ifndef DP_REPORT_SERIES_H
#define DP_REPORT_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "report.h"

/* The counters drawn when none are chosen: those of record's default set
 * that say most about a phase. */
#define DP_SERIES_DEFAULT                                                                          \
	"proc/stat/cpu_user,proc/stat/cpu_system,proc/stat/cpu_iowait,proc/stat/ctxt,"             \
	"proc/vmstat/pgfault,proc/vmstat/pgmajfault,proc/meminfo/MemAvailable,"                    \
	"proc/pid_stat/rss,perf/sw/context-switches"

typedef struct dp_series {
	const char *name, *unit; /* valid while the report result is */
	bool gauge;
	double *v; /* per point; NAN: no value (a counter's first point) */
} dp_series;

typedef struct dp_series_set {
	bool readings;	 /* the profile has counter readings at all */
	uint64_t lo, hi; /* the first and last reading (absolute ns) */
	uint64_t *times; /* the points (absolute ns) */
	size_t n;
	dp_series *s;
	size_t ns;
} dp_series_set;

/* globs NULL: those of deflt (a glob list) that the profile has, no error
 * for the rest; else each glob must match (one-line error). No readings:
 * an empty set, or with globs given an error that says to record them. */
int dp_series_build(dp_report_result *res, const char *globs, const char *deflt,
		    uint32_t max_points, dp_series_set *out, dp_error *err);
void dp_series_free(dp_series_set *s);

#endif
