/* The `dataprof view` page: one HTML file with everything in it — the data
 * (model.h), uPlot and the page's own scripts and styles — that opens from
 * disk with no network. */
#ifndef DP_VIEW_PAGE_H
#define DP_VIEW_PAGE_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"

/* Fills page.html's slots: styles, data, scripts. */
int dp_view_page_write(dp_view_model *m, FILE *f, dp_error *err);

/* For every page built from an embedded template: the template's text with
 * each <!--dp:NAME--> slot replaced by what slot writes for NAME (n bytes).
 * The slot <!--dp:head--> is the pages' shared <head> (head.html), whose
 * own slots generator, title and css go to slot too. */
typedef void (*dp_view_slot_fn)(void *ctx, const char *name, size_t n, FILE *f);
int dp_view_template_write(const char *name, FILE *f, dp_view_slot_fn slot, void *ctx,
			   dp_error *err);
/* Whether the slot named (name, n) is want. */
bool dp_view_slot_is(const char *name, size_t n, const char *want);
struct dp_asset;
const struct dp_asset *dp_view_asset(const char *name);
/* The embedded file name, or each whose name has this prefix and suffix. */
void dp_view_put(FILE *f, const char *name);
void dp_view_put_all(FILE *f, const char *prefix, const char *suffix);

#endif
