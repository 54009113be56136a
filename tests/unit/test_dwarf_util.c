/* The DWARF helpers (annotate/dwarf_util.h) and the construct table
 * (annotate/construct.h) on a small program of known types, dwarf_types.c,
 * built at -O0 and -O2: type names and sizes, peeling typedefs, pointees,
 * member paths inside members, arrays of structs and unions, in padding and
 * beyond the type, object paths and array strides, where parameters live,
 * the DWARF to perf register map, and the type and member the memory
 * instructions of a function touch (issue 17). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <asm/perf_regs.h>
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate/alloc_type.h"
#include "annotate/construct.h"
#include "annotate/dwarf_util.h"
#include "annotate/image_dwarf.h"
#include "decode/image.h"
#include "decode/insn_table.h"
#include "strtab.h"
#include "tu_group.h"

typedef struct bin {
	dp_image *im;
	dp_image_dwarf *id;
	dp_strtab strs;
	dp_arch *arch;
} bin;

static void bin_open(bin *b, const char *path)
{
	dp_image_opts o = {0};
	dp_reason why;
	dp_error err = {{0}};

	memset(b, 0, sizeof(*b));
	b->im = dp_image_open(path, NULL, 0, &o, &why, &err);
	if (!b->im)
		fail_msg("%s: %s", path, err.msg);
	dp_strtab_init(&b->strs);
	b->id = dp_image_dwarf_new(b->im);
	assert_true(dp_image_has_dwarf(b->id));
	b->arch = dp_arch_x86_64();
}

static void bin_close(bin *b)
{
	dp_image_dwarf_free(b->id);
	dp_image_free(b->im);
	dp_strtab_free(&b->strs);
	dp_arch_free(b->arch);
}

/* The first DIE with this tag and name among c and its siblings, or in
 * their namespaces, that is not a declaration (a function another unit
 * calls). */
static bool find_in(Dwarf_Die c, int tag, const char *name, Dwarf_Die *out)
{
	do {
		const char *n = dwarf_diename(&c);
		Dwarf_Die inner;

		if (dwarf_tag(&c) == tag && n && !strcmp(n, name) &&
		    !dwarf_hasattr(&c, DW_AT_declaration)) {
			*out = c;
			return true;
		}
		if (dwarf_tag(&c) == DW_TAG_namespace && dwarf_child(&c, &inner) == 0 &&
		    find_in(inner, tag, name, out))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The first such DIE in any unit, at the units' top level or in their
 * namespaces. */
static bool find(bin *b, int tag, const char *name, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(b->id->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;

		if (dwarf_offdie(b->id->dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0 &&
		    find_in(c, tag, name, out))
			return true;
		off = next;
	}
	return false;
}

static Dwarf_Die named(bin *b, int tag, const char *name)
{
	Dwarf_Die d;

	if (!find(b, tag, name, &d))
		fail_msg("no DIE for %s", name);
	return d;
}

/* The type of global variable name. */
static Dwarf_Die var_type(bin *b, const char *name)
{
	Dwarf_Die v = named(b, DW_TAG_variable, name), t;

	assert_true(dp_die_type(&v, &t));
	return t;
}

static char *type_name(Dwarf_Die *t)
{
	static char s[256];
	dp_buf out = {0};

	dp_type_name(t, &out);
	snprintf(s, sizeof(s), "%s", out.len ? (char *)out.p : "");
	dp_buf_free(&out);
	return s;
}

/* dp_member_path's result and path; "padding"/"outside"/"incomplete"
 * otherwise. */
static const char *path(Dwarf_Die *t, uint64_t off, unsigned size)
{
	static char s[256];
	dp_buf out = {0};
	dp_path_result r = dp_member_path(t, off, size, &out, NULL);

	snprintf(s, sizeof(s), "%s",
		 r == DP_PATH_OK	   ? (out.len ? (char *)out.p : "")
		 : r == DP_PATH_PADDING	   ? "padding"
		 : r == DP_PATH_INCOMPLETE ? "incomplete"
					   : "outside");
	dp_buf_free(&out);
	return s;
}

static int setup(void **state)
{
	bin *b = calloc(4, sizeof(*b));

	bin_open(&b[0], DWARF_TYPES_O0);
	bin_open(&b[1], DWARF_TYPES_O2);
	bin_open(&b[2], DWARF_TYPES_CXX);
	bin_open(&b[3], DWARF_TYPES_DW3);
	*state = b;
	return 0;
}

static int teardown(void **state)
{
	bin *b = *state;

	for (int i = 0; i < 4; i++)
		bin_close(&b[i]);
	free(b);
	return 0;
}

static void test_names_sizes(void **state)
{
	/* variables' types: their names and sizes */
	static const struct {
		const char *var, *type;
		int size;
	} vars[] = {
	    {"nodes", "struct node[8]", 256},
	    {"samples", "double[16]", 128},
	    {"matrix", "int[3][5]", 60},
	    {"name_ptr", "char *", 8},
	    {"counter", "long", 8}, /* qualifiers peeled */
	    /* a typedef of an anonymous struct keeps its name */
	    {"pts", "point[5]", 40},
	};
	bin *bins = *state;

	for (int k = 0; k < 2; k++) {
		bin *b = &bins[k];
		Dwarf_Die t, u, p;

		t = named(b, DW_TAG_structure_type, "node");
		assert_string_equal(type_name(&t), "struct node");
		assert_int_equal(dp_type_size(&t), 32);
		t = named(b, DW_TAG_structure_type, "grid");
		assert_int_equal(dp_type_size(&t), 224);
		t = named(b, DW_TAG_union_type, "value");
		assert_string_equal(type_name(&t), "union value");
		assert_int_equal(dp_type_size(&t), 8);
		for (size_t i = 0; i < DP_ARRAY_LEN(vars); i++) {
			t = var_type(b, vars[i].var);
			assert_string_equal(type_name(&t), vars[i].type);
			assert_int_equal(dp_type_size(&t), vars[i].size);
		}
		t = var_type(b, "name_ptr");
		assert_true(dp_type_pointee(&t, &p));
		assert_string_equal(type_name(&p), "char");
		t = var_type(b, "counter");
		assert_false(dp_type_pointee(&t, &p));
		/* void, however qualified, is no pointee: a variable of such a
		 * type gives way to another one in the same register */
		t = var_type(b, "opaque");
		assert_false(dp_type_pointee(&t, &p));
		t = var_type(b, "copaque");
		assert_string_equal(type_name(&t), "void *");
		assert_false(dp_type_pointee(&t, &p));
		t = named(b, DW_TAG_typedef, "point");
		dp_type_peel(&t, &u);
		assert_int_equal(dwarf_tag(&u), DW_TAG_typedef);
		assert_string_equal(type_name(&u), "point");
		assert_int_equal(dp_type_size(&t), 8);
		/* a typedef of a pointer to const: peeled to the pointer, its
		 * pointee peeled of const */
		t = var_type(b, "cnode");
		dp_type_peel(&t, &u);
		assert_int_equal(dwarf_tag(&u), DW_TAG_pointer_type);
		assert_string_equal(type_name(&t), "struct node *"); /* names peel typedefs */
		assert_true(dp_type_pointee(&t, &p));
		assert_string_equal(type_name(&p), "struct node");
		assert_int_equal(dp_type_size(&p), 32);
		/* a member's type */
		t = named(b, DW_TAG_structure_type, "outer");
		dp_buf out = {0};
		Dwarf_Die leaf;
		assert_int_equal(dp_member_path(&t, 16, 8, &out, &leaf), DP_PATH_OK);
		assert_string_equal(type_name(&leaf), "struct inner *");
		assert_true(dp_type_pointee(&leaf, &p));
		assert_string_equal(type_name(&p), "struct inner");
		dp_buf_free(&out);
	}
}

static void test_member_paths(void **state)
{
	bin *b = *state;
	Dwarf_Die node = named(b, DW_TAG_structure_type, "node");
	Dwarf_Die grid = named(b, DW_TAG_structure_type, "grid");
	Dwarf_Die tagged = named(b, DW_TAG_structure_type, "tagged");
	Dwarf_Die outer = named(b, DW_TAG_structure_type, "outer");
	Dwarf_Die nodes = var_type(b, "nodes"), pts = var_type(b, "pts");
	Dwarf_Die matrix = var_type(b, "matrix");

	assert_string_equal(path(&node, 0, 4), "struct node.key");
	assert_string_equal(path(&node, 3, 1), "struct node.key");
	assert_string_equal(path(&node, 4, 4), "padding");
	assert_string_equal(path(&node, 7, 1), "padding");
	assert_string_equal(path(&node, 8, 8), "struct node.next");
	assert_string_equal(path(&node, 20, 4), "struct node.v");
	assert_string_equal(path(&node, 24, 1), "struct node.tag");
	assert_string_equal(path(&node, 25, 1), "padding");
	assert_string_equal(path(&node, 31, 1), "padding");
	assert_string_equal(path(&node, 32, 8), "outside");
	assert_string_equal(path(&node, 1000, 8), "outside");
	/* arrays of structs in structs: rows[1].cells[2] */
	assert_string_equal(path(&grid, 0, 4), "struct grid.nrows");
	assert_string_equal(path(&grid, 4, 4), "padding");
	assert_string_equal(path(&grid, 8 + 72 + 32, 8), "struct grid.rows[].cells[].v");
	assert_string_equal(path(&grid, 8 + 72 + 32 + 8, 4), "struct grid.rows[].cells[].n");
	assert_string_equal(path(&grid, 8 + 72 + 32 + 12, 4), "padding");
	assert_string_equal(path(&grid, 8 + 72 + 64, 8), "struct grid.rows[].sum");
	assert_string_equal(path(&grid, 8 + 2 * 72 + 71, 1), "struct grid.rows[].sum");
	assert_string_equal(path(&grid, 224, 1), "outside");
	/* a struct inside a struct, and a pointer member */
	assert_string_equal(path(&outer, 0, 1), "struct outer.c");
	assert_string_equal(path(&outer, 1, 1), "padding");
	assert_string_equal(path(&outer, 4, 4), "struct outer.in.a");
	assert_string_equal(path(&outer, 8, 4), "struct outer.in.b");
	assert_string_equal(path(&outer, 16, 8), "struct outer.pin");
	/* bitfields, by the bytes their bits fall in (DWARF 5 and 3) */
	for (int o = 0; o < 4; o += o == 1 ? 2 : 1) {
		Dwarf_Die flags = named(&b[o], DW_TAG_structure_type, "flags");

		assert_string_equal(path(&flags, 4, 1), "struct flags.a");
		assert_string_equal(path(&flags, 5, 1), "struct flags.c");
		assert_string_equal(path(&flags, 6, 1), "struct flags.d");
		assert_string_equal(path(&flags, 7, 1), "padding");
	}
	/* a union's member chosen by the access size; unknown: the first */
	assert_string_equal(path(&tagged, 8, 1), "struct tagged.u.c");
	assert_string_equal(path(&tagged, 8, 2), "struct tagged.u.s");
	assert_string_equal(path(&tagged, 8, 4), "struct tagged.u.i");
	assert_string_equal(path(&tagged, 8, 8), "struct tagged.u.l");
	assert_string_equal(path(&tagged, 8, 0), "struct tagged.u.c");
	assert_string_equal(path(&tagged, 4, 4), "padding");
	/* arrays at the top: the element's path, one [] per dimension */
	assert_string_equal(path(&nodes, 3 * 32 + 8, 8), "struct node[8][].next");
	assert_string_equal(path(&nodes, 3 * 32 + 4, 4), "padding");
	assert_string_equal(path(&pts, 2 * 8 + 4, 4), "point[5][].y");
	assert_string_equal(path(&matrix, 4 * 7, 4), "int[3][5][][]");
	/* beyond the array: outside, not wrapped into an element */
	assert_string_equal(path(&nodes, 8 * 32 + 8, 8), "outside");
	assert_string_equal(path(&matrix, 60, 4), "outside");
	/* through a pointer to a struct only declared: unknown, not padding */
	for (int o = 0; o < 4; o += o == 1 ? 2 : 1) {
		Dwarf_Die hp = var_type(&b[o], "hidden_ptr"), hidden;

		assert_true(dp_type_pointee(&hp, &hidden));
		assert_string_equal(path(&hidden, 8, 8), "incomplete");
		assert_string_equal(path(&hidden, 0, 4), "incomplete");
		assert_int_equal(dp_path_reason(DP_PATH_INCOMPLETE), DP_AR_INCOMPLETE);
	}
	assert_false(dp_type_flexible(&node));
	assert_false(dp_type_flexible(&grid));
}

/* A struct ending in an array of one element or none (the struct hack):
 * offsets past it, and its padding after a [1], are that array's. */
static void test_flexible_tail(void **state)
{
	bin *b = *state;
	Dwarf_Die c1 = named(b, DW_TAG_structure_type, "chunk1");
	Dwarf_Die cf = named(b, DW_TAG_structure_type, "chunkf");

	assert_true(dp_type_flexible(&c1));
	assert_true(dp_type_flexible(&cf));
	assert_string_equal(path(&c1, 8, 4), "struct chunk1.n");
	assert_string_equal(path(&c1, 12, 1), "struct chunk1.data[]");
	assert_string_equal(path(&c1, 14, 1), "struct chunk1.data[]");
	assert_string_equal(path(&c1, 16, 1), "struct chunk1.data[]");
	assert_string_equal(path(&c1, 4000, 1), "struct chunk1.data[]");
	assert_string_equal(path(&cf, 0, 8), "struct chunkf.size");
	assert_string_equal(path(&cf, 8, 8), "struct chunkf.items[]");
	assert_string_equal(path(&cf, 8 + 8 * 50, 8), "struct chunkf.items[]");
}

static const char *obj_path(Dwarf_Die *t, uint64_t off, unsigned size, const char **member)
{
	static char tn[256], mb[256];
	dp_buf a = {0}, m = {0};
	dp_path_result r = dp_object_path(t, off, size, &a, &m);

	snprintf(tn, sizeof(tn), "%s", a.len ? (char *)a.p : "");
	snprintf(mb, sizeof(mb), "%s",
		 r == DP_PATH_OK	? (m.len ? (char *)m.p : "")
		 : r == DP_PATH_PADDING ? "padding"
					: "outside");
	dp_buf_free(&a);
	dp_buf_free(&m);
	*member = mb;
	return tn;
}

static void test_object_paths(void **state)
{
	bin *b = *state;
	Dwarf_Die nodes = var_type(b, "nodes"), samples = var_type(b, "samples");
	Dwarf_Die matrix = var_type(b, "matrix"), grid = var_type(b, "the_grid");
	Dwarf_Die counter = var_type(b, "counter"), pts = var_type(b, "pts");
	const char *m;

	/* an array object is named by its element */
	assert_string_equal(obj_path(&nodes, 5 * 32 + 16, 8, &m), "struct node");
	assert_string_equal(m, "struct node.v");
	assert_string_equal(obj_path(&nodes, 5 * 32 + 28, 1, &m), "struct node");
	assert_string_equal(m, "padding");
	assert_string_equal(obj_path(&samples, 24, 8, &m), "double");
	assert_string_equal(m, "double[]");
	assert_string_equal(obj_path(&matrix, 4 * 7, 4, &m), "int");
	assert_string_equal(m, "int[]");
	assert_string_equal(obj_path(&pts, 12, 4, &m), "point");
	assert_string_equal(m, "point.y");
	/* a struct object: its path */
	assert_string_equal(obj_path(&grid, 8 + 72 + 32, 8, &m), "struct grid");
	assert_string_equal(m, "struct grid.rows[].cells[].v");
	assert_string_equal(obj_path(&grid, 300, 8, &m), "struct grid");
	assert_string_equal(m, "outside");
	/* a whole scalar: no member */
	assert_string_equal(obj_path(&counter, 0, 8, &m), "long");
	assert_string_equal(m, "");
	/* strides: the innermost element's size */
	assert_int_equal(dp_array_stride(&nodes), 32);
	assert_int_equal(dp_array_stride(&samples), 8);
	assert_int_equal(dp_array_stride(&matrix), 4);
	assert_int_equal(dp_array_stride(&pts), 8);
	assert_int_equal(dp_array_stride(&grid), 0);
	assert_int_equal(dp_array_stride(&counter), 0);
}

/* libstdc++'s container nodes: the value in a node's raw bytes is the
 * template's T, its members named, past the empty bases that start at the
 * same offset. (gcc and clang spell the types' names apart.) */
static void test_container_nodes(void **state)
{
	bin *b = *state;
	static const struct {
		const char *gcc, *clang;
		uint64_t off;
		const char *tail; /* how the member path ends */
	} want[] = {
	    {"_Hash_node<std::pair<long int const, long int>, false>",
	     "_Hash_node<std::pair<const long, long>, false>", 0, "._M_nxt"},
	    {"_Hash_node<std::pair<long int const, long int>, false>",
	     "_Hash_node<std::pair<const long, long>, false>", 8, "._M_storage.first"},
	    {"_Hash_node<std::pair<long int const, long int>, false>",
	     "_Hash_node<std::pair<const long, long>, false>", 16, "._M_storage.second"},
	    {"_Rb_tree_node<std::pair<long int const, long int> >",
	     "_Rb_tree_node<std::pair<const long, long> >", 32, "._M_storage.first"},
	    {"_Rb_tree_node<std::pair<long int const, long int> >",
	     "_Rb_tree_node<std::pair<const long, long> >", 40, "._M_storage.second"},
	    {"_List_node<long int>", "_List_node<long>", 16, "._M_storage"},
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		Dwarf_Die t;
		const char *m;
		size_t n, k = strlen(want[i].tail);

		if (!find(&b[2], DW_TAG_structure_type, want[i].gcc, &t))
			t = named(&b[2], DW_TAG_structure_type, want[i].clang);
		obj_path(&t, want[i].off, 8, &m);
		n = strlen(m);
		printf("%s +%lu: %s\n", want[i].gcc, (unsigned long)want[i].off, m);
		if (n < k || strcmp(m + n - k, want[i].tail))
			fail_msg("%s +%lu: %s, not ...%s", want[i].gcc, (unsigned long)want[i].off,
				 m, want[i].tail);
	}
}

/* The function, file and line of an address; for clang's binaries (no
 * .debug_aranges) found through the units' own ranges (dp_image_cu). */
static void test_code_at(void **state)
{
	bin *bins = *state;

	for (int k = 0; k < 2; k++) {
		bin *b = &bins[k];
		Dwarf_Die f = named(b, DW_TAG_subprogram, "get_next_v");
		Dwarf_Addr lo, hi, bias;
		int decl = 0;

		assert_int_equal(dwarf_lowpc(&f, &lo), 0);
		assert_int_equal(dwarf_highpc(&f, &hi), 0);
		assert_int_equal(dwarf_decl_line(&f, &decl), 0);
		for (Dwarf_Addr pc = lo; pc < hi; pc += (hi - lo) / 2) {
			const dp_code_loc *c = dp_code_at(b->id, &b->strs, pc);
			assert_string_equal(dp_strtab_get(&b->strs, c->function), "get_next_v");
			assert_string_equal(dp_strtab_get(&b->strs, c->file), "dwarf_types.c");
			if (c->line < (uint32_t)decl ||
			    c->line > (uint32_t)decl + 3) /* its 4 lines */
				fail_msg("get_next_v+%#llx at line %u, declared at %d",
					 (unsigned long long)(pc - lo), c->line, decl);
			assert_int_not_equal(c->cu_off, 0);
		}
		Dwarf_Die *cu = dp_image_cu(b->id, lo, &bias);
		assert_non_null(cu);
		assert_int_equal(dwarf_tag(cu), DW_TAG_compile_unit);
		assert_null(dp_image_cu(b->id, 0, &bias)); /* in no unit */
	}
}

static void test_registers(void **state)
{
	static const int perf[16] = {
	    PERF_REG_X86_AX,  PERF_REG_X86_DX,	PERF_REG_X86_CX,  PERF_REG_X86_BX,
	    PERF_REG_X86_SI,  PERF_REG_X86_DI,	PERF_REG_X86_BP,  PERF_REG_X86_SP,
	    PERF_REG_X86_R8,  PERF_REG_X86_R9,	PERF_REG_X86_R10, PERF_REG_X86_R11,
	    PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14, PERF_REG_X86_R15,
	};
	int seen = 0;

	(void)state;
	/* DWARF's x86-64 numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 */
	for (unsigned r = 0; r < 16; r++) {
		assert_int_equal(dp_dwarf_to_perf_reg(r), perf[r]);
		seen |= 1 << dp_dwarf_to_perf_reg(r) % 32;
	}
	assert_int_equal(dp_dwarf_to_perf_reg(16), PERF_REG_X86_IP); /* the return address column */
	assert_int_equal(dp_dwarf_to_perf_reg(17), -1);		     /* xmm0 */
	assert_int_equal(dp_dwarf_to_perf_reg(1000), -1);
	assert_int_equal(__builtin_popcount((unsigned)seen), 16); /* no two alike */
}

/* The parameter n of function fn at its first instruction after the
 * prologue (-O0: on the stack; -O2: in its register). */
static void param_at(bin *b, const char *fn, const char *param, uint64_t pc_off, dp_loc *loc)
{
	Dwarf_Die f = named(b, DW_TAG_subprogram, fn), c;
	Dwarf_Addr lo;

	assert_int_equal(dwarf_lowpc(&f, &lo), 0);
	assert_int_equal(dwarf_child(&f, &c), 0);
	do {
		const char *n = dwarf_diename(&c);
		if (dwarf_tag(&c) == DW_TAG_formal_parameter && n && !strcmp(n, param)) {
			dp_var_location(&c, lo + pc_off, loc);
			return;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	fail_msg("%s has no parameter %s", fn, param);
}

/* At function fn's entry (-O2), its parameter param is in register reg. */
static void param_in_reg(bin *b, const char *fn, const char *param, int reg)
{
	dp_loc loc;

	param_at(b, fn, param, 0, &loc);
	assert_int_equal(loc.kind, DP_LOC_REG);
	assert_int_equal(loc.reg, reg);
}

static void test_var_location(void **state)
{
	bin *b = *state;
	dp_loc loc;

	/* -O0: every parameter in its frame slot, below the frame base */
	param_at(&b[0], "get_next_v", "n", 8, &loc);
	assert_int_equal(loc.kind, DP_LOC_FBREG);
	assert_true(loc.off < 0);
	param_at(&b[0], "grid_cell", "c", 8, &loc);
	assert_int_equal(loc.kind, DP_LOC_FBREG);
	/* -O2: the arguments' registers at entry (rdi, rsi, edx) */
	param_in_reg(&b[1], "get_next_v", "n", PERF_REG_X86_DI);
	param_in_reg(&b[1], "grid_cell", "r", PERF_REG_X86_SI);
	param_in_reg(&b[1], "grid_cell", "c", PERF_REG_X86_DX);
	/* a location list: head is rdi until the loop moves rdi along the
	 * list, then only an entry value (not a simple location) */
	param_in_reg(&b[1], "sum_keys", "head", PERF_REG_X86_DI);
	Dwarf_Die sk = named(&b[1], DW_TAG_subprogram, "sum_keys");
	Dwarf_Addr sk_lo, sk_hi;
	assert_int_equal(dwarf_lowpc(&sk, &sk_lo), 0);
	assert_int_equal(dwarf_highpc(&sk, &sk_hi), 0);
	param_at(&b[1], "sum_keys", "head", sk_hi - sk_lo - 2, &loc);
	assert_int_equal(loc.kind, DP_LOC_NONE);
	/* a global: at its address */
	Dwarf_Die v = named(&b[1], DW_TAG_variable, "counter");
	dp_var_location(&v, 0, &loc);
	assert_int_equal(loc.kind, DP_LOC_MEM);
	assert_true(loc.off > 0);
}

/* The constructs of function fn's memory operands, one line each:
 * "type|member|origin" for those that have one, "-reason" otherwise, for
 * operands that are not push/pop/call/ret. */
static char *constructs(bin *b, const char *fn)
{
	Dwarf_Die f = named(b, DW_TAG_subprogram, fn);
	Dwarf_Addr lo;
	dp_func_table **slot = NULL;
	const dp_symbol *sym;
	dp_func_table *t;
	dp_buf out = {0};

	assert_int_equal(dwarf_lowpc(&f, &lo), 0);
	sym = dp_image_function(b->im, lo, &slot);
	assert_non_null(sym);
	assert_int_equal(sym->addr, lo);
	t = dp_func_table_build(b->arch, b->im, sym);
	assert_non_null(t);
	for (size_t i = 0; i < t->insns.n; i++) {
		const dp_insn *in = &t->insns.v[i];

		for (int m = 0; m < in->nmem; m++) {
			if (in->mem[m].implicit == DP_IMPLICIT_STACK)
				continue;
			const dp_construct *k =
			    dp_construct_of(b->id, &b->strs, t, (long)i, in->addr, m);
			/* the second lookup is the cached one */
			assert_ptr_equal(dp_construct_of(b->id, &b->strs, t, (long)i, in->addr, m),
					 k);
			static const char *const origin[] = {
			    "none", "pointer", "tracked", "static", "stack", "value", "spill"};
			if (k->type)
				dp_buf_printf(&out, "%s|%s|%s|%s\n",
					      dp_strtab_get(&b->strs, k->type),
					      dp_strtab_get(&b->strs, k->member),
					      dp_strtab_get(&b->strs, k->var), origin[k->origin]);
			else
				dp_buf_printf(&out, "-%s\n", dp_annot_reason_name(k->reason));
		}
	}
	dp_buf_add(&out, "", 1);
	dp_func_table_free(t);
	return (char *)out.p;
}

static void has_line(const char *all, const char *line, const char *what)
{
	char want[256];

	snprintf(want, sizeof(want), "%s\n", line);
	if (!strstr(all, want))
		fail_msg("%s lacks '%s':\n%s", what, line, all);
}

/* The accesses of fn in b, exactly. */
static void constructs_are(bin *b, const char *fn, const char *want)
{
	char *got = constructs(b, fn);

	assert_string_equal(got, want);
	free(got);
}

/* The accesses of fn in b (what names it in messages) include each of the
 * NULL-ended lines: the whole text, for more checks. */
static char *constructs_with(bin *b, const char *fn, const char *what, const char *const *lines)
{
	char *got = constructs(b, fn);

	for (; *lines; lines++)
		has_line(got, *lines, what);
	return got;
}

static void test_constructs(void **state)
{
	bin *b = *state;
	char *got;

	/* n->next->v: n's slot, then the two loads through what it held */
	constructs_are(&b[0], "get_next_v",
		       "struct node *||get_next_v::n|stack\n"
		       "struct node *||get_next_v::n|stack\n"
		       "struct node|struct node.next||tracked\n"
		       "struct node|struct node.v||tracked\n");
	/* -O2: n in rdi, then the loaded n->next */
	constructs_are(&b[1], "get_next_v",
		       "struct node|struct node.next|n|pointer\n"
		       "struct node|struct node.v||tracked\n");
	/* a loop's pointer: p = p->next, at -O0 through its slot */
	got = constructs_with(&b[0], "sum_keys", "-O0 sum_keys",
			      (const char *const[]){"struct node|struct node.key||tracked",
						    "struct node|struct node.next||tracked",
						    "struct node *||sum_keys::p|stack",
						    "long||sum_keys::s|stack", NULL});
	assert_true(got[0] != '-' && !strstr(got, "\n-")); /* every access typed */
	free(got);
	/* at -O2 p lives in rdi around the loop (location list) */
	constructs_are(&b[1], "sum_keys",
		       "struct node|struct node.key|p|pointer\n"
		       "struct node|struct node.next|p|pointer\n");
	/* g->rows[r].cells[c].v through arithmetic on the indices */
	got = constructs_with(
	    &b[0], "grid_cell", "-O0 grid_cell",
	    (const char *const[]){"struct grid|struct grid.rows[].cells[].v||tracked",
				  "struct grid *||grid_cell::g|stack", NULL});
	free(got);
	/* -O2 puts g in the index slot of the operand (0x8(%rax,%rdi,1)): not
	 * followed yet; whatever it says, never another type */
	got = constructs(&b[1], "grid_cell");
	if (strcmp(got, "-no variable for register\n") &&
	    strcmp(got, "struct grid|struct grid.rows[].cells[].v|g|pointer\n"))
		fail_msg("-O2 grid_cell:\n%s", got);
	free(got);
	/* registers spilled to slots no variable owns: typed by what is
	 * stored there, reloads by the stores into their slot, a pointer
	 * followed through one; a slot two types go through has none */
	constructs_are(&b[1], "spill_slots",
		       "struct pair *||p|spill\n"
		       "int||k|spill\n"
		       "struct pair *||p|spill\n"
		       "long||x|spill\n"
		       "struct pair *||p|spill\n"
		       "int||k|spill\n"
		       "-no variable for register\n"
		       "struct pair|struct pair.b|p|tracked\n");
	/* a byte pointer that stepped past the byte it reads (gcc -O2:
	 * -1(%rax)): the byte, not an offset outside its type */
	for (int o = 0; o < 2; o++) {
		got = constructs(&b[o], "skip_varint");
		printf("skip_varint -O%d:\n%s", o * 2, got);
		if (!strstr(got, "unsigned char||") || strstr(got, "\n-") || got[0] == '-')
			fail_msg("-O%d skip_varint:\n%s", o * 2, got);
		free(got);
		/* a way into a join that says nothing (r11) leaves the other's
		 * type: n->v */
		got = constructs(&b[o], "join_unknown");
		printf("join_unknown -O%d:\n%s", o * 2, got);
		if (!strstr(got, "struct node|struct node.v|"))
			fail_msg("-O%d join_unknown:\n%s", o * 2, got);
		free(got);
	}
}

/* The type the code a function's first call (malloc) returns to takes
 * its result for: "" when nothing says. */
static const char *result_type(bin *b, const char *fn)
{
	Dwarf_Die f = named(b, DW_TAG_subprogram, fn), t;
	Dwarf_Addr lo;
	dp_func_table **slot = NULL;
	const dp_symbol *sym;
	dp_func_table *tab;
	const char *got = NULL;

	assert_int_equal(dwarf_lowpc(&f, &lo), 0);
	sym = dp_image_function(b->im, lo, &slot);
	assert_non_null(sym);
	tab = dp_func_table_build(b->arch, b->im, sym);
	assert_non_null(tab);
	for (size_t i = 0; i < tab->insns.n && !got; i++) {
		const dp_insn *in = &tab->insns.v[i];

		if (in->flags & DP_INSN_CALL)
			got = dp_alloc_result_type(b->id, &b->strs, tab, in->addr + in->len, &t)
				  ? type_name(&t)
				  : "";
	}
	dp_func_table_free(tab);
	assert_non_null(got);
	return got;
}

/* A block's type from the pointer variables its allocation's result
 * goes to: the whole record over its header, through stack slots at -O0
 * and registers at -O2; a function's parameter it is passed to; nothing
 * for a void * and a step into the block. */
static void test_alloc_result_types(void **state)
{
	bin *b = *state;

	for (int o = 0; o < 2; o++) {
		assert_string_equal(result_type(&b[o], "rec_make"), "struct rec");
		assert_string_equal(result_type(&b[o], "node_make"), "struct node");
		assert_string_equal(result_type(&b[o], "raw_make"), "");
	}
}

TU_MAIN(setup, teardown, test_names_sizes, test_member_paths, test_flexible_tail, test_object_paths,
	test_container_nodes, test_code_at, test_registers, test_var_location, test_constructs,
	test_alloc_result_types)
