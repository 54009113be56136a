/* A struct, class or union as DWARF lays it out (like pahole): members
 * with offsets, sizes, alignments and bitfields, found by name in a binary
 * or in the binaries a profile ran. Plain data: no DWARF handle outlives
 * the lookup. */
#ifndef DP_TYPE_LAYOUT_H
#define DP_TYPE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

typedef struct dp_layout_member {
	char *name;		       /* "next"; a base class: its type's name ("class Base") */
	char *type;		       /* "struct node *" */
	uint64_t offset, size, align;  /* bytes; a bitfield: its storage unit's */
	uint32_t bit_offset, bit_size; /* bit_size != 0: bits within the unit */
	bool base;		       /* a base class */
	bool artificial;	       /* the compiler's (a vtable pointer) */
} dp_layout_member;

/* Unused space between members, after member "after" (pahole's holes):
 * bytes, or bits left in a bitfield's storage unit. */
typedef struct dp_layout_hole {
	size_t after;
	uint64_t offset, bytes;
	uint32_t bits;
} dp_layout_hole;

typedef struct dp_type_layout {
	char *name;   /* as annotations name it: "struct node", "class Account", "cell_t" */
	char *binary; /* where it was found */
	char *decl;   /* "layout.c:21", or "" */
	uint64_t size, align;
	bool is_union;
	DP_VEC(dp_layout_member) members; /* in offset order */
	DP_VEC(dp_layout_hole) holes;
	uint64_t padding; /* after the last member */
} dp_type_layout;

void dp_type_layout_free(dp_type_layout *l);

/* The layout of the type called name ("struct node", "node", "cell_t",
 * "class Account") in the binary at path, or in the binaries that the
 * profile at path mapped (the program first). Returns 0, or -1 with a
 * message: no such type (with the closest names), no debug info, not a
 * binary nor a profile. *has_profile says which path was. */
int dp_type_layout_find(const char *path, const char *symfs, const char *name, dp_type_layout *out,
			bool *has_profile, dp_error *err);

#endif
