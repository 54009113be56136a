#include "construct.h"
#include "reg_var.h"

#include <asm/perf_regs.h>
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#define TRACK_DEPTH 24 /* instructions followed back per register */

const char *dp_annot_reason_name(dp_annot_reason r)
{
	static const char *const n[DP_AR_COUNT] = {
	    [DP_AR_NONE] = "",
	    [DP_AR_NO_ADDRESS] = "no trusted data address",
	    [DP_AR_NO_INSN] = "no causing instruction",
	    [DP_AR_NO_DEBUG_INFO] = "no debug info",
	    [DP_AR_NO_VARIABLE] = "no variable for register",
	    [DP_AR_AMBIGUOUS] = "paths disagree",
	    [DP_AR_NOT_POINTER] = "register's variable is not a pointer",
	    [DP_AR_OFFSET_OUTSIDE] = "offset outside type",
	    [DP_AR_PADDING] = "padding",
	    [DP_AR_STACK_OP] = "stack push/pop",
	    [DP_AR_NO_OBJECT] = "address in no known object",
	    [DP_AR_HEAP_UNTRACKED] = "heap not tracked (record --heap)",
	    [DP_AR_NO_TYPE] = "object type unknown",
	    [DP_AR_OWN_WORK] = "dataprof's own work",
	    [DP_AR_SYSCALL] = "inside a system call",
	    [DP_AR_INCOMPLETE] = "type only declared",
	};
	return (unsigned)r < DP_AR_COUNT && n[r] ? n[r] : "?";
}

dp_annot_reason dp_path_reason(dp_path_result r)
{
	switch (r) {
	case DP_PATH_OK:
		return DP_AR_NONE;
	case DP_PATH_PADDING:
		return DP_AR_PADDING;
	case DP_PATH_INCOMPLETE:
		return DP_AR_INCOMPLETE;
	case DP_PATH_OUTSIDE:
		break;
	}
	return DP_AR_OFFSET_OUTSIDE;
}

/* What a register holds: a pointer into an object of type pointee, adj
 * bytes from the start of the pointee. */
typedef struct ptr_type {
	bool found;
	bool neutral; /* a loop back to where the search came from: no evidence either way */
	dp_annot_reason fail;
	Dwarf_Die pointee;
	int64_t adj;
	uint32_t var;
	bool tracked;
	bool indexed; /* plus an unknown multiple of something: the offset is not known */
} ptr_type;

typedef struct ctx {
	dp_image_dwarf *id;
	dp_strtab *strs;
	const dp_func_table *t;
	struct {
		long insn;
		int reg;
	} path[TRACK_DEPTH * 2 + 8]; /* what the search is following, to see loops */
	int npath;
	/* the last CFA rule asked for (cfa_slot), and where it holds */
	uint64_t cfa_lo, cfa_hi;
	int cfa_reg;
	int64_t cfa_off;
	bool cfa_ok;
} ctx;

/* A variable located in reg at pc (its value is reg, or reg + k): with
 * pointer, a pointer, its pointee in o->pointee; without, any variable
 * whose value is the register, its own type in o->pointee. */
static bool var_in_reg(ctx *c, uint64_t pc, int reg, bool pointer, ptr_type *o)
{
	dp_reg_var v;
	bool not_pointer = false;

	if (!dp_reg_var_at(c->id, c->strs, pc, reg, pointer, &v, &not_pointer)) {
		if (not_pointer)
			o->fail = DP_AR_NOT_POINTER;
		return false;
	}
	o->found = true;
	o->pointee = v.type;
	o->adj = v.adj;
	o->var = v.name;
	return true;
}

static bool falls_through(const dp_insn *in)
{
	return !(in->flags & (DP_INSN_JUMP | DP_INSN_RET | DP_INSN_INVALID | DP_INSN_CALL));
}

/* Every instruction that can run just before i. Returns -1 when unknown
 * (the function's entry, a jump table). */
static int predecessors(const dp_func_table *t, long i, long *out, int max)
{
	const dp_insn *in = &t->insns.v[i];
	int n = 0;

	if (i == 0 || in->npred == 255)
		return -1;
	if (in->npred == 1) {
		out[0] = in->pred;
		return 1;
	}
	if (falls_through(&t->insns.v[i - 1]) && n < max)
		out[n++] = i - 1;
	for (size_t j = 0; j < t->insns.n && n < max; j++)
		if ((t->insns.v[j].flags & (DP_INSN_JUMP | DP_INSN_COND)) &&
		    t->insns.v[j].target == in->addr)
			out[n++] = (long)j;
	return n;
}

static bool same_type(Dwarf_Die *a, Dwarf_Die *b)
{
	return dwarf_dieoffset(a) == dwarf_dieoffset(b);
}

static void member_type_at(ctx *c, Dwarf_Die *obj, int64_t off, ptr_type *o);

/* The general registers (perf numbering: ax..sp, r8..r15). */
#define GPRS 0x00ff00ffu

/* The register whose value instruction j moves to or from its one memory
 * operand: the register a plain store reads besides the address's, or the
 * one a plain load writes without reading it; -1 if none or not one. */
static int moved_reg(const dp_insn *in)
{
	const dp_memop *m = &in->mem[0];
	uint32_t addr = 0, regs;

	if (in->nmem != 1 || m->implicit || m->seg)
		return -1;
	if (m->base >= 0)
		addr |= 1u << m->base;
	if (m->index >= 0)
		addr |= 1u << m->index;
	if (m->access == DP_ACC_STORE)
		regs = in->regs_read & GPRS & ~addr;
	else if (m->access == DP_ACC_LOAD)
		regs = in->regs_written & GPRS & ~in->regs_read;
	else
		return -1;
	return regs && !(regs & (regs - 1)) ? __builtin_ctz(regs) : -1;
}

/* Where sp + disp lies from the frame's CFA at pc; false where the call
 * frame information does not say it in terms of the stack pointer. */
static bool cfa_slot(ctx *c, uint64_t pc, int64_t disp, int64_t *off)
{
	uint64_t at = pc - c->id->cfi_bias;

	/* one rule holds for long runs of a function: asked again only past them */
	if (at < c->cfa_lo || at >= c->cfa_hi)
		c->cfa_ok = dp_cfa_rule_span(c->id->cfi, at, &c->cfa_reg, &c->cfa_off, &c->cfa_lo,
					     &c->cfa_hi);
	if (!c->cfa_ok || c->cfa_reg != PERF_REG_X86_SP)
		return false;
	*off = disp - c->cfa_off;
	return true;
}

/* Where memory operand m of in lies from the frame's CFA, when it is a
 * stack slot named by the stack pointer and a constant. */
static bool sp_slot(ctx *c, const dp_insn *in, const dp_memop *m, int64_t *at)
{
	return m->base == PERF_REG_X86_SP && m->index < 0 && !m->implicit &&
	       cfa_slot(c, in->addr, m->disp, at);
}

/* Whether instruction j moves a value of size bytes through the stack
 * slot at slot from the CFA. */
static bool same_slot(ctx *c, long j, int64_t slot, unsigned size)
{
	const dp_insn *in = &c->t->insns.v[j];
	int64_t other;

	return in->nmem == 1 && in->mem[0].size == size && sp_slot(c, in, &in->mem[0], &other) &&
	       other == slot;
}

/* Whether instruction j may write any of the 8 bytes at slot from the CFA:
 * a store through the stack pointer that overlaps them (a spill slot's
 * address is never taken: no other store reaches it). */
static bool writes_slot(ctx *c, long j, int64_t slot)
{
	const dp_insn *in = &c->t->insns.v[j];

	for (int k = 0; k < in->nmem; k++) {
		const dp_memop *m = &in->mem[k];
		int64_t at;

		if (!(m->access & DP_ACC_STORE) || m->implicit == DP_IMPLICIT_STACK ||
		    m->base != PERF_REG_X86_SP)
			continue;
		if (!sp_slot(c, in, m, &at) || (at < slot + 8 && at + m->size > slot))
			return true;
	}
	return false;
}

/* reg_type follows a value through a spill slot as through a register:
 * a slot no variable owns, by its place from the CFA, is a register of
 * its own, numbered from SLOT_REG. */
#define SLOT_REG     64
#define SLOT_OF(off) (SLOT_REG + (int)-(off))
#define SLOT_AT(reg) (-(int64_t)((reg)-SLOT_REG)) /* SLOT_OF's inverse */
#define IS_SLOT(reg) ((reg) >= SLOT_REG)
#define SLOT_LIMIT   (1 << 20) /* the deepest slot followed below the CFA */

static void reg_type(ctx *c, long i, int reg, int depth, ptr_type *o);

/* The stack variable at base + disp at pc, and the offset into it. */
static bool stack_slot(ctx *c, uint64_t pc, int base, int64_t disp, Dwarf_Die *type, int64_t *rel,
		       uint32_t *name)
{
	return dp_stack_var_at(c->id, c->strs, pc, base, disp, type, rel, name);
}

/* The pointer type of what the load at j brings into a register. */
static void loaded_type(ctx *c, long j, int depth, ptr_type *o)
{
	const dp_insn *in = &c->t->insns.v[j];
	const dp_memop *m = &in->mem[0];
	ptr_type base;

	memset(o, 0, sizeof(*o));
	o->fail = DP_AR_NO_VARIABLE;
	if (in->nmem < 1 || m->index >= 0 || m->seg)
		return;
	if (m->base == PERF_REG_X86_IP) {
		const dp_static_var *v =
			dp_static_at(c->id, c->strs, in->addr + in->len + (uint64_t)m->disp, in->addr);
		if (!v || !v->has_type)
			return;
		uint64_t vaddr = in->addr + in->len + (uint64_t)m->disp;
		member_type_at(c, (Dwarf_Die *)&v->type, (int64_t)(vaddr - v->addr), o);
		return;
	}
	if (m->base < 0)
		return;
	if (m->base == PERF_REG_X86_SP || m->base == PERF_REG_X86_BP) {
		/* a spilled pointer: the variable of that stack slot */
		Dwarf_Die slot;
		int64_t rel;

		if (stack_slot(c, in->addr, m->base, m->disp, &slot, &rel, NULL)) {
			member_type_at(c, &slot, rel, o);
			if (o->found)
				return;
		} else if (m->base == PERF_REG_X86_SP) {
			/* a slot no variable owns: what was spilled there */
			int64_t off;

			if (m->size == 8 && sp_slot(c, in, m, &off) && off < 0 && off > -SLOT_LIMIT)
				reg_type(c, j, SLOT_OF(off), depth - 1, o);
			return;
		}
		if (m->base == PERF_REG_X86_SP)
			return;
	}
	reg_type(c, j, m->base, depth - 1, &base);
	if (!base.found) {
		*o = base;
		return;
	}
	member_type_at(c, &base.pointee, base.adj + m->disp, o);
	o->tracked = true;
}

/* The member of obj at off, if it is a pointer: what it points to. */
static void member_type_at(ctx *c, Dwarf_Die *obj, int64_t off, ptr_type *o)
{
	Dwarf_Die leaf;
	dp_buf path = {0};

	memset(o, 0, sizeof(*o));
	if (off < 0 || dp_member_path(obj, (uint64_t)off, 8, &path, &leaf) != DP_PATH_OK) {
		o->fail = DP_AR_OFFSET_OUTSIDE;
	} else if (dp_type_pointee(&leaf, &o->pointee)) {
		o->found = true;
		o->tracked = true;
	} else {
		o->fail = DP_AR_NOT_POINTER;
	}
	(void)c;
	dp_buf_free(&path);
}

/* What reg holds just before instruction i runs: merged over every way
 * into i; a way that loops back into the search itself gives no evidence
 * (the type is the same around a loop; pointer steps change only the offset). */
static void reg_type(ctx *c, long i, int reg, int depth, ptr_type *o)
{
	long preds[8];
	int np;
	ptr_type acc, unknown = {0};
	bool have = false;

	memset(o, 0, sizeof(*o));
	o->fail = DP_AR_NO_VARIABLE;
	if (reg < 0)
		return;
	for (int k = 0; k < c->npath; k++)
		if (c->path[k].insn == i && c->path[k].reg == reg) {
			o->neutral = true;
			return;
		}
	if (!IS_SLOT(reg) && var_in_reg(c, c->t->insns.v[i].addr, reg, true, o))
		return;
	if (depth <= 0 || c->npath >= (int)DP_ARRAY_LEN(c->path))
		return;
	np = predecessors(c->t, i, preds, 8);
	if (np <= 0)
		return;
	c->path[c->npath].insn = i;
	c->path[c->npath].reg = reg;
	c->npath++;
	for (int k = 0; k < np; k++) {
		const dp_insn *in = &c->t->insns.v[preds[k]];
		ptr_type r;

		memset(&r, 0, sizeof(r));
		r.fail = DP_AR_NO_VARIABLE;
		if (IS_SLOT(reg)) {
			/* the last store into the slot: its register's value; any
			 * other write into it (another size, another place that
			 * overlaps it) says nothing */
			if (!writes_slot(c, preds[k], SLOT_AT(reg))) {
				reg_type(c, preds[k], reg, depth - 1, &r);
			} else if (in->df == DP_DF_STORE &&
				   same_slot(c, preds[k], SLOT_AT(reg), 8)) {
				reg_type(c, preds[k], in->df_src, depth - 1, &r);
				r.tracked = true;
			}
		} else if (!(in->regs_written & (1u << reg))) {
			reg_type(c, preds[k], reg, depth - 1, &r);
		} else if (in->df_dst == reg && in->df == DP_DF_MOV) {
			reg_type(c, preds[k], in->df_src, depth - 1, &r);
			r.tracked = true;
		} else if (in->df_dst == reg && in->df == DP_DF_LEA) {
			reg_type(c, preds[k], in->df_src, depth - 1, &r);
			r.adj += in->df_imm;
			r.indexed |= in->df_indexed;
			r.tracked = true;
		} else if (in->df_dst == reg && in->df == DP_DF_ADDREG) {
			/* pointer + index, or index + pointer: whichever is a pointer */
			reg_type(c, preds[k], reg, depth - 1, &r);
			if (!r.found && !r.neutral)
				reg_type(c, preds[k], in->df_src, depth - 1, &r);
			r.indexed = true;
			r.tracked = true;
		} else if (in->df_dst == reg && in->df == DP_DF_ADD) {
			reg_type(c, preds[k], reg, depth - 1, &r);
			r.adj += in->df_imm;
			r.tracked = true;
		} else if (in->df_dst == reg && in->df == DP_DF_LOAD) {
			loaded_type(c, preds[k], depth - 1, &r);
		}
		if (r.neutral)
			continue;
		if (!r.found && r.fail == DP_AR_NO_VARIABLE) {
			/* a way in where nothing says what the register holds
			 * (a spill of a compiler's temporary, a loop's retry
			 * path): the others say it, as perf's annotate-data
			 * follows the one way it finds */
			unknown = r;
			continue;
		}
		if (!r.found) {
			*o = r;
			c->npath--;
			return; /* one way in is wrong for a pointer: so is the join */
		}
		if (have && !same_type(&acc.pointee, &r.pointee)) {
			o->fail = DP_AR_AMBIGUOUS;
			c->npath--;
			return;
		}
		if (have && acc.adj != r.adj && !acc.indexed && !r.indexed) {
			/* the same type stepped by whole elements (a loop's pointer) */
			uint64_t sz = dp_type_size(&acc.pointee);
			int64_t d = acc.adj - r.adj;
			if (!sz || d % (int64_t)sz) {
				o->fail = DP_AR_AMBIGUOUS;
				c->npath--;
				return;
			}
		}
		if (!have)
			acc = r;
		acc.indexed |= r.indexed;
		have = true;
	}
	c->npath--;
	if (!have) {
		if (unknown.fail)
			*o = unknown;
		else
			o->neutral = true;
		return;
	}
	*o = acc;
	o->tracked = true;
}

static void set_path(ctx *c, dp_construct *k, Dwarf_Die *type, int64_t off, bool wrap,
		     unsigned access_size)
{
	dp_buf member = {0}, tn = {0};
	uint64_t size = dp_type_size(type);
	dp_path_result pr;
	Dwarf_Die peeled;

	/* a pointer to a scalar that stepped past the element it reads: `*p++`
	 * on bytes is often `-1(%reg)` after the step */
	dp_type_peel(type, &peeled);
	if (off < 0 && wrap && size && dwarf_tag(&peeled) == DW_TAG_base_type)
		off = off % (int64_t)size + (int64_t)size;
	if (off < 0) {
		k->reason = DP_AR_OFFSET_OUTSIDE;
		return;
	}
	/* through a pointer, one element of an array of the type (unless the
	 * type's last member runs on past it) */
	if (wrap && size && (uint64_t)off >= size && !dp_type_flexible(type))
		off %= (int64_t)size;
	pr = dp_object_path(type, (uint64_t)off, access_size, &tn, &member);
	if (pr != DP_PATH_OK) {
		k->reason = dp_path_reason(pr);
	} else {
		k->type = dp_strtab_intern(c->strs, tn.p);
		k->type_die = *type;
		if (member.len)
			k->member = dp_strtab_intern(c->strs, member.p);
	}
	dp_buf_free(&member);
	dp_buf_free(&tn);
}

/* k: the type of a value moved through memory (origin DP_CO_VALUE or
 * DP_CO_SPILL), the whole type: no offset in it to find. */
static void set_moved(dp_construct *k, uint8_t origin, uint32_t var, uint32_t type,
		      const Dwarf_Die *die)
{
	k->origin = origin;
	k->var = var;
	k->type = type;
	k->type_die = *die;
	k->indexed = false;
	k->reason = DP_AR_NONE;
}

/* When nothing says what the base register points to, a load may still
 * say what it reads: the variable its destination register holds just
 * after it (at -O0: the stack slot the next instruction stores it to; or
 * the parameter of the function called next), when that variable has the
 * access's size. The memory then holds that type
 * (`struct bucket *`): a weaker answer than a typed pointer's, and the data
 * object's own type, when it has one, wins over it. */
static void value_type(ctx *c, long i, const dp_memop *m, dp_construct *k)
{
	const dp_insn *in = &c->t->insns.v[i], *next;
	uint64_t pc = in->addr + in->len;
	ptr_type v;
	Dwarf_Die slot;
	int64_t rel;
	dp_buf tn = {0};

	if (in->df != DP_DF_LOAD || in->df_dst < 0 || m->access != DP_ACC_LOAD)
		return;
	memset(&v, 0, sizeof(v));
	next = (size_t)i + 1 < c->t->insns.n ? &c->t->insns.v[i + 1] : NULL;
	if (next && next->addr != pc)
		next = NULL;
	if (var_in_reg(c, pc, in->df_dst, false, &v)) {
		/* a variable of this function */
	} else if (next && (next->flags & DP_INSN_CALL) && !(next->flags & DP_INSN_INDIRECT) &&
		   next->target && var_in_reg(c, next->target, in->df_dst, false, &v)) {
		/* an argument: the callee's parameter in that register at its entry */
	} else {
		if (!next || next->nmem != 1 ||
		    next->mem[0].access != DP_ACC_STORE || next->mem[0].index >= 0 ||
		    next->mem[0].size != m->size || !(next->regs_read & (1u << in->df_dst)) ||
		    (next->mem[0].base != PERF_REG_X86_SP && next->mem[0].base != PERF_REG_X86_BP) ||
		    !stack_slot(c, next->addr, next->mem[0].base, next->mem[0].disp, &slot, &rel,
				&v.var) ||
		    rel != 0)
			return;
		v.pointee = slot;
	}
	if (dp_type_size(&v.pointee) != m->size)
		return;
	dp_type_name(&v.pointee, &tn);
	if (tn.p && tn.len)
		set_moved(k, DP_CO_VALUE, v.var, dp_strtab_intern(c->strs, tn.p), &v.pointee);
	dp_buf_free(&tn);
}

/* The type of the value instruction j moves between a register and its
 * memory operand of size bytes: the variable in that register (before a
 * store, after a load), or for a 64-bit store the pointer followed back to
 * one ("T *"). A strtab id, with the type's DIE (the pointee for a
 * followed pointer); 0 when nothing says. */
static uint32_t moved_type(ctx *c, long j, unsigned size, Dwarf_Die *die, uint32_t *var)
{
	const dp_insn *in = &c->t->insns.v[j];
	int reg = moved_reg(in);
	bool load = in->mem[0].access == DP_ACC_LOAD;
	ptr_type v;
	dp_buf tn = {0};
	uint32_t id = 0;

	if (reg < 0)
		return 0;
	memset(&v, 0, sizeof(v));
	if (var_in_reg(c, load ? in->addr + in->len : in->addr, reg, false, &v)) {
		if (dp_type_size(&v.pointee) == size)
			dp_type_name(&v.pointee, &tn);
	} else if (!load && size == 8 && in->df == DP_DF_STORE) {
		c->npath = 0;
		reg_type(c, j, reg, TRACK_DEPTH, &v);
		if (v.found) {
			dp_type_name(&v.pointee, &tn);
			if (tn.len)
				dp_buf_puts(&tn, " *");
		}
	}
	if (tn.p && tn.len) {
		id = dp_strtab_intern(c->strs, tn.p);
		*die = v.pointee;
		*var = v.var;
	}
	dp_buf_free(&tn);
	return id;
}

/* A stack slot that no variable of the function owns: a register the
 * compiler spilled. It holds the type of the values moved through it: this
 * instruction's own, else those of every other move of the function
 * through the same slot (the same place from the CFA, the same size), when
 * they agree. Like a load's destination (value_type), a weaker answer than
 * a variable's. */
static void spill_type(ctx *c, long i, const dp_memop *m, dp_construct *k)
{
	int64_t slot;
	uint32_t type, var = 0;
	Dwarf_Die die;

	if (m->base != PERF_REG_X86_SP || m->index >= 0)
		return;
	type = moved_type(c, i, m->size, &die, &var);
	if (!type && sp_slot(c, &c->t->insns.v[i], m, &slot))
		for (size_t j = 0; j < c->t->insns.n; j++) {
			Dwarf_Die d;
			uint32_t t, tv = 0;

			if ((long)j == i || !same_slot(c, (long)j, slot, m->size) ||
			    !(t = moved_type(c, (long)j, m->size, &d, &tv)))
				continue;
			if (type && t != type)
				return; /* the slot holds values of more than one type */
			type = t;
			die = d;
			var = tv;
		}
	if (type)
		set_moved(k, DP_CO_SPILL, var, type, &die);
}

static void compute(ctx *c, long i, int mem, dp_construct *k)
{
	const dp_insn *in = &c->t->insns.v[i];
	const dp_memop *m = &in->mem[mem];

	memset(k, 0, sizeof(*k));
	k->indexed = m->index >= 0;
	k->base = -1;
	if (!c->id->dw) {
		k->reason = DP_AR_NO_DEBUG_INFO;
		return;
	}
	if (m->implicit == DP_IMPLICIT_STACK) {
		k->reason = DP_AR_STACK_OP;
		return;
	}
	if (m->seg) {
		k->reason = DP_AR_NO_VARIABLE;
		return;
	}
	if (m->base == PERF_REG_X86_IP || m->base < 0) {
		uint64_t a = (m->base < 0 ? 0 : in->addr + in->len) + (uint64_t)m->disp;
		const dp_static_var *v = dp_static_at(c->id, c->strs, a, in->addr);

		if (!v || !v->has_type) {
			k->reason = v ? DP_AR_NO_TYPE : DP_AR_NO_VARIABLE;
			return;
		}
		k->origin = DP_CO_STATIC;
		k->var = v->name;
		set_path(c, k, (Dwarf_Die *)&v->type, (int64_t)(a - v->addr), m->index >= 0, m->size);
		return;
	}
	if (m->base == PERF_REG_X86_SP || m->base == PERF_REG_X86_BP) {
		Dwarf_Die slot;
		int64_t rel;
		uint32_t name;

		if (stack_slot(c, in->addr, m->base, m->disp, &slot, &rel, &name)) {
			k->origin = DP_CO_STACK;
			k->var = name;
			set_path(c, k, &slot, rel, false, m->size);
			return;
		}
		/* rbp may also be an ordinary pointer register at -O2: fall through */
	}
	ptr_type p;
	c->npath = 0;
	reg_type(c, i, m->base, TRACK_DEPTH, &p);
	if (!p.found) {
		k->reason = p.fail ? p.fail : DP_AR_NO_VARIABLE;
		value_type(c, i, m, k);
		if (!k->type)
			spill_type(c, i, m, k);
		return;
	}
	k->origin = p.tracked ? DP_CO_TRACKED : DP_CO_POINTER;
	k->var = p.var;
	k->indexed |= p.indexed;
	/* a pointer stepped by an unknown index: its value says nothing of the offset */
	k->base = p.indexed ? -1 : m->base;
	k->adj = p.adj;
	set_path(c, k, &p.pointee, p.adj + m->disp, true, m->size);
}

const dp_construct *dp_construct_of(dp_image_dwarf *id, dp_strtab *strs, const dp_func_table *t,
				    long insn, uint64_t insn_vaddr, int mem)
{
	uint64_t key = (insn_vaddr << 1) | (uint64_t)(mem & 1), v;
	ctx c;
	dp_construct k;

	if (id->cons_v && dp_hashmap_get(&id->constructs, key, &v))
		return &id->cons_v->v[v];
	if (!id->cons_v)
		id->cons_v = dp_calloc(1, sizeof(*id->cons_v));
	memset(&c, 0, sizeof(c));
	c.id = id;
	c.strs = strs;
	c.t = t;
	compute(&c, insn, mem, &k);
	dp_vec_push(id->cons_v, k);
	dp_hashmap_put(&id->constructs, key, id->cons_v->n - 1);
	return &id->cons_v->v[id->cons_v->n - 1];
}
