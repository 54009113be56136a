/* The annotate pane's data in the view page (docs/view.md, "Annotate"):
 * srcview's per-instruction sums for the hottest functions, the same
 * numbers as `dataprof annotate`, from the view's own report pass; and per
 * time bucket the samples of each (instruction, verdict, object, member,
 * level), so that the page recounts any time range as the data view does. */
#ifndef DP_VIEW_ANNOT_H
#define DP_VIEW_ANNOT_H

#include <stdio.h>

#include "../report/report.h"
#include "strtab.h"

typedef struct dp_view_annot dp_view_annot;

/* top: the hottest functions listed (and those of the hottest objects and
 * instructions); source_dir, prefix_strip as annotate's. */
dp_view_annot *dp_view_annot_new(size_t top, const char *source_dir, unsigned prefix_strip);
void dp_view_annot_free(dp_view_annot *a);
/* Each kept row, after the view model's (bucket_ns: the model's width now). */
void dp_view_annot_row(dp_view_annot *a, const dp_row *row, uint64_t bucket_ns);
/* Before the first row: the report's decoder, to read branch stacks. */
void dp_view_annot_start(dp_view_annot *a, const dp_report_result *res);
/* Adds src, a part of the same pass (its share of the samples; dst_part
 * and src_part: their parts of the report), to dst. */
void dp_view_annot_merge(dp_view_annot *dst, const dp_report_result *dst_part, dp_view_annot *src,
			 const dp_report_result *src_part);
/* After the report pass: picks the functions, disassembles them. */
int dp_view_annot_finish(dp_view_annot *a, dp_report_result *res, dp_error *err);
/* The "annotate" member of the page's data, its strings interned in strs;
 * bucket_ns: the model's final width. */
void dp_view_annot_json(dp_view_annot *a, uint64_t bucket_ns, dp_strtab *strs, FILE *f);

#endif
