#include "agg.h"

#include <stdlib.h>
#include <string.h>

void dp_agg_init(dp_agg *g, const dp_agg_level *levels, int nlevels, size_t nev, dp_metric m)
{
	dp_agg_node root;

	memset(g, 0, sizeof(*g));
	memcpy(g->levels, levels, sizeof(*levels) * (size_t)nlevels);
	g->nlevels = nlevels;
	g->nev = nev ? nev : 1;
	g->metric = m;
	dp_hashmap_init(&g->index, 1024);
	memset(&root, 0, sizeof(root));
	dp_vec_push(&g->nodes, root);
	g->evcap = 64;
	g->ev = dp_calloc(g->evcap * g->nev * 3, sizeof(uint64_t));
}

void dp_agg_free(dp_agg *g)
{
	dp_vec_free(&g->nodes);
	free(g->ev);
	free(g->child_pool);
	dp_hashmap_free(&g->index);
}

static uint64_t node_hash(uint32_t parent, const uint64_t *key, int n)
{
	uint64_t h = dp_hash64(parent + 0x9e3779b97f4a7c15ull);

	for (int i = 0; i < n; i++)
		h = dp_hash64(h ^ key[i]);
	return h;
}

/* The child of parent with this key, created if new. */
static uint32_t child(dp_agg *g, uint32_t parent, const uint64_t *key, int depth)
{
	int n = g->levels[depth].nattrs;
	uint64_t h = node_hash(parent, key, n), v;

	for (;; h++) {
		if (!dp_hashmap_get(&g->index, h, &v))
			break;
		dp_agg_node *c = &g->nodes.v[v];
		if (c->parent == parent && c->depth == (uint32_t)depth + 1 &&
		    !memcmp(c->key, key, sizeof(uint64_t) * (size_t)n))
			return (uint32_t)v;
	}
	dp_agg_node nn;
	memset(&nn, 0, sizeof(nn));
	memcpy(nn.key, key, sizeof(uint64_t) * (size_t)n);
	nn.parent = parent;
	nn.depth = (uint32_t)depth + 1;
	dp_vec_push(&g->nodes, nn);
	if (g->nodes.n > g->evcap) {
		size_t old = g->evcap;
		g->evcap *= 2;
		g->ev = dp_realloc(g->ev, g->evcap * g->nev * 3 * sizeof(uint64_t));
		memset(g->ev + old * g->nev * 3, 0, (g->evcap - old) * g->nev * 3 * sizeof(uint64_t));
	}
	dp_hashmap_put(&g->index, h, g->nodes.n - 1);
	return (uint32_t)(g->nodes.n - 1);
}

static void count(dp_agg *g, uint32_t node, uint32_t event, uint64_t period, uint64_t weight)
{
	dp_agg_node *n = &g->nodes.v[node];
	uint64_t *e = &g->ev[((size_t)node * g->nev + (event < g->nev ? event : 0)) * 3];

	n->m[0]++;
	n->m[1] += period;
	n->m[2] += weight;
	e[0]++;
	e[1] += period;
	e[2] += weight;
}

static void add_counts(dp_agg *g, uint32_t node, const dp_agg *src, uint32_t from)
{
	dp_agg_node *n = &g->nodes.v[node];
	const dp_agg_node *f = &src->nodes.v[from];
	uint64_t *e = &g->ev[(size_t)node * g->nev * 3];
	const uint64_t *fe = &src->ev[(size_t)from * src->nev * 3];

	for (int i = 0; i < 3; i++)
		n->m[i] += f->m[i];
	for (size_t i = 0; i < g->nev * 3 && i < src->nev * 3; i++)
		e[i] += fe[i];
}

void dp_agg_merge(dp_agg *g, dp_attr_ctx *names, const dp_agg *src, const dp_attr_ctx *src_names)
{
	/* a node comes after its parent in src: one pass maps each to g's */
	uint32_t *to = dp_malloc(src->nodes.n * sizeof(uint32_t));

	to[0] = 0;
	add_counts(g, 0, src, 0);
	for (size_t i = 1; i < src->nodes.n; i++) {
		const dp_agg_node *n = &src->nodes.v[i];
		const dp_agg_level *lv = &g->levels[n->depth - 1];
		uint64_t key[DP_AGG_MAX_ATTRS] = {0};

		for (int k = 0; k < lv->nattrs; k++)
			key[k] = dp_attr_key_in(names, src_names, &lv->attrs[k], n->key[k]);
		to[i] = child(g, to[n->parent], key, (int)n->depth - 1);
		add_counts(g, to[i], src, (uint32_t)i);
	}
	free(to);
}

void dp_agg_add(dp_agg *g, const uint64_t keys[][DP_AGG_MAX_ATTRS], uint32_t event, uint64_t period,
		uint64_t weight)
{
	uint32_t node = 0;

	count(g, 0, event, period, weight);
	for (int d = 0; d < g->nlevels; d++) {
		const dp_agg_node *l = &g->nodes.v[g->last[d]];

		if (g->last[d] && l->parent == node &&
		    !memcmp(l->key, keys[d], sizeof(uint64_t) * (size_t)g->levels[d].nattrs))
			node = g->last[d];
		else
			node = g->last[d] = child(g, node, keys[d], d);
		count(g, node, event, period, weight);
	}
}

void dp_agg_keys(const dp_agg *g, dp_attr_ctx *c, dp_row *r, uint64_t keys[][DP_AGG_MAX_ATTRS])
{
	for (int d = 0; d < g->nlevels; d++)
		for (int i = 0; i < g->levels[d].nattrs; i++)
			keys[d][i] = dp_attr_key(c, r, &g->levels[d].attrs[i]);
}

void dp_agg_ensure(dp_agg *g, const uint64_t *key)
{
	child(g, 0, key, 0);
}

typedef struct sort_ctx {
	const dp_agg *g;
	const dp_attr_ctx *names;
} sort_ctx;

/* The keys of two siblings, attribute by attribute, by what they say. */
static int by_text(const sort_ctx *c, const dp_agg_node *x, const dp_agg_node *y)
{
	const dp_agg_level *lv = &c->g->levels[x->depth - 1];

	for (int i = 0; i < lv->nattrs; i++) {
		int d = dp_attr_compare(c->names, &lv->attrs[i], x->key[i], y->key[i]);
		if (d)
			return d;
	}
	return 0;
}

static int by_key(const void *a, const void *b, void *ctx)
{
	const sort_ctx *c = ctx;
	const dp_agg_node *x = &c->g->nodes.v[*(const uint32_t *)a];
	const dp_agg_node *y = &c->g->nodes.v[*(const uint32_t *)b];

	if (x->key[0] != y->key[0])
		return x->key[0] < y->key[0] ? -1 : 1;
	return by_text(c, x, y);
}

static int by_metric(const void *a, const void *b, void *ctx)
{
	const sort_ctx *c = ctx;
	const dp_agg_node *x = &c->g->nodes.v[*(const uint32_t *)a];
	const dp_agg_node *y = &c->g->nodes.v[*(const uint32_t *)b];
	uint64_t vx = x->m[c->g->metric], vy = y->m[c->g->metric];

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->m[0] != y->m[0])
		return x->m[0] > y->m[0] ? -1 : 1;
	/* ties in an order that does not depend on the order of the samples */
	return by_text(c, x, y);
}

void dp_agg_finish(dp_agg *g, const dp_attr_ctx *names)
{
	size_t n = g->nodes.n;
	uint32_t *counts = dp_calloc(n, sizeof(uint32_t)), *pos;

	sort_ctx sc = {g, names};
	for (size_t i = 1; i < n; i++)
		counts[g->nodes.v[i].parent]++;
	free(g->child_pool);
	g->child_pool = dp_malloc((n ? n : 1) * sizeof(uint32_t));
	pos = dp_calloc(n, sizeof(uint32_t));
	size_t off = 0;
	for (size_t i = 0; i < n; i++) {
		g->nodes.v[i].children = g->child_pool + off;
		g->nodes.v[i].nchildren = 0;
		pos[i] = (uint32_t)off;
		off += counts[i];
	}
	for (size_t i = 1; i < n; i++) {
		dp_agg_node *p = &g->nodes.v[g->nodes.v[i].parent];
		p->children[p->nchildren++] = (uint32_t)i;
	}
	for (size_t i = 0; i < n; i++) {
		const dp_agg_node *nd = &g->nodes.v[i];
		bool timeline = nd->depth < (uint32_t)g->nlevels &&
				g->levels[nd->depth].attrs[0].id == DP_A_TIME;

		if (nd->nchildren > 1)
			qsort_r(nd->children, nd->nchildren, sizeof(uint32_t),
				timeline ? by_key : by_metric, &sc);
	}
	free(counts);
	free(pos);
}
