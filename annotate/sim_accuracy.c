#include "sim_accuracy.h"
#include "annotate.h"
#include "hashmap.h"
#include "../decode/maps.h"

#include <fnmatch.h>
#include <string.h>

typedef DP_VEC(struct dp_rec_sim_truth) truth_vec;

/* Pass one: each truth record by the offset of the sample it follows. */
static void read_truths(dp_profile *p, dp_hashmap *by_sample, truth_vec *t)
{
	dp_record r;
	uint64_t last_sample = UINT64_MAX;

	while (dp_profile_next(p, &r) > 0) {
		if (r.kind == DP_R_SAMPLE) {
			last_sample = r.offset;
		} else if (r.kind == DP_R_OTHER && r.type == DP_REC_SIM_TRUTH &&
			   r.size >= sizeof(struct dp_rec_sim_truth) && last_sample != UINT64_MAX) {
			struct dp_rec_sim_truth tr;

			memcpy(&tr, r.other, sizeof(tr));
			dp_hashmap_put(by_sample, last_sample, t->n);
			dp_vec_push(t, tr);
			last_sample = UINT64_MAX;
		}
	}
	dp_profile_rewind(p);
}

static void score(dp_sim_accuracy *acc, dp_annotator *a, const dp_sample *s, const dp_decoded *x,
		  const struct dp_rec_sim_truth *t)
{
	bool claimed = x->verdict == DP_V_VERIFIED || x->verdict == DP_V_EXACT;

	if (acc->only_map && !(x->map && x->map->name && strstr(x->map->name, acc->only_map)))
		return;
	if (acc->only_func) {
		dp_annotation an;

		dp_annotate(a, s, x, &an);
		if (fnmatch(acc->only_func, dp_strtab_get(dp_annotator_strings(a), an.function), 0))
			return;
	}
	/* right when the access decode claims overlaps the one that caused
	 * the event: Valgrind splits some accesses (a 32-byte vector load into
	 * two halves), the claim is the whole instruction's */
	uint64_t x_end = x->data_addr + (x->size ? x->size : 1),
		 t_end = t->addr + (t->size ? t->size : 1);
	bool right = x->data_addr < t_end && t->addr < x_end;

	if (!acc->samples++)
		acc->skid = t->skid;
	if (x->insn_ip) {
		acc->insn++;
		acc->insn_right += x->insn_ip == t->ip;
	}
	if (!claimed)
		return;
	acc->verified++;
	acc->verified_right += right;
	if (!right && acc->wrong_fn)
		acc->wrong_fn(acc->wrong_ctx, s, x, t->ip, t->addr, t->size);

	/* the object and member of the claimed address against those of the
	 * true one, through the same instruction */
	dp_annotation got, want;
	dp_decoded y = *x;

	dp_annotate(a, s, x, &got);
	y.data_addr = t->addr;
	y.insn_key = 0;
	dp_annotate(a, s, &y, &want);
	if (got.object) {
		acc->object++;
		acc->object_right += got.object == want.object;
	}
	if (got.member) {
		acc->member++;
		acc->member_right += got.member == want.member && got.object == want.object;
	}
}

int dp_sim_accuracy_run(const char *path, dp_sim_accuracy *acc, dp_error *err)
{
	dp_profile *p = dp_profile_open(path, err);
	truth_vec truths = {0};
	dp_hashmap by_sample;
	dp_decoder *d = NULL;
	dp_annotator *a = NULL;
	dp_record r;
	int rc = -1;

	void (*wrong_fn)(void *, const dp_sample *, const dp_decoded *, uint64_t, uint64_t,
			 uint32_t) = acc->wrong_fn;
	void *wrong_ctx = acc->wrong_ctx;
	const char *only_map = acc->only_map, *only_func = acc->only_func;

	memset(acc, 0, sizeof(*acc));
	acc->wrong_fn = wrong_fn;
	acc->wrong_ctx = wrong_ctx;
	acc->only_map = only_map;
	acc->only_func = only_func;
	if (!p)
		return -1;
	dp_hashmap_init(&by_sample, 1024);
	read_truths(p, &by_sample, &truths);
	if (!truths.n) {
		dp_error_set(err,
			     "'%s' holds no simulator truth: record it with -e sim:... "
			     "--sim-skid N",
			     path);
		goto out;
	}
	d = dp_decoder_open(p, NULL, err);
	if (!d)
		goto out;
	a = dp_annotator_open(d, p, err);
	if (!a)
		goto out;
	while (dp_profile_next(p, &r) > 0) {
		dp_decoded x;
		uint64_t i;

		if (r.kind != DP_R_SAMPLE || !dp_hashmap_get(&by_sample, r.offset, &i))
			continue;
		dp_decode_sample(d, r.sample, &x);
		score(acc, a, r.sample, &x, &truths.v[i]);
	}
	rc = 0;
out:
	if (a)
		dp_annotator_free(a);
	if (d)
		dp_decoder_free(d);
	dp_profile_close(p);
	dp_hashmap_free(&by_sample);
	dp_vec_free(&truths);
	return rc;
}
