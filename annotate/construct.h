/* The construct table: for each distinct memory instruction, the source
 * construct it touches — a type and member path found from DWARF through
 * the operand's base register — computed once and cached per image. */
#ifndef DP_CONSTRUCT_H
#define DP_CONSTRUCT_H

#include <stdint.h>

#include "../decode/insn_table.h"
#include "image_dwarf.h"

typedef enum dp_annot_reason {
	DP_AR_NONE,
	DP_AR_NO_ADDRESS,     /* the verdict gave no trusted data address */
	DP_AR_NO_INSN,	      /* no causing instruction */
	DP_AR_NO_DEBUG_INFO,  /* the binary has no DWARF */
	DP_AR_NO_VARIABLE,    /* no variable for the base register */
	DP_AR_AMBIGUOUS,      /* the paths into the instruction disagree */
	DP_AR_NOT_POINTER,    /* the register's variable is not a pointer */
	DP_AR_OFFSET_OUTSIDE, /* the offset lies beyond the type */
	DP_AR_PADDING,	      /* the offset falls between members */
	DP_AR_STACK_OP,	      /* push, pop, call, ret: a stack slot, no variable */
	DP_AR_NO_OBJECT,      /* the address is in no known object */
	DP_AR_HEAP_UNTRACKED, /* a heap address, recorded without --heap */
	DP_AR_NO_TYPE,	      /* the object's type is unknown (no DWARF for it) */
	DP_AR_OWN_WORK,	      /* the IP is in dataprof's agent code: [dataprof] */
	DP_AR_SYSCALL,	      /* the thread was in a system call: [syscall NAME] */
	DP_AR_INCOMPLETE,     /* the type is only declared (an opaque handle) */
	DP_AR_COUNT,
} dp_annot_reason;

const char *dp_annot_reason_name(dp_annot_reason r);
/* Why a member path was not found (DP_AR_NONE: it was). */
dp_annot_reason dp_path_reason(dp_path_result r);

enum dp_construct_origin {
	DP_CO_NONE,
	DP_CO_POINTER, /* a pointer variable in the base register */
	DP_CO_TRACKED, /* a pointer followed back through moves and loads */
	DP_CO_STATIC,  /* an IP-relative or absolute global */
	DP_CO_STACK,   /* a stack slot of the function */
	DP_CO_VALUE,   /* a load's destination variable: the type of what it read */
	DP_CO_SPILL,   /* a stack slot no variable owns: the type of what is stored there */
};

typedef struct dp_construct {
	uint32_t type;   /* strtab id: "struct node" */
	uint32_t member; /* "struct node.next"; 0: the whole object */
	uint32_t var;    /* the variable it went through */
	uint8_t reason;  /* dp_annot_reason when type is 0 */
	uint8_t origin;  /* enum dp_construct_origin */
	bool indexed;    /* an index register adds an unknown offset: the member
			  * is found again from the data address when it is known */
	Dwarf_Die type_die; /* the type accessed through (valid when type != 0); for
			     * DP_CO_SPILL of a followed pointer, its pointee */
	int8_t base;        /* the operand's base register (perf number), -1: none, or
			     * its value is not a known distance from the type's start */
	int64_t adj;        /* where the base register points, from the start of the type */
} dp_construct;

struct dp_construct_vec {
	dp_construct *v;
	size_t n, cap;
};

/* The construct of memory operand mem of instruction insn of table t, at
 * insn_vaddr (the key of the cache: a sample does not read the table). */
const dp_construct *dp_construct_of(dp_image_dwarf *id, dp_strtab *strs, const dp_func_table *t,
				    long insn, uint64_t insn_vaddr, int mem);

#endif
