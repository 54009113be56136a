#include "report.h"
#include "expr.h"
#include "context.h"
#include "units.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void progress(const dp_report_opts *o, const dp_profile *p, const dp_record *r, size_t size,
		     bool done)
{
	(void)p;
	if (!o->progress || !size)
		return;
	if (done)
		fprintf(stderr, "\r%40s\r", "");
	else
		fprintf(stderr, "\rreading %s: %3d%%", o->input,
			(int)(100.0 * (double)r->offset / (double)size));
}

int dp_report_build(const dp_report_opts *o, dp_report_result *res, dp_error *err)
{
	dp_expr *where = NULL;
	uint64_t tlo = 0, thi = UINT64_MAX;
	dp_decode_opts dopts = {o->symfs, false};
	dp_record rec;
	struct stat sb;
	size_t size = 0;
	int n;

	memset(res, 0, sizeof(*res));
	res->o = o;
	if (o->time_range) {
		char why[160];

		if (!dp_parse_time_range(o->time_range, &tlo, &thi, why, sizeof(why))) {
			dp_error_set(err, "--time %s", why);
			return -1;
		}
	}
	res->p = dp_profile_open(o->input, err);
	if (!res->p)
		return -1;
	if (stat(o->input, &sb) == 0)
		size = (size_t)sb.st_size;
	res->ev = dp_profile_events(res->p, &res->nev);
	res->dec = dp_decoder_new(res->p, &dopts, err);
	if (!res->dec)
		goto fail;
	res->ann = dp_annotator_new(res->dec, res->p, err);
	if (!res->ann)
		goto fail;
	res->rows = dp_row_ctx_new(res->p, res->dec, res->ann);
	/* one pass over the side-band records for every stage, then the samples */
	dp_profile_rewind(res->p);
	dp_profile_skip_samples(res->p, true);
	while (dp_profile_next(res->p, &rec) > 0) {
		dp_decoder_observe(res->dec, &rec);
		dp_annotator_observe(res->ann, &rec);
		dp_row_ctx_observe(res->rows, &rec);
	}
	dp_profile_skip_samples(res->p, false);
	dp_decoder_ready(res->dec);
	dp_annotator_ready(res->ann);
	dp_row_ctx_ready(res->rows);
	dp_profile_rewind(res->p);
	dp_report_ctx *marks = dp_row_ctx_marks(res->rows);
	if (o->between[0] && dp_report_ctx_between(marks, o->between[0], o->between[1], err) < 0)
		goto fail;
	if (o->counters && dp_report_ctx_counters(marks, res->p, o->counters, err) < 0)
		goto fail;
	res->attrs = dp_attr_ctx_new(res->rows, res->ann, res->p);
	if (o->where && !(where = dp_expr_parse(o->where, res->attrs, err)))
		goto fail;
	dp_agg_init(&res->agg, o->levels, o->nlevels, res->nev, o->metric);
	if (o->on_start && o->on_start(o->on_row_ctx, res, err) < 0)
		goto fail;

	while ((n = dp_profile_next(res->p, &rec)) > 0) {
		dp_decoded x;
		dp_annotation an;
		dp_row row;
		uint64_t keys[DP_AGG_MAX_LEVELS][DP_AGG_MAX_ATTRS];

		if (rec.kind != DP_R_SAMPLE)
			continue;
		if (!(++res->read & 0xffff))
			progress(o, res->p, &rec, size, false);
		dp_decode_sample(res->dec, rec.sample, &x);
		if (o->verdicts && !(o->verdicts & (1u << x.verdict)))
			continue;
		dp_annotate(res->ann, rec.sample, &x, &an);
		dp_row_fill(res->rows, rec.sample, &x, &an, &row);
		if (row.time_rel < tlo || row.time_rel > thi)
			continue;
		if (!dp_report_ctx_inside(marks, rec.sample->pid, rec.sample->tid,
					  rec.sample->time))
			continue;
		if (where && !dp_expr_eval(where, res->attrs, &row))
			continue;
		res->kept++;
		dp_agg_keys(&res->agg, res->attrs, &row, keys);
		dp_agg_add(&res->agg, (const uint64_t(*)[DP_AGG_MAX_ATTRS])keys, rec.sample->event,
			   rec.sample->period ? rec.sample->period : 1, rec.sample->weight);
		if (o->on_row)
			o->on_row(o->on_row_ctx, res->attrs, &row);
	}
	progress(o, res->p, &rec, size, true);
	if (o->counters) {
		/* every bucket the counters cover, with samples or not */
		uint64_t lo, hi, start = dp_row_ctx_start(res->rows),
				 w = o->levels[0].attrs[0].bucket;

		if (w && dp_report_ctx_readings_span(marks, &lo, &hi) && hi >= start)
			for (uint64_t b = (lo > start ? lo - start : 0) / w; b <= (hi - start) / w;
			     b++) {
				uint64_t key[DP_AGG_MAX_ATTRS] = {b};
				dp_agg_ensure(&res->agg, key);
			}
	}
	if (n < 0) {
		/* corrupt data: report what was read before it, and say so */
		fprintf(stderr,
			"dataprof: warning: %s: %s; the report covers the records before it\n",
			o->input, dp_profile_status(res->p)->error);
	}
	dp_agg_finish(&res->agg);
	dp_expr_free(where);
	const dp_read_status *st = dp_profile_status(res->p);
	if (st->truncated_at)
		fprintf(stderr,
			"dataprof: warning: %s ends inside a record at offset %" PRIu64
			" (the recording was cut short): reported up to its last complete record\n",
			o->input, st->truncated_at);
	if (st->bad_samples)
		fprintf(stderr,
			"dataprof: warning: %s: %" PRIu64
			" malformed samples skipped (`dataprof dump` shows them); the report covers the rest\n",
			o->input, st->bad_samples);
	return 0;
fail:
	dp_expr_free(where);
	dp_report_result_free(res);
	return -1;
}

void dp_report_result_free(dp_report_result *res)
{
	if (res->agg.nodes.v)
		dp_agg_free(&res->agg);
	dp_attr_ctx_free(res->attrs);
	dp_row_ctx_free(res->rows);
	dp_annotator_free(res->ann);
	dp_decoder_free(res->dec);
	dp_profile_close(res->p);
	memset(res, 0, sizeof(*res));
}
