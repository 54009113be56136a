/* dataprof annotate, first half: the samples summed per instruction while
 * report streams them, then the functions to show. */
#include "srcview.h"
#include "../annotate/image_dwarf.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static uint32_t func_index(dp_srcview *v, const dp_decoded *x, uint64_t seq)
{
	uint64_t k = dp_sv_key(x->image, x->table->start), i;
	dp_sv_func f;

	if (dp_hashmap_get(&v->func_of, k, &i))
		return (uint32_t)i;
	memset(&f, 0, sizeof(f));
	f.im = x->image;
	f.t = x->table;
	f.first = seq;
	dp_vec_push(&v->funcs, f);
	dp_hashmap_put(&v->func_of, k, v->funcs.n - 1);
	return (uint32_t)(v->funcs.n - 1);
}

static dp_sv_insn *insn_of(dp_srcview *v, const dp_decoded *x, uint64_t vaddr, uint64_t seq)
{
	uint64_t k = dp_sv_key(x->image, vaddr), i;
	dp_sv_insn in;

	if (dp_hashmap_get(&v->insn_of, k, &i))
		return &v->insns.v[i];
	memset(&in, 0, sizeof(in));
	in.vaddr = vaddr;
	in.first = seq;
	in.func = func_index(v, x, seq);
	dp_vec_push(&v->insns, in);
	dp_hashmap_put(&v->insn_of, k, v->insns.n - 1);
	return &v->insns.v[v->insns.n - 1];
}

long dp_srcview_row(dp_srcview *v, const dp_row *row)
{
	const dp_decoded *x = row->x;
	const dp_annotation *a = row->a;
	uint64_t period = row->s->period ? row->s->period : 1;
	dp_sv_insn *in;
	dp_sv_func *f;
	uint32_t i;

	v->samples++;
	v->period += period;
	dp_sv_ranges_row(v, row);
	/* dataprof's own code in the program ([dataprof] in report) is not the
	 * program's: counted, not listed */
	if (!x->image || !x->table || a->obj_reason == DP_AR_OWN_WORK) {
		v->outside++;
		v->outside_per += period;
		return -1;
	}
	/* the causing instruction, or the IP when there is none: the line
	 * report gives the sample is the same instruction's */
	in = insn_of(v, x, x->insn_vaddr ? x->insn_vaddr : x->ip_vaddr, row->seq);
	in->samples++;
	in->period += period;
	if (x->verdict < DP_V_COUNT)
		in->verdicts[x->verdict]++;
	if (row->s->weight) {
		in->weight += row->s->weight;
		in->nweight++;
	}
	f = &v->funcs.v[in->func];
	f->samples++;
	f->period += period;
	if (!f->name && a->function) {
		f->name = a->function;
		f->name_first = row->seq;
	}
	i = (uint32_t)(in - v->insns.v);
	if (a->object)
		dp_sv_pair_add(v, i, 0, a->object, a->member, row->seq, 1);
	if (row->level)
		dp_sv_pair_add(v, i, 1, row->level, 0, row->seq, 1);
	return (long)i;
}

/* The report reads in parts (report.h: part_new), each summed by a
 * srcview of its own; part 0's is the caller's. Each reads the branch
 * stacks through its part's decoder. */
static void *part_new(void *ctx, unsigned index, const dp_report_result *part)
{
	dp_srcview *v = ctx, *pt = v;

	if (index) {
		pt = dp_calloc(1, sizeof(*pt));
		dp_srcview_begin(v->o, pt);
	}
	pt->dec = part->dec;
	pt->ev = part->ev;
	pt->nev = part->nev;
	return pt;
}

static void part_row(void *state, dp_attr_ctx *ac, dp_row *row)
{
	(void)ac;
	dp_srcview_row(state, row);
}

static void part_merge(void *ctx, void *dst, const dp_report_result *dst_part, void *src,
		       const dp_report_result *src_part)
{
	(void)ctx;
	dp_srcview_merge(dst, dst_part->dec, dp_annotator_strings_mut(dst_part->ann), src,
			 dp_annotator_strings(src_part->ann), NULL);
}

static void part_free(void *ctx, void *state)
{
	if (state == ctx)
		return;
	dp_srcview_free(state);
	free(state);
}

static const dp_report_parts parts = {part_new, part_row, part_merge, part_free};

static int by_period(const void *pa, const void *pb, void *ctx)
{
	const dp_srcview *v = ctx;
	const dp_sv_func *a = &v->funcs.v[*(const uint32_t *)pa],
			 *b = &v->funcs.v[*(const uint32_t *)pb];

	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	return a->samples > b->samples ? -1 : a->samples < b->samples;
}

/* FILE:LINE: a function holds the line when one of its sampled
 * instructions is on it (the file by its base name or a path suffix). */
static bool holds_line(dp_srcview *v, uint32_t fi, const char *file, unsigned line)
{
	const dp_sv_func *f = &v->funcs.v[fi];
	dp_image_dwarf *id = dp_annotator_image_dwarf(v->ann, f->im);

	if (!dp_image_has_dwarf(id))
		return false;
	for (uint64_t a = f->t->start; a < f->t->end;) {
		long i = dp_func_table_find(f->t, a);
		const dp_code_loc *c;
		const char *name;
		size_t fl, nl;

		if (i < 0)
			break;
		c = dp_code_at(id, v->strs, a);
		name = dp_strtab_get(v->strs, c->file);
		fl = strlen(file);
		nl = strlen(name);
		if (c->line == line && nl &&
		    (!strcmp(name, file) ||
		     (fl > nl && file[fl - nl - 1] == '/' && !strcmp(file + fl - nl, name))))
			return true;
		a += f->t->insns.v[i].len ? f->t->insns.v[i].len : 1;
	}
	return false;
}

static int pick(dp_srcview *v, dp_error *err)
{
	const dp_srcview_opts *o = v->o;
	size_t top = o->top ? o->top : 5;
	char file[512] = "";
	unsigned line = 0;

	if (o->select == DP_SV_LINE) {
		const char *colon = strrchr(o->pattern, ':');
		size_t n = colon ? (size_t)(colon - o->pattern) : 0;

		if (!n || n >= sizeof(file) || sscanf(colon + 1, "%u", &line) != 1 || !line) {
			dp_error_set(err, "'%s': give FILE:LINE, e.g. objects.c:97", o->pattern);
			return -1;
		}
		memcpy(file, o->pattern, n);
		file[n] = 0;
	}
	for (uint32_t i = 0; i < v->funcs.n; i++) {
		const char *name = dp_strtab_get(v->strs, v->funcs.v[i].name);

		if (o->select == DP_SV_FUNCTION && fnmatch(o->pattern, name, 0))
			continue;
		if (o->select == DP_SV_LINE && !holds_line(v, i, file, line))
			continue;
		dp_vec_push(&v->shown, i);
	}
	if (v->shown.n > 1)
		qsort_r(v->shown.v, v->shown.n, sizeof(uint32_t), by_period, v);
	if (v->shown.n > top)
		v->shown.n = top;
	if (o->hot_extra && o->select == DP_SV_HOTTEST)
		dp_sv_add_hot(v, o->hot_extra);
	if (!v->shown.n && o->select != DP_SV_HOTTEST) {
		dp_error_set(
		    err,
		    "no sampled function %s '%s'%s: 'dataprof report --by function' lists them",
		    o->select == DP_SV_LINE ? "holds" : "matches", o->pattern,
		    o->sel.where || o->object ? " (after --where/--object)" : "");
		return -1;
	}
	return 0;
}

void dp_srcview_begin(const dp_srcview_opts *o, dp_srcview *v)
{
	memset(v, 0, sizeof(*v));
	v->o = o;
	dp_hashmap_init(&v->insn_of, 4096);
	dp_hashmap_init(&v->func_of, 256);
	dp_hashmap_init(&v->range_of, 256);
	dp_hashmap_init(&v->pair_of, 4096);
}

int dp_srcview_end(dp_srcview *v, dp_report_result *res, dp_error *err)
{
	v->ann = res->ann;
	v->strs = dp_annotator_strings_mut(res->ann);
	dp_sv_order(v);
	if (pick(v, err) < 0)
		return -1;
	dp_sv_ranges_finish(v);
	return 0;
}

int dp_srcview_build(const dp_srcview_opts *o, dp_srcview *v, dp_error *err)
{
	dp_report_opts ro;
	char *where = NULL;
	int rc;

	dp_srcview_begin(o, v);
	memset(&ro, 0, sizeof(ro));
	ro.input = o->input;
	ro.sel = o->sel;
	ro.metric = DP_M_PERIOD;
	dp_report_by_event(&ro);
	ro.parts = &parts;
	ro.on_row_ctx = v;
	/* --object is a --where on the object: what is shown is what touched it */
	if (o->object)
		where = o->sel.where
			    ? dp_asprintf("(%s) and object~\"%s\"", o->sel.where, o->object)
			    : dp_asprintf("object~\"%s\"", o->object);
	ro.sel.where = where ? where : o->sel.where;
	rc = dp_report_build(&ro, &v->res, err);
	free(where);
	if (rc < 0)
		return -1;
	v->owns_res = true;
	return dp_srcview_end(v, &v->res, err);
}

void dp_srcview_free(dp_srcview *v)
{
	if (v->owns_res)
		dp_report_result_free(&v->res);
	dp_vec_free(&v->insns);
	dp_vec_free(&v->funcs);
	dp_vec_free(&v->shown);
	dp_hashmap_free(&v->insn_of);
	dp_hashmap_free(&v->func_of);
	dp_vec_free(&v->ranges);
	dp_hashmap_free(&v->range_of);
	dp_vec_free(&v->pairs);
	dp_hashmap_free(&v->pair_of);
	dp_vec_free(&v->moved);
}
