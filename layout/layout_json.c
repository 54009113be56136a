/* dataprof layout as JSON, schema "dataprof-layout/1"
 * (docs/schema/layout.schema.json). */
#include "layout.h"
#include "json.h"

#include <inttypes.h>


static void counts(const dp_layout *l, const dp_lcounts *v, const char *key, bool tid, FILE *f)
{
	fprintf(f, ",\"%s\":[", key);
	for (size_t i = 0; i < v->n; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		dp_json_str(f, dp_strtab_get(&l->strs, v->v[i].id));
		if (tid)
			fprintf(f, ",\"tid\":%u", v->v[i].tid);
		fprintf(f, ",\"value\":%.10g}", v->v[i].x);
	}
	fputc(']', f);
}

static void member(const dp_layout *l, size_t i, FILE *f)
{
	const dp_layout_member *m = &l->t.members.v[i];
	const dp_lmember *h = &l->m.v[i];

	dp_json_key_str(f, "{\"name\":", m->name);
	dp_json_key_str(f, ",\"type\":", m->type);
	fprintf(f,
		",\"offset\":%" PRIu64 ",\"size\":%" PRIu64 ",\"align\":%" PRIu64
		",\"bit_offset\":%u,\"bit_size\":%u,\"base\":%s,\"artificial\":%s",
		m->offset, m->size, m->align, m->bit_offset, m->bit_size,
		m->base ? "true" : "false", m->artificial ? "true" : "false");
	fprintf(f,
		",\"value\":%.10g,\"samples\":%.0f,\"share\":%.4f,\"loads\":%.0f,\"stores\":%.0f,"
		"\"hot\":%s,\"suggested_offset\":%" PRIu64,
		h->x, h->samples, l->total > 0 ? 100 * h->x / l->total : 0, h->loads, h->stores,
		h->hot ? "true" : "false", h->new_offset);
	counts(l, &h->threads, "threads", true, f);
	counts(l, &h->functions, "functions", false, f);
	counts(l, &h->levels, "levels", false, f);
	fputc('}', f);
}

static void line(const dp_layout *l, const dp_lline *ln, FILE *f)
{
	fprintf(f, "{\"addr\":\"0x%" PRIx64 "\",\"object\":", ln->addr);
	dp_json_str(f, dp_strtab_get(&l->strs, ln->object));
	fprintf(f,
		",\"index\":%" PRIu64 ",\"value\":%.10g,\"false_sharing\":%s,\"true_sharing\":%s",
		ln->index, ln->x, ln->false_sharing ? "true" : "false",
		ln->true_sharing ? "true" : "false");
	fputs(",\"accesses\":[", f);
	for (size_t k = 0; k < ln->acc.n; k++) {
		const dp_laccess *a = &ln->acc.v[k];

		fprintf(f, "%s{\"tid\":%u,\"thread\":", k ? "," : "", a->tid);
		dp_json_str(f, dp_strtab_get(&l->strs, a->thread));
		fputs(",\"member\":", f);
		if (a->member >= 0)
			dp_json_str(f, l->t.members.v[a->member].name);
		else
			fputs("null", f);
		fprintf(f, ",\"loads\":%.0f,\"stores\":%.0f,\"function\":", a->loads, a->stores);
		dp_json_str(f, dp_strtab_get(&l->strs, a->function));
		fputc('}', f);
	}
	fputs("]}", f);
}

void dp_layout_json(const dp_layout *l, FILE *f)
{
	static const char *const metrics[] = {"samples", "period", "weight"};
	const dp_type_layout *t = &l->t;
	size_t top = l->o->top ? l->o->top : 20, k = 0;

	dp_json_key_str(f, "{\"schema\":\"dataprof-layout/1\",\"type\":", t->name);
	dp_json_key_str(f, ",\"binary\":", t->binary);
	dp_json_key_str(f, ",\"decl\":", t->decl);
	fprintf(f,
		",\"size\":%" PRIu64 ",\"align\":%" PRIu64 ",\"union\":%s,\"cacheline\":%u,"
		"\"padding\":%" PRIu64,
		t->size, t->align, t->is_union ? "true" : "false", l->o->cacheline, t->padding);
	fputs(",\"members\":[", f);
	for (size_t i = 0; i < t->members.n; i++) {
		if (i)
			fputc(',', f);
		member(l, i, f);
	}
	fputs("],\"holes\":[", f);
	for (size_t i = 0; i < t->holes.n; i++) {
		const dp_layout_hole *h = &t->holes.v[i];

		fprintf(f, "%s{\"after\":", i ? "," : "");
		dp_json_str(f, t->members.v[h->after].name);
		fprintf(f, ",\"offset\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"bits\":%u}", h->offset,
			h->bytes, h->bits);
	}
	fputs("],\"profile\":", f);
	if (l->has_profile) {
		dp_json_str(f, l->o->input);
		dp_json_key_str(f, ",\"event\":", l->event ? l->event : "?");
	} else {
		fputs("null,\"event\":null", f);
	}
	fprintf(f,
		",\"metric\":\"%s\",\"samples\":%" PRIu64 ",\"value\":%.10g,\"other\":%.10g,"
		"\"kept\":%.10g",
		metrics[l->o->metric], l->samples, l->total, l->other, l->kept);
	fputs(",\"starts\":[", f);
	for (size_t i = 0; i < l->align.n; i++)
		fprintf(f, "%s{\"offset\":%u,\"value\":%.10g}", i ? "," : "", l->align.v[i].id,
			l->align.v[i].x);
	fprintf(f,
		"],\"lines_per_visit\":{\"now\":%.6g,\"suggested\":%.6g,\"aligned\":%.6g},"
		"\"hot_bytes\":%" PRIu64 ",\"suggested_size\":%" PRIu64 ",\"suggested_order\":[",
		l->lines_now, l->lines_suggested, l->lines_aligned, l->hot_bytes,
		l->suggested_size);
	for (size_t i = 0; i < l->order.n; i++) {
		if (i)
			fputc(',', f);
		dp_json_str(f, t->members.v[l->order.v[i]].name);
	}
	fputs("],\"lines\":[", f);
	/* the hottest, and every line flagged */
	for (size_t i = 0; i < l->lines.n; i++) {
		if (i >= top && !l->lines.v[i].false_sharing)
			continue;
		if (k++)
			fputc(',', f);
		line(l, &l->lines.v[i], f);
	}
	fprintf(f, "],\"lines_total\":%zu,\"false_sharing\":%zu,\"advice\":[", l->lines.n,
		l->nfalse);
	for (size_t i = 0; i < l->advice.n; i++) {
		if (i)
			fputc(',', f);
		dp_json_str(f, l->advice.v[i]);
	}
	fputs("]}\n", f);
}
