/* The report as aligned text that fits the terminal (80 columns unless
 * told): one line per group, its regroupings indented under it. */
#include "report.h"
#include "context.h"

#include <inttypes.h>
#include <string.h>

static const char *metric_name(dp_metric m)
{
	return m == DP_M_SAMPLES ? "samples" : m == DP_M_PERIOD ? "period" : "weight";
}

/* 1234567 -> "1,234,567" */
static const char *thousands(uint64_t v, char *buf, size_t len)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), o = 0;

	for (int i = 0; i < n && (size_t)o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}

static void key_text(const dp_report_result *r, const dp_agg_node *n, char *out, size_t len)
{
	const dp_agg_level *lv = &r->agg.levels[n->depth - 1];
	size_t o = 0;

	out[0] = 0;
	for (int i = 0; i < lv->nattrs && o < len; i++) {
		char buf[64];
		const char *s =
		    dp_attr_format(r->attrs, &lv->attrs[i], n->key[i], buf, sizeof(buf));
		o += (size_t)snprintf(out + o, len - o, "%s%s", i ? "  |  " : "", s);
	}
}

/* The counters over a time bucket, under its row. */
static void print_counters(const dp_report_result *r, FILE *f, const dp_agg_node *n, int indent)
{
	const dp_attr *a = &r->agg.levels[0].attrs[0];
	dp_report_ctx *c = dp_row_ctx_marks(r->rows);
	uint64_t t0 = dp_row_ctx_start(r->rows) + n->key[0] * a->bucket, t1 = t0 + a->bucket;
	size_t nc = dp_report_ctx_ncounters(c);

	if (nc)
		fprintf(f, "%*s", indent, "");
	for (size_t i = 0; i < nc; i++) {
		char text[64];
		double v;
		const char *name = dp_report_ctx_counter_name(c, i), *slash = strrchr(name, '/');

		if (!dp_report_ctx_counter(c, i, t0, t1, &v, text, sizeof(text)))
			snprintf(text, sizeof(text), "-");
		fprintf(f, "%s%s %s", i ? ", " : "", slash ? slash + 1 : name, text);
	}
	if (nc)
		fputc('\n', f);
}

static void print_node(const dp_report_result *r, FILE *f, uint32_t idx, int width)
{
	const dp_agg *g = &r->agg;
	const dp_agg_node *n = &g->nodes.v[idx], *parent = &g->nodes.v[n->parent];
	const dp_agg_node *root = &g->nodes.v[0];
	uint64_t v = dp_agg_value(n, g->metric);
	double pct =
	    n->depth == 1
		? (root->m[g->metric] ? 100.0 * (double)v / (double)root->m[g->metric] : 0)
		: (parent->m[g->metric] ? 100.0 * (double)v / (double)parent->m[g->metric] : 0);
	int indent = (int)(n->depth - 1) * 3;
	char num[32], key[1024], shown[1024];
	int used;

	key_text(r, n, key, sizeof(key));
	used = indent + 18 + (r->nev > 1 ? 11 * (int)r->nev : 0);
	dp_fit_end(key, width - used, 4, shown, sizeof(shown));
	fprintf(f, "%*s%7.2f%% %9s  ", indent, "", pct, thousands(n->m[0], num, sizeof(num)));
	if (r->nev > 1)
		for (uint32_t e = 0; e < r->nev; e++)
			fprintf(f, "%10s ",
				thousands(dp_agg_event_m(g, idx, e)[0], num, sizeof(num)));
	fprintf(f, "%s\n", shown);
	if (n->depth == 1 && r->o->counters)
		print_counters(r, f, n, indent + 19);
	if (n->depth < (uint32_t)g->nlevels) {
		size_t top = r->o->top[n->depth] ? r->o->top[n->depth] : 5;
		for (uint32_t i = 0; i < n->nchildren && i < top; i++)
			print_node(r, f, n->children[i], width);
		if (n->nchildren > top)
			fprintf(f, "%*s  (%u more)\n", indent + 3, "",
				n->nchildren - (uint32_t)top);
	}
}

static void print_verdicts(const dp_report_result *r, FILE *f)
{
	const dp_decode_stats *st = dp_decoder_stats(r->dec);
	uint64_t tot[DP_V_COUNT] = {0}, all = 0;

	for (size_t e = 0; e < 64 && e < r->nev; e++)
		for (int v = 0; v < DP_V_COUNT; v++)
			tot[v] += st->by_event_verdict[e][v];
	for (int v = 0; v < DP_V_COUNT; v++)
		all += tot[v];
	if (!all)
		return;
	fprintf(f, "# verdicts:");
	for (int v = 0; v < DP_V_COUNT; v++)
		fprintf(f, " %s %.1f%%%s", dp_verdict_name((dp_verdict)v),
			100.0 * (double)tot[v] / (double)all, v + 1 < DP_V_COUNT ? "," : "\n");
	if (st->hw_compared)
		fprintf(f,
			"# recomputed addresses agreeing with the hardware's: %.1f%% of %" PRIu64
			"\n",
			100.0 * (double)st->hw_agreed / (double)st->hw_compared, st->hw_compared);
}

/* Where they were lost: per event and CPU, as the kernel said. */
static void print_lost(const dp_report_result *r, FILE *f)
{
	size_t n;
	const dp_lost_count *l = dp_profile_lost(r->p, &n);
	char num[32];

	fprintf(f, "#   lost by event and CPU:");
	for (size_t i = 0; i < n; i++) {
		const char *ev = l[i].event < r->nev && r->ev[l[i].event].name
				     ? r->ev[l[i].event].name
				     : "an unknown event";

		fprintf(f, "%s %s", i ? ";" : "", ev);
		if (l[i].cpu >= 0)
			fprintf(f, " CPU %d", (int)l[i].cpu);
		fprintf(f, " %s", thousands(l[i].count, num, sizeof(num)));
	}
	fprintf(f, "\n");
}

void dp_report_text(const dp_report_result *r, FILE *f)
{
	const dp_agg *g = &r->agg;
	const dp_agg_node *root = &g->nodes.v[0];
	const dp_read_status *st = dp_profile_status(r->p);
	int width = r->o->width ? r->o->width : 80;
	char num[32], num2[32];

	fputs("# dataprof report of ", f);
	for (const char *c = r->o->input; *c; c++) /* several files: one line */
		fputc(*c == DP_PROFILE_SPEC_SEP[0] ? ' ' : *c, f);
	fputc('\n', f);
	fprintf(f, "# %s samples", thousands(r->read, num, sizeof(num)));
	for (size_t e = 0; e < r->nev; e++)
		fprintf(f, "%s%s %s", e ? ", " : ": ", r->ev[e].name ? r->ev[e].name : "?",
			thousands(r->ev[e].samples, num, sizeof(num)));
	fprintf(f, "; %s lost", thousands(st->lost + st->lost_samples, num2, sizeof(num2)));
	if (r->kept != r->read)
		fprintf(f, "; kept %s (%.1f%%)", thousands(r->kept, num, sizeof(num)),
			r->read ? 100.0 * (double)r->kept / (double)r->read : 0);
	fprintf(f, "\n# metric: %s", metric_name(g->metric));
	fprintf(f, "; by ");
	for (int d = 0; d < g->nlevels; d++) {
		fprintf(f, "%s", d ? ", then " : "");
		for (int i = 0; i < g->levels[d].nattrs; i++)
			fprintf(f, "%s%s", i ? "," : "", dp_attr_name(g->levels[d].attrs[i].id));
	}
	fprintf(f, "\n#\n#  %%total   samples  ");
	if (r->nev > 1)
		for (size_t e = 0; e < r->nev; e++) {
			char n[16];
			dp_fit_end(r->ev[e].name ? r->ev[e].name : "?", 10, 4, n, sizeof(n));
			fprintf(f, "%10s ", n);
		}
	for (int d = 0; d < g->nlevels; d++) {
		fprintf(f, "%s", d ? " / " : "");
		for (int i = 0; i < g->levels[d].nattrs; i++)
			fprintf(f, "%s%s", i ? "|" : "", dp_attr_name(g->levels[d].attrs[i].id));
	}
	fprintf(f, "\n");
	if (!root->m[0])
		fprintf(f, "#  (no samples%s)\n",
			r->read ? " kept: check --where, --time and --verdict" : "");
	size_t top = r->o->top[0] ? r->o->top[0] : 20;
	for (uint32_t i = 0; i < root->nchildren && i < top; i++)
		print_node(r, f, root->children[i], width);
	if (root->nchildren > top)
		fprintf(f, "  (%u more; --top shows more)\n", root->nchildren - (uint32_t)top);
	fprintf(f, "#\n");
	print_verdicts(r, f);
	if (st->lost + st->lost_samples) {
		fprintf(f,
			"# %s samples were lost while recording (ring buffers full): the "
			"shares above are of what was kept\n",
			thousands(st->lost + st->lost_samples, num, sizeof(num)));
		print_lost(r, f);
	}
	if (!dp_annotator_has_heap(r->ann))
		fprintf(
		    f,
		    "# heap blocks were not tracked: record with --heap to see allocation sites\n");
}
