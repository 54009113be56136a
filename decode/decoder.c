#include "decode.h"
#include "backtrack.h"

#include <asm/perf_regs.h>
#include <inttypes.h>
#include <linux/hw_breakpoint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CACHED_IMAGES 4096

/* What an event's ADDR field means. */
enum addr_kind { ADDR_NONE, ADDR_EXACT, ADDR_WATCH };

typedef struct ev_info {
	enum dp_ip_semantics sem;
	enum dp_event_class cls;
	enum addr_kind addr;
	uint64_t watch_lo, watch_hi;
	unsigned skid; /* the cause exactly this many instructions before the IP; 0: unknown */
} ev_info;

/* The decode of one distinct (image, instruction address, semantics, class). */
typedef struct ip_entry {
	dp_image *image;
	const dp_func_table *table;
	const char *function;
	uint64_t function_vaddr;
	dp_bt bt;
	dp_reason fail; /* no function or table */
	/* the candidate's address and operand, copied so that a sample reads
	 * this entry and not the function's instruction table */
	uint64_t insn_addr;
	uint8_t insn_len;
	dp_memop mo;
} ip_entry;

typedef struct image_slot {
	char *path;
	uint8_t build_id[20];
	uint8_t build_id_size;
	dp_image *image; /* NULL: could not be opened */
	dp_image_problem problem;
} image_slot;

struct dp_decoder {
	dp_profile *p;
	dp_maps maps;
	dp_arch *arch;
	dp_image_opts iopts;
	char *symfs, *kernel;
	DP_VEC(image_slot) images;
	dp_hashmap image_index; /* hash of path and build-id -> slot */
	dp_hashmap ipcache;	/* key -> index in entries */
	DP_VEC(ip_entry) entries;
	ip_entry uncached;  /* the entry of a sample that cannot be cached */
	dp_hashmap fs_base; /* tid -> fs base */
	uint32_t fs_tid;    /* the last tid looked up there, + 1 (0: none) */
	uint64_t fs_last;   /* its fs base; fs_known: whether it has one */
	bool fs_known;
	DP_VEC(ev_info) ev;
	DP_VEC(dp_image_problem) problems; /* view for dp_decoder_problems */
	bool data_maps; /* the profile records data mappings (perf record without -d does not) */
	dp_decode_stats st;
};

static void setup_events(dp_decoder *d)
{
	size_t n;
	const dp_event_info *e = dp_profile_events(d->p, &n);
	/* a simulator's --sim-skid N reports each sample exactly N instructions
	 * after its cause (sampler/sim_run.c writes it as META sim_skid) */
	const char *sim_skid = dp_profile_meta(d->p, "sim_skid");
	unsigned skid = sim_skid ? (unsigned)strtoul(sim_skid, NULL, 10) : 0;

	for (size_t i = 0; i < n; i++) {
		ev_info v = {e[i].ip_sem, e[i].evclass, ADDR_NONE, 0, 0, 0};
		const struct perf_event_attr *a = &e[i].attr;

		if (a->type == PERF_TYPE_BREAKPOINT && a->bp_type != HW_BREAKPOINT_X) {
			v.addr = ADDR_WATCH;
			v.watch_lo = a->bp_addr;
			v.watch_hi = a->bp_addr + (a->bp_len ? a->bp_len : 1);
		} else if (e[i].name && !strncmp(e[i].name, "sim:", 4) && a->config2) {
			/* sim:EVENT:watch=ADDR/LEN keeps config1 = ADDR, config2 = LEN
			 * (sampler/sim_events.c) */
			v.addr = ADDR_WATCH;
			v.watch_lo = a->config1;
			v.watch_hi = a->config1 + a->config2;
		} else if ((a->sample_type & PERF_SAMPLE_ADDR) && v.cls != DP_EVC_NONE &&
			   v.cls != DP_EVC_TIME &&
			   (v.sem == DP_IP_EXACT || v.sem == DP_IP_EXACT_AFTER)) {
			v.addr = ADDR_EXACT; /* page faults, precise memory events */
		}
		if (skid && v.sem == DP_IP_AFTER && e[i].name && !strncmp(e[i].name, "sim:", 4))
			v.skid = skid > 4096 ? 4096 : skid;
		dp_vec_push(&d->ev, v);
	}
}

dp_decoder *dp_decoder_new(dp_profile *p, const dp_decode_opts *o, dp_error *err)
{
	dp_decoder *d = dp_calloc(1, sizeof(*d));

	d->p = p;
	d->arch = dp_arch_x86_64();
	if (!d->arch) {
		dp_error_set(err, "cannot initialise the disassembler (capstone)");
		free(d);
		return NULL;
	}
	dp_maps_init(&d->maps);
	dp_hashmap_init(&d->image_index, 64);
	dp_hashmap_init(&d->ipcache, 1024);
	dp_hashmap_init(&d->fs_base, 16);
	if (o && o->symfs)
		d->symfs = dp_strdup(o->symfs);
	if (dp_profile_meta(p, "kernel"))
		d->kernel = dp_strdup(dp_profile_meta(p, "kernel"));
	d->iopts.symfs = d->symfs;
	d->iopts.kernel = d->kernel;
	d->iopts.ignore_build_id = o && o->ignore_build_id;
	setup_events(d);
	return d;
}

void dp_decoder_observe(dp_decoder *d, const dp_record *r)
{
	if (r->kind == DP_R_MMAP && !r->mmap.exec)
		d->data_maps = true;
	if (r->kind == DP_R_MMAP || r->kind == DP_R_COMM || r->kind == DP_R_FORK)
		dp_maps_observe(&d->maps, r);
	else if (r->kind == DP_R_ALLOC)
		dp_maps_observe_block(&d->maps, r->alloc->pid, r->alloc->addr, r->alloc->size,
				      r->alloc->time);
	else if (r->kind == DP_R_THREAD) {
		dp_hashmap_put(&d->fs_base, r->thread->tid, r->thread->fs_base);
		d->fs_tid = 0; /* the last answer may have changed */
	}
}

void dp_decoder_ready(dp_decoder *d)
{
	dp_maps_finish(&d->maps);
}

static void observe(void *d, const dp_record *r)
{
	dp_decoder_observe(d, r);
}

dp_decoder *dp_decoder_open(dp_profile *p, const dp_decode_opts *o, dp_error *err)
{
	dp_decoder *d = dp_decoder_new(p, o, err);

	if (!d)
		return NULL;
	/* pass 1: the address spaces and threads, before any sample */
	dp_profile_side_band(p, observe, d);
	dp_decoder_ready(d);
	return d;
}

void dp_decoder_free(dp_decoder *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->images.n; i++) {
		dp_image *im = d->images.v[i].image;

		if (im) {
			for (size_t k = 0; k < im->tables.n; k++)
				dp_func_table_free(im->tables.v[k]);
			for (size_t k = 0; k < im->cfi_tables.n; k++)
				dp_func_table_free(im->cfi_tables.v[k]);
			dp_image_free(im);
		}
		free(d->images.v[i].path);
	}
	dp_vec_free(&d->images);
	dp_vec_free(&d->entries);
	dp_vec_free(&d->ev);
	dp_vec_free(&d->problems);
	dp_hashmap_free(&d->image_index);
	dp_hashmap_free(&d->ipcache);
	dp_hashmap_free(&d->fs_base);
	dp_maps_free(&d->maps);
	dp_arch_free(d->arch);
	free(d->symfs);
	free(d->kernel);
	free(d);
}

/* The image of a binary, opened once per (path, build-id). */
static image_slot *image_named(dp_decoder *d, const char *path, const uint8_t *build_id,
			       uint8_t build_id_size)
{
	uint64_t h = dp_hash_bytes(path, strlen(path), build_id_size) ^
		     dp_hash_bytes(build_id, build_id_size, 7);
	uint64_t v;

	for (;; h++) {
		if (!dp_hashmap_get(&d->image_index, h, &v))
			break;
		image_slot *s = &d->images.v[v];
		if (!strcmp(s->path, path) && s->build_id_size == build_id_size &&
		    !memcmp(s->build_id, build_id, build_id_size))
			return s;
	}
	image_slot s;
	dp_error err = {{0}};

	memset(&s, 0, sizeof(s));
	s.path = dp_strdup(path);
	s.build_id_size = build_id_size;
	memcpy(s.build_id, build_id, build_id_size);
	s.image = dp_image_open(path, build_id, build_id_size, &d->iopts, &s.problem.reason, &err);
	if (s.image)
		s.image->id = (int)d->images.n;
	else
		snprintf(s.problem.message, sizeof(s.problem.message), "%s", err.msg);
	dp_vec_push(&d->images, s);
	dp_hashmap_put(&d->image_index, h, d->images.n - 1);
	return &d->images.v[d->images.n - 1];
}

static image_slot *image_of(dp_decoder *d, dp_map *m)
{
	return image_named(d, m->name, m->build_id, m->build_id_size);
}

dp_image *dp_decoder_image_like(dp_decoder *d, const dp_image *other)
{
	/* slots are keyed by the build-id recorded, which may be none: the one
	 * the file has tells them apart (a few binaries: a linear search) */
	for (size_t i = 0; i < d->images.n; i++) {
		const dp_image *im = d->images.v[i].image;

		if (im && !strcmp(im->path, other->path) &&
		    im->build_id_size == other->build_id_size &&
		    !memcmp(im->build_id, other->build_id, im->build_id_size))
			return (dp_image *)im;
	}
	return image_named(d, other->path, other->build_id, other->build_id_size)->image;
}

static bool is_file_mapping(const dp_map *m)
{
	/* the kernel names anonymous and shared-memory mappings with slashes too */
	if (!strcmp(m->name, "[vdso]"))
		return true;
	return m->name[0] == '/' && strncmp(m->name, "//anon", 6) &&
	       strncmp(m->name, "/dev/zero", 9) && strncmp(m->name, "/memfd:", 7) &&
	       strncmp(m->name, "/SYSV", 5) && !strstr(m->name, " (deleted)");
}

/* Prepares m->image and m->bias once; returns the failure reason or NONE. */
static dp_reason map_image(dp_decoder *d, dp_map *m)
{
	image_slot *s;

	if (m->image_state > 0)
		return DP_RS_NONE;
	if (!is_file_mapping(m) || !m->exec)
		return DP_RS_NO_MAPPING;
	if (m->image_state == 0) {
		s = image_of(d, m);
		m->image_slot = (uint32_t)(s - d->images.v);
		m->image_state = -1;
		if (s->image && dp_image_bias(s->image, m->start, m->pgoff, &m->bias)) {
			m->image = s->image;
			m->image_state = 1;
			return DP_RS_NONE;
		}
	}
	s = &d->images.v[m->image_slot];
	s->problem.samples++;
	return s->image ? DP_RS_NOT_ELF : s->problem.reason;
}

/* fn's instruction table, decoded on first use */
static dp_func_table *function_table(dp_decoder *d, dp_image *im, const dp_symbol *fn,
				     dp_func_table **slot)
{
	if (!*slot) {
		*slot = dp_func_table_build(d->arch, im, fn);
		d->st.functions_decoded++;
	}
	return *slot;
}

const dp_func_table *dp_decoder_function_table(dp_decoder *d, dp_image *im, uint64_t vaddr)
{
	dp_func_table **slot = NULL;
	const dp_symbol *fn = dp_image_function(im, vaddr, &slot);

	return fn ? function_table(d, im, fn, slot) : NULL;
}

static ip_entry *lookup_entry(dp_decoder *d, dp_image *im, uint64_t vaddr, const ev_info *e)
{
	/* 0-11: semantics and class; 12-15: a fixed skid (one per profile) and class */
	unsigned combo = e->skid ? 12 + (unsigned)(e->cls - 1)
				 : (unsigned)(e->sem - 1) * 4 + (unsigned)(e->cls - 1);
	bool cacheable = im->id < MAX_CACHED_IMAGES && vaddr < (1ull << 48) && combo < 16;
	uint64_t key = vaddr | ((uint64_t)im->id << 48) | ((uint64_t)combo << 60), v;
	ip_entry ent;
	dp_func_table **slot = NULL;
	const dp_symbol *fn;

	if (cacheable && dp_hashmap_get(&d->ipcache, key, &v))
		return &d->entries.v[v];
	memset(&ent, 0, sizeof(ent));
	ent.image = im;
	ent.bt.insn = -1;
	fn = dp_image_function(im, vaddr, &slot);
	if (!fn) {
		ent.fail = DP_RS_NO_SYMBOL;
	} else {
		ent.table = function_table(d, im, fn, slot);
		ent.function = fn->name;
		ent.function_vaddr = fn->addr;
		dp_backtrack(ent.table, vaddr, e->sem, e->cls, e->skid, &ent.bt);
		if (ent.bt.insn >= 0) {
			const dp_insn *in = &ent.table->insns.v[ent.bt.insn];

			ent.insn_addr = in->addr;
			ent.insn_len = in->len;
			ent.mo = in->mem[ent.bt.mem];
		}
	}
	if (!cacheable) {
		/* kept for this sample only: memory does not grow with such samples */
		d->uncached = ent;
		return &d->uncached;
	}
	dp_vec_push(&d->entries, ent);
	dp_hashmap_put(&d->ipcache, key, d->entries.n - 1);
	d->st.instructions_cached++;
	return &d->entries.v[d->entries.n - 1];
}

static bool in_some_mapping(dp_decoder *d, uint32_t pid, uint64_t a, uint64_t t)
{
	return dp_maps_find(&d->maps, pid, a, t) || dp_maps_find_stack(&d->maps, pid, a, t) ||
	       dp_maps_in_block(&d->maps, pid, a, t);
}

static void finish_verdict(dp_decoder *d, const dp_sample *s, dp_decoded *o, dp_verdict v,
			   dp_reason r)
{
	o->verdict = v;
	o->reason = r;
	d->st.samples++;
	d->st.by_event_verdict[DP_MIN(s->event, 63u)][v]++;
	d->st.by_reason[r]++;
}

void dp_decode_sample(dp_decoder *d, const dp_sample *s, dp_decoded *o)
{
	static const ev_info none_ev = {DP_IP_NONE, DP_EVC_NONE, ADDR_NONE, 0, 0};
	const ev_info *e = s->event < d->ev.n ? &d->ev.v[s->event] : &none_ev;
	ip_entry *ent = NULL;
	dp_map *m;
	dp_reason r;

	memset(o, 0, sizeof(*o));
	o->ip = s->ip;
	o->insn = -1;
	if (e->cls == DP_EVC_NONE || e->sem == DP_IP_NONE) {
		finish_verdict(d, s, o, DP_V_NO_MEMORY, DP_RS_NOT_MEMORY_EVENT);
		return;
	}
	if (e->addr == ADDR_EXACT && (s->sample_type & PERF_SAMPLE_ADDR) && s->addr) {
		o->has_hw = true;
		o->hw_addr = s->addr;
	}
	if ((s->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
		finish_verdict(d, s, o, o->has_hw ? DP_V_EXACT : DP_V_UNRESOLVABLE, DP_RS_KERNEL);
		o->data_addr = o->hw_addr;
		return;
	}

	/* the code: mapping, binary, function, the walk back (cached) */
	m = dp_maps_find(&d->maps, s->pid, s->ip, s->time);
	r = m ? map_image(d, m) : DP_RS_NO_MAPPING;
	o->map = m;
	if (r == DP_RS_NONE) {
		o->image = m->image;
		o->ip_vaddr = s->ip - m->bias;
		ent = lookup_entry(d, m->image, o->ip_vaddr, e);
		o->function = ent->function;
		o->function_vaddr = ent->function_vaddr;
		o->table = ent->table;
		o->insn_key = ent == &d->uncached ? 0 : (uint32_t)(ent - d->entries.v) + 1;
		r = ent->fail;
	}

	/* the data address from the registers */
	dp_reason why = DP_RS_NONE;
	if (ent && !ent->fail && ent->bt.insn >= 0) {
		const dp_memop *mo = &ent->mo;
		dp_ea_ctx c = {&s->regs_user,
			       ent->insn_addr + m->bias,
			       ent->insn_len,
			       ent->bt.regs_after,
			       false,
			       false,
			       0,
			       0};
		uint64_t fs = 0;

		/* samples come in runs of one thread: its last answer first */
		if (d->fs_tid != s->tid + 1) {
			d->fs_known = dp_hashmap_get(&d->fs_base, s->tid, &fs);
			d->fs_last = fs;
			d->fs_tid = s->tid + 1;
		}
		c.fs_known = d->fs_known;
		c.fs_base = d->fs_last;
		o->insn = ent->bt.insn;
		o->mem = ent->bt.mem;
		o->insn_vaddr = ent->insn_addr;
		o->insn_ip = ent->insn_addr + m->bias;
		o->access = mo->access;
		o->size = mo->size;
		o->distance = ent->bt.distance;
		if (s->regs_user.abi && dp_memop_ea(mo, &c, &o->computed_addr, &why))
			o->has_computed = true;
		else if (!s->regs_user.abi)
			why = DP_RS_NO_REGS;
	}

	if (o->has_hw) {
		/* the hardware gave the address: it is the truth; the computed one is checked
		 * against it */
		o->data_addr = o->hw_addr;
		if (o->has_computed)
			o->hw_agrees = o->hw_addr >= o->computed_addr &&
				       o->hw_addr < o->computed_addr + DP_MAX(o->size, 1);
		/* a fault on the code itself is not a data access */
		if (!o->hw_agrees && o->hw_addr >= s->ip && o->hw_addr < s->ip + 16) {
			o->data_addr = 0;
			o->has_computed = false;
			finish_verdict(d, s, o, DP_V_NO_MEMORY, DP_RS_IFETCH);
			return;
		}
		if (o->has_computed) {
			d->st.hw_compared++;
			d->st.hw_agreed += o->hw_agrees;
		}
		finish_verdict(d, s, o, DP_V_EXACT,
			       o->has_computed && !o->hw_agrees ? DP_RS_HW_MISMATCH
			       : r != DP_RS_NONE		? r
								: DP_RS_NONE);
		return;
	}
	if (r != DP_RS_NONE) {
		finish_verdict(d, s, o, DP_V_UNRESOLVABLE, r);
		return;
	}
	const dp_bt *bt = &ent->bt;
	bool overlaps_watch = e->addr == ADDR_WATCH && o->has_computed &&
			      o->computed_addr < e->watch_hi &&
			      o->computed_addr + DP_MAX(o->size, 1) > e->watch_lo;
	/* a watched range settles which iteration or which of two accesses
	 * it was, when the one computed falls in it */
	if (bt->verdict == DP_V_VERIFIED ||
	    ((bt->reason == DP_RS_REP_ITERATION || bt->reason == DP_RS_TWO_ACCESSES) &&
	     overlaps_watch)) {
		if (!o->has_computed) {
			finish_verdict(d, s, o, DP_V_UNVERIFIABLE, why);
		} else if (d->data_maps && !in_some_mapping(d, s->pid, o->computed_addr, s->time)) {
			/* (without data mappings, as perf record gives without -d, there is
			 * nothing to check the address against: the registers alone decide) */
			finish_verdict(d, s, o, DP_V_UNVERIFIABLE, DP_RS_OUTSIDE_MAPPINGS);
		} else if (e->addr == ADDR_WATCH && !overlaps_watch) {
			d->st.hw_compared++;
			finish_verdict(d, s, o, DP_V_UNVERIFIABLE, DP_RS_HW_MISMATCH);
		} else {
			if (e->addr == ADDR_WATCH) {
				d->st.hw_compared++;
				d->st.hw_agreed++;
				o->hw_agrees = true;
			}
			o->data_addr = o->computed_addr;
			finish_verdict(d, s, o, DP_V_VERIFIED, DP_RS_NONE);
		}
		return;
	}
	finish_verdict(d, s, o, bt->verdict, bt->reason);
}

const dp_decode_stats *dp_decoder_stats(const dp_decoder *d)
{
	return &d->st;
}

void dp_decoder_add_stats(dp_decoder *d, const dp_decoder *other)
{
	const dp_decode_stats *o = &other->st;

	d->st.samples += o->samples;
	for (int e = 0; e < 64; e++)
		for (int v = 0; v < DP_V_COUNT; v++)
			d->st.by_event_verdict[e][v] += o->by_event_verdict[e][v];
	for (int r = 0; r < DP_RS_COUNT; r++)
		d->st.by_reason[r] += o->by_reason[r];
	d->st.hw_compared += o->hw_compared;
	d->st.hw_agreed += o->hw_agreed;
	/* the binaries' failures by path: each worker opened its own */
	for (size_t i = 0; i < other->images.n; i++) {
		const image_slot *os = &other->images.v[i];

		for (size_t k = 0; os->problem.samples && k < d->images.n; k++)
			if (!strcmp(d->images.v[k].path, os->path)) {
				d->images.v[k].problem.samples += os->problem.samples;
				break;
			}
	}
}

dp_maps *dp_decoder_maps(dp_decoder *d)
{
	return &d->maps;
}

dp_image *dp_decoder_map_image(dp_decoder *d, dp_map *m)
{
	if (m->image_state > 0)
		return m->image;
	if (m->image_state < 0 || !is_file_mapping(m))
		return NULL;
	image_slot *s = image_of(d, m);
	m->image_slot = (uint32_t)(s - d->images.v);
	m->image_state = -1;
	if (s->image && dp_image_bias(s->image, m->start, m->pgoff, &m->bias)) {
		m->image = s->image;
		m->image_state = 1;
	}
	return m->image;
}

bool dp_decoder_fs_base(const dp_decoder *d, uint32_t tid, uint64_t *fs)
{
	return dp_hashmap_get(&d->fs_base, tid, fs);
}

void dp_decoded_insn_text(dp_decoder *d, const dp_decoded *x, char *buf, size_t len)
{
	buf[0] = 0;
	if (!x->table || x->insn < 0)
		return;
	const dp_insn *in = &x->table->insns.v[x->insn];
	dp_arch_format(d->arch, x->table->bytes + (in->addr - x->table->start), in->len, in->addr,
		       buf, len);
}

void dp_decoded_insn_bytes(const dp_decoded *x, char *buf, size_t len)
{
	buf[0] = 0;
	if (!x->table || x->insn < 0 || len < 3)
		return;
	const dp_insn *in = &x->table->insns.v[x->insn];
	const uint8_t *b = x->table->bytes + (in->addr - x->table->start);
	size_t o = 0;
	for (uint8_t i = 0; i < in->len && o + 3 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%02x", i ? " " : "", b[i]);
}

size_t dp_decoder_problems(const dp_decoder *d, const dp_image_problem **out)
{
	dp_decoder *dd = (dp_decoder *)d;

	dd->problems.n = 0;
	for (size_t i = 0; i < d->images.n; i++) {
		if (d->images.v[i].image)
			continue;
		dp_image_problem p = d->images.v[i].problem;
		p.path = d->images.v[i].path;
		dp_vec_push(&dd->problems, p);
	}
	*out = dd->problems.v;
	return dd->problems.n;
}

void dp_decode_print_summary(const dp_decoder *d, const dp_profile *p, FILE *f)
{
	size_t nev;
	const dp_event_info *ev = dp_profile_events(p, &nev);
	const dp_image_problem *pr;
	size_t np;

	fprintf(f, "# verdicts per event\n");
	fprintf(f, "# %-28s %9s %7s %7s %7s %7s %7s\n", "event", "samples", "exact", "verified",
		"unverif", "unresol", "no-mem");
	for (size_t i = 0; i < nev && i < 64; i++) {
		const uint64_t *c = d->st.by_event_verdict[i];
		uint64_t tot = 0;

		for (int v = 0; v < DP_V_COUNT; v++)
			tot += c[v];
		if (!tot)
			continue;
		fprintf(f, "# %-28.28s %9" PRIu64, ev[i].name ? ev[i].name : "?", tot);
		for (int v = 0; v < DP_V_COUNT; v++)
			fprintf(f, " %6.1f%%", 100.0 * (double)c[v] / (double)tot);
		fputc('\n', f);
	}
	if (!d->data_maps)
		fprintf(f, "# the profile has no data mappings (perf record without -d): verified "
			   "addresses were not checked against mappings\n");
	if (d->st.hw_compared)
		fprintf(f,
			"# computed addresses checked against the hardware's: %" PRIu64
			", agreeing %" PRIu64 " (%.1f%%)\n",
			d->st.hw_compared, d->st.hw_agreed,
			100.0 * (double)d->st.hw_agreed / (double)d->st.hw_compared);
	bool any = false;
	for (int r = 1; r < DP_RS_COUNT; r++) {
		if (!d->st.by_reason[r])
			continue;
		if (!any)
			fprintf(f, "# reasons\n");
		any = true;
		fprintf(f, "#   %-52s %9" PRIu64 "\n", dp_reason_name((dp_reason)r),
			d->st.by_reason[r]);
	}
	np = dp_decoder_problems(d, &pr);
	for (size_t i = 0; i < np; i++)
		if (pr[i].samples)
			fprintf(f, "# %" PRIu64 " samples unresolvable: %s\n", pr[i].samples,
				pr[i].message);
}
