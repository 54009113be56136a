/* Profiles recorded by perf record on this machine go through the same
 * decode, annotate and report as dataprof's own, with the same answers:
 * page faults on the objects fixture (objects and member paths against its
 * truth), data breakpoints (verified addresses), and cpu-clock on the
 * 70/30 member split. Exit 77 (skipped) where perf cannot record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annot_util.h"
#include "annotate/annotate.h"
#include "record_util.h"
#include "tu_group.h"
#include "tu_feature.h"
#include "util.h"

#define REGS "--user-regs=ax,bx,cx,dx,si,di,bp,sp,ip,flags,r8,r9,r10,r11,r12,r13,r14,r15"

/* perf record (no build-id cache left behind); the target's stdout in
 * res->out; rings of 4 MiB a CPU where allowed, as rec_run's */
static int perf_rec(tu_result *res, const char *out, const char *opts, const char *cmd)
{
	return tu_sh(res, "perf record -q -N %s %s " REGS " -o '%s' -- %s",
		     geteuid() == 0 ? "-m 1024" : "", opts, out, cmd);
}

/* The truth of objects_O2 and how many of its accesses perf's samples got right. */
typedef struct attr_ctx {
	tu_truth *t;
	size_t n, seen, obj_ok, member_ok, nonheap;
} attr_ctx;

static void attr_visit(void *ctx, const rec_annotated *r)
{
	attr_ctx *c = ctx;
	tu_truth *t = c->t;

	if (!r->x->map || !strstr(r->x->map->name, "objects_O2"))
		return;
	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(t[i].kind, "access") || tu_truth_u64(&t[i], "addr") != r->s->addr)
			continue;
		const char *oname = tu_truth_get(&t[i], "object");
		const tu_truth *obj = NULL;
		for (size_t k = 0; k < c->n; k++)
			if (!strcmp(t[k].kind, "object") &&
			    !strcmp(tu_truth_get(&t[k], "name"), oname))
				obj = &t[k];
		c->seen++;
		c->member_ok +=
		    !strcmp(tu_truth_get(&t[i], "member"), dp_strtab_get(r->strs, r->a->member));
		/* perf records no heap blocks: heap objects are [heap]/[anon] */
		if (obj && strcmp(tu_truth_get(obj, "kind"), "heap") &&
		    strcmp(tu_truth_get(obj, "kind"), "stack")) {
			const char *got = dp_strtab_get(r->strs, r->a->object);
			size_t gl = strlen(got), ol = strlen(oname);
			c->nonheap++;
			c->obj_ok +=
			    !strcmp(got, oname) || (gl > ol + 2 && !strcmp(got + gl - ol, oname) &&
						    got[gl - ol - 1] == ':');
		}
		break;
	}
}

static void test_objects_page_faults(void **state)
{
	char *prof = tu_path("objects.perf"), *fx = tu_fixture("objects_O2"), *cmd = dp_asprintf("'%s'", fx);
	tu_result res;
	attr_ctx c = {0};

	(void)state;
	assert_int_equal(perf_rec(&res, prof, "-e page-faults -c 1 -d", cmd), 0);
	c.n = tu_truth_parse(res.out, &c.t);
	rec_annotate_each(prof, attr_visit, &c);
	tu_report_accuracy("perf.data page faults: member path", c.member_ok, c.seen, c.seen);
	tu_report_accuracy("perf.data page faults: global/static/TLS object", c.obj_ok, c.nonheap,
			   c.nonheap);
	assert_true(c.seen >= 150);
	assert_true(c.member_ok * 100 >= c.seen * 95);
	/* TLS needs the thread pointer, which only dataprof's heap tracker records */
	assert_true(c.obj_ok + 2 >= c.nonheap);
	free(c.t);
	free(cmd);
	free(fx);
	free(prof);
	tu_result_free(&res);
}

static void test_breakpoint_verified(void **state)
{
	char *prof, *fx, *cmd, *opts;
	uint64_t addr;
	tu_result res;
	dp_error err;
	dp_record r;
	size_t at = 0, verified = 0;

	(void)state;
	tu_require(DP_PROBE_BREAKPOINT);
	prof = tu_path("watch.perf");
	fx = tu_fixture("watch_O2");
	cmd = dp_asprintf("'%s' 10 5", fx);
	addr = tu_elf_symbol(fx, "watched", NULL);
	opts = dp_asprintf("-e mem:0x%llx/8:rw -c 1 -d", (unsigned long long)addr);
	assert_int_equal(perf_rec(&res, prof, opts, cmd), 0);
	dp_profile *p = dp_profile_open(prof, &err);
	dp_decoder *d = dp_decoder_open(p, NULL, &err);
	while (dp_profile_next(p, &r) > 0) {
		dp_decoded x;

		/* user space only: perf also watches the kernel (the ELF loader
		 * zeroing the end of .data's page, which holds the variable) */
		if (r.kind != DP_R_SAMPLE || r.sample->addr != addr ||
		    (r.sample->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)
			continue;
		dp_decode_sample(d, r.sample, &x);
		at++;
		verified += x.verdict == DP_V_VERIFIED && x.data_addr == addr;
	}
	printf("perf.data breakpoint: %zu samples at the address, %zu verified there\n", at, verified);
	assert_int_equal(at, 15);
	assert_int_equal(verified, 15);
	dp_decoder_free(d);
	dp_profile_close(p);
	free(opts);
	free(cmd);
	free(fx);
	free(prof);
	tu_result_free(&res);
}

static void test_cpu_clock_split(void **state)
{
	char *prof = tu_path("split.perf"), *fx = tu_fixture("split_O2"), *cmd = dp_asprintf("'%s' 800", fx);
	tu_result res;
	double hot = 0, warm = 0;

	(void)state;
	assert_int_equal(perf_rec(&res, prof, "-e cpu-clock -F 4000", cmd), 0);
	tu_result_free(&res);
	assert_int_equal(tu_sh(&res, "'%s' report -i '%s' --by member --where "
				     "'member~\"struct rec.*\"' --json | /usr/bin/python3 -c \"import json,sys; "
				     "d=json.load(sys.stdin); [print(r['key']['member'], r['percent_total']) "
				     "for r in d['rows']]\"",
			       DATAPROF_BIN, prof),
			 0);
	char *l = strstr(res.out, "struct rec.hot ");
	if (l)
		hot = atof(l + 15);
	l = strstr(res.out, "struct rec.warm ");
	if (l)
		warm = atof(l + 16);
	printf("perf.data cpu-clock: struct rec.hot %.1f%%, struct rec.warm %.1f%% (70/30)\n", hot, warm);
	assert_true(hot > 64 && hot < 76);
	assert_true(warm > 24 && warm < 36);
	tu_result_free(&res);
	free(cmd);
	free(fx);
	free(prof);
}

/* every test compares with what perf itself records: skipped without it */
static void require_perf(void)
{
	tu_result res;

	tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT);
	if (tu_sh(&res, "perf record -q -N -e page-faults -o /dev/null -- true") != 0) {
		printf("perf cannot record here: %s", res.err);
		exit(77);
	}
	tu_result_free(&res);
}

TU_MAIN_AFTER(require_perf(), NULL, tu_teardown, test_objects_page_faults, test_breakpoint_verified,
	      test_cpu_clock_split)
