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

/* --sqlite FILE: o.on_start = dp_sqlite_start, o.parts = &dp_sqlite_parts,
 * o.on_row_ctx = the dp_sqlite_out; after
 * dp_report_build (successful or not: res NULL), dp_sqlite_finish inserts
 * the parts' samples in file order, writes the rows, closes and frees. */
typedef struct dp_sqlite_out dp_sqlite_out;
dp_sqlite_out *dp_sqlite_new(const char *path);
int dp_sqlite_start(void *ctx, dp_report_result *res, dp_error *err);
extern const dp_report_parts dp_sqlite_parts;
int dp_sqlite_finish(dp_sqlite_out *s, const dp_report_result *res, dp_error *err);

/* The Perfetto and pprof exports take the samples in the report's parts
 * (report.h: part_new), read in parallel; what they write does not depend
 * on the number of parts. */
typedef struct dp_perfetto dp_perfetto;

/* Opens path; res is filled by dp_report_build later (the end uses it). */
dp_perfetto *dp_perfetto_open(const char *path, dp_report_result *res, dp_error *err);
/* Part index's state (part 0's is the export's own; after on_start). */
void *dp_perfetto_part_new(dp_perfetto *p, unsigned index);
/* An instant event per sample, on its thread, into the part's events. */
void dp_perfetto_part_row(void *state, dp_attr_ctx *attrs, dp_row *row);
/* Part src's threads and events into part 0's dst. */
void dp_perfetto_part_merge(void *dst, void *src);
void dp_perfetto_part_free(void *state);
/* The samples' events in file order, thread names, marker regions (B/E),
 * counter tracks (C); closes and frees. */
int dp_perfetto_finish(dp_perfetto *p, const dp_series_set *ss, dp_error *err);
/* Closes and removes the file (after an error). */
void dp_perfetto_abort(dp_perfetto *p);

typedef struct dp_pprof dp_pprof;

/* A part's sums: part is the report's result for part 0 (kept: the end
 * reads its events), a part's view for the others (its annotator kept). */
dp_pprof *dp_pprof_new(const dp_report_result *part);
/* Adds the sample to its stack and labels. */
void dp_pprof_row(void *ctx, dp_attr_ctx *attrs, dp_row *row);
/* Part src's sums into part 0's dst. */
void dp_pprof_merge(dp_pprof *dst, const dp_pprof *src);
/* The profile, protobuf-encoded and gzip-compressed. */
int dp_pprof_write(dp_pprof *p, const char *path, dp_error *err);
void dp_pprof_free(dp_pprof *p);

#endif
