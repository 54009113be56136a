/* dataprof annotate as text: per function, its source lines with their
 * totals interleaved with every instruction and its columns. */
#include "srcview.h"

#include <inttypes.h>
#include <string.h>

static double share(const dp_srcview *v, uint64_t period)
{
	return v->period ? 100.0 * (double)period / (double)v->period : 0;
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
		   "n no-memory (%% of the instruction's samples)\n\n");
	for (size_t i = 0; i < n; i++)
		function_text(v, &ls[i], f);
}
