/* libFuzzer target: arbitrary bytes as a binary a profile names. They are
 * written to a memfd and opened as decode opens a binary (dp_image_open:
 * libelf, Dwfl, the symbol table); then, on addresses from the file itself
 * (every function, every instruction of the first ones, points spread over
 * each segment, and some the input's hash picks), what decode and annotate
 * do with a sample there: the function and its instruction table
 * (capstone), the construct of each memory operand (type tracking through
 * DWARF), file:line and inline chain, the frame and its stack variables,
 * static and TLS variables, and the member path of offsets in their types. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "annotate/construct.h"
#include "annotate/dwarf_util.h"
#include "annotate/image_dwarf.h"
#include "decode/arch.h"
#include "decode/image.h"
#include "decode/insn_table.h"
#include "fuzz_file.h"

#define MAX_FUNCS  48  /* functions decoded per input */
#define MAX_INSNS  256 /* instructions looked at per function */
#define MAX_PROBES 64  /* other addresses */

static volatile uint64_t sink;
static dp_arch *arch;

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

/* The member paths of a few offsets into a type, as annotate asks for them. */
static void paths(Dwarf_Die *type, uint64_t seed)
{
	uint64_t size = dp_type_size(type);
	dp_buf tn = {0}, member = {0};

	for (int i = 0; i < 4; i++) {
		uint64_t off = i == 0  ? 0
			       : size ? mix(seed + (uint64_t)i) % (size + 8)
				      : (uint64_t)i;
		unsigned access = (unsigned)(1u << (i & 3));

		dp_object_path(type, off, access, &tn, &member);
		tn.len = member.len = 0;
		dp_member_path(type, off, access, &member, NULL);
		member.len = 0;
	}
	dp_type_name(type, &tn);
	sink += tn.len;
	dp_buf_free(&tn);
	dp_buf_free(&member);
}

static void data_at(dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr, uint64_t code)
{
	const dp_static_var *v = dp_static_at(id, strs, vaddr, code);

	if (v && v->has_type) {
		Dwarf_Die t = v->type;
		paths(&t, vaddr);
	}
	v = dp_tls_in_unit(id, strs, vaddr & 0xffff, code ? dp_code_at(id, strs, code)->cu_off : 0);
	if (v && v->has_type) {
		Dwarf_Die t = v->type;
		paths(&t, vaddr);
	}
}

static void code_at(dp_image *im, dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr)
{
	const dp_code_loc *c = dp_code_at(id, strs, vaddr);
	const dp_frame_info *f;

	sink += c->line + c->function + c->inline_chain;
	sink += dp_code_line_id(id, strs, vaddr);
	f = dp_frame_at(id, strs, vaddr);
	for (size_t i = 0; i < f->vars.n; i++) {
		Dwarf_Die t = f->vars.v[i].type;
		paths(&t, vaddr + i);
	}
	(void)im;
}

/* What decode and annotate do for a sample whose IP is vaddr. */
static void sample_at(dp_image *im, dp_image_dwarf *id, dp_strtab *strs, uint64_t vaddr,
		      bool all_insns)
{
	dp_func_table **slot = NULL;
	const dp_symbol *fn;
	dp_func_table *t;

	code_at(im, id, strs, vaddr); /* first: it may add a function to im */
	fn = dp_image_function(im, vaddr, &slot);
	/* found once, a function is found again, not added again (a corrupt
	 * FDE whose range missed vaddr was added on every lookup) */
	if (fn != dp_image_function(im, vaddr, &slot))
		abort();
	if (!fn)
		return;
	if (!*slot)
		*slot = dp_func_table_build(arch, im, fn);
	t = *slot;
	sink += (uint64_t)dp_func_table_containing(t, vaddr);
	for (size_t i = 0; i < t->insns.n && i < MAX_INSNS; i++) {
		const dp_insn *in = &t->insns.v[i];

		if (!all_insns && in->addr != vaddr)
			continue;
		for (int m = 0; m < in->nmem && m < 2; m++) {
			const dp_construct *k = dp_construct_of(id, strs, t, (long)i, in->addr, m);

			sink += k->type + k->member + k->reason;
			if (in->mem[m].base < 0 && in->mem[m].index < 0)
				data_at(id, strs, (uint64_t)in->mem[m].disp, in->addr);
		}
		if (all_insns && (i & 15) == 0)
			code_at(im, id, strs, in->addr);
	}
}

static void free_tables(dp_image *im)
{
	for (size_t k = 0; k < im->tables.n; k++)
		dp_func_table_free(im->tables.v[k]);
	for (size_t k = 0; k < im->cfi_tables.n; k++)
		dp_func_table_free(im->cfi_tables.v[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("fuzz_elf", data, size);
	dp_reason why;
	dp_error err;
	dp_image *im;
	dp_image_dwarf *id;
	dp_strtab strs;
	dp_image_opts o = {"/nonexistent-symfs", "fuzz", true};
	uint64_t h = 1469598103934665603ull;

	if (!path)
		return 0;
	if (!arch)
		arch = dp_arch_x86_64();
	im = dp_image_open(path, NULL, 0, &o, &why, &err);
	if (!im)
		return 0;
	dp_strtab_init(&strs);
	id = dp_image_dwarf_new(im);
	sink += dp_image_has_dwarf(id);

	/* every function, and every instruction of the first ones */
	size_t nsyms = im->syms.n;
	for (size_t i = 0; i < nsyms; i++) {
		uint64_t a = im->syms.v[i].addr, sz = im->syms.v[i].size;

		sample_at(im, id, &strs, a, i < MAX_FUNCS);
		if (sz > 1)
			sample_at(im, id, &strs, a + mix(a) % sz, false);
		if (i >= 4 * MAX_FUNCS)
			break;
	}
	/* points over each segment, as code and as data */
	for (size_t i = 0; i < size; i += 64)
		h = (h ^ data[i]) * 1099511628211ull;
	for (size_t s = 0; s < im->segs.n && s < 16; s++) {
		const dp_segment *sg = &im->segs.v[s];

		for (int k = 0; k < MAX_PROBES / 8; k++) {
			uint64_t a = sg->vaddr + (sg->memsz ? mix(h + (uint64_t)k) % sg->memsz : 0);

			if (sg->flags & PF_X)
				sample_at(im, id, &strs, a, false);
			data_at(id, &strs, a, 0);
			if (nsyms)
				data_at(id, &strs, a, im->syms.v[k % nsyms].addr);
		}
	}
	/* and addresses anywhere */
	for (int k = 0; k < 8; k++) {
		uint64_t a = mix(h ^ (uint64_t)k);

		sample_at(im, id, &strs, a, false);
		data_at(id, &strs, a, 0);
	}
	sink += dp_image_read(im, im->segs.n ? im->segs.v[0].vaddr : 0, &h, sizeof(h));

	dp_image_dwarf_free(id);
	free_tables(im);
	dp_image_free(im);
	dp_strtab_free(&strs);
	return 0;
}
