/* Branch stacks (record -b, annotate's hottest ranges) against truth found
 * outside dataprof: a profile whose samples carry branch stacks built from
 * the loops fixture's real branches (objdump's disassembly, addr2line's
 * lines) must give exactly the ranges, counts, instruction counts and
 * lines that follow from them; perf's real LBR file must give the branch
 * counts perf script reads from it; and record -b on a machine without
 * LBR must fail with one line saying so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataprof/profile.h"
#include "profile/writer.h"
#include "record_util.h"
#include "tu_group.h"
#include "sampler/branch_stack.h"
#include "tu_feature.h"
#include "util.h"

#define ID   7
#define PID  4242
#define BASE 0x400000ull /* the fixture is not PIE: mapped where linked */

typedef struct insn {
	uint64_t addr, target;
	char mn[16];
} insn;

typedef DP_VEC(insn) insn_vec;

/* fn's instructions as objdump disassembles them. */
static void disassemble(const char *bin, const char *fn, insn_vec *out)
{
	tu_result res;

	assert_int_equal(
	    tu_sh(&res, "objdump -d --no-show-raw-insn --disassemble=%s '%s'", fn, bin), 0);
	for (char *save = NULL, *l = strtok_r(res.out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		insn in = {0};
		char op[64] = "";

		if (sscanf(l, " %" SCNx64 ":\t%15s %63s", &in.addr, in.mn, op) < 2)
			continue;
		if (in.mn[0] == 'j')
			in.target = strtoull(op, NULL, 16);
		dp_vec_push(out, in);
	}
	tu_result_free(&res);
	assert_true(out->n > 3);
}

/* The loop's back edge: the conditional jump to an earlier instruction. */
static const insn *back_edge(const insn_vec *v)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].mn[0] == 'j' && strcmp(v->v[i].mn, "jmp") &&
		    v->v[i].target < v->v[i].addr && v->v[i].target >= v->v[0].addr)
			return &v->v[i];
	fail_msg("no backward conditional jump");
	return NULL;
}

/* The loops fixture's two loops: their functions' instructions and back
 * edges. */
typedef struct loops {
	insn_vec so, cb; /* sum_odd, count_bits */
	const insn *ea, *eb;
} loops;

static void loops_read(const char *bin, loops *l)
{
	memset(l, 0, sizeof(*l));
	disassemble(bin, "sum_odd", &l->so);
	disassemble(bin, "count_bits", &l->cb);
	l->ea = back_edge(&l->so);
	l->eb = back_edge(&l->cb);
}

static unsigned insns_between(const insn_vec *v, uint64_t a, uint64_t b)
{
	unsigned n = 0;

	for (size_t i = 0; i < v->n; i++)
		n += v->v[i].addr >= a && v->v[i].addr <= b;
	return n;
}

static bool unconditional_between(const insn_vec *v, uint64_t a, uint64_t b)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].addr >= a && v->v[i].addr < b &&
		    (!strcmp(v->v[i].mn, "jmp") || !strncmp(v->v[i].mn, "call", 4) ||
		     !strncmp(v->v[i].mn, "ret", 3)))
			return true;
	return false;
}

/* "loops.c:14": addr2line's line of addr, by the file's base name. */
static void line_of(const char *bin, uint64_t addr, char *buf, size_t len)
{
	tu_result res;
	char *nl, *base;

	assert_int_equal(tu_sh(&res, "addr2line -e '%s' 0x%" PRIx64, bin, addr), 0);
	nl = strpbrk(res.out, " \n");
	if (nl)
		*nl = 0;
	base = strrchr(res.out, '/');
	snprintf(buf, len, "%s", base ? base + 1 : res.out);
	tu_result_free(&res);
}

/* "loops.c:12-14", as annotate prints a range's lines (one file here). */
static void lines_of(const char *bin, uint64_t a, uint64_t b, char *buf, size_t len)
{
	char la[256], lb[256];

	line_of(bin, a, la, sizeof(la));
	line_of(bin, b, lb, sizeof(lb));
	int n = !strcmp(la, lb) ? snprintf(buf, len, "%s", la)
				: snprintf(buf, len, "%s-%s", la, strchr(lb, ':') + 1);

	/* a cut name would compare wrong silently */
	if (n < 0 || (size_t)n >= len)
		fail_msg("lines %s and %s: longer than %zu bytes", la, lb, len);
}

typedef struct writer {
	dp_writer w;
	struct perf_event_attr a;
	uint64_t time;
} writer;

static void open_profile(writer *pw, const char *prof, const char *bin)
{
	uint64_t id = ID;
	dp_error err;

	memset(&pw->a, 0, sizeof(pw->a));
	pw->a.size = sizeof(pw->a);
	pw->a.type = PERF_TYPE_HARDWARE;
	pw->a.config = PERF_COUNT_HW_CPU_CYCLES;
	pw->a.sample_period = 100000;
	pw->a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			    PERF_SAMPLE_BRANCH_STACK;
	pw->a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	pw->a.sample_id_all = 1;
	pw->time = 1000;
	assert_int_equal(dp_writer_open(&pw->w, prof, 1, 1, &err), 0);
	dp_writer_add_event(&pw->w, 0, "cycles:u", &pw->a, DP_IP_AFTER, DP_EVC_TIME, &id, 1);
	rec_write_exec_mmap(&pw->w, PID, BASE, 0x10000, bin, ID);
}

/* One sample at ip with branch stack br (newest first). */
static void sample(writer *pw, uint64_t ip, const struct perf_branch_entry *br, uint64_t nr)
{
	struct {
		struct perf_event_header h;
		uint64_t id, ip;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t period, nr;
	} s = {{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0},
	       ID,
	       ip,
	       PID,
	       PID,
	       pw->time++,
	       0,
	       0,
	       100000,
	       nr};
	dp_buf b = {0};

	s.h.size = (uint16_t)(sizeof(s) + nr * sizeof(*br));
	dp_buf_add(&b, &s, sizeof(s));
	dp_buf_add(&b, br, nr * sizeof(*br));
	dp_writer_add(&pw->w, b.p, b.len);
	dp_buf_free(&b);
}

static struct perf_branch_entry edge(uint64_t from, uint64_t to)
{
	struct perf_branch_entry e;

	memset(&e, 0, sizeof(e));
	e.from = from;
	e.to = to;
	return e;
}

/* n samples at back edge e's branch, each with a stack of depth
 * executions of it: depth - 1 loop bodies. */
static void loop_samples(writer *pw, const insn *e, int n, int depth)
{
	struct perf_branch_entry br[16];

	for (int k = 0; k < n; k++) {
		for (int i = 0; i < depth; i++)
			br[i] = edge(e->addr, e->target);
		sample(pw, e->addr, br, (uint64_t)depth);
	}
}

/* n samples at a's back edge whose stack has b's before it: a range from
 * one function into another. */
static void crossing_samples(writer *pw, const insn *a, const insn *b, int n)
{
	struct perf_branch_entry br[2];

	for (int k = 0; k < n; k++) {
		br[0] = edge(a->addr, a->target);
		br[1] = edge(b->addr, b->target);
		sample(pw, a->addr, br, 2);
	}
}

/* A loop's body: objdump's instruction at end jumps to start. */
static bool is_loop(const insn_vec *v, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].addr == end)
			return v->v[i].target == start;
	return false;
}

/* One row of annotate's ranges table, as it must read: the executions of
 * [start, end] in v, its share of total, objdump's instructions in it,
 * addr2line's lines. */
static void expect_row(const char *out, uint64_t n, uint64_t total, const insn_vec *v,
		       uint64_t start, uint64_t end, const char *lines, const char **at)
{
	char span[64], row[512];
	const char *p;

	snprintf(span, sizeof(span), "%" PRIx64 "-%" PRIx64, start, end);
	snprintf(row, sizeof(row), "   %10" PRIu64 " %5.1f%% %6u  %-29s %s%s\n", n,
		 100.0 * (double)n / (double)total, insns_between(v, start, end), span, lines,
		 is_loop(v, start, end) ? "  (loop body)" : "");
	p = strstr(out, row);
	if (!p)
		fail_msg("annotate has no row\n%s", row);
	if (at) {
		assert_true(p > *at); /* hottest first */
		*at = p;
	}
}

static void test_ranges_truth(void **state)
{
	char *bin = tu_fixture("loops_O0"), *prof = tu_path("loops.dprof");
	insn_vec so = {0}, cb = {0};
	const insn *ea, *eb, *fwd = NULL;
	struct perf_branch_entry br[16];
	writer pw;
	tu_result res;
	char la[256], lb[256], lc[256], ld[256], expect[256];
	const char *at;
	uint64_t crossing = 0, broken = 0, n_entry = 0;
	bool entry_broken;

	(void)state;
	disassemble(bin, "sum_odd", &so);
	disassemble(bin, "count_bits", &cb);
	ea = back_edge(&so);
	eb = back_edge(&cb);
	/* sum_odd's if: a forward conditional jump inside the loop's body */
	for (size_t i = 0; i < so.n; i++)
		if (so.v[i].mn[0] == 'j' && strcmp(so.v[i].mn, "jmp") &&
		    so.v[i].addr > ea->target && so.v[i].addr < ea->addr &&
		    so.v[i].target > so.v[i].addr && so.v[i].target <= ea->addr)
			fwd = &so.v[i];
	assert_non_null(fwd);
	printf("sum_odd: back edge %" PRIx64 "->%" PRIx64 ", if %" PRIx64 "->%" PRIx64
	       "; count_bits: back edge %" PRIx64 "->%" PRIx64 "\n",
	       ea->addr, ea->target, fwd->addr, fwd->target, eb->addr, eb->target);

	open_profile(&pw, prof, bin);
	/* A: 30 samples of 8 back edges of sum_odd: 7 loop bodies each */
	loop_samples(&pw, ea, 30, 8);
	/* B: 20 samples of 4 back edges of count_bits: 3 each */
	loop_samples(&pw, eb, 20, 4);
	/* C: 10 samples alternating sum_odd's if (taken) and back edge, newest
	 * first: back edge, if, back edge, if, back edge, if: 3 ranges from
	 * the if's target to the back edge, 2 from the loop top to the if */
	for (int k = 0; k < 10; k++) {
		for (int i = 0; i < 6; i++)
			br[i] = i % 2 ? edge(fwd->addr, fwd->target) : edge(ea->addr, ea->target);
		sample(&pw, ea->addr, br, 6);
	}
	/* D: 5 samples from count_bits' back edge into sum_odd's: across
	 * functions, left out */
	crossing_samples(&pw, ea, eb, 5);
	crossing += 5;
	/* E: 4 samples that enter sum_odd at its first instruction and leave by
	 * the back edge: straight code only if nothing unconditional lies
	 * between (at -O0 a jump to the loop's test does) */
	entry_broken = unconditional_between(&so, so.v[0].addr, ea->addr);
	for (int k = 0; k < 4; k++) {
		br[0] = edge(ea->addr, ea->target);
		br[1] = edge(0x401000, so.v[0].addr); /* from wherever: only its target counts */
		sample(&pw, ea->addr, br, 2);
		if (entry_broken)
			broken++;
		else
			n_entry++;
	}
	assert_int_equal(dp_writer_close(&pw.w), 0);

	uint64_t na = 30 * 7, nb = 20 * 3, nc1 = 10 * 3, nc2 = 10 * 2;
	uint64_t total = na + nb + nc1 + nc2 + n_entry;

	assert_int_equal(tu_sh(&res, "'%s' annotate -i '%s' -n 5,10", DATAPROF_BIN, prof), 0);
	printf("%s", res.out);
	lines_of(bin, ea->target, ea->addr, la, sizeof(la));
	lines_of(bin, eb->target, eb->addr, lb, sizeof(lb));
	lines_of(bin, fwd->target, ea->addr, lc, sizeof(lc));
	lines_of(bin, ea->target, fwd->addr, ld, sizeof(ld));
	/* sum_odd first (more samples): its loop body, then the if's two halves */
	at = res.out;
	expect_row(res.out, na, total, &so, ea->target, ea->addr, la, &at);
	expect_row(res.out, nc1, total, &so, fwd->target, ea->addr, lc, &at);
	expect_row(res.out, nc2, total, &so, ea->target, fwd->addr, ld, &at);
	expect_row(res.out, nb, total, &cb, eb->target, eb->addr, lb, &at);
	/* the back edges' ranges are loop bodies, the if's halves are not */
	assert_non_null(strstr(res.out, "  (loop body)\n"));
	assert_false(is_loop(&so, fwd->target, ea->addr) || is_loop(&so, ea->target, fwd->addr));
	snprintf(expect, sizeof(expect),
		 "# branch stacks: %d samples, %d branches; %" PRIu64
		 " straight-line range executions (left out: 0 in no binary, %" PRIu64
		 " across functions, %" PRIu64 " not straight code)\n",
		 30 + 20 + 10 + 5 + 4, 30 * 8 + 20 * 4 + 10 * 6 + 5 * 2 + 4 * 2, total, crossing,
		 broken);
	if (!strstr(res.out, expect))
		fail_msg("annotate's summary is not\n%s", expect);
	tu_result_free(&res);

	/* --where keeps the stacks of the samples it keeps: count_bits' 20 */
	assert_int_equal(
	    tu_sh(&res, "'%s' annotate -i '%s' --where 'function=count_bits'", DATAPROF_BIN, prof),
	    0);
	snprintf(expect, sizeof(expect),
		 "# branch stacks: 20 samples, 80 branches; %" PRIu64
		 " straight-line range executions\n",
		 nb);
	if (!strstr(res.out, expect))
		fail_msg("annotate --where's summary is not\n%s", expect);
	expect_row(res.out, nb, nb, &cb, eb->target, eb->addr, lb, NULL);
	tu_result_free(&res);

	/* -n 1,1: sum_odd alone, its hottest range alone */
	assert_int_equal(tu_sh(&res, "'%s' annotate -i '%s' -n 1,1", DATAPROF_BIN, prof), 0);
	snprintf(expect, sizeof(expect),
		 "hottest ranges (straight code between taken branches): 1 of %d\n",
		 3 + (n_entry > 0));
	assert_non_null(strstr(res.out, expect));
	expect_row(res.out, na, total, &so, ea->target, ea->addr, la, NULL);
	assert_null(strstr(res.out, "count_bits"));
	tu_result_free(&res);

	/* the JSON: valid against its schema, the same counts */
	assert_int_equal(
	    tu_sh(&res,
		  "'%s' annotate -i '%s' --json > '%s.json' && /usr/bin/python3 -c "
		  "\"import json,jsonschema,sys; d=json.load(open(sys.argv[1])); "
		  "jsonschema.validate(d, json.load(open(sys.argv[2]))); "
		  "r=[(x['start'],x['end'],x['executions'],x['instructions'],x['loop']) for f in "
		  "d['functions'] for x in f['ranges']]; print(d['branch_stacks']); "
		  "print(r)\" '%s.json' '%s/docs/schema/annotate.schema.json'",
		  DATAPROF_BIN, prof, prof, prof, SOURCE_DIR),
	    0);
	printf("%s%s", res.out, res.err);
	snprintf(expect, sizeof(expect),
		 "('0x%" PRIx64 "', '0x%" PRIx64 "', %" PRIu64 ", %u, True)", ea->target, ea->addr,
		 na, insns_between(&so, ea->target, ea->addr));
	assert_non_null(strstr(res.out, expect));
	snprintf(expect, sizeof(expect),
		 "'ranges': %" PRIu64 ", 'unmapped': 0, 'crossing': %" PRIu64, total, crossing);
	assert_non_null(strstr(res.out, expect));
	tu_result_free(&res);

	/* the viewer's annotate pane: the same ranges per function as annotate
	 * --json, and the same total they are shares of */
	assert_int_equal(
	    tu_sh(
		&res,
		"'%s' view -i '%s' -o '%s.html' && /usr/bin/python3 -c \"import json,re,sys; "
		"a=json.load(open(sys.argv[1])); p=open(sys.argv[2]).read(); "
		"d=json.loads(re.search(r'id=.dp-data.>(.*?)</script>', p, re.S).group(1)); "
		"S=d['strings']; v=d['annotate']; "
		"A={f['name']: [(int(x['start'],16),int(x['end'],16),x['executions'],"
		"x['instructions'],x['lines'] or '',x['loop']) for x in f['ranges']] "
		"for f in a['functions'] if f['ranges']}; "
		"V={S[f['name']]: [(x[0],x[1],x[2],x[3],S[x[4]],bool(x[5])) for x in f['ranges']] "
		"for f in v['functions'] if f['ranges']}; "
		"print('view', v['ranges'], sorted(V.items())); print('annotate', "
		"a['branch_stacks']['ranges'], sorted(A.items())); "
		"sys.exit(0 if V == A and v['ranges'] == a['branch_stacks']['ranges'] and V "
		"else 1)\" '%s.json' '%s.html'",
		DATAPROF_BIN, prof, prof, prof, prof),
	    0);
	printf("%s", res.out);
	tu_result_free(&res);
	/* the page, for view_browser's check of the pane in a real browser */
	if (getenv("DP_RANGES_PAGE")) {
		assert_int_equal(tu_sh(&res,
				       "mkdir -p \"$(dirname \"$DP_RANGES_PAGE\")\" && "
				       "cp '%s.html' \"$DP_RANGES_PAGE\"",
				       prof),
				 0);
		tu_result_free(&res);
	}
	dp_vec_free(&so);
	dp_vec_free(&cb);
	free(bin);
	free(prof);
}

/* annotate and view --jobs: the ranges counted in parts add up to those of
 * one pass, the same listing and page byte for byte. 80 rounds of three
 * kinds of stacks in turn (5,280 samples): each of 4 parts takes chunks of
 * 1024 (report/part.c) with all three kinds in each. */
static void test_ranges_any_jobs(void **state)
{
	char *bin = tu_fixture("loops_O0"), *prof = tu_path("loops_jobs.dprof");
	static const char *const cmds[] = {"annotate -n 5,10", "annotate --json", "view -o -"};
	loops l;
	writer pw;

	(void)state;
	loops_read(bin, &l);
	open_profile(&pw, prof, bin);
	for (int round = 0; round < 80; round++) {
		loop_samples(&pw, l.ea, 30, 8);
		loop_samples(&pw, l.eb, 20, 4);
		crossing_samples(&pw, l.ea, l.eb, 16);
	}
	assert_int_equal(dp_writer_close(&pw.w), 0);
	for (size_t c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++) {
		tu_result one, four;

		assert_int_equal(
		    tu_sh(&one, "'%s' %s --jobs 1 -i '%s'", DATAPROF_BIN, cmds[c], prof), 0);
		assert_int_equal(
		    tu_sh(&four, "'%s' %s --jobs 4 -i '%s'", DATAPROF_BIN, cmds[c], prof), 0);
		if (strcmp(one.out, four.out))
			fail_msg("%s: --jobs 1 and 4 differ", cmds[c]);
		/* and the counts are all the samples' */
		if (c == 0 &&
		    !strstr(one.out, "# branch stacks: 5280 samples, 28160 branches; 21600 "
				     "straight-line range executions (left out: 0 in no binary, "
				     "1280 across functions, 0 not straight code)"))
			fail_msg("annotate's summary is not that of every sample:\n%.600s",
				 one.out);
		tu_result_free(&one);
		tu_result_free(&four);
	}
	dp_vec_free(&l.so);
	dp_vec_free(&l.cb);
	free(bin);
	free(prof);
}

/* perf's real LBR profile (perf record --call-graph lbr): every sample's
 * branch stack is read, as perf script reads them; its entries are calls
 * (a call stack), so no ranges come from them, and annotate says why. */
typedef DP_VEC(uint64_t) u64_vec;

/* Every FROM/TO pair of text, in order: perf script -F brstack's lines, or
 * dump -b's samples (the words after mark). */
static void brstack_pairs(const char *text, const char *mark, u64_vec *out)
{
	char *copy = dp_strdup(text);

	for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *p = *mark ? strstr(l, mark) : l;
		unsigned long long from, to;
		int n;

		if (!p)
			continue;
		if (*mark)
			p = strchr(p + strlen(mark), ' '); /* past the count */
		while (p && sscanf(p, " 0x%llx/0x%llx%n", &from, &to, &n) == 2) {
			dp_vec_push(out, from);
			dp_vec_push(out, to);
			p = strchr(p + n, ' ');
			while (p && *p == ' ' && p[1] == ' ')
				p++;
		}
	}
	free(copy);
}

static void test_perf_lbr_file(void **state)
{
	char *data = tu_data_path("perf-data/perfparser-vector_static_gcc.lbr.data");
	unsigned long long samples = 0, entries = 0;
	u64_vec perf_pairs = {0}, dump_pairs = {0};
	tu_result res, dump;
	char expect[256];

	(void)state;
	if (tu_sh(&res,
		  "perf script -i '%s' -F brstack 2>/dev/null | awk 'NF { s++; n += NF } END "
		  "{ print s + 0, n + 0 }'",
		  data) ||
	    sscanf(res.out, "%llu %llu", &samples, &entries) != 2 || !samples) {
		tu_result_free(&res);
		free(data);
		skip();
	}
	tu_result_free(&res);
	printf("perf script: %llu samples with a branch stack, %llu branches\n", samples, entries);
	/* dump -b: every entry, in order, as perf script reads it */
	assert_int_equal(tu_sh(&res, "perf script -i '%s' -F brstack 2>/dev/null", data), 0);
	assert_int_equal(tu_sh(&dump, "'%s' dump -b '%s'", DATAPROF_BIN, data), 0);
	brstack_pairs(res.out, "", &perf_pairs);
	brstack_pairs(dump.out, " brstack ", &dump_pairs);
	assert_int_equal(perf_pairs.n, 2 * entries); /* a from and a to each */
	assert_int_equal(dump_pairs.n, perf_pairs.n);
	assert_memory_equal(dump_pairs.v, perf_pairs.v, perf_pairs.n * sizeof(perf_pairs.v[0]));
	tu_result_free(&res);
	tu_result_free(&dump);
	dp_vec_free(&perf_pairs);
	dp_vec_free(&dump_pairs);
	assert_int_equal(tu_sh(&res, "'%s' annotate -i '%s'", DATAPROF_BIN, data), 0);
	printf("%s", res.out);
	snprintf(expect, sizeof(expect),
		 "# branch stacks: %llu samples, %llu branches; 0 straight-line range "
		 "executions; %llu samples' stacks are filtered",
		 samples, entries, samples);
	assert_non_null(strstr(res.out, expect));
	tu_result_free(&res);
	free(data);
}

/* record -b where the PMU has no branch stack: one line naming why, exit
 * 125; where it has one, the profile's samples carry their stacks. */
static void test_record_branch_any(void **state)
{
	char *prof = tu_path("b.dprof"), *bin = tu_fixture("loops_O0"), why[128];
	tu_result res;

	(void)state;
	tu_sh(&res, "'%s' record -b -o '%s' -- '%s' 100000", DATAPROF_BIN, prof, bin);
	printf("record -b -> %d: %s", res.status, res.err);
	if (dp_branch_stack_supported(why, sizeof(why)) && !tu_have(DP_PROBE_BRANCH_STACK, NULL)) {
		/* it opens, but gives no stack: a PMU that half passes through */
		printf("record -b: branch stacks open here but the probe saw none\n");
	} else if (!dp_branch_stack_supported(why, sizeof(why))) {
		assert_int_equal(res.status, 125);
		assert_non_null(strstr(res.err, "branch stacks are not supported by this "
						"machine's PMU (no LBR"));
		assert_non_null(strstr(res.err, "record without -b"));
		assert_ptr_equal(strchr(res.err, '\n'), res.err + strlen(res.err) - 1);
	} else {
		dp_error err;
		dp_profile *p;
		dp_record r;
		uint64_t with = 0;

		assert_int_equal(res.status, 0);
		p = dp_profile_open(prof, &err);
		assert_non_null(p);
		while (dp_profile_next(p, &r) > 0)
			with += r.kind == DP_R_SAMPLE && r.sample->branch_nr > 0;
		dp_profile_close(p);
		assert_true(with > 0);
	}
	tu_result_free(&res);
	/* filters: perf's words, and one line for a wrong one */
	tu_sh(&res, "'%s' record -j any,u,bogus -- true", DATAPROF_BIN);
	assert_int_equal(res.status, 125);
	assert_non_null(strstr(res.err, "unknown branch filter 'bogus'"));
	tu_result_free(&res);
	free(prof);
	free(bin);
}

static void test_filter_words(void **state)
{
	uint64_t m;
	dp_error err;
	char buf[128];

	(void)state;
	assert_int_equal(dp_branch_filter_parse("any,u", &m, &err), 0);
	assert_int_equal(m, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER);
	/* privilege levels alone: every branch at those levels, as perf */
	assert_int_equal(dp_branch_filter_parse("u", &m, &err), 0);
	assert_int_equal(m, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER);
	assert_int_equal(dp_branch_filter_parse("call,cond,stack", &m, &err), 0);
	assert_int_equal(m, PERF_SAMPLE_BRANCH_CALL | PERF_SAMPLE_BRANCH_COND |
				PERF_SAMPLE_BRANCH_CALL_STACK);
	dp_branch_filter_name(m, buf, sizeof(buf));
	assert_string_equal(buf, "cond,call,stack");
	assert_int_equal(dp_branch_filter_parse("any,nope", &m, &err), -1);
	assert_non_null(strstr(err.msg, "'nope'"));
	assert_int_equal(dp_branch_filter_parse(",", &m, &err), -1);
}

TU_MAIN(NULL, tu_teardown, test_ranges_truth, test_ranges_any_jobs, test_perf_lbr_file,
	test_record_branch_any, test_filter_words)
