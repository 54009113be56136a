/* decode/ on real kernel samples: recomputed addresses against the kernel's
 * page-fault addresses, skid of cpu-clock samples, and binaries that are
 * stripped, missing, replaced, or never were files (JIT). */
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

/* ---- page faults: the recomputed address is the kernel's ---- */

typedef struct pf_ctx {
	uint64_t lo, hi; /* the fixture's region */
	size_t in_region, computed, agree, exact;
	size_t all_compared, all_agree;
} pf_ctx;

static void pf_visit(void *ctx, const dp_sample *s, const dp_decoded *x, dp_decoder *d)
{
	pf_ctx *c = ctx;

	(void)s;
	(void)d;
	if (x->has_hw && x->has_computed && x->verdict == DP_V_EXACT) {
		c->all_compared++;
		c->all_agree += x->hw_agrees;
		if (!x->hw_agrees)
			fprintf(stderr, "disagree: ip %#lx %s computed %#lx hw %#lx\n",
				(unsigned long)x->ip, x->function ? x->function : "?",
				(unsigned long)x->computed_addr, (unsigned long)x->hw_addr);
	}
	if (!x->has_hw || x->hw_addr < c->lo || x->hw_addr >= c->hi)
		return;
	c->in_region++;
	c->exact += x->verdict == DP_V_EXACT;
	c->computed += x->has_computed;
	c->agree += x->has_computed && x->computed_addr == x->hw_addr;
}

static void check_pagetouch(const char *binary, const char *label)
{
	char *prof = tu_path("pf.dprof"), *cmd = dp_asprintf("'%s' 64", binary);
	tu_result res;
	tu_truth *t;
	size_t n;
	pf_ctx c = {0};

	assert_int_equal(rec_run(&res, prof, "-e page-faults", cmd), 0);
	n = tu_truth_parse(res.out, &t);
	assert_true(n > 0);
	c.lo = tu_truth_u64(&t[0], "start");
	c.hi = c.lo + tu_truth_u64(&t[0], "size");
	rec_decode_each_with(prof, pf_visit, &c, NULL, NULL);
	tu_report_accuracy(label, c.agree, c.computed, c.in_region);
	printf("%s: every decodable page fault of the process: %zu/%zu computed addresses equal "
	       "the kernel's\n",
	       label, c.all_agree, c.all_compared);
	assert_int_equal(c.in_region, 64);
	assert_int_equal(c.exact, 64);
	assert_int_equal(c.computed, 64);
	assert_int_equal(c.agree, 64);
	assert_int_equal(c.all_agree, c.all_compared);
	free(t);
	free(cmd);
	free(prof);
	tu_result_free(&res);
}

static void test_page_fault_truth(void **state)
{
	char *o0 = tu_fixture("pagetouch_O0"), *o2 = tu_fixture("pagetouch_O2");

	(void)state;
	check_pagetouch(o0, "pagetouch_O0 recomputed == kernel address");
	check_pagetouch(o2, "pagetouch_O2 recomputed == kernel address");
	free(o0);
	free(o2);
}

/* A stripped binary still decodes: .eh_frame bounds its functions. */
static void test_stripped_binary(void **state)
{
	char *fx = tu_fixture("pagetouch_O2"), *copy = tu_path("pagetouch_stripped");
	tu_result res;

	(void)state;
	assert_int_equal(tu_sh(&res, "cp '%s' '%s' && strip '%s'", fx, copy, copy), 0);
	tu_result_free(&res);
	check_pagetouch(copy, "stripped pagetouch_O2");
	free(fx);
	free(copy);
}

/* ---- skid: cpu-clock samples of a pointer chase resolve to the chasing load ---- */

typedef struct chase_ctx {
	uint64_t lo, hi, load;
	size_t in_loop, to_load, verified_wrong;
} chase_ctx;

static void chase_visit(void *ctx, const dp_sample *s, const dp_decoded *x, dp_decoder *d)
{
	chase_ctx *c = ctx;

	(void)d;
	if (s->ip < c->lo || s->ip > c->hi)
		return;
	c->in_loop++;
	c->to_load += x->insn_ip == c->load;
	/* the load overwrites its own base: its address can never be verified */
	c->verified_wrong += x->verdict == DP_V_VERIFIED;
}

static void test_skid_pointer_chase(void **state)
{
	rec_truth_run r;
	chase_ctx c = {0};

	(void)state;
	rec_fixture_truth(&r, "chase_O2", "600", "-e cpu-clock -F 2000", "chase.dprof");
	assert_true(r.n >= 1);
	c.lo = tu_truth_u64(&r.t[0], "start");
	c.hi = tu_truth_u64(&r.t[0], "end");
	c.load = tu_truth_u64(&r.t[0], "load");
	rec_decode_each_with(r.profile, chase_visit, &c, NULL, NULL);
	tu_report_accuracy("cpu-clock in the chase loop resolved to the chasing load", c.to_load,
			   c.in_loop, c.in_loop);
	assert_true(c.in_loop > 300);
	assert_true(c.to_load * 100 >= c.in_loop * 95);
	assert_int_equal(c.verified_wrong, 0);
	rec_truth_run_free(&r);
}

/* ---- binaries that are gone, changed, or never were ---- */

typedef struct why_ctx {
	uint64_t lo, hi;
	size_t in_binary, with_reason, exact_in_region;
	dp_reason reason;
	const char *path;
} why_ctx;

static void why_visit(void *ctx, const dp_sample *s, const dp_decoded *x, dp_decoder *d)
{
	why_ctx *c = ctx;

	(void)d;
	(void)s;
	if (x->map && !strcmp(x->map->name, c->path)) {
		c->in_binary++;
		/* without the binary an instruction fetch is still told apart by its address */
		c->with_reason += x->reason == c->reason || x->reason == DP_RS_IFETCH;
	}
	if (x->has_hw && x->hw_addr >= c->lo && x->hw_addr < c->hi)
		c->exact_in_region += x->verdict == DP_V_EXACT && x->data_addr == x->hw_addr;
}

static void check_broken_binary(const char *how, dp_reason reason, const char *want_msg)
{
	char *fx = tu_fixture("pagetouch_O2"), *copy = tu_path("victim"),
	     *prof = tu_path("broken.dprof"), *cmd = dp_asprintf("'%s' 16", copy);
	char *other = tu_fixture("spin_O2");
	tu_result res;
	tu_truth *t;
	why_ctx c = {0};
	dp_decoder *d;
	dp_profile *p;
	const dp_image_problem *pr;
	size_t np, found = 0;

	/* perf's build-id cache (~/.debug) may hold a copy of the binary: keep
	 * this test's decoding from finding one there */
	setenv("HOME", tu_tmpdir(), 1);

	assert_int_equal(tu_sh(&res, "cp '%s' '%s'", fx, copy), 0);
	tu_result_free(&res);
	assert_int_equal(rec_run(&res, prof, "-e page-faults", cmd), 0);
	assert_true(tu_truth_parse(res.out, &t) >= 1);
	c.lo = tu_truth_u64(&t[0], "start");
	c.hi = c.lo + tu_truth_u64(&t[0], "size");
	tu_result_free(&res);
	if (!strcmp(how, "missing"))
		tu_sh(&res, "rm '%s'", copy);
	else
		tu_sh(&res, "cp '%s' '%s'", other, copy);
	tu_result_free(&res);
	c.reason = reason;
	c.path = copy;
	rec_decode_each_with(prof, why_visit, &c, &d, &p);
	printf("%s binary: %zu samples in it, %zu with the reason '%s'; %zu exact data addresses "
	       "kept\n",
	       how, c.in_binary, c.with_reason, dp_reason_name(reason), c.exact_in_region);
	assert_true(c.in_binary >= 16);
	assert_int_equal(c.with_reason, c.in_binary);
	/* the hardware's data addresses do not depend on the binary */
	assert_int_equal(c.exact_in_region, 16);
	np = dp_decoder_problems(d, &pr);
	for (size_t i = 0; i < np; i++)
		if (strstr(pr[i].message, want_msg) && pr[i].samples == c.in_binary)
			found++;
	assert_int_equal(found, 1);
	dp_decoder_free(d);
	dp_profile_close(p);
	free(t);
	free(fx);
	free(copy);
	free(prof);
	free(cmd);
	free(other);
}

static void test_missing_binary(void **state)
{
	(void)state;
	check_broken_binary("missing", DP_RS_NO_BINARY, "not found");
}

static void test_changed_binary(void **state)
{
	(void)state;
	check_broken_binary("changed", DP_RS_BUILD_ID, "build-id differs");
}

typedef struct jit_ctx {
	uint64_t code;
	size_t in_jit, exact_no_mapping;
} jit_ctx;

static void jit_visit(void *ctx, const dp_sample *s, const dp_decoded *x, dp_decoder *d)
{
	jit_ctx *c = ctx;

	(void)d;
	if (s->ip != c->code)
		return;
	c->in_jit++;
	c->exact_no_mapping +=
	    x->verdict == DP_V_EXACT && x->reason == DP_RS_NO_MAPPING && x->insn < 0;
}

static void test_jit_code(void **state)
{
	rec_truth_run r;
	jit_ctx c = {0};

	(void)state;
	rec_fixture_truth(&r, "jit_O2", "8", "-e page-faults", "jit.dprof");
	assert_true(r.n >= 1);
	c.code = tu_truth_u64(&r.t[0], "code");
	rec_decode_each_with(r.profile, jit_visit, &c, NULL, NULL);
	printf("JIT code: %zu page faults from it, %zu exact with 'no mapping' as the reason\n",
	       c.in_jit, c.exact_no_mapping);
	assert_int_equal(c.in_jit, 8); /* the code page itself is written first, by memcpy */
	assert_int_equal(c.exact_no_mapping, c.in_jit);
	rec_truth_run_free(&r);
}

static void test_dump_decoded(void **state)
{
	char *prof = rec_fixture("pagetouch_O2", "8", "-e page-faults", "dump.dprof");
	tu_result res;

	(void)state;
	assert_int_equal(tu_sh(&res, "'%s' dump --decoded '%s'", DATAPROF_BIN, prof), 0);
	tu_assert_contains(res.out, "main+0x", "(agrees) exact", "# verdicts per event", NULL);
	assert_null(strstr(res.out, "DIFFERS"));
	tu_result_free(&res);
	free(prof);
}

TU_MAIN_AFTER(tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT), NULL,
	      tu_teardown, test_page_fault_truth, test_stripped_binary, test_skid_pointer_chase,
	      test_missing_binary, test_changed_binary, test_jit_code, test_dump_decoded)
