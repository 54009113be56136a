#include "type_layout.h"
#include "../annotate/dwarf_util.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../decode/decode.h"
#include "strtab.h"

#define MAX_DEPTH 16

void dp_type_layout_free(dp_type_layout *l)
{
	for (size_t i = 0; i < l->members.n; i++) {
		free(l->members.v[i].name);
		free(l->members.v[i].type);
	}
	dp_vec_free(&l->members);
	dp_vec_free(&l->holes);
	free(l->name);
	free(l->binary);
	free(l->decl);
	memset(l, 0, sizeof(*l));
}

typedef struct want {
	int tag; /* DW_TAG_structure_type...; 0: any */
	const char *name;
} want;

static void parse_want(const char *s, want *w)
{
	static const struct {
		const char *kw;
		int tag;
	} kws[] = {{"struct ", DW_TAG_structure_type},
		   {"class ", DW_TAG_class_type},
		   {"union ", DW_TAG_union_type}};

	w->tag = 0;
	w->name = s;
	for (size_t i = 0; i < DP_ARRAY_LEN(kws); i++)
		if (!strncmp(s, kws[i].kw, strlen(kws[i].kw))) {
			w->tag = kws[i].tag;
			w->name = s + strlen(kws[i].kw);
			while (*w->name == ' ')
				w->name++;
		}
}

static bool is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

/* Through typedefs and qualifiers to the type itself. */
static bool strip(Dwarf_Die *t, Dwarf_Die *out)
{
	Dwarf_Die d = *t;

	for (int i = 0; i < MAX_DEPTH; i++) {
		switch (dwarf_tag(&d)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			if (!dp_die_type(&d, &d))
				return false;
			continue;
		default:
			*out = d;
			return true;
		}
	}
	return false;
}

static bool is_definition(Dwarf_Die *d)
{
	Dwarf_Attribute at;

	return !dwarf_attr(d, DW_AT_declaration, &at) && dwarf_attr(d, DW_AT_byte_size, &at);
}

typedef struct search {
	want w;
	bool found;
	Dwarf_Die type;	  /* the aggregate */
	Dwarf_Die named;  /* what the name found (the aggregate, or a typedef of it) */
	dp_strtab *names; /* every aggregate's name, for suggestions; NULL: not collected */
} search;

static void note_name(search *s, Dwarf_Die *d, int tag)
{
	const char *n = dwarf_diename(d);
	char buf[512];

	if (!s->names || !n)
		return;
	if (tag == DW_TAG_typedef)
		snprintf(buf, sizeof(buf), "%s", n);
	else
		snprintf(buf, sizeof(buf), "%s %s",
			 tag == DW_TAG_union_type   ? "union"
			 : tag == DW_TAG_class_type ? "class"
						    : "struct",
			 n);
	dp_strtab_intern(s->names, buf);
}

static void walk(search *s, Dwarf_Die *parent, int depth)
{
	Dwarf_Die c;

	if (depth > MAX_DEPTH || dwarf_child(parent, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		const char *n = dwarf_diename(&c);

		if (s->found && !s->names)
			return;
		if (is_aggregate(tag)) {
			if (is_definition(&c)) {
				note_name(s, &c, tag);
				bool tag_ok =
				    !s->w.tag || s->w.tag == tag ||
				    (s->w.tag != DW_TAG_union_type && tag != DW_TAG_union_type);
				if (!s->found && n && tag_ok && !strcmp(n, s->w.name)) {
					s->found = true;
					s->type = s->named = c;
				}
			}
			walk(s, &c, depth + 1); /* nested types */
		} else if (tag == DW_TAG_typedef) {
			Dwarf_Die t;

			if (n && strip(&c, &t) && is_aggregate(dwarf_tag(&t)) &&
			    is_definition(&t)) {
				note_name(s, &c, tag);
				if (!s->found && !s->w.tag && !strcmp(n, s->w.name)) {
					s->found = true;
					s->type = t;
					/* a typedef of an anonymous struct is named by the typedef
					 */
					s->named = dwarf_diename(&t) ? t : c;
				}
			}
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_subprogram ||
			   tag == DW_TAG_lexical_block) {
			walk(s, &c, depth + 1);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static void search_dwarf(Dwarf *dw, search *s)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			walk(s, &cu, 0);
		if (s->found && !s->names)
			return;
		off = next;
	}
}

static uint64_t type_align(Dwarf_Die *t, int depth)
{
	Dwarf_Attribute at;
	Dwarf_Word v;
	Dwarf_Die d, c;
	uint64_t a = 1;

	if (depth > MAX_DEPTH)
		return 1;
	if (dwarf_attr(t, DW_AT_alignment, &at) && dwarf_formudata(&at, &v) == 0 && v)
		return v;
	if (!strip(t, &d))
		return 1;
	if (dwarf_attr(&d, DW_AT_alignment, &at) && dwarf_formudata(&at, &v) == 0 && v)
		return v;
	switch (dwarf_tag(&d)) {
	case DW_TAG_array_type:
		return dp_die_type(&d, &c) ? type_align(&c, depth + 1) : 1;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		if (dwarf_child(&d, &c) == 0)
			do {
				Dwarf_Die mt;

				if ((dwarf_tag(&c) == DW_TAG_member ||
				     dwarf_tag(&c) == DW_TAG_inheritance) &&
				    !dwarf_attr(&c, DW_AT_external, &at) && dp_die_type(&c, &mt))
					a = DP_MAX(a, type_align(&mt, depth + 1));
			} while (dwarf_siblingof(&c, &c) == 0);
		return a;
	default: {
		uint64_t sz = dp_type_size(&d);

		if (dwarf_tag(&d) == DW_TAG_pointer_type ||
		    dwarf_tag(&d) == DW_TAG_reference_type ||
		    dwarf_tag(&d) == DW_TAG_rvalue_reference_type)
			sz = 8;
		return sz ? DP_MIN(sz, 16) : 1;
	}
	}
}

static bool member_offset(Dwarf_Die *m, uint64_t *off)
{
	Dwarf_Attribute at;
	Dwarf_Word v;
	Dwarf_Op *ops;
	size_t n;

	*off = 0;
	if (!dwarf_attr(m, DW_AT_data_member_location, &at))
		return true; /* a union's members, DWARF 4+ bitfields */
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

static void add_member(dp_type_layout *l, Dwarf_Die *m, bool base)
{
	Dwarf_Attribute at;
	Dwarf_Word v;
	Dwarf_Die t;
	dp_buf tn = {0};
	dp_layout_member x;

	memset(&x, 0, sizeof(x));
	if (!dp_die_type(m, &t))
		return;
	dp_type_name(&t, &tn);
	x.type = tn.p ? tn.p : dp_strdup("?");
	x.base = base;
	x.name = base ? dp_strdup(x.type)
		      : dp_strdup(dwarf_diename(m) ? dwarf_diename(m) : "<anonymous>");
	x.artificial = dwarf_attr(m, DW_AT_artificial, &at) != NULL;
	x.size = dp_type_size(&t);
	if (!x.size) {
		Dwarf_Die s;
		/* pointers and the like: dwarf_aggregate_size knows their byte_size */
		if (strip(&t, &s) && dwarf_attr(&s, DW_AT_byte_size, &at) &&
		    dwarf_formudata(&at, &v) == 0)
			x.size = v;
	}
	x.align = type_align(&t, 0);
	member_offset(m, &x.offset);
	if (dwarf_attr(m, DW_AT_bit_size, &at) && dwarf_formudata(&at, &v) == 0) {
		uint64_t unit = x.size ? x.size : 4, bits;

		x.bit_size = (uint32_t)v;
		if (dwarf_attr(m, DW_AT_data_bit_offset, &at) && dwarf_formudata(&at, &bits) == 0) {
			/* from the start of the struct: the unit holding it, and the bits in it */
			x.offset = bits / (unit * 8) * unit;
			x.bit_offset = (uint32_t)(bits - x.offset * 8);
		} else if (dwarf_attr(m, DW_AT_bit_offset, &at) &&
			   dwarf_formudata(&at, &bits) == 0) {
			/* DWARF 2/3: from the unit's most significant bit */
			x.bit_offset = (uint32_t)(unit * 8 - bits - v);
		}
	}
	dp_vec_push(&l->members, x);
}

static int by_offset(const void *a, const void *b)
{
	const dp_layout_member *x = a, *y = b;
	int c = dp_cmp_u64(x->offset, y->offset);

	return c ? c : dp_cmp_u64(x->bit_offset, y->bit_offset);
}

static void fill(dp_type_layout *l, Dwarf_Die *type, Dwarf_Die *named, const char *binary)
{
	Dwarf_Die c;
	Dwarf_Attribute at;
	dp_buf n = {0};
	const char *file = dwarf_decl_file(type);
	int line = 0;

	dp_type_name(named, &n);
	l->name = n.p;
	l->binary = dp_strdup(binary);
	dwarf_decl_line(type, &line);
	if (file) {
		const char *slash = strrchr(file, '/');
		l->decl = dp_asprintf("%s:%d", slash ? slash + 1 : file, line);
	} else {
		l->decl = dp_strdup("");
	}
	l->size = dp_type_size(type);
	l->align = type_align(type, 0);
	l->is_union = dwarf_tag(type) == DW_TAG_union_type;
	if (dwarf_child(type, &c) == 0)
		do {
			int tag = dwarf_tag(&c);

			/* static members are variables, not parts of the layout */
			if (tag == DW_TAG_member && !dwarf_attr(&c, DW_AT_external, &at) &&
			    !dwarf_attr(&c, DW_AT_declaration, &at))
				add_member(l, &c, false);
			else if (tag == DW_TAG_inheritance)
				add_member(l, &c, true);
		} while (dwarf_siblingof(&c, &c) == 0);
	/* DWARF lists members in declaration order, which is offset order but
	 * for unions; sort stably anyway */
	for (size_t i = 1; i < l->members.n && !l->is_union; i++)
		for (size_t j = i; j > 0 && by_offset(&l->members.v[j - 1], &l->members.v[j]) > 0;
		     j--) {
			dp_layout_member t = l->members.v[j];
			l->members.v[j] = l->members.v[j - 1];
			l->members.v[j - 1] = t;
		}
}

/* Holes as pahole counts them: the bytes between one member's end and the
 * next one's start; after a run of bitfields in one storage unit, the bits
 * of the unit they leave unused, when the next member starts past it. */
static void holes(dp_type_layout *l)
{
	uint64_t end = 0;
	size_t n = l->members.n;

	if (l->is_union) {
		for (size_t i = 0; i < n; i++)
			end = DP_MAX(end, l->members.v[i].offset + l->members.v[i].size);
		l->padding = l->size > end ? l->size - end : 0;
		return;
	}
	for (size_t i = 0; i < n;) {
		const dp_layout_member *m = &l->members.v[i];
		size_t last = i;
		uint64_t next, mend;
		uint32_t used = 0, bits = 0;

		if (m->bit_size) {
			/* the run of bitfields sharing m's storage unit */
			while (last + 1 < n && l->members.v[last + 1].bit_size &&
			       l->members.v[last + 1].offset == m->offset)
				last++;
			for (size_t k = i; k <= last; k++)
				used = DP_MAX(used, l->members.v[k].bit_offset +
							l->members.v[k].bit_size);
		}
		next = last + 1 < n ? l->members.v[last + 1].offset : l->size;
		if (!m->bit_size) {
			mend = m->offset + m->size;
		} else if (next >= m->offset + m->size) {
			mend = m->offset + m->size;
			bits = (uint32_t)(m->size * 8) - used;
		} else {
			mend = m->offset + (used + 7) / 8;
			bits = (uint32_t)((used + 7) / 8 * 8) - used;
		}
		if (bits && last + 1 < n) {
			dp_layout_hole h = {last, m->offset, 0, bits};
			dp_vec_push(&l->holes, h);
		}
		if (last + 1 < n && next > mend) {
			dp_layout_hole h = {last, mend, next - mend, 0};
			dp_vec_push(&l->holes, h);
		}
		end = DP_MAX(end, mend);
		i = last + 1;
	}
	l->padding = l->size > end ? l->size - end : 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* The binaries to search: of a profile, the programs first. */
typedef DP_VEC(dp_image *) image_vec;

/* The binaries a profile mapped, the programs first; *program gets the
 * first one executed (NULL when none could be opened: its path in
 * *program_path). */
static void profile_images(dp_profile *p, dp_decoder *d, image_vec *out, const char **program_path,
			   bool *program_ok)
{
	dp_record r;
	image_vec libs = {0};

	*program_path = NULL;
	*program_ok = false;
	dp_profile_rewind(p);
	while (dp_profile_next(p, &r) > 0) {
		dp_map *m;
		dp_image *im;
		bool seen = false;

		if (r.kind != DP_R_MMAP || !r.mmap.exec || !r.mmap.filename ||
		    r.mmap.filename[0] != '/')
			continue;
		m = dp_maps_find(dp_decoder_maps(d), r.mmap.pid, r.mmap.start,
				 r.has_time ? r.time : 0);
		im = m ? dp_decoder_map_image(d, m) : NULL;
		if (!*program_path) {
			/* exec maps the program before its interpreter and libraries */
			*program_path = r.mmap.filename;
			*program_ok = im != NULL;
		}
		if (!im)
			continue;
		for (size_t i = 0; i < out->n; i++)
			seen |= out->v[i] == im;
		for (size_t i = 0; i < libs.n; i++)
			seen |= libs.v[i] == im;
		if (seen)
			continue;
		if (dp_image_is_program(im))
			dp_vec_push(out, im);
		else
			dp_vec_push(&libs, im);
	}
	for (size_t i = 0; i < libs.n; i++)
		dp_vec_push(out, libs.v[i]);
	dp_vec_free(&libs);
	dp_profile_rewind(p);
}

static bool is_elf(const char *path)
{
	char magic[4] = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool elf;

	if (fd < 0)
		return false;
	elf = read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	return elf;
}

/* The names nearest to what was asked, for "did you mean". */
static void suggest(const dp_strtab *names, const char *asked, dp_buf *out)
{
	const char *best[3] = {0};
	unsigned dist[3] = {~0u, ~0u, ~0u};
	want w;

	parse_want(asked, &w);
	for (size_t i = 1; i < dp_strtab_count(names); i++) {
		const char *n = dp_strtab_get(names, (uint32_t)i), *bare = strchr(n, ' ');
		unsigned d = dp_edit_distance(asked, n, 8);

		/* "itme" against "struct item": compare the bare names too */
		d = DP_MIN(d, dp_edit_distance(w.name, bare ? bare + 1 : n, 8));
		for (int k = 0; k < 3; k++)
			if (d < dist[k]) {
				for (int j = 2; j > k; j--)
					best[j] = best[j - 1], dist[j] = dist[j - 1];
				best[k] = n, dist[k] = d;
				break;
			}
	}
	for (int k = 0; k < 3 && best[k] && dist[k] <= DP_MAX(3u, (unsigned)strlen(w.name) / 2);
	     k++)
		dp_buf_printf(out, "%s'%s'", k ? ", " : ": did you mean ", best[k]);
}

int dp_type_layout_find(const char *path, const char *symfs, const char *name, dp_type_layout *out,
			bool *has_profile, dp_error *err)
{
	image_vec images = {0};
	dp_profile *p = NULL;
	dp_decoder *d = NULL;
	dp_image *own = NULL;
	dp_strtab names;
	search s;
	const char *program = NULL;
	bool program_ok = true;
	int with_dwarf = 0, rc = -1;

	memset(out, 0, sizeof(*out));
	*has_profile = false;
	if (is_elf(path)) {
		dp_image_opts io = {symfs, NULL, true};
		dp_reason why;

		if (!(own = dp_image_open(path, NULL, 0, &io, &why, err)))
			return -1;
		dp_vec_push(&images, own);
	} else {
		dp_decode_opts dopts = {symfs, false};

		if (!(p = dp_profile_open(path, err)))
			return -1;
		*has_profile = true;
		if (!(d = dp_decoder_open(p, &dopts, err))) {
			dp_profile_close(p);
			return -1;
		}
		profile_images(p, d, &images, &program, &program_ok);
	}
	dp_strtab_init(&names);
	memset(&s, 0, sizeof(s));
	parse_want(name, &s.w);
	for (size_t i = 0; i < images.n && !s.found; i++) {
		Dwarf_Addr bias;
		Dwarf *dw = dwfl_module_getdwarf(images.v[i]->mod, &bias);

		if (!dw)
			continue;
		with_dwarf++;
		search_dwarf(dw, &s);
		if (s.found)
			fill(out, &s.type, &s.named, images.v[i]->path);
	}
	if (s.found) {
		holes(out);
		rc = 0;
	} else if (!program_ok) {
		/* the program itself could not be opened: say why, not what its libraries lack */
		const dp_image_problem *pr;
		size_t np = dp_decoder_problems(d, &pr);

		dp_error_set(err, "no type '%s' found: the profiled program %s cannot be read%s%s",
			     name, program, np ? ": " : "", np ? pr[0].message : "");
	} else if (!with_dwarf) {
		dp_error_set(err,
			     "%s%s has no debug info (DWARF): rebuild it with -g to see its types",
			     images.n ? base_name(images.v[0]->path) : base_name(path),
			     images.n > 1 ? " (nor do its libraries)" : "");
	} else {
		dp_buf sug = {0};

		/* a second pass, collecting every name: only on the error path */
		s.names = &names;
		for (size_t i = 0; i < images.n; i++) {
			Dwarf_Addr bias;
			Dwarf *dw = dwfl_module_getdwarf(images.v[i]->mod, &bias);

			if (dw)
				search_dwarf(dw, &s);
		}
		suggest(&names, name, &sug);
		dp_error_set(err, "no type '%s' in %s%s%s", name,
			     images.n ? base_name(images.v[0]->path) : base_name(path),
			     with_dwarf > 1 ? " or its libraries" : "", sug.p ? sug.p : "");
		dp_buf_free(&sug);
	}
	dp_strtab_free(&names);
	dp_vec_free(&images);
	if (own)
		dp_image_free(own);
	dp_decoder_free(d);
	dp_profile_close(p);
	return rc;
}
