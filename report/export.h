/* Exports of a profile to other tools' formats, fed by report's on_row
 * hook while the samples stream, finished after dp_report_build:
 *   Perfetto / chrome://tracing: Chrome's trace event JSON (docs/export.md)
 *   pprof, Pyroscope, Parca: profile.proto, gzip-compressed */
#ifndef DP_REPORT_EXPORT_H
#define DP_REPORT_EXPORT_H

#include "report.h"
#include "series.h"

typedef struct dp_perfetto dp_perfetto;

/* Opens path; res is filled by dp_report_build later (the rows use it). */
dp_perfetto *dp_perfetto_open(const char *path, dp_report_result *res, dp_error *err);
/* An instant event per sample, on its thread. */
void dp_perfetto_row(void *ctx, dp_attr_ctx *attrs, dp_row *row);
/* Thread names, marker regions (B/E), counter tracks (C); closes and frees. */
int dp_perfetto_finish(dp_perfetto *p, const dp_series_set *ss, dp_error *err);
/* Closes and removes the file (after an error). */
void dp_perfetto_abort(dp_perfetto *p);

typedef struct dp_pprof dp_pprof;

dp_pprof *dp_pprof_new(dp_report_result *res);
/* Adds the sample to its stack and labels. */
void dp_pprof_row(void *ctx, dp_attr_ctx *attrs, dp_row *row);
/* The profile, protobuf-encoded and gzip-compressed. */
int dp_pprof_write(dp_pprof *p, const char *path, dp_error *err);
void dp_pprof_free(dp_pprof *p);

#endif
