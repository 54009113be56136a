#include "stack_height.h"

#include <asm/perf_regs.h>

#define MAX_TARGETS 64

/* The heights at the forward branches seen: code after a ret or a jump
 * is reached only through them. */
struct targets {
	long i[MAX_TARGETS];
	int64_t h[MAX_TARGETS];
	int n;
};

static void target_add(struct targets *tg, const dp_func_table *t, const dp_insn *in, long at,
		       int64_t h)
{
	long i = in->target ? dp_func_table_find(t, in->target) : -1;

	if (i > at && tg->n == MAX_TARGETS) { /* forget the targets passed */
		int n = 0;

		for (int k = 0; k < tg->n; k++)
			if (tg->i[k] > at) {
				tg->i[n] = tg->i[k];
				tg->h[n++] = tg->h[k];
			}
		tg->n = n;
	}
	if (i > at && tg->n < MAX_TARGETS) {
		tg->i[tg->n] = i;
		tg->h[tg->n++] = h;
	}
}

static bool target_height(const struct targets *tg, long i, int64_t *h)
{
	for (int k = 0; k < tg->n; k++)
		if (tg->i[k] == i) {
			*h = tg->h[k];
			return true;
		}
	return false;
}

bool dp_stack_height(const dp_func_table *t, uint64_t vaddr, int64_t *height)
{
	long end = t ? dp_func_table_containing(t, vaddr) : -1;
	/* h: the height now; body: before the epilogue being walked (pops,
	 * add rsp, leave), which the code after its ret or tail jump resumes
	 * where no branch seen says better (an instruction scheduled into the
	 * epilogue, `add rsp; add rax; pop...`, moves body to mid-epilogue) */
	int64_t h = 8, body = 8;
	bool known = true, resumed = false;
	struct targets tg = {.n = 0};

	if (end < 0)
		return false;
	for (long i = 0; i < end; i++) {
		const dp_insn *in = &t->insns.v[i];
		bool epilogue = false;

		/* the first branch target after it (past any padding) */
		if (resumed && target_height(&tg, i, &h)) {
			body = h;
			resumed = false;
		}
		if (known && (in->flags & (DP_INSN_JUMP | DP_INSN_COND)))
			target_add(&tg, t, in, i, h);
		if (in->flags & (DP_INSN_RET | DP_INSN_JUMP)) {
			h = body;
			known = true;
			resumed = true;
			continue;
		}
		if (in->flags & DP_INSN_CALL) /* the callee pops what the call pushed */
			;
		else if (in->nmem && in->mem[0].implicit == DP_IMPLICIT_STACK) {
			if (in->mem[0].base == PERF_REG_X86_BP) { /* leave */
				known = false;
				epilogue = true;
			} else if (in->mem[0].access & DP_ACC_STORE) {
				h += 8; /* push */
			} else {
				h -= 8; /* pop */
				epilogue = true;
			}
		} else if (in->df == DP_DF_MOV && in->df_dst == PERF_REG_X86_SP) {
			known = false; /* mov rsp, rbp: an epilogue (or a frame switch) */
			epilogue = true;
		} else if (in->df == DP_DF_ADD && in->df_dst == PERF_REG_X86_SP) {
			h -= in->df_imm;
			epilogue = in->df_imm > 0;
		} else if (in->regs_written >> PERF_REG_X86_SP & 1) {
			known = false; /* and rsp, -32; mov rsp, rbp; alloca */
		}
		if (!epilogue)
			body = h;
		if (!known && !epilogue)
			return false;
	}
	if (resumed) /* vaddr's instruction is itself the target */
		target_height(&tg, end, &h);
	*height = h;
	return known;
}
