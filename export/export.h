/* Outputs of a report for other tools. Those that follow the samples are
 * hooked into report's on_start/on_row while the samples stream and
 * finished after dp_report_build; the others render the built result.
 *   CSV and JSON of the report's rows (docs/report.md)
 *   SQLite: the sample table and the rows, for ad-hoc SQL (docs/report.md)
 *   Perfetto / chrome://tracing: Chrome's trace event JSON (docs/export.md)
 *   pprof, Pyroscope, Parca: profile.proto, gzip-compressed */
#ifndef DP_REPORT_EXPORT_H
#define DP_REPORT_EXPORT_H

#include "../report/report.h"
#include "../report/series.h"

typedef enum dp_out_format { DP_OUT_TEXT, DP_OUT_CSV, DP_OUT_JSON } dp_out_format;

/* dataprof report: builds o's report and prints it to o->out as fmt; with
 * sqlite (not NULL) the SQLite file too. */
int dp_report_print(const dp_report_opts *o, dp_out_format fmt, const char *sqlite, dp_error *err);

/* The rows of a built report. */
void dp_report_csv(const dp_report_result *r, FILE *f);
void dp_report_json(const dp_report_result *r, FILE *f);

/* --sqlite FILE: o.on_start = dp_sqlite_start, o.on_row = dp_sqlite_row,
 * o.on_row_ctx = the dp_sqlite_out; after dp_report_build (successful or
 * not: res NULL), dp_sqlite_finish writes the rows, closes and frees. */
typedef struct dp_sqlite_out dp_sqlite_out;
dp_sqlite_out *dp_sqlite_new(const char *path);
int dp_sqlite_start(void *ctx, dp_report_result *res, dp_error *err);
void dp_sqlite_row(void *ctx, dp_attr_ctx *c, dp_row *row);
int dp_sqlite_finish(dp_sqlite_out *s, const dp_report_result *res, dp_error *err);

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
