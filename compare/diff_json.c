/* The diff as JSON, schema "dataprof-diff/1" (docs/schema/diff.schema.json). */
#include "diff.h"
#include "json.h"

#include <inttypes.h>
#include <math.h>

static void key(FILE *f, const dp_diff_result *r, int32_t k)
{
	if (k < 0) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	for (int i = 0; i < r->tab.by.nattrs; i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", dp_attr_name(r->tab.by.attrs[i].id));
		dp_json_str(f, dp_rtable_str(&r->tab, r->tab.keys.v[k].vals[i]));
	}
	fputc('}', f);
}

static void change(FILE *f, const dp_diff_row *row, int m)
{
	const dp_rate_cmp *c = &row->c[m];
	bool from_zero = c->base <= 0;

	dp_json_key_num(f, "\"base\":", c->base);
	dp_json_key_num(f, ",\"new\":", c->new_);
	dp_json_key_num(f, ",\"delta\":", c->delta);
	dp_json_key_num(f, ",\"delta_interval\":[", c->delta_lo);
	fputc(',', f);
	dp_json_num(f, c->delta_hi);
	dp_json_key_num(f, "],\"change\":", from_zero ? NAN : (c->ratio - 1) * 100);
	dp_json_key_num(f, ",\"change_interval\":[", from_zero ? NAN : (c->ratio_lo - 1) * 100);
	fputc(',', f);
	dp_json_num(f, from_zero ? NAN : (c->ratio_hi - 1) * 100);
	fprintf(f, "],\"base_total\":%.10g,\"new_total\":%.10g", row->xb[m], row->xn[m]);
	fprintf(f, ",\"base_samples\":%.0f,\"new_samples\":%.0f", row->xb[0], row->xn[0]);
	fprintf(f, ",\"significant\":%s,\"direction\":\"%s\"", c->significant ? "true" : "false",
		!c->significant ? "none"
		: c->delta > 0	? "up"
				: "down");
}

static void side(FILE *f, const dp_diff_side *s)
{
	fputs("{\"runs\":[", f);
	for (size_t i = 0; i < s->runs.n; i++) {
		const dp_run *x = &s->runs.v[i];

		fputs(i ? ",{\"profile\":" : "{\"profile\":", f);
		dp_json_str(f, x->path);
		dp_json_key_str(f, ",\"program\":", x->program);
		fprintf(f,
			",\"seconds\":%.9g,\"exposure\":%.9g,\"samples_read\":%" PRIu64
			",\"samples_kept\":%" PRIu64 ",\"lost\":%" PRIu64 "}",
			x->seconds, x->exposure, x->read, x->kept, x->lost);
	}
	fprintf(f, "],\"exposure\":%.9g,\"seconds\":%.9g,\"samples_kept\":%" PRIu64 "}",
		s->exposure, s->seconds, s->samples);
}

void dp_diff_json(const dp_diff_result *r, FILE *f)
{
	static const char *const metrics[] = {"samples", "period", "weight"};
	const dp_diff_opts *o = r->o;
	const dp_run *ref = &r->base.runs.v[0];
	int m = o->metric;

	dp_json_key_str(f, "{\"schema\":\"dataprof-diff/1\",\"program\":", ref->program);
	dp_json_key_str(f, ",\"event\":", ref->event);
	fputs(",\"by\":[", f);
	for (int i = 0; i < o->by.nattrs; i++)
		fprintf(f, "%s\"%s\"", i ? "," : "", dp_attr_name(o->by.attrs[i].id));
	fprintf(f, "],\"metric\":\"%s\",\"per\":\"%s\",\"per_text\":\"%s\"", metrics[m],
		dp_diff_per_name(o->per), dp_diff_per_text(o->per));
	fprintf(f, ",\"confidence\":%g,\"line_tolerance\":%u", o->confidence, o->line_tolerance);
	fprintf(f,
		",\"method\":{\"test\":\"poisson-conditional-binomial\",\"interval\":\"wilson\","
		"\"adjust\":\"bonferroni-tarone\",\"comparisons\":%zu,\"z\":%.6g,"
		"\"noise\":%.6g,\"noise_measured\":%s,\"noise_assumed\":%.6g}",
		r->m[m], r->z[m], sqrt(r->kappa[m]), r->noise_measured ? "true" : "false",
		o->noise);
	fputs(",\"base\":", f);
	side(f, &r->base);
	fputs(",\"new\":", f);
	side(f, &r->new_);
	fputs(",\"total\":{", f);
	change(f, &r->total, m);
	fputs("},\"rows\":[", f);
	for (size_t i = 0; i < r->rows.n; i++) {
		const dp_diff_row *row = &r->rows.v[i];
		bool first = true;

		fputs(i ? ",{\"key\":" : "{\"key\":", f);
		key(f, r, row->nkey >= 0 ? row->nkey : row->bkey);
		fputs(",\"base_key\":", f);
		key(f, r, row->bkey);
		fputs(",\"new_key\":", f);
		key(f, r, row->nkey);
		fprintf(f, ",\"line_shift\":%ld,", row->shift);
		change(f, row, m);
		dp_json_key_num(f, ",\"share_base\":", row->share_b);
		dp_json_key_num(f, ",\"share_new\":", row->share_n);
		fputs(",\"fail_if\":[", f);
		for (size_t k = 0; k < o->nfail; k++)
			if (row->fails & (1u << k)) {
				fprintf(f, "%s%zu", first ? "" : ",", k);
				first = false;
			}
		fputs("]}", f);
	}
	fprintf(f, "],\"significant\":%zu,\"fail_if\":[", r->nsignificant);
	for (size_t i = 0; i < o->nfail; i++) {
		fputs(i ? ",{\"expr\":" : "{\"expr\":", f);
		dp_json_str(f, o->fail_if[i]);
		fprintf(f, ",\"held\":%s}", r->held[i] ? "true" : "false");
	}
	fprintf(f, "],\"failed\":%s}\n", r->failed ? "true" : "false");
}
