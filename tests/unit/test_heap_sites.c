/* Allocation sites past wrappers (annotate/alloc_fns.c), dataprof's own
 * code (annotate/special.c), and heap records packed by the recorder
 * (sampler/heap_pack.c) read back by the reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "annotate/alloc_fns.h"
#include "annotate/special.h"
#include "annotate/stack_height.h"
#include "dataprof/profile.h"
#include "sampler/heap_pack.h"
#include "synth_records.h"
#include "tu_group.h"

static void check_plain(const char *name, const char *want)
{
	char out[256];

	dp_alloc_fn_plain(name, out, sizeof(out));
	assert_string_equal(out, want);
}

static void test_plain_names(void **state)
{
	(void)state;
	check_plain("std::unique_ptr<Foo, std::default_delete<Foo> > std::make_unique<Foo, int>",
		    "std::make_unique");
	check_plain("operator new(unsigned long)", "operator new");
	check_plain("std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>",
		    "std::vector::_M_realloc_insert");
	check_plain("(anonymous namespace)::pool_get(int)", "(anonymous namespace)::pool_get");
	check_plain("luaM_malloc_", "luaM_malloc_");
}

static void test_matching(void **state)
{
	dp_alloc_fns f;

	(void)state;
	dp_alloc_fns_init(&f);
	assert_true(dp_alloc_fn_name_matches(&f, "luaM_malloc_"));
	assert_true(dp_alloc_fn_name_matches(&f, "luaC_newobj"));
	assert_false(dp_alloc_fn_name_matches(&f, "luaH_new"));
	assert_true(dp_alloc_fn_name_matches(&f, "operator new"));
	assert_true(dp_alloc_fn_name_matches(
	    &f,
	    "std::unique_ptr<Account, std::default_delete<Account> > std::make_unique<Account>"));
	assert_true(dp_alloc_fn_name_matches(&f, "sqlite3DbMallocRawNN"));
	assert_true(dp_alloc_fn_name_matches(&f, "PyObject_Malloc"));
	/* CPython 3.11's wrappers and its debug build's hooks; not the
	 * functions that make objects */
	assert_true(dp_alloc_fn_name_matches(&f, "_PyObject_Malloc"));
	assert_true(dp_alloc_fn_name_matches(&f, "PyMem_Realloc"));
	assert_true(dp_alloc_fn_name_matches(&f, "_PyMem_DebugMalloc"));
	assert_true(dp_alloc_fn_name_matches(&f, "_PyMem_DebugRawAlloc"));
	assert_true(dp_alloc_fn_name_matches(&f, "_PyObject_GC_NewVar"));
	assert_true(dp_alloc_fn_name_matches(&f, "gc_alloc"));
	assert_true(dp_alloc_fn_name_matches(&f, "_PyObject_VirtualAlloc"));
	assert_false(dp_alloc_fn_name_matches(&f, "new_keys_object"));
	assert_false(dp_alloc_fn_name_matches(&f, "PyList_New"));
	assert_false(dp_alloc_fn_name_matches(&f, "PyUnicode_New"));
	/* pymalloc's arena: its mapping holds pieces, named as the arena; its
	 * malloc is its table of arenas */
	bool by_malloc = true;
	assert_true(dp_alloc_fn_is_arena("new_arena", &by_malloc));
	assert_false(by_malloc);
	assert_false(dp_alloc_fn_is_arena("_PyObject_Malloc", NULL));
	assert_false(dp_alloc_fn_is_arena("_PyObject_VirtualAlloc", NULL));
	/* issue 15: SQLite's pools, from malloc: a connection's lookaside and
	 * a page cache's first pages are arenas, stepped over as allocator
	 * code to be named so; the page cache's own malloc (pcache1Alloc) is
	 * allocator code, its caller (pcache1AllocPage) the site */
	assert_true(dp_alloc_fn_is_arena("setupLookaside", &by_malloc));
	assert_true(by_malloc);
	assert_true(dp_alloc_fn_is_arena("pcache1InitBulk", &by_malloc));
	assert_true(by_malloc);
	assert_true(dp_alloc_fn_name_matches(&f, "setupLookaside"));
	assert_true(dp_alloc_fn_name_matches(&f, "pcache1InitBulk"));
	assert_true(dp_alloc_fn_name_matches(&f, "pcache1Alloc"));
	assert_true(dp_alloc_fn_name_matches(&f, "sqlite3PageMalloc"));
	assert_false(dp_alloc_fn_name_matches(&f, "pcache1AllocPage"));
	assert_false(dp_alloc_fn_is_arena("pcache1Alloc", NULL));
	assert_false(dp_alloc_fn_is_arena("sqlite3DbMallocRawNN", NULL));
	assert_true(dp_alloc_fn_name_matches(&f, "xmalloc"));
	assert_false(dp_alloc_fn_name_matches(&f, "main"));
	assert_false(dp_alloc_fn_name_matches(&f, "make_widget"));
	/* record --alloc-fn: the program's own */
	dp_alloc_fns_add(&f, "make_*,pool_get");
	assert_true(dp_alloc_fn_name_matches(&f, "make_widget"));
	assert_true(dp_alloc_fn_name_matches(&f, "pool_get"));
	assert_false(dp_alloc_fn_name_matches(&f, "pool_put"));
	assert_false(dp_alloc_fn_name_matches(&f, NULL));
	dp_alloc_fns_free(&f);
}

static void test_own_code(void **state)
{
	(void)state;
	assert_true(dp_is_own_code("/usr/lib/dataprof/libdataprof_heap.so", NULL));
	assert_true(dp_is_own_code("/opt/x/libdataprof_collector.so", "mark_mono"));
	assert_true(dp_is_own_code("/usr/bin/app", "dp_markers_init"));
	assert_true(dp_is_own_code(NULL, "dp_marker_define"));
	assert_false(dp_is_own_code("/lib/x86_64-linux-gnu/libc.so.6", "__libc_write"));
	assert_false(dp_is_own_code("/usr/bin/app", "dp_table_find")); /* a program's dp_ */
	assert_false(dp_is_own_code(NULL, NULL));
}

static int64_t height_at(const dp_func_table *t, uint64_t off)
{
	int64_t h = -1;

	assert_true(dp_stack_height(t, 0x1000 + off, &h));
	return h;
}

/* issue 15: the frame's height at a call placed after an early return
 * whose epilogue has an instruction scheduled into it (GCC -O2, a
 * frame-pointer function: unordered_map's operator[] allocating its node).
 * The height there is the branch's that jumps to it, not the
 * mid-epilogue one: it was 32, and the caller's return address was looked
 * for 3 words too low, so the hash nodes were named by new_allocator.h. */
static void test_stack_height_after_return(void **state)
{
	static const uint8_t code[] = {
	    0x55,		       /* 0x00 push rbp */
	    0x48, 0x89, 0xe5,	       /* 0x01 mov rbp, rsp */
	    0x41, 0x57,		       /* 0x04 push r15 */
	    0x53,		       /* 0x06 push rbx */
	    0x48, 0x83, 0xec, 0x18,    /* 0x07 sub rsp, 0x18 */
	    0x48, 0x85, 0xff,	       /* 0x0b test rdi, rdi */
	    0x74, 0x10,		       /* 0x0e je 0x20 */
	    0x48, 0x83, 0xc4, 0x18,    /* 0x10 add rsp, 0x18 */
	    0x48, 0x83, 0xc0, 0x10,    /* 0x14 add rax, 0x10: scheduled into the epilogue */
	    0x5b,		       /* 0x18 pop rbx */
	    0x41, 0x5f,		       /* 0x19 pop r15 */
	    0x5d,		       /* 0x1b pop rbp */
	    0xc3,		       /* 0x1c ret */
	    0x0f, 0x1f, 0x00,	       /* 0x1d nop: padding */
	    0xbf, 0x18, 0,    0,    0, /* 0x20 mov edi, 0x18 */
	    0xe8, 0,	0,    0,    0, /* 0x25 call */
	    0xc3,		       /* 0x2a ret */
	};
	dp_arch *arch = dp_arch_x86_64();
	dp_func_table *t = dp_func_table_from_bytes(arch, code, sizeof(code), 0x1000);

	(void)state;
	assert_int_equal(height_at(t, 0x00), 8);
	assert_int_equal(height_at(t, 0x0b), 56);
	assert_int_equal(height_at(t, 0x18), 32); /* mid-epilogue */
	assert_int_equal(height_at(t, 0x20), 56);
	assert_int_equal(height_at(t, 0x25), 56);
	dp_func_table_free(t);
	dp_arch_free(arch);
}

/* ALLOC records through the packer into a profile, read back one by one. */
static void test_pack_round_trip(void **state)
{
	char *path = tu_path("packed.dprof");
	dp_error err = {{0}};
	dp_heap_pack k;
	dp_writer w;
	dp_profile *p;
	dp_record r;
	size_t n = 0, frees = 0;
	struct stat sb;
	enum { N = 20000 };

	(void)state;
	assert_int_equal(dp_writer_open(&w, path, 1000, 2000, &err), 0);
	dp_writer_add_meta(&w, "version", "test");
	dp_heap_pack_init(&k);
	for (uint64_t i = 0; i < N; i++) {
		unsigned char rec[sizeof(struct dp_rec_alloc) + 16];
		struct dp_rec_free f;
		uint64_t frames[2] = {0x401000 + (i & 7), 0x402000 | (6ull << 48)};
		uint64_t time = 5000 + i * 10, addr = 0x10000 + i * 64;

		dp_heap_pack_add(&k, rec, synth_alloc(rec, time, addr, 48, frames, 2), &w);
		if (i & 1) {
			SYNTH_REC_START(f, DP_REC_FREE, time + 5, 42, 42);
			f.addr = addr;
			dp_heap_pack_add(&k, &f, sizeof(f), &w);
		}
		if (!(i & 1023))
			dp_writer_flush(&w);
	}
	dp_heap_pack_flush(&k, &w);
	assert_int_equal(dp_writer_close(&w), 0);
	assert_true(k.packed * 5 < k.raw);
	dp_heap_pack_free(&k);
	assert_int_equal(stat(path, &sb), 0);
	assert_true((uint64_t)sb.st_size * 5 < (uint64_t)N * 80);

	p = dp_profile_open(path, &err);
	assert_non_null(p);
	for (int pass = 0; pass < 2; pass++, n = frees = 0) {
		while (dp_profile_next(p, &r) > 0) {
			if (r.kind == DP_R_ALLOC) {
				assert_int_equal(r.alloc->addr, 0x10000 + n * 64);
				assert_int_equal(r.alloc->time, 5000 + n * 10);
				assert_int_equal(r.alloc->nframes, 2);
				assert_int_equal(r.alloc->frames[1], 0x402000 | (6ull << 48));
				n++;
			}
			frees += r.kind == DP_R_FREE;
		}
		assert_int_equal(n, N);
		assert_int_equal(frees, N / 2);
		assert_int_equal(dp_profile_status(p)->unknown_records, 0);
		dp_profile_rewind(p); /* read twice: the annotator's side-band pass, then samples */
	}
	dp_profile_close(p);
	free(path);
}

/* A damaged PACKED record is skipped, counted, and what follows is read. */
static void test_pack_damaged(void **state)
{
	char *path = tu_path("damaged.dprof");
	dp_error err = {{0}};
	dp_writer w;
	dp_profile *p;
	dp_record r;
	struct {
		struct dp_rec_packed k;
		unsigned char junk[24];
	} bad;
	size_t metas = 0;

	(void)state;
	memset(&bad, 0xa5, sizeof(bad));
	bad.k.h.type = DP_REC_PACKED;
	bad.k.h.misc = 0;
	bad.k.h.size = sizeof(bad);
	bad.k.raw_size = 4096;
	bad.k.packed_size = sizeof(bad.junk);
	assert_int_equal(dp_writer_open(&w, path, 1000, 2000, &err), 0);
	dp_writer_add(&w, &bad, sizeof(bad));
	bad.k.raw_size = 1u << 30; /* more than any chunk */
	dp_writer_add(&w, &bad, sizeof(bad));
	dp_writer_add_meta(&w, "after", "yes");
	assert_int_equal(dp_writer_close(&w), 0);
	p = dp_profile_open(path, &err);
	assert_non_null(p);
	while (dp_profile_next(p, &r) > 0)
		metas += r.kind == DP_R_META;
	assert_int_equal(metas, 1);
	assert_string_equal(dp_profile_meta(p, "after"), "yes");
	assert_int_equal(dp_profile_status(p)->unknown_records, 2);
	dp_profile_close(p);
	free(path);
}

TU_MAIN(NULL, tu_teardown, test_plain_names, test_matching, test_own_code, test_pack_round_trip,
	test_pack_damaged, test_stack_height_after_return)
