/* dataprof annotate --json: dataprof-annotate/1
 * (docs/schema/annotate.schema.json), one entry per line and per
 * instruction of each function shown. */
#include "srcview.h"
#include "json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_key[DP_V_COUNT] = {"exact", "verified", "unverifiable",
						    "unresolvable", "no_memory"};

static double share(const dp_srcview *v, uint64_t period)
{
	return v->period ? (double)period / (double)v->period : 0;
}

static void str_or_null(dp_srcview *v, FILE *f, uint32_t id)
{
	dp_json_str_or_null(f, id ? dp_strtab_get(v->strs, id) : NULL);
}

static void insn_json(dp_srcview *v, const dp_sv_listing *l, const dp_sv_row *r, FILE *f)
{
	const dp_sv_insn *in = r->st;

	fprintf(f, "{\"addr\":\"0x%" PRIx64 "\",\"text\":", r->vaddr);
	dp_json_str(f, r->text);
	fprintf(f, ",\"line\":");
	str_or_null(v, f, r->line >= 0 ? l->lines.v[r->line].line_id : 0);
	fprintf(f, ",\"inline\":");
	str_or_null(v, f, r->inline_chain);
	fprintf(f,
		",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 ",\"share\":", in ? in->samples : 0,
		in ? in->period : 0);
	dp_json_num(f, in ? share(v, in->period) : 0);
	fprintf(f, ",\"verdicts\":{");
	for (int k = 0, first = 1; in && k < DP_V_COUNT; k++)
		if (in->verdicts[k]) {
			fprintf(f, "%s\"%s\":%" PRIu64, first ? "" : ",", verdict_key[k],
				in->verdicts[k]);
			first = 0;
		}
	fprintf(f, "},\"accesses\":[");
	for (int i = 0; in && i < in->naccess; i++) {
		fprintf(f, "%s{\"object\":", i ? "," : "");
		dp_json_str(f, dp_strtab_get(v->strs, in->access[i].object));
		fprintf(f, ",\"member\":");
		str_or_null(v, f, in->access[i].member);
		fprintf(f, ",\"samples\":%" PRIu64 "}", in->access[i].samples);
	}
	fprintf(f, "],\"accesses_other\":%" PRIu64 ",\"levels\":[", in ? in->access_other : 0);
	for (int i = 0; in && i < in->nlevels; i++) {
		fprintf(f, "%s{\"level\":", i ? "," : "");
		dp_json_str(f, dp_strtab_get(v->strs, in->levels[i].level));
		fprintf(f, ",\"samples\":%" PRIu64 "}", in->levels[i].samples);
	}
	fprintf(f, "],\"weight_mean\":");
	if (in && in->nweight)
		dp_json_num(f, (double)in->weight / (double)in->nweight);
	else
		fprintf(f, "null");
	fputc('}', f);
}

static void ranges_json(dp_srcview *v, const dp_sv_listing *l, FILE *f)
{
	size_t max = v->o->top_ranges ? v->o->top_ranges : 10, n;
	uint32_t *idx = dp_calloc(max, sizeof(*idx));

	n = dp_sv_func_ranges(v, (uint32_t)(l->f - v->funcs.v), idx, max);
	for (size_t i = 0; i < n && i < max; i++) {
		const dp_sv_range *r = &v->ranges.v[idx[i]];
		char lines[256];

		dp_sv_range_lines(v, r, lines, sizeof(lines));
		fprintf(f, "%s\n{\"start\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64 "\",\"lines\":",
			i ? "," : "", r->start, r->end);
		dp_json_str_or_null(f, lines[0] ? lines : NULL);
		fprintf(f, ",\"executions\":%" PRIu64 ",\"share\":", r->count);
		dp_json_num(f, v->br.ranges ? (double)r->count / (double)v->br.ranges : 0);
		fprintf(f, ",\"instructions\":%u,\"loop\":%s}", r->ninsns,
			r->loop ? "true" : "false");
	}
	free(idx);
}

static void function_json(dp_srcview *v, const dp_sv_listing *l, FILE *f)
{
	const dp_sv_func *fn = l->f;

	fprintf(f, "{\"name\":");
	dp_json_str(f, dp_strtab_get(v->strs, fn->name));
	fprintf(f, ",\"binary\":");
	dp_json_str(f, fn->im->path);
	fprintf(f, ",\"start\":\"0x%" PRIx64 "\",\"end\":\"0x%" PRIx64 "\"", fn->t->start,
		fn->t->end);
	fprintf(f, ",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 ",\"share\":", fn->samples,
		fn->period);
	dp_json_num(f, share(v, fn->period));
	fprintf(f, ",\"source_missing\":");
	dp_json_str_or_null(f, l->why);
	fprintf(f, ",\"lines\":[");
	for (size_t i = 0; i < l->lines.n; i++) {
		const dp_sv_line *ln = &l->lines.v[i];

		fprintf(f, "%s\n{\"line\":", i ? "," : "");
		dp_json_str(f, dp_strtab_get(v->strs, ln->line_id));
		fprintf(f, ",\"path\":");
		dp_json_str(f, dp_strtab_get(v->strs, ln->path));
		fprintf(f, ",\"number\":%u,\"text\":", ln->line);
		if (ln->text) {
			dp_buf b = {0};

			dp_buf_add(&b, ln->text, ln->len);
			dp_buf_add(&b, "", 1);
			dp_json_str(f, b.p);
			dp_buf_free(&b);
		} else {
			fprintf(f, "null");
		}
		fprintf(f,
			",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 ",\"share\":", ln->samples,
			ln->period);
		dp_json_num(f, share(v, ln->period));
		fputc('}', f);
	}
	fprintf(f, "],\"ranges\":[");
	ranges_json(v, l, f);
	fprintf(f, "],\"instructions\":[");
	for (size_t k = 0; k < l->rows.n; k++) {
		fprintf(f, "%s\n", k ? "," : "");
		insn_json(v, l, &l->rows.v[k], f);
	}
	fprintf(f, "]}");
}

void dp_sv_print_json(dp_srcview *v, dp_sv_listing *ls, size_t n)
{
	FILE *f = v->o->out;

	fprintf(f, "{\"schema\":\"dataprof-annotate/1\",\"input\":");
	dp_json_str(f, v->o->input);
	fprintf(f, ",\"where\":");
	dp_json_str_or_null(f, v->o->sel.where);
	fprintf(f, ",\"object\":");
	dp_json_str_or_null(f, v->o->object);
	fprintf(f,
		",\"samples\":%" PRIu64 ",\"period\":%" PRIu64 ",\"outside\":%" PRIu64
		",\"functions_sampled\":%zu,",
		v->samples, v->period, v->outside, v->funcs.n);
	fprintf(f,
		"\"branch_stacks\":{\"samples\":%" PRIu64 ",\"branches\":%" PRIu64
		",\"filtered_samples\":%" PRIu64 ",\"ranges\":%" PRIu64 ",\"unmapped\":%" PRIu64
		",\"crossing\":%" PRIu64 ",\"broken\":%" PRIu64 "},\"functions\":[",
		v->br.samples, v->br.entries, v->br.no_ranges, v->br.ranges, v->br.unmapped,
		v->br.crossing, v->br.broken);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s\n", i ? "," : "");
		function_json(v, &ls[i], f);
	}
	fprintf(f, "]}\n");
}
