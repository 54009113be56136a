/* The truth the fixtures print is itself true: checked against real kernel
 * samples with what exists before decode and annotate (dataprof record and
 * the profile reader).
 *
 * addrmodes: each access is a page-faults sample at its address, with the
 *   IP of its instruction, and the address recomputed from the sampled
 *   registers (from before the access) and the printed instruction text is
 *   the printed address.
 * bpwatch: each pattern, watched alone, gives exactly its count of
 *   breakpoint samples at its address, with the IP it says the trap gives;
 *   recomputing the address from the registers after the access gives the
 *   printed one where it says "verified" and another where it says
 *   "unverifiable".
 * objects, objects_cxx: each access printed as a page fault is a
 *   page-faults sample at its address, from the fixture's own code. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_util.h"
#include "tu_group.h"
#include "tu_feature.h"
#include "util.h"

/* ---- the effective address of an AT&T instruction, from registers ---- */

static int reg_index(const char *name, size_t len)
{
	static const char *const names[] = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp"};

	for (int i = 0; i < 8; i++)
		if (len == 3 && !strncmp(name, names[i], 3))
			return i; /* PERF_REG_X86_AX.. in this order */
	if (len >= 2 && name[0] == 'r' && isdigit((unsigned char)name[1])) {
		int n = atoi(name + 1);
		if (n >= 8 && n <= 15)
			return 16 + (n - 8); /* PERF_REG_X86_R8.. */
	}
	return -1;
}

static bool reg_value(const dp_regs *r, const char *name, size_t len, uint64_t *v)
{
	int i = reg_index(name, len);

	if (i < 0 || !(r->mask & (1ull << i)))
		return false;
	*v = r->regs[i];
	return true;
}

typedef enum { EA_OK, EA_SEGMENT, EA_BAD } ea_status;

/* The address of insn's memory operand (the last one: a string move's
 * destination), with rip = next_ip as during execution. EA_SEGMENT: the
 * operand is fs/gs-relative (the segment base is not sampled). */
static ea_status insn_ea(const char *insn, const dp_regs *r, uint64_t next_ip, uint64_t *ea)
{
	char buf[128], *ops, *mem = NULL, *p;
	uint64_t base = 0, index = 0, scale = 1, disp = 0;
	bool neg = false;

	snprintf(buf, sizeof(buf), "%s", insn);
	ops = buf;
	while (!strncmp(ops, "lock ", 5) || !strncmp(ops, "rep ", 4))
		ops = strchr(ops, ' ') + 1;
	if (!strncmp(ops, "push ", 5) || !strncmp(ops, "pop ", 4)) {
		if (!reg_value(r, "rsp", 3, &base))
			return EA_BAD;
		*ea = ops[1] == 'u' ? base - 8 : base;
		return EA_OK;
	}
	bool movabs = !strncmp(ops, "movabs ", 7);
	ops = strchr(ops, ' ');
	if (!ops)
		return EA_BAD;
	ops++;
	/* operands: split at commas outside parentheses, keep the last memory one */
	for (char *tok = ops; *tok;) {
		char *end = tok;
		int depth = 0;

		for (; *end && (depth || *end != ','); end++)
			depth += *end == '(' ? 1 : *end == ')' ? -1 : 0;
		bool last = !*end;
		*end = 0;
		if (strchr(tok, '(') || !strncmp(tok, "%fs:", 4) || !strncmp(tok, "%gs:", 4) ||
		    (movabs && *tok != '%' && *tok != '$'))
			mem = tok;
		if (last)
			break;
		tok = end + 1;
	}
	if (!mem)
		return EA_BAD;
	if (*mem == '*')
		mem++;
	if (mem[0] == '%' && mem[3] == ':') {
		if (!strncmp(mem, "%fs", 3) || !strncmp(mem, "%gs", 3))
			return EA_SEGMENT;
		mem += 4; /* ds, es: base 0 */
	}
	if (*mem == '-') {
		neg = true;
		mem++;
	}
	if (*mem != '(')
		disp = strtoull(mem, &p, 0);
	else
		p = mem;
	if (neg)
		disp = -disp;
	if (*p == '(') {
		char *f[3] = {p + 1, NULL, NULL};
		int nf = 1;

		for (char *q = p + 1; *q && *q != ')'; q++)
			if (*q == ',' && nf < 3) {
				*q = 0;
				f[nf++] = q + 1;
			}
		*strchr(f[nf - 1], ')') = 0;
		if (*f[0]) {
			if (!strcmp(f[0], "%rip"))
				base = next_ip;
			else if (f[0][0] != '%' || !reg_value(r, f[0] + 1, strlen(f[0] + 1), &base))
				return EA_BAD;
		}
		if (nf > 1 && (f[1][0] != '%' || !reg_value(r, f[1] + 1, strlen(f[1] + 1), &index)))
			return EA_BAD;
		if (nf > 2)
			scale = strtoull(f[2], NULL, 0);
	}
	*ea = disp + base + index * scale;
	return EA_OK;
}

static void test_insn_ea(void **state)
{
	/* with rbx 0x1000, rcx 3, rsp 0x8000, r9 0x2000 */
	static const struct {
		const char *insn;
		uint64_t next_ip;
		ea_status status;
		uint64_t ea; /* where the status is EA_OK */
	} cases[] = {
	    {"mov (%rbx),%rax", 0, EA_OK, 0x1000},
	    {"mov -0x18(%rbx,%rcx,8),%rax", 0, EA_OK, 0x1000 - 0x18 + 24},
	    {"mov 0x10000000(,%rcx,8),%rax", 0, EA_OK, 0x10000018},
	    {"mov %rax,0x20(%rip)", 0x400000, EA_OK, 0x400020},
	    {"movabs 0x10001088,%rax", 0, EA_OK, 0x10001088},
	    {"rep movsq %ds:(%rsi),%es:(%r9)", 0, EA_OK, 0x2000},
	    {"call *(%rbx)", 0, EA_OK, 0x1000},
	    {"push %rax", 0, EA_OK, 0x7ff8},
	    {"pop %rcx", 0, EA_OK, 0x8000},
	    {"mov %fs:0xfffffffffffff088,%rax", 0, EA_SEGMENT, 0},
	    {"lock cmpxchg %rcx,0x8(%r9)", 0, EA_OK, 0x2008},
	};
	dp_regs r = {.abi = 2, .mask = ~0ull};

	(void)state;
	r.regs[1] = 0x1000;  /* rbx */
	r.regs[2] = 3;	     /* rcx */
	r.regs[7] = 0x8000;  /* rsp */
	r.regs[17] = 0x2000; /* r9 */
	for (size_t i = 0; i < DP_ARRAY_LEN(cases); i++) {
		uint64_t ea = 0;
		ea_status st = insn_ea(cases[i].insn, &r, cases[i].next_ip, &ea);

		if (st != cases[i].status || (st == EA_OK && ea != cases[i].ea))
			fail_msg("\"%s\": status %d, address %#llx; want %d, %#llx", cases[i].insn,
				 st, (unsigned long long)ea, cases[i].status,
				 (unsigned long long)cases[i].ea);
	}
}

/* ---- samples of a run ---- */

typedef struct samples {
	dp_sample *v;
	size_t n, cap;
	uint64_t text_lo, text_hi; /* the fixture's executable mapping */
	const char *fixture;
} samples;

static void collect(void *ctx, const dp_record *r)
{
	samples *s = ctx;

	if (r->kind == DP_R_MMAP && r->mmap.exec && strstr(r->mmap.filename, s->fixture)) {
		s->text_lo = r->mmap.start;
		s->text_hi = r->mmap.start + r->mmap.len;
	}
	if (r->kind != DP_R_SAMPLE)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = *r->sample; /* its pointers are not used */
}

static bool in_text(const samples *s, uint64_t ip)
{
	return ip >= s->text_lo && ip < s->text_hi;
}

/* Records the fixture (with args) with opts; returns its truth lines. */
static size_t record(const char *fixture, const char *args, const char *opts, samples *s,
		     tu_truth **truth)
{
	char *prof = tu_path("truth.dprof"), *fx = tu_fixture(fixture);
	char *cmd = dp_asprintf("'%s' %s", fx, args);
	tu_result res;
	size_t n;

	memset(s, 0, sizeof(*s));
	s->fixture = fixture;
	assert_int_equal(rec_run(&res, prof, opts, cmd), 0);
	n = tu_truth_parse(res.out, truth);
	rec_each(prof, collect, s);
	tu_result_free(&res);
	free(cmd);
	free(fx);
	free(prof);
	return n;
}

/* ---- addrmodes ---- */

static void test_addrmodes(void **state)
{
	const char *fixture = *state;
	samples s;
	tu_truth *t;
	size_t n = record(fixture, "", "-e page-faults", &s, &t);
	size_t relevant = 0, found = 0, claimed = 0, skipped = 0;

	for (size_t i = 0; i < n; i++) {
		if (!strcmp(t[i].kind, "skip")) {
			printf("%s: skipped %s (%s)\n", fixture, tu_truth_get(&t[i], "mode"),
			       tu_truth_get(&t[i], "reason"));
			skipped++;
			continue;
		}
		if (strcmp(t[i].kind, "access"))
			continue;
		relevant++;
		const char *mode = tu_truth_get(&t[i], "mode"), *insn = tu_truth_get(&t[i], "insn");
		uint64_t addr = tu_truth_u64(&t[i], "addr"), ip = tu_truth_u64(&t[i], "ip");
		uint64_t next_ip = tu_truth_u64(&t[i], "next_ip");
		const dp_sample *hit = NULL;

		for (size_t k = 0; k < s.n && !hit; k++)
			if (s.v[k].addr == addr && s.v[k].ip == ip)
				hit = &s.v[k];
		if (!hit) {
			printf("%s: no page fault at %#llx from %#llx (%s)\n", fixture,
			       (unsigned long long)addr, (unsigned long long)ip, mode);
			continue;
		}
		/* the registers are from before the access: they give its address */
		uint64_t ea = 0;
		ea_status st = insn_ea(insn, &hit->regs_user, next_ip, &ea);
		if (st == EA_BAD || (st == EA_OK && ea != addr)) {
			printf("%s: %s: \"%s\" with the sampled registers gives %#llx, not %#llx\n",
			       fixture, mode, insn, (unsigned long long)ea,
			       (unsigned long long)addr);
			continue;
		}
		found++;
	}
	/* every sample on one of the modes' pages, from the fixture's code */
	for (size_t k = 0; k < s.n; k++) {
		if (!in_text(&s, s.v[k].ip))
			continue;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(t[i].kind, "access") &&
			    tu_truth_u64(&t[i], "addr") / 4096 == s.v[k].addr / 4096) {
				claimed++;
				break;
			}
	}
	tu_report_accuracy(fixture, found, claimed, relevant);
	assert_true(relevant >= 25);
	assert_int_equal(found, relevant);
	assert_int_equal(claimed, relevant); /* one fault per mode, no other */
	(void)skipped;
	free(t);
	free(s.v);
}

/* ---- bpwatch ---- */

/* One pattern, watched alone; false (with a line saying why) if its truth
 * does not hold. */
static bool check_pattern(const char *fixture, const tu_truth *p)
{
	const char *name = tu_truth_get(p, "name"), *expect = tu_truth_get(p, "expect");
	const char *insn = tu_truth_get(p, "insn");
	uint64_t addr = tu_truth_u64(p, "addr"), count = tu_truth_u64(p, "count");
	uint64_t trap_ip = tu_truth_u64(p, "trap_ip"), ea = tu_truth_u64(p, "ea");
	uint64_t ip = tu_truth_u64(p, "ip"), next_ip = tu_truth_u64(p, "next_ip");
	bool rmw = tu_truth_get(p, "rmw") != NULL, ok = true;
	char *opts =
	    dp_asprintf("-e mem:%#llx/%s:rw", (unsigned long long)addr, tu_truth_get(p, "len"));
	samples s;
	tu_truth *t;
	size_t at = 0, other = 0, n;

	n = record(fixture, name, opts, &s, &t);
	assert_true(n >= 1 && !strcmp(t[n - 1].kind, "ran"));
	for (size_t k = 0; k < s.n; k++) {
		const dp_sample *x = &s.v[k];

		if (x->addr != addr) {
			other++;
			continue;
		}
		at++;
		if (!trap_ip)
			continue; /* a C pattern: any instruction */
		if (x->ip != trap_ip) {
			printf("%s %s: sample IP %#llx, expected %#llx\n", fixture, name,
			       (unsigned long long)x->ip, (unsigned long long)trap_ip);
			ok = false;
			continue;
		}
		if (strcmp(expect, "verified") && strcmp(expect, "unverifiable"))
			continue;
		/* push, pop and string moves change their own address registers by a
		 * known amount: the text alone does not give the address after them
		 * (test_decode_truth checks them through the decoder) */
		if (!strncmp(insn, "push", 4) || !strncmp(insn, "pop", 3) || !strncmp(insn, "movs", 4))
			continue;
		/* registers after the access: still the address, or not */
		uint64_t got = 0;
		if (insn_ea(insn, &x->regs_user, next_ip, &got) != EA_OK) {
			printf("%s %s: cannot compute \"%s\"\n", fixture, name, insn);
			ok = false;
		} else if ((got == ea) != !strcmp(expect, "verified")) {
			printf("%s %s: \"%s\" after the access gives %#llx (ea %#llx): not %s\n",
			       fixture, name, insn, (unsigned long long)got, (unsigned long long)ea,
			       expect);
			ok = false;
		}
	}
	if (at != count && !(rmw && at == 2 * count)) {
		printf("%s %s: %zu samples at %#llx, expected %llu%s\n", fixture, name, at,
		       (unsigned long long)addr, (unsigned long long)count,
		       rmw ? " or twice that" : "");
		ok = false;
	}
	if (other) {
		printf("%s %s: %zu samples elsewhere\n", fixture, name, other);
		ok = false;
	}
	/* a trap is after the instruction: next_ip, except inside a string
	 * instruction with iterations left; unresolvable: elsewhere */
	if (!strcmp(expect, "verified") || !strcmp(expect, "unverifiable"))
		ok &= trap_ip == next_ip || (trap_ip == ip && strstr(insn, "rep "));
	else if (!strcmp(expect, "unresolvable"))
		ok &= trap_ip && trap_ip != next_ip;
	else
		ok &= !strcmp(expect, "any") && !trap_ip;
	printf("%s %-18s %-12s %3zu samples%s\n", fixture, name, expect, at, ok ? "" : "  WRONG");
	free(t);
	free(s.v);
	free(opts);
	return ok;
}

static void test_bpwatch(void **state)
{
	const char *fixture = *state;
	tu_truth *t;
	size_t n, patterns = 0, good = 0, asm_patterns = 0;

	tu_require(DP_PROBE_BREAKPOINT);
	n = rec_fixture_list(fixture, &t);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(t[i].kind, "skip"))
			printf("%s: skipped %s (%s)\n", fixture, tu_truth_get(&t[i], "name"),
			       tu_truth_get(&t[i], "reason"));
		if (strcmp(t[i].kind, "pattern"))
			continue;
		patterns++;
		asm_patterns += tu_truth_get(&t[i], "ip") != NULL;
		good += check_pattern(fixture, &t[i]);
	}
	tu_report_accuracy(fixture, good, patterns, patterns);
	assert_true(asm_patterns >= 20 && patterns - asm_patterns >= 5);
	assert_int_equal(good, patterns);
	free(t);
}

/* ---- objects ---- */

static const tu_truth *truth_access(const tu_truth *t, size_t n, uint64_t addr)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].kind, "access") && tu_truth_u64(&t[i], "addr") == addr)
			return &t[i];
	return NULL;
}

/* the newest object containing addr (stack frames of successive functions
 * overlap: the later one is printed later) */
static const tu_truth *truth_object(const tu_truth *t, size_t n, uint64_t addr)
{
	for (size_t i = n; i-- > 0;) {
		uint64_t lo = tu_truth_u64(&t[i], "addr");

		if (!strcmp(t[i].kind, "object") && addr >= lo &&
		    addr < lo + tu_truth_u64(&t[i], "size"))
			return &t[i];
	}
	return NULL;
}

static bool on_stack(const tu_truth *obj)
{
	return obj && !strcmp(tu_truth_get(obj, "kind"), "stack");
}

static void test_objects(void **state)
{
	const char *fixture = *state;
	samples s;
	tu_truth *t;
	size_t n = record(fixture, "", "-e page-faults", &s, &t);
	size_t relevant = 0, found = 0, claimed = 0, objects = 0, extra = 0;

	for (size_t i = 0; i < n; i++) {
		if (!strcmp(t[i].kind, "object"))
			objects++;
		if (strcmp(t[i].kind, "access"))
			continue;
		relevant++;
		uint64_t addr = tu_truth_u64(&t[i], "addr");
		bool hit = false;

		for (size_t k = 0; k < s.n && !hit; k++)
			hit = s.v[k].addr == addr && in_text(&s, s.v[k].ip);
		if (hit)
			found++;
		else
			printf("%s: no page fault at %#llx (%s %s line %s)\n", fixture,
			       (unsigned long long)addr, tu_truth_get(&t[i], "object"),
			       tu_truth_get(&t[i], "member"), tu_truth_get(&t[i], "line"));
	}
	/* Page faults inside an object, from the fixture's own code, that the
	 * truth does not list. On the stack there can be some: a call made
	 * before a frame existed (the tracker's own calls included) may have
	 * been the first to touch its pages. Elsewhere there must be none. */
	for (size_t k = 0; k < s.n; k++) {
		const tu_truth *obj = truth_object(t, n, s.v[k].addr);

		if (!obj || !in_text(&s, s.v[k].ip))
			continue;
		claimed++;
		if (truth_access(t, n, s.v[k].addr))
			continue;
		printf("%s: a page fault at %#llx from %#llx in %s is not in the truth%s\n",
		       fixture, (unsigned long long)s.v[k].addr, (unsigned long long)s.v[k].ip,
		       tu_truth_get(obj, "name"), on_stack(obj) ? " (a frame before it)" : "");
		extra += !on_stack(obj);
	}
	tu_report_accuracy(fixture, found, claimed, relevant);
	assert_true(objects >= 10);
	assert_true(relevant >= 100);
	assert_int_equal(found, relevant);
	assert_int_equal(extra, 0);
	free(t);
	free(s.v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_insn_ea),
	    REC_FIXTURE_BUILDS(test_addrmodes, "addrmodes"),
	    REC_FIXTURE_BUILDS(test_bpwatch, "bpwatch"),
	    REC_FIXTURE_BUILDS(test_objects, "objects"),
	    REC_FIXTURE_BUILDS(test_objects, "objects_cxx"),
	};
	tu_require_program(DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT);
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, tu_teardown);
}
