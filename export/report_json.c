/* The report as JSON, schema "dataprof-report/1" (docs/report.md). */
#include "export.h"
#include "json.h"
#include "../report/context.h"

#include <inttypes.h>
#include <string.h>

static void metrics(FILE *f, const uint64_t *m)
{
	fprintf(f, "\"samples\":%" PRIu64 ",\"period\":%" PRIu64 ",\"weight\":%" PRIu64, m[0], m[1],
		m[2]);
}

static void node(const dp_report_result *r, FILE *f, uint32_t idx)
{
	const dp_agg *g = &r->agg;
	const dp_agg_node *n = &g->nodes.v[idx], *root = &g->nodes.v[0];
	const dp_agg_node *parent = &g->nodes.v[n->parent];
	const dp_agg_level *lv = &g->levels[n->depth - 1];
	uint64_t v = n->m[g->metric];

	fputs("{\"key\":{", f);
	for (int i = 0; i < lv->nattrs; i++) {
		char buf[64];
		const dp_attr *a = &lv->attrs[i];

		fprintf(f, "%s\"%s\":", i ? "," : "", dp_attr_name(a->id));
		if (dp_attr_numeric(a->id) && a->id != DP_A_IP && a->id != DP_A_ADDR &&
		    a->id != DP_A_CACHELINE && a->id != DP_A_PAGE && a->id != DP_A_TIME)
			fprintf(f, "%" PRIu64, n->key[i]);
		else
			dp_json_str(f, dp_attr_format(r->attrs, a, n->key[i], buf, sizeof(buf)));
	}
	fputs("},", f);
	metrics(f, n->m);
	fprintf(f, ",\"percent_total\":%.4f,\"percent_parent\":%.4f",
		root->m[g->metric] ? 100.0 * (double)v / (double)root->m[g->metric] : 0,
		parent->m[g->metric] ? 100.0 * (double)v / (double)parent->m[g->metric] : 0);
	if (n->depth == 1 && r->o->counters) {
		const dp_attr *a = &g->levels[0].attrs[0];
		dp_report_ctx *c = dp_row_ctx_marks(r->rows);
		uint64_t t0 = dp_row_ctx_start(r->rows) + n->key[0] * a->bucket;

		fputs(",\"counters\":{", f);
		for (size_t i = 0; i < dp_report_ctx_ncounters(c); i++) {
			char text[64];
			double rate;

			if (i)
				fputc(',', f);
			dp_json_str(f, dp_report_ctx_counter_name(c, i));
			if (dp_report_ctx_counter(c, i, t0, t0 + a->bucket, &rate, text,
						  sizeof(text)))
				fprintf(f, ":%.6g", rate);
			else
				fputs(":null", f);
		}
		fputc('}', f);
	}
	fputs(",\"by_event\":[", f);
	for (uint32_t e = 0; e < r->nev; e++) {
		fputs(e ? ",{" : "{", f);
		metrics(f, dp_agg_event_m(g, idx, e));
		fputc('}', f);
	}
	fputs("],\"children\":[", f);
	for (uint32_t i = 0; i < n->nchildren; i++) {
		if (i)
			fputc(',', f);
		node(r, f, n->children[i]);
	}
	fputs("]}", f);
}

void dp_report_json(const dp_report_result *r, FILE *f)
{
	const dp_agg *g = &r->agg;
	const dp_read_status *st = dp_profile_status(r->p);
	const dp_decode_stats *ds = dp_decoder_stats(r->dec);
	static const char *const mnames[] = {"samples", "period", "weight"};

	dp_json_key_str(f, "{\"schema\":\"dataprof-report/1\",\"profile\":", r->o->input);
	fprintf(f, ",\"metric\":\"%s\",\"levels\":[", mnames[g->metric]);
	for (int d = 0; d < g->nlevels; d++) {
		fputs(d ? ",[" : "[", f);
		for (int i = 0; i < g->levels[d].nattrs; i++)
			fprintf(f, "%s\"%s\"", i ? "," : "",
				dp_attr_name(g->levels[d].attrs[i].id));
		fputc(']', f);
	}
	fputs("],\"events\":[", f);
	for (size_t e = 0; e < r->nev; e++) {
		fputs(e ? ",{\"name\":" : "{\"name\":", f);
		dp_json_str(f, r->ev[e].name ? r->ev[e].name : "?");
		fprintf(f,
			",\"samples_read\":%" PRIu64 ",\"ip_semantics\":\"%s\",\"class\":\"%s\"}",
			r->ev[e].samples, dp_ip_semantics_name(r->ev[e].ip_sem),
			dp_event_class_name(r->ev[e].evclass));
	}
	fprintf(f, "],\"samples_read\":%" PRIu64 ",\"samples_kept\":%" PRIu64 ",\"lost\":%" PRIu64,
		r->read, r->kept, st->lost + st->lost_samples);
	fputs(",\"lost_by\":", f);
	dp_report_lost_json(r, f);
	fputs(",\"verdicts\":{", f);
	for (int v = 0; v < DP_V_COUNT; v++) {
		uint64_t t = 0;
		for (size_t e = 0; e < r->nev && e < 64; e++)
			t += ds->by_event_verdict[e][v];
		fprintf(f, "%s\"%s\":%" PRIu64, v ? "," : "", dp_verdict_name((dp_verdict)v), t);
	}
	fputs("},\"total\":{", f);
	metrics(f, g->nodes.v[0].m);
	fputs("},\"rows\":[", f);
	for (uint32_t i = 0; i < g->nodes.v[0].nchildren; i++) {
		if (i)
			fputc(',', f);
		node(r, f, g->nodes.v[0].children[i]);
	}
	fputs("]}\n", f);
}
