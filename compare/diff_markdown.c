/* The diff as a Markdown table to post on a pull request (GitHub and
 * GitLab flavours): the changes beyond noise first, one column per
 * attribute. */
#include "diff.h"

#include <inttypes.h>
#include <string.h>

static const char *const metric_names[] = {"samples", "period", "weight"};

/* A table cell in a code span: pipes escaped (GFM splits cells on them
 * even there), backticks avoided. */
static void code_cell(FILE *f, const char *s)
{
	fputc('`', f);
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '`')
			fputc('\'', f);
		else if (*s == '\n')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
	fputc('`', f);
}

static void key_cells(FILE *f, const dp_diff_result *r, const dp_diff_row *row)
{
	for (int i = 0; i < r->tab.by.nattrs; i++) {
		const char *bv = row->bkey >= 0
				     ? dp_rtable_str(&r->tab, r->tab.keys.v[row->bkey].vals[i])
				     : NULL;
		const char *nv = row->nkey >= 0
				     ? dp_rtable_str(&r->tab, r->tab.keys.v[row->nkey].vals[i])
				     : NULL;

		fputs(" | ", f);
		if (bv && nv && strcmp(bv, nv)) {
			code_cell(f, bv);
			fputs(" → ", f);
			code_cell(f, nv);
		} else {
			code_cell(f, nv ? nv : bv);
		}
	}
}

void dp_diff_markdown(const dp_diff_result *r, FILE *f)
{
	const dp_diff_opts *o = r->o;
	const dp_run *ref = &r->base.runs.v[0];
	int m = o->metric;
	size_t top = o->top ? o->top : 20, shown = 0;
	char a[32], b[32], ch[32], iv[64];

	fprintf(f, "#### %s: %s, %s, %s %s\n\n", o->title ? o->title : "dataprof diff",
		*ref->program ? ref->program : "?", ref->event, metric_names[m],
		dp_diff_per_text(o->per));
	if (r->failed) {
		fputs("**Failed:**", f);
		for (size_t i = 0; i < o->nfail; i++)
			if (r->held[i]) {
				fputc(' ', f);
				code_cell(f, o->fail_if[i]);
			}
		fputs("\n\n", f);
	}
	fprintf(f, "**%zu change%s beyond noise** of %zu keys; total %s → %s (%s%s).\n\n",
		r->nsignificant, r->nsignificant == 1 ? "" : "s", r->rows.n,
		dp_diff_fmt_num(r->total.c[m].base, false, a, 32),
		dp_diff_fmt_num(r->total.c[m].new_, false, b, 32),
		dp_diff_fmt_change(&r->total.c[m], ch, sizeof(ch)),
		r->total.c[m].significant ? ", beyond noise" : "");
	fputs("| ", f);
	for (int i = 0; i < o->by.nattrs; i++)
		fprintf(f, " | %s", dp_attr_name(o->by.attrs[i].id));
	fprintf(f, " | base | new | change | %g%% interval |\n|---", o->confidence * 100);
	for (int i = 0; i < o->by.nattrs; i++)
		fputs("|---", f);
	fputs("|---:|---:|---:|---|\n", f);
	for (size_t i = 0; i < r->rows.n && shown < top; i++, shown++) {
		const dp_diff_row *row = &r->rows.v[i];
		const dp_rate_cmp *c = &row->c[m];

		fprintf(f, "| %s", !c->significant ? "" : c->delta > 0 ? "▲" : "▼");
		key_cells(f, r, row);
		dp_diff_fmt_change(c, ch, sizeof(ch));
		fprintf(f, " | %s | %s | %s%s%s | %s |\n", dp_diff_fmt_num(c->base, false, a, 32),
			dp_diff_fmt_num(c->new_, false, b, 32), c->significant ? "**" : "", ch,
			c->significant ? "**" : "", dp_diff_fmt_interval(c, " … ", iv, sizeof(iv)));
	}
	if (r->rows.n > shown)
		fprintf(f, "\n%zu more keys not shown.\n", r->rows.n - shown);
	fprintf(
	    f,
	    "\n<sub>base: %zu run%s (%.2f s), new: %zu run%s (%.2f s). ▲▼: the %g%% interval of "
	    "the change excludes 0, the error rate shared among %zu keys (Bonferroni); Poisson "
	    "rate comparison; %s.</sub>\n",
	    r->base.runs.n, r->base.runs.n == 1 ? "" : "s", r->base.seconds, r->new_.runs.n,
	    r->new_.runs.n == 1 ? "" : "s", r->new_.seconds, o->confidence * 100, r->m[m],
	    dp_diff_noise_text(r, m));
}
