#include "alloc_wrapper.h"

#include <asm/perf_regs.h>

#define MAX_STEPS 64 /* instructions on all paths: a wrapper's tail is short */
#define MAX_OPEN  8  /* branches waiting to be followed */
#define MAX_SLOTS 4  /* stack slots holding the block (-O0 spills) */

/* Where the block is, on one path. */
struct holds {
	long i;			      /* the next instruction */
	uint32_t regs;		      /* registers holding it (perf numbering) */
	int8_t slot_base[MAX_SLOTS];  /* stack slots holding it: base register, */
	int64_t slot_disp[MAX_SLOTS]; /* displacement; base DP_REG_NONE: free */
	bool tested;		      /* the instruction before tested it for null */
};

static bool stack_base(int r)
{
	return r == PERF_REG_X86_SP || r == PERF_REG_X86_BP;
}

static int slot_find(const struct holds *h, const dp_memop *m)
{
	if (!stack_base(m->base) || m->index != DP_REG_NONE)
		return -1;
	for (int k = 0; k < MAX_SLOTS; k++)
		if (h->slot_base[k] == m->base && h->slot_disp[k] == m->disp)
			return k;
	return -1;
}

static void slot_set(struct holds *h, const dp_memop *m, bool holds)
{
	int k = slot_find(h, m);

	if (k >= 0 && !holds)
		h->slot_base[k] = DP_REG_NONE;
	for (k = 0; holds && k < MAX_SLOTS; k++)
		if (h->slot_base[k] == DP_REG_NONE) {
			h->slot_base[k] = m->base;
			h->slot_disp[k] = m->disp;
			return;
		}
}

/* Does in write into the block (its address formed from a register that
 * holds it)? Storing the block's address elsewhere, or writing other
 * memory (a counter, errno), is not work on the block. */
static bool writes_block(const dp_insn *in, const struct holds *h)
{
	for (uint8_t k = 0; k < in->nmem; k++) {
		const dp_memop *m = &in->mem[k];

		if (!(m->access & DP_ACC_STORE) || m->implicit == DP_IMPLICIT_STACK)
			continue;
		if ((m->base >= 0 && (h->regs >> m->base & 1)) ||
		    (m->index >= 0 && (h->regs >> m->index & 1)))
			return true;
	}
	return false;
}

/* What in does to where the block is. */
static void step(const dp_insn *in, struct holds *h)
{
	bool src = in->df_src >= 0 && (h->regs >> in->df_src & 1);
	uint32_t written = in->regs_written;

	h->tested = false;
	switch (in->df) {
	case DP_DF_TESTZ:
		h->tested = in->df_src >= 0 ? src : in->nmem && slot_find(h, &in->mem[0]) >= 0;
		return;
	case DP_DF_STORE:
		if (in->nmem)
			slot_set(h, &in->mem[0], src);
		return;
	case DP_DF_MOV:
	case DP_DF_LEA: /* a header skipped: still the block */
		written &= ~(1u << in->df_dst);
		h->regs = (h->regs & ~(1u << in->df_dst)) | (uint32_t)src << in->df_dst;
		break;
	case DP_DF_ADD:
		written &= ~(1u << in->df_dst); /* keeps what it held */
		break;
	case DP_DF_LOAD: {
		bool from_slot = in->nmem && slot_find(h, &in->mem[0]) >= 0;

		written &= ~(1u << in->df_dst);
		h->regs = (h->regs & ~(1u << in->df_dst)) | (uint32_t)from_slot << in->df_dst;
		break;
	}
	default:
		break;
	}
	h->regs &= ~written;
}

bool dp_alloc_wrapper_returns(const dp_func_table *t, uint64_t ret)
{
	struct holds open[MAX_OPEN], h;
	int nopen = 1, steps = 0;
	bool returned = false;

	if (!t)
		return false;
	h.i = dp_func_table_after_call(t, ret);
	h.regs = 1u << PERF_REG_X86_AX;
	h.tested = false;
	for (int k = 0; k < MAX_SLOTS; k++)
		h.slot_base[k] = DP_REG_NONE, h.slot_disp[k] = 0;
	if (h.i < 0)
		return false;
	open[0] = h;
	while (nopen) {
		h = open[--nopen];
		for (;;) {
			if (h.i < 0 || h.i >= (long)t->insns.n || ++steps > MAX_STEPS)
				return false; /* off the function, or too long to be a wrapper */
			const dp_insn *in = &t->insns.v[h.i];
			bool tested = h.tested;

			if (in->flags & (DP_INSN_INVALID | DP_INSN_INDIRECT | DP_INSN_CALL))
				return false; /* more work than returning the block */
			if (in->flags & DP_INSN_RET) {
				if (!(h.regs >> PERF_REG_X86_AX & 1))
					return false; /* returns something else */
				returned = true;
				break;
			}
			if (writes_block(in, &h))
				return false; /* fills it in: the site itself */
			if (in->df == DP_DF_STORE && in->nmem && in->df_src >= 0 &&
			    (h.regs >> in->df_src & 1) && !stack_base(in->mem[0].base))
				return false; /* keeps it in an object (x->m = p): the site,
						 whatever is left in the return register */
			step(in, &h);
			if (in->flags & DP_INSN_JUMP) {
				if (!in->target)
					return false;
				h.i = dp_func_table_find(t, in->target);
				continue;
			}
			if (in->flags & DP_INSN_COND) {
				long taken = in->target ? dp_func_table_find(t, in->target) : -1;

				/* the branch where the block is null is not followed: there
				 * the function fails, dies or returns NULL */
				if (tested && in->cc == DP_CC_Z) {
					h.i++;
					continue;
				}
				if (tested && in->cc == DP_CC_NZ) {
					h.i = taken;
					continue;
				}
				if (nopen == MAX_OPEN)
					return false;
				open[nopen] = h;
				open[nopen++].i = taken;
			}
			h.i++;
		}
	}
	return returned;
}
