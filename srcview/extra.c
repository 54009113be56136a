/* The view's annotate pane opens from an object or a line as well as from a
 * function: besides the hottest functions, it needs those that hold the
 * most samples of the hottest objects and the hottest instructions (a
 * line's samples are its instructions'). Only those with 1% of the samples
 * or more: the rest would weigh on the page for a sample or two. */
#include "srcview.h"

#include <stdlib.h>
#include <string.h>

typedef struct hot {
	uint64_t key, samples;
	uint32_t func;
} hot;

static int by_samples(const void *pa, const void *pb)
{
	const hot *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if (a->key != b->key) /* the same order every run */
		return a->key < b->key ? -1 : 1;
	return a->func < b->func ? -1 : a->func > b->func;
}

static void show(dp_srcview *v, uint32_t fi)
{
	for (size_t i = 0; i < v->shown.n; i++)
		if (v->shown.v[i] == fi)
			return;
	dp_vec_push(&v->shown, fi);
}

/* objects by samples, then by name: the same order however the strings
 * were numbered (a parallel pass numbers them in another order) */
static int by_object_samples(const void *pa, const void *pb, void *ctx)
{
	const hot *a = pa, *b = pb;
	const dp_strtab *strs = ctx;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return strcmp(dp_strtab_get(strs, (uint32_t)a->key), dp_strtab_get(strs, (uint32_t)b->key));
}

/* Per object, its samples and the function holding most of them. */
static void hottest_objects(dp_srcview *v, size_t k)
{
	DP_VEC(hot) objs = {0}, pairs = {0}; /* pairs: (object, function) */
	dp_hashmap obj_of, pair_of;
	uint64_t i;

	dp_hashmap_init(&obj_of, 256);
	dp_hashmap_init(&pair_of, 1024);
	for (size_t n = 0; n < v->insns.n; n++) {
		const dp_sv_insn *in = &v->insns.v[n];

		for (int a = 0; a < in->naccess; a++) {
			uint64_t ok = in->access[a].object, pk = ok << 32 | in->func;

			if (!dp_hashmap_get(&obj_of, ok, &i)) {
				dp_vec_push(&objs, ((hot){ok, 0, 0}));
				dp_hashmap_put(&obj_of, ok, i = objs.n - 1);
			}
			objs.v[i].samples += in->access[a].samples;
			if (!dp_hashmap_get(&pair_of, pk, &i)) {
				dp_vec_push(&pairs, ((hot){ok, 0, in->func}));
				dp_hashmap_put(&pair_of, pk, i = pairs.n - 1);
			}
			pairs.v[i].samples += in->access[a].samples;
		}
	}
	if (objs.n)
		qsort_r(objs.v, objs.n, sizeof(hot), by_object_samples, v->strs);
	if (pairs.n)
		qsort(pairs.v, pairs.n, sizeof(hot), by_samples);
	for (size_t o = 0; o < objs.n && o < k && objs.v[o].samples * 100 >= v->samples; o++)
		for (size_t p = 0; p < pairs.n; p++)
			if (pairs.v[p].key == objs.v[o].key) {
				show(v, pairs.v[p].func);
				break;
			}
	dp_hashmap_free(&obj_of);
	dp_hashmap_free(&pair_of);
	dp_vec_free(&objs);
	dp_vec_free(&pairs);
}

void dp_sv_add_hot(dp_srcview *v, size_t k)
{
	DP_VEC(hot) ins = {0};

	hottest_objects(v, k);
	for (size_t n = 0; n < v->insns.n; n++)
		dp_vec_push(
		    &ins, ((hot){v->insns.v[n].vaddr, v->insns.v[n].samples, v->insns.v[n].func}));
	if (ins.n)
		qsort(ins.v, ins.n, sizeof(hot), by_samples);
	for (size_t n = 0; n < ins.n && n < k && ins.v[n].samples * 100 >= v->samples; n++)
		show(v, ins.v[n].func);
	dp_vec_free(&ins);
}
