#include "annotate.h"
#include "heap_index.h"

#include <asm/perf_regs.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define RED_ZONE 128 /* below rsp that a leaf function may use */

struct site {
	uint32_t site, func, object;
};

struct dp_annotator {
	dp_decoder *dec;
	dp_profile *p;
	dp_strtab strs;
	dp_heap_index heap;
	dp_hashmap sites; /* (pid, return address) -> site record index */
	DP_VEC(struct site) site_v;
	uint32_t s_stack, s_heap, s_anon;
	dp_annotate_stats st;
};

const char *dp_object_kind_name(dp_object_kind k)
{
	static const char *const n[DP_OBJ_COUNT] = {
		"none", "global", "static", "tls", "stack", "heap", "mapping",
	};
	return (unsigned)k < DP_OBJ_COUNT ? n[k] : "?";
}

static void free_image_state(void *p)
{
	dp_image_dwarf_free(p);
}

dp_annotator *dp_annotator_new(dp_decoder *d, dp_profile *p, dp_error *err)
{
	dp_annotator *a = dp_calloc(1, sizeof(*a));

	(void)err;
	a->dec = d;
	a->p = p;
	dp_strtab_init(&a->strs);
	dp_heap_init(&a->heap);
	dp_hashmap_init(&a->sites, 256);
	dp_decoder_set_annot_free(d, free_image_state);
	a->s_stack = dp_strtab_intern(&a->strs, "[stack]");
	a->s_heap = dp_strtab_intern(&a->strs, "[heap]");
	a->s_anon = dp_strtab_intern(&a->strs, "[anon]");
	return a;
}

void dp_annotator_observe(dp_annotator *a, const dp_record *r)
{
	if (r->kind == DP_R_ALLOC || r->kind == DP_R_FREE)
		dp_heap_observe(&a->heap, r);
}

void dp_annotator_ready(dp_annotator *a)
{
	dp_heap_finish(&a->heap);
}

dp_annotator *dp_annotator_open(dp_decoder *d, dp_profile *p, dp_error *err)
{
	dp_annotator *a = dp_annotator_new(d, p, err);
	dp_record r;

	/* heap blocks are side-band records: read them before any sample */
	dp_profile_rewind(p);
	dp_profile_skip_samples(p, true);
	while (dp_profile_next(p, &r) > 0)
		dp_annotator_observe(a, &r);
	dp_profile_skip_samples(p, false);
	dp_annotator_ready(a);
	dp_profile_rewind(p);
	return a;
}

void dp_annotator_free(dp_annotator *a)
{
	if (!a)
		return;
	dp_heap_free(&a->heap);
	dp_hashmap_free(&a->sites);
	dp_vec_free(&a->site_v);
	dp_strtab_free(&a->strs);
	free(a);
}

const dp_strtab *dp_annotator_strings(const dp_annotator *a)
{
	return &a->strs;
}

dp_strtab *dp_annotator_strings_mut(dp_annotator *a)
{
	return &a->strs;
}

const dp_annotate_stats *dp_annotator_stats(const dp_annotator *a)
{
	return &a->st;
}

bool dp_annotator_has_heap(const dp_annotator *a)
{
	return !dp_heap_empty(&a->heap);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The allocation site of a heap block: the line of the call that made it. */
static const struct site *site_of(dp_annotator *a, const dp_heap_block *b)
{
	uint64_t ret = b->nframes ? b->frames[0] : 0, key = ((uint64_t)b->pid << 48) ^ ret, v;
	struct site s = {0, 0, 0};
	char buf[600];

	if (dp_hashmap_get(&a->sites, key, &v))
		return &a->site_v.v[v];
	dp_map *m = ret ? dp_maps_find(dp_decoder_maps(a->dec), b->pid, ret, b->t_alloc) : NULL;
	dp_image *im = m ? dp_decoder_map_image(a->dec, m) : NULL;
	if (im) {
		dp_image_dwarf *id = dp_image_dwarf_get(im, &a->strs);
		/* the call is the instruction before the return address */
		const dp_code_loc *c = dp_code_at(id, &a->strs, ret - m->bias - 1);

		if (c->file) {
			snprintf(buf, sizeof(buf), "%s:%u", dp_strtab_get(&a->strs, c->file), c->line);
			s.site = dp_strtab_intern(&a->strs, buf);
		}
		s.func = c->function;
	}
	if (!s.site) {
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, m ? base_name(m->name) : "?",
			 m ? ret - m->start : ret);
		s.site = dp_strtab_intern(&a->strs, buf);
	}
	snprintf(buf, sizeof(buf), "heap@%s", dp_strtab_get(&a->strs, s.site));
	s.object = dp_strtab_intern(&a->strs, buf);
	dp_vec_push(&a->site_v, s);
	dp_hashmap_put(&a->sites, key, a->site_v.n - 1);
	return &a->site_v.v[a->site_v.n - 1];
}

/* Type and member path of an object whose DWARF type is known. */
static void typed_object(dp_annotator *a, Dwarf_Die *type, uint64_t off, unsigned size,
			 dp_annotation *o)
{
	dp_buf member = {0}, tn = {0};
	dp_path_result pr = dp_object_path(type, off, size, &tn, &member);

	o->type = dp_strtab_intern(&a->strs, tn.p);
	if (pr == DP_PATH_OK) {
		if (member.len)
			o->member = dp_strtab_intern(&a->strs, member.p);
	} else {
		o->type_reason = pr == DP_PATH_PADDING ? DP_AR_PADDING : DP_AR_OFFSET_OUTSIDE;
	}
	dp_buf_free(&member);
	dp_buf_free(&tn);
}

/* The process's executable: the mapped ELF file that asks for an interpreter
 * or is not position-independent; its TLS block comes first. */
static dp_image *main_image(dp_annotator *a, const dp_sample *s)
{
	size_t n;
	dp_map *v = dp_maps_list(dp_decoder_maps(a->dec), s->pid, &n);

	for (size_t i = 0; i < n; i++) {
		dp_map *m = &v[i];
		dp_image *im;
		size_t nph;

		if (!m->exec || m->time > s->time || s->time >= m->end_time)
			continue;
		im = dp_decoder_map_image(a->dec, m);
		if (!im || elf_getphdrnum(im->elf, &nph) < 0)
			continue;
		if (im->type == ET_EXEC)
			return im;
		for (size_t k = 0; k < nph; k++) {
			GElf_Phdr ph;

			if (gelf_getphdr(im->elf, (int)k, &ph) && ph.p_type == PT_INTERP)
				return im;
		}
	}
	return NULL;
}

static bool stack_object(dp_annotator *a, const dp_sample *s, const dp_decoded *x, uint64_t addr,
			 dp_annotation *o)
{
	const dp_regs *r = &s->regs_user;
	uint64_t sp, cfa = 0;

	if (!(r->mask & (1ull << PERF_REG_X86_SP)))
		return false;
	sp = r->regs[PERF_REG_X86_SP];
	if (addr + RED_ZONE < sp || addr - sp > (64ull << 20))
		return false;
	o->obj_kind = DP_OBJ_STACK;
	o->object = a->s_stack;
	if (!x->image)
		return true;
	dp_image_dwarf *id = dp_image_dwarf_get(x->image, &a->strs);
	/* the frame as of the IP, where the registers were sampled */
	const dp_frame_info *f = dp_frame_at(id, &a->strs, x->ip_vaddr);
	bool have_cfa = f->cfa_known && (r->mask & (1ull << f->cfa_reg));

	if (have_cfa)
		cfa = r->regs[f->cfa_reg] + (uint64_t)f->cfa_off;
	for (size_t i = 0; i < f->vars.n; i++) {
		const dp_frame_var *v = &f->vars.v[i];
		uint64_t va;

		if (v->reg < 0) {
			if (!have_cfa)
				continue;
			va = cfa + (uint64_t)v->off;
		} else if (r->mask & (1ull << v->reg)) {
			va = r->regs[v->reg] + (uint64_t)v->off;
		} else {
			continue;
		}
		if (addr >= va && addr - va < DP_MAX(v->size, 1)) {
			o->object = v->name;
			o->obj_addr = va;
			o->obj_size = v->size;
			typed_object(a, (Dwarf_Die *)&v->type, addr - va, x->size, o);
			return true;
		}
	}
	if (have_cfa && addr >= cfa) {
		/* a caller's frame: only the sampled function's variables are known */
		o->obj_reason = DP_AR_NO_OBJECT;
	}
	return true;
}

static void data_object(dp_annotator *a, const dp_sample *s, const dp_decoded *x, dp_annotation *o)
{
	uint64_t addr = x->data_addr, fs;
	dp_maps *maps = dp_decoder_maps(a->dec);
	const dp_heap_block *b;
	dp_map *m;

	b = dp_heap_find(&a->heap, s->pid, addr, s->time);
	if (b) {
		const struct site *st = site_of(a, b);

		o->obj_kind = DP_OBJ_HEAP;
		o->object = st->object;
		o->site = st->site;
		o->site_func = st->func;
		o->obj_addr = b->addr;
		o->obj_size = b->size;
		return;
	}
	m = dp_maps_find(maps, s->pid, addr, s->time);
	dp_map *file = m && m->name[0] == '/' && strncmp(m->name, "//anon", 6) ? m : NULL;
	if (m && !file) {
		/* .bss past the file's last page is an anonymous mapping just after its data */
		dp_map *prev = dp_maps_find(maps, s->pid, m->start - 1, s->time);
		dp_image *pim = prev && prev->name[0] == '/' && strncmp(prev->name, "//anon", 6)
					? dp_decoder_map_image(a->dec, prev)
					: NULL;
		for (size_t i = 0; pim && i < pim->segs.n; i++) {
			const dp_segment *sg = &pim->segs.v[i];
			uint64_t lo = sg->vaddr + prev->bias, hi = lo + sg->memsz;

			if (addr >= lo && addr < hi) {
				file = prev;
				break;
			}
		}
	}
	if (file) {
		dp_image *im = dp_decoder_map_image(a->dec, file);
		m = file;

		if (im) {
			dp_image_dwarf *id = dp_image_dwarf_get(im, &a->strs);
			/* the code that touched it names its unit, when it is in this image */
			uint64_t code = x->image == im ? (x->insn >= 0 ? x->insn_vaddr : x->ip_vaddr) : 0;
			const dp_static_var *v = dp_static_at(id, &a->strs, addr - m->bias, code);

			if (v) {
				o->obj_kind = v->kind == DP_VAR_GLOBAL ? DP_OBJ_GLOBAL : DP_OBJ_STATIC;
				o->object = v->name;
				o->obj_addr = v->addr + m->bias;
				o->obj_size = v->size;
				if (v->has_type)
					typed_object(a, (Dwarf_Die *)&v->type, addr - o->obj_addr, x->size, o);
				else
					o->type_reason = DP_AR_NO_TYPE;
				return;
			}
		}
		char buf[512];
		snprintf(buf, sizeof(buf), "%s (data)", base_name(m->name));
		o->obj_kind = DP_OBJ_MAPPING;
		o->object = dp_strtab_intern(&a->strs, buf);
		o->obj_reason = DP_AR_NO_OBJECT;
		return;
	}
	/* thread-local: the executable's TLS block sits just below the thread pointer */
	dp_image *exe = NULL;
	if (dp_decoder_fs_base(a->dec, s->tid, &fs) && addr < fs && (exe = main_image(a, s))) {
		dp_image_dwarf *id = dp_image_dwarf_get(exe, &a->strs);
		uint64_t block = (id->tls_size + id->tls_align - 1) & ~(id->tls_align - 1);

		if (id->tls_size && addr >= fs - block) {
			uint64_t code = x->image == exe ? (x->insn >= 0 ? x->insn_vaddr : x->ip_vaddr) : 0;
			const dp_static_var *v = dp_tls_at(id, &a->strs, addr - (fs - block), code);

			if (v) {
				o->obj_kind = DP_OBJ_TLS;
				o->object = v->name;
				o->obj_addr = fs - block + v->addr;
				o->obj_size = v->size;
				if (v->has_type)
					typed_object(a, (Dwarf_Die *)&v->type, addr - o->obj_addr, x->size, o);
				return;
			}
		}
	}
	if (stack_object(a, s, x, addr, o))
		return;
	o->obj_kind = DP_OBJ_MAPPING;
	if (m && !strcmp(m->name, "[heap]")) {
		o->object = a->s_heap;
		o->obj_reason = dp_heap_empty(&a->heap) ? DP_AR_HEAP_UNTRACKED : DP_AR_NO_OBJECT;
	} else if (m && !strcmp(m->name, "[stack]")) {
		o->object = a->s_stack;
		o->obj_reason = DP_AR_NO_OBJECT;
	} else if (m) {
		o->object = a->s_anon;
		o->obj_reason = dp_heap_empty(&a->heap) ? DP_AR_HEAP_UNTRACKED : DP_AR_NO_OBJECT;
	} else {
		o->obj_kind = DP_OBJ_NONE;
		o->obj_reason = DP_AR_NO_OBJECT;
	}
}

/* The value the operand's base register had at the access: the sampled one
 * when the registers are from before it, or when it did not change it. */
static bool base_value(const dp_sample *s, const dp_decoded *x, const dp_construct *k,
		       uint64_t *v)
{
	if (k->base < 0 || k->base == PERF_REG_X86_IP || !(s->regs_user.mask & (1ull << k->base)))
		return false;
	if (x->verdict != DP_V_EXACT && x->verdict != DP_V_VERIFIED)
		return false;
	/* a trap after the access with the base written by it: not the base any more */
	if (x->verdict == DP_V_EXACT && x->table && x->insn >= 0 && x->insn_ip != x->ip &&
	    (x->table->insns.v[x->insn].regs_written & (1u << k->base)))
		return false;
	*v = s->regs_user.regs[k->base];
	return x->data_addr >= *v ? true : x->data_addr + 4096 >= *v;
}

void dp_annotate(dp_annotator *a, const dp_sample *s, const dp_decoded *x, dp_annotation *o)
{
	dp_image_dwarf *id = x->image ? dp_image_dwarf_get(x->image, &a->strs) : NULL;

	memset(o, 0, sizeof(*o));
	a->st.samples++;

	/* code */
	if (id) {
		uint64_t at = x->insn >= 0 ? x->insn_vaddr : x->ip_vaddr;
		const dp_code_loc *c = dp_code_at(id, &a->strs, at);

		o->function = c->function ? c->function : dp_strtab_intern(&a->strs, x->function);
		o->inline_chain = c->inline_chain;
		o->file = c->file;
		o->line_no = c->line;
		if (c->file) {
			char buf[512];
			snprintf(buf, sizeof(buf), "%s:%u", dp_strtab_get(&a->strs, c->file), c->line);
			o->line = dp_strtab_intern(&a->strs, buf);
		}
	} else if (x->map) {
		o->function = dp_strtab_intern(&a->strs, base_name(x->map->name));
	}

	/* the construct of the instruction: type and member, whatever the address */
	const dp_construct *k = NULL;
	if (id && x->insn >= 0 && x->table) {
		k = dp_construct_of(id, &a->strs, x->table, x->insn, x->mem);
		o->type = k->type;
		o->member = k->member;
		o->type_reason = k->type ? DP_AR_NONE : (dp_annot_reason)k->reason;
	} else {
		o->type_reason = id && !dp_image_has_dwarf(id) ? DP_AR_NO_DEBUG_INFO : DP_AR_NO_INSN;
	}

	/* the data object, from a trusted address */
	if ((x->verdict == DP_V_EXACT || x->verdict == DP_V_VERIFIED) && x->data_addr) {
		uint32_t ktype = o->type, kmember = o->member;
		dp_annot_reason kreason = o->type_reason;

		o->type = o->member = 0;
		o->type_reason = DP_AR_NONE;
		data_object(a, s, x, o);
		/* the type the access goes through is the instruction's when it has
		 * one (a base class method on a derived object, a pointer into an
		 * array); the object's own type otherwise (heap blocks have none) */
		uint64_t base;
		if (ktype && k->indexed && !o->type &&
		    (base_value(s, x, k, &base) || (o->obj_addr && x->data_addr >= o->obj_addr))) {
			/* an index register hid part of the offset: the address gives it,
			 * from where the pointer pointed (or else the block's start) */
			uint64_t tsz = dp_type_size((Dwarf_Die *)&k->type_die);
			int64_t off = base_value(s, x, k, &base)
					      ? k->adj + (int64_t)(x->data_addr - base)
					      : (int64_t)(x->data_addr - o->obj_addr);

			if (off >= 0) {
				o->type_reason = DP_AR_NONE;
				typed_object(a, (Dwarf_Die *)&k->type_die,
					     tsz ? (uint64_t)off % tsz : (uint64_t)off, x->size, o);
			}
		} else if (ktype && !(k->indexed && o->type)) {
			/* (an indexed access into a typed object: its own path is exact) */
			o->type = ktype;
			o->member = kmember;
			o->type_reason = DP_AR_NONE;
		} else if (!o->type && !o->type_reason) {
			o->type_reason = kreason;
		}
	} else {
		o->obj_reason = DP_AR_NO_ADDRESS;
	}
	if (o->type)
		o->type_reason = DP_AR_NONE;

	a->st.by_kind[o->obj_kind]++;
	a->st.with_object += o->obj_kind != DP_OBJ_NONE && !o->obj_reason;
	a->st.with_type += o->type != 0;
	a->st.with_member += o->member != 0;
	a->st.obj_reason[o->obj_reason]++;
	a->st.type_reason[o->type_reason]++;
}

void dp_annotate_print_summary(const dp_annotator *a, FILE *f)
{
	const dp_annotate_stats *s = &a->st;

	if (!s->samples)
		return;
	fprintf(f, "# data objects: %.1f%% of samples, types: %.1f%%, members: %.1f%%\n",
		100.0 * (double)s->with_object / (double)s->samples,
		100.0 * (double)s->with_type / (double)s->samples,
		100.0 * (double)s->with_member / (double)s->samples);
	for (int k = 1; k < DP_OBJ_COUNT; k++)
		if (s->by_kind[k])
			fprintf(f, "#   %-8s %9" PRIu64 "\n", dp_object_kind_name((dp_object_kind)k),
				s->by_kind[k]);
	for (int r = 1; r < DP_AR_COUNT; r++)
		if (s->obj_reason[r])
			fprintf(f, "# no object: %-40s %9" PRIu64 "\n",
				dp_annot_reason_name((dp_annot_reason)r), s->obj_reason[r]);
	for (int r = 1; r < DP_AR_COUNT; r++)
		if (s->type_reason[r])
			fprintf(f, "# no type:   %-40s %9" PRIu64 "\n",
				dp_annot_reason_name((dp_annot_reason)r), s->type_reason[r]);
}

uint32_t dp_annotate_function_at(dp_annotator *a, uint32_t pid, uint64_t addr, uint64_t t)
{
	dp_map *m = dp_maps_find(dp_decoder_maps(a->dec), pid, addr, t);
	dp_image *im = m ? dp_decoder_map_image(a->dec, m) : NULL;
	dp_func_table **slot;
	const dp_symbol *sym;

	if (!m)
		return 0;
	if (!im)
		return dp_strtab_intern(&a->strs, base_name(m->name));
	const dp_code_loc *c = dp_code_at(dp_image_dwarf_get(im, &a->strs), &a->strs, addr - m->bias);
	if (c->function)
		return c->function;
	sym = dp_image_function(im, addr - m->bias, &slot);
	return dp_strtab_intern(&a->strs, sym ? sym->name : base_name(m->name));
}
