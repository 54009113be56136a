#include "image_dwarf.h"
#include "construct.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* The variables of one compilation unit: those with a static address, and
 * declarations (an extern's type is in every unit that uses it). */
struct dp_cu_statics {
	DP_VEC(dp_static_var) vars;  /* with addresses, sorted */
	DP_VEC(dp_static_var) tls;   /* TLS, by offset, sorted */
	DP_VEC(dp_static_var) decls; /* by name, with types, no address */
};

/* libstdc++'s demangler, for C++ function names */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

dp_image_dwarf *dp_image_dwarf_new(dp_image *im)
{
	dp_image_dwarf *id = dp_calloc(1, sizeof(*id));
	size_t nph;

	id->im = im;
	dp_hashmap_init(&id->code, 256);
	dp_hashmap_init(&id->frames, 64);
	dp_hashmap_init(&id->constructs, 256);
	dp_hashmap_init(&id->cu_index, 16);
	dp_hashmap_init(&id->resolved, 16);
	dp_scope_index_init(&id->scopes);
	id->dw = dwfl_module_getdwarf(im->mod, &id->bias);
	id->cfi = dwfl_module_dwarf_cfi(im->mod, &id->cfi_bias);
	if (!id->cfi)
		id->cfi = dwfl_module_eh_cfi(im->mod, &id->cfi_bias);
	if (elf_getphdrnum(im->elf, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(im->elf, (int)i, &ph) && ph.p_type == PT_TLS) {
				id->tls_size = ph.p_memsz;
				id->tls_align = ph.p_align ? ph.p_align : 1;
			}
		}
	}
	return id;
}

void dp_image_dwarf_free(dp_image_dwarf *id)
{
	if (!id)
		return;
	dp_hashmap_free(&id->code);
	dp_vec_free(&id->code_v);
	dp_vec_free(&id->globals);
	dp_vec_free(&id->syms);
	dp_vec_free(&id->tls_syms);
	for (size_t i = 0; i < id->cus.n; i++) {
		dp_vec_free(&id->cus.v[i]->vars);
		dp_vec_free(&id->cus.v[i]->tls);
		dp_vec_free(&id->cus.v[i]->decls);
		free(id->cus.v[i]);
	}
	dp_vec_free(&id->cus);
	dp_hashmap_free(&id->cu_index);
	dp_scope_index_free(&id->scopes);
	dp_hashmap_free(&id->resolved);
	dp_hashmap_free(&id->frames);
	for (size_t i = 0; i < id->frame_v.n; i++) {
		dp_vec_free(&id->frame_v.v[i]->vars);
		free(id->frame_v.v[i]);
	}
	dp_vec_free(&id->frame_v);
	dp_vec_free(&id->unit_ranges);
	dp_vec_free(&id->unit_dies);
	dp_hashmap_free(&id->constructs);
	if (id->cons_v) {
		dp_vec_free(id->cons_v);
		free(id->cons_v);
	}
	free(id);
}

bool dp_image_has_dwarf(const dp_image_dwarf *id)
{
	return id->dw != NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* A function's name for people: demangled, without the parameter list. */
static uint32_t function_name(Dwarf_Die *fn, dp_strtab *strs)
{
	Dwarf_Attribute at;
	const char *n = NULL;

	if (dwarf_attr_integrate(fn, DW_AT_linkage_name, &at) ||
	    dwarf_attr_integrate(fn, DW_AT_MIPS_linkage_name, &at)) {
		const char *mangled = dwarf_formstring(&at);
		int st = -1;
		char *dm = mangled ? __cxa_demangle(mangled, NULL, NULL, &st) : NULL;

		if (dm && st == 0) {
			char *paren = strchr(dm, '(');
			uint32_t r =
			    dp_strtab_intern_n(strs, dm, paren ? (size_t)(paren - dm) : strlen(dm));
			free(dm);
			return r;
		}
		free(dm);
	}
	if (dwarf_attr_integrate(fn, DW_AT_name, &at))
		n = dwarf_formstring(&at);
	return dp_strtab_intern(strs, n);
}

static int by_lo(const void *a, const void *b)
{
	const struct dp_unit_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every unit's address ranges, from its DIE (DW_AT_low_pc/high_pc or
 * DW_AT_ranges): what .debug_aranges would have said. */
static void build_unit_ranges(dp_image_dwarf *id)
{
	Dwarf_CU *unit = NULL;
	Dwarf_Die cudie, sub;
	Dwarf_Half version;
	uint8_t type;

	id->unit_ranges_built = true;
	while (dwarf_get_units(id->dw, unit, &unit, &version, &type, &cudie, &sub) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		if (type != DW_UT_compile && type != DW_UT_partial && type != DW_UT_skeleton)
			continue;
		dp_vec_push(&id->unit_dies, cudie);
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			struct dp_unit_range r = {lo, hi, id->unit_dies.n - 1};
			if (hi > lo)
				dp_vec_push(&id->unit_ranges, r);
		}
	}
	if (id->unit_ranges.n)
		qsort(id->unit_ranges.v, id->unit_ranges.n, sizeof(*id->unit_ranges.v), by_lo);
}

Dwarf_Die *dp_image_cu(dp_image_dwarf *id, uint64_t vaddr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu;
	uint64_t a;
	size_t lo;

	if (!id->dw)
		return NULL;
	cu = dwfl_module_addrdie(id->im->mod, vaddr, bias);
	if (cu)
		return cu;
	if (!id->unit_ranges_built)
		build_unit_ranges(id);
	/* the last range starting at or before the address */
	a = vaddr - id->bias;
	lo = DP_PARTITION_POINT(id->unit_ranges.n, i, id->unit_ranges.v[i].lo <= a);
	/* units' ranges do not overlap: only the one before can hold it */
	if (lo && a < id->unit_ranges.v[lo - 1].hi) {
		*bias = id->bias;
		return &id->unit_dies.v[id->unit_ranges.v[lo - 1].die];
	}
	return NULL;
}

const char *dp_code_path(dp_image_dwarf *id, uint64_t vaddr)
{
	Dwfl_Line *line = id->dw ? dwfl_module_getsrc(id->im->mod, vaddr) : NULL;
	Dwarf_Addr cb;
	Dwarf_Die *cu;
	Dwarf_Line *dl;

	if (line)
		return dwfl_lineinfo(line, NULL, NULL, NULL, NULL, NULL);
	/* a unit libdwfl did not find (dp_image_cu): its own line table */
	cu = dp_image_cu(id, vaddr, &cb);
	dl = cu ? dwarf_getsrc_die(cu, vaddr - cb) : NULL;
	return dl ? dwarf_linesrc(dl, NULL, NULL) : NULL;
}

const dp_code_loc *dp_code_at(dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr)
{
	uint64_t v;
	dp_code_loc c;
	Dwfl_Line *line;
	Dwarf_Die *cu;
	Dwarf_Addr cb;

	if (dp_hashmap_get(&id->code, vaddr, &v))
		return &id->code_v.v[v];
	memset(&c, 0, sizeof(c));
	line = id->dw ? dwfl_module_getsrc(id->im->mod, vaddr) : NULL;
	cu = dp_image_cu(id, vaddr, &cb);
	if (line) {
		int ln = 0, col = 0;
		const char *f = dwfl_lineinfo(line, NULL, &ln, &col, NULL, NULL);

		if (f)
			c.file = dp_strtab_intern(strs, base_name(f));
		c.line = (uint32_t)(ln > 0 ? ln : 0);
		c.col = (uint32_t)(col > 0 ? col : 0);
	} else if (cu) {
		/* a unit libdwfl did not find (dp_image_cu): its own line table */
		Dwarf_Line *dl = dwarf_getsrc_die(cu, vaddr - cb);
		const char *f = dl ? dwarf_linesrc(dl, NULL, NULL) : NULL;
		int ln = 0, col = 0;

		if (f) {
			c.file = dp_strtab_intern(strs, base_name(f));
			dwarf_lineno(dl, &ln);
			dwarf_linecol(dl, &col);
			c.line = (uint32_t)(ln > 0 ? ln : 0);
			c.col = (uint32_t)(col > 0 ? col : 0);
		}
	}
	if (cu) {
		Dwarf_Die scopes[32];
		int n = dp_scope_index_scopes(&id->scopes, cu, vaddr - cb, scopes, 32);
		dp_buf chain = {0};
		int fns = 0;

		/* outermost function first */
		for (int i = 0; i < n; i++) {
			int tag = dwarf_tag(&scopes[i]);

			if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
				continue;
			uint32_t name = function_name(&scopes[i], strs);
			if (!fns)
				c.function = name;
			dp_buf_printf(&chain, "%s%s", fns ? " > " : "", dp_strtab_get(strs, name));
			fns++;
		}
		if (fns > 1)
			c.inline_chain = dp_strtab_intern(strs, chain.p);
		dp_buf_free(&chain);
		c.cu_off = dwarf_dieoffset(cu);
	}
	if (!c.function) {
		/* no DWARF: the symbol, or the function's bounds from CFI */
		dp_func_table **slot;
		const dp_symbol *sym = dp_image_function(id->im, vaddr, &slot);

		if (sym && sym->name)
			c.function = dp_strtab_intern(strs, sym->name);
	}
	if (c.file) {
		char buf[512];

		snprintf(buf, sizeof(buf), "%s:%u", dp_strtab_get(strs, c.file), c.line);
		c.line_id = dp_strtab_intern(strs, buf);
	}
	dp_vec_push(&id->code_v, c);
	dp_hashmap_put(&id->code, vaddr, id->code_v.n - 1);
	return &id->code_v.v[id->code_v.n - 1];
}

/* "file:line" of an inlined subroutine's call, in its unit's file table. */
static uint32_t call_line_id(Dwarf_Die *inl, Dwarf_Die *cu, dp_strtab *strs)
{
	Dwarf_Attribute at;
	Dwarf_Word file = 0, line = 0;
	Dwarf_Files *files;
	size_t nfiles;
	const char *f;
	char buf[512];

	if (!dwarf_attr(inl, DW_AT_call_file, &at) || dwarf_formudata(&at, &file) != 0 ||
	    !dwarf_attr(inl, DW_AT_call_line, &at) || dwarf_formudata(&at, &line) != 0 ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || file >= nfiles ||
	    !(f = dwarf_filesrc(files, file, NULL, NULL)))
		return 0;
	snprintf(buf, sizeof(buf), "%s:%u", base_name(f), (unsigned)line);
	return dp_strtab_intern(strs, buf);
}

int dp_code_frames(dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr, dp_code_frame *out, int max)
{
	const dp_code_loc *c = dp_code_at(id, strs, vaddr);
	Dwarf_Die scopes[32], *cu;
	Dwarf_Addr cb;
	int n = 0, nfn = 0, fn[32];

	cu = dp_image_cu(id, vaddr, &cb);
	if (cu) {
		int ns = dp_scope_index_scopes(&id->scopes, cu, vaddr - cb, scopes, 32);

		for (int i = 0; i < ns; i++) {
			int tag = dwarf_tag(&scopes[i]);

			if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
				fn[nfn++] = i;
		}
	}
	if (!nfn) {
		if (max > 0 && c->function) {
			out[0].function = c->function;
			out[0].line_id = c->line_id;
			n = 1;
		}
		return n;
	}
	/* innermost first: its line is the line table's; each outer one's is
	 * where the function inside it was inlined */
	for (int k = nfn - 1; k >= 0 && n < max; k--) {
		out[n].function = function_name(&scopes[fn[k]], strs);
		out[n].line_id =
		    k == nfn - 1 ? c->line_id : call_line_id(&scopes[fn[k + 1]], cu, strs);
		n++;
	}
	return n;
}

/* T of the class `this` points to when it is [__]new_allocator<T>. */
static bool new_allocator_arg(Dwarf_Die *fn, Dwarf_Die *type)
{
	Dwarf_Attribute at;
	Dwarf_Die origin, c, t, cls;
	const char *name;

	if (dwarf_attr(fn, DW_AT_abstract_origin, &at) && dwarf_formref_die(&at, &origin))
		fn = &origin;
	if (dwarf_child(fn, &c) != 0)
		return false;
	while (dwarf_tag(&c) != DW_TAG_formal_parameter)
		if (dwarf_siblingof(&c, &c) != 0)
			return false;
	/* this: (const) pointer to the class */
	if (!dwarf_attr_integrate(&c, DW_AT_type, &at) || !dwarf_formref_die(&at, &t) ||
	    dwarf_peel_type(&t, &t) != 0 || dwarf_tag(&t) != DW_TAG_pointer_type ||
	    !dwarf_attr_integrate(&t, DW_AT_type, &at) || !dwarf_formref_die(&at, &cls) ||
	    dwarf_peel_type(&cls, &cls) != 0)
		return false;
	name = dwarf_diename(&cls);
	if (!name || (strncmp(name, "__new_allocator<", 16) && strncmp(name, "new_allocator<", 14)))
		return false;
	if (dwarf_child(&cls, &c) != 0)
		return false;
	do
		if (dwarf_tag(&c) == DW_TAG_template_type_parameter)
			return dwarf_attr_integrate(&c, DW_AT_type, &at) &&
			       dwarf_formref_die(&at, type);
	while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

bool dp_code_alloc_type(dp_image_dwarf *id, uint64_t vaddr, Dwarf_Die *type)
{
	Dwarf_Die scopes[32], *cu;
	Dwarf_Addr cb;
	int ns;

	cu = dp_image_cu(id, vaddr, &cb);
	if (!cu)
		return false;
	ns = dp_scope_index_scopes(&id->scopes, cu, vaddr - cb, scopes, 32);
	for (int i = ns - 1; i >= 0; i--) {
		int tag = dwarf_tag(&scopes[i]);

		if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) &&
		    new_allocator_arg(&scopes[i], type))
			return true;
	}
	return false;
}

uint32_t dp_code_line_id(dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr)
{
	return dp_code_at(id, strs, vaddr)->line_id;
}

/* ---- variables with static addresses ---- */

static bool flag(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute at;
	bool v = false;

	return dwarf_attr_integrate(die, name, &at) && dwarf_formflag(&at, &v) == 0 && v;
}

static void add_var(struct dp_cu_statics *cs, dp_strtab *strs, Dwarf_Die *var, const char *scope)
{
	Dwarf_Attribute at;
	const char *name = NULL;
	dp_loc loc;
	dp_static_var s;
	char buf[512];

	if (dwarf_attr_integrate(var, DW_AT_name, &at))
		name = dwarf_formstring(&at);
	memset(&s, 0, sizeof(s));
	s.has_type = dp_die_type(var, &s.type);
	s.size = s.has_type ? dp_type_size(&s.type) : 0;
	if (flag(var, DW_AT_declaration) || !dwarf_hasattr_integrate(var, DW_AT_location)) {
		if (name && s.has_type && !scope) {
			s.name = dp_strtab_intern(strs, name);
			s.kind = DP_VAR_GLOBAL;
			dp_vec_push(&cs->decls, s);
		}
		return;
	}
	dp_var_location(var, 0, &loc);
	if (loc.kind != DP_LOC_TLS && !(loc.kind == DP_LOC_MEM && loc.reg < 0))
		return;
	s.addr = (uint64_t)loc.off;
	if (scope)
		snprintf(buf, sizeof(buf), "%s::%s", scope, name ? name : "?");
	else
		snprintf(buf, sizeof(buf), "%s", name ? name : "?");
	s.name = dp_strtab_intern(strs, buf);
	s.kind = loc.kind == DP_LOC_TLS	     ? DP_VAR_TLS
		 : flag(var, DW_AT_external) ? DP_VAR_GLOBAL
					     : DP_VAR_STATIC;
	if (s.kind == DP_VAR_TLS)
		dp_vec_push(&cs->tls, s);
	else
		dp_vec_push(&cs->vars, s);
}

static void walk_statics(struct dp_cu_statics *cs, dp_strtab *strs, Dwarf_Die *parent,
			 const char *scope, int depth)
{
	Dwarf_Die c;

	if (depth > 32 || dwarf_child(parent, &c) != 0)
		return;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_variable:
			add_var(cs, strs, &c, scope);
			break;
		case DW_TAG_subprogram: {
			uint32_t fn = function_name(&c, strs);
			walk_statics(cs, strs, &c, dp_strtab_get(strs, fn), depth + 1);
			break;
		}
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
			walk_statics(cs, strs, &c, scope, depth + 1);
			break;
		case DW_TAG_imported_unit: {
			/* dwz moves DIEs that units share into a partial unit (in this
			 * file or the .gnu_debugaltlink one) and imports it */
			Dwarf_Attribute at;
			Dwarf_Die pu;

			if (dwarf_attr(&c, DW_AT_import, &at) && dwarf_formref_die(&at, &pu))
				walk_statics(cs, strs, &pu, scope, depth + 1);
			break;
		}
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static int cmp_static(const void *a, const void *b)
{
	const dp_static_var *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (y->has_type) - (x->has_type);
}

/* The statics of the unit holding code (built on first use), or NULL. */
static struct dp_cu_statics *cu_of(dp_image_dwarf *id, dp_strtab *strs, uint64_t off)
{
	Dwarf_Die cu;
	uint64_t v;
	struct dp_cu_statics *cs;

	if (!off || !id->dw)
		return NULL;
	if (dp_hashmap_get(&id->cu_index, off, &v))
		return id->cus.v[v];
	if (!dwarf_offdie(id->dw, off, &cu))
		return NULL;
	cs = dp_calloc(1, sizeof(*cs));
	walk_statics(cs, strs, &cu, NULL, 0);
	if (cs->vars.n > 1)
		qsort(cs->vars.v, cs->vars.n, sizeof(dp_static_var), cmp_static);
	if (cs->tls.n > 1)
		qsort(cs->tls.v, cs->tls.n, sizeof(dp_static_var), cmp_static);
	dp_vec_push(&id->cus, cs);
	dp_hashmap_put(&id->cu_index, off, id->cus.n - 1);
	return cs;
}

static void build_symbols(dp_image_dwarf *id, dp_strtab *strs)
{
	int n = dwfl_module_getsymtab(id->im->mod);

	id->syms_built = true;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *nm =
		    dwfl_module_getsym_info(id->im->mod, i, &sym, &addr, NULL, NULL, NULL);
		int t = GELF_ST_TYPE(sym.st_info);
		dp_static_var s;

		if (!nm || (t != STT_OBJECT && t != STT_TLS) || !sym.st_size ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		memset(&s, 0, sizeof(s));
		s.addr = t == STT_TLS ? sym.st_value : addr;
		s.size = sym.st_size;
		s.name = dp_strtab_intern(strs, nm);
		s.kind = t == STT_TLS				  ? DP_VAR_TLS
			 : GELF_ST_BIND(sym.st_info) == STB_LOCAL ? DP_VAR_STATIC
								  : DP_VAR_GLOBAL;
		if (t == STT_TLS)
			dp_vec_push(&id->tls_syms, s);
		else
			dp_vec_push(&id->syms, s);
	}
	if (id->syms.n > 1)
		qsort(id->syms.v, id->syms.n, sizeof(dp_static_var), cmp_static);
	if (id->tls_syms.n > 1)
		qsort(id->tls_syms.v, id->tls_syms.n, sizeof(dp_static_var), cmp_static);
}

static const dp_static_var *find_var(const dp_static_var *v, size_t n, uint64_t a)
{
	size_t lo = DP_PARTITION_POINT(n, k, v[k].addr <= a);

	for (size_t i = lo; i-- > 0 && lo - i <= 4;)
		if (a >= v[i].addr && a < v[i].addr + DP_MAX(v[i].size, 1))
			return &v[i];
	return NULL;
}

/* A symbol's type from a declaration of the same name in the unit. */
static void type_from_unit(struct dp_cu_statics *cs, dp_strtab *strs, dp_static_var *s)
{
	const char *name = dp_strtab_get(strs, s->name);
	size_t len = strcspn(name, "."); /* local statics are "name.1234" */

	for (size_t i = 0; cs && i < cs->decls.n; i++) {
		const char *d = dp_strtab_get(strs, cs->decls.v[i].name);

		if (strlen(d) == len && !strncmp(d, name, len)) {
			s->type = cs->decls.v[i].type;
			s->has_type = true;
			return;
		}
	}
}

static const dp_static_var *lookup(dp_image_dwarf *id, dp_strtab *strs, uint64_t a, uint64_t cu_off,
				   bool tls)
{
	struct dp_cu_statics *cs = cu_of(id, strs, cu_off);
	const dp_static_var *v;
	uint64_t k;

	/* a variable of the unit that touched it: address and type from DWARF */
	if (cs &&
	    (v = tls ? find_var(cs->tls.v, cs->tls.n, a) : find_var(cs->vars.v, cs->vars.n, a)))
		return v;
	/* otherwise the symbol table, typed from the unit's declaration */
	if (!id->syms_built)
		build_symbols(id, strs);
	v = tls ? find_var(id->tls_syms.v, id->tls_syms.n, a) : find_var(id->syms.v, id->syms.n, a);
	if (!v)
		return NULL;
	/* typed from the declarations of the unit that touched it, and only
	 * that one: the answer for an instruction does not depend on which
	 * samples (of other units) came before, so that a report in parallel
	 * parts gives what one part gives */
	for (k = dp_hash64(((v->addr << 1) | tls) ^ dp_hash64(cu_off));; k++) {
		uint64_t i;

		if (!dp_hashmap_get(&id->resolved, k, &i))
			break;
		dp_static_var *r = &id->globals.v[i];
		if (r->addr == v->addr && r->kind == v->kind && r->tried_unit == cu_off)
			return r;
	}
	dp_static_var r = *v;
	type_from_unit(cs, strs, &r);
	r.tried_unit = cu_off;
	dp_vec_push(&id->globals, r);
	dp_hashmap_put(&id->resolved, k, id->globals.n - 1);
	return &id->globals.v[id->globals.n - 1];
}

const dp_static_var *dp_static_at(dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr,
				  uint64_t code)
{
	return lookup(id, strs, vaddr, code ? dp_code_at(id, strs, code)->cu_off : 0, false);
}

const dp_static_var *dp_static_in_unit(dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr,
				       uint64_t cu_off)
{
	return lookup(id, strs, vaddr, cu_off, false);
}

const dp_static_var *dp_tls_in_unit(dp_image_dwarf *id, dp_strtab *strs, uint64_t off,
				    uint64_t cu_off)
{
	return lookup(id, strs, off, cu_off, true);
}

/* ---- stack frames ---- */

/* Frame base of a subprogram: the CFA (reg -1) or a register + offset. */
static bool frame_base(Dwarf_Die *fn, uint64_t pc, int *reg, int64_t *off)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr_integrate(fn, DW_AT_frame_base, &at) ||
	    dwarf_getlocation_addr(&at, pc, &ops, &n, 1) != 1 || n != 1)
		return false;
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		*reg = -1;
		*off = 0;
		return true;
	}
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		/* clang: the frame base is the register's value (rbp, or rsp) */
		*reg = dp_dwarf_to_perf_reg(ops[0].atom - DW_OP_reg0);
		*off = 0;
		return *reg >= 0;
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		*reg = dp_dwarf_to_perf_reg(ops[0].atom - DW_OP_breg0);
		*off = (int64_t)ops[0].number;
		return *reg >= 0;
	}
	return false;
}

const dp_frame_info *dp_frame_at(dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr)
{
	uint64_t v;
	dp_frame_info *f;
	Dwarf_Die *cu, *fn = NULL;
	Dwarf_Addr cb;
	int n;

	if (dp_hashmap_get(&id->frames, vaddr, &v))
		return id->frame_v.v[v];
	f = dp_calloc(1, sizeof(*f));
	dp_vec_push(&id->frame_v, f);
	dp_hashmap_put(&id->frames, vaddr, id->frame_v.n - 1);
	f->cfa_known = dp_cfa_rule(id->cfi, vaddr - id->cfi_bias, &f->cfa_reg, &f->cfa_off);
	cu = dp_image_cu(id, vaddr, &cb);
	if (!cu)
		return f;
	Dwarf_Die scopes[32];
	n = dp_scope_index_scopes(&id->scopes, cu, vaddr - cb, scopes, 32);
	if (n > 0 && dwarf_tag(&scopes[0]) == DW_TAG_subprogram)
		fn = &scopes[0];
	if (!fn)
		return f;
	int fbreg;
	int64_t fboff;
	bool have_fb = frame_base(fn, vaddr - cb, &fbreg, &fboff);
	f->function = function_name(fn, strs);
	/* a variable of an inlined function is named after that function */
	uint32_t owner = f->function;
	for (int i = 0; i < n; i++) {
		Dwarf_Die c;

		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
			owner = function_name(&scopes[i], strs);
		for (bool more = dp_scope_var_first(&scopes[i], &c); more;
		     more = dp_scope_var_next(&c)) {
			dp_loc loc;
			dp_frame_var fv;
			Dwarf_Attribute at;
			const char *vn = NULL;
			char buf[512];

			if (!dp_die_type(&c, &fv.type))
				continue;
			dp_var_location(&c, vaddr - cb, &loc);
			if (loc.kind == DP_LOC_FBREG && have_fb) {
				fv.reg = fbreg;
				fv.off = fboff + loc.off;
			} else if (loc.kind == DP_LOC_MEM && loc.reg >= 0) {
				fv.reg = loc.reg;
				fv.off = loc.off;
			} else {
				continue;
			}
			fv.size = dp_type_size(&fv.type);
			if (dwarf_attr_integrate(&c, DW_AT_name, &at))
				vn = dwarf_formstring(&at);
			snprintf(buf, sizeof(buf), "%s::%s", dp_strtab_get(strs, owner),
				 vn ? vn : "?");
			fv.name = dp_strtab_intern(strs, buf);
			dp_vec_push(&f->vars, fv);
		}
	}
	return f;
}
