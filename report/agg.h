/* The aggregation tree: level 0 groups samples by the --by attributes,
 * each --then level regroups the samples of its parent. Built while the
 * samples stream past, so memory grows with distinct attribute values, not
 * with samples. */
#ifndef DP_AGG_H
#define DP_AGG_H

#include <stdint.h>

#include "attr.h"

#define DP_AGG_MAX_LEVELS 4
#define DP_AGG_MAX_ATTRS  4 /* attributes grouped together at one level */

typedef struct dp_agg_level {
	dp_attr attrs[DP_AGG_MAX_ATTRS];
	int nattrs;
} dp_agg_level;

typedef enum dp_metric { DP_M_SAMPLES, DP_M_PERIOD, DP_M_WEIGHT } dp_metric;

typedef struct dp_agg_node {
	uint64_t key[DP_AGG_MAX_ATTRS];
	uint32_t parent, depth;
	uint32_t *children; /* after dp_agg_finish: sorted by the metric, largest first */
	uint32_t nchildren;
	uint64_t m[3]; /* samples, period, weight */
} dp_agg_node;

typedef struct dp_agg {
	dp_agg_level levels[DP_AGG_MAX_LEVELS];
	int nlevels;
	size_t nev;
	dp_metric metric;
	DP_VEC(dp_agg_node) nodes; /* 0: the root, totals */
	uint64_t *ev;              /* per node, per event: m[3] */
	size_t evcap;
	dp_hashmap index;
	uint32_t *child_pool;
	/* per level, the node the last sample went to: samples come in runs
	 * of the same instruction and object, found without a hash lookup */
	uint32_t last[DP_AGG_MAX_LEVELS];
} dp_agg;

void dp_agg_init(dp_agg *g, const dp_agg_level *levels, int nlevels, size_t nev, dp_metric m);
void dp_agg_free(dp_agg *g);
/* Adds one sample: keys[level][attr]. */
void dp_agg_add(dp_agg *g, const uint64_t keys[][DP_AGG_MAX_ATTRS], uint32_t event,
		uint64_t period, uint64_t weight);
/* A level-0 group with no samples (so a time bucket shows even when empty). */
void dp_agg_ensure(dp_agg *g, const uint64_t *key);
/* Adds the groups and counts of src (the same levels, events and metric:
 * a parallel report's worker) to g; src's string keys are translated to
 * names' table (dp_attr_key_in). */
void dp_agg_merge(dp_agg *g, dp_attr_ctx *names, const dp_agg *src, const dp_attr_ctx *src_names);
/* Sorts children by the metric; time buckets stay in time order. Ties go
 * by the keys' text (names), so that the order does not depend on which
 * sample came first. */
void dp_agg_finish(dp_agg *g, const dp_attr_ctx *names);
static inline uint64_t dp_agg_value(const dp_agg_node *n, dp_metric m)
{
	return n->m[m];
}
static inline const uint64_t *dp_agg_event_m(const dp_agg *g, uint32_t node, uint32_t ev)
{
	return &g->ev[((size_t)node * g->nev + ev) * 3];
}
/* Fills keys for r at every level. */
void dp_agg_keys(const dp_agg *g, dp_attr_ctx *c, dp_row *r, uint64_t keys[][DP_AGG_MAX_ATTRS]);

#endif
