/* The diff as aligned text: one line per key, the changes beyond noise
 * first, then by the size of the change. */
#include "diff.h"

#include <inttypes.h>
#include <string.h>

static const char *const metric_names[] = {"samples", "period", "weight"};

static void side_line(FILE *f, const char *name, const dp_diff_side *s)
{
	fprintf(f, "# %-5s %zu run%s, %.2f s recorded, %" PRIu64 " samples kept:", name, s->runs.n,
		s->runs.n == 1 ? "" : "s", s->seconds, s->samples);
	for (size_t i = 0; i < s->runs.n && i < 4; i++)
		fprintf(f, " %s", s->runs.v[i].path);
	if (s->runs.n > 4)
		fprintf(f, " (and %zu more)", s->runs.n - 4);
	fputc('\n', f);
}

/* How the verdicts were reached, in words. */
static void method(const dp_diff_result *r, FILE *f, const char *lead)
{
	int m = r->o->metric;

	fprintf(f,
		"%sbeyond noise (*): the %g%% interval of the change excludes 0; the %g%% error "
		"rate is shared among %zu key%s (Bonferroni, keys too small to test left out)\n",
		lead, r->o->confidence * 100, (1 - r->o->confidence) * 100, r->m[m],
		r->m[m] == 1 ? "" : "s");
	fprintf(f, "%sPoisson rate comparison (conditional binomial, Wilson interval); %s\n", lead,
		dp_diff_noise_text(r, m));
}

void dp_diff_text(const dp_diff_result *r, FILE *f)
{
	const dp_diff_opts *o = r->o;
	int m = o->metric;
	size_t top = o->top ? o->top : 20, shown = 0;
	const dp_run *ref = &r->base.runs.v[0];
	char a[32], b[32], d[32], ch[32], iv[64], key[1024], fitted[1024];

	fprintf(f, "# %s%s%s, event %s\n", o->title ? o->title : "dataprof diff",
		o->title ? ": " : " of ", *ref->program ? ref->program : "?", ref->event);
	side_line(f, "base:", &r->base);
	side_line(f, "new:", &r->new_);
	fprintf(f, "# metric: %s %s; by %s", metric_names[m], dp_diff_per_text(o->per),
		o->by_text ? o->by_text : "?");
	if (o->line_tolerance)
		fprintf(f, "; lines matched within %u", o->line_tolerance);
	fputc('\n', f);
	method(r, f, "# ");
	fprintf(f, "#\n#     base       new      delta   change  %-14s    ", "interval");
	for (int i = 0; i < o->by.nattrs; i++)
		fprintf(f, "%s%s", i ? "|" : "", dp_attr_name(o->by.attrs[i].id));
	fputc('\n', f);
	if (!r->rows.n)
		fprintf(
		    f,
		    "#  (no samples kept on either side: check --where, --time and --verdict)\n");
	for (size_t i = 0; i < r->rows.n && shown < top; i++, shown++) {
		const dp_diff_row *row = &r->rows.v[i];
		const dp_rate_cmp *c = &row->c[m];

		dp_diff_fmt_key(r, row, key, sizeof(key));
		/* keys are cut to the terminal only: logs and files get them whole */
		dp_fit_end(key, o->width ? o->width - 61 : (int)sizeof(fitted), 8, fitted,
			   sizeof(fitted));
		fprintf(
		    f, "%10s %9s %10s %8s  %-14s %s%s  %s\n",
		    dp_diff_fmt_num(c->base, false, a, 32), dp_diff_fmt_num(c->new_, false, b, 32),
		    dp_diff_fmt_num(c->delta, true, d, 32), dp_diff_fmt_change(c, ch, sizeof(ch)),
		    dp_diff_fmt_interval(c, NULL, iv, sizeof(iv)), c->significant ? "*" : " ",
		    row->fails ? "!" : " ", fitted);
	}
	if (r->rows.n > shown)
		fprintf(f, "  (%zu more, %zu of them beyond noise; --top shows more)\n",
			r->rows.n - shown,
			r->nsignificant > shown ? r->nsignificant - shown : (size_t)0);
	fprintf(f, "#\n# total: %s -> %s, %s %s%s\n",
		dp_diff_fmt_num(r->total.c[m].base, false, a, 32),
		dp_diff_fmt_num(r->total.c[m].new_, false, b, 32),
		dp_diff_fmt_change(&r->total.c[m], ch, sizeof(ch)),
		dp_diff_fmt_interval(&r->total.c[m], NULL, iv, sizeof(iv)),
		r->total.c[m].significant ? " (beyond noise)" : "");
	fprintf(f, "# %zu change%s beyond noise of %zu keys", r->nsignificant,
		r->nsignificant == 1 ? "" : "s", r->rows.n);
	if (r->nshifted)
		fprintf(f, "; %zu matched to a moved line", r->nshifted);
	fputc('\n', f);
	for (size_t i = 0; i < o->nfail; i++)
		fprintf(f, "# --fail-if '%s': %s%s\n", o->fail_if[i],
			r->held[i] ? "HELD" : "not met", r->held[i] ? " (rows marked !)" : "");
}
