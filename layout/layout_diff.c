/* dataprof layout --diff: one type in two builds, member by member: where
 * each moved, how its share of the samples changed, and the lines per
 * visit of the hot members before and after. */
#include "layout.h"

#include <inttypes.h>
#include <string.h>

static int find(const dp_layout *l, const char *name)
{
	for (size_t i = 0; i < l->t.members.n; i++)
		if (!strcmp(l->t.members.v[i].name, name))
			return (int)i;
	return -1;
}

static void share(const dp_layout *l, int i, char *buf, size_t len)
{
	if (i < 0)
		snprintf(buf, len, "-");
	else if (!l->has_profile)
		buf[0] = 0;
	else
		snprintf(buf, len, "%.1f%%%s", l->total > 0 ? 100 * l->m.v[i].x / l->total : 0,
			 l->m.v[i].hot ? "*" : "");
}

static void where(const dp_layout *l, int i, char *buf, size_t len)
{
	const dp_layout_member *m;

	if (i < 0) {
		snprintf(buf, len, "-");
		return;
	}
	m = &l->t.members.v[i];
	if (m->bit_size)
		snprintf(buf, len, "%" PRIu64 ":%u", m->offset, m->bit_offset);
	else
		snprintf(buf, len, "%" PRIu64, m->offset);
}

void dp_layout_diff_text(const dp_layout *a, const dp_layout *b, FILE *f)
{
	uint64_t n = a->o->cacheline;

	fprintf(f, "# dataprof layout --diff of %s: %s -> %s\n", a->t.name, a->o->input,
		b->o->input);
	fprintf(f,
		"# size %" PRIu64 " -> %" PRIu64 " bytes, %" PRIu64 " -> %" PRIu64
		" cache lines of %" PRIu64 "; holes %zu -> %zu, padding %" PRIu64 " -> %" PRIu64
		"\n",
		a->t.size, b->t.size, (a->t.size + n - 1) / n, (b->t.size + n - 1) / n, n,
		a->t.holes.n, b->t.holes.n, a->t.padding, b->t.padding);
	if (a->has_profile && b->has_profile)
		fprintf(f,
			"# lines per visit of the hot members: %.2f -> %.2f; samples on the type: "
			"%" PRIu64 " -> %" PRIu64 " (%.1f%% -> %.1f%% of the kept)\n",
			a->lines_now, b->lines_now, a->samples, b->samples,
			a->kept > 0 ? 100 * a->total / a->kept : 0,
			b->kept > 0 ? 100 * b->total / b->kept : 0);
	fprintf(f, "#\n# %-20s %-18s %-22s %-16s %s\n", "member", "type", "   offset", "  size",
		"    share");
	/* the new build's order, then what it no longer has */
	for (int side = 1; side >= 0; side--) {
		const dp_layout *l = side ? b : a;

		for (size_t i = 0; i < l->t.members.n; i++) {
			const dp_layout_member *m = &l->t.members.v[i];
			int ia = side ? find(a, m->name) : (int)i,
			    ib = side ? (int)i : find(b, m->name);
			char oa[32], ob[32], sa[32], sb[32], size_a[24], mark = ' ';

			if (!side && ib >= 0)
				continue;
			where(a, ia, oa, sizeof(oa));
			where(b, ib, ob, sizeof(ob));
			share(a, ia, sa, sizeof(sa));
			share(b, ib, sb, sizeof(sb));
			snprintf(size_a, sizeof(size_a), "%" PRIu64,
				 ia >= 0 ? a->t.members.v[ia].size : 0);
			if (ia < 0)
				mark = '+';
			else if (ib < 0)
				mark = '-';
			else if (strcmp(oa, ob) || a->t.members.v[ia].size != m->size)
				mark = '~';
			fprintf(f, "%c %-20s %-18s %9s -> %-9s %6s -> %-6" PRIu64 " %9s -> %s\n",
				mark, m->name, m->type, oa, ob, ia >= 0 ? size_a : "-",
				ib >= 0 ? b->t.members.v[ib].size : 0, sa, sb);
		}
	}
	fprintf(f, "# ~: moved or resized, +: new, -: gone; *: hot\n");
	if (b->advice.n) {
		fprintf(f, "#\n# advice for the new build:\n");
		for (size_t i = 0; i < b->advice.n; i++)
			fprintf(f, "#   - %s\n", b->advice.v[i]);
	}
}
