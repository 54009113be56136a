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

		dp_profile_seek(w->p, at);
		/* a PACKED record's records are all at its offset */
		do {
			if (dp_profile_next(w->p, &rec) <= 0)
				break;
			dp_decoder_observe(w->dec, &rec);
			dp_annotator_observe(w->ann, &rec);
			dp_row_ctx_observe(w->rows, &rec);
		} while (dp_profile_tell(w->p) == at);
	}
}

int dp_report_part_begin(dp_report_part *w, const dp_report_opts *o, unsigned index,
			 unsigned nparts, uint64_t tlo, uint64_t thi, dp_error *err)
{
	dp_decode_opts dopts = {o->symfs, false};

	memset(w, 0, sizeof(*w));
	w->o = o;
	w->index = index;
	w->nparts = nparts;
	w->tlo = tlo;
	w->thi = thi;
	w->p = dp_profile_open(o->input, err);
	if (!w->p)
		return -1;
	w->dec = dp_decoder_new(w->p, &dopts, err);
	if (!w->dec)
		goto fail;
	w->ann = dp_annotator_new(w->dec, w->p, err);
	if (!w->ann)
		goto fail;
	w->rows = dp_row_ctx_new(w->p, w->dec, w->ann);
	return 0;
fail:
	dp_report_part_free(w);
	return -1;
}

bool dp_report_part_indexed(const dp_report_part *w, uint64_t *samples)
{
	dp_profile_map m;

	if (!dp_profile_own_map(w->p, &m))
		return false;
	*samples = m.samples;
	return true;
}

int dp_report_part_ready(dp_report_part *w, const dp_profile_map *map, dp_error *err)
{
	const dp_report_opts *o = w->o;
	unsigned index = w->index, nparts = w->nparts;
	dp_record rec;

	/* one pass over the side-band records for every stage, then the samples;
	 * the heap records are read by the first part only, whose blocks the
	 * others share (dp_report_part_share_heap) */
	dp_profile_rewind(w->p);
	w->start = dp_profile_tell(w->p);
	dp_profile_skip_samples(w->p, true);
	dp_profile_skip_heap(w->p, index > 0);
	if (!map && dp_profile_own_map(w->p, &w->own_map))
		map = &w->own_map; /* the file's own: no walk (any nparts) */
	if (map) {
		w->map = map;
		replay_side_band(w);
	} else {
		if (index == 0 && nparts > 1)
			dp_profile_index(w->p, CHUNK);
		while (dp_profile_next(w->p, &rec) > 0) {
			dp_decoder_observe(w->dec, &rec);
			dp_annotator_observe(w->ann, &rec);
			dp_row_ctx_observe(w->rows, &rec);
		}
		if (index == 0 && nparts > 1 && dp_profile_index_get(w->p, &w->own_map))
			w->map = &w->own_map;
	}
	dp_profile_skip_samples(w->p, false);
	/* the samples' pass: every heap record was read above */
	dp_profile_skip_heap(w->p, true);
	dp_decoder_ready(w->dec);
	/* the other parts wait for the first one's heap history: their
	 * threads help it */
	dp_annotator_ready(w->ann, index == 0 ? nparts : 1);
	dp_row_ctx_ready(w->rows);
	/* without a map, each part walks the file and takes its chunks of it
	 * (after dp_row_ctx_new: it found the profile's first sample) */
	if (!w->map)
		dp_profile_share_samples(w->p, index, nparts, CHUNK);
	dp_profile_rewind(w->p);
	dp_report_ctx *marks = dp_row_ctx_marks(w->rows);
	if (o->between[0] && dp_report_ctx_between(marks, o->between[0], o->between[1], err) < 0)
		goto fail;
	/* the counters' rates are shown by the first part only */
	if (o->counters && index == 0 && dp_report_ctx_counters(marks, w->p, o->counters, err) < 0)
		goto fail;
	w->attrs = dp_attr_ctx_new(w->rows, w->ann, w->p);
	if (o->where && !(w->where = dp_expr_parse(o->where, w->attrs, err)))
		goto fail;
	size_t nev;
	dp_profile_events(w->p, &nev);
	dp_agg_init(&w->agg, o->levels, o->nlevels, nev, o->metric);
	return 0;
fail:
	dp_report_part_free(w);
	return -1;
}

int dp_report_part_open(dp_report_part *w, const dp_report_opts *o, unsigned index, unsigned nparts,
			uint64_t tlo, uint64_t thi, const dp_profile_map *map, dp_error *err)
{
	if (dp_report_part_begin(w, o, index, nparts, tlo, thi, err) < 0)
		return -1;
	return dp_report_part_ready(w, map, err);
}

void dp_report_part_share_heap(dp_report_part *w, dp_report_part *first)
{
	dp_annotator_share_heap(w->ann, first->ann);
}

void dp_report_part_view(const dp_report_part *w, dp_report_result *out)
{
	memset(out, 0, sizeof(*out));
	out->o = w->o;
	out->p = w->p;
	out->dec = w->dec;
	out->ann = w->ann;
	out->attrs = w->attrs;
	out->rows = w->rows;
	out->ev = dp_profile_events(w->p, &out->nev);
	out->read = w->read;
	out->kept = w->kept;
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
	fprintf(stderr, "\rreading %s: %3d%%", w->o->input,
		(int)(100.0 * (double)r->offset / (double)size));
}

/* The records from the current position to end (exclusive): 0 at the end
 * of the file, < 0 on corrupt data, 1 at end. */
static int stream(dp_report_part *w, uint64_t sample_at, uint64_t end, size_t size, uint64_t seq)
{
	const dp_report_opts *o = w->o;
	dp_report_ctx *marks = dp_row_ctx_marks(w->rows);
	dp_record rec;
	int n = 0;

	/* (UINT64_MAX: to the end, and no telling: a compressed perf.data
	 * stream has no position) */
	while ((end == UINT64_MAX || dp_profile_tell(w->p) < end) &&
	       (n = dp_profile_next(w->p, &rec)) > 0) {
		dp_decoded x;
		dp_annotation an;
		dp_row row;
		uint64_t keys[DP_AGG_MAX_LEVELS][DP_AGG_MAX_ATTRS];

		if (sample_at != UINT64_MAX) {
			/* a chunk a stored index names starts with a sample */
			bool ok = rec.kind == DP_R_SAMPLE && rec.offset == sample_at;

			if (!ok) {
				dp_profile_seek(w->p, sample_at);
				return -1;
			}
			sample_at = UINT64_MAX;
		}
		if (rec.kind != DP_R_SAMPLE)
			continue;
		/* with a map, chunk c holds samples c * CHUNK on; without, the
		 * reader counts every part's */
		seq = w->map ? seq + 1 : dp_profile_samples_met(w->p);
		if (!(++w->read & 0xffff))
			progress(w, &rec, size);
		dp_decode_sample(w->dec, rec.sample, &x);
		if (o->verdicts && !(o->verdicts & (1u << x.verdict)))
			continue;
		dp_annotate(w->ann, rec.sample, &x, &an);
		dp_row_fill(w->rows, rec.sample, &x, &an, &row);
		row.seq = seq - 1;
		if (row.time_rel < w->tlo || row.time_rel > w->thi)
			continue;
		if (!dp_report_ctx_inside(marks, rec.sample->pid, rec.sample->tid,
					  rec.sample->time))
			continue;
		if (w->where && !dp_expr_eval(w->where, w->attrs, &row))
			continue;
		w->kept++;
		dp_agg_keys(&w->agg, w->attrs, &row, keys);
		dp_agg_add(&w->agg, (const uint64_t(*)[DP_AGG_MAX_ATTRS])keys, rec.sample->event,
			   rec.sample->period ? rec.sample->period : 1, rec.sample->weight);
		if (o->on_row)
			o->on_row(o->on_row_ctx, w->attrs, &row);
		if (w->sink)
			o->part_row(w->sink, w->attrs, &row);
	}
	return end != UINT64_MAX && dp_profile_tell(w->p) >= end ? 1 : n;
}

/* Damage in a chunk of a stored index's, read on from end: the first
 * place (the lowest offset of all parts' after the merge) and the bytes
 * lost in all. */
static void note_damage(dp_report_part *w, uint64_t end)
{
	uint64_t at = dp_profile_tell(w->p);

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

	if (w->o->progress && w->index == 0 && dp_profile_spec_bytes(w->o->input, &bytes))
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

			dp_profile_seek(w->p, c ? w->map->chunks[c] : w->start);
			w->rc = stream(w, c && w->map->stored ? w->map->chunks[c] : UINT64_MAX, end,
				       size, w->map->seq ? w->map->seq[c] : (uint64_t)c * CHUNK);
			if (w->map->stored && (w->rc < 0 || dp_profile_tell(w->p) > end)) {
				/* the file's own index says where the next chunk
				 * starts: only this one's rest is lost */
				uint64_t all = 0;

				if (end == UINT64_MAX)
					dp_profile_spec_bytes(w->o->input, &all);
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
	dst->read += src->read;
	dst->kept += src->kept;
	dp_profile_add_counts(dst->p, src->p, dst->map != NULL);
	if (src->rc < 0 && dst->rc >= 0)
		dst->rc = src->rc;
	if (src->damaged && (!dst->damaged || src->damage_at < dst->damage_at))
		dst->damage_at = src->damage_at;
	dst->damaged += src->damaged;
	dst->damage_bytes += src->damage_bytes;
	dp_decoder_add_stats(dst->dec, src->dec);
	dp_annotator_add_stats(dst->ann, src->ann);
	dp_agg_merge(&dst->agg, dst->attrs, &src->agg, src->attrs);
}

void dp_report_part_free(dp_report_part *w)
{
	if (w->agg.nodes.v)
		dp_agg_free(&w->agg);
	dp_expr_free(w->where);
	dp_attr_ctx_free(w->attrs);
	dp_row_ctx_free(w->rows);
	dp_annotator_free(w->ann);
	dp_decoder_free(w->dec);
	dp_profile_close(w->p);
	memset(w, 0, sizeof(*w));
}
