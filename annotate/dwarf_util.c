#include "dwarf_util.h"

#include <asm/perf_regs.h>
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

int dp_dwarf_to_perf_reg(unsigned r)
{
	static const int map[17] = {
		PERF_REG_X86_AX, PERF_REG_X86_DX, PERF_REG_X86_CX, PERF_REG_X86_BX,
		PERF_REG_X86_SI, PERF_REG_X86_DI, PERF_REG_X86_BP, PERF_REG_X86_SP,
		PERF_REG_X86_R8, PERF_REG_X86_R9, PERF_REG_X86_R10, PERF_REG_X86_R11,
		PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
		PERF_REG_X86_IP,
	};
	return r < 17 ? map[r] : -1;
}

static void simple_expr(const Dwarf_Op *ops, size_t n, dp_loc *o)
{
	o->kind = DP_LOC_NONE;
	o->reg = -1;
	o->off = 0;
	if (n == 0)
		return;
	uint8_t op = ops[0].atom;
	if (op >= DW_OP_reg0 && op <= DW_OP_reg31 && n == 1) {
		o->kind = DP_LOC_REG;
		o->reg = dp_dwarf_to_perf_reg(op - DW_OP_reg0);
	} else if (op == DW_OP_regx && n == 1) {
		o->kind = DP_LOC_REG;
		o->reg = dp_dwarf_to_perf_reg((unsigned)ops[0].number);
	} else if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
		o->reg = dp_dwarf_to_perf_reg(op - DW_OP_breg0);
		o->off = (int64_t)ops[0].number;
		o->kind = n == 1 ? DP_LOC_MEM
			  : (n == 2 && ops[1].atom == DW_OP_stack_value) ? DP_LOC_VALUE
									  : DP_LOC_NONE;
	} else if (op == DW_OP_bregx) {
		o->reg = dp_dwarf_to_perf_reg((unsigned)ops[0].number);
		o->off = (int64_t)ops[0].number2;
		o->kind = n == 1 ? DP_LOC_MEM : DP_LOC_NONE;
	} else if (op == DW_OP_fbreg && n == 1) {
		o->kind = DP_LOC_FBREG;
		o->off = (int64_t)ops[0].number;
	} else if (op == DW_OP_addr && n == 1) {
		o->kind = DP_LOC_MEM;
		o->off = (int64_t)ops[0].number;
	} else if ((op == DW_OP_const8u || op == DW_OP_const4u || op == DW_OP_constu) && n == 2 &&
		   (ops[1].atom == DW_OP_GNU_push_tls_address ||
		    ops[1].atom == DW_OP_form_tls_address)) {
		o->kind = DP_LOC_TLS;
		o->off = (int64_t)ops[0].number;
	}
	if (o->kind != DP_LOC_NONE && o->kind != DP_LOC_FBREG && o->kind != DP_LOC_TLS &&
	    o->reg < 0 && !(op == DW_OP_addr))
		o->kind = DP_LOC_NONE;
}

void dp_var_location(Dwarf_Die *var, uint64_t pc, dp_loc *out)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t n;

	out->kind = DP_LOC_NONE;
	out->reg = -1;
	out->off = 0;
	if (!dwarf_attr_integrate(var, DW_AT_location, &at))
		return;
	if (dwarf_getlocation_addr(&at, pc, &ops, &n, 1) != 1)
		return;
	if (n >= 1 && n <= 2 &&
	    (ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index ||
	     ops[0].atom == DW_OP_constx || ops[0].atom == DW_OP_GNU_const_index)) {
		/* DWARF 5 (clang): the address, or a TLS offset, is in .debug_addr */
		bool addr = ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index;
		Dwarf_Attribute ia;
		Dwarf_Addr a;
		Dwarf_Word w;
		Dwarf_Op direct[2];

		if (dwarf_getlocation_attr(&at, &ops[0], &ia) != 0 ||
		    (addr ? dwarf_formaddr(&ia, &a) : dwarf_formudata(&ia, &w)) != 0)
			return;
		memcpy(direct, ops, n * sizeof(*ops));
		direct[0].atom = addr ? DW_OP_addr : DW_OP_const8u;
		direct[0].number = addr ? a : w;
		simple_expr(direct, n, out);
		return;
	}
	simple_expr(ops, n, out);
}

/* The child of parent that contains pc (looking through namespaces). */
static bool child_with_pc(Dwarf_Die *parent, uint64_t pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die c;

	if (depth > 8 || dwarf_child(parent, &c) != 0)
		return false;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
			if (dwarf_haspc(&c, pc) == 1) {
				*out = c;
				return true;
			}
			break;
		case DW_TAG_namespace:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
			if (child_with_pc(&c, pc, out, depth + 1))
				return true;
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

int dp_concrete_scopes(Dwarf_Die *cu, uint64_t pc, Dwarf_Die *out, int max)
{
	Dwarf_Die cur = *cu, next;
	int n = 0;

	while (n < max && child_with_pc(&cur, pc, &next, 0)) {
		out[n++] = next;
		cur = next;
	}
	return n;
}

bool dp_cfa_rule(Dwarf_CFI *cfi, uint64_t pc, int *reg, int64_t *off)
{
	uint64_t lo, hi;

	return dp_cfa_rule_span(cfi, pc, reg, off, &lo, &hi);
}

bool dp_cfa_rule_span(Dwarf_CFI *cfi, uint64_t pc, int *reg, int64_t *off, uint64_t *lo,
		      uint64_t *hi)
{
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	Dwarf_Addr start, end;
	size_t n;
	dp_loc l;
	bool ok = false, signal;

	*lo = *hi = pc;
	if (!cfi || dwarf_cfi_addrframe(cfi, pc, &frame) != 0)
		return false;
	if (dwarf_frame_info(frame, &start, &end, &signal) >= 0 && start <= pc && pc < end) {
		*lo = start;
		*hi = end;
	}
	if (dwarf_frame_cfa(frame, &ops, &n) == 0) {
		simple_expr(ops, n, &l);
		if (l.kind == DP_LOC_MEM && l.reg >= 0) {
			*reg = l.reg;
			*off = l.off;
			ok = true;
		}
	}
	free(frame);
	return ok;
}

static bool is_var(Dwarf_Die *d)
{
	int tag = dwarf_tag(d);

	return tag == DW_TAG_variable || tag == DW_TAG_formal_parameter;
}

bool dp_scope_var_next(Dwarf_Die *v)
{
	while (dwarf_siblingof(v, v) == 0)
		if (is_var(v))
			return true;
	return false;
}

bool dp_scope_var_first(Dwarf_Die *scope, Dwarf_Die *v)
{
	if (dwarf_child(scope, v) != 0)
		return false;
	return is_var(v) || dp_scope_var_next(v);
}

bool dp_die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute at;

	return dwarf_attr_integrate(die, DW_AT_type, &at) && dwarf_formref_die(&at, type);
}

static bool is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

void dp_type_peel(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Die cur = *type, next;

	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(&cur);

		if (tag == DW_TAG_typedef) {
			/* a typedef that is the only name of an anonymous struct: keep it */
			if (dp_die_type(&cur, &next) && is_aggregate(dwarf_tag(&next)) &&
			    !dwarf_diename(&next))
				break;
		} else if (tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
			   tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type) {
			break;
		}
		if (!dp_die_type(&cur, &next))
			break;
		cur = next;
	}
	*out = cur;
}

/* An array's size when libdw gives none: a dwz partial unit has no
 * DW_AT_language, so libdw knows no default lower bound. C's (0) is taken. */
static uint64_t array_size(Dwarf_Die *arr, int depth)
{
	Dwarf_Die elem, sub;
	Dwarf_Attribute at;
	Dwarf_Word v, lo, n = 1;
	uint64_t es;

	if (depth > 8 || !dp_die_type(arr, &elem) || dwarf_child(arr, &sub) != 0)
		return 0;
	dp_type_peel(&elem, &elem);
	if (dwarf_tag(&elem) == DW_TAG_typedef)
		dp_die_type(&elem, &elem);
	es = dwarf_tag(&elem) == DW_TAG_array_type ? array_size(&elem, depth + 1)
						     : dp_type_size(&elem);
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (dwarf_attr_integrate(&sub, DW_AT_count, &at) && dwarf_formudata(&at, &v) == 0) {
			n *= v;
		} else if (dwarf_attr_integrate(&sub, DW_AT_upper_bound, &at) &&
			   dwarf_formudata(&at, &v) == 0) {
			lo = 0;
			if (dwarf_attr_integrate(&sub, DW_AT_lower_bound, &at))
				dwarf_formudata(&at, &lo);
			n *= v >= lo ? v - lo + 1 : 0;
		} else {
			return 0; /* a flexible array */
		}
	} while (dwarf_siblingof(&sub, &sub) == 0);
	return es * n;
}

uint64_t dp_type_size(Dwarf_Die *type)
{
	Dwarf_Word sz;
	Dwarf_Die t;

	dp_type_peel(type, &t);
	if (dwarf_tag(&t) == DW_TAG_typedef) /* the name of an anonymous struct */
		dp_die_type(&t, &t);
	if (dwarf_aggregate_size(&t, &sz) == 0)
		return sz;
	return dwarf_tag(&t) == DW_TAG_array_type ? array_size(&t, 0) : 0;
}

bool dp_type_pointee(Dwarf_Die *type, Dwarf_Die *pointee)
{
	Dwarf_Die t;

	dp_type_peel(type, &t);
	if (dwarf_tag(&t) == DW_TAG_typedef && !dp_die_type(&t, &t))
		return false;
	if (dwarf_tag(&t) != DW_TAG_pointer_type && dwarf_tag(&t) != DW_TAG_reference_type &&
	    dwarf_tag(&t) != DW_TAG_rvalue_reference_type)
		return false;
	if (!dp_die_type(&t, pointee))
		return false; /* void * */
	/* const void *: no more a type than void * */
	dp_type_peel(pointee, &t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		return false;
	default:
		return true;
	}
}

static const char *short_base_name(const char *n)
{
	static const struct {
		const char *dwarf, *c;
	} names[] = {
		{"long int", "long"},
		{"long unsigned int", "unsigned long"},
		{"short int", "short"},
		{"short unsigned int", "unsigned short"},
		{"long long int", "long long"},
		{"long long unsigned int", "unsigned long long"},
	};
	for (size_t i = 0; i < DP_ARRAY_LEN(names); i++)
		if (!strcmp(n, names[i].dwarf))
			return names[i].c;
	return n;
}

/* "struct", "union", "class" or "enum": the keyword of an aggregate's tag */
static const char *tag_keyword(int tag)
{
	switch (tag) {
	case DW_TAG_structure_type:
		return "struct";
	case DW_TAG_union_type:
		return "union";
	case DW_TAG_class_type:
		return "class";
	default:
		return "enum";
	}
}

static void name_rec(Dwarf_Die *type, dp_buf *out, int depth)
{
	Dwarf_Die t, inner;
	const char *n;

	if (depth > 16) {
		dp_buf_puts(out, "?");
		return;
	}
	dp_type_peel(type, &t);
	n = dwarf_diename(&t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_typedef:
		dp_buf_puts(out, n ? n : "?");
		return;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
	case DW_TAG_enumeration_type:
		dp_buf_printf(out, "%s %s", tag_keyword(dwarf_tag(&t)), n ? n : "<anonymous>");
		return;
	case DW_TAG_base_type:
		dp_buf_puts(out, n ? short_base_name(n) : "?");
		return;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		if (dp_die_type(&t, &inner))
			name_rec(&inner, out, depth + 1);
		else
			dp_buf_puts(out, "void");
		dp_buf_puts(out, dwarf_tag(&t) == DW_TAG_pointer_type ? " *" : " &");
		return;
	case DW_TAG_array_type: {
		Dwarf_Die sub;
		if (dp_die_type(&t, &inner))
			name_rec(&inner, out, depth + 1);
		if (dwarf_child(&t, &sub) == 0) {
			do {
				Dwarf_Attribute at;
				Dwarf_Word v;

				if (dwarf_tag(&sub) != DW_TAG_subrange_type)
					continue;
				if (dwarf_attr(&sub, DW_AT_count, &at) && dwarf_formudata(&at, &v) == 0)
					dp_buf_printf(out, "[%llu]", (unsigned long long)v);
				else if (dwarf_attr(&sub, DW_AT_upper_bound, &at) &&
					 dwarf_formudata(&at, &v) == 0)
					dp_buf_printf(out, "[%llu]", (unsigned long long)v + 1);
				else
					dp_buf_puts(out, "[]");
			} while (dwarf_siblingof(&sub, &sub) == 0);
		}
		return;
	}
	case DW_TAG_subroutine_type:
		dp_buf_puts(out, "function");
		return;
	case DW_TAG_const_type: /* of nothing: const void */
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		dp_buf_puts(out, "void");
		return;
	default:
		dp_buf_puts(out, n ? n : "?");
	}
}

void dp_type_name(Dwarf_Die *type, dp_buf *out)
{
	name_rec(type, out, 0);
}

static bool member_offset(Dwarf_Die *m, uint64_t *off)
{
	Dwarf_Attribute at;
	Dwarf_Word v;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(m, DW_AT_data_member_location, &at)) {
		*off = 0; /* union members start at 0 */
		return true;
	}
	if (dwarf_formudata(&at, &v) == 0) {
		*off = v;
		return true;
	}
	if (dwarf_getlocation(&at, &ops, &n) == 0 && n == 1 && ops[0].atom == DW_OP_plus_uconst) {
		*off = ops[0].number;
		return true;
	}
	return false;
}

/* The bytes member m of type mtype takes: for a bitfield, those its bits
 * fall in (DWARF 4's DW_AT_data_bit_offset from the struct's start, or
 * DWARF 2's DW_AT_bit_offset from the top of its storage unit), so that
 * a byte of bitfields is named by the first one in it, not as padding. */
static bool member_span(Dwarf_Die *m, Dwarf_Die *mtype, uint64_t *off, uint64_t *size)
{
	Dwarf_Attribute at;
	Dwarf_Word bits, nbits, unit;

	if (!dwarf_attr(m, DW_AT_bit_size, &at) || dwarf_formudata(&at, &nbits) != 0 || !nbits) {
		*size = dp_type_size(mtype);
		return member_offset(m, off);
	}
	if (dwarf_attr(m, DW_AT_data_bit_offset, &at) && dwarf_formudata(&at, &bits) == 0) {
		/* bits from the start of the struct */
	} else if (dwarf_attr(m, DW_AT_bit_offset, &at) && dwarf_formudata(&at, &bits) == 0 &&
		   member_offset(m, off)) {
		/* from the storage unit's most significant bit (little-endian) */
		unit = dwarf_attr(m, DW_AT_byte_size, &at) && dwarf_formudata(&at, &unit) == 0
			   ? unit
			   : dp_type_size(mtype);
		if (bits + nbits > unit * 8)
			return false;
		bits = *off * 8 + unit * 8 - bits - nbits;
	} else {
		return false;
	}
	*off = bits / 8;
	*size = (bits % 8 + nbits + 7) / 8;
	return true;
}

/* An array's element type and its number of dimensions: for T a[R][C] the
 * element is T and a path gets one "[]" per dimension. */
static int array_element(Dwarf_Die *arr, uint64_t *elsize, Dwarf_Die *elem)
{
	Dwarf_Die sub;
	int dims = 0;

	if (!dp_die_type(arr, elem))
		return 0;
	if (dwarf_child(arr, &sub) == 0) {
		do {
			if (dwarf_tag(&sub) == DW_TAG_subrange_type)
				dims++;
		} while (dwarf_siblingof(&sub, &sub) == 0);
	}
	*elsize = dp_type_size(elem);
	return *elsize ? DP_MAX(dims, 1) : 0;
}

/* The size of the scalar reached at off in t, taking first members. */
static uint64_t leaf_size(Dwarf_Die *t, uint64_t off, int depth);

/* A C++ base with no data (an empty base takes no room: the member or base
 * after it starts at the same offset, and holds the bytes). */
static bool empty_base(Dwarf_Die *m, Dwarf_Die *mtype)
{
	Dwarf_Die u, c;

	if (dwarf_tag(m) != DW_TAG_inheritance)
		return false;
	dp_type_peel(mtype, &u);
	if (!is_aggregate(dwarf_tag(&u)) || dwarf_child(&u, &c) != 0)
		return true;
	do {
		Dwarf_Die ct;

		if (dwarf_tag(&c) == DW_TAG_member ||
		    (dwarf_tag(&c) == DW_TAG_inheritance &&
		     (!dp_die_type(&c, &ct) || !empty_base(&c, &ct))))
			return false;
	} while (dwarf_siblingof(&c, &c) == 0);
	return true;
}

/* libstdc++ keeps a container node's value as raw bytes, in a
 * __gnu_cxx::__aligned_buffer<T> or __aligned_membuf<T> (the nodes of
 * unordered_map, map, set and list): those bytes are a T, the template's
 * parameter, as the library's own pretty printers read them. */
static bool raw_storage_type(Dwarf_Die *t, Dwarf_Die *out)
{
	Dwarf_Die u, c;
	const char *n;

	dp_type_peel(t, &u);
	n = dwarf_diename(&u);
	if (!n || (strncmp(n, "__aligned_buffer<", 17) && strncmp(n, "__aligned_membuf<", 17)) ||
	    dwarf_child(&u, &c) != 0)
		return false;
	do {
		if (dwarf_tag(&c) == DW_TAG_template_type_parameter)
			return dp_die_type(&c, out);
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The member of aggregate u covering off: for a union, the one whose leaf
 * at off has the size of the access. */
static bool covering_member(Dwarf_Die *u, uint64_t off, unsigned access_size, Dwarf_Die *out,
			    uint64_t *out_off, int depth)
{
	Dwarf_Die m;
	bool found = false;

	if (dwarf_child(u, &m) != 0)
		return false;
	do {
		int mt = dwarf_tag(&m);
		uint64_t mo, ms;
		Dwarf_Die mtype;

		if (mt != DW_TAG_member && mt != DW_TAG_inheritance)
			continue;
		if (!dp_die_type(&m, &mtype) || empty_base(&m, &mtype) ||
		    !member_span(&m, &mtype, &mo, &ms))
			continue;
		if (off < mo || off >= mo + (ms ? ms : 1))
			continue;
		if (!found) {
			*out = m;
			*out_off = mo;
			found = true;
			if (!access_size || dwarf_tag(u) != DW_TAG_union_type)
				return true;
		}
		if (leaf_size(&mtype, off - mo, depth + 1) == access_size) {
			*out = m;
			*out_off = mo;
			return true;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return found;
}

static uint64_t leaf_size(Dwarf_Die *type, uint64_t off, int depth)
{
	Dwarf_Die u, m, mt;
	uint64_t mo;

	if (depth > 16)
		return 0;
	dp_type_peel(type, &u);
	if (dwarf_tag(&u) == DW_TAG_typedef && !dp_die_type(&u, &u))
		return 0;
	if (dwarf_tag(&u) == DW_TAG_array_type) {
		uint64_t es;
		Dwarf_Die elem;

		if (!array_element(&u, &es, &elem))
			return 0;
		return leaf_size(&elem, off % es, depth + 1);
	}
	if (!is_aggregate(dwarf_tag(&u)))
		return dp_type_size(&u);
	if (!covering_member(&u, off, 0, &m, &mo, depth) || !dp_die_type(&m, &mt))
		return 0;
	raw_storage_type(&mt, &mt);
	return leaf_size(&mt, off - mo, depth + 1);
}

/* The struct hack: aggregate u (peeled, size bytes) ends in an array of
 * at most one element, or of none given (`char data[1]`, `long tail[]`),
 * which the program's blocks run on past the struct. That member and its
 * offset. */
static bool flexible_tail(Dwarf_Die *u, uint64_t size, Dwarf_Die *out, uint64_t *out_off)
{
	Dwarf_Die m, last, at, arr;
	uint64_t mo, es, asz;
	bool have = false;

	if (dwarf_tag(u) != DW_TAG_structure_type && dwarf_tag(u) != DW_TAG_class_type)
		return false;
	if (dwarf_child(u, &m) != 0)
		return false;
	do {
		if (dwarf_tag(&m) == DW_TAG_member) {
			last = m;
			have = true;
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	if (!have || !member_offset(&last, &mo) || !dp_die_type(&last, &at))
		return false;
	dp_type_peel(&at, &arr);
	if (dwarf_tag(&arr) != DW_TAG_array_type || !array_element(&arr, &es, &at))
		return false;
	asz = dp_type_size(&arr);
	/* one element at most, and nothing after it but padding */
	if (asz > es || mo + asz > size || size - (mo + asz) >= 16)
		return false;
	*out = last;
	*out_off = mo;
	return true;
}

bool dp_type_flexible(Dwarf_Die *type)
{
	Dwarf_Die u, m;
	uint64_t mo;

	dp_type_peel(type, &u);
	if (dwarf_tag(&u) == DW_TAG_typedef && !dp_die_type(&u, &u))
		return false;
	return flexible_tail(&u, dp_type_size(&u), &m, &mo);
}

dp_path_result dp_member_path(Dwarf_Die *type, uint64_t off, unsigned access_size, dp_buf *out,
			      Dwarf_Die *leaf)
{
	Dwarf_Die t = *type;
	bool flexible = false; /* t is a trailing array the struct runs on in */

	dp_type_name(type, out);
	for (int depth = 0; depth < 32; depth++) {
		Dwarf_Die u;
		int tag;

		dp_type_peel(&t, &u);
		if (dwarf_tag(&u) == DW_TAG_typedef && !dp_die_type(&u, &u))
			break;
		tag = dwarf_tag(&u);
		if (tag == DW_TAG_array_type) {
			uint64_t es;
			Dwarf_Die elem;
			int dims = array_element(&u, &es, &elem);

			if (!dims)
				break;
			/* past the last element is outside, not in an element again */
			uint64_t size = dp_type_size(&u);
			if (size && off >= size && !flexible)
				return DP_PATH_OUTSIDE;
			flexible = false;
			for (int d = 0; d < dims; d++)
				dp_buf_puts(out, "[]");
			off %= es;
			t = elem;
			continue;
		}
		if (!is_aggregate(tag))
			break;
		/* `struct sqlite3_stmt;` and never defined: an opaque handle,
		 * not padding */
		if (dwarf_hasattr(&u, DW_AT_declaration))
			return DP_PATH_INCOMPLETE;
		uint64_t size = dp_type_size(&u);
		Dwarf_Die best, mtype;
		uint64_t best_off = 0;
		flexible = false;
		if (size && off >= size) {
			if (!flexible_tail(&u, size, &best, &best_off))
				return DP_PATH_OUTSIDE;
			flexible = true;
		} else if (!covering_member(&u, off, access_size, &best, &best_off, depth)) {
			/* (the element of a trailing `[1]` is covered) */
			if (!flexible_tail(&u, size, &best, &best_off) || off < best_off)
				return DP_PATH_PADDING;
			flexible = true;
		}
		const char *mn = dwarf_diename(&best);
		dp_die_type(&best, &mtype);
		raw_storage_type(&mtype, &mtype);
		if (dwarf_tag(&best) == DW_TAG_inheritance) {
			dp_buf_puts(out, ".");
			dp_type_name(&mtype, out); /* a base class part: "class Derived.class Base.x" */
		} else if (mn) {
			dp_buf_printf(out, ".%s", mn);
		}
		off -= best_off;
		t = mtype;
	}
	if (leaf)
		*leaf = t;
	return DP_PATH_OK;
}

/* t peeled; when it is an array, its element's type instead, and the
 * element's size in es. */
static bool array_step(Dwarf_Die *t, uint64_t *es)
{
	Dwarf_Die u, elem;

	dp_type_peel(t, &u);
	if (dwarf_tag(&u) != DW_TAG_array_type || !array_element(&u, es, &elem))
		return false;
	*t = elem;
	return true;
}

uint64_t dp_array_stride(Dwarf_Die *type)
{
	Dwarf_Die t = *type;
	uint64_t stride = 0, es;

	for (int i = 0; i < 8 && array_step(&t, &es); i++)
		stride = es;
	return stride;
}

dp_path_result dp_object_path(Dwarf_Die *type, uint64_t off, unsigned access_size,
			      dp_buf *type_name, dp_buf *member)
{
	Dwarf_Die t = *type, u;
	bool array = false;
	uint64_t es;

	/* an array object: the access goes through one of its elements */
	for (int i = 0; i < 8 && array_step(&t, &es); i++) {
		off %= es;
		array = true;
	}
	dp_type_peel(&t, &u);
	if (dwarf_tag(&u) == DW_TAG_typedef)
		dp_die_type(&u, &u);
	dp_type_name(&t, type_name);
	if (!is_aggregate(dwarf_tag(&u))) {
		if (array)
			dp_buf_printf(member, "%s[]", type_name->p);
		return DP_PATH_OK;
	}
	dp_path_result r = dp_member_path(&t, off, access_size, member, NULL);
	if (member->p && !strcmp(member->p, type_name->p))
		member->len = 0, member->p[0] = 0;
	return r;
}
