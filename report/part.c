#include "part.h"
#include "context.h"
#include "dataprof/format.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Samples are dealt to the parts in chunks of this many, in turn: small
 * enough that a short profile still spreads, large enough that each part
 * reads long runs of the file. */
#define CHUNK DP_INDEX_CHUNK /* a stored index's chunks are the same */

/* The side-band records, read where the first part's map says they are. */
static void replay_side_band(dp_report_part *w)
{
	dp_record rec;

	for (size_t i = 0; i < w->map->nside; i++) {
		uint64_t at = w->map->side[i];

		dp_profile_seek(w->res.p, at);
		/* a PACKED record's records are all at its offset */
		do {
			if (dp_profile_next(w->res.p, &rec) <= 0)
				break;
			dp_decoder_observe(w->res.dec, &rec);
			dp_annotator_observe(w->res.ann, &rec);
			dp_row_ctx_observe(w->res.rows, &rec);
		} while (dp_profile_tell(w->res.p) == at);
	}
}

int dp_report_part_begin(dp_report_part *w, const dp_report_opts *o, unsigned index,
			 unsigned nparts, uint64_t tlo, uint64_t thi, const dp_profile_map *beside,
			 dp_error *err)
{
	dp_decode_opts dopts = {o->sel.symfs, false};

	memset(w, 0, sizeof(*w));
	w->res.o = o;
	w->index = index;
	w->nparts = nparts;
	w->tlo = tlo;
	w->thi = thi;
	/* the first part's opening walk (of a perf.data file) uses the cores
	 * the other parts will: they wait for its map */
	dp_profile_open_opts po = {beside, index == 0 ? nparts : 0};

	w->res.p = dp_profile_open_with(o->input, &po, err);
	if (!w->res.p)
		return -1;
	w->res.dec = dp_decoder_new(w->res.p, &dopts, err);
	if (!w->res.dec)
		goto fail;
	w->res.ann = dp_annotator_new(w->res.dec, w->res.p, err);
	if (!w->res.ann)
		goto fail;
	w->res.rows = dp_row_ctx_new(w->res.p, w->res.dec, w->res.ann);
	return 0;
fail:
	dp_report_part_free(w);
	return -1;
}

bool dp_report_part_own_map(const dp_report_part *w, dp_profile_map *m)
{
	return dp_profile_own_map(w->res.p, m);
}

int dp_report_part_ready(dp_report_part *w, const dp_profile_map *map, dp_error *err)
{
	const dp_report_opts *o = w->res.o;
	unsigned index = w->index, nparts = w->nparts;
	dp_record rec;

	/* one pass over the side-band records for every stage, then the samples;
	 * the heap records are read by the first part only, whose blocks the
	 * others share (dp_report_part_share_heap) */
	dp_profile_rewind(w->res.p);
	w->start = dp_profile_tell(w->res.p);
	dp_profile_skip_samples(w->res.p, true);
	dp_profile_skip_heap(w->res.p, index > 0);
	if (!map && dp_profile_own_map(w->res.p, &w->own_map))
		map = &w->own_map; /* the file's own: no walk (any nparts) */
	if (map) {
		w->map = map;
		replay_side_band(w);
	} else {
		if (index == 0 && nparts > 1)
			dp_profile_index(w->res.p, CHUNK);
		while (dp_profile_next(w->res.p, &rec) > 0) {
			dp_decoder_observe(w->res.dec, &rec);
			dp_annotator_observe(w->res.ann, &rec);
			dp_row_ctx_observe(w->res.rows, &rec);
		}
		if (index == 0 && nparts > 1 && dp_profile_index_get(w->res.p, &w->own_map))
			w->map = &w->own_map;
	}
	dp_profile_skip_samples(w->res.p, false);
	/* the samples' pass: every heap record was read above */
	dp_profile_skip_heap(w->res.p, true);
	dp_decoder_ready(w->res.dec);
	/* the other parts wait for the first one's heap history: their
	 * threads help it */
	dp_annotator_ready(w->res.ann, index == 0 ? nparts : 1);
	dp_row_ctx_ready(w->res.rows);
	/* without a map, each part walks the file and takes its chunks of it
	 * (after dp_row_ctx_new: it found the profile's first sample) */
	if (!w->map)
		dp_profile_share_samples(w->res.p, index, nparts, CHUNK);
	dp_profile_rewind(w->res.p);
	dp_report_ctx *marks = dp_row_ctx_marks(w->res.rows);
	if (o->sel.between[0] &&
	    dp_report_ctx_between(marks, o->sel.between[0], o->sel.between[1], err) < 0)
		goto fail;
	/* the counters' rates are shown by the first part only */
	if (o->counters && index == 0 &&
	    dp_report_ctx_counters(marks, w->res.p, o->counters, err) < 0)
		goto fail;
	w->res.attrs = dp_attr_ctx_new(w->res.rows, w->res.ann, w->res.p);
	if (o->sel.where && !(w->where = dp_expr_parse(o->sel.where, w->res.attrs, err)))
		goto fail;
	w->res.ev = dp_profile_events(w->res.p, &w->res.nev);
	dp_agg_init(&w->res.agg, o->levels, o->nlevels, w->res.nev, o->metric);
	return 0;
fail:
	dp_report_part_free(w);
	return -1;
}

int dp_report_part_open(dp_report_part *w, const dp_report_opts *o, unsigned index, unsigned nparts,
			uint64_t tlo, uint64_t thi, const dp_profile_map *map, dp_error *err)
{
	if (dp_report_part_begin(w, o, index, nparts, tlo, thi, map, err) < 0)
		return -1;
	return dp_report_part_ready(w, map, err);
}

void dp_report_part_share_heap(dp_report_part *w, dp_report_part *first)
{
	dp_annotator_share_heap(w->res.ann, first->res.ann);
}

void dp_report_part_view(const dp_report_part *w, dp_report_result *out)
{
	*out = w->res;
	/* the part's sums stay its own until merged */
	memset(&out->agg, 0, sizeof(out->agg));
}

uint64_t dp_report_part_samples(const dp_report_part *w)
{
	return w->map ? w->map->samples : 0;
}

const dp_profile_map *dp_report_part_map(const dp_report_part *w)
{
	return w->map;
}

static void progress(const dp_report_part *w, const dp_record *r, size_t size)
{
	if (!size)
		return;
	fprintf(stderr, "\rreading %s: %3d%%", w->res.o->input,
		(int)(100.0 * (double)r->offset / (double)size));
}

/* The records from the current position to end (exclusive): 0 at the end
 * of the file, < 0 on corrupt data, 1 at end. */
static int stream(dp_report_part *w, uint64_t sample_at, uint64_t end, size_t size, uint64_t seq)
{
	const dp_report_opts *o = w->res.o;
	dp_report_ctx *marks = dp_row_ctx_marks(w->res.rows);
	dp_record rec;
	int n = 0;

	/* (UINT64_MAX: to the end, and no telling: a compressed perf.data
	 * stream has no position) */
	while ((end == UINT64_MAX || dp_profile_tell(w->res.p) < end) &&
	       (n = dp_profile_next(w->res.p, &rec)) > 0) {
		dp_decoded x;
		dp_annotation an;
		dp_row row;
		uint64_t keys[DP_AGG_MAX_LEVELS][DP_AGG_MAX_ATTRS];

		if (sample_at != UINT64_MAX) {
			/* a chunk a stored index names starts with a sample */
			bool ok = rec.kind == DP_R_SAMPLE && rec.offset == sample_at;

			if (!ok) {
				dp_profile_seek(w->res.p, sample_at);
				return -1;
			}
			sample_at = UINT64_MAX;
		}
		if (rec.kind != DP_R_SAMPLE)
			continue;
		/* with a map, chunk c holds samples c * CHUNK on; without, the
		 * reader counts every part's */
		seq = w->map ? seq + 1 : dp_profile_samples_met(w->res.p);
		if (!(++w->res.read & 0xffff))
			progress(w, &rec, size);
		dp_decode_sample(w->res.dec, rec.sample, &x);
		if (o->sel.verdicts && !(o->sel.verdicts & (1u << x.verdict)))
			continue;
		dp_annotate(w->res.ann, rec.sample, &x, &an);
		dp_row_fill(w->res.rows, rec.sample, &x, &an, &row);
		row.seq = seq - 1;
		if (row.time_rel < w->tlo || row.time_rel > w->thi)
			continue;
		if (!dp_report_ctx_inside(marks, rec.sample->pid, rec.sample->tid,
					  rec.sample->time))
			continue;
		if (w->where && !dp_expr_eval(w->where, w->res.attrs, &row))
			continue;
		w->res.kept++;
		dp_agg_keys(&w->res.agg, w->res.attrs, &row, keys);
		dp_agg_add(&w->res.agg, (const uint64_t(*)[DP_AGG_MAX_ATTRS])keys,
			   rec.sample->event, rec.sample->period ? rec.sample->period : 1,
			   rec.sample->weight);
		if (o->on_row)
			o->on_row(o->on_row_ctx, w->res.attrs, &row);
		if (w->sink)
			o->parts->part_row(w->sink, w->res.attrs, &row);
	}
	return end != UINT64_MAX && dp_profile_tell(w->res.p) >= end ? 1 : n;
}

/* Damage in a chunk of a stored index's, read on from end: the first
 * place (the lowest offset of all parts' after the merge) and the bytes
 * lost in all. */
static void note_damage(dp_report_part *w, uint64_t end)
{
	uint64_t at = dp_profile_tell(w->res.p);

	if (!w->damaged || at < w->damage_at)
		w->damage_at = at;
	w->damaged++;
	w->damage_bytes += end > at ? end - at : 0;
	w->rc = 0;
}

/* Dealt chunks go in runs of this many, which a part reads in a row, so
 * that a window of the reader (profile/window.h, 2 MiB: about 8 chunks) is
 * mostly read by one part: in runs of 8, two parts read 1,952 windows of a
 * 2.2 GB file between them (one part: 1,129), and the report took 1.62 s
 * instead of 1.48 s; runs of 64 gained nothing more. */
#define RUN 32

/* The chunks a part reads: dealt as the parts ask for them (the parts of
 * one report share w->deal), so that one slower part does not keep the
 * others waiting; or, without, every nparts-th from its index. What a
 * part reads does not change the output (report.h). */
static size_t first_chunk(dp_report_part *w)
{
	return w->deal ? atomic_fetch_add(w->deal, RUN) : w->index;
}

static size_t next_chunk(dp_report_part *w, size_t c)
{
	if (!w->deal)
		return c + w->nparts;
	return (c + 1) % RUN ? c + 1 : atomic_fetch_add(w->deal, RUN);
}

void dp_report_part_stream(dp_report_part *w)
{
	uint64_t bytes;
	size_t size = 0;

	if (w->res.o->progress && w->index == 0 && dp_profile_spec_bytes(w->res.o->input, &bytes))
		size = (size_t)bytes; /* a series': positions run through its files */
	if (!w->map) {
		w->rc = stream(w, UINT64_MAX, UINT64_MAX, size, 0);
	} else {
		/* chunk c from the c-th mark (the first from the file's first
		 * record) to the next; which part reads it, first_chunk and
		 * next_chunk say */
		size_t n = w->map->nchunks ? w->map->nchunks : 1;

		for (size_t c = first_chunk(w); c < n; c = next_chunk(w, c)) {
			uint64_t end = c + 1 < n ? w->map->chunks[c + 1] : UINT64_MAX;

			dp_profile_seek(w->res.p, c ? w->map->chunks[c] : w->start);
			w->rc = stream(w, c && w->map->stored ? w->map->chunks[c] : UINT64_MAX, end,
				       size, w->map->seq ? w->map->seq[c] : (uint64_t)c * CHUNK);
			if (w->map->stored && (w->rc < 0 || dp_profile_tell(w->res.p) > end)) {
				/* the file's own index says where the next chunk
				 * starts: only this one's rest is lost */
				uint64_t all = 0;

				if (end == UINT64_MAX)
					dp_profile_spec_bytes(w->res.o->input, &all);
				note_damage(w, end == UINT64_MAX ? all : end);
				continue;
			}
			if (w->rc < 0)
				break;
		}
	}
	if (size)
		fprintf(stderr, "\r%40s\r", "");
}

void dp_report_part_merge(dp_report_part *dst, dp_report_part *src)
{
	dst->res.read += src->res.read;
	dst->res.kept += src->res.kept;
	dp_profile_add_counts(dst->res.p, src->res.p, dst->map != NULL);
	if (src->rc < 0 && dst->rc >= 0)
		dst->rc = src->rc;
	if (src->damaged && (!dst->damaged || src->damage_at < dst->damage_at))
		dst->damage_at = src->damage_at;
	dst->damaged += src->damaged;
	dst->damage_bytes += src->damage_bytes;
	dp_decoder_add_stats(dst->res.dec, src->res.dec);
	dp_annotator_add_stats(dst->res.ann, src->res.ann);
	dp_agg_merge(&dst->res.agg, dst->res.attrs, &src->res.agg, src->res.attrs);
}

void dp_report_part_free(dp_report_part *w)
{
	dp_expr_free(w->where);
	dp_report_result_free(&w->res);
	memset(w, 0, sizeof(*w));
}
