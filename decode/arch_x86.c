/* x86-64 through capstone. Capstone gives operands and the registers each
 * instruction reads and writes; whether a memory operand is loaded, stored
 * or both is decided here, by instruction, because capstone 4's per-operand
 * access flags are unreliable for x86 (stores reported as reads). */
#include "arch.h"

#include <asm/perf_regs.h>
#include <capstone/capstone.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct dp_arch {
	csh intel; /* analysis: Intel operand order, destination first */
	csh att;   /* text for people, as perf and gdb print it */
	cs_insn *scratch;
};

static int perf_reg(x86_reg r)
{
	switch (r) {
	case X86_REG_RAX:
	case X86_REG_EAX:
	case X86_REG_AX:
	case X86_REG_AL:
	case X86_REG_AH:
		return PERF_REG_X86_AX;
	case X86_REG_RBX:
	case X86_REG_EBX:
	case X86_REG_BX:
	case X86_REG_BL:
	case X86_REG_BH:
		return PERF_REG_X86_BX;
	case X86_REG_RCX:
	case X86_REG_ECX:
	case X86_REG_CX:
	case X86_REG_CL:
	case X86_REG_CH:
		return PERF_REG_X86_CX;
	case X86_REG_RDX:
	case X86_REG_EDX:
	case X86_REG_DX:
	case X86_REG_DL:
	case X86_REG_DH:
		return PERF_REG_X86_DX;
	case X86_REG_RSI:
	case X86_REG_ESI:
	case X86_REG_SI:
	case X86_REG_SIL:
		return PERF_REG_X86_SI;
	case X86_REG_RDI:
	case X86_REG_EDI:
	case X86_REG_DI:
	case X86_REG_DIL:
		return PERF_REG_X86_DI;
	case X86_REG_RBP:
	case X86_REG_EBP:
	case X86_REG_BP:
	case X86_REG_BPL:
		return PERF_REG_X86_BP;
	case X86_REG_RSP:
	case X86_REG_ESP:
	case X86_REG_SP:
	case X86_REG_SPL:
		return PERF_REG_X86_SP;
	case X86_REG_RIP:
	case X86_REG_EIP:
	case X86_REG_IP:
		return PERF_REG_X86_IP;
	case X86_REG_EFLAGS:
		return PERF_REG_X86_FLAGS;
	case X86_REG_R8:
	case X86_REG_R8D:
	case X86_REG_R8W:
	case X86_REG_R8B:
		return PERF_REG_X86_R8;
	case X86_REG_R9:
	case X86_REG_R9D:
	case X86_REG_R9W:
	case X86_REG_R9B:
		return PERF_REG_X86_R9;
	case X86_REG_R10:
	case X86_REG_R10D:
	case X86_REG_R10W:
	case X86_REG_R10B:
		return PERF_REG_X86_R10;
	case X86_REG_R11:
	case X86_REG_R11D:
	case X86_REG_R11W:
	case X86_REG_R11B:
		return PERF_REG_X86_R11;
	case X86_REG_R12:
	case X86_REG_R12D:
	case X86_REG_R12W:
	case X86_REG_R12B:
		return PERF_REG_X86_R12;
	case X86_REG_R13:
	case X86_REG_R13D:
	case X86_REG_R13W:
	case X86_REG_R13B:
		return PERF_REG_X86_R13;
	case X86_REG_R14:
	case X86_REG_R14D:
	case X86_REG_R14W:
	case X86_REG_R14B:
		return PERF_REG_X86_R14;
	case X86_REG_R15:
	case X86_REG_R15D:
	case X86_REG_R15W:
	case X86_REG_R15B:
		return PERF_REG_X86_R15;
	default:
		return DP_REG_NONE;
	}
}

/* Capstone 4 sorts some of its global tables on first use (the registers
 * that Intel and AT&T syntax embed in instructions, X86_insn_reg_intel):
 * decoders of parallel report parts would sort them at once. Each syntax
 * decodes an instruction with details once, before any second thread. */
static void warm_capstone(void)
{
	/* add $1, %al; mov %ebx, %eax; stos; ret */
	static const uint8_t code[] = {0x04, 0x01, 0x89, 0xd8, 0xaa, 0xc3};
	static const int syntax[] = {CS_OPT_SYNTAX_INTEL, CS_OPT_SYNTAX_ATT};

	for (int i = 0; i < 2; i++) {
		csh h;
		cs_insn *ci;
		size_t n;

		if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
			continue;
		cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
		cs_option(h, CS_OPT_SYNTAX, (size_t)syntax[i]);
		n = cs_disasm(h, code, sizeof(code), 0x1000, 0, &ci);
		if (n)
			cs_free(ci, n);
		cs_close(&h);
	}
}

dp_arch *dp_arch_x86_64(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	dp_arch *a = dp_calloc(1, sizeof(*a));

	pthread_once(&once, warm_capstone);

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &a->intel) != CS_ERR_OK ||
	    cs_open(CS_ARCH_X86, CS_MODE_64, &a->att) != CS_ERR_OK) {
		free(a);
		return NULL;
	}
	cs_option(a->intel, CS_OPT_DETAIL, CS_OPT_ON);
	cs_option(a->att, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	a->scratch = cs_malloc(a->intel);
	return a;
}

void dp_arch_free(dp_arch *a)
{
	if (!a)
		return;
	cs_free(a->scratch, 1);
	cs_close(&a->intel);
	cs_close(&a->att);
	free(a);
}

const char *dp_arch_name(const dp_arch *a)
{
	(void)a;
	return "x86-64";
}

static bool starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* The mnemonic without a rep/lock prefix word. */
static const char *base_mnemonic(const char *m)
{
	for (;;) {
		const char *sp = strchr(m, ' ');

		if (!sp)
			return m;
		m = sp + 1;
	}
}

/* Instructions whose memory operand is not accessed as data. */
static bool no_data_access(const char *m)
{
	return !strcmp(m, "lea") || starts(m, "nop") || starts(m, "prefetch") ||
	       starts(m, "clflush") || !strcmp(m, "clwb") || starts(m, "bnd") ||
	       !strcmp(m, "invlpg") || starts(m, "endbr");
}

/* A destination memory operand that is only read. */
/* Processor state saved or restored as one area of hundreds of bytes, of
 * which the event's access touched some part. */
static bool state_area(const char *m)
{
	return starts(m, "xsave") || starts(m, "xrstor") || starts(m, "fxsave") ||
	       starts(m, "fxrstor") || !strcmp(m, "fnsave") || !strcmp(m, "fsave") ||
	       !strcmp(m, "frstor");
}

static bool dest_read_only(const char *m)
{
	return !strcmp(m, "cmp") || !strcmp(m, "test") || !strcmp(m, "bt") || starts(m, "ucomi") ||
	       starts(m, "vucomi") || starts(m, "comi") || starts(m, "vcomi") ||
	       !strcmp(m, "ptest") || !strcmp(m, "vptest") || !strcmp(m, "push") ||
	       starts(m, "call") || starts(m, "jmp");
}

/* A destination memory operand that is only written. */
static bool dest_write_only(const char *m)
{
	return starts(m, "mov") || starts(m, "vmov") || starts(m, "set") || starts(m, "fst") ||
	       starts(m, "fist") || starts(m, "fnst") || starts(m, "stmxcsr") ||
	       starts(m, "vstmxcsr") || starts(m, "pextr") || starts(m, "vpextr") ||
	       starts(m, "extractps") || starts(m, "vextract") || starts(m, "vpmov") ||
	       starts(m, "fxsave") || starts(m, "xsave") || !strcmp(m, "pop") ||
	       starts(m, "vpscatter") || starts(m, "vscatter") || starts(m, "sgdt") ||
	       starts(m, "sidt") || starts(m, "str") || starts(m, "sldt") || starts(m, "smsw");
}

static bool is_string_op(const char *m)
{
	return starts(m, "movs") || starts(m, "stos") || starts(m, "lods") || starts(m, "scas") ||
	       starts(m, "cmps") || starts(m, "outs") || starts(m, "ins");
}

/* movsd and cmpsd are also SSE instructions: the string forms have memory
 * operands only (and at most the accumulator), based on rsi or rdi. */
static bool string_insn(const char *m, const cs_x86 *x)
{
	if (!is_string_op(m) || !strncmp(m, "movsx", 5) || !strcmp(m, "movss") ||
	    !strncmp(m, "insert", 6))
		return false;
	for (uint8_t i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type == X86_OP_IMM)
			return false;
		if (op->type == X86_OP_REG && perf_reg(op->reg) < 0 && op->reg != X86_REG_DX)
			return false; /* an xmm register: SSE */
		if (op->type == X86_OP_MEM && op->mem.base != X86_REG_RSI &&
		    op->mem.base != X86_REG_RDI && op->mem.base != X86_REG_ESI &&
		    op->mem.base != X86_REG_EDI)
			return false;
	}
	return true;
}

static void set_stack(dp_memop *mo, uint8_t access, int64_t disp_before, int8_t after_base,
		      int32_t after_disp, int8_t base)
{
	memset(mo, 0, sizeof(*mo));
	mo->base = base;
	mo->index = DP_REG_NONE;
	mo->scale = 1;
	mo->size = 8;
	mo->access = access;
	mo->disp = disp_before;
	mo->implicit = DP_IMPLICIT_STACK;
	mo->after_base = after_base;
	mo->after_disp = after_disp;
}

/* Register copies, pointer arithmetic and 64-bit loads: enough for annotate
 * to follow a pointer back to the variable it came from. */
static void dataflow(const cs_x86 *x, const char *m, dp_insn *in)
{
	const cs_x86_op *a = &x->operands[0], *b = &x->operands[1];

	in->df = DP_DF_NONE;
	in->df_dst = in->df_src = DP_REG_NONE;
	if (x->op_count != 2)
		return;
	/* null tests and spills: annotate's allocator-wrapper detection */
	if (!strcmp(m, "test") && a->type == X86_OP_REG && b->type == X86_OP_REG &&
	    a->reg == b->reg && a->size == 8) {
		in->df = DP_DF_TESTZ;
		in->df_src = (int8_t)perf_reg(a->reg);
		return;
	}
	if (!strcmp(m, "cmp") && b->type == X86_OP_IMM && b->imm == 0 && a->size == 8 &&
	    (a->type == X86_OP_REG || a->type == X86_OP_MEM)) {
		in->df = DP_DF_TESTZ;
		in->df_src = a->type == X86_OP_REG ? (int8_t)perf_reg(a->reg) : DP_REG_NONE;
		return;
	}
	if (!strcmp(m, "mov") && a->type == X86_OP_MEM && b->type == X86_OP_REG && b->size == 8) {
		in->df = DP_DF_STORE;
		in->df_src = (int8_t)perf_reg(b->reg);
		if (in->df_src < 0)
			in->df = DP_DF_NONE;
		return;
	}
	if (a->type != X86_OP_REG || a->size != 8)
		return;
	in->df_dst = (int8_t)perf_reg(a->reg);
	if (in->df_dst < 0)
		return;
	if (!strcmp(m, "mov") && b->type == X86_OP_REG && b->size == 8) {
		in->df = DP_DF_MOV;
		in->df_src = (int8_t)perf_reg(b->reg);
	} else if (!strcmp(m, "lea") && b->type == X86_OP_MEM &&
		   b->mem.segment == X86_REG_INVALID && b->mem.base != X86_REG_RIP) {
		in->df = DP_DF_LEA;
		in->df_src = (int8_t)perf_reg(b->mem.base);
		in->df_imm = b->mem.disp;
		in->df_indexed = b->mem.index != X86_REG_INVALID;
	} else if (!strcmp(m, "add") && b->type == X86_OP_REG && b->size == 8) {
		in->df = DP_DF_ADDREG;
		in->df_src = (int8_t)perf_reg(b->reg);
	} else if ((!strcmp(m, "add") || !strcmp(m, "sub")) && b->type == X86_OP_IMM) {
		in->df = DP_DF_ADD;
		in->df_imm = !strcmp(m, "sub") ? -b->imm : b->imm;
	} else if (!strcmp(m, "mov") && b->type == X86_OP_MEM && b->size == 8) {
		in->df = DP_DF_LOAD;
	}
	if (in->df_src < 0 &&
	    (in->df == DP_DF_MOV || in->df == DP_DF_LEA || in->df == DP_DF_ADDREG))
		in->df = DP_DF_NONE;
}

static void classify(dp_arch *a, const cs_insn *ci, dp_insn *in)
{
	const cs_x86 *x = &ci->detail->x86;
	const char *m = base_mnemonic(ci->mnemonic);
	cs_regs rr, ww;
	uint8_t nr = 0, nw = 0;

	/* control flow */
	for (uint8_t g = 0; g < ci->detail->groups_count; g++) {
		switch (ci->detail->groups[g]) {
		case CS_GRP_CALL:
			in->flags |= DP_INSN_CALL;
			break;
		case CS_GRP_RET:
		case CS_GRP_IRET:
			in->flags |= DP_INSN_RET;
			break;
		case CS_GRP_JUMP:
			in->flags |= ci->id == X86_INS_JMP || ci->id == X86_INS_LJMP ? DP_INSN_JUMP
										     : DP_INSN_COND;
			break;
		}
	}
	if (in->flags & DP_INSN_COND)
		in->cc = ci->id == X86_INS_JE	 ? DP_CC_Z
			 : ci->id == X86_INS_JNE ? DP_CC_NZ
						 : DP_CC_OTHER;
	if (in->flags & (DP_INSN_CALL | DP_INSN_JUMP | DP_INSN_COND)) {
		if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
			in->target = (uint64_t)x->operands[0].imm;
		else
			in->flags |= DP_INSN_INDIRECT;
	}
	if (ci->id == X86_INS_UD2 || ci->id == X86_INS_HLT)
		in->flags |= DP_INSN_JUMP; /* no fall-through */

	/* registers */
	if (cs_regs_access(a->intel, ci, rr, &nr, ww, &nw) == CS_ERR_OK) {
		for (uint8_t i = 0; i < nr; i++) {
			int r = perf_reg(rr[i]);
			if (r >= 0)
				in->regs_read |= 1u << r;
		}
		for (uint8_t i = 0; i < nw; i++) {
			int r = perf_reg(ww[i]);
			if (r >= 0)
				in->regs_written |= 1u << r;
		}
	}
	if (starts(m, "cmpxchg"))
		in->regs_written |= 1u << PERF_REG_X86_AX; /* on failure; capstone omits it */
	if (in->flags & DP_INSN_CALL) /* the callee may change every caller-saved register */
		in->regs_written |=
		    (1u << PERF_REG_X86_AX) | (1u << PERF_REG_X86_CX) | (1u << PERF_REG_X86_DX) |
		    (1u << PERF_REG_X86_SI) | (1u << PERF_REG_X86_DI) | (1u << PERF_REG_X86_R8) |
		    (1u << PERF_REG_X86_R9) | (1u << PERF_REG_X86_R10) | (1u << PERF_REG_X86_R11);
	bool string = string_insn(m, x);
	if (string && (x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE))
		in->flags |= DP_INSN_REP;

	dataflow(x, m, in);
	if (no_data_access(m))
		return;
	if (state_area(m))
		in->flags |= DP_INSN_AREA;

	/* implicit stack accesses */
	if (!strcmp(m, "push") || starts(m, "pushf") || ((in->flags & DP_INSN_CALL))) {
		set_stack(&in->mem[in->nmem++], DP_ACC_STORE, -8, PERF_REG_X86_SP, 0,
			  PERF_REG_X86_SP);
	} else if (!strcmp(m, "pop") || starts(m, "popf") || (in->flags & DP_INSN_RET)) {
		set_stack(&in->mem[in->nmem++], DP_ACC_LOAD, 0, PERF_REG_X86_SP, -8,
			  PERF_REG_X86_SP);
	} else if (!strcmp(m, "leave")) {
		set_stack(&in->mem[in->nmem++], DP_ACC_LOAD, 0, PERF_REG_X86_SP, -8,
			  PERF_REG_X86_BP);
	}

	/* explicit memory operands */
	for (uint8_t i = 0; i < x->op_count && in->nmem < 2; i++) {
		const cs_x86_op *op = &x->operands[i];
		dp_memop *mo;

		if (op->type != X86_OP_MEM)
			continue;
		mo = &in->mem[in->nmem++];
		memset(mo, 0, sizeof(*mo));
		mo->base = (int8_t)perf_reg(op->mem.base);
		mo->index = (int8_t)perf_reg(op->mem.index);
		mo->scale = (uint8_t)(op->mem.scale ? op->mem.scale : 1);
		mo->disp = op->mem.disp;
		mo->size = op->size;
		mo->addr32 = x->addr_size == 4;
		mo->seg = op->mem.segment == X86_REG_FS	  ? DP_SEG_FS
			  : op->mem.segment == X86_REG_GS ? DP_SEG_GS
							  : DP_SEG_NONE;
		mo->after_base = DP_REG_NONE;
		if (string) {
			/* movs in Intel order: [rdi] (stored), then [rsi] (loaded) */
			mo->implicit = DP_IMPLICIT_STRING;
			mo->after_base = mo->base;
			mo->after_disp = 0;
			mo->access =
			    (starts(m, "stos") ||
			     (starts(m, "movs") && mo->base == PERF_REG_X86_DI) || starts(m, "ins"))
				? DP_ACC_STORE
				: DP_ACC_LOAD;
		} else if (i == 0 && x->op_count > 1) {
			mo->access = dest_read_only(m)	  ? DP_ACC_LOAD
				     : dest_write_only(m) ? DP_ACC_STORE
							  : DP_ACC_LOAD | DP_ACC_STORE;
		} else if (i == 0 && x->op_count == 1) {
			/* one operand: inc/dec/neg/not/setcc/pop are writes, push/call/jmp reads */
			mo->access = dest_read_only(m)	  ? DP_ACC_LOAD
				     : dest_write_only(m) ? DP_ACC_STORE
							  : DP_ACC_LOAD | DP_ACC_STORE;
		} else {
			mo->access = starts(m, "xchg") ? DP_ACC_LOAD | DP_ACC_STORE : DP_ACC_LOAD;
		}
	}
	if (in->nmem)
		in->flags |= DP_INSN_MEM;
}

void dp_arch_decode(dp_arch *a, const uint8_t *code, size_t len, uint64_t vaddr, dp_insn_vec *out)
{
	const uint8_t *p = code;
	size_t left = len;
	uint64_t addr = vaddr;

	while (left) {
		const uint8_t *before = p;
		dp_insn in;

		memset(&in, 0, sizeof(in));
		in.addr = addr;
		if (cs_disasm_iter(a->intel, &p, &left, &addr, a->scratch)) {
			in.len = (uint8_t)(p - before);
			classify(a, a->scratch, &in);
		} else {
			/* data or padding in the text: skip a byte, keep going */
			in.len = 1;
			in.flags = DP_INSN_INVALID;
			p++;
			left--;
			addr++;
		}
		dp_vec_push(out, in);
	}
}

void dp_arch_format(dp_arch *a, const uint8_t *bytes, size_t len, uint64_t vaddr, char *buf,
		    size_t buflen)
{
	cs_insn *ci;
	size_t n = cs_disasm(a->att, bytes, len, vaddr, 1, &ci);

	if (!n) {
		snprintf(buf, buflen, "(bad)");
		return;
	}
	snprintf(buf, buflen, "%s%s%s", ci->mnemonic, ci->op_str[0] ? " " : "", ci->op_str);
	cs_free(ci, n);
}

uint32_t dp_memop_regs(const dp_memop *m, bool regs_after)
{
	uint32_t r = 0;

	if (regs_after && m->implicit) {
		if (m->after_base >= 0)
			r |= 1u << m->after_base;
		if (m->implicit == DP_IMPLICIT_STRING)
			r |= 1u << PERF_REG_X86_FLAGS;
		return r;
	}
	if (m->base >= 0 && m->base != PERF_REG_X86_IP)
		r |= 1u << m->base;
	if (m->index >= 0)
		r |= 1u << m->index;
	return r;
}

static bool reg(const dp_regs *r, int n, uint64_t *v)
{
	if (n < 0 || !(r->mask & (1ull << n)))
		return false;
	*v = r->regs[n];
	return true;
}

bool dp_memop_ea(const dp_memop *m, const dp_ea_ctx *c, uint64_t *ea, dp_reason *why)
{
	uint64_t a = 0, v;

	if (c->regs_after && m->implicit) {
		if (!reg(c->regs, m->after_base, &v)) {
			*why = DP_RS_NO_REGS;
			return false;
		}
		a = v + (uint64_t)(int64_t)m->after_disp;
		if (m->implicit == DP_IMPLICIT_STRING) {
			uint64_t flags;

			if (!reg(c->regs, PERF_REG_X86_FLAGS, &flags)) {
				*why = DP_RS_NO_REGS;
				return false;
			}
			/* the string instruction moved rsi/rdi by size, backwards if DF */
			a += (flags & (1u << 10)) ? m->size : -(uint64_t)m->size;
		}
		*ea = a;
		return true;
	}
	a = (uint64_t)m->disp;
	if (m->base == PERF_REG_X86_IP) {
		a += c->runtime_ip + c->insn_len;
	} else if (m->base >= 0) {
		if (!reg(c->regs, m->base, &v)) {
			*why = DP_RS_NO_REGS;
			return false;
		}
		a += v;
	}
	if (m->index >= 0) {
		if (!reg(c->regs, m->index, &v)) {
			*why = DP_RS_NO_REGS;
			return false;
		}
		a += v * m->scale;
	}
	if (m->seg == DP_SEG_FS || m->seg == DP_SEG_GS) {
		bool known = m->seg == DP_SEG_FS ? c->fs_known : c->gs_known;

		if (!known) {
			*why = DP_RS_SEGMENT_BASE;
			return false;
		}
		a += m->seg == DP_SEG_FS ? c->fs_base : c->gs_base;
	}
	if (m->addr32)
		a &= 0xffffffffu;
	*ea = a;
	return true;
}
