#include "stack_height.h"

#include <asm/perf_regs.h>

bool dp_stack_height(const dp_func_table *t, uint64_t vaddr, int64_t *height)
{
	long end = t ? dp_func_table_containing(t, vaddr) : -1;
	/* h: the height now; body: before the epilogue being walked (pops,
	 * add rsp, leave), which the code after its ret or tail jump resumes */
	int64_t h = 8, body = 8;
	bool known = true;

	if (end < 0)
		return false;
	for (long i = 0; i < end; i++) {
		const dp_insn *in = &t->insns.v[i];
		bool epilogue = false;

		if (in->flags & (DP_INSN_RET | DP_INSN_JUMP)) {
			h = body;
			known = true;
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
	*height = h;
	return known;
}
