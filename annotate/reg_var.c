#include "reg_var.h"

#include <dwarf.h>

/* Calls fn for each variable located in reg at pc, its value the register
 * or (value) the register plus a constant, innermost scope first, until fn
 * returns true. */
static bool each_var(dp_image_dwarf *id, uint64_t pc, int reg, bool value,
		     bool (*fn)(void *arg, Dwarf_Die *var, Dwarf_Die *type, const dp_loc *loc),
		     void *arg)
{
	Dwarf_Addr cb;
	Dwarf_Die *cu = dp_image_cu(id, pc, &cb), scopes[32];
	int n;

	if (!cu)
		return false;
	n = dp_scope_index_scopes(&id->scopes, cu, pc - cb, scopes, 32);
	/* innermost scope first: its variables shadow outer ones */
	for (int i = n - 1; i >= 0; i--) {
		Dwarf_Die v;

		for (bool more = dp_scope_var_first(&scopes[i], &v); more;
		     more = dp_scope_var_next(&v)) {
			dp_loc loc;
			Dwarf_Die type;

			dp_var_location(&v, pc - cb, &loc);
			if (!((loc.kind == DP_LOC_REG && loc.reg == reg) ||
			      (value && loc.kind == DP_LOC_VALUE && loc.reg == reg)))
				continue;
			if (dp_die_type(&v, &type) && fn(arg, &v, &type, &loc))
				return true;
		}
	}
	return false;
}

struct first_var {
	dp_strtab *strs;
	bool pointer, *not_pointer;
	dp_reg_var *out;
};

static bool first_var(void *arg, Dwarf_Die *var, Dwarf_Die *type, const dp_loc *loc)
{
	struct first_var *f = arg;
	Dwarf_Attribute at;
	const char *nm;

	if (!f->pointer) {
		f->out->type = *type;
	} else if (!dp_type_pointee(type, &f->out->type)) {
		if (f->not_pointer)
			*f->not_pointer = true;
		return false;
	}
	nm = dwarf_attr_integrate(var, DW_AT_name, &at) ? dwarf_formstring(&at) : NULL;
	f->out->adj = loc->kind == DP_LOC_VALUE ? -loc->off : 0;
	f->out->name = dp_strtab_intern(f->strs, nm);
	return true;
}

bool dp_reg_var_at(dp_image_dwarf *id, dp_strtab *strs, uint64_t pc, int reg, bool pointer,
		   dp_reg_var *out, bool *not_pointer)
{
	struct first_var f = {strs, pointer, not_pointer, out};

	return each_var(id, pc, reg, pointer, first_var, &f);
}

struct each_pointee {
	void (*fn)(void *arg, Dwarf_Die *pointee);
	void *arg;
};

static bool each_pointee(void *arg, Dwarf_Die *var, Dwarf_Die *type, const dp_loc *loc)
{
	struct each_pointee *e = arg;
	Dwarf_Die pointee;

	(void)var;
	if ((loc->kind == DP_LOC_REG || !loc->off) && dp_type_pointee(type, &pointee))
		e->fn(e->arg, &pointee);
	return false;
}

void dp_reg_pointees_each(dp_image_dwarf *id, uint64_t pc, int reg,
			  void (*fn)(void *arg, Dwarf_Die *pointee), void *arg)
{
	struct each_pointee e = {fn, arg};

	each_var(id, pc, reg, true, each_pointee, &e);
}

bool dp_first_param_pointee(dp_image_dwarf *id, uint64_t entry, Dwarf_Die *pointee)
{
	Dwarf_Addr cb;
	Dwarf_Die *cu = dp_image_cu(id, entry, &cb), scopes[32], v, type;
	int n;

	if (!cu)
		return false;
	n = dp_scope_index_scopes(&id->scopes, cu, entry - cb, scopes, 32);
	if (n < 1 || dwarf_tag(&scopes[0]) != DW_TAG_subprogram || dwarf_child(&scopes[0], &v) != 0)
		return false;
	do {
		if (dwarf_tag(&v) == DW_TAG_formal_parameter)
			return dp_die_type(&v, &type) && dp_type_pointee(&type, pointee);
	} while (dwarf_siblingof(&v, &v) == 0);
	return false;
}

bool dp_stack_var_at(dp_image_dwarf *id, dp_strtab *strs, uint64_t pc, int base, int64_t disp,
		     Dwarf_Die *type, int64_t *rel, uint32_t *name)
{
	const dp_frame_info *f = dp_frame_at(id, strs, pc);

	for (size_t v = 0; v < f->vars.n; v++) {
		const dp_frame_var *fv = &f->vars.v[v];
		int64_t r;

		if (fv->reg == base)
			r = disp - fv->off;
		else if (fv->reg < 0 && f->cfa_known && f->cfa_reg == base)
			r = disp - f->cfa_off - fv->off; /* addr - CFA - the variable's offset */
		else
			continue;
		if (r < 0 || (uint64_t)r >= DP_MAX(fv->size, 1))
			continue;
		*type = fv->type;
		*rel = r;
		if (name)
			*name = fv->name;
		return true;
	}
	return false;
}
