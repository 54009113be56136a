/* dataprof annotate as text: per function, its source lines with their
 * totals interleaved with every instruction and its columns. */
#include "srcview.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static double share(const dp_srcview *v, uint64_t period)
{
	return v->period ? 100.0 * (double)period / (double)v->period : 0;
}

/* The function's hottest straight-line ranges, from the branch stacks;
 * shares are of every range counted in the profile. */
static void ranges_text(dp_srcview *v, const dp_sv_listing *l, FILE *f)
{
	size_t max = v->o->top_ranges ? v->o->top_ranges : 10, n;
	uint32_t fi = (uint32_t)(l->f - v->funcs.v), *idx;

	if (!v->br.ranges)
		return;
	idx = dp_calloc(max, sizeof(*idx));
	n = dp_sv_func_ranges(v, fi, idx, max);
	fprintf(f, "\n   hottest ranges (straight code between taken branches): %zu of %zu\n",
		n < max ? n : max, n);
	if (n)
		fprintf(f, "   %10s %6s %6s  %-29s %s\n", "executions", "share", "insns", "range",
			"lines");
	for (size_t i = 0; i < n && i < max; i++) {
		const dp_sv_range *r = &v->ranges.v[idx[i]];
		char span[64], lines[256];

		snprintf(span, sizeof(span), "%" PRIx64 "-%" PRIx64, r->start, r->end);
		dp_sv_range_lines(v, r, lines, sizeof(lines));
		fprintf(f, "   %10" PRIu64 " %5.1f%% %6u  %-29s %s%s\n", r->count,
			100.0 * (double)r->count / (double)v->br.ranges, r->ninsns, span, lines,
			r->loop ? "  (loop body)" : "");
	}
	free(idx);
}

static void function_text(dp_srcview *v, const dp_sv_listing *l, FILE *f)
{
	const dp_sv_func *fn = l->f;
	dp_buf data = {0};

	fprintf(f, "== %s (%s)  %" PRIu64 " samples, %.1f%%  [0x%" PRIx64 "..0x%" PRIx64 ")\n",
		dp_strtab_get(v->strs, fn->name), fn->im->path, fn->samples, share(v, fn->period),
		fn->t->start, fn->t->end);
	if (l->why)
		fprintf(f, "   (%s)\n", l->why);
	fprintf(f, "%8s %6s %-9s | %-8s %-40s %s\n", "samples", "share", "verdicts", "address",
		"instruction", "data touched");
	for (size_t k = 0; k < l->rows.n; k++) {
		const dp_sv_row *r = &l->rows.v[k];
		const dp_sv_insn *in = r->st;
		char mix[64] = "";

		if (r->starts_line) {
			const dp_sv_line *ln = &l->lines.v[r->line];

			if (ln->samples)
				fprintf(f, "%8" PRIu64 " %5.1f%% %-9s | ", ln->samples,
					share(v, ln->period), "");
			else
				fprintf(f, "%8s %6s %-9s | ", "", "", "");
			fprintf(f, "%s", dp_strtab_get(v->strs, ln->line_id));
			if (ln->text)
				fprintf(f, "  %.*s", (int)ln->len, ln->text);
			if (r->inline_chain)
				fprintf(f, "   [inlined: %s]",
					dp_strtab_get(v->strs, r->inline_chain));
			fputc('\n', f);
		}
		data.len = 0;
		if (data.p)
			data.p[0] = 0;
		if (in) {
			dp_sv_verdict_mix(in, mix, sizeof(mix));
			dp_sv_data_text(v, in, &data);
			fprintf(f, "%8" PRIu64 " %5.1f%% %-9s | ", in->samples,
				share(v, in->period), mix);
		} else {
			fprintf(f, "%8s %6s %-9s | ", "", "", "");
		}
		fprintf(f, "  %6" PRIx64 ": %-40s %s\n", r->vaddr, r->text, data.p ? data.p : "");
	}
	ranges_text(v, l, f);
	fputc('\n', f);
	dp_buf_free(&data);
}

void dp_sv_print_text(dp_srcview *v, dp_sv_listing *ls, size_t n)
{
	FILE *f = v->o->out;

	fprintf(f, "# %" PRIu64 " samples kept", v->samples);
	if (v->outside)
		fprintf(f, ", %" PRIu64 " (%.1f%%) in no function with code or in dataprof's",
			v->outside, share(v, v->outside_per));
	fprintf(f, "; %zu of %zu sampled functions shown, hottest first\n", n, v->funcs.n);
	fprintf(f, "# verdicts: e exact, v verified, u unverifiable, r unresolvable, "
		   "n no-memory (%% of the instruction's samples)\n");
	if (v->br.samples) {
		const dp_sv_branches *b = &v->br;

		fprintf(f,
			"# branch stacks: %" PRIu64 " samples, %" PRIu64 " branches; %" PRIu64
			" straight-line range executions",
			b->samples, b->entries, b->ranges);
		if (b->unmapped || b->crossing || b->broken)
			fprintf(f,
				" (left out: %" PRIu64 " in no binary, %" PRIu64
				" across functions, %" PRIu64 " not straight code)",
				b->unmapped, b->crossing, b->broken);
		if (b->no_ranges)
			fprintf(f,
				"; %" PRIu64 " samples' stacks are filtered (a call stack, "
				"not every branch): no ranges from them",
				b->no_ranges);
		fputc('\n', f);
	}
	fputc('\n', f);
	for (size_t i = 0; i < n; i++)
		function_text(v, &ls[i], f);
}
