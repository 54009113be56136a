#include "report.h"
#include "context.h"
#include "part.h"
#include "units.h"
#include "json.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Above this many parts the merge and the side-band passes cost more than
 * the samples gain. */
#define MAX_JOBS 256
/* The default gives each part at least this much of the file: below it,
 * starting a pipeline (side-band pass, DWARF) costs more than it saves. */
#define MIN_BYTES_PER_JOB (4u << 20)
/* ... and at least this many samples: every part replays the side-band
 * records (a --heap profile's blocks entering and leaving its cells) and
 * opens the DWARF, so a profile mostly of side band is read faster in one
 * part (a 1 s Python --heap run: 2.4 s in one part, 4.5 s in two, before
 * the parts shared the first one's heap history) */
#define MIN_SAMPLES_PER_JOB (64u << 10)

unsigned dp_report_jobs_default(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	return 1;
}

static unsigned parts_for(const dp_report_opts *o)
{
	uint64_t bytes;
	unsigned n = o->sel.jobs;

	/* outputs that follow the samples one by one take them in file order;
	 * a pipe (stdin) can be read once; a series is read as one file */
	if (o->on_row || !dp_profile_spec_bytes(o->input, &bytes))
		return 1;
	if (!n) {
		n = dp_report_jobs_default();
		if (bytes / MIN_BYTES_PER_JOB + 1 < n)
			n = (unsigned)(bytes / MIN_BYTES_PER_JOB + 1);
	}
	return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : n;
}

/* Workers started before the first part is ready wait here before their
 * outputs begin: the outputs' parts are made in order, the first's first. */
typedef struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state; /* 0: wait; 1: go; -1: the first part failed, stop */
} gate;

typedef struct worker {
	dp_report_part part;
	const dp_report_opts *o;
	unsigned index, nparts;
	uint64_t tlo, thi;
	const dp_profile_map *map; /* the first part's; NULL: the file's own map */
	dp_report_part *first;	   /* whose heap blocks it shares, once ready */
	gate *g;		   /* set when started before the first part was ready */
	atomic_size_t *deal;	   /* the parts' next chunk */
	int rc;			   /* of the open */
	pthread_t th;
	bool started;
} worker;

static int gate_wait(gate *g)
{
	pthread_mutex_lock(&g->mu);
	while (!g->state)
		pthread_cond_wait(&g->cv, &g->mu);
	int st = g->state;
	pthread_mutex_unlock(&g->mu);
	return st;
}

static void gate_open(gate *g, int state)
{
	pthread_mutex_lock(&g->mu);
	g->state = state;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

static void *work(void *arg)
{
	worker *k = arg;

	k->rc = dp_report_part_open(&k->part, k->o, k->index, k->nparts, k->tlo, k->thi, k->map,
				    &k->part.err);
	k->part.deal = k->deal;
	if (k->g && gate_wait(k->g) < 0)
		return NULL; /* k->rc stands: the part is freed, its sums unused */
	if (k->rc == 0)
		dp_report_part_share_heap(&k->part, k->first);
	if (k->rc == 0 && k->o->parts) {
		dp_report_result view;

		dp_report_part_view(&k->part, &view);
		k->part.sink = k->o->parts->part_new(k->o->on_row_ctx, k->index, &view);
	}
	if (k->rc == 0)
		dp_report_part_stream(&k->part);
	return NULL;
}

/* Starts parts 1 to nparts - 1 (map NULL: each by the file's own map). */
static worker *start_workers(const dp_report_opts *o, dp_report_part *first, unsigned nparts,
			     uint64_t tlo, uint64_t thi, const dp_profile_map *map, gate *g,
			     atomic_size_t *deal)
{
	worker *ws = nparts > 1 ? dp_calloc(nparts - 1, sizeof(*ws)) : NULL;

	for (unsigned i = 1; i < nparts; i++) {
		worker *k = &ws[i - 1];

		k->o = o;
		k->index = i;
		k->nparts = nparts;
		k->tlo = tlo;
		k->thi = thi;
		k->map = map;
		k->first = first;
		k->g = g;
		k->deal = deal;
		k->started = pthread_create(&k->th, NULL, work, k) == 0;
		if (!k->started && !g)
			work(k); /* no thread to be had: the part is read here, in turn */
		else if (!k->started)
			k->rc = -1; /* it would wait for the first part forever */
	}
	return ws;
}

/* Stops workers started early when the first part cannot be read. */
static void stop_workers(worker *ws, unsigned nparts, gate *g)
{
	if (!ws)
		return;
	if (g)
		gate_open(g, -1);
	for (unsigned i = 1; i < nparts; i++) {
		if (ws[i - 1].started)
			pthread_join(ws[i - 1].th, NULL);
		if (ws[i - 1].rc == 0)
			dp_report_part_free(&ws[i - 1].part);
	}
	free(ws);
}

/* The number of parts by default, once the samples are counted. */
static unsigned parts_by_samples(const dp_report_opts *o, unsigned nparts, uint64_t samples)
{
	uint64_t n = samples / MIN_SAMPLES_PER_JOB + 1;

	return !o->sel.jobs && n < nparts ? (unsigned)n : nparts;
}

void dp_report_by_event(dp_report_opts *o)
{
	o->levels[0].attrs[0] = (dp_attr){DP_A_EVENT, 0};
	o->levels[0].nattrs = 1;
	o->nlevels = 1;
}

/* Buckets without samples that --counters fills at most: a bucket is a row
 * (about 300 bytes), and a file's readings may span any time (a fuzzed
 * one's 936 bytes spanned 1,099 s: 1.1M rows of 1 ms, 310 MB; 2^63 ns
 * would never end). 100,000 is 100 s at 1 ms. */
#define FILL_MAX 100000u

/* Every bucket the counters cover, with samples or not (a bucket without a
 * reading of its own gets the rate of the readings that span it), up to
 * FILL_MAX of them. */
static void fill_counter_buckets(const dp_report_opts *o, dp_report_result *res,
				 const dp_report_ctx *marks)
{
	uint64_t lo, hi, first, last, start = dp_row_ctx_start(res->rows),
				      w = o->levels[0].attrs[0].bucket;

	if (!w || !dp_report_ctx_readings_span(marks, &lo, &hi) || hi < start)
		return;
	first = (lo > start ? lo - start : 0) / w;
	last = (hi - start) / w;
	if (last - first >= FILL_MAX) {
		fprintf(stderr,
			"dataprof: warning: %s: the counters' readings span %" PRIu64
			" buckets of %" PRIu64 " ns; only the first %u are shown where no sample "
			"fell: use a wider --by time:WIDTH\n",
			o->input, last - first + 1, w, FILL_MAX);
		last = first + FILL_MAX - 1;
	}
	for (uint64_t b = first; b <= last; b++) {
		uint64_t key[DP_AGG_MAX_ATTRS] = {b};

		dp_agg_ensure(&res->agg, key);
	}
}

int dp_report_build(const dp_report_opts *o, dp_report_result *res, dp_error *err)
{
	uint64_t tlo = 0, thi = UINT64_MAX;
	dp_profile_map own;
	dp_report_part first;
	worker *ws = NULL;
	gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0}, *early = NULL;
	atomic_size_t deal = 0;
	unsigned nparts = parts_for(o);
	int rc = 0;

	memset(res, 0, sizeof(*res));
	res->o = o;
	if (o->sel.time_range) {
		char why[160];

		if (!dp_parse_time_range(o->sel.time_range, &tlo, &thi, why, sizeof(why))) {
			dp_error_set(err, "--time %s", why);
			return -1;
		}
	}
	/* the first part here: its errors (the file, --where, --between) are
	 * the command's */
	if (dp_report_part_begin(&first, o, 0, nparts, tlo, thi, NULL, err) < 0)
		return -1;
	if (nparts > 1 && dp_report_part_own_map(&first, &own)) {
		/* the file's own map: the others need nothing more of the first
		 * part, and open beside it (perf.data's: without walking the
		 * file again) */
		nparts = first.nparts = parts_by_samples(o, nparts, own.samples);
		early = nparts > 1 ? &g : NULL;
		ws = start_workers(o, &first, nparts, tlo, thi, &own, early, &deal);
	}
	if (dp_report_part_ready(&first, NULL, err) < 0) {
		stop_workers(ws, nparts, early);
		return -1;
	}
	dp_report_part_view(&first, res);
	if (o->on_start && o->on_start(o->on_row_ctx, res, err) < 0) {
		stop_workers(ws, nparts, early);
		dp_report_part_free(&first);
		memset(res, 0, sizeof(*res));
		return -1;
	}
	if (!ws && nparts > 1)
		/* the default, once the first part has counted the samples */
		nparts = first.nparts = parts_by_samples(o, nparts, dp_report_part_samples(&first));
	if (o->parts)
		first.sink = o->parts->part_new(o->on_row_ctx, 0, res);
	if (dp_report_part_map(&first))
		first.deal = &deal;
	if (early)
		gate_open(early, 1);
	else
		ws = start_workers(o, &first, nparts, tlo, thi, dp_report_part_map(&first), NULL,
				   &deal);
	dp_report_part_stream(&first);
	for (unsigned i = 1; i < nparts; i++) {
		worker *k = &ws[i - 1];

		if (k->started)
			pthread_join(k->th, NULL);
		if (k->rc < 0 && rc == 0) {
			*err = k->part.err;
			rc = -1;
		}
	}
	/* in part order, so that the merged names do not depend on timing */
	for (unsigned i = 1; i < nparts; i++) {
		dp_report_part *w = &ws[i - 1].part;

		if (rc == 0 && w->sink) {
			dp_report_result a, b;

			dp_report_part_view(&first, &a);
			dp_report_part_view(w, &b);
			o->parts->part_merge(o->on_row_ctx, first.sink, &a, w->sink, &b);
		}
		if (w->sink)
			o->parts->part_free(o->on_row_ctx, w->sink);
		if (rc == 0)
			dp_report_part_merge(&first, w);
		if (ws[i - 1].rc == 0)
			dp_report_part_free(w);
	}
	free(ws);
	dp_expr_free(first.where);
	first.where = NULL;
	*res = first.res;
	if (rc < 0) {
		dp_report_result_free(res);
		return -1;
	}
	dp_report_ctx *marks = dp_row_ctx_marks(res->rows);
	if (o->counters)
		fill_counter_buckets(o, res, marks);
	if (first.damaged)
		fprintf(
		    stderr,
		    "dataprof: warning: %s: corrupt record at offset %" PRIu64 ": %" PRIu64
		    " bytes in %" PRIu64
		    " places skipped, each to the next sample the file's index names; the report "
		    "covers the rest\n",
		    o->input, first.damage_at, first.damage_bytes, first.damaged);
	if (first.rc < 0) {
		/* corrupt data: report what was read before it, and say so */
		fprintf(stderr,
			"dataprof: warning: %s: %s; the report covers the records before it\n",
			o->input, dp_profile_status(res->p)->error);
	}
	dp_agg_finish(&res->agg, res->attrs);
	const dp_read_status *st = dp_profile_status(res->p);
	if (st->truncated_at)
		fprintf(stderr,
			"dataprof: warning: %s ends inside a record at offset %" PRIu64
			" (the recording was cut short): reported up to its last complete record\n",
			o->input, st->truncated_at);
	if (st->bad_samples)
		fprintf(stderr,
			"dataprof: warning: %s: %" PRIu64
			" malformed samples skipped (`dataprof dump` shows them); the report "
			"covers the rest\n",
			o->input, st->bad_samples);
	return 0;
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

void dp_report_lost_json(const dp_report_result *r, FILE *f)
{
	size_t n;
	const dp_lost_count *l = dp_profile_lost(r->p, &n);

	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",{\"event\":" : "{\"event\":", f);
		if (l[i].event < r->nev && r->ev[l[i].event].name)
			dp_json_str(f, r->ev[l[i].event].name);
		else
			fputs("null", f);
		if (l[i].cpu >= 0)
			fprintf(f, ",\"cpu\":%d", (int)l[i].cpu);
		else
			fputs(",\"cpu\":null", f);
		fprintf(f, ",\"count\":%" PRIu64 "}", l[i].count);
	}
	fputc(']', f);
}
