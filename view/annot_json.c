/* The annotate pane's data as the "annotate" member of the page's JSON
 * (docs/view.md): the listings of the functions shown, what the samples
 * said of each instruction, and per time bucket their counts. */
#include "annot_int.h"
#include "encode.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_key[DP_V_COUNT] = {"exact", "verified", "unverifiable",
						    "unresolvable", "no_memory"};

typedef struct wctx {
	dp_view_annot *a;
	dp_strtab *strs;
	FILE *f;
	uint32_t *row_of;   /* srcview insn -> the page's instruction row + 1; 0: not shown */
	uint32_t *combo_id; /* combo -> its page id + 1; 0: not written */
} wctx;

/* an annotator string as a page string id */
static uint32_t sid(wctx *w, uint32_t id)
{
	return dp_strtab_from(w->strs, w->a->v.strs, id);
}

static int cmp_cell(const void *pa, const void *pb)
{
	const dp_va_cell *a = pa, *b = pb;

	if (a->bucket != b->bucket)
		return a->bucket < b->bucket ? -1 : 1;
	return a->combo < b->combo ? -1 : a->combo > b->combo;
}

/* the function's hottest ranges of the branch stacks (as annotate's):
 * [start, end, executions, instructions, lines (a string), loop (0/1)] */
static void write_ranges(wctx *w, const dp_sv_listing *l)
{
	dp_srcview *v = &w->a->v;
	uint32_t idx[DP_VIEW_RANGES];
	size_t n = dp_sv_func_ranges(v, (uint32_t)(l->f - v->funcs.v), idx, DP_VIEW_RANGES);

	fputs(",\"ranges\":[", w->f);
	for (size_t i = 0; i < n && i < DP_VIEW_RANGES; i++) {
		const dp_sv_range *r = &v->ranges.v[idx[i]];
		char lines[256];

		dp_sv_range_lines(v, r, lines, sizeof(lines));
		fprintf(w->f, "%s[%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%u,%d]", i ? "," : "",
			r->start, r->end, r->count, r->ninsns, dp_strtab_intern(w->strs, lines),
			r->loop);
	}
	fputc(']', w->f);
}

static void write_functions(wctx *w)
{
	dp_srcview *v = &w->a->v;
	FILE *f = w->f;
	uint32_t row = 0;

	fputs("\"functions\":[", f);
	for (size_t i = 0; i < v->shown.n; i++) {
		const dp_sv_listing *l = &w->a->ls[i];
		const dp_sv_func *fn = l->f;

		fprintf(f, "%s\n{\"name\":%u,\"binary\":%u", i ? "," : "", sid(w, fn->name),
			dp_strtab_intern(w->strs, fn->im->path));
		fprintf(f,
			",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"samples\":%" PRIu64
			",\"period\":%" PRIu64 ",\"why\":%u",
			fn->t->start, fn->t->end, fn->samples, fn->period,
			l->why ? dp_strtab_intern(w->strs, l->why) : 0);
		fputs(",\"lines\":[", f);
		for (size_t k = 0; k < l->lines.n; k++) {
			const dp_sv_line *ln = &l->lines.v[k];
			long text = -1;

			if (ln->text) {
				char *t = dp_asprintf("%.*s", (int)ln->len, ln->text);

				text = dp_strtab_intern(w->strs, t);
				free(t);
			}
			fprintf(f, "%s[%u,%u,%u,%ld]", k ? "," : "", sid(w, ln->line_id),
				sid(w, ln->path), ln->line, text);
		}
		fprintf(f, "],\"rows\":[%u,%zu]", row, row + l->rows.n);
		write_ranges(w, l);
		fputc('}', f);
		for (size_t k = 0; k < l->rows.n; k++, row++)
			if (l->rows.v[k].st)
				w->row_of[l->rows.v[k].st - v->insns.v] = row + 1;
	}
	fputs("],\n", f);
}

/* one column per field of the shown functions' instructions, in order */
static void write_rows(wctx *w)
{
	dp_srcview *v = &w->a->v;
	static const char *const cols[] = {"addr", "text", "line", "chain", "starts"};

	fputs("\"rows\":{", w->f);
	for (int c = 0; c < 5; c++) {
		size_t n = 0;

		fprintf(w->f, "%s\"%s\":[", c ? ",\n" : "", cols[c]);
		for (size_t i = 0; i < v->shown.n; i++)
			for (size_t k = 0; k < w->a->ls[i].rows.n; k++) {
				const dp_sv_row *r = &w->a->ls[i].rows.v[k];

				fputs(n++ ? "," : "", w->f);
				if (c == 0)
					fprintf(w->f, "%" PRIu64, r->vaddr);
				else if (c == 1)
					fprintf(w->f, "%u", dp_strtab_intern(w->strs, r->text));
				else if (c == 2)
					fprintf(w->f, "%d", r->line);
				else if (c == 3)
					fprintf(w->f, "%u", sid(w, r->inline_chain));
				else
					fputc(r->starts_line ? '1' : '0', w->f);
			}
		fputc(']', w->f);
	}
	fputs("},\n", w->f);
}

/* the pair is among those annotate keeps for the instruction (8; the rest
 * is its "+N more") */
static bool kept_access(const dp_sv_insn *in, uint32_t object, uint32_t member)
{
	for (int i = 0; i < in->naccess; i++)
		if (in->access[i].object == object && in->access[i].member == member)
			return true;
	return false;
}

static bool kept_level(const dp_sv_insn *in, uint32_t level)
{
	for (int i = 0; i < in->nlevels; i++)
		if (in->levels[i].level == level)
			return true;
	return false;
}

static void write_combos(wctx *w)
{
	dp_view_annot *a = w->a;
	static const char *const cols[] = {"insn", "verdict", "object", "member", "level"};
	uint32_t n = 0;

	for (size_t c = 0; c < a->combos.n; c++)
		if (w->row_of[a->combos.v[c].insn])
			w->combo_id[c] = ++n;
	fprintf(w->f, "\"ncombos\":%u,\"combos\":{", n);
	for (int k = 0; k < 5; k++) {
		fprintf(w->f, "%s\"%s\":[", k ? ",\n" : "", cols[k]);
		for (size_t c = 0, first = 1; c < a->combos.n; c++) {
			const dp_va_combo *x = &a->combos.v[c];
			const dp_sv_insn *in = &a->v.insns.v[x->insn];
			bool kept = kept_access(in, x->object, x->member);

			if (!w->combo_id[c])
				continue;
			fputs(first ? "" : ",", w->f);
			first = 0;
			if (k == 0)
				fprintf(w->f, "%u", w->row_of[x->insn] - 1);
			else if (k == 1)
				fprintf(w->f, "%u", x->verdict);
			else if (k == 2) /* -1: a pair beyond the kept ones */
				fprintf(w->f, "%ld",
					!x->object ? 0L
					: kept	   ? (long)sid(w, x->object)
						   : -1L);
			else if (k == 3)
				fprintf(w->f, "%u", x->object && kept ? sid(w, x->member) : 0);
			else
				fprintf(w->f, "%u",
					kept_level(in, x->level) ? sid(w, x->level) : 0);
		}
		fputc(']', w->f);
	}
	fputs("},\n", w->f);
}

static void write_cells(wctx *w)
{
	dp_view_annot *a = w->a;
	dp_buf b = {0};
	size_t n = 0;
	uint32_t prev = 0;

	if (a->cells.n)
		qsort(a->cells.v, a->cells.n, sizeof(dp_va_cell), cmp_cell);
	/* the index points at the wrong places now: the data is done */
	dp_hashmap_free(&a->cell_of);
	dp_hashmap_init(&a->cell_of, 16);
	for (size_t i = 0; i < a->cells.n; i++) {
		const dp_va_cell *c = &a->cells.v[i];

		if (!w->combo_id[c->combo])
			continue;
		dp_varint_put(&b, c->bucket - prev);
		dp_varint_put(&b, w->combo_id[c->combo] - 1);
		dp_varint_put(&b, c->count);
		dp_varint_put(&b, c->period);
		dp_varint_put(&b, c->weight);
		dp_varint_put(&b, c->nweight);
		prev = c->bucket;
		n++;
	}
	dp_varint_column_json(w->f, "cells", n, &b);
	dp_buf_free(&b);
}

void dp_view_annot_json(dp_view_annot *a, uint64_t bucket_ns, dp_strtab *strs, FILE *f)
{
	dp_srcview *v = &a->v;
	wctx w = {a, strs, f, dp_calloc(v->insns.n + 1, sizeof(uint32_t)),
		  dp_calloc(a->combos.n + 1, sizeof(uint32_t))};

	dp_va_widen(a, (unsigned)__builtin_ctzll(bucket_ns));
	fprintf(f,
		"\"annotate\":{\"top\":%zu,\"samples\":%" PRIu64 ",\"period\":%" PRIu64
		",\"outside\":%" PRIu64 ",\"functions_sampled\":%zu,\"ranges\":%" PRIu64
		",\"verdicts\":[",
		a->o.top, v->samples, v->period, v->outside, v->funcs.n, v->br.ranges);
	for (int k = 0; k < DP_V_COUNT; k++)
		fprintf(f, "%s\"%s\"", k ? "," : "", verdict_key[k]);
	fputs("],\n", f);
	write_functions(&w);
	write_rows(&w);
	write_combos(&w);
	write_cells(&w);
	fputs("},\n", f);
	free(w.row_of);
	free(w.combo_id);
}
