/* Simple allocator wrappers found from their machine code: a function
 * whose only job, once the allocator it called has returned, is to return
 * what it got -- after a null test whose other branch may end the program
 * (xmalloc), through register copies and stack spills (-O0). It needs no
 * name and no debug information. A function that stores into the new block
 * (a constructor, luaH_new, a factory that sets fields), keeps it in an
 * object (`x->m = malloc(n)` in a void function, the block's address left
 * in the return register), calls anything else on the way out, or returns
 * something else is the allocation site itself; `record --alloc-fn` names
 * those. */
#ifndef DP_ALLOC_WRAPPER_H
#define DP_ALLOC_WRAPPER_H

#include <stdbool.h>
#include <stdint.h>

#include "../decode/insn_table.h"

/* Whether the function of t, its call returning to ret (an ELF virtual
 * address in t) having just produced a block in the return register,
 * returns that block and does nothing else with it on every path that does
 * not find it null. */
bool dp_alloc_wrapper_returns(const dp_func_table *t, uint64_t ret);

#endif
