/* The type of a heap block as the code that asked for it takes it: the
 * pointer variables its allocation's result goes to, just after the call
 * (`PyCompactUnicodeObject *unicode = (...)obj`, `struct node *n =
 * malloc(...)`, the `this` of the constructor `new` runs, the member it
 * is stored into: `t->slots = calloc(...)`). It names the
 * block's bytes where the instructions that touch it give no type: code
 * without debug information (memcpy, memcmp), a pointer nothing in DWARF
 * describes, a header type the access runs past. */
#ifndef DP_ALLOC_TYPE_H
#define DP_ALLOC_TYPE_H

#include <stdbool.h>
#include <stdint.h>

#include "../decode/insn_table.h"
#include "image_dwarf.h"

/* The type of what the call returning to ret (an ELF virtual address in
 * t) gave, from the variables that hold that very pointer afterwards: the
 * largest of their pointees (a header cast to the whole object, not the
 * reverse). False when no typed pointer holds it (`void *`, or the pointer
 * only stepped into the block). */
bool dp_alloc_result_type(dp_image_dwarf *id, dp_strtab *strs, const dp_func_table *t, uint64_t ret,
			  Dwarf_Die *type);

#endif
