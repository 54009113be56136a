/* What DWARF says a register or a stack slot holds at an instruction: the
 * variable located there. The construct table (construct.c) asks it of an
 * access's base register, the allocation sites (alloc_type.c) of the
 * register an allocator's result went to. */
#ifndef DP_REG_VAR_H
#define DP_REG_VAR_H

#include <stdbool.h>
#include <stdint.h>

#include "image_dwarf.h"

typedef struct dp_reg_var {
	Dwarf_Die type; /* with pointer: the pointee; without: the variable's type */
	int64_t adj;	/* the register points adj bytes into the pointee */
	uint32_t name;	/* strtab id of the variable's name */
} dp_reg_var;

/* A variable located in reg (perf numbering) at pc (an ELF virtual
 * address), its value the register or the register plus a constant; the
 * innermost scope's first. With pointer, only a pointer (a non-pointer
 * variable there sets *not_pointer, which may be NULL). */
bool dp_reg_var_at(dp_image_dwarf *id, dp_strtab *strs, uint64_t pc, int reg, bool pointer,
		   dp_reg_var *out, bool *not_pointer);

/* Calls fn with the pointee of every pointer variable whose value is
 * exactly reg at pc, in every scope. */
void dp_reg_pointees_each(dp_image_dwarf *id, uint64_t pc, int reg,
			  void (*fn)(void *arg, Dwarf_Die *pointee), void *arg);

/* The pointee of the first parameter of the function that starts at
 * entry, when it is a pointer: what the function takes the pointer passed
 * in the first argument register for (a constructor's `this`), whatever
 * its location says at entry (at -O0 its stack slot, not yet written). */
bool dp_first_param_pointee(dp_image_dwarf *id, uint64_t entry, Dwarf_Die *pointee);

/* The frame's variable at base + disp at pc (base the stack pointer or the
 * frame's base register): its type, the offset into it, its name (may be
 * NULL). */
bool dp_stack_var_at(dp_image_dwarf *id, dp_strtab *strs, uint64_t pc, int base, int64_t disp,
		     Dwarf_Die *type, int64_t *rel, uint32_t *name);

#endif
