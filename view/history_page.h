/* The trend page of `dataprof history show --html`: one HTML file, offline,
 * with a chart per key over the commits (uPlot), the commits where a key
 * changed beyond noise marked and linked to that step's diff table. */
#ifndef DP_VIEW_HISTORY_PAGE_H
#define DP_VIEW_HISTORY_PAGE_H

#include <stdio.h>

#include "../compare/history.h"

/* db: the --db the page names in its command lines. */
int dp_history_page_write(const dp_history_model *m, const char *db, FILE *f, dp_error *err);

#endif
