/* Registers spilled to stack slots that no variable owns, as a compiler
 * spills its temporaries (annotate/construct.c, spill_type): a slot typed
 * by the variable stored into it, a reload by the stores into its slot,
 * and a slot that two types go through typed by neither. Built without a
 * frame pointer, so that the call frame information gives the CFA from
 * rsp as in most -O2 code; part of dwarf_types, never run. */
struct pair {
	long a, b;
};

long spill_slots(struct pair *p, int k, long x);

__attribute__((noinline)) long spill_slots(struct pair *p, int k, long x)
{
	long v;

	/* a leaf's red zone, where gcc puts its own spills in a leaf */
	__asm__ volatile("	movq %[p], -16(%%rsp)\n"
			 "	movl %[k], -20(%%rsp)\n"
			 "	movq %[p], -32(%%rsp)\n"
			 "	movq %[x], -32(%%rsp)\n"
			 "	movq -16(%%rsp), %%r9\n"
			 "	movl -20(%%rsp), %%r10d\n"
			 "	movq -32(%%rsp), %%r11\n"
			 "	movq 8(%%r9), %[v]\n"
			 "	addq %%r11, %[v]\n"
			 "	addq %%r10, %[v]\n"
			 : [v] "=&r"(v)
			 : [p] "r"(p), [k] "r"(k), [x] "r"(x)
			 : "r9", "r10", "r11", "cc", "memory");
	return v;
}
