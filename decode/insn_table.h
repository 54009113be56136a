/* The instructions of one function, decoded once when a sample first lands
 * in it, with the starts of its basic blocks marked. */
#ifndef DP_INSN_TABLE_H
#define DP_INSN_TABLE_H

#include "arch.h"
#include "image.h"

typedef struct dp_func_table {
	uint64_t start, end; /* ELF virtual addresses */
	dp_insn_vec insns;
	uint8_t *bytes;
	bool has_indirect_jump; /* jump tables: block starts we cannot see */
} dp_func_table;

dp_func_table *dp_func_table_build(dp_arch *a, const dp_image *im, const dp_symbol *fn);
/* The same from code bytes at vaddr (copied). */
dp_func_table *dp_func_table_from_bytes(dp_arch *a, const uint8_t *code, size_t len,
					uint64_t vaddr);
void dp_func_table_free(dp_func_table *t);
/* Index of the instruction that starts at vaddr, or -1. */
long dp_func_table_find(const dp_func_table *t, uint64_t vaddr);
/* Index of the instruction a call returns to, from its return address
 * ret, or from one byte into the call (what Valgrind and others give for a
 * caller's frame); -1 if none. */
long dp_func_table_after_call(const dp_func_table *t, uint64_t ret);
/* Index of the instruction that contains vaddr, or -1. */
long dp_func_table_containing(const dp_func_table *t, uint64_t vaddr);

#endif
