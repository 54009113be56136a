/* How far the stack pointer is below a function's CFA at one of its
 * instructions, worked out from the code (pushes and stack adjustments
 * from its entry): what a call chain recorded as return-address slots
 * needs to find a caller's slot where the CFI says only "CFA = rbp + 16"
 * (frame-pointer functions: -O0, -fno-omit-frame-pointer). */
#ifndef DP_STACK_HEIGHT_H
#define DP_STACK_HEIGHT_H

#include <stdbool.h>
#include <stdint.h>

#include "../decode/insn_table.h"

/* CFA minus the stack pointer just before the instruction holding vaddr
 * (8 at the entry: the return address), into *height; false where the
 * code moves the stack pointer in a way not followed (realignment,
 * alloca). */
bool dp_stack_height(const dp_func_table *t, uint64_t vaddr, int64_t *height);

#endif
