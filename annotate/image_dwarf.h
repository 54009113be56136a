/* What annotate knows about one binary, built lazily and cached: its DWARF
 * (through the image's Dwfl module), source locations per instruction, the
 * variables with static addresses, and the stack variables of a function at
 * a given instruction. */
#ifndef DP_IMAGE_DWARF_H
#define DP_IMAGE_DWARF_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

#include "../decode/image.h"
#include "dwarf_util.h"
#include "hashmap.h"
#include "scope_index.h"
#include "strtab.h"

typedef struct dp_code_loc {
	uint32_t function;     /* outermost function, demangled; the symbol without DWARF */
	uint32_t inline_chain; /* "outer > inlined > innermost", 0 if not inlined */
	uint32_t file;	       /* base name */
	uint32_t line, col;
	uint32_t line_id; /* "file.c:123", 0 without a file */
	uint64_t cu_off;  /* the compilation unit's DIE offset, 0 if none */
} dp_code_loc;

enum dp_var_kind { DP_VAR_GLOBAL = 1, DP_VAR_STATIC, DP_VAR_TLS, DP_VAR_STACK };

typedef struct dp_static_var {
	uint64_t addr; /* ELF virtual address; TLS: offset in the module's TLS block */
	uint64_t size;
	uint32_t name; /* "counter", "func::counter" for a function static */
	uint8_t kind;
	bool has_type;
	Dwarf_Die type;
	uint64_t tried_unit; /* from the symbol table: the unit that gave (or not) its type */
} dp_static_var;

/* A stack variable's place relative to the CFA (frame base = CFA), or to
 * a register, at one instruction. */
typedef struct dp_frame_var {
	int reg; /* -1: relative to the CFA */
	int64_t off;
	uint64_t size;
	uint32_t name; /* "func::var" */
	Dwarf_Die type;
} dp_frame_var;

typedef struct dp_frame_info {
	bool cfa_known;
	int cfa_reg;
	int64_t cfa_off; /* CFA = reg + off at this instruction */
	uint32_t function;
	DP_VEC(dp_frame_var) vars;
} dp_frame_info;

typedef struct dp_image_dwarf {
	dp_image *im;
	Dwarf *dw;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;
	Dwarf_Addr cfi_bias;
	dp_hashmap code;
	DP_VEC(dp_code_loc) code_v;
	/* statics are indexed per compilation unit, and only for the units
	 * whose code touches them, plus the ELF symbol table: DWARF work grows
	 * with the CUs touched, not with the binary */
	dp_hashmap cu_index; /* CU DIE offset -> index in cus */
	DP_VEC(struct dp_cu_statics *) cus;
	bool syms_built;
	DP_VEC(dp_static_var) syms;	/* STT_OBJECT, sorted by addr */
	DP_VEC(dp_static_var) tls_syms; /* STT_TLS, sorted by offset */
	dp_hashmap resolved;		/* hash of symbol start, unit -> index in globals */
	DP_VEC(dp_static_var) globals;	/* symbols resolved so far, with their types */
	uint64_t tls_size, tls_align;	/* PT_TLS of this image */
	dp_hashmap frames;
	DP_VEC(dp_frame_info *) frame_v;
	dp_scope_index scopes; /* the function of an address, per unit */
	/* the units' address ranges, when libdwfl finds no unit by address
	 * (dp_image_cu): sorted by start */
	bool unit_ranges_built;
	DP_VEC(struct dp_unit_range) unit_ranges;
	DP_VEC(Dwarf_Die) unit_dies;
	dp_hashmap constructs; /* annotate/construct.c */
	struct dp_construct_vec *cons_v;
} dp_image_dwarf;

struct dp_unit_range {
	uint64_t lo, hi; /* DWARF addresses, [lo, hi) */
	size_t die;	 /* index in unit_dies */
};

/* Annotate's state of an image: its DWARF, symbols and caches. An annotator
 * keeps one per image (dp_annotator_image_dwarf); im must outlive it. */
dp_image_dwarf *dp_image_dwarf_new(dp_image *im);
void dp_image_dwarf_free(dp_image_dwarf *id);

bool dp_image_has_dwarf(const dp_image_dwarf *id);
/* The compilation unit containing vaddr, as dwfl_module_addrdie, but also
 * in a binary without .debug_aranges (clang's default), where libdwfl
 * before elfutils 0.191 finds none. */
Dwarf_Die *dp_image_cu(dp_image_dwarf *id, uint64_t vaddr, Dwarf_Addr *bias);
/* Source location of vaddr (cached). */
const dp_code_loc *dp_code_at(dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr);
/* The full name of the source file of the line at vaddr, as DWARF gives
 * it (dp_code_loc keeps the base name), or NULL: for reading the source. */
const char *dp_code_path(dp_image_dwarf *id, uint64_t vaddr);
/* The variable with a static address containing vaddr, or NULL. code is an
 * address in this image whose compilation unit touched it (its DWARF gives
 * the type), 0 when none is known: then the symbol table alone answers. */
const dp_static_var *dp_static_at(dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr,
				  uint64_t code);
/* The same, cu_off naming the unit (dp_code_loc.cu_off) instead of code. */
const dp_static_var *dp_static_in_unit(dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr,
				       uint64_t cu_off);
/* The TLS variable at offset off of this image's TLS block, or NULL. */
const dp_static_var *dp_tls_in_unit(dp_image_dwarf *id, dp_strtab *strs, uint64_t off,
				    uint64_t cu_off);
/* The frame of the function at vaddr: CFA rule and stack variables (cached). */
const dp_frame_info *dp_frame_at(dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr);

/* One function of the inline chain at an address: its name and the line in
 * it (for an outer function, the line where the inner one was inlined). */
typedef struct dp_code_frame {
	uint32_t function, line_id;
} dp_code_frame;
/* The inline chain at vaddr, innermost first; returns how many were stored
 * (1 with the symbol alone when there is no DWARF, 0 when nothing is known). */
int dp_code_frames(dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr, dp_code_frame *out,
		   int max);

/* The T of the std::__new_allocator<T>::allocate (new_allocator<T> before
 * GCC 12) that vaddr is in, inlined or not: what the block it returns
 * holds (a vector's elements, a hash table's nodes). */
bool dp_code_alloc_type(dp_image_dwarf *id, uint64_t vaddr, Dwarf_Die *type);

/* "file.c:123" for vaddr, or 0 */
uint32_t dp_code_line_id(dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr);

#endif
