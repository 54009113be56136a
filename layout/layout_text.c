/* dataprof layout as text: pahole's listing with the samples beside each
 * member, then the hottest lines, false sharing, and the advice. */
#include "layout.h"

#include <inttypes.h>
#include <string.h>

static const char *const metric_names[] = {"samples", "period", "weight"};

static void member_name(const dp_layout_member *m, char *buf, size_t len)
{
	if (m->bit_size)
		snprintf(buf, len, "%s:%u", m->name, m->bit_size);
	else
		snprintf(buf, len, "%s%s", m->base ? "<base> " : "", m->name);
}

/* "2222 (71%) +1" */
static void threads(const dp_layout *l, const dp_lmember *m, char *buf, size_t len)
{
	const dp_lcount *top = NULL;

	buf[0] = 0;
	for (size_t i = 0; i < m->threads.n; i++)
		if (!top || m->threads.v[i].x > top->x)
			top = &m->threads.v[i];
	if (!top)
		return;
	snprintf(buf, len, "%u %s (%.0f%%)%s", top->tid, dp_strtab_get(&l->strs, top->id),
		 m->x > 0 ? 100 * top->x / m->x : 0, m->threads.n > 1 ? " +" : "");
	if (m->threads.n > 1) {
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, "%zu", m->threads.n - 1);
	}
}

static void member_line(const dp_layout *l, size_t i, FILE *f)
{
	const dp_layout_member *m = &l->t.members.v[i];
	const dp_lmember *h = &l->m.v[i];
	char name[256], off[32], share[16] = "-", ld[16] = "", st[16] = "", th[160] = "";

	member_name(m, name, sizeof(name));
	if (m->bit_size)
		snprintf(off, sizeof(off), "%" PRIu64 ":%u", m->offset, m->bit_offset);
	else
		snprintf(off, sizeof(off), "%" PRIu64, m->offset);
	if (l->has_profile && h->x > 0) {
		snprintf(share, sizeof(share), "%.1f%%", 100 * h->x / l->total);
		if (l->have_op) {
			snprintf(ld, sizeof(ld), "%.0f%%", 100 * h->loads / h->samples);
			snprintf(st, sizeof(st), "%.0f%%", 100 * h->stores / h->samples);
		}
		threads(l, h, th, sizeof(th));
	}
	fprintf(f, "%9s %6" PRIu64 "  %-20s %-18s", off, m->size, name, m->type);
	if (l->has_profile)
		fprintf(f, " %7s%s %6s %6s  %s", share, h->hot ? "*" : " ", ld, st, th);
	fputc('\n', f);
}

static void listing(const dp_layout *l, FILE *f)
{
	const dp_type_layout *t = &l->t;
	uint64_t n = l->o->cacheline, shown = 0;

	fprintf(f, "#%8s %6s  %-20s %-18s", "offset", "size", "member", "type");
	if (l->has_profile)
		fprintf(f, " %8s %6s %6s  %s", "share", "loads", "stores", "threads");
	fputc('\n', f);
	for (size_t i = 0; i < t->members.n; i++) {
		const dp_layout_member *m = &t->members.v[i];
		uint64_t line = m->offset / n;

		/* as pahole: the line a member starts in, for an instance that
		 * starts a line, when it is a new one */
		if (!t->is_union && line > shown) {
			if (m->offset % n)
				fprintf(f,
					"%9s --- cache line %" PRIu64 " (%" PRIu64
					" bytes) was %" PRIu64 " bytes ago ---\n",
					"", line, line * n, m->offset % n);
			else
				fprintf(f,
					"%9s --- cache line %" PRIu64 " (%" PRIu64 " bytes) ---\n",
					"", line, line * n);
			shown = line;
		}
		member_line(l, i, f);
		for (size_t k = 0; k < t->holes.n; k++) {
			const dp_layout_hole *h = &t->holes.v[k];

			if (h->after != i)
				continue;
			if (h->bits)
				fprintf(f, "%9s /* %u-bit hole */\n", "", h->bits);
			if (h->bytes)
				fprintf(f, "%9s /* %" PRIu64 "-byte hole */\n", "", h->bytes);
		}
	}
	if (t->padding)
		fprintf(f, "%9s /* %" PRIu64 " bytes of padding */\n", "", t->padding);
}

/* The lines of an instance that starts where most did, with what is hot
 * on each: the cache-line view of the type itself. */
static void instance_lines(const dp_layout *l, FILE *f)
{
	uint64_t n = l->o->cacheline, a = l->align.n ? l->align.v[0].id : 0;
	uint64_t nlines = (a + l->t.size + n - 1) / n;

	if (!l->has_profile || !l->total || l->t.is_union || nlines > 64)
		return;
	fprintf(f,
		"#\n# lines of an instance starting %" PRIu64 " bytes into a line (as most did):\n",
		a);
	for (uint64_t ln = 0; ln < nlines; ln++) {
		double x = 0;
		dp_buf who = {0};

		for (size_t i = 0; i < l->t.members.n; i++) {
			const dp_layout_member *m = &l->t.members.v[i];
			uint64_t first = (a + m->offset) / n,
				 last = (a + m->offset + DP_MAX(m->size, 1) - 1) / n;

			if (ln < first || ln > last || l->m.v[i].x <= 0)
				continue;
			/* a member across lines counts on each of them */
			x += l->m.v[i].x;
			dp_buf_printf(&who, "%s%s", who.len ? ", " : "", m->name);
		}
		fprintf(f,
			"#   line %" PRIu64 " (bytes %" PRIu64 "..%" PRIu64
			" of the %s): %5.1f%%%s%s\n",
			ln, ln * n > a ? ln * n - a : 0, DP_MIN((ln + 1) * n - a, l->t.size) - 1,
			l->t.name, 100 * x / l->total, who.len ? "  " : "", who.len ? who.p : "");
		dp_buf_free(&who);
	}
}

static void hot_lines(const dp_layout *l, FILE *f)
{
	size_t top = l->o->top ? l->o->top : 5;

	if (!l->lines.n)
		return;
	fprintf(f, "#\n# hottest memory lines of its instances (of %zu):\n", l->lines.n);
	for (size_t i = 0; i < l->lines.n && i < top; i++) {
		const dp_lline *ln = &l->lines.v[i];

		fprintf(f, "#   0x%" PRIx64 "  %5.1f%%  %s", ln->addr,
			l->total > 0 ? 100 * ln->x / l->total : 0,
			dp_strtab_get(&l->strs, ln->object));
		if (ln->index)
			fprintf(f, " [%" PRIu64 "]", ln->index);
		fprintf(f, "%s\n", ln->false_sharing ? "  (false sharing)" : "");
	}
}

static void false_sharing(const dp_layout *l, FILE *f)
{
	size_t shown = 0, top = l->o->top ? l->o->top : 5;

	if (!l->has_profile || !l->have_addr)
		return;
	if (!l->nfalse) {
		fprintf(
		    f, "#\n# false sharing: none seen (no line written by one thread while another "
		       "used other bytes of it)\n");
		return;
	}
	fprintf(f,
		"#\n# possible false sharing: %zu line%s written by one thread while another uses "
		"other members of it\n",
		l->nfalse, l->nfalse == 1 ? "" : "s");
	for (size_t i = 0; i < l->lines.n && shown < top; i++) {
		const dp_lline *ln = &l->lines.v[i];

		if (!ln->false_sharing)
			continue;
		shown++;
		fprintf(f, "#   line 0x%" PRIx64 " (%s", ln->addr,
			dp_strtab_get(&l->strs, ln->object));
		if (ln->index)
			fprintf(f, " [%" PRIu64 "]", ln->index);
		fprintf(f, "), %.1f%% of the samples:\n",
			l->total > 0 ? 100 * ln->x / l->total : 0);
		for (size_t k = 0; k < ln->acc.n; k++) {
			const dp_laccess *a = &ln->acc.v[k];

			if (a->member < 0)
				continue;
			fprintf(f,
				"#     tid %u %-16s %-6s %-16s %4.0f loads %4.0f stores  in %s\n",
				a->tid, dp_strtab_get(&l->strs, a->thread),
				a->stores ? "writes" : "reads", l->t.members.v[a->member].name,
				a->loads, a->stores, dp_strtab_get(&l->strs, a->function));
		}
	}
}

static void levels(const dp_layout *l, FILE *f)
{
	if (!l->has_profile || !l->samples)
		return;
	if (!l->have_level) {
		fprintf(f,
			"# memory levels: none recorded (%s gives no data source: a PMU memory "
			"event does)\n",
			l->event ? l->event : "the event");
		return;
	}
	fprintf(f, "# memory levels of the hot members:\n");
	for (size_t i = 0; i < l->m.n; i++) {
		const dp_lmember *m = &l->m.v[i];

		if (!m->hot || !m->levels.n)
			continue;
		fprintf(f, "#   %-20s", l->t.members.v[i].name);
		for (size_t k = 0; k < m->levels.n; k++)
			fprintf(f, " %s %.0f%%", dp_strtab_get(&l->strs, m->levels.v[k].id),
				m->x > 0 ? 100 * m->levels.v[k].x / m->x : 0);
		fputc('\n', f);
	}
}

void dp_layout_text(const dp_layout *l, FILE *f)
{
	const dp_type_layout *t = &l->t;
	uint64_t n = l->o->cacheline;

	fprintf(f, "# dataprof layout of %s (%s%s%s)\n", t->name, t->decl,
		*t->decl ? ", in " : "in ", t->binary);
	fprintf(f,
		"# %s%" PRIu64 " bytes, aligned to %" PRIu64 ", %" PRIu64
		" cache line%s of %" PRIu64 ", %zu member%s\n",
		t->is_union ? "union: " : "", t->size, t->align, (t->size + n - 1) / n,
		(t->size + n - 1) / n == 1 ? "" : "s", n, t->members.n,
		t->members.n == 1 ? "" : "s");
	if (l->has_profile) {
		fprintf(f, "# %s: %" PRIu64 " samples of %s on it, %.1f%% of the profile's %s\n",
			l->o->input, l->samples, l->event ? l->event : "?",
			l->kept > 0 ? 100 * l->total / l->kept : 0, metric_names[l->o->metric]);
		if (l->align.n) {
			double w = 0;

			for (size_t i = 0; i < l->align.n; i++)
				w += l->align.v[i].x;
			fprintf(f, "# instances start at");
			for (size_t i = 0; i < l->align.n && i < 8; i++)
				fprintf(f, "%s %u (%.0f%%)", i ? "," : "", l->align.v[i].id,
					100 * l->align.v[i].x / w);
			fprintf(f, "%s bytes into a line\n", l->align.n > 8 ? ", ..." : "");
		}
	}
	fprintf(f, "#\n");
	listing(l, f);
	if (l->has_profile && l->other > 0)
		fprintf(f, "# and %.1f%% on no member (padding, or the whole object at once)\n",
			100 * l->other / l->total);
	if (l->has_profile)
		fprintf(f, "# *: hot\n");
	levels(l, f);
	instance_lines(l, f);
	hot_lines(l, f);
	false_sharing(l, f);
	if (l->advice.n) {
		fprintf(f, "#\n# advice (from the layout%s):\n",
			l->has_profile ? " and the samples" : "");
		for (size_t i = 0; i < l->advice.n; i++)
			fprintf(f, "#   - %s\n", l->advice.v[i]);
	}
}
