/* Small DWARF helpers over libdw: register numbers, simple location
 * expressions, the CFA, type names and member paths. */
#ifndef DP_DWARF_UTIL_H
#define DP_DWARF_UTIL_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "dataprof/profile.h"
#include "util.h"

/* The perf register number of an x86-64 DWARF register, or -1. */
int dp_dwarf_to_perf_reg(unsigned dwarf_reg);

typedef enum dp_loc_kind {
	DP_LOC_NONE,  /* not simple, or not available at this address */
	DP_LOC_REG,   /* the value is in register reg */
	DP_LOC_VALUE, /* the value is reg + off (DW_OP_stack_value) */
	DP_LOC_MEM,   /* the object is in memory at reg + off (reg -1: at off) */
	DP_LOC_FBREG, /* the object is in memory at frame base + off */
	DP_LOC_TLS,   /* thread-local at off in its module's TLS block */
} dp_loc_kind;

typedef struct dp_loc {
	dp_loc_kind kind;
	int reg; /* perf register number */
	int64_t off;
} dp_loc;

/* Where a variable (or parameter) lives at pc. */
void dp_var_location(Dwarf_Die *var, uint64_t pc, dp_loc *out);

/* The variables and formal parameters among a scope's children, in
 * order: dp_scope_var_first sets *v to the first, dp_scope_var_next moves
 * *v on to the next; each is false where there is none. */
bool dp_scope_var_first(Dwarf_Die *scope, Dwarf_Die *v);
bool dp_scope_var_next(Dwarf_Die *v);

/* The concrete scopes containing pc, outermost first: the function's
 * DW_TAG_subprogram, then the inlined subroutines and lexical blocks down to
 * the innermost. (dwarf_getscopes follows an inlined function into its
 * abstract definition instead, losing the function it was inlined into.)
 * Returns how many were stored in out. */
int dp_concrete_scopes(Dwarf_Die *cu, uint64_t pc, Dwarf_Die *out, int max);

/* The CFA rule at pc: CFA = register reg + off. */
bool dp_cfa_rule(Dwarf_CFI *cfi, uint64_t pc, int *reg, int64_t *off);
/* The same, and the addresses [lo, hi) around pc where it holds too. */
bool dp_cfa_rule_span(Dwarf_CFI *cfi, uint64_t pc, int *reg, int64_t *off, uint64_t *lo,
		      uint64_t *hi);

/* The type of a DIE (DW_AT_type, following abstract origins). */
bool dp_die_type(Dwarf_Die *die, Dwarf_Die *type);
/* Strips typedefs and qualifiers, but keeps a typedef that names an anonymous struct. */
void dp_type_peel(Dwarf_Die *type, Dwarf_Die *out);
/* The type's name as C writes it: "struct node", "long", "char *", "double[16]". */
void dp_type_name(Dwarf_Die *type, dp_buf *out);
/* Byte size, 0 if unknown. */
uint64_t dp_type_size(Dwarf_Die *type);
/* If type is a pointer (through typedefs) to a type, its pointee; not to
 * void, however qualified (const void *). */
bool dp_type_pointee(Dwarf_Die *type, Dwarf_Die *pointee);

typedef enum dp_path_result {
	DP_PATH_OK,
	DP_PATH_PADDING,    /* the offset falls between members */
	DP_PATH_OUTSIDE,    /* beyond the type */
	DP_PATH_INCOMPLETE, /* the type is only declared here: its members are unknown */
} dp_path_result;

/* The member path of offset off in an object of type t, appended to out
 * after the type's name: "struct grid.rows[].cells[].v". access_size (0:
 * unknown) chooses between union members. The innermost type reached goes
 * to leaf (may be NULL). */
dp_path_result dp_member_path(Dwarf_Die *t, uint64_t off, unsigned access_size, dp_buf *out,
			      Dwarf_Die *leaf);

/* What an access at off into an object of type t touches, named from the
 * element the access goes through: an array object is named by its
 * element ("struct sample.t", "double[]"), a whole scalar has an empty
 * member. type_name gets the element type's name, member the path. */
dp_path_result dp_object_path(Dwarf_Die *t, uint64_t off, unsigned access_size,
			      dp_buf *type_name, dp_buf *member);
/* Whether type is a struct that ends in an array of at most one element
 * (or none given), which its objects run on past the struct (the struct
 * hack): offsets beyond its size are that array's elements, not a next
 * struct of an array of them. */
bool dp_type_flexible(Dwarf_Die *type);

/* The element size dp_object_path reduces an offset in an array object by
 * (its innermost element's); 0 when t is not an array. */
uint64_t dp_array_stride(Dwarf_Die *t);

#endif
