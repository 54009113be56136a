/* The trend page of `dataprof history show --html`: one HTML file, offline,
 * with a chart per key over the commits (uPlot), the commits where a key
 * changed beyond noise marked and linked to that step's diff table. */
#ifndef DP_VIEW_HISTORY_PAGE_H
#define DP_VIEW_HISTORY_PAGE_H

#include <stdio.h>

#include "../compare/history.h"

/* db: the --db the page names in its command lines. */
int dp_history_page_write(const dp_history_model *m, const char *db, FILE *f, dp_error *err);

/* history show --html PATH: the model of h as o shows it, written to a
 * page at path: 0, or -1 with err. */
int dp_history_page_save(dp_history *h, const dp_history_show_opts *o, const char *db,
			 const char *path, dp_error *err);

#endif
