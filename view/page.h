/* The `dataprof view` page: one HTML file with everything in it — the data
 * (model.h), uPlot and the page's own scripts and styles — that opens from
 * disk with no network. */
#ifndef DP_VIEW_PAGE_H
#define DP_VIEW_PAGE_H

#include <stdio.h>

#include "model.h"

/* Fills page.html's slots: styles, data, scripts. */
int dp_view_page_write(dp_view_model *m, FILE *f, dp_error *err);

#endif
