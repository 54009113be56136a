/* What report adds from a profile's code marks and system counters: the
 * marker region of each sample, the --between filter, and counter rates
 * per time bucket. Filled in the side-band pass like the other stages. */
#ifndef DP_REPORT_CONTEXT_H
#define DP_REPORT_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "dataprof/profile.h"
#include "marks.h"
#include "strtab.h"

typedef struct dp_report_ctx dp_report_ctx;

dp_report_ctx *dp_report_ctx_new(dp_strtab *strs);
void dp_report_ctx_free(dp_report_ctx *c);
void dp_report_ctx_observe(dp_report_ctx *c, const dp_record *r);
void dp_report_ctx_ready(dp_report_ctx *c);
bool dp_report_ctx_has_marks(const dp_report_ctx *c);

/* "parse..compute": the last mark the thread made at or before t and the
 * next one ("end" if none); "[no marker region]" before its first. */
uint32_t dp_report_ctx_region(dp_report_ctx *c, uint32_t pid, uint32_t tid, uint64_t t);

/* --between A B: keep what a thread did from a mark A to its next mark B. */
int dp_report_ctx_between(dp_report_ctx *c, const char *a, const char *b, dp_error *err);
bool dp_report_ctx_inside(dp_report_ctx *c, uint32_t pid, uint32_t tid, uint64_t t);

/* --counters GLOBS: the sensors to show next to time buckets. */
int dp_report_ctx_counters(dp_report_ctx *c, const dp_profile *p, const char *globs,
			   dp_error *err);
size_t dp_report_ctx_ncounters(const dp_report_ctx *c);
/* The time the readings span; false without readings. */
bool dp_report_ctx_readings_span(const dp_report_ctx *c, uint64_t *lo, uint64_t *hi);
const char *dp_report_ctx_counter_name(const dp_report_ctx *c, size_t i);
/* The counter's rate (per second) or gauge's level over [t0, t1) (absolute
 * times); false outside the readings. text gets a formatted value. */
bool dp_report_ctx_counter(const dp_report_ctx *c, size_t i, uint64_t t0, uint64_t t1,
			   double *value, char *text, size_t len);

/* For pages and exports that lay out the whole time axis (view, export). */
const dp_marks *dp_report_ctx_marks(const dp_report_ctx *c);
size_t dp_report_ctx_nreadings(const dp_report_ctx *c);
/* The time of the i-th reading, in time order (readings split over several
 * records share a time). */
uint64_t dp_report_ctx_reading_time(const dp_report_ctx *c, size_t i);

#endif
