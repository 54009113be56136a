#include "annotate.h"
#include "path_cache.h"
#include "heap_index.h"
#include "alloc_fns.h"
#include "alloc_type.h"
#include "alloc_wrapper.h"
#include "stack_height.h"
#include "special.h"

#include <asm/perf_regs.h>
#include <dwarf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define RED_ZONE 128 /* below rsp that a leaf function may use */

struct site {
	uint32_t site, func, object;
	/* what the standard library's allocator was asked for, or else what
	 * the code that asked for the block takes it for */
	bool has_type;
	bool array; /* the block is an array of type, not one of it */
	Dwarf_Die type;
	uint64_t type_size; /* (asked of libdw once, not per sample) */
};

/* What a sample needs of its instruction, in one place: its source
 * location and the type and member its construct gives. */
struct insn_note {
	dp_code_loc loc;
	uint32_t type, member; /* the construct's */
	uint32_t cons;	       /* index + 1 in the image's constructs; 0: none */
	uint8_t reason;	       /* dp_annot_reason when type is 0 */
	bool indexed;	       /* see dp_construct.indexed */
	bool weak;	       /* from a load's destination: the object's own type wins */
	uint64_t type_size;    /* of the construct's type, when indexed */
	uint32_t special;      /* [dataprof] or [syscall NAME]: not the program's; 0 */
	uint8_t special_reason;
	bool allocator; /* in an allocator's own code (dp_is_allocator_code) */
};

/* What annotate needs of a mapping, worked out on its first sample. */
struct map_note {
	uint32_t base;	    /* its name without the directory: "libc.so.6", "[heap]" */
	uint32_t data_name; /* "libc.so.6 (data)": an address in it outside every variable */
	bool named_file;    /* a file's mapping, not "//anon" nor "[heap]" */
	bool own;	    /* dataprof's agent library */
	dp_map *prev;	    /* the mapping just below it when last asked (for .bss) */
	uint64_t prev_end;  /* until when prev is valid (its end time) */
};

struct dp_annotator {
	dp_decoder *dec;
	dp_profile *p;
	dp_strtab strs;
	dp_heap_index heap;
	dp_hashmap sites; /* (pid, call chain) hash -> site record index */
	dp_alloc_fns alloc_fns;
	dp_hashmap wrappers; /* image id << 48 | return vaddr -> 1 wrapper, 2 not */
	/* image id << 48 | return vaddr -> index + 1 in result_v; 0: no type */
	dp_hashmap result_types;
	DP_VEC(Dwarf_Die) result_v;
	DP_VEC(struct site) site_v;
	uint32_t s_stack, s_heap, s_anon, s_dataprof, s_allocator;
	dp_annotate_stats st;
	DP_VEC(dp_image_dwarf *) images; /* by dp_image.id; NULL: not read yet */
	dp_path_cache paths;
	/* per decoded instruction: its source location and construct, found
	 * without a lookup; note_at[dp_decoded.insn_key - 1] is its index + 1 */
	DP_VEC(struct insn_note) notes;
	DP_VEC(uint32_t) note_at;
	struct insn_note scratch_note;
	/* per mapping: what its name says, found once */
	dp_hashmap map_index; /* dp_map address -> index in map_v */
	DP_VEC(struct map_note) map_v;
};

const char *dp_object_kind_name(dp_object_kind k)
{
	static const char *const n[DP_OBJ_COUNT] = {
	    "none", "global", "static", "tls", "stack", "heap", "mapping", "allocator",
	};
	return (unsigned)k < DP_OBJ_COUNT ? n[k] : "?";
}

dp_image_dwarf *dp_annotator_image_dwarf(dp_annotator *a, dp_image *im)
{
	size_t i = (size_t)im->id;

	while (a->images.n <= i)
		dp_vec_push(&a->images, NULL);
	if (!a->images.v[i])
		a->images.v[i] = dp_image_dwarf_new(im);
	return a->images.v[i];
}

dp_dwarf_use dp_annotator_dwarf_use(const dp_annotator *a)
{
	dp_dwarf_use u = {0};

	for (size_t i = 0; i < a->images.n; i++) {
		const dp_image_dwarf *id = a->images.v[i];

		if (!id)
			continue;
		u.images++;
		u.with_dwarf += dp_image_has_dwarf(id);
		u.units_indexed += id->cus.n;
		u.instructions += id->code_v.n;
		u.frames += id->frame_v.n;
	}
	return u;
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
	dp_alloc_fns_init(&a->alloc_fns);
	dp_hashmap_init(&a->wrappers, 64);
	dp_hashmap_init(&a->result_types, 64);
	if (p && dp_profile_meta(p, "alloc_fn"))
		dp_alloc_fns_add(&a->alloc_fns, dp_profile_meta(p, "alloc_fn"));
	dp_path_cache_init(&a->paths);
	dp_hashmap_init(&a->map_index, 64);
	a->s_stack = dp_strtab_intern(&a->strs, "[stack]");
	a->s_heap = dp_strtab_intern(&a->strs, "[heap]");
	a->s_anon = dp_strtab_intern(&a->strs, "[anon]");
	a->s_dataprof = dp_strtab_intern(&a->strs, "[dataprof]");
	a->s_allocator = dp_strtab_intern(&a->strs, "[allocator]");
	return a;
}

void dp_annotator_observe(dp_annotator *a, const dp_record *r)
{
	if (r->kind == DP_R_ALLOC || r->kind == DP_R_FREE || r->kind == DP_R_COMM)
		dp_heap_observe(&a->heap, r);
}

void dp_annotator_ready(dp_annotator *a, unsigned threads)
{
	dp_heap_finish(&a->heap, threads);
}

void dp_annotator_share_heap(dp_annotator *a, dp_annotator *from)
{
	dp_heap_share(&a->heap, &from->heap);
}

static void observe(void *a, const dp_record *r)
{
	dp_annotator_observe(a, r);
}

dp_annotator *dp_annotator_open(dp_decoder *d, dp_profile *p, dp_error *err)
{
	dp_annotator *a = dp_annotator_new(d, p, err);

	/* heap blocks are side-band records: read them before any sample */
	dp_profile_side_band(p, observe, a);
	dp_annotator_ready(a, 1);
	return a;
}

void dp_annotator_free(dp_annotator *a)
{
	if (!a)
		return;
	dp_heap_free(&a->heap);
	dp_hashmap_free(&a->sites);
	dp_alloc_fns_free(&a->alloc_fns);
	dp_hashmap_free(&a->wrappers);
	dp_hashmap_free(&a->result_types);
	dp_vec_free(&a->result_v);
	dp_vec_free(&a->site_v);
	dp_vec_free_each(&a->images, dp_image_dwarf_free);
	dp_path_cache_free(&a->paths);
	dp_vec_free(&a->notes);
	dp_vec_free(&a->note_at);
	dp_hashmap_free(&a->map_index);
	dp_vec_free(&a->map_v);
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

void dp_annotator_add_stats(dp_annotator *a, const dp_annotator *other)
{
	const dp_annotate_stats *o = &other->st;

	a->st.samples += o->samples;
	a->st.with_object += o->with_object;
	a->st.with_type += o->with_type;
	a->st.with_member += o->with_member;
	for (int r = 0; r < DP_AR_COUNT; r++) {
		a->st.obj_reason[r] += o->obj_reason[r];
		a->st.type_reason[r] += o->type_reason[r];
	}
	for (int k = 0; k < DP_OBJ_COUNT; k++)
		a->st.by_kind[k] += o->by_kind[k];
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

#define FRAME_ADDR(f) ((f)&0xffffffffffffull)
#define FRAME_SLOT(f) ((f) >> 48)

/* The frame that called the one at frames[i]: the next return address in
 * the chain. The tracker's stack scan may have picked up stale words; the
 * call frame information says which stack word holds the caller's return
 * address (CFA - 8, the CFA an offset from the stack pointer at the call),
 * and only that one is taken. Without a rule (a frame pointer), the next
 * word found. Returns its index, or -1. */
static int next_frame(dp_annotator *a, const dp_heap_block *b, int i, dp_image_dwarf *id,
		      uint64_t vaddr)
{
	int reg;
	int64_t off;

	if (i + 1 >= (int)b->nframes)
		return -1;
	if (!FRAME_SLOT(b->frames[i + 1]))
		return i + 1; /* unwound exactly */
	if (id && dp_cfa_rule(id->cfi, vaddr - id->cfi_bias, &reg, &off) &&
	    (reg == PERF_REG_X86_SP ||
	     /* CFA = rbp + 16: the frame's height from its code instead */
	     (reg == PERF_REG_X86_BP &&
	      dp_stack_height(dp_decoder_function_table(a->dec, id->im, vaddr), vaddr, &off)))) {
		uint64_t want = FRAME_SLOT(b->frames[i]) + (uint64_t)off / 8;

		for (int j = i + 1; j < (int)b->nframes; j++)
			if (FRAME_SLOT(b->frames[j]) == want)
				return j;
		return -1;
	}
	return i + 1;
}

static uint64_t chain_key(const dp_heap_block *b)
{
	/* a mapping is named apart from a malloc of the same chain (an arena) */
	uint64_t h = 1469598103934665603ull ^ b->pid ^ (uint64_t)(b->kind == DP_ALLOC_MMAP) << 40;

	for (uint32_t i = 0; i < b->nframes; i++)
		h = (h ^ b->frames[i]) * 1099511628211ull;
	return h;
}

/* Is the function of im that the call returning to ret (an ELF virtual
 * address) is in a simple wrapper of the allocator it called
 * (alloc_wrapper.c)? Decided once per call site. */
static bool simple_wrapper(dp_annotator *a, dp_image *im, uint64_t ret)
{
	uint64_t key = (uint64_t)im->id << 48 | (ret & ((1ull << 48) - 1)), v;

	if (!dp_hashmap_get(&a->wrappers, key, &v)) {
		v = dp_alloc_wrapper_returns(dp_decoder_function_table(a->dec, im, ret), ret) ? 1
											      : 2;
		dp_hashmap_put(&a->wrappers, key, v);
	}
	return v == 1;
}

/* The type the code that the call returning to ret (an ELF virtual
 * address of im) made takes the block for (alloc_type.c). Decided once per
 * call site. */
static bool result_type(dp_annotator *a, dp_image *im, dp_image_dwarf *id, uint64_t ret,
			Dwarf_Die *type)
{
	uint64_t key = (uint64_t)im->id << 48 | (ret & ((1ull << 48) - 1)), v;

	if (!dp_hashmap_get(&a->result_types, key, &v)) {
		Dwarf_Die t;

		v = 0;
		if (dp_alloc_result_type(id, &a->strs, dp_decoder_function_table(a->dec, im, ret),
					 ret, &t)) {
			dp_vec_push(&a->result_v, t);
			v = a->result_v.n;
		}
		dp_hashmap_put(&a->result_types, key, v);
	}
	if (v)
		*type = a->result_v.v[v - 1];
	return v != 0;
}

/* The allocation site of a heap block: the line of the first call on its
 * chain outside allocator code (malloc, operator new, the standard
 * library's allocators, luaM_*, ...: alloc_fns.c, and functions that only
 * return what their allocator call gave: alloc_wrapper.c), inlined frames
 * included; the allocator functions stepped over are named after it. */
static const struct site *site_of(dp_annotator *a, const dp_heap_block *b)
{
	uint64_t key = chain_key(b), v;
	struct site s = {0};
	char buf[600];
	char via[256] = "";
	dp_map *m = NULL;
	uint64_t ret = 0;
	bool own = false;	/* the block is an arena allocator's own */
	bool by_malloc = false; /* its mallocs are arenas too */

	if (dp_hashmap_get(&a->sites, key, &v))
		return &a->site_v.v[v];
	for (int i = b->nframes ? 0 : -1; i >= 0;) {
		dp_code_frame fr[16];
		int nf = 0, k;

		ret = FRAME_ADDR(b->frames[i]);
		m = ret ? dp_maps_find(dp_decoder_maps(a->dec), b->pid, ret, b->t_alloc) : NULL;
		dp_image *im = m ? dp_decoder_map_image(a->dec, m) : NULL;
		dp_image_dwarf *id = im ? dp_annotator_image_dwarf(a, im) : NULL;
		/* the call is the instruction before the return address */
		uint64_t vaddr = m ? ret - m->bias - 1 : 0;

		if (id)
			nf = dp_code_frames(id, &a->strs, vaddr, fr, 16);
		/* std::__new_allocator<T>::allocate on the way: T is what the
		 * block holds (a vector's elements, a hash table's nodes), where
		 * the instructions that touch it give no type */
		if (id && nf && !s.has_type &&
		    dp_alloc_fns_match(&a->alloc_fns, &a->strs, fr[0].function))
			s.array = s.has_type = dp_code_alloc_type(id, vaddr, &s.type);
		for (k = 0; k < nf; k++) {
			/* the physical function, its callee allocator code: a
			 * wrapper if all it does is return the block */
			if (!dp_alloc_fns_match(&a->alloc_fns, &a->strs, fr[k].function) &&
			    (k < nf - 1 || !simple_wrapper(a, im, vaddr + 1)))
				break;
			/* the outermost one named: what the program called */
			dp_alloc_fn_plain(dp_strtab_get(&a->strs, fr[k].function), via,
					  sizeof(via));
			if (dp_alloc_fn_is_arena(via, &by_malloc)) {
				/* what it gets is its own, not the request's that
				 * happened to need a new arena: a mapping whose
				 * pieces it hands out unseen (the arena), a malloc
				 * it does the same with (SQLite's lookaside), or its
				 * bookkeeping (pymalloc's arena table, a malloc);
				 * named by the allocator's line */
				own = true;
				s.site = fr[k].line_id;
				s.func = fr[k].function;
				break;
			}
		}
		if (own)
			break;
		if (k < nf || !nf) {
			/* a frame of the program (or one nothing is known of) */
			if (k < nf) {
				s.site = fr[k].line_id;
				s.func = fr[k].function;
				/* what it takes the block for, where the standard
				 * library's allocator did not say */
				if (!s.has_type && result_type(a, im, id, vaddr + 1, &s.type)) {
					Dwarf_Die t;

					/* an array of scalars or pointers; a struct
					 * may be the header of a larger object */
					dp_type_peel(&s.type, &t);
					s.has_type = true;
					s.array = dwarf_tag(&t) == DW_TAG_base_type ||
						  dwarf_tag(&t) == DW_TAG_pointer_type;
				}
			}
			break;
		}
		int j = next_frame(a, b, i, id, vaddr);
		if (j < 0) {
			/* the chain ends in allocator code: its innermost line */
			s.site = fr[0].line_id;
			s.func = fr[0].function;
			break;
		}
		i = j;
	}
	if (!s.site) {
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, m ? base_name(m->name) : "?",
			 m ? ret - m->start : ret);
		s.site = dp_strtab_intern(&a->strs, buf);
	}
	if (own)
		snprintf(buf, sizeof(buf), "%s@%s (%s)",
			 b->kind == DP_ALLOC_MMAP || by_malloc ? "arena" : "heap",
			 dp_strtab_get(&a->strs, s.site), via);
	else if (via[0])
		snprintf(buf, sizeof(buf), "heap@%s (via %s)", dp_strtab_get(&a->strs, s.site),
			 via);
	else
		snprintf(buf, sizeof(buf), "heap@%s", dp_strtab_get(&a->strs, s.site));
	if (s.has_type)
		s.type_size = dp_type_size(&s.type);
	s.object = dp_strtab_intern(&a->strs, buf);
	dp_vec_push(&a->site_v, s);
	dp_hashmap_put(&a->sites, key, a->site_v.n - 1);
	return &a->site_v.v[a->site_v.n - 1];
}

/* The site whose type block b has: its own, or, for a block realloc made
 * from another, the largest of those its contents came through (a string
 * made as a `PyCompactUnicodeObject`, resized as a `PyObject`). */
static const struct site *typed_site(dp_annotator *a, const dp_heap_block *b, const struct site *st)
{
	/* an index: site_of may grow the vector the sites are in */
	size_t best = (size_t)(st - a->site_v.v);
	uint64_t size = st->type_size;

	for (int hops = 0; hops < 16 && (b = dp_heap_origin(&a->heap, b)); hops++) {
		const struct site *o = site_of(a, b);

		if (o->type_size > size) {
			best = (size_t)(o - a->site_v.v);
			size = o->type_size;
		}
	}
	return &a->site_v.v[best];
}

/* Type and member path of an object whose DWARF type is known. */
static void typed_object(dp_annotator *a, Dwarf_Die *type, uint64_t off, unsigned size,
			 dp_annotation *o)
{
	const dp_object_path_entry *e = dp_path_cache_get(&a->paths, &a->strs, type, off, size);

	o->type = e->type;
	o->member = e->member;
	o->type_reason = dp_path_reason(e->result);
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

		if (!m->exec || m->time > s->time || s->time >= m->end_time)
			continue;
		im = dp_decoder_map_image(a->dec, m);
		if (im && dp_image_is_program(im))
			return im;
	}
	return NULL;
}

/* The data is in the object named name at [addr, addr + size). */
static void at_object(dp_annotation *o, dp_object_kind kind, uint32_t name, uint64_t addr,
		      uint64_t size)
{
	o->obj_kind = kind;
	o->object = name;
	o->obj_addr = addr;
	o->obj_size = size;
}

static bool stack_object(dp_annotator *a, const dp_sample *s, const dp_decoded *x, uint64_t addr,
			 dp_annotation *o)
{
	const dp_regs *r = &s->regs_user;
	uint64_t sp, cfa = 0;

	if (!(r->mask & (1ull << PERF_REG_X86_SP)))
		return false;
	sp = r->regs[PERF_REG_X86_SP];
	/* from the red zone below rsp (a leaf's locals; the slot a pop just
	 * read) to 64 MiB above it */
	if (addr + RED_ZONE < sp || (addr > sp && addr - sp > (64ull << 20)))
		return false;
	o->obj_kind = DP_OBJ_STACK;
	o->object = a->s_stack;
	if (!x->image)
		return true;
	dp_image_dwarf *id = dp_annotator_image_dwarf(a, x->image);
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
			at_object(o, DP_OBJ_STACK, v->name, va, v->size);
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

/* The note of mapping m, made on first use. The pointer is valid until the
 * next call. */
static struct map_note *map_note_of(dp_annotator *a, const dp_map *m)
{
	uint64_t key = (uint64_t)(uintptr_t)m, v;
	struct map_note n = {0};
	char buf[512];

	if (dp_hashmap_get(&a->map_index, key, &v))
		return &a->map_v.v[v];

	n.base = dp_strtab_intern(&a->strs, base_name(m->name));
	snprintf(buf, sizeof(buf), "%s (data)", base_name(m->name));
	n.data_name = dp_strtab_intern(&a->strs, buf);
	n.named_file = m->name[0] == '/' && strncmp(m->name, "//anon", 6);
	n.own = dp_is_own_code(m->name, NULL);
	dp_vec_push(&a->map_v, n);
	dp_hashmap_put(&a->map_index, key, a->map_v.n - 1);
	return &a->map_v.v[a->map_v.n - 1];
}

/* cu_off: the compilation unit of the instruction (in x->image), 0 if none */
static void data_object(dp_annotator *a, const dp_sample *s, const dp_decoded *x, uint64_t cu_off,
			bool allocator, dp_annotation *o, const struct site **site)
{
	uint64_t addr = x->data_addr, fs;
	dp_maps *maps = dp_decoder_maps(a->dec);
	const dp_heap_block *b;
	dp_map *m;

	b = dp_heap_find(&a->heap, s->pid, addr, s->time);
	if (b) {
		const struct site *st = site_of(a, b);

		at_object(o, DP_OBJ_HEAP, st->object, b->addr, b->size);
		o->site = st->site;
		o->site_func = st->func;
		*site = typed_site(a, b, st); /* (may move the sites: st is gone) */
		return;
	}
	m = dp_maps_find(maps, s->pid, addr, s->time);
	struct map_note *mn = m ? map_note_of(a, m) : NULL;
	dp_map *file = mn && mn->named_file ? m : NULL;
	if (m && !file) {
		/* .bss past the file's last page is an anonymous mapping just after its data */
		dp_map *prev = mn->prev;
		if (!prev || s->time < prev->time || s->time >= mn->prev_end) {
			prev = mn->prev = dp_maps_find(maps, s->pid, m->start - 1, s->time);
			mn->prev_end = prev ? prev->end_time : 0;
		}
		dp_image *pim = prev && map_note_of(a, prev)->named_file
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
			dp_image_dwarf *id = dp_annotator_image_dwarf(a, im);
			/* the code that touched it names its unit, when it is in this image */
			const dp_static_var *v = dp_static_in_unit(id, &a->strs, addr - m->bias,
								   x->image == im ? cu_off : 0);

			if (v) {
				at_object(o, v->kind == DP_VAR_GLOBAL ? DP_OBJ_GLOBAL : DP_OBJ_STATIC,
					  v->name, v->addr + m->bias, v->size);
				if (v->has_type)
					typed_object(a, (Dwarf_Die *)&v->type, addr - o->obj_addr,
						     x->size, o);
				else
					o->type_reason = DP_AR_NO_TYPE;
				return;
			}
		}
		o->obj_kind = DP_OBJ_MAPPING;
		o->object = map_note_of(a, m)->data_name;
		o->obj_reason = DP_AR_NO_OBJECT;
		return;
	}
	/* thread-local: the executable's TLS block sits just below the thread pointer */
	dp_image *exe = NULL;
	if (dp_decoder_fs_base(a->dec, s->tid, &fs) && addr < fs && (exe = main_image(a, s))) {
		dp_image_dwarf *id = dp_annotator_image_dwarf(a, exe);
		uint64_t block = (id->tls_size + id->tls_align - 1) & ~(id->tls_align - 1);

		if (id->tls_size && addr >= fs - block) {
			const dp_static_var *v = dp_tls_in_unit(id, &a->strs, addr - (fs - block),
								x->image == exe ? cu_off : 0);

			if (v) {
				at_object(o, DP_OBJ_TLS, v->name, fs - block + v->addr, v->size);
				if (v->has_type)
					typed_object(a, (Dwarf_Die *)&v->type, addr - o->obj_addr,
						     x->size, o);
				return;
			}
		}
	}
	if (stack_object(a, s, x, addr, o))
		return;
	/* the allocator's code outside every live block (in [heap], an arena's
	 * anonymous mapping): its chunk headers, free lists, arenas */
	if (allocator && (!m || !strcmp(m->name, "[heap]") || !map_note_of(a, m)->named_file) &&
	    (!m || strcmp(m->name, "[stack]"))) {
		o->obj_kind = DP_OBJ_ALLOCATOR;
		o->object = a->s_allocator;
		o->obj_reason = DP_AR_NONE;
		return;
	}
	o->obj_kind = DP_OBJ_MAPPING;
	if (m && !strcmp(m->name, "[heap]")) {
		o->object = a->s_heap;
		o->obj_reason = dp_heap_empty(&a->heap) ? DP_AR_HEAP_UNTRACKED : DP_AR_NO_OBJECT;
	} else if (m && !strcmp(m->name, "[stack]")) {
		o->object = a->s_stack;
		o->obj_reason = DP_AR_NO_OBJECT;
	} else if (m && m->name[0] == '[') {
		/* the kernel's own: [vvar], [vvar_vclock] (the clock's data the
		 * vDSO reads), [vsyscall] */
		o->object = map_note_of(a, m)->base;
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
static bool base_value(const dp_sample *s, const dp_decoded *x, const dp_construct *k, uint64_t *v)
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

/* The note of the sample's instruction: computed once per decoded
 * instruction, then found through the decoder's slot. */
/* dataprof's own work and time in system calls are no data access of the
 * program's: the function they get instead ([dataprof], [syscall write]),
 * or 0. Per distinct instruction (the note caches it): what decides is the
 * mapping, the function, the code before the IP and the event's IP
 * semantics, which the decoder's cache key holds. */
static uint32_t special_of(dp_annotator *a, const dp_sample *s, const dp_decoded *x,
			   uint32_t function, uint8_t *reason)
{
	const char *fn = function ? dp_strtab_get(&a->strs, function) : x->function;
	char name[64], buf[96];
	size_t nev;
	const dp_event_info *ev = a->p ? dp_profile_events(a->p, &nev) : NULL;
	enum dp_ip_semantics sem = ev && s->event < nev ? ev[s->event].ip_sem : DP_IP_AFTER;

	if ((x->map && map_note_of(a, x->map)->own) || dp_is_own_code(NULL, fn)) {
		*reason = DP_AR_OWN_WORK;
		return a->s_dataprof;
	}
	if ((sem == DP_IP_AFTER || sem == DP_IP_NONE) &&
	    dp_syscall_at(x->image, x->ip_vaddr, x->function, name, sizeof(name))) {
		snprintf(buf, sizeof(buf), "[syscall %s]", name);
		*reason = DP_AR_SYSCALL;
		return dp_strtab_intern(&a->strs, buf);
	}
	return 0;
}

static const struct insn_note *note_of(dp_annotator *a, dp_image_dwarf *id, const dp_sample *s,
				       const dp_decoded *x)
{
	uint32_t key = x->insn_key;
	struct insn_note n;
	const dp_construct *k;

	if (key && key <= a->note_at.n && a->note_at.v[key - 1])
		return &a->notes.v[a->note_at.v[key - 1] - 1];
	memset(&n, 0, sizeof(n));
	/* the construct first: computing it may add source locations */
	k = x->insn >= 0 && x->table
		? dp_construct_of(id, &a->strs, x->table, x->insn, x->insn_vaddr, x->mem)
		: NULL;
	n.loc = *dp_code_at(id, &a->strs, x->insn >= 0 ? x->insn_vaddr : x->ip_vaddr);
	if (k) {
		n.cons = (uint32_t)(k - id->cons_v->v) + 1;
		n.type = k->type;
		n.member = k->member;
		n.reason = k->type ? DP_AR_NONE : k->reason;
		n.indexed = k->type && k->indexed;
		n.weak = k->origin == DP_CO_VALUE || k->origin == DP_CO_SPILL;
		/* an array of the type, but for the struct hack */
		if (n.indexed && !dp_type_flexible((Dwarf_Die *)&k->type_die))
			n.type_size = dp_type_size((Dwarf_Die *)&k->type_die);
	} else {
		n.reason = !dp_image_has_dwarf(id) ? DP_AR_NO_DEBUG_INFO : DP_AR_NO_INSN;
	}
	n.special = special_of(a, s, x, n.loc.function, &n.special_reason);
	n.allocator = dp_is_allocator_code(n.loc.function ? dp_strtab_get(&a->strs, n.loc.function)
							  : x->function);
	if (!key) {
		a->scratch_note = n; /* kept for this sample only */
		return &a->scratch_note;
	}
	while (a->note_at.n < key)
		dp_vec_push(&a->note_at, 0);
	dp_vec_push(&a->notes, n);
	a->note_at.v[key - 1] = (uint32_t)a->notes.n;
	return &a->notes.v[a->notes.n - 1];
}

static void count(dp_annotator *a, const dp_annotation *o);

/* The heap tracker's own clock reads and writes run in the vDSO and the C
 * library, not in its code: with a call chain (record -g), a sample in the
 * vDSO or at a system call whose first caller outside the C library and the
 * vDSO is dataprof's code is dataprof's work. (Only there: the program's
 * malloc, which the tracker forwards to, stays the program's.) */
static bool is_libc(const dp_map *m)
{
	const char *b = base_name(m->name);

	return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5);
}

static bool called_by_own_code(dp_annotator *a, const dp_sample *s, const dp_decoded *x,
			       uint8_t special_reason)
{
	dp_maps *maps;

	if (!x->map || s->callchain_nr < 2 ||
	    (strcmp(x->map->name, "[vdso]") && special_reason != DP_AR_SYSCALL))
		return false;
	maps = dp_decoder_maps(a->dec);
	/* context markers and the IP itself skipped; a few frames at most */
	for (uint32_t i = 0; i < s->callchain_nr && i < 8; i++) {
		uint64_t ret = s->callchain[i];
		dp_map *m;

		if (ret >= PERF_CONTEXT_MAX || ret == x->ip)
			continue;
		m = dp_maps_find(maps, s->pid, ret, s->time);
		if (!m)
			return false;
		if (map_note_of(a, m)->own) {
			/* nothing the tracker forwards to enters the vDSO (the
			 * program's malloc does not read the clock) */
			if (!strcmp(x->map->name, "[vdso]"))
				return true;
			/* the tracker's malloc, free, mmap... forward the
			 * program's call: its system calls are the program's.
			 * The innermost function of the call: the recording
			 * is inlined into those entry points. */
			dp_image *im = dp_decoder_map_image(a->dec, m);
			dp_code_frame fr[16];
			int nf = im ? dp_code_frames(dp_annotator_image_dwarf(a, im), &a->strs,
						     ret - 1 - m->bias, fr, 16)
				    : 0;
			const char *fn = nf ? dp_strtab_get(&a->strs, fr[0].function) : "";

			return !dp_is_allocator_code(fn) && strncmp(fn, "mmap", 4) &&
			       strncmp(fn, "munmap", 6) && strncmp(fn, "mremap", 6) &&
			       strncmp(fn, "operator new", 12) &&
			       strncmp(fn, "operator delete", 15);
		}
		if (strcmp(m->name, "[vdso]") && !is_libc(m))
			return false;
	}
	return false;
}

void dp_annotate(dp_annotator *a, const dp_sample *s, const dp_decoded *x, dp_annotation *o)
{
	dp_image_dwarf *id = x->image ? dp_annotator_image_dwarf(a, x->image) : NULL;

	memset(o, 0, sizeof(*o));
	a->st.samples++;

	/* code: the instruction's source location, and the type and member its
	 * construct gives whatever the address */
	const struct insn_note *n = NULL;
	uint32_t special;
	uint8_t special_reason = 0;
	if (id) {
		n = note_of(a, id, s, x);
		o->function = n->loc.function;
		o->inline_chain = n->loc.inline_chain;
		o->file = n->loc.file;
		o->line_no = n->loc.line;
		o->line = n->loc.line_id;
		o->type = n->type;
		o->member = n->member;
		o->type_reason = (dp_annot_reason)n->reason;
		special = n->special;
		special_reason = n->special_reason;
	} else {
		if (x->map)
			o->function = map_note_of(a, x->map)->base;
		o->type_reason = DP_AR_NO_INSN;
		special = special_of(a, s, x, o->function, &special_reason);
	}
	if (special_reason != DP_AR_OWN_WORK && called_by_own_code(a, s, x, special_reason)) {
		special = a->s_dataprof;
		special_reason = DP_AR_OWN_WORK;
	}
	if (special) {
		/* one row, in --by object too, and no data object */
		o->function = o->object = special;
		o->obj_reason = o->type_reason = (dp_annot_reason)special_reason;
		o->inline_chain = o->file = o->line = o->line_no = 0;
		o->type = o->member = 0;
		count(a, o);
		return;
	}
	/* the data object, from a trusted address */
	if ((x->verdict == DP_V_EXACT || x->verdict == DP_V_VERIFIED) && x->data_addr) {
		uint32_t ktype = o->type, kmember = o->member;
		dp_annot_reason kreason = o->type_reason;

		o->type = o->member = 0;
		o->type_reason = DP_AR_NONE;
		const struct site *st = NULL;

		data_object(a, s, x, n ? n->loc.cu_off : 0,
			    n ? n->allocator : dp_is_allocator_code(x->function), o, &st);
		/* the type the access goes through is the instruction's when it has
		 * one (a base class method on a derived object, a pointer into an
		 * array); the object's own type otherwise (heap blocks have none) */
		const dp_construct *k = n && n->indexed ? &id->cons_v->v[n->cons - 1] : NULL;
		uint64_t base;
		if (k && !o->type &&
		    (base_value(s, x, k, &base) || (o->obj_addr && x->data_addr >= o->obj_addr))) {
			/* an index register hid part of the offset: the address gives it,
			 * from where the pointer pointed (or else the block's start) */
			uint64_t tsz = n->type_size;
			int64_t off = base_value(s, x, k, &base)
					  ? k->adj + (int64_t)(x->data_addr - base)
					  : (int64_t)(x->data_addr - o->obj_addr);

			if (off >= 0) {
				o->type_reason = DP_AR_NONE;
				typed_object(a, (Dwarf_Die *)&k->type_die,
					     tsz ? (uint64_t)off % tsz : (uint64_t)off, x->size, o);
			}
		} else if (ktype && !((k || n->weak) && o->type)) {
			/* (an indexed access into a typed object: its own path is exact) */
			o->type = ktype;
			o->member = kmember;
			o->type_reason = DP_AR_NONE;
		} else if (!o->type && !o->type_reason) {
			o->type_reason = kreason;
		}
		/* none from the code (a hash node reached through its base's
		 * pointer: past the base, padding; code without debug
		 * information), or a bare scalar (`int16_t *indices` into a
		 * dict's keys): the type the block was made for, where it names
		 * what the address is in */
		if ((!o->type || !o->member) && st && st->has_type) {
			uint64_t tsz = st->type_size, off = x->data_addr - o->obj_addr;
			const dp_object_path_entry *e =
			    dp_path_cache_get(&a->paths, &a->strs, (Dwarf_Die *)&st->type,
					      tsz && st->array ? off % tsz : off, x->size);

			/* past it: the block is more than that type says */
			if (!o->type && e->result != DP_PATH_OUTSIDE) {
				o->type = e->type;
				o->member = e->member;
				o->type_reason = dp_path_reason(e->result);
			} else if (e->result == DP_PATH_OK && e->member) {
				o->type = e->type;
				o->member = e->member;
			}
		}
	} else {
		o->obj_reason = DP_AR_NO_ADDRESS;
	}
	if (o->type)
		o->type_reason = DP_AR_NONE;
	count(a, o);
}

static void count(dp_annotator *a, const dp_annotation *o)
{
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
			fprintf(f, "#   %-8s %9" PRIu64 "\n",
				dp_object_kind_name((dp_object_kind)k), s->by_kind[k]);
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

	if (!m)
		return 0;
	if (!im)
		return map_note_of(a, m)->base;
	const dp_code_loc *c =
	    dp_code_at(dp_annotator_image_dwarf(a, im), &a->strs, addr - m->bias);
	return c->function ? c->function : map_note_of(a, m)->base;
}
