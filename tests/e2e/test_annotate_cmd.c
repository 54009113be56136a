/* dataprof annotate against the fixtures' truth: the instructions that
 * load and store a struct's members are annotated with exactly those
 * members (precision and recall over (instruction, member) pairs), every
 * line's samples are report --by line's (so the hottest line is report's),
 * the JSON validates against its schema, and bad input gets one line and a
 * non-zero exit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/annotate.h"
#include "annotate/sim_accuracy.h"
#include "record_util.h"
#include "tu_group.h"
#include "tu_feature.h"
#include "util.h"

typedef struct pair {
	uint64_t addr;
	char member[128];
} pair;

typedef DP_VEC(pair) pair_vec;

static bool has(const pair_vec *v, uint64_t addr, const char *member)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].addr == addr && (!member || !strcmp(v->v[i].member, member)))
			return true;
	return false;
}

static void add(pair_vec *v, uint64_t addr, const char *member)
{
	pair p = {.addr = addr};

	snprintf(p.member, sizeof(p.member), "%s", *member ? member : "-");
	if (has(v, addr, p.member))
		return;
	dp_vec_push(v, p);
}

/* The truth as (instruction, member) pairs: each access the fixture
 * reports, at the instruction decode finds for its page fault. */
static bool is_tls(const tu_truth *t, size_t nt, const char *object)
{
	for (size_t i = 0; i < nt; i++)
		if (!strcmp(t[i].kind, "object") && !strcmp(tu_truth_get(&t[i], "name"), object))
			return !strcmp(tu_truth_get(&t[i], "kind"), "tls");
	return false;
}

/* no_tls: perf.data keeps no thread pointer (fs base), so a TLS object cannot be
 * found there; its accesses are left out. */
static void truth_pairs(const char *prof, const char *program, tu_truth *t, size_t nt, bool no_tls,
			pair_vec *out)
{
	dp_error err;
	dp_profile *p = dp_profile_open(prof, &err);
	dp_decoder *d;
	dp_record r;

	assert_non_null(p);
	d = dp_decoder_open(p, NULL, &err);
	assert_non_null(d);
	while (dp_profile_next(p, &r) > 0) {
		dp_decoded x;

		if (r.kind != DP_R_SAMPLE)
			continue;
		dp_decode_sample(d, r.sample, &x);
		if (!x.map || strcmp(x.map->name, program) || !x.table)
			continue;
		for (size_t i = 0; i < nt; i++) {
			const char *m = tu_truth_get(&t[i], "member");

			if (strcmp(t[i].kind, "access") ||
			    tu_truth_u64(&t[i], "addr") != r.sample->addr)
				continue;
			if (no_tls && is_tls(t, nt, tu_truth_get(&t[i], "object")))
				break;
			add(out, x.insn_vaddr ? x.insn_vaddr : x.ip_vaddr, m ? m : "");
			break;
		}
	}
	dp_decoder_free(d);
	dp_profile_close(p);
}

/* annotate's (instruction, member) pairs on the program's instructions
 * against the truth the run printed (truth_text), and the JSON checks. */
static void check_members(const char *label, const char *prof, const char *truth_text,
			  const char *real, bool no_tls)
{
	pair_vec truth = {0}, got = {0};
	tu_truth *t = NULL;
	tu_result res;
	size_t nt, tp_claim = 0, claimed = 0, found = 0;
	char what[128];

	nt = tu_truth_parse(truth_text, &t);
	truth_pairs(prof, real, t, nt, no_tls, &truth);
	assert_true(truth.n > 10);

	tu_sh(&res,
	      "/usr/bin/python3 '%s/tests/schema/annotate_check.py' '%s' "
	      "'%s/docs/schema/annotate.schema.json' '%s'",
	      SOURCE_DIR, DATAPROF_BIN, SOURCE_DIR, prof);
	if (res.status)
		fprintf(stderr, "%s%s", res.out, res.err);
	assert_int_equal(res.status, 0);
	for (char *save = NULL, *l = strtok_r(res.out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char bin[4096];
		unsigned long long addr;
		int n = 0;

		if (!strncmp(l, "hottest ", 8) || !strncmp(l, "lines ", 6))
			printf("%s: %s\n", label, l);
		if (sscanf(l, "access %4095s 0x%llx %n", bin, &addr, &n) == 2 && n &&
		    !strcmp(bin, real))
			add(&got, addr, l + n);
	}
	/* precision over the instructions the truth covers: what else they
	 * are said to touch is wrong; recall over every true pair */
	for (size_t i = 0; i < got.n; i++)
		if (has(&truth, got.v[i].addr, NULL)) {
			claimed++;
			tp_claim += has(&truth, got.v[i].addr, got.v[i].member);
			if (!has(&truth, got.v[i].addr, got.v[i].member))
				printf("  0x%llx: annotated %s, not in the truth\n",
				       (unsigned long long)got.v[i].addr, got.v[i].member);
		}
	for (size_t i = 0; i < truth.n; i++) {
		bool ok = has(&got, truth.v[i].addr, truth.v[i].member);

		found += ok;
		if (!ok)
			printf("  0x%llx: truth %s, not annotated\n",
			       (unsigned long long)truth.v[i].addr, truth.v[i].member);
	}
	printf("%s: %zu (instruction, member) pairs in the truth, %zu annotated on them\n", label,
	       truth.n, claimed);
	/* pairs are sets: a right claim is a true pair found (tp_claim == found) */
	snprintf(what, sizeof(what), "%s annotate (instruction, member) pairs", label);
	tu_report_accuracy(what, tp_claim, claimed, truth.n);
	/* test_annotate asks members >= 95% of samples at -O2: the same here */
	assert_true((double)tp_claim >= 0.95 * (double)claimed);
	assert_true((double)found >= 0.95 * (double)truth.n);
	tu_result_free(&res);
	dp_vec_free(&truth);
	dp_vec_free(&got);
	free(t);
}

static void test_members_objects_O2(void **state)
{
	char *fx = tu_fixture("objects_O2"), *real = realpath(fx, NULL);
	char *prof = tu_path("annot.dprof"), *cmd = dp_asprintf("'%s'", fx);
	tu_result res;

	(void)state;
	assert_non_null(real);
	assert_int_equal(rec_run(&res, prof, "--heap -e page-faults", cmd), 0);
	check_members("objects_O2", prof, res.out, real, false);
	tu_result_free(&res);

	/* a function by name */
	tu_sh(&res, "'%s' annotate -i '%s' 'main' -n 1 | grep -c '^== main '", DATAPROF_BIN, prof);
	assert_int_equal(res.status, 0);
	tu_result_free(&res);
	free(cmd);
	free(prof);
	free(real);
	free(fx);
}

/* The same from perf record's perf.data (no heap tracking there: heap
 * blocks are [heap]/[anon], members still from the construct table). */
static void test_members_perf_data(void **state)
{
	char *fx = tu_fixture("objects_O2"), *real = realpath(fx, NULL);
	char *prof = tu_path("annot.perf");
	tu_result res;

	(void)state;
	assert_non_null(real);
	if (tu_sh(&res, "perf record -q -N -e page-faults -o /dev/null -- true") != 0) {
		printf("perf cannot record here: %s", res.err);
		tu_result_free(&res);
		free(prof);
		free(real);
		free(fx);
		skip();
	}
	tu_result_free(&res);
	tu_sh(
	    &res,
	    "perf record -q -N -e page-faults -c 1 -d --user-regs=ax,bx,cx,dx,si,di,bp,sp,ip,flags,"
	    "r8,r9,r10,r11,r12,r13,r14,r15 -o '%s' -- '%s'",
	    prof, fx);
	assert_int_equal(res.status, 0);
	check_members("objects_O2 (perf.data)", prof, res.out, real, true);
	tu_result_free(&res);
	free(prof);
	free(real);
	free(fx);
}

/* annotate ARGS (from fmt): one line on stderr, naming the problem (says),
 * and a non-zero exit */
static void bad(const char *says, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(const char *says, const char *fmt, ...)
{
	tu_result res;
	char *args;

	REC_VFORMAT(args, fmt);
	tu_sh(&res, "'%s' annotate %s", DATAPROF_BIN, args);
	printf("annotate %s -> %d: %s", args, res.status, res.err);
	assert_int_not_equal(res.status, 0);
	assert_non_null(strstr(res.err, says));
	assert_non_null(strchr(res.err, '\n'));
	assert_null(strchr(strchr(res.err, '\n') + 1, '\n'));
	tu_result_free(&res);
	free(args);
}

static void test_bad_input(void **state)
{
	char *prof = rec_fixture("objects_O2", "", "-e page-faults", "bad.dprof");

	(void)state;
	bad("no_such_function*", "-i '%s' 'no_such_function*'", prof);
	bad("where", "-i '%s' --where 'object=('", prof);
	bad("/nonexistent/annot.dprof", "-i /nonexistent/annot.dprof");
	bad("-M", "-i '%s' -M arm", prof);
	bad("nosuch.c:0", "-i '%s' nosuch.c:0", prof);
	free(prof);
}

/* A time event (no data address from the hardware; the IP counts when no
 * instruction is found): the lines are report's, and split's two members
 * come out on the loads that touch them, .hot above .warm. */
static void test_cpu_clock_split(void **state)
{
	char *prof;
	tu_result res;
	double hot = 0, warm = 0;

	(void)state;
	tu_require(DP_PROBE_CPU_CLOCK);
	prof = rec_fixture("split_O2", "800", "-e cpu-clock -F 4000", "split.dprof");
	tu_sh(&res,
	      "/usr/bin/python3 '%s/tests/schema/annotate_check.py' '%s' "
	      "'%s/docs/schema/annotate.schema.json' '%s' | grep -v '^access'",
	      SOURCE_DIR, DATAPROF_BIN, SOURCE_DIR, prof);
	printf("%s%s", res.out, res.err);
	assert_int_equal(res.status, 0);
	tu_result_free(&res);
	tu_sh(&res,
	      "'%s' annotate -i '%s' --json -n 1000 | /usr/bin/python3 -c \"import json,sys\n"
	      "m={}\nfor f in json.load(sys.stdin)['functions']:\n"
	      " for i in f['instructions']:\n  for a in i['accesses']:\n"
	      "   m[a['member']]=m.get(a['member'],0)+a['samples']\n"
	      "print(m.get('struct rec.hot',0), m.get('struct rec.warm',0))\"",
	      DATAPROF_BIN, prof);
	assert_int_equal(res.status, 0);
	assert_int_equal(sscanf(res.out, "%lf %lf", &hot, &warm), 2);
	printf("split_O2, cpu-clock: struct rec.hot %.0f samples, .warm %.0f\n", hot, warm);
	assert_true(warm > 0 && hot > warm);
	tu_result_free(&res);
	free(prof);
}

/* annotate count_slots of prof with --source-dir dir/sub: it must succeed */
static void annotate_source_dir(tu_result *res, const char *prof, const char *dir, const char *sub,
				unsigned strip)
{
	tu_sh(res, "'%s' annotate -i '%s' count_slots --source-dir '%s/%s' --prefix-strip %u",
	      DATAPROF_BIN, prof, dir, sub, strip);
	assert_int_equal(res->status, 0);
}

/* A moved tree: --source-dir with --prefix-strip finds the source; a
 * wrong one gives the assembly with one line saying which path failed. */
static void test_source_dir(void **state)
{
	char *prof = rec_fixture("objects_O2", "", "-e page-faults", "moved.dprof");
	const char *dir = tu_tmpdir();
	unsigned strip = 1; /* the "tests" component below the source tree */
	tu_result res;

	(void)state;
	for (const char *p = SOURCE_DIR; *p; p++)
		strip += *p == '/' && p[1] && p[1] != '/';
	tu_sh(
	    &res,
	    "mkdir -p '%s/moved/fixtures' && cp '%s/tests/fixtures/objects.c' '%s/moved/fixtures/'",
	    dir, SOURCE_DIR, dir);
	assert_int_equal(res.status, 0);
	tu_result_free(&res);
	annotate_source_dir(&res, prof, dir, "moved", strip);
	assert_non_null(strstr(res.out, "static long count_slots(uintptr_t base"));
	assert_null(strstr(res.out, "assembly only"));
	tu_result_free(&res);
	annotate_source_dir(&res, prof, dir, "nowhere", strip);
	assert_null(strstr(res.out, "static long count_slots(uintptr_t base"));
	assert_non_null(strstr(res.out, "nowhere/fixtures/objects.c: No such file"));
	assert_non_null(strstr(res.out, "movq")); /* the assembly is there */
	tu_result_free(&res);
	free(prof);
}

/* A program built by clang, which writes no .debug_aranges by default: with
 * elfutils before 0.191 (Debian 12's 0.188) libdwfl finds no unit for its
 * addresses, and annotate found its functions' source lines through the
 * units' own ranges (dp_image_cu) and their full paths (dp_code_path). */
static void test_clang_source(void **state)
{
	char *bin = tu_path("objects_clang"), *prof = tu_path("clang.dprof");
	char *cmd = dp_asprintf("'%s'", bin);
	tu_result res;

	(void)state;
	if (tu_sh(&res, "clang --version") != 0) {
		tu_result_free(&res);
		free(bin), free(prof), free(cmd);
		printf("SKIP: no clang (./build.sh test installs it)\n");
		skip();
	}
	tu_result_free(&res);
	assert_int_equal(
	    tu_sh(&res, "clang -O2 -g -o '%s' '%s/tests/fixtures/objects.c'", bin, SOURCE_DIR), 0);
	tu_result_free(&res);
	/* the case: no .debug_aranges */
	tu_sh(&res, "readelf -S '%s' | grep -c debug_aranges", bin);
	assert_string_equal(res.out, "0\n");
	tu_result_free(&res);
	assert_int_equal(rec_run(&res, prof, "-e page-faults", cmd), 0);
	tu_result_free(&res);
	tu_sh(&res, "'%s' annotate -i '%s' main -n 1", DATAPROF_BIN, prof);
	assert_int_equal(res.status, 0);
	/* main's own source text, read from the path DWARF gives */
	assert_non_null(strstr(res.out, "prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);"));
	assert_null(strstr(res.out, "assembly only"));
	tu_result_free(&res);
	free(bin);
	free(prof);
	free(cmd);
}

/* A real program: lua5.4's table lookups (luaH_get*, with Debian's -dbg
 * package for its types) on the simulator with one instruction of skid,
 * so that each sample has the truth. The instructions that touch memory
 * are annotated with members of Table, Node and TValue (and the key's
 * TString.hash); against the truth, the member paths annotate gives
 * luaH_get*'s verified samples must be right (precision printed). */
static void test_lua_table_lookups(void **state)
{
	char *prof = tu_path("lua_annot.dprof");
	dp_sim_accuracy a;
	dp_error err = {{0}};
	tu_result res;
	unsigned long mem = 0, member = 0, typed = 0, insns = 0, table = 0, node = 0;

	(void)state;
	if (tu_sh(&res, "command -v lua5.4 && dpkg -s liblua5.4-0-dbg") != 0) {
		printf("SKIP lua5.4 with liblua5.4-0-dbg: not installed (./build.sh test installs "
		       "it)\n");
		tu_result_free(&res);
		free(prof);
		skip();
	}
	tu_result_free(&res);
	assert_int_equal(
	    tu_sh(&res,
		  "'%s' record -q --heap -e sim:l1d-miss -c 500 --sim-skid 1 -o '%s' -- "
		  "lua5.4 '%s/tests/fixtures/tables.lua' 20000",
		  DATAPROF_BIN, prof, SOURCE_DIR),
	    0);
	tu_result_free(&res);

	/* per instruction of luaH_get*: its verified samples, those with a
	 * member, those whose member is of Table, Node or TValue */
	tu_sh(
	    &res,
	    "'%s' annotate -i '%s' 'luaH_get*' --json | /usr/bin/python3 -c \"import json,sys\n"
	    "T=('struct Table.','union Node.','struct TValue.','union Value.')\n"
	    "n=[0]*6\nfor f in json.load(sys.stdin)['functions']:\n"
	    " for i in f['instructions']:\n"
	    "  v=i['verdicts'].get('verified',0)+i['verdicts'].get('exact',0)\n"
	    "  m=sum(a['samples'] for a in i['accesses'] if a['member'])\n"
	    "  t=sum(a['samples'] for a in i['accesses'] if (a['member'] or '').startswith(T))\n"
	    "  n[0]+=v;n[1]+=m;n[2]+=t;n[3]+=t>0\n"
	    "  n[4]+=any((a['member'] or '').startswith('struct Table.') for a in i['accesses'])\n"
	    "  n[5]+=any((a['member'] or '').startswith('union Node.') for a in i['accesses'])\n"
	    "  if m: print(f['name'],i['addr'],i['samples'],', '.join('%%s "
	    "%%d'%%(a['member'],a['samples']) "
	    "for a in i['accesses'] if a['member']),file=sys.stderr)\n"
	    "print(*n)\"",
	    DATAPROF_BIN, prof);
	printf("%s", res.err);
	assert_int_equal(res.status, 0);
	assert_int_equal(sscanf(res.out, "%lu %lu %lu %lu %lu %lu", &mem, &member, &typed, &insns,
				&table, &node),
			 6);
	printf("lua5.4 luaH_get*: %lu verified samples, %lu with a member (%.1f%%), %lu of those "
	       "on Table/Node/TValue (%.1f%%), on %lu instructions\n",
	       mem, member, 100.0 * (double)member / (double)mem, typed,
	       100.0 * (double)typed / (double)member, insns);
	tu_result_free(&res);
	assert_true(mem >= 300);
	assert_true(member * 10 >= mem * 9);
	assert_true(typed * 10 >= member * 9);
	assert_true(insns >= 3 && table >= 1 && node >= 1);

	/* the truth: the member of the true address through the same instruction */
	memset(&a, 0, sizeof(a));
	a.only_func = "luaH_get*";
	assert_int_equal(dp_sim_accuracy_run(prof, &a, &err), 0);
	tu_report_accuracy("lua5.4 luaH_get* member path (annotate vs the simulator's truth)",
			   (size_t)a.member_right, (size_t)a.member, (size_t)a.samples);
	assert_true(a.member >= 300);
	/* decode's known gaps on lua (test_sim's skid 1 test) are outside these functions */
	assert_true(a.member_right * 1000 >= a.member * 999);
	free(prof);
}

TU_MAIN_AFTER(tu_require_program(DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT), NULL, tu_teardown,
	      test_members_objects_O2, test_members_perf_data, test_bad_input, test_source_dir,
	      test_clang_source, test_cpu_clock_split, test_lua_table_lookups)
