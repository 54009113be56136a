/* One function's listing: its whole disassembly in address order, each
 * instruction with its source line and sums, and the lines' totals. */
#include "srcview.h"
#include "source.h"
#include "../annotate/image_dwarf.h"

#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

static void insn_text(csh h, const dp_func_table *t, const dp_insn *in, char *buf, size_t len)
{
	cs_insn *ci;
	size_t n;

	if (in->flags & DP_INSN_INVALID) {
		snprintf(buf, len, "(bad)");
		return;
	}
	n = cs_disasm(h, t->bytes + (in->addr - t->start), in->len, in->addr, 1, &ci);
	if (!n) {
		snprintf(buf, len, "(bad)");
		return;
	}
	snprintf(buf, len, "%s%s%s", ci->mnemonic, ci->op_str[0] ? " " : "", ci->op_str);
	cs_free(ci, n);
}

/* The line's index in l->lines, added on first sight. */
static int line_index(dp_srcview *v, dp_sv_listing *l, dp_hashmap *seen, const dp_code_loc *c,
		      dp_image_dwarf *id, uint64_t vaddr, dp_sv_sources *src)
{
	const char *path, *why = NULL;
	dp_sv_line ln;
	uint64_t i;

	if (!c->line_id || !c->line)
		return -1;
	if (dp_hashmap_get(seen, c->line_id, &i))
		return (int)i;
	memset(&ln, 0, sizeof(ln));
	ln.line_id = c->line_id;
	ln.line = c->line;
	/* the full name of the file, not report's base name */
	path = dp_code_path(id, vaddr);
	ln.path = dp_strtab_intern(v->strs, path ? path : dp_strtab_get(v->strs, c->file));
	if (!dp_sv_source_line(src, dp_strtab_get(v->strs, ln.path), ln.line, &ln.text, &ln.len,
			       &why)) {
		ln.text = NULL;
		if (!l->why)
			l->why = dp_asprintf("source %s: assembly only (--source-dir, "
					     "--prefix-strip find a moved tree)",
					     why);
	}
	dp_vec_push(&l->lines, ln);
	dp_hashmap_put(seen, c->line_id, l->lines.n - 1);
	return (int)(l->lines.n - 1);
}

void dp_sv_listing_build(dp_srcview *v, uint32_t fi, dp_sv_sources *src, void *cs, dp_sv_listing *l)
{
	const dp_sv_func *f = &v->funcs.v[fi];
	const dp_func_table *t = f->t;
	dp_image_dwarf *id = dp_annotator_image_dwarf(v->ann, f->im);
	bool dwarf = dp_image_has_dwarf(id);
	dp_hashmap seen;
	int prev = -2;
	uint32_t prev_chain = 0;

	memset(l, 0, sizeof(*l));
	l->f = f;
	dp_hashmap_init(&seen, 64);
	if (!dwarf)
		l->why = dp_asprintf("no debug info in %s: assembly only (install its debug "
				     "package, or build with -g)",
				     f->im->path);
	for (size_t k = 0; k < t->insns.n; k++) {
		const dp_insn *in = &t->insns.v[k];
		dp_sv_row r;
		uint64_t si;

		memset(&r, 0, sizeof(r));
		r.vaddr = in->addr;
		r.line = -1;
		if (dp_hashmap_get(&v->insn_of, dp_sv_key(f->im, in->addr), &si))
			r.st = &v->insns.v[si];
		insn_text(*(csh *)cs, t, in, r.text, sizeof(r.text));
		if (dwarf) {
			const dp_code_loc *c = dp_code_at(id, v->strs, in->addr);

			r.inline_chain = c->inline_chain;
			r.line = line_index(v, l, &seen, c, id, in->addr, src);
		}
		r.starts_line = r.line >= 0 && (r.line != prev || r.inline_chain != prev_chain);
		prev = r.line;
		prev_chain = r.inline_chain;
		if (r.st && r.line >= 0) {
			l->lines.v[r.line].samples += r.st->samples;
			l->lines.v[r.line].period += r.st->period;
		}
		dp_vec_push(&l->rows, r);
	}
	dp_hashmap_free(&seen);
}

void dp_sv_listing_free(dp_sv_listing *l)
{
	dp_vec_free(&l->rows);
	dp_vec_free(&l->lines);
	free(l->why);
}

static const char verdict_letter[DP_V_COUNT] = {'e', 'v', 'u', 'r', 'n'};

void dp_sv_verdict_mix(const dp_sv_insn *in, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (int k = 0; k < DP_V_COUNT && in->samples; k++) {
		if (!in->verdicts[k])
			continue;
		int n = snprintf(buf + o, len - o, "%s%c%.0f", o ? " " : "", verdict_letter[k],
				 100.0 * (double)in->verdicts[k] / (double)in->samples);
		if (n < 0 || (size_t)n >= len - o)
			break;
		o += (size_t)n;
	}
}

static int by_samples(const void *pa, const void *pb)
{
	const dp_sv_access *a = pa, *b = pb;

	return a->samples > b->samples ? -1 : a->samples < b->samples;
}

void dp_sv_data_text(dp_srcview *v, const dp_sv_insn *in, dp_buf *b)
{
	dp_sv_access acc[DP_SV_MAX_ACCESS];

	memcpy(acc, in->access, sizeof(acc));
	qsort(acc, in->naccess, sizeof(acc[0]), by_samples);
	for (int i = 0; i < in->naccess; i++) {
		dp_buf_printf(b, "%s%s", i ? ", " : "", dp_strtab_get(v->strs, acc[i].object));
		if (acc[i].member)
			dp_buf_printf(b, " %s", dp_strtab_get(v->strs, acc[i].member));
		if (acc[i].samples != in->samples)
			dp_buf_printf(b, " %.0f%%",
				      100.0 * (double)acc[i].samples / (double)in->samples);
	}
	if (in->access_other)
		dp_buf_printf(b, ", +%llu more", (unsigned long long)in->access_other);
	for (int i = 0; i < in->nlevels; i++)
		dp_buf_printf(b, "%s%s %.0f%%", i ? ", " : (b->len ? "; " : ""),
			      dp_strtab_get(v->strs, in->levels[i].level),
			      100.0 * (double)in->levels[i].samples / (double)in->samples);
	if (in->nweight)
		dp_buf_printf(b, "%sweight %.0f", b->len ? "; " : "",
			      (double)in->weight / (double)in->nweight);
}

dp_sv_listing *dp_srcview_listings(dp_srcview *v, dp_error *err)
{
	dp_sv_sources *src = dp_sv_sources_new(v->o->source_dir, v->o->prefix_strip);
	dp_sv_listing *ls;
	csh h;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) {
		dp_error_set(err, "capstone cannot open an x86-64 disassembler");
		dp_sv_sources_free(src);
		return NULL;
	}
	if (!v->o->intel)
		cs_option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	ls = dp_calloc(v->shown.n ? v->shown.n : 1, sizeof(*ls));
	for (size_t i = 0; i < v->shown.n; i++)
		dp_sv_listing_build(v, v->shown.v[i], src, &h, &ls[i]);
	cs_close(&h);
	/* the lines' text points into the files read: kept with the listings */
	ls[0].src = src;
	return ls;
}

void dp_srcview_listings_free(dp_srcview *v, dp_sv_listing *ls)
{
	if (!ls)
		return;
	for (size_t i = 0; i < v->shown.n; i++)
		dp_sv_listing_free(&ls[i]);
	dp_sv_sources_free(ls[0].src);
	free(ls);
}

int dp_srcview_print(dp_srcview *v, dp_error *err)
{
	dp_sv_listing *ls = dp_srcview_listings(v, err);

	if (!ls)
		return -1;
	if (v->o->json)
		dp_sv_print_json(v, ls, v->shown.n);
	else
		dp_sv_print_text(v, ls, v->shown.n);
	dp_srcview_listings_free(v, ls);
	return 0;
}
