/* annotate/ against the fixtures' truth: each page fault the fixture says
 * it caused is attributed to the right data object (global, static, TLS,
 * stack variable, heap block by allocation site), member path, function
 * and line. Reports % correct per attribute; targets: objects 100%,
 * members >= 95% at -O2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annot_util.h"
#include "annotate/annotate.h"
#include "annotate/special.h"
#include "record_util.h"
#include "tu_group.h"
#include "tu_feature.h"
#include "util.h"

typedef struct obj_truth {
	const tu_truth *t;
} obj_truth;

typedef struct an_ctx {
	tu_truth *t;
	size_t n;
	const dp_strtab *strs;
	size_t accesses, seen, obj_ok, member_ok, func_ok, line_ok, caller_frame;
	bool verbose;
	bool *taken; /* each access by its first sample only (every access sampled) */
} an_ctx;

static const tu_truth *object_named(an_ctx *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->t[i].kind, "object") &&
		    !strcmp(tu_truth_get(&c->t[i], "name"), name))
			return &c->t[i];
	return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

static bool object_matches(an_ctx *c, const tu_truth *obj, const dp_annotation *a)
{
	const char *kind = tu_truth_get(obj, "kind"), *name = tu_truth_get(obj, "name");
	const char *got = dp_strtab_get(c->strs, a->object);
	char scoped[256];

	if (strcmp(kind, dp_object_kind_name(a->obj_kind)))
		return false;
	if (!strcmp(kind, "heap"))
		return !strcmp(dp_strtab_get(c->strs, a->site), tu_truth_get(obj, "site"));
	snprintf(scoped, sizeof(scoped), "::%s", name);
	return !strcmp(got, name) || ends_with(got, scoped);
}

/* the function holding the access: innermost where inlined */
static const char *innermost(an_ctx *c, const dp_annotation *a)
{
	const char *chain = dp_strtab_get(c->strs, a->inline_chain), *last = NULL;

	if (!a->inline_chain)
		return dp_strtab_get(c->strs, a->function);
	for (const char *q = chain; (q = strstr(q, " > ")); q += 3)
		last = q;
	return last ? last + 3 : chain;
}

/* "Ring<T, N>::push" and "Ring<double, 1022>::push" name one function */
static bool same_function(const char *a, const char *b)
{
	char x[256], y[256];
	const char *in[2] = {a, b};
	char *out[2] = {x, y};

	for (int k = 0; k < 2; k++) {
		size_t o = 0;
		int depth = 0;

		for (const char *p = in[k]; *p && o + 1 < sizeof(x); p++) {
			if (*p == '<')
				depth++;
			else if (*p == '>' && depth)
				depth--;
			else if (!depth)
				out[k][o++] = *p;
		}
		out[k][o] = 0;
	}
	return !strcmp(x, y);
}

static void visit(an_ctx *c, const dp_sample *s, const dp_decoded *x, const dp_annotation *a,
		  const char *program)
{
	/* the accesses are the program's own: a library touching the same page
	 * first (the loader clearing TLS) is not one of them */
	if (!x->map || strcmp(x->map->name, program))
		return;
	for (size_t i = 0; i < c->n; i++) {
		const tu_truth *t = &c->t[i];

		if (strcmp(t->kind, "access") || tu_truth_u64(t, "addr") != s->addr)
			continue;
		if (c->taken && c->taken[i])
			continue;
		if (c->taken)
			c->taken[i] = true;
		const tu_truth *obj = object_named(c, tu_truth_get(t, "object"));
		const char *member = tu_truth_get(t, "member"), *func = tu_truth_get(t, "func");
		bool o = obj && object_matches(c, obj, a);
		const char *ofunc = obj ? tu_truth_get(obj, "func") : NULL;

		/* a local of a caller reached through a pointer: only the sampled
		 * function's frame can be located from the sampled registers (the
		 * callers' frames need the stack's contents); counted apart */
		if (obj && !strcmp(tu_truth_get(obj, "kind"), "stack") && ofunc &&
		    !same_function(ofunc, innermost(c, a)) && a->obj_kind == DP_OBJ_STACK) {
			c->caller_frame++;
			c->accesses--;
			return;
		}
		/* a scalar's empty member path says nothing: its type is checked too */
		const char *type = tu_truth_get(t, "type");
		bool m = !strcmp(member, dp_strtab_get(c->strs, a->member)) &&
			 (!type || !strcmp(type, dp_strtab_get(c->strs, a->type)));
		bool f = !func || same_function(func, innermost(c, a));
		bool l = !tu_truth_get(t, "line") || tu_truth_u64(t, "line") == a->line_no;

		c->seen++;
		c->obj_ok += o;
		c->member_ok += m;
		c->func_ok += f;
		c->line_ok += l;
		if (c->verbose && (!o || !m || !f || !l))
			printf("  %s %s (%s:%s): got %s %s [%s] %s, %s line %u%s%s\n",
			       tu_truth_get(t, "object"), member, func ? func : "-",
			       tu_truth_get(t, "line") ? tu_truth_get(t, "line") : "-",
			       dp_object_kind_name(a->obj_kind), dp_strtab_get(c->strs, a->object),
			       dp_strtab_get(c->strs, a->site), dp_strtab_get(c->strs, a->member),
			       innermost(c, a), a->line_no, a->obj_reason ? " obj: " : "",
			       a->obj_reason	? dp_annot_reason_name(a->obj_reason)
			       : a->type_reason ? dp_annot_reason_name(a->type_reason)
						: "");
		return;
	}
}

/* Records the program (a fixture, or a copy of one at path) and checks
 * every access it reports. */
struct program_visit {
	an_ctx *c;
	const char *real;
};

static void visit_one(void *ctx, const rec_annotated *r)
{
	struct program_visit *v = ctx;

	v->c->strs = r->strs;
	visit(v->c, r->s, r->x, r->a, v->real);
}

/* The program at path recorded with opts (every access sampled, or only
 * those that fault: page-faults) against its truth: every access seen,
 * every object right, members right for min_member of them. */
static void check_program_with(const char *fixture, const char *path, double min_member,
			       const char *opts, bool every_access)
{
	char *prof = tu_path("objects.dprof"), *fx = strdup(path), *cmd = dp_asprintf("'%s'", fx);
	tu_result res;
	an_ctx c = {0};
	char label[128];

	char *real = realpath(path, NULL); /* the kernel names mappings so */
	struct program_visit v = {&c, real};

	assert_non_null(real);
	assert_int_equal(rec_run(&res, prof, opts, cmd), 0);
	c.n = tu_truth_parse(res.out, &c.t);
	if (every_access)
		c.taken = calloc(c.n, sizeof(*c.taken));
	for (size_t i = 0; i < c.n; i++)
		c.accesses += !strcmp(c.t[i].kind, "access");
	c.verbose = true;
	rec_annotate_each(prof, visit_one, &v);
	if (c.caller_frame)
		printf("%s: %zu accesses to a caller's stack frame attributed to [stack] only\n",
		       fixture, c.caller_frame);
	snprintf(label, sizeof(label), "%s data object", fixture);
	tu_report_accuracy(label, c.obj_ok, c.seen, c.accesses);
	snprintf(label, sizeof(label), "%s member path", fixture);
	tu_report_accuracy(label, c.member_ok, c.seen, c.accesses);
	snprintf(label, sizeof(label), "%s function", fixture);
	tu_report_accuracy(label, c.func_ok, c.seen, c.accesses);
	snprintf(label, sizeof(label), "%s line", fixture);
	tu_report_accuracy(label, c.line_ok, c.seen, c.accesses);
	assert_int_equal(c.seen, c.accesses);
	assert_int_equal(c.obj_ok, c.seen);
	assert_true((double)c.member_ok >= min_member * (double)c.seen);
	free(c.taken);
	free(c.t);
	free(cmd);
	free(fx);
	free(real);
	free(prof);
	tu_result_free(&res);
}

static void check_program(const char *fixture, const char *path, double min_member)
{
	check_program_with(fixture, path, min_member, "--heap -e page-faults", false);
}

/* The same under the simulator (sim: events, every memory access sampled),
 * whose heap records come from the Valgrind tool: allocation sites and
 * their types as the tracker's, past the same wrappers. */
static void test_truth_sim(void **state)
{
	const char *fixture = *state, *why;
	char *fx = tu_fixture(fixture), *label = dp_asprintf("%s (sim)", fixture);

	if (!rec_have_sim(&why)) {
		printf("SKIP %s: %s\n", label, why);
		free(label);
		free(fx);
		skip();
	}
	check_program_with(label, fx, 0.95, "--heap -e sim:stores -c 1", true);
	free(label);
	free(fx);
}

/* The fixture named by *state against its truth, members >= 95% right. */
static void test_truth(void **state)
{
	const char *fixture = *state;
	char *fx = tu_fixture(fixture);

	check_program(fixture, fx, 0.95);
	free(fx);
}

/* Debug info elsewhere than in the binary: the same answers. */
static void test_moved_debug(void **state)
{
	const char *how = *state;
	char *fx = tu_fixture("objects_O2"), *fx0 = tu_fixture("objects_O0");
	const char *dir = tu_tmpdir();
	char *prog = dp_asprintf("%s/%s/objects", dir, how);
	tu_result res;

	if (!strcmp(how, "debuglink")) {
		/* the DWARF in a separate file named by .gnu_debuglink beside it */
		tu_sh(
		    &res,
		    "set -e; d='%s/debuglink'; mkdir -p \"$d\"; cp '%s' \"$d/objects\"; cd \"$d\";"
		    "objcopy --only-keep-debug objects objects.debug;"
		    "objcopy --strip-debug --add-gnu-debuglink=objects.debug objects",
		    dir, fx);
	} else {
		/* dwz: the DWARF two programs share moved to a supplementary file
		 * (.gnu_debugaltlink) */
		tu_sh(&res,
		      "set -e; command -v dwz >/dev/null || exit 77; d='%s/dwz'; mkdir -p \"$d\";"
		      "cp '%s' \"$d/objects\"; cp '%s' \"$d/other\"; cd \"$d\";"
		      "dwz -m common.dwz -M \"$d/common.dwz\" objects other;"
		      "readelf -S objects | grep -q gnu_debugaltlink",
		      dir, fx, fx0);
		if (res.status == 77) {
			tu_result_free(&res);
			free(prog);
			free(fx);
			free(fx0);
			skip(); /* ./build.sh installs dwz */
		}
	}
	if (res.status)
		fprintf(stderr, "%s%s", res.out, res.err);
	assert_int_equal(res.status, 0);
	tu_result_free(&res);
	check_program(!strcmp(how, "dwz") ? "objects_O2 (dwz)" : "objects_O2 (debuglink)", prog,
		      0.95);
	free(prog);
	free(fx);
	free(fx0);
}

/* The allocator's own bookkeeping: the page faults glibc's malloc takes
 * writing the header of the rest of the top chunk (tests/fixtures/
 * allocator.c) lie outside every live block: object [allocator], kind
 * allocator, never a heap block nor a bare [heap]; the program's own
 * faults in its blocks stay the blocks'. (A fault of malloc's inside the
 * block it is about to return is the allocator's too: the block is not
 * the program's before malloc returns.) Needs glibc's symbols (libc6-dbg,
 * which Debian's valgrind package depends on) to tell its malloc from the
 * rest of libc. */
struct alloc_count {
	size_t in_alloc, named, wrong, own, own_ok;
};

static void count_alloc(void *ctx, const rec_annotated *r)
{
	struct alloc_count *c = ctx;
	const char *fn = dp_strtab_get(r->strs, r->a->function);

	if (r->a->obj_kind == DP_OBJ_ALLOCATOR && !dp_is_allocator_code(fn)) {
		printf("  [allocator] in %s at %#lx\n", fn, (unsigned long)r->x->data_addr);
		c->wrong++;
	}
	if (r->x->verdict != DP_V_EXACT || !r->x->data_addr)
		return;
	if (!strcmp(fn, "main")) {
		/* the program's touch of its own block */
		c->own++;
		c->own_ok += r->a->obj_kind == DP_OBJ_HEAP;
		return;
	}
	if (strcmp(fn, "_int_malloc") && strcmp(fn, "sysmalloc"))
		return;
	c->in_alloc++;
	if (r->a->obj_kind == DP_OBJ_ALLOCATOR &&
	    !strcmp(dp_strtab_get(r->strs, r->a->object), "[allocator]"))
		c->named++;
	else
		printf("  %s at %#lx: %s (%s)\n", fn, (unsigned long)r->x->data_addr,
		       dp_strtab_get(r->strs, r->a->object), dp_object_kind_name(r->a->obj_kind));
}

static void test_allocator(void **state)
{
	const char *fixture = *state;
	char *prof = tu_path("allocator.dprof"), *fx = tu_fixture(fixture);
	char *cmd = dp_asprintf("'%s' 200", fx);
	struct alloc_count c = {0};
	tu_truth *t = NULL;
	tu_result res;
	char label[128];

	assert_int_equal(rec_run(&res, prof, "--heap -e page-faults", cmd), 0);
	assert_int_equal(tu_truth_parse(res.out, &t), 200);
	free(t);
	tu_result_free(&res);
	rec_annotate_each(prof, count_alloc, &c);
	free(cmd);
	free(fx);
	free(prof);
	snprintf(label, sizeof(label), "%s malloc's own faults named [allocator]", fixture);
	tu_report_accuracy(label, c.named, c.in_alloc, c.in_alloc);
	printf("%s: %zu faults of the program's in its blocks, %zu on the block\n", fixture, c.own,
	       c.own_ok);
	assert_int_equal(c.wrong, 0);
	assert_true(c.own >= 200);
	assert_int_equal(c.own_ok, c.own);
	if (c.in_alloc == 0) {
		/* no glibc symbols here: malloc's code is not told apart */
		printf("SKIP: no sample in glibc's _int_malloc by name (libc6-dbg missing?)\n");
		return;
	}
	/* the 200 blocks, each with a fresh page past it */
	assert_true(c.in_alloc >= 150);
	assert_int_equal(c.named, c.in_alloc);
}

/* The samples of one loop of a fixture (IPs in [lo, hi], or in function
 * fn): how many, how many verified, how many outside known mappings, and
 * how many of the verified ones right() finds named as the fixture says. */
struct loop_count {
	uint64_t lo, hi;
	const char *fn;
	bool (*right)(const struct loop_count *c, const rec_annotated *r);
	uint64_t load, at, block; /* the fixture's truth, for right() */
	size_t in_loop, verified, outside, named;
};

static void count_loop(void *ctx, const rec_annotated *r)
{
	struct loop_count *c = ctx;

	if (c->fn ? !r->x->function || strcmp(r->x->function, c->fn)
		  : r->s->ip < c->lo || r->s->ip > c->hi)
		return;
	c->in_loop++;
	c->outside += r->x->reason == DP_RS_OUTSIDE_MAPPINGS;
	if (r->x->verdict != DP_V_VERIFIED)
		return;
	c->verified++;
	if (c->right(c, r))
		c->named++;
	else
		printf("  %#lx: %s %s (%s)\n", (unsigned long)r->x->data_addr,
		       dp_strtab_get(r->strs, r->a->object), dp_strtab_get(r->strs, r->a->type),
		       dp_object_kind_name(r->a->obj_kind));
}

/* A block glibc's realloc grew with mremap lies where the kernel recorded
 * no mapping: the cpu-clock samples of a load from it verify against the
 * heap tracker's record of the block instead (decode/maps.c), and are
 * named by it. They were all `address outside known mappings` (Lua's
 * string table: a tenth of its samples). */
static bool mremap_right(const struct loop_count *c, const rec_annotated *r)
{
	return r->x->insn_ip == c->load && r->x->data_addr == c->at &&
	       r->a->obj_kind == DP_OBJ_HEAP && r->a->obj_addr == c->block;
}

static void test_mremap_block(void **state)
{
	const char *fixture = *state;
	struct loop_count c = {.right = mremap_right};
	rec_truth_run r;
	char label[128];

	rec_fixture_truth(&r, fixture, "400", "--heap -e cpu-clock -F 2000", "mremap.dprof");
	assert_true(r.n >= 1);
	c.block = tu_truth_u64(&r.t[0], "addr");
	c.at = tu_truth_u64(&r.t[0], "at");
	c.lo = tu_truth_u64(&r.t[0], "loop");
	c.load = tu_truth_u64(&r.t[0], "load");
	c.hi = tu_truth_u64(&r.t[0], "end");
	rec_annotate_each(r.profile, count_loop, &c);
	snprintf(label, sizeof(label), "%s: samples of the loop verified, named by the block",
		 fixture);
	tu_report_accuracy(label, c.named, c.in_loop, c.in_loop);
	printf("%s: %zu samples in the loop, %zu verified, %zu outside known mappings\n", fixture,
	       c.in_loop, c.verified, c.outside);
	assert_true(c.in_loop >= 100);
	assert_int_equal(c.outside, 0);
	/* wherever the timer lands in the loop, the load is the one to verify */
	assert_true(c.verified * 100 >= c.in_loop * 90);
	assert_int_equal(c.named, c.verified);
	rec_truth_run_free(&r);
}

/* An exec ends every block of its process: the second image's page
 * faults over the first image's block, never unmapped, are not named by
 * it, while the first image's are (fixture execheap.c). */
struct exec_count {
	uint64_t lo, hi; /* the block */
	size_t first, first_named, second, second_named;
};

static void count_exec(void *ctx, const rec_annotated *r)
{
	struct exec_count *c = ctx;
	bool named = r->a->obj_kind == DP_OBJ_HEAP && r->a->obj_addr == c->lo;
	const char *fn;

	if (r->s->addr < c->lo || r->s->addr >= c->hi || !r->a->function)
		return;
	fn = dp_strtab_get(r->strs, r->a->function);
	if (!strcmp(fn, "touch_block")) {
		c->first++;
		c->first_named += named;
	} else if (!strcmp(fn, "touch_remap")) {
		c->second++;
		c->second_named += named;
	}
}

static void test_exec_ends_blocks(void **state)
{
	const char *fixture = *state;
	struct exec_count c = {0};
	const tu_truth *block = NULL, *remap = NULL;
	rec_truth_run r;

	rec_fixture_truth(&r, fixture, "", "--heap -e page-faults", "execheap.dprof");
	for (size_t i = 0; i < r.n; i++) {
		if (!strcmp(r.t[i].kind, "skip")) {
			printf("SKIP: %s\n", tu_truth_get(&r.t[i], "reason"));
			rec_truth_run_free(&r);
			skip();
		}
		if (!strcmp(r.t[i].kind, "block"))
			block = &r.t[i];
		if (!strcmp(r.t[i].kind, "remap"))
			remap = &r.t[i];
	}
	assert_non_null(block);
	assert_non_null(remap);
	c.lo = tu_truth_u64(block, "addr");
	c.hi = c.lo + tu_truth_u64(block, "size");
	assert_int_equal(tu_truth_u64(remap, "addr"), c.lo);
	rec_annotate_each(r.profile, count_exec, &c);
	tu_report_accuracy("execheap: the first image's page faults named by its block",
			   c.first_named, c.first, c.first);
	printf("execheap: the second image's page faults there: %zu, named by the first's block: "
	       "%zu\n",
	       c.second, c.second_named);
	assert_true(c.first >= 200);
	assert_true(c.first_named * 100 >= c.first * 95);
	assert_true(c.second >= 200);
	assert_int_equal(c.second_named, 0);
	rec_truth_run_free(&r);
}

/* A leaf's local in the red zone, below the stack pointer: the stack
 * variable it is, with its type. (An address below rsp was taken for one
 * 16 EiB above it, and named by the mapping: 5% of SQLite's memory
 * samples, pops and leaves' locals.) */
static bool redzone_right(const struct loop_count *c, const rec_annotated *r)
{
	(void)c;
	return r->a->obj_kind == DP_OBJ_STACK &&
	       !strcmp(dp_strtab_get(r->strs, r->a->object), "leaf::acc") &&
	       !strcmp(dp_strtab_get(r->strs, r->a->type), "double");
}

static void test_redzone(void **state)
{
	const char *fixture = *state;
	struct loop_count c = {.fn = "leaf", .right = redzone_right};
	rec_truth_run r;
	char label[128];

	rec_fixture_truth(&r, fixture, "300", "-e cpu-clock -F 2000", "redzone.dprof");
	rec_annotate_each(r.profile, count_loop, &c);
	snprintf(label, sizeof(label), "%s: the leaf's verified samples named leaf::acc, double",
		 fixture);
	tu_report_accuracy(label, c.named, c.verified, c.verified);
	printf("%s: %zu samples in the leaf, %zu verified\n", fixture, c.in_loop, c.verified);
	assert_true(c.in_loop >= 100);
	assert_true(c.verified * 4 >= c.in_loop);
	assert_int_equal(c.named, c.verified);
	rec_truth_run_free(&r);
}

/* A data address in one of the kernel's own mappings is named by it:
 * [vvar] (the clock data the vDSO reads), not [anon]. */
struct vvar_count {
	uint64_t addr;
	size_t seen, named;
};

static void count_vvar(void *ctx, const rec_annotated *r)
{
	struct vvar_count *v = ctx;

	if (r->s->addr != v->addr)
		return;
	v->seen++;
	v->named += r->a->obj_kind == DP_OBJ_MAPPING &&
		    !strcmp(dp_strtab_get(r->strs, r->a->object), "[vvar]");
}

static void test_kernel_mapping(void **state)
{
	char *prof = tu_path("vvar.dprof"), *fx = tu_fixture("vvar_O2");
	char *cmd = dp_asprintf("'%s'", fx);
	tu_truth *t = NULL;
	tu_result res;
	struct vvar_count v = {0};

	(void)state;
	assert_int_equal(rec_run(&res, prof, "-e page-faults", cmd), 0);
	assert_int_equal(tu_truth_parse(res.out, &t), 1);
	v.addr = tu_truth_u64(&t[0], "addr");
	rec_annotate_each(prof, count_vvar, &v);
	free(t);
	free(cmd);
	free(fx);
	free(prof);
	tu_result_free(&res);
	if (!v.seen) {
		/* a kernel that maps the page before the first touch */
		printf("SKIP: the first read of [vvar] took no page fault on this kernel\n");
		return;
	}
	assert_int_equal(v.named, v.seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    REC_FIXTURE_BUILDS(test_truth, "objects"),
	    REC_FIXTURE_BUILDS(test_truth, "objects_cxx"),
	    REC_CASE("test_objects_debuglink", test_moved_debug, "debuglink"),
	    REC_CASE("test_objects_dwz", test_moved_debug, "dwz"),
	    cmocka_unit_test(test_kernel_mapping),
	    REC_FIXTURE_BUILDS(test_allocator, "allocator"),
	    REC_FIXTURE_TEST(test_mremap_block, "mremap_O2"),
	    REC_FIXTURE_TEST(test_exec_ends_blocks, "execheap_O2"),
	    REC_FIXTURE_TEST(test_redzone, "redzone_O2"),
	    /* blocks allocated through wrappers nothing names (xmalloc and
	     * kin): their site is the wrapper's caller; functions that fill in
	     * the block or do more are the site themselves (fixture wrappers.c) */
	    REC_FIXTURE_BUILDS(test_truth, "wrappers"),
	    /* blocks touched through untyped pointers: typed by the pointers
	     * their allocation's result went to, and by the block a realloc
	     * grew (fixture alloc_types.c) */
	    REC_FIXTURE_BUILDS(test_truth, "alloc_types"),
	    REC_FIXTURE_TEST(test_truth_sim, "alloc_types_O2"),
	    REC_FIXTURE_TEST(test_truth_sim, "wrappers_O2"),
	};
	tu_require_program(DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT);
	return cmocka_run_group_tests(tests, NULL, tu_teardown);
}
