#include "alloc_type.h"

#include <asm/perf_regs.h>

#include "construct.h"
#include "reg_var.h"

#define MAX_STEPS 96 /* instructions on all paths */
#define MAX_OPEN  8  /* branches waiting to be followed */
#define MAX_SLOTS 4  /* stack slots holding the pointer (-O0 spills) */

/* What a call keeps: the System V ABI's callee-saved registers. */
#define CALLEE_SAVED                                                                               \
	(1u << PERF_REG_X86_BX | 1u << PERF_REG_X86_BP | 1u << PERF_REG_X86_R12 |                  \
	 1u << PERF_REG_X86_R13 | 1u << PERF_REG_X86_R14 | 1u << PERF_REG_X86_R15)

/* Where the pointer is, on one path: registers and stack slots that hold
 * exactly it (not a step into the block). */
struct holds {
	long i;
	uint32_t regs;
	int8_t slot_base[MAX_SLOTS]; /* DP_REG_NONE: free */
	int64_t slot_disp[MAX_SLOTS];
};

struct best {
	dp_image_dwarf *id;
	dp_strtab *strs;
	const dp_func_table *t;
	bool found;
	uint64_t size;
	Dwarf_Die type;
};

static void consider(void *arg, Dwarf_Die *pointee)
{
	struct best *b = arg;
	uint64_t size = dp_type_size(pointee);

	if (size > b->size) {
		b->found = true;
		b->size = size;
		b->type = *pointee;
	}
}

static void consider_reg(struct best *b, uint64_t pc, int reg)
{
	dp_reg_pointees_each(b->id, pc, reg, consider, b);
}

static int slot_find(const struct holds *h, const dp_memop *m)
{
	if (m->index != DP_REG_NONE || (m->base != PERF_REG_X86_SP && m->base != PERF_REG_X86_BP))
		return -1;
	for (int k = 0; k < MAX_SLOTS; k++)
		if (h->slot_base[k] == m->base && h->slot_disp[k] == m->disp)
			return k;
	return -1;
}

/* The pointer stored into a typed object's member (`t->slots =
 * calloc(...)`, `g_table = malloc(...)`): what that member points to. */
static void store_to_member(struct best *b, long i)
{
	const dp_insn *in = &b->t->insns.v[i];
	const dp_memop *m = &in->mem[0];
	Dwarf_Die type, leaf, pointee;
	int64_t off;
	uint64_t size;
	dp_buf path = {0};

	if (m->index != DP_REG_NONE || m->size != 8)
		return;
	if (m->base == PERF_REG_X86_IP) {
		uint64_t a = in->addr + in->len + (uint64_t)m->disp;
		const dp_static_var *v = dp_static_at(b->id, b->strs, a, in->addr);

		if (!v || !v->has_type)
			return;
		type = v->type;
		off = (int64_t)(a - v->addr);
	} else {
		const dp_construct *k = dp_construct_of(b->id, b->strs, b->t, i, in->addr, 0);

		if (!k->type || k->indexed ||
		    (k->origin != DP_CO_POINTER && k->origin != DP_CO_TRACKED))
			return;
		type = k->type_die;
		off = k->adj + m->disp;
		size = dp_type_size(&type);
		if (off >= 0 && size && (uint64_t)off >= size && !dp_type_flexible(&type))
			off %= (int64_t)size; /* one of an array of them */
	}
	if (off >= 0 && dp_member_path(&type, (uint64_t)off, 8, &path, &leaf) == DP_PATH_OK &&
	    dp_type_pointee(&leaf, &pointee))
		consider(b, &pointee);
	dp_buf_free(&path);
}

/* A store of the pointer, or of something else: to a stack slot, or into
 * an object. */
static void store(struct best *b, long i, struct holds *h, bool held)
{
	const dp_insn *in = &b->t->insns.v[i];
	const dp_memop *m = &in->mem[0];
	int k = slot_find(h, m);
	Dwarf_Die slot, pointee;
	int64_t rel;

	if (k >= 0 && !held)
		h->slot_base[k] = DP_REG_NONE;
	if (held && m->base != PERF_REG_X86_SP && m->base != PERF_REG_X86_BP)
		store_to_member(b, i);
	if (!held || (m->base != PERF_REG_X86_SP && m->base != PERF_REG_X86_BP) ||
	    m->index != DP_REG_NONE)
		return;
	/* -O0 keeps every variable in its slot */
	if (dp_stack_var_at(b->id, b->strs, in->addr, m->base, m->disp, &slot, &rel, NULL) &&
	    rel == 0 && dp_type_pointee(&slot, &pointee))
		consider(b, &pointee);
	if (k >= 0)
		return;
	for (k = 0; k < MAX_SLOTS; k++)
		if (h->slot_base[k] == DP_REG_NONE) {
			h->slot_base[k] = m->base;
			h->slot_disp[k] = m->disp;
			break;
		}
}

/* What instruction i does to where the pointer is. */
static void step(struct best *b, long i, struct holds *h)
{
	const dp_insn *in = &b->t->insns.v[i];
	bool src = in->df_src >= 0 && (h->regs >> in->df_src & 1);
	uint32_t written = in->regs_written, dst = in->df_dst >= 0 ? 1u << in->df_dst : 0;

	switch (in->df) {
	case DP_DF_STORE:
		if (in->nmem)
			store(b, i, h, src);
		return;
	case DP_DF_MOV:
		h->regs = (h->regs & ~dst) | (src ? dst : 0);
		return;
	case DP_DF_LEA: /* the same pointer only without a step */
		h->regs = (h->regs & ~dst) | (src && !in->df_imm && !in->df_indexed ? dst : 0);
		return;
	case DP_DF_LOAD:
		h->regs = (h->regs & ~dst) | (in->nmem && slot_find(h, &in->mem[0]) >= 0 ? dst : 0);
		return;
	default:
		break;
	}
	if (in->flags & DP_INSN_CALL) {
		/* a constructor, an init function: its first parameter says what
		 * it takes the block for */
		Dwarf_Die pointee;

		if (in->target && !(in->flags & DP_INSN_INDIRECT) &&
		    (h->regs >> PERF_REG_X86_DI & 1) &&
		    dp_first_param_pointee(b->id, in->target, &pointee))
			consider(b, &pointee);
		h->regs &= CALLEE_SAVED;
	}
	h->regs &= ~written;
}

bool dp_alloc_result_type(dp_image_dwarf *id, dp_strtab *strs, const dp_func_table *t, uint64_t ret,
			  Dwarf_Die *type)
{
	struct best b = {.id = id, .strs = strs, .t = t};
	struct holds open[MAX_OPEN], h;
	int nopen = 1, steps = 0;

	if (!t || !id || !id->dw)
		return false;
	h.i = dp_func_table_after_call(t, ret);
	h.regs = 1u << PERF_REG_X86_AX;
	for (int k = 0; k < MAX_SLOTS; k++)
		h.slot_base[k] = DP_REG_NONE, h.slot_disp[k] = 0;
	if (h.i < 0)
		return false;
	open[0] = h;
	while (nopen && steps < MAX_STEPS) {
		h = open[--nopen];
		while (h.i >= 0 && h.i < (long)t->insns.n && ++steps <= MAX_STEPS) {
			const dp_insn *in = &t->insns.v[h.i];
			bool held_slot = false;

			for (int k = 0; k < MAX_SLOTS; k++)
				held_slot |= h.slot_base[k] != DP_REG_NONE;
			if (!h.regs && !held_slot)
				break; /* nothing holds it any more on this path */
			for (uint32_t r = h.regs; r; r &= r - 1)
				consider_reg(&b, in->addr, __builtin_ctz(r));
			if (in->flags & (DP_INSN_INVALID | DP_INSN_RET) ||
			    (in->flags & (DP_INSN_JUMP | DP_INSN_INDIRECT)) ==
				(DP_INSN_JUMP | DP_INSN_INDIRECT))
				break;
			step(&b, h.i, &h);
			if (in->flags & DP_INSN_JUMP) {
				h.i = in->target ? dp_func_table_find(t, in->target) : -1;
				continue;
			}
			if ((in->flags & DP_INSN_COND) && in->target && nopen < MAX_OPEN) {
				open[nopen] = h;
				open[nopen++].i = dp_func_table_find(t, in->target);
			}
			h.i++;
		}
	}
	if (b.found)
		*type = b.type;
	return b.found;
}
