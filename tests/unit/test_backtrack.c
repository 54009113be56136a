/* The backtracker on hand-assembled x86-64 sequences: each case is the
 * machine code, the sampled IP, and the verdict a correct decoder owes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <asm/perf_regs.h>
#include <stdio.h>
#include <string.h>

#include "decode/backtrack.h"
#include "tu_group.h"

#define BASE 0x1000

static dp_arch *arch;

typedef struct expect {
	dp_verdict verdict;
	dp_reason reason;
	long insn_off; /* offset of the candidate, -1: none */
} expect;

static void check_skid(const char *name, const uint8_t *code, size_t len, uint64_t ip_off,
		       enum dp_ip_semantics sem, enum dp_event_class cls, unsigned skid,
		       expect want)
{
	dp_func_table *t = dp_func_table_from_bytes(arch, code, len, BASE);
	dp_bt bt;

	dp_backtrack(t, BASE + ip_off, sem, cls, skid, &bt);
	long got_off = bt.insn >= 0 ? (long)(t->insns.v[bt.insn].addr - BASE) : -1;
	if (bt.verdict != want.verdict || bt.reason != want.reason || got_off != want.insn_off) {
		for (size_t i = 0; i < t->insns.n; i++) {
			char txt[64];
			const dp_insn *in = &t->insns.v[i];
			dp_arch_format(arch, t->bytes + (in->addr - BASE), in->len, in->addr, txt,
				       sizeof(txt));
			fprintf(stderr, "  %#lx %-30s npred %u pred %d\n", (unsigned long)in->addr,
				txt, in->npred, in->pred);
		}
		fail_msg("%s: got %s (%s) at %ld, want %s (%s) at %ld", name,
			 dp_verdict_name(bt.verdict), dp_reason_name(bt.reason), got_off,
			 dp_verdict_name(want.verdict), dp_reason_name(want.reason), want.insn_off);
	}
	dp_func_table_free(t);
}

static void check(const char *name, const uint8_t *code, size_t len, uint64_t ip_off,
		  enum dp_ip_semantics sem, enum dp_event_class cls, expect want)
{
	check_skid(name, code, len, ip_off, sem, cls, 0, want);
}

#define VERIFIED(off)	     ((expect){DP_V_VERIFIED, DP_RS_NONE, off})
#define UNVERIFIABLE(r, off) ((expect){DP_V_UNVERIFIABLE, r, off})
#define UNRESOLVABLE(r)	     ((expect){DP_V_UNRESOLVABLE, r, -1})

static void test_skid_over_alu(void **state)
{
	/* 0: mov 8(%rbx),%rax; 4: add $1,%rcx; 8: nop <- IP */
	static const uint8_t c[] = {0x48, 0x8b, 0x43, 0x08, 0x48, 0x83, 0xc1, 0x01, 0x90};
	(void)state;
	check("skid", c, sizeof(c), 8, DP_IP_AFTER, DP_EVC_LOAD, VERIFIED(0));
	check("skid, time event", c, sizeof(c), 8, DP_IP_AFTER, DP_EVC_TIME, VERIFIED(0));
	/* a store event skips the load and finds nothing before it */
	check("no store", c, sizeof(c), 8, DP_IP_AFTER, DP_EVC_STORE,
	      UNRESOLVABLE(DP_RS_FUNCTION_START));
}

static void test_clobbered_index(void **state)
{
	/* 0: mov (%rbx,%rcx,8),%rax; 4: inc %rcx; 7: nop <- IP */
	static const uint8_t c[] = {0x48, 0x8b, 0x04, 0xcb, 0x48, 0xff, 0xc1, 0x90};
	(void)state;
	check("index written after", c, sizeof(c), 7, DP_IP_AFTER, DP_EVC_LOAD,
	      UNVERIFIABLE(DP_RS_REG_WRITTEN_BETWEEN, 0));
}

static void test_self_clobber(void **state)
{
	/* 0: mov (%rax),%rax; 3: nop */
	static const uint8_t c[] = {0x48, 0x8b, 0x00, 0x90};
	(void)state;
	/* a trap after it: rax is the loaded value, not the address */
	check("trap after", c, sizeof(c), 3, DP_IP_AFTER, DP_EVC_MEMORY,
	      UNVERIFIABLE(DP_RS_SELF_CLOBBER, 0));
	/* PEBS: exact IP, registers after */
	check("pebs", c, sizeof(c), 0, DP_IP_EXACT_AFTER, DP_EVC_LOAD,
	      UNVERIFIABLE(DP_RS_SELF_CLOBBER, 0));
	/* a page fault: registers from before it ran: fine */
	check("fault", c, sizeof(c), 0, DP_IP_EXACT, DP_EVC_MEMORY, VERIFIED(0));
}

static void test_call_in_window(void **state)
{
	/* 0: mov (%rbx),%rax; 3: call 8; 8: nop <- IP */
	static const uint8_t c[] = {0x48, 0x8b, 0x03, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x90};
	(void)state;
	check("call", c, sizeof(c), 8, DP_IP_AFTER, DP_EVC_LOAD, UNRESOLVABLE(DP_RS_CALL));
}

static void test_branch_target_in_window(void **state)
{
	/* 0: test %rdi,%rdi; 3: je 8; 5: mov (%rbx),%rax; 8: add $1,%rcx; c: nop <- IP */
	static const uint8_t c[] = {0x48, 0x85, 0xff, 0x74, 0x03, 0x48, 0x8b,
				    0x03, 0x48, 0x83, 0xc1, 0x01, 0x90};
	(void)state;
	/* 8 is reached from 5 or from the je: the mov may not have run */
	check("target", c, sizeof(c), 0xc, DP_IP_AFTER, DP_EVC_LOAD,
	      UNVERIFIABLE(DP_RS_BRANCH_TARGET, 5));
}

/* The chained hash table lookup of examples/hashtable.c at -O2. */
static const uint8_t loop[] = {
    0x31, 0xc9,		    /* 0: xor %ecx,%ecx */
    0xeb, 0x09,		    /* 2: jmp d */
    0x48, 0x8b, 0x40, 0x40, /* 4: mov 0x40(%rax),%rax   b = b->next */
    0x48, 0x85, 0xc0,	    /* 8: test %rax,%rax */
    0x74, 0x05,		    /* b: je 12 */
    0x48, 0x3b, 0x08,	    /* d: cmp (%rax),%rcx       b->key != key */
    0x75, 0xf2,		    /* 10: jne 4 */
    0xc3,		    /* 12: ret */
};

static void test_fused_compare_and_branch(void **state)
{
	(void)state;
	/* after cmp+jne fell through? no: IP 4 is only reached by the back edge */
	check("back edge", loop, sizeof(loop), 4, DP_IP_AFTER, DP_EVC_LOAD, VERIFIED(0xd));
	/* IP 12 is reached from the je and from the jne falling through */
	check("two ways", loop, sizeof(loop), 0x12, DP_IP_AFTER, DP_EVC_LOAD,
	      UNVERIFIABLE(DP_RS_BRANCH_TARGET, 0xd));
	/* right after the pointer chase: it wrote its own base */
	check("chase", loop, sizeof(loop), 8, DP_IP_AFTER, DP_EVC_LOAD,
	      UNVERIFIABLE(DP_RS_SELF_CLOBBER, 4));
	/* the jne between the cmp and the IP writes no register */
	check("after jne", loop, sizeof(loop), 0x10, DP_IP_AFTER, DP_EVC_LOAD, VERIFIED(0xd));
}

static void test_loads_and_stores(void **state)
{
	/* 0: mov %rax,(%rbx); 3: mov (%rcx),%rdx; 6: nop <- IP */
	static const uint8_t c[] = {0x48, 0x89, 0x03, 0x48, 0x8b, 0x11, 0x90};
	(void)state;
	check("load", c, sizeof(c), 6, DP_IP_AFTER, DP_EVC_LOAD, VERIFIED(3));
	check("store", c, sizeof(c), 6, DP_IP_AFTER, DP_EVC_STORE, VERIFIED(0));
	/* the store's own register rdx is not its address: fine */
	check("any", c, sizeof(c), 6, DP_IP_AFTER, DP_EVC_MEMORY, VERIFIED(3));
}

static void test_window(void **state)
{
	uint8_t c[3 + 20];
	(void)state;
	c[0] = 0x48, c[1] = 0x8b, c[2] = 0x03; /* mov (%rbx),%rax */
	memset(c + 3, 0x90, 20);	       /* 20 nops */
	check("window", c, sizeof(c), sizeof(c) - 1, DP_IP_AFTER, DP_EVC_LOAD,
	      UNRESOLVABLE(DP_RS_WINDOW));
	check("in window", c, sizeof(c), 3 + DP_BACKTRACK_WINDOW - 1, DP_IP_AFTER, DP_EVC_LOAD,
	      VERIFIED(0));
}

static void test_not_boundary_and_exact(void **state)
{
	static const uint8_t c[] = {0x48, 0x8b, 0x43, 0x08, 0x90};
	(void)state;
	check("mid-instruction", c, sizeof(c), 2, DP_IP_AFTER, DP_EVC_LOAD,
	      UNRESOLVABLE(DP_RS_NOT_BOUNDARY));
	check("exact, no memory", c, sizeof(c), 4, DP_IP_EXACT, DP_EVC_MEMORY,
	      UNRESOLVABLE(DP_RS_NO_MEMORY_INSN));
	check("not a memory event", c, sizeof(c), 4, DP_IP_AFTER, DP_EVC_NONE,
	      ((expect){DP_V_NO_MEMORY, DP_RS_NOT_MEMORY_EVENT, -1}));
}

static void test_rep_string(void **state)
{
	/* 0: rep movsb; 2: nop */
	static const uint8_t c[] = {0xf3, 0xa4, 0x90};
	(void)state;
	/* interrupted between iterations: the IP stays on it */
	check("rep at ip", c, sizeof(c), 0, DP_IP_AFTER, DP_EVC_STORE,
	      UNVERIFIABLE(DP_RS_REP_ITERATION, 0));
	/* done: rdi moved by a known amount, which is accounted for */
	check("rep done", c, sizeof(c), 2, DP_IP_AFTER, DP_EVC_STORE, VERIFIED(0));
}

/* Instructions of two accesses, and state areas: an event caused by one
 * access cannot say which (the simulator's truth found push mem verified at
 * the stack's address when the load had missed, an xsave verified at its
 * area's start when a part 24 bytes in had). A time sample has no one
 * cause: the nearest instruction's address is as true as the other. */
static void test_two_accesses(void **state)
{
	/* 0: push 8(%rbx); 3: nop */
	static const uint8_t push[] = {0xff, 0x73, 0x08, 0x90};
	/* 0: movsb (no rep); 1: nop */
	static const uint8_t movs[] = {0xa4, 0x90};
	/* 0: rep movsb; 2: nop */
	static const uint8_t rep[] = {0xf3, 0xa4, 0x90};
	/* 0: xsave 0x40(%rsp); 5: nop */
	static const uint8_t xsave[] = {0x0f, 0xae, 0x64, 0x24, 0x40, 0x90};
	/* 0: fxrstor (%rax); 3: nop */
	static const uint8_t fxrstor[] = {0x0f, 0xae, 0x08, 0x90};
	(void)state;
	check("push mem, any access", push, sizeof(push), 3, DP_IP_AFTER, DP_EVC_MEMORY,
	      UNVERIFIABLE(DP_RS_TWO_ACCESSES, 0));
	check("push mem, a load", push, sizeof(push), 3, DP_IP_AFTER, DP_EVC_LOAD, VERIFIED(0));
	check("push mem, a store", push, sizeof(push), 3, DP_IP_AFTER, DP_EVC_STORE, VERIFIED(0));
	check("push mem, time", push, sizeof(push), 3, DP_IP_AFTER, DP_EVC_TIME, VERIFIED(0));
	check("push mem, exact IP", push, sizeof(push), 0, DP_IP_EXACT, DP_EVC_MEMORY,
	      UNVERIFIABLE(DP_RS_TWO_ACCESSES, 0));
	check("movs, any access", movs, sizeof(movs), 1, DP_IP_AFTER, DP_EVC_MEMORY,
	      UNVERIFIABLE(DP_RS_TWO_ACCESSES, 0));
	check("movs, a store", movs, sizeof(movs), 1, DP_IP_AFTER, DP_EVC_STORE, VERIFIED(0));
	/* interrupted rep movs: the iteration is the first thing unknown */
	check("rep movs at ip, any access", rep, sizeof(rep), 0, DP_IP_AFTER, DP_EVC_MEMORY,
	      UNVERIFIABLE(DP_RS_REP_ITERATION, 0));
	check("xsave, any access", xsave, sizeof(xsave), 5, DP_IP_AFTER, DP_EVC_MEMORY,
	      UNVERIFIABLE(DP_RS_SAVE_AREA, 0));
	check("xsave, a store", xsave, sizeof(xsave), 5, DP_IP_AFTER, DP_EVC_STORE,
	      UNVERIFIABLE(DP_RS_SAVE_AREA, 0));
	check("xsave, time", xsave, sizeof(xsave), 5, DP_IP_AFTER, DP_EVC_TIME, VERIFIED(0));
	check("fxrstor, a load", fxrstor, sizeof(fxrstor), 3, DP_IP_AFTER, DP_EVC_LOAD,
	      UNVERIFIABLE(DP_RS_SAVE_AREA, 0));
}

/* A fixed skid (a simulator's --sim-skid N): the cause is exactly N
 * instructions back, not the nearest memory instruction. */
static void test_fixed_skid(void **state)
{
	/* 0: mov 8(%rbx),%rax; 4: mov 16(%rbx),%rcx; 8: add $1,%rdx; 12: nop; 13: nop */
	static const uint8_t c[] = {0x48, 0x8b, 0x43, 0x08, 0x48, 0x8b, 0x4b,
				    0x10, 0x48, 0x83, 0xc2, 0x01, 0x90, 0x90};
	/* 0: rep stosb; 2: mov (%rbx),%rax; 5: nop */
	static const uint8_t rep[] = {0xf3, 0xaa, 0x48, 0x8b, 0x03, 0x90};
	/* 0: mov (%rbx),%rax; 3: call 8; 8: nop */
	static const uint8_t call[] = {0x48, 0x8b, 0x03, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x90};
	(void)state;
	/* the nearest memory instruction before 12 is at 4; three back is 0 */
	check_skid("skid 3", c, sizeof(c), 12, DP_IP_AFTER, DP_EVC_LOAD, 3, VERIFIED(0));
	check_skid("skid 2", c, sizeof(c), 12, DP_IP_AFTER, DP_EVC_LOAD, 2, VERIFIED(4));
	check_skid("skid 1, no memory there", c, sizeof(c), 12, DP_IP_AFTER, DP_EVC_LOAD, 1,
		   UNRESOLVABLE(DP_RS_SKID_NOT_MEMORY));
	check_skid("skid past the start", c, sizeof(c), 8, DP_IP_AFTER, DP_EVC_LOAD, 3,
		   UNRESOLVABLE(DP_RS_FUNCTION_START));
	/* rcx written between: the load at 4 stays verified, its base is rbx */
	check_skid("skid 4", c, sizeof(c), 13, DP_IP_AFTER, DP_EVC_LOAD, 3, VERIFIED(4));
	/* iterations count one each: a rep within the skid leaves it uncounted */
	check_skid("skid over rep", rep, sizeof(rep), 5, DP_IP_AFTER, DP_EVC_MEMORY, 2,
		   UNRESOLVABLE(DP_RS_SKID_UNCOUNTED));
	check_skid("skid 1 after rep", rep, sizeof(rep), 5, DP_IP_AFTER, DP_EVC_MEMORY, 1,
		   VERIFIED(2));
	/* the skid's instructions were the callee's */
	check_skid("skid over a call", call, sizeof(call), 8, DP_IP_AFTER, DP_EVC_LOAD, 2,
		   UNRESOLVABLE(DP_RS_CALL));
}

/* Addresses from registers. */
static dp_regs regs(void)
{
	dp_regs r;

	memset(&r, 0, sizeof(r));
	r.abi = 2;
	r.mask = 0xff0fff;
	r.regs[PERF_REG_X86_BX] = 0x10000;
	r.regs[PERF_REG_X86_CX] = 3;
	r.regs[PERF_REG_X86_SP] = 0x7ff000;
	r.regs[PERF_REG_X86_DI] = 0x20008;
	r.regs[PERF_REG_X86_FLAGS] = 0x202; /* DF clear */
	return r;
}

static uint64_t ea_of(const uint8_t *code, size_t len, int mem, bool after, bool *ok)
{
	dp_func_table *t = dp_func_table_from_bytes(arch, code, len, BASE);
	dp_regs r = regs();
	dp_ea_ctx c = {&r, 0x555500001000, t->insns.v[0].len, after, false, false, 0, 0};
	dp_reason why;
	uint64_t ea = 0;

	*ok = dp_memop_ea(&t->insns.v[0].mem[mem], &c, &ea, &why);
	dp_func_table_free(t);
	return ea;
}

static void test_effective_addresses(void **state)
{
	bool ok;
	(void)state;
	/* mov 0x10(%rbx,%rcx,8),%rax */
	assert_int_equal(ea_of((uint8_t[]){0x48, 0x8b, 0x44, 0xcb, 0x10}, 5, 0, false, &ok),
			 0x10000 + 3 * 8 + 0x10);
	assert_true(ok);
	/* mov 0x20(%rip),%rax: the next instruction's address + 0x20 */
	assert_int_equal(ea_of((uint8_t[]){0x48, 0x8b, 0x05, 0x20, 0, 0, 0}, 7, 0, false, &ok),
			 0x555500001000 + 7 + 0x20);
	/* push %rbx: before it ran, rsp-8; after, rsp itself */
	assert_int_equal(ea_of((uint8_t[]){0x53}, 1, 0, false, &ok), 0x7ff000 - 8);
	assert_int_equal(ea_of((uint8_t[]){0x53}, 1, 0, true, &ok), 0x7ff000);
	/* pop %rbx: before, rsp; after, rsp-8 */
	assert_int_equal(ea_of((uint8_t[]){0x5b}, 1, 0, false, &ok), 0x7ff000);
	assert_int_equal(ea_of((uint8_t[]){0x5b}, 1, 0, true, &ok), 0x7ff000 - 8);
	/* stosq after: rdi already moved on by 8 */
	assert_int_equal(ea_of((uint8_t[]){0x48, 0xab}, 2, 0, true, &ok), 0x20000);
	/* %fs:0x28 without a known fs base: no address */
	ea_of((uint8_t[]){0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0}, 9, 0, false, &ok);
	assert_false(ok);
}

static int setup(void **state)
{
	(void)state;
	arch = dp_arch_x86_64();
	return arch ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	dp_arch_free(arch);
	return 0;
}

TU_MAIN(setup, teardown, test_skid_over_alu, test_clobbered_index, test_self_clobber,
	test_call_in_window, test_branch_target_in_window, test_fused_compare_and_branch,
	test_loads_and_stores, test_window, test_not_boundary_and_exact, test_rep_string,
	test_two_accesses, test_fixed_skid, test_effective_addresses)
