/* dataprof dump: the pass over a profile's records, each printed as asked,
 * and the summary of what was read. */
#include "dump.h"
#include "../annotate/annotate.h"
#include "../decode/decode.h"

#include <inttypes.h>

typedef struct dumper {
	const dp_dump_opts *o;
	dp_decoder *dec;
	dp_annotator *ann;
} dumper;

static void take(FILE *f, dp_profile *p, const dp_record *r, const dumper *d)
{
	const dp_dump_opts *o = d->o;

	if (o->decoded && o->summary_only && r->kind == DP_R_SAMPLE) {
		/* for decode's and annotate's summaries */
		dp_decoded x;
		dp_annotation an;

		dp_decode_sample(d->dec, r->sample, &x);
		if (d->ann)
			dp_annotate(d->ann, r->sample, &x, &an);
	} else if (o->summary_only) {
		return;
	} else if (o->annotated) {
		if (r->kind == DP_R_SAMPLE)
			dp_dump_annotated(f, p, r, d->dec, d->ann);
	} else if (o->decoded) {
		if (r->kind == DP_R_SAMPLE)
			dp_dump_decoded(f, p, r, d->dec);
	} else {
		dp_dump_record(f, p, r, o);
	}
}

/* "# N records, N samples (EVENT N, ...), N lost, ..." */
static void print_summary(FILE *f, const dp_profile *p)
{
	const dp_read_status *st = dp_profile_status(p);
	size_t nev;
	const dp_event_info *ev = dp_profile_events(p, &nev);

	fprintf(f, "# %" PRIu64 " records, %" PRIu64 " samples", st->records, st->samples);
	for (size_t i = 0; i < nev; i++)
		fprintf(f, "%s%s %" PRIu64, i ? ", " : " (", ev[i].name ? ev[i].name : "?",
			ev[i].samples);
	fprintf(f,
		"%s, %" PRIu64 " lost, %" PRIu64 " throttled, %" PRIu64 " unknown, %" PRIu64
		" bad samples",
		nev ? ")" : "", st->lost + st->lost_samples, st->throttles, st->unknown_records,
		st->bad_samples);
	if (st->readings)
		fprintf(f, ", %" PRIu64 " counter readings", st->readings);
	if (st->marks)
		fprintf(f, ", %" PRIu64 " marks", st->marks);
	fputc('\n', f);
}

int dp_dump(dp_profile *p, const dp_dump_opts *given, FILE *f, dp_error *err)
{
	dp_dump_opts opts = *given;
	const dp_dump_opts *o = &opts;
	dumper d = {o, NULL, NULL};
	dp_record r;
	int rc;

	opts.decoded |= opts.annotated; /* what is annotated is the decoded sample */

	if (o->decoded) {
		dp_decode_opts dopts = {o->symfs, false};

		if (!(d.dec = dp_decoder_open(p, &dopts, err)))
			return -1;
		if (o->annotated)
			d.ann = dp_annotator_open(d.dec, p, err);
	}
	if (!o->summary_only && !o->decoded && dp_profile_status(p)->format != DP_FMT_DPROF)
		dp_dump_perf_header(f, p);
	while ((rc = dp_profile_next(p, &r)) > 0)
		take(f, p, &r, &d);
	print_summary(f, p);
	if (d.dec) {
		dp_decode_print_summary(d.dec, p, f);
		if (d.ann) {
			dp_annotate_print_summary(d.ann, f);
			dp_annotator_free(d.ann);
		}
		dp_decoder_free(d.dec);
	}
	return rc < 0 ? 1 : 0;
}
