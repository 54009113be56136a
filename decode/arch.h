/* The one place that knows an instruction set. Decode works on the
 * architecture-neutral dp_insn below; x86-64 is arch_x86.c (capstone), and
 * another architecture adds one file with these functions. Registers are
 * numbered as the kernel samples them (perf register numbers). */
#ifndef DP_ARCH_H
#define DP_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataprof/profile.h"
#include "util.h"
#include "verdict.h"

#define DP_REG_NONE (-1)

/* How a memory operand's address is formed. */
typedef struct dp_memop {
	int8_t base, index; /* perf register numbers, DP_REG_NONE; base may be the IP */
	uint8_t scale;
	uint8_t size;	  /* bytes accessed */
	uint8_t access;	  /* DP_ACC_* */
	uint8_t seg;	  /* DP_SEG_* */
	uint8_t addr32;	  /* 32-bit address size: truncate */
	uint8_t implicit; /* DP_IMPLICIT_*: registers the instruction itself moves */
	int64_t disp;
	/* When the sampled registers are from after the instruction ran and it
	 * moved its own base by a known amount (push, pop, string ops), the
	 * address is after_base + after_disp (+/- size for string ops by DF). */
	int8_t after_base;
	int32_t after_disp;
} dp_memop;

enum { DP_ACC_LOAD = 1, DP_ACC_STORE = 2 };
enum { DP_SEG_NONE, DP_SEG_FS, DP_SEG_GS };
enum {
	DP_IMPLICIT_NONE,
	DP_IMPLICIT_STACK,  /* push, pop, call, ret, leave: the stack pointer moves */
	DP_IMPLICIT_STRING, /* movs, stos, lods, cmps, scas: rsi/rdi move by size, by DF */
};

enum {
	DP_INSN_MEM = 1 << 0, /* accesses data memory */
	DP_INSN_CALL = 1 << 1,
	DP_INSN_RET = 1 << 2,
	DP_INSN_JUMP = 1 << 3, /* unconditional jump */
	DP_INSN_COND = 1 << 4, /* conditional branch */
	DP_INSN_INDIRECT = 1 << 5,
	DP_INSN_LEADER = 1 << 6,  /* starts a basic block: a branch target, or after a jump */
	DP_INSN_REP = 1 << 7,	  /* rep-prefixed string instruction */
	DP_INSN_INVALID = 1 << 8, /* bytes that did not decode */
	DP_INSN_AREA = 1 << 9,	  /* saves or restores a state area (xsave, fxsave, fnsave) */
};

typedef struct dp_insn {
	uint64_t addr;			  /* ELF virtual address */
	uint64_t target;		  /* direct branch target, 0 if none */
	uint32_t regs_read, regs_written; /* bit n: perf register n */
	uint16_t flags;
	uint8_t len;
	uint8_t nmem;
	dp_memop mem[2];
	/* what it does to one register, for type tracking (annotate/) */
	uint8_t df;	    /* DP_DF_* */
	int8_t df_dst;	    /* register written */
	int8_t df_src;	    /* register read (MOV, LEA, ADDREG) */
	uint8_t df_indexed; /* LEA with an index register: an unknown offset */
	uint8_t cc;	    /* DP_CC_*: what a conditional branch tests */
	int64_t df_imm;	    /* LEA displacement, ADD immediate */
	/* control flow into this instruction (insn_table.c) */
	uint8_t npred; /* how many instructions can run just before it; 255: unknown */
	int32_t pred;  /* the one that can, or the most likely of several; -1: none */
} dp_insn;

enum {
	DP_DF_NONE,
	DP_DF_MOV,    /* dst = src (64-bit register copy) */
	DP_DF_LEA,    /* dst = src + imm */
	DP_DF_ADD,    /* dst += imm */
	DP_DF_LOAD,   /* dst = 64-bit load through mem[0] */
	DP_DF_ADDREG, /* dst += src (a pointer plus a scaled index, or the reverse) */
	DP_DF_STORE,  /* 64-bit store of register src through mem[0] */
	DP_DF_TESTZ,  /* sets the zero flag from whether src (or, src none, the 64-bit
			 value at mem[0]) is zero: test r,r; cmp r,0; cmp [m],0 */
};

/* The condition of a conditional branch, where annotate needs it. */
enum { DP_CC_OTHER, DP_CC_Z, DP_CC_NZ };

typedef DP_VEC(dp_insn) dp_insn_vec;

typedef struct dp_arch dp_arch;

dp_arch *dp_arch_x86_64(void);
void dp_arch_free(dp_arch *a);
const char *dp_arch_name(const dp_arch *a);

/* Decodes code[0..len) at vaddr into out (appended), linear sweep; bytes
 * that do not decode become one-byte DP_INSN_INVALID entries. */
void dp_arch_decode(dp_arch *a, const uint8_t *code, size_t len, uint64_t vaddr, dp_insn_vec *out);

/* The instruction's text ("mov 0x8(%rbx),%rax") into buf. */
void dp_arch_format(dp_arch *a, const uint8_t *bytes, size_t len, uint64_t vaddr, char *buf,
		    size_t buflen);

/* Registers a memory operand's address depends on. */
uint32_t dp_memop_regs(const dp_memop *m, bool regs_after);

/* The effective address of m, from registers sampled before or after the
 * instruction ran. runtime_ip is where the instruction ran (for
 * IP-relative operands). Returns false with a reason when it cannot. */
typedef struct dp_ea_ctx {
	const dp_regs *regs;
	uint64_t runtime_ip;
	uint8_t insn_len;
	bool regs_after;
	bool fs_known, gs_known;
	uint64_t fs_base, gs_base;
} dp_ea_ctx;
bool dp_memop_ea(const dp_memop *m, const dp_ea_ctx *c, uint64_t *ea, dp_reason *why);

#endif
