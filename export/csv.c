/* The report as CSV (RFC 4180): one row per group at every level; the key
 * columns of deeper levels are empty on a parent's row. */
#include "export.h"
#include "csv.h"

#include <inttypes.h>
#include <string.h>

static void field(FILE *f, const char *s)
{
	dp_csv_field(f, s, false);
}

static void row(const dp_report_result *r, FILE *f, uint32_t idx, const char **keys)
{
	const dp_agg *g = &r->agg;
	const dp_agg_node *n = &g->nodes.v[idx], *root = &g->nodes.v[0];
	const dp_agg_node *parent = &g->nodes.v[n->parent];
	int col = 0;

	fprintf(f, "%u", n->depth);
	for (int d = 0; d < g->nlevels; d++)
		for (int i = 0; i < g->levels[d].nattrs; i++, col++) {
			fputc(',', f);
			if (d < (int)n->depth)
				field(f, keys[col]);
		}
	uint64_t v = n->m[g->metric];
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.4f,%.4f", n->m[0], n->m[1], n->m[2],
		root->m[g->metric] ? 100.0 * (double)v / (double)root->m[g->metric] : 0,
		parent->m[g->metric] ? 100.0 * (double)v / (double)parent->m[g->metric] : 0);
	for (uint32_t e = 0; r->nev > 1 && e < r->nev; e++) {
		const uint64_t *m = dp_agg_event_m(g, idx, e);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, m[0], m[1], m[2]);
	}
	fputc('\n', f);
}

static void walk(const dp_report_result *r, FILE *f, uint32_t idx, const char **keys, char bufs[][128],
		 int col)
{
	const dp_agg *g = &r->agg;
	const dp_agg_node *n = &g->nodes.v[idx];

	if (idx) {
		const dp_agg_level *lv = &g->levels[n->depth - 1];
		for (int i = 0; i < lv->nattrs; i++)
			keys[col + i] = dp_attr_format(r->attrs, &lv->attrs[i], n->key[i], bufs[col + i], 128);
		row(r, f, idx, keys);
		col += lv->nattrs;
	}
	for (uint32_t i = 0; i < n->nchildren; i++)
		walk(r, f, n->children[i], keys, bufs, col);
}

void dp_report_csv(const dp_report_result *r, FILE *f)
{
	const dp_agg *g = &r->agg;
	const char *keys[DP_AGG_MAX_LEVELS * DP_AGG_MAX_ATTRS] = {0};
	char bufs[DP_AGG_MAX_LEVELS * DP_AGG_MAX_ATTRS][128];

	fputs("depth", f);
	for (int d = 0; d < g->nlevels; d++)
		for (int i = 0; i < g->levels[d].nattrs; i++)
			fprintf(f, ",%s", dp_attr_name(g->levels[d].attrs[i].id));
	fputs(",samples,period,weight,percent_total,percent_parent", f);
	for (size_t e = 0; r->nev > 1 && e < r->nev; e++) {
		const char *n = r->ev[e].name ? r->ev[e].name : "?";
		fputs(",", f);
		field(f, n);
		fputs(".samples,", f);
		field(f, n);
		fputs(".period,", f);
		field(f, n);
		fputs(".weight", f);
	}
	fputc('\n', f);
	walk(r, f, 0, keys, bufs, 0);
}
