#include "alloc_fns.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* Allocators and the wrappers programs and runtimes put around them. */
static const char *const builtin[] = {
    /* C library */
    "malloc",
    "calloc",
    "realloc",
    "reallocarray",
    "free",
    "aligned_alloc",
    "memalign",
    "posix_memalign",
    "valloc",
    "pvalloc",
    "__libc_*",
    "__GI_*",
    "_int_*",
    "strdup",
    "strndup",
    "__strdup",
    "__strndup",
    "asprintf",
    "vasprintf",
    "__vasprintf*",
    /* C++: operator new is handled by name; the standard library's allocators,
     * containers' growth and make_unique/make_shared are not the program's site */
    "std::*",
    "__gnu_cxx::*",
    /* Lua */
    "luaM_*",
    "l_alloc",
    "luaC_newobj",
    "luaC_newobjdt",
    /* SQLite */
    "sqlite3Malloc*",
    "sqlite3_malloc*",
    "sqlite3_realloc*",
    "sqlite3Realloc*",
    "sqlite3DbMalloc*",
    "sqlite3DbRealloc*",
    "sqlite3DbStrDup",
    "sqlite3DbStrNDup",
    "sqlite3DbSpanDup",
    "sqlite3MemMalloc",
    "sqlite3MemRealloc",
    "dbMallocRawFinish",
    "dbReallocFinish",
    "mallocWithAlarm",
    "sqlite3MallocZero",
    "sqlite3StrDup",
    "pcache1Alloc", /* the page cache's malloc (pages, the pager's scratch) */
    "sqlite3PageMalloc",
    "pcache1InitBulk", /* arenas: see below */
    "setupLookaside",
    /* CPython */
    "PyMem_*",
    "_PyMem_*",
    "PyObject_Malloc",
    "PyObject_Calloc",
    "PyObject_Realloc",
    "_PyObject_Malloc",
    "_PyObject_Calloc",
    "_PyObject_Realloc",
    "pymalloc_*",
    "_PyObject_GC_*",
    "PyObject_GC_*",
    "gc_alloc",
    "_PyObject_New*",
    "PyObject_Init*",
    "PyType_GenericAlloc",
    "_PyType_AllocNoTrack",
    "_PyObject_VirtualAlloc",
    "_PyObject_ArenaM*",
    "new_arena",
    "allocate_from_new_pool",
    /* glib */
    "g_malloc*",
    "g_malloc0*",
    "g_realloc*",
    "g_try_malloc*",
    "g_try_realloc*",
    "g_slice_*",
    "g_memdup*",
    "g_strdup",
    "g_strndup",
    /* xmalloc and friends (gnulib, binutils, git...) */
    "xmalloc",
    "xcalloc",
    "xrealloc",
    "xzalloc",
    "xstrdup",
    "xstrndup",
    "xmemdup",
    "xnmalloc",
    "x2realloc",
    "xreallocarray",
    "xmallocarray",
    "xcharalloc",
    /* jemalloc, tcmalloc */
    "je_*",
    "tc_*",
    "mallocx",
    "rallocx",
    "xallocx",
};

/* Allocators that take a big block and hand out pieces of it themselves:
 * the block is the arena, not a piece, so it is named by them rather than by
 * whichever request happened to need a new one. by_malloc: the blocks they
 * get from malloc are arenas too, not only their mappings. */
static const struct {
	const char *glob;
	bool by_malloc;
} arenas[] = {
    /* CPython's pymalloc (obmalloc.c): maps its arenas; its malloc is its
     * table of arenas */
    {"new_arena", false},
    /* SQLite: a connection's lookaside, the pool of its small allocations */
    {"setupLookaside", true},
    /* SQLite: a page cache's first pages, in one block */
    {"pcache1InitBulk", true},
};

bool dp_alloc_fn_is_arena(const char *plain, bool *by_malloc)
{
	for (size_t i = 0; i < sizeof(arenas) / sizeof(arenas[0]); i++)
		if (!fnmatch(arenas[i].glob, plain, 0)) {
			if (by_malloc)
				*by_malloc = arenas[i].by_malloc;
			return true;
		}
	return false;
}

void dp_alloc_fns_init(dp_alloc_fns *f)
{
	memset(f, 0, sizeof(*f));
	dp_hashmap_init(&f->known, 64);
}

void dp_alloc_fns_free(dp_alloc_fns *f)
{
	dp_vec_free_each(&f->globs, free);
	dp_hashmap_free(&f->known);
}

void dp_alloc_fns_add(dp_alloc_fns *f, const char *list)
{
	char *copy = dp_strdup(list), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (*t)
			dp_vec_push(&f->globs, dp_strdup(t));
	free(copy);
}

/* The name without template arguments, parameters or return type:
 * "std::unique_ptr<T> std::make_unique<T>(int)" -> "std::make_unique". */
void dp_alloc_fn_plain(const char *name, char *out, size_t cap)
{
	static const char anon[] = "(anonymous namespace)";
	size_t n = 0, start = 0;
	int depth = 0;

	for (const char *p = name; *p && n + sizeof(anon) < cap; p++) {
		bool op = n - start >= 8 && !memcmp(out + n - 8, "operator", 8);

		if (*p == '<' && !op) {
			depth++;
		} else if (*p == '>' && depth) {
			depth--;
		} else if (!depth) {
			if (*p == '(' && !strncmp(p, anon, sizeof(anon) - 1)) {
				memcpy(out + n, anon, sizeof(anon) - 1);
				n += sizeof(anon) - 1;
				p += sizeof(anon) - 2;
				continue;
			}
			if (*p == '(' && !op)
				break;
			if (*p == ' ' && !op) {
				start = n; /* what came before was a return type */
				continue;
			}
			out[n++] = *p;
		}
	}
	out[n] = 0;
	memmove(out, out + start, n - start + 1);
}

bool dp_alloc_fn_name_matches(const dp_alloc_fns *f, const char *name)
{
	char plain[512];

	if (!name || !*name)
		return false;
	dp_alloc_fn_plain(name, plain, sizeof(plain));
	if (!strncmp(plain, "operator new", 12) || !strncmp(plain, "operator delete", 15) ||
	    strstr(plain, "::operator new"))
		return true;
	for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++)
		if (!fnmatch(builtin[i], plain, 0))
			return true;
	for (size_t i = 0; i < f->globs.n; i++)
		if (!fnmatch(f->globs.v[i], plain, 0) || !fnmatch(f->globs.v[i], name, 0))
			return true;
	return false;
}

bool dp_alloc_fns_match(dp_alloc_fns *f, const dp_strtab *strs, uint32_t name)
{
	uint64_t v;
	bool m;

	if (!name)
		return false;
	if (dp_hashmap_get(&f->known, name, &v))
		return v == 1;
	m = dp_alloc_fn_name_matches(f, dp_strtab_get(strs, name));
	dp_hashmap_put(&f->known, name, m ? 1 : 2);
	return m;
}
