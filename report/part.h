/* One report pipeline over a profile: its own reader, decoder, annotator,
 * rows, attributes, filter and aggregate. A parallel report runs one per
 * worker, each over its share of the samples (dp_profile_share_samples):
 * nothing mutable is shared, so decode's and annotate's caches need no
 * locks; the aggregates are merged at the end. */
#ifndef DP_REPORT_PART_H
#define DP_REPORT_PART_H

#include "report.h"
#include "expr.h"

#include <stdatomic.h>

typedef struct dp_report_part {
	/* its stages, sums and counts: a whole report's result, for its share
	 * of the samples */
	dp_report_result res;
	unsigned index, nparts;
	dp_expr *where;
	void *sink;	   /* o->parts->part_new's state of the part */
	uint64_t tlo, thi; /* --time, relative */
	int rc;		   /* of the last dp_profile_next: < 0 corrupt data */
	dp_error err;	   /* when dp_report_part_open failed */
	/* the first part's map of the file: where the others seek to */
	const dp_profile_map *map;
	dp_profile_map own_map;
	uint64_t start; /* the first record's position */
	/* chunks cut short by damage, read on from the next chunk's start
	 * (a stored index's map only): how many, the first damage's position,
	 * the bytes skipped */
	uint64_t damaged, damage_at, damage_bytes;
	/* with a map: the next chunk to read, shared by the parts (NULL: the
	 * part reads every nparts-th chunk from its index) */
	atomic_size_t *deal;
} dp_report_part;

/* Opens the profile and reads its side-band records for every stage; ready
 * to stream its share of the samples. With the file's own map (a finished
 * profile's index, format.h; perf.data's, made when it is opened:
 * dp_profile_own_map) every part reads by it; without, the first part
 * (index 0) walks the whole file and maps it (dp_report_part_map), and the
 * others are given that map, when there is one, and read only what it
 * points them to. -1 with err set. */
int dp_report_part_open(dp_report_part *w, const dp_report_opts *o, unsigned index, unsigned nparts,
			uint64_t tlo, uint64_t thi, const dp_profile_map *map, dp_error *err);
/* dp_report_part_open in two steps: the profile and the stages, opened
 * (beside another part's profile whose own map is beside, or NULL: a
 * perf.data file is then not walked again); then their side-band pass.
 * Between them, the file's own map (and its samples), when it carries
 * one: then every part finds its share by it. */
int dp_report_part_begin(dp_report_part *w, const dp_report_opts *o, unsigned index,
			 unsigned nparts, uint64_t tlo, uint64_t thi, const dp_profile_map *beside,
			 dp_error *err);
bool dp_report_part_own_map(const dp_report_part *w, dp_profile_map *m);
int dp_report_part_ready(dp_report_part *w, const dp_profile_map *map, dp_error *err);
/* A part after the first (which reads no heap record) takes the first's
 * heap blocks, once both are ready and before it streams. */
void dp_report_part_share_heap(dp_report_part *w, dp_report_part *first);
/* About how many samples the file holds, from the first part's map (its
 * chunks of samples); 0 when there is no map. */
uint64_t dp_report_part_samples(const dp_report_part *w);
/* The first part's map of the file, or NULL when its file cannot seek. */
const dp_profile_map *dp_report_part_map(const dp_report_part *w);
/* What the outputs see of the part (o->parts). */
void dp_report_part_view(const dp_report_part *w, dp_report_result *out);
/* Streams the part's samples into its aggregate (and o->on_row or
 * o->part_row). */
void dp_report_part_stream(dp_report_part *w);
/* Adds the counts and groups of src to dst (dst's names). */
void dp_report_part_merge(dp_report_part *dst, dp_report_part *src);
void dp_report_part_free(dp_report_part *w);

#endif
