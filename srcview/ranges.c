/* annotate's hottest ranges: the straight-line code each sample's branch
 * stack (LBR, newest branch first) says ran between two taken branches,
 * from entry i's target up to entry i-1's source. Counted per distinct
 * (binary, start, end) while the samples stream, so the work per sample
 * is address lookups; each distinct range is checked once, at the end,
 * against its function's decoded instructions. */
#include "srcview.h"
#include "../annotate/image_dwarf.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

static uint64_t range_hash(const dp_image *im, uint64_t start, uint64_t end)
{
	uint64_t h = dp_sv_key(im, start) * 0x9e3779b97f4a7c15ull;

	return h ^ (end + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2));
}

void dp_sv_range_add(dp_srcview *v, dp_image *im, uint64_t start, uint64_t end, uint64_t n)
{
	uint64_t h = range_hash(im, start, end), head;
	uint32_t i = NONE;
	dp_sv_range r;

	if (dp_hashmap_get(&v->range_of, h, &head))
		for (i = (uint32_t)head; i != NONE; i = v->ranges.v[i].next)
			if (v->ranges.v[i].im == im && v->ranges.v[i].start == start &&
			    v->ranges.v[i].end == end) {
				v->ranges.v[i].count += n;
				return;
			}
	memset(&r, 0, sizeof(r));
	r.im = im;
	r.start = start;
	r.end = end;
	r.count = n;
	r.func = NONE;
	r.next = dp_hashmap_get(&v->range_of, h, &head) ? (uint32_t)head : NONE;
	dp_vec_push(&v->ranges, r);
	dp_hashmap_put(&v->range_of, h, v->ranges.n - 1);
}

/* Only a filter that keeps every taken branch bounds straight code between
 * two consecutive entries: not an LBR call stack (perf --call-graph lbr),
 * not calls or conditional branches alone. */
static bool bounds_straight_code(uint64_t mode)
{
	return (mode & PERF_SAMPLE_BRANCH_ANY) && !(mode & PERF_SAMPLE_BRANCH_CALL_STACK);
}

static bool in_map(const dp_map *m, uint64_t addr)
{
	return m && addr >= m->start && addr < m->end;
}

void dp_sv_ranges_row(dp_srcview *v, const dp_row *row)
{
	const dp_sample *s = row->s;
	dp_map *last = NULL;
	dp_maps *maps;

	if (!v->dec || !(s->sample_type & PERF_SAMPLE_BRANCH_STACK) || !s->branch_nr)
		return;
	v->br.samples++;
	v->br.entries += s->branch_nr;
	if (s->event >= v->nev || !bounds_straight_code(v->ev[s->event].attr.branch_sample_type)) {
		v->br.no_ranges++;
		return;
	}
	maps = dp_decoder_maps(v->dec);
	for (uint64_t i = 1; i < s->branch_nr; i++) {
		uint64_t start = s->branches[i].to, end = s->branches[i - 1].from;
		/* a stack's branches mostly stay in one binary: its mapping is
		 * looked up again only when an address leaves it */
		dp_map *ms =
		    in_map(last, start) ? last : dp_maps_find(maps, s->pid, start, s->time);
		dp_map *me = in_map(ms, end) ? ms : dp_maps_find(maps, s->pid, end, s->time);
		dp_image *im = ms && ms->exec ? dp_decoder_map_image(v->dec, ms) : NULL;

		last = me;
		if (!im || !me || (me != ms && dp_decoder_map_image(v->dec, me) != im)) {
			v->br.unmapped++;
			continue;
		}
		if (end - me->bias < start - ms->bias) {
			v->br.crossing++;
			continue;
		}
		dp_sv_range_add(v, im, start - ms->bias, end - me->bias, 1);
	}
}

/* The range's instructions, when it is straight code of one function: both
 * ends on instruction boundaries, no unconditional branch, call or return
 * before its end (with every branch recorded, one would have ended it).
 * Notes whether the branch at its end is a loop's back edge to its start. */
static uint32_t straight_insns(const dp_func_table *t, dp_sv_range *r)
{
	long a = dp_func_table_find(t, r->start), b = dp_func_table_find(t, r->end);

	if (a < 0 || b < a)
		return 0;
	for (long k = a; k < b; k++)
		if (t->insns.v[k].flags &
		    (DP_INSN_JUMP | DP_INSN_CALL | DP_INSN_RET | DP_INSN_INVALID))
			return 0;
	r->loop = t->insns.v[b].target == r->start;
	return (uint32_t)(b - a + 1);
}

void dp_sv_ranges_finish(dp_srcview *v)
{
	for (size_t i = 0; v->dec && i < v->ranges.n; i++) {
		dp_sv_range *r = &v->ranges.v[i];
		const dp_func_table *t = dp_decoder_function_table(v->dec, r->im, r->start);
		uint64_t fi;

		if (!t || r->end < t->start || r->end >= t->end) {
			/* past the function's end: into the next one, or no symbol */
			v->br.crossing += r->count;
			continue;
		}
		r->ninsns = straight_insns(t, r);
		if (!r->ninsns) {
			v->br.broken += r->count;
			continue;
		}
		v->br.ranges += r->count;
		if (dp_hashmap_get(&v->func_of, dp_sv_key(r->im, t->start), &fi))
			r->func = (uint32_t)fi;
	}
}

static int by_count(const void *pa, const void *pb, void *ctx)
{
	const dp_srcview *v = ctx;
	const dp_sv_range *a = &v->ranges.v[*(const uint32_t *)pa],
			  *b = &v->ranges.v[*(const uint32_t *)pb];

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

size_t dp_sv_func_ranges(const dp_srcview *v, uint32_t fi, uint32_t *out, size_t max)
{
	DP_VEC(uint32_t) mine = {0};
	size_t n;

	for (size_t i = 0; i < v->ranges.n; i++)
		if (v->ranges.v[i].func == fi && v->ranges.v[i].ninsns)
			dp_vec_push(&mine, (uint32_t)i);
	if (mine.n > 1)
		qsort_r(mine.v, mine.n, sizeof(uint32_t), by_count, (void *)v);
	n = mine.n;
	for (size_t i = 0; i < n && i < max; i++)
		out[i] = mine.v[i];
	dp_vec_free(&mine);
	return n;
}

void dp_sv_range_lines(dp_srcview *v, const dp_sv_range *r, char *buf, size_t len)
{
	dp_image_dwarf *id = dp_annotator_image_dwarf(v->ann, r->im);
	dp_code_loc a, b;

	buf[0] = 0;
	if (!dp_image_has_dwarf(id))
		return;
	/* copies: the second lookup may reuse the first one's slot */
	a = *dp_code_at(id, v->strs, r->start);
	b = *dp_code_at(id, v->strs, r->end);
	if (!a.line_id || !b.line_id)
		return;
	if (a.file == b.file && a.line == b.line)
		snprintf(buf, len, "%s", dp_strtab_get(v->strs, a.line_id));
	else if (a.file == b.file)
		snprintf(buf, len, "%s-%u", dp_strtab_get(v->strs, a.line_id), b.line);
	else
		snprintf(buf, len, "%s-%s", dp_strtab_get(v->strs, a.line_id),
			 dp_strtab_get(v->strs, b.line_id));
}
