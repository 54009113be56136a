/* decode/ against the fixtures' truth: every addressing mode on page faults
 * (the recomputed address must be the kernel's and the instruction the
 * fixture's), and data breakpoints on two dozen access patterns at -O0 and
 * -O2 (a wrong address must never be "verified"; precision and recall of
 * "verified" are reported). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode.h"
#include "decode_util.h"
#include "record_util.h"
#include "tu_group.h"
#include "tu_feature.h"
#include "util.h"

/* ---- addrmodes ---- */

typedef struct am_ctx {
	tu_truth *t;
	size_t n;
	bool *ok;
} am_ctx;

static void am_visit(void *ctx, const dp_sample *s, const dp_decoded *x)
{
	am_ctx *c = ctx;

	for (size_t i = 0; i < c->n; i++) {
		const tu_truth *t = &c->t[i];

		if (strcmp(t->kind, "access") || tu_truth_u64(t, "ip") != s->ip ||
		    tu_truth_u64(t, "addr") != s->addr)
			continue;
		if (x->verdict == DP_V_EXACT && x->has_computed && x->computed_addr == s->addr &&
		    x->insn_ip == s->ip)
			c->ok[i] = true;
		else
			printf("  %s: verdict %s (%s), computed %s%#llx, instruction %#llx\n",
			       tu_truth_get(t, "mode"), dp_verdict_name(x->verdict),
			       dp_reason_name(x->reason), x->has_computed ? "" : "nothing, ",
			       (unsigned long long)x->computed_addr,
			       (unsigned long long)x->insn_ip);
	}
}

static void test_addrmodes(void **state)
{
	const char *fixture = *state;
	char *prof = tu_path("am.dprof"), *fx = tu_fixture(fixture), *cmd = dp_asprintf("'%s'", fx);
	tu_result res;
	am_ctx c = {0};
	size_t accesses = 0, good = 0;

	/* --heap: the tracker reports the thread pointer, for the %fs: access */
	assert_int_equal(rec_run(&res, prof, "--heap -e page-faults", cmd), 0);
	c.n = tu_truth_parse(res.out, &c.t);
	c.ok = calloc(c.n, 1);
	rec_decode_each(prof, am_visit, &c);
	for (size_t i = 0; i < c.n; i++) {
		if (strcmp(c.t[i].kind, "access"))
			continue;
		accesses++;
		good += c.ok[i];
		if (!c.ok[i])
			printf("  %s (%s): not decoded to its address\n", tu_truth_get(&c.t[i], "mode"),
			       tu_truth_get(&c.t[i], "insn"));
	}
	char label[128];
	snprintf(label, sizeof(label), "%s: addressing modes recomputed == kernel address",
		 fixture);
	tu_report_accuracy(label, good, accesses, accesses);
	assert_true(accesses >= 30);
	assert_int_equal(good, accesses);
	free(c.ok);
	free(c.t);
	free(cmd);
	free(fx);
	free(prof);
	tu_result_free(&res);
}

/* ---- bpwatch ---- */

typedef struct bp_ctx {
	uint64_t lo, hi;
	size_t samples, verified, verified_right, unverifiable, unresolvable;
	uint64_t insn_ip, want_insn;
	size_t insn_right;
} bp_ctx;

static void bp_visit(void *ctx, const dp_sample *s, const dp_decoded *x)
{
	bp_ctx *c = ctx;

	if (s->addr != c->lo)
		return;
	c->samples++;
	c->insn_right += c->want_insn && x->insn_ip == c->want_insn;
	switch (x->verdict) {
	case DP_V_VERIFIED:
		c->verified++;
		/* right: the access it recomputed covers the watched bytes */
		c->verified_right += x->data_addr < c->hi && x->data_addr + DP_MAX(x->size, 1) > c->lo;
		break;
	case DP_V_UNVERIFIABLE:
		c->unverifiable++;
		break;
	default:
		c->unresolvable++;
	}
}

typedef struct totals {
	size_t verified, right, should_verify, did_verify, samples;
} totals;

static void check_pattern(const char *fixture, const tu_truth *t, totals *tot)
{
	char *prof = tu_path("bp.dprof"), *fx = tu_fixture(fixture), *opts, *cmd;
	const char *name = tu_truth_get(t, "name"), *expect = tu_truth_get(t, "expect");
	bp_ctx c = {0};
	tu_result res;

	c.lo = tu_truth_u64(t, "addr");
	c.hi = c.lo + tu_truth_u64(t, "len");
	c.want_insn = tu_truth_u64(t, "ip");
	opts = dp_asprintf("-e mem:0x%llx/%llu:rw", (unsigned long long)c.lo,
			   (unsigned long long)(c.hi - c.lo));
	cmd = dp_asprintf("'%s' %s", fx, name);
	assert_int_equal(rec_run(&res, prof, opts, cmd), 0);
	rec_decode_each(prof, bp_visit, &c);
	printf("%s %-18s expect %-12s: %2zu samples, verified %zu (right %zu), unverifiable %zu, "
	       "unresolvable %zu%s\n",
	       fixture, name, expect, c.samples, c.verified, c.verified_right, c.unverifiable,
	       c.unresolvable,
	       !c.want_insn || !strcmp(expect, "unresolvable") ? ""
	       : c.insn_right == c.samples			 ? ", instruction right"
								 : ", INSTRUCTION WRONG");
	tot->samples += c.samples;
	tot->verified += c.verified;
	tot->right += c.verified_right;
	if (!strcmp(expect, "verified")) {
		tot->should_verify += c.samples;
		tot->did_verify += c.verified_right;
	}
	/* never a wrong address called verified */
	assert_int_equal(c.verified_right, c.verified);
	if (!strcmp(expect, "unresolvable"))
		assert_int_equal(c.verified, 0);
	if (!strcmp(expect, "verified") || !strcmp(expect, "unverifiable"))
		assert_int_equal(c.insn_right, c.samples);
	tu_result_free(&res);
	free(opts);
	free(cmd);
	free(fx);
	free(prof);
}

static void test_bpwatch(void **state)
{
	const char *fixture = *state;
	tu_truth *t;
	size_t n;
	totals tot = {0};

	tu_require(DP_PROBE_BREAKPOINT);
	n = rec_fixture_list(fixture, &t);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].kind, "pattern"))
			check_pattern(fixture, &t[i], &tot);
	/* precision over every verified sample, C patterns included; recall over
	 * the patterns whose address a correct decoder can always verify */
	printf("ACCURACY %s: verified samples with the right address: precision %.1f%% "
	       "(%zu/%zu); recall %.1f%% (%zu/%zu verifiable samples)\n",
	       fixture, 100.0 * (double)tot.right / (double)(tot.verified ? tot.verified : 1),
	       tot.right, tot.verified,
	       100.0 * (double)tot.did_verify / (double)(tot.should_verify ? tot.should_verify : 1),
	       tot.did_verify, tot.should_verify);
	assert_int_equal(tot.right, tot.verified);              /* precision 100% */
	assert_true(tot.did_verify * 100 >= tot.should_verify * 95); /* recall >= 95% */
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    REC_FIXTURE_BUILDS(test_addrmodes, "addrmodes"),
	    REC_FIXTURE_BUILDS(test_bpwatch, "bpwatch"),
	};
	tu_require_program(DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT);
	return cmocka_run_group_tests(tests, NULL, tu_teardown);
}
