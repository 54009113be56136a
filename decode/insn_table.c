#include "insn_table.h"

#include <stdlib.h>
#include <string.h>

#define MAX_FUNCTION (4u << 20) /* decode at most this much of one function */

static void link_blocks(dp_func_table *t);

static dp_func_table *finish(dp_arch *a, dp_func_table *t, size_t len)
{
	t->end = t->start + len;
	dp_arch_decode(a, t->bytes, len, t->start, &t->insns);
	if (t->insns.n)
		link_blocks(t);
	return t;
}

dp_func_table *dp_func_table_build(dp_arch *a, const dp_image *im, const dp_symbol *fn)
{
	dp_func_table *t = dp_calloc(1, sizeof(*t));
	size_t len = (size_t)DP_MIN(fn->size, (uint64_t)MAX_FUNCTION);

	t->start = fn->addr;
	t->bytes = dp_malloc(len ? len : 1);
	return finish(a, t, dp_image_read(im, fn->addr, t->bytes, len));
}

dp_func_table *dp_func_table_from_bytes(dp_arch *a, const uint8_t *code, size_t len, uint64_t vaddr)
{
	dp_func_table *t = dp_calloc(1, sizeof(*t));

	t->start = vaddr;
	t->bytes = dp_malloc(len ? len : 1);
	memcpy(t->bytes, code, len);
	return finish(a, t, len);
}

static bool falls_through(const dp_insn *in)
{
	return !(in->flags & (DP_INSN_JUMP | DP_INSN_RET | DP_INSN_INVALID));
}

static void add_pred(dp_insn *to, long from)
{
	if (to->npred == 255)
		return;
	/* the fall-through stays the preferred one when there are several */
	if (to->npred == 0 || to->pred < 0)
		to->pred = (int32_t)from;
	to->npred++;
}

/* Block starts, and for each instruction what can run just before it:
 * the one above it if that one falls through and is itself reachable,
 * and every direct branch that targets it. A unique predecessor lets
 * backtracking step over a branch target without losing certainty. */
static void link_blocks(dp_func_table *t)
{
	size_t n = t->insns.n;
	dp_insn *v = t->insns.v;
	bool *reach = dp_calloc(n, 1), *targeted = dp_calloc(n, 1);

	for (size_t i = 0; i < n; i++) {
		v[i].pred = -1;
		v[i].npred = 0;
		if ((v[i].flags & DP_INSN_JUMP) && (v[i].flags & DP_INSN_INDIRECT))
			t->has_indirect_jump = true;
		if ((v[i].flags & (DP_INSN_JUMP | DP_INSN_COND)) && v[i].target >= t->start &&
		    v[i].target < t->end) {
			long k = dp_func_table_find(t, v[i].target);

			if (k >= 0)
				targeted[k] = true;
		}
	}
	v[0].flags |= DP_INSN_LEADER;
	v[0].npred = 255; /* called from anywhere */
	reach[0] = true;
	for (size_t i = 1; i < n; i++) {
		if (!falls_through(&v[i - 1]))
			v[i].flags |= DP_INSN_LEADER;
		if (targeted[i])
			v[i].flags |= DP_INSN_LEADER;
		/* a block after an unconditional jump may be a jump-table target */
		reach[i] = targeted[i] || (reach[i - 1] && falls_through(&v[i - 1])) ||
			   (t->has_indirect_jump && !falls_through(&v[i - 1]));
		if (reach[i - 1] && falls_through(&v[i - 1]))
			add_pred(&v[i], (long)i - 1);
		if (t->has_indirect_jump && !falls_through(&v[i - 1]))
			v[i].npred = 255;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(v[i].flags & (DP_INSN_JUMP | DP_INSN_COND)) || v[i].target < t->start ||
		    v[i].target >= t->end)
			continue;
		long k = dp_func_table_find(t, v[i].target);
		if (k > 0)
			add_pred(&v[k], (long)i);
	}
	free(reach);
	free(targeted);
}

void dp_func_table_free(dp_func_table *t)
{
	if (!t)
		return;
	dp_vec_free(&t->insns);
	free(t->bytes);
	free(t);
}

long dp_func_table_containing(const dp_func_table *t, uint64_t vaddr)
{
	size_t lo = DP_PARTITION_POINT(t->insns.n, i, t->insns.v[i].addr <= vaddr);

	if (lo == 0)
		return -1;
	const dp_insn *in = &t->insns.v[lo - 1];
	return vaddr < in->addr + in->len ? (long)(lo - 1) : -1;
}

long dp_func_table_find(const dp_func_table *t, uint64_t vaddr)
{
	long k = dp_func_table_containing(t, vaddr);

	return k >= 0 && t->insns.v[k].addr == vaddr ? k : -1;
}

long dp_func_table_after_call(const dp_func_table *t, uint64_t ret)
{
	long k = dp_func_table_containing(t, ret - 1);

	if (k >= 0 && (t->insns.v[k].flags & DP_INSN_CALL) && (size_t)k + 1 < t->insns.n)
		return k + 1;
	return dp_func_table_find(t, ret);
}
