/* annotate/heap_index.c: which block held an address at a time, against a
 * brute-force answer over every block, for blocks of every size class,
 * addresses reused, processes side by side and samples out of order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "annotate/heap_index.h"
#include "dataprof/format.h"
#include "synth_records.h"
#include "tu_group.h"
#include "tu_rand.h"

static void observe_alloc_kind(dp_heap_index *h, uint32_t pid, uint32_t tid, uint64_t addr,
			       uint64_t size, uint64_t t, uint32_t kind)
{
	/* the record and its one frame, 8-byte aligned */
	uint64_t buf[sizeof(struct dp_rec_alloc) / 8 + 1];
	struct dp_rec_alloc *a = (struct dp_rec_alloc *)buf;
	dp_record r;

	SYNTH_REC_START(*a, DP_REC_ALLOC, t, pid, tid);
	a->h.size = sizeof(buf);
	a->addr = addr;
	a->size = size;
	a->kind = kind;
	a->nframes = 1;
	a->frames[0] = 0x401000 + size;
	memset(&r, 0, sizeof(r));
	r.kind = DP_R_ALLOC;
	r.alloc = a;
	dp_heap_observe(h, &r);
}

static void observe_alloc(dp_heap_index *h, uint32_t pid, uint64_t addr, uint64_t size, uint64_t t)
{
	observe_alloc_kind(h, pid, pid, addr, size, t, DP_ALLOC_MALLOC);
}

static void observe_free_kind(dp_heap_index *h, uint32_t pid, uint32_t tid, uint64_t addr,
			      uint64_t t, uint32_t kind)
{
	struct dp_rec_free f;
	dp_record r;

	SYNTH_REC_START(f, DP_REC_FREE, t, pid, tid);
	f.addr = addr;
	f.kind = kind;
	memset(&r, 0, sizeof(r));
	r.kind = DP_R_FREE;
	r.free_rec = &f;
	dp_heap_observe(h, &r);
}

static void observe_free(dp_heap_index *h, uint32_t pid, uint64_t addr, uint64_t t)
{
	observe_free_kind(h, pid, pid, addr, t, 0);
}

static void observe_exec(dp_heap_index *h, uint32_t pid, uint64_t t)
{
	dp_record r;

	memset(&r, 0, sizeof(r));
	r.kind = DP_R_COMM;
	r.pid = r.tid = pid;
	r.time = t;
	r.has_time = true;
	r.comm.comm = "next";
	r.comm.exec = true;
	dp_heap_observe(h, &r);
}

/* A program's blocks as the tracker saw them: the truth. */
struct truth {
	uint32_t pid;
	uint64_t addr, size, t_alloc, t_free;
};

static uint64_t rnd(uint64_t *s)
{
	return tu_xorshift64(s);
}

/* Sizes from 8 bytes to 300 MiB: every level of the index, and blocks
 * that cross cell boundaries. */
static uint64_t some_size(uint64_t *s)
{
	switch (rnd(s) % 16) {
	case 0:
		return 4096 + rnd(s) % (1u << 20);
	case 1:
		return (1u << 20) + rnd(s) % (32u << 20);
	case 2:
		return rnd(s) % 4 == 0 ? (300u << 20) : 65536 + rnd(s) % 4096;
	default:
		return 8 + rnd(s) % 200;
	}
}

static bool overlaps(const struct truth *v, size_t n, uint32_t pid, uint64_t addr, uint64_t size)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid && v[i].t_free == UINT64_MAX && addr < v[i].addr + v[i].size &&
		    v[i].addr < addr + size)
			return true;
	return false;
}

/* The block that held (pid, addr) at t, by looking at every one. */
static const struct truth *brute_find(const struct truth *v, size_t n, uint32_t pid, uint64_t addr,
				      uint64_t t)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid && addr >= v[i].addr && addr - v[i].addr < v[i].size &&
		    v[i].t_alloc <= t && t < v[i].t_free)
			return &v[i];
	return NULL;
}

#define NBLOCKS 3000

/* A random life of two processes: allocations at addresses reused after
 * their frees, in a small range so that cells hold many blocks; then
 * lookups at random times (the index is replayed forward and asked about
 * the past), every answer the brute force's. */
static void test_random_against_brute_force(void **state)
{
	struct truth *v = calloc(NBLOCKS, sizeof(*v));
	dp_heap_index h;
	uint64_t s = 0x9e3779b97f4a7c15ull, t = 1000;
	size_t n = 0, asked = 0, found = 0;

	(void)state;
	dp_heap_init(&h);
	while (n < NBLOCKS) {
		t += 1 + rnd(&s) % 50;
		if (rnd(&s) % 3 == 0) {
			/* free a live block, if there is one near */
			size_t i = rnd(&s) % (n ? n : 1);

			if (n && v[i].t_free == UINT64_MAX) {
				v[i].t_free = t;
				observe_free(&h, v[i].pid, v[i].addr, t);
			}
			continue;
		}
		uint32_t pid = 100 + (uint32_t)(rnd(&s) % 2);
		uint64_t size = some_size(&s);
		/* small blocks in 64 KiB, so that they meet; large ones in 1 GiB */
		uint64_t base = size < 4096 ? 0x5500000000ull : 0x7f0000000000ull;
		uint64_t span = size < 4096 ? 65536 : (1ull << 30);
		uint64_t addr = base + (rnd(&s) % span & ~15ull);

		if (overlaps(v, n, pid, addr, size))
			continue;
		v[n] = (struct truth){pid, addr, size, t, UINT64_MAX};
		observe_alloc(&h, pid, addr, size, t);
		n++;
	}
	dp_heap_finish(&h, 1);
	for (int q = 0; q < 200000; q++) {
		const struct truth *want;
		const dp_heap_block *got;
		/* an address in or near a block, at a time in or near its life */
		const struct truth *near = &v[rnd(&s) % n];
		uint64_t addr = near->addr + rnd(&s) % (near->size + 64) - 32;
		uint64_t end = near->t_free == UINT64_MAX ? t : near->t_free;
		uint64_t at = near->t_alloc + rnd(&s) % (end - near->t_alloc + 100) - 50;
		uint32_t pid = rnd(&s) % 8 ? near->pid : 201 - near->pid;

		want = brute_find(v, n, pid, addr, at);
		got = dp_heap_find(&h, pid, addr, at);
		asked++;
		if (!want) {
			assert_null(got);
			continue;
		}
		found++;
		assert_non_null(got);
		assert_int_equal(got->addr, want->addr);
		assert_int_equal(got->t_alloc, want->t_alloc);
		assert_int_equal(got->pid, want->pid);
	}
	/* the test asks about blocks, not only about empty space */
	assert_true(found * 4 > asked);
	dp_heap_free(&h);
	free(v);
}

/* The block holding addr at t, asserted to be one. */
static const dp_heap_block *found(dp_heap_index *h, uint32_t pid, uint64_t addr, uint64_t t)
{
	const dp_heap_block *b = dp_heap_find(h, pid, addr, t);

	assert_non_null(b);
	return b;
}

/* A free the tracker missed leaves two blocks made at one address: malloc
 * gave it again, so the older one ended when the newer one was made. */
static void test_missed_free_newest_wins(void **state)
{
	dp_heap_index h;

	(void)state;
	dp_heap_init(&h);
	observe_alloc(&h, 7, 0x1000, 64, 10);
	observe_alloc(&h, 7, 0x1000, 32, 20); /* the first's free was missed */
	observe_alloc(&h, 7, 0x2000, 16, 30);
	observe_free(&h, 7, 0x2000, 40);
	dp_heap_finish(&h, 1);
	assert_int_equal(found(&h, 7, 0x1010, 15)->t_alloc, 10);
	assert_int_equal(found(&h, 7, 0x1010, 25)->t_alloc, 20);
	/* past the newer one's end: the older one's memory, but it ended */
	assert_int_equal(found(&h, 7, 0x1030, 19)->t_alloc, 10);
	assert_null(dp_heap_find(&h, 7, 0x1030, 25));
	assert_null(dp_heap_find(&h, 7, 0x2000, 45));
	/* asked about the past after the replay went beyond the free */
	assert_int_equal(found(&h, 7, 0x2008, 35)->t_alloc, 30);
	assert_null(dp_heap_find(&h, 8, 0x1010, 25));
	dp_heap_free(&h);
}

/* A ring's FREE takes its thread's next allocation's time (chan_ring.h):
 * thread 2 frees 0x1000 at 18, its FREE says 30, and thread 3 got 0x1000
 * again at 20. The FREE is the first block's: the second lives on, and
 * the first ended at 20. Thread 3's own FREE of its block, timed late as
 * well, is its block's; so is a FREE by the thread that made the live
 * block, when the block before it ended without one. */
static void test_late_free_of_another_thread(void **state)
{
	dp_heap_index h;
	const dp_heap_block *b;

	(void)state;
	dp_heap_init(&h);
	observe_alloc_kind(&h, 7, 2, 0x1000, 64, 10, DP_ALLOC_MALLOC);
	observe_alloc_kind(&h, 7, 5, 0x1100, 64, 12, DP_ALLOC_MALLOC); /* same cell */
	observe_alloc_kind(&h, 7, 3, 0x1000, 64, 20, DP_ALLOC_MALLOC);
	observe_free_kind(&h, 7, 5, 0x1100, 26, 0);
	observe_free_kind(&h, 7, 2, 0x1000, 30, 0);
	observe_alloc_kind(&h, 7, 2, 0x3000, 64, 30, DP_ALLOC_MALLOC);
	observe_free_kind(&h, 7, 3, 0x1000, 50, 0);
	/* thread 4: a missed free, then its own FREE of the newer block */
	observe_alloc_kind(&h, 7, 4, 0x5000, 64, 10, DP_ALLOC_MALLOC);
	observe_alloc_kind(&h, 7, 4, 0x5000, 64, 20, DP_ALLOC_MALLOC);
	observe_free_kind(&h, 7, 4, 0x5000, 30, 0);
	/* across sizes: thread 8's 1 MiB block (in a cell of another grid)
	 * takes the address of thread 6's small one, whose FREE is late */
	observe_alloc_kind(&h, 7, 6, 0x100000, 64, 10, DP_ALLOC_MALLOC);
	observe_alloc_kind(&h, 7, 8, 0x100000, 1 << 20, 20, DP_ALLOC_MALLOC);
	observe_free_kind(&h, 7, 6, 0x100000, 30, 0);
	observe_free_kind(&h, 7, 8, 0x100000, 50, 0);
	dp_heap_finish(&h, 1);
	assert_int_equal(h.hist->unmatched_frees, 0);
	assert_int_equal(found(&h, 7, 0x1008, 15)->tid, 2);
	assert_int_equal(found(&h, 7, 0x100008, 15)->tid, 6);
	for (uint64_t t = 20; t < 50; t += 5) {
		b = found(&h, 7, 0x1008, t);
		assert_int_equal(b->tid, 3);
		assert_int_equal(b->t_free, 50);
		assert_int_equal(found(&h, 7, 0x100008, t)->tid, 8);
	}
	assert_null(dp_heap_find(&h, 7, 0x1008, 50));
	/* asked about the past after the replay went beyond both ends */
	b = found(&h, 7, 0x1008, 19);
	assert_int_equal(b->tid, 2);
	assert_int_equal(b->t_free, 20);
	assert_int_equal(found(&h, 7, 0x1008, 21)->tid, 3);
	/* freed at 26, before the first block's FREE at 30 but after its end */
	assert_int_equal(found(&h, 7, 0x1108, 24)->tid, 5);
	assert_int_equal(found(&h, 7, 0x5008, 25)->t_alloc, 20);
	assert_null(dp_heap_find(&h, 7, 0x5008, 31));
	dp_heap_free(&h);
}

/* An exec ends every block of its process: blocks never freed, and one
 * whose FREE comes after it (a ring FREE still to stamp when the image
 * went); the new image's blocks and another process's are not touched. */
static void test_exec_ends_blocks(void **state)
{
	dp_heap_index h;
	const dp_heap_block *b;

	(void)state;
	dp_heap_init(&h);
	observe_alloc(&h, 7, 0x1000, 64, 10);
	observe_alloc(&h, 7, 0x200000, 1 << 20, 12);
	observe_alloc(&h, 8, 0x1000, 64, 14);
	observe_exec(&h, 7, 20);
	observe_exec(&h, 9, 21); /* another process's: nothing of 7 or 8 */
	observe_alloc(&h, 7, 0x3000, 64, 30);
	observe_free(&h, 7, 0x1000, 40); /* the old image's, late */
	dp_heap_finish(&h, 1);
	assert_int_equal(found(&h, 7, 0x1008, 15)->t_alloc, 10);
	assert_int_equal(found(&h, 7, 0x200008, 19)->t_alloc, 12);
	for (uint64_t t = 20; t < 60; t += 5) {
		assert_null(dp_heap_find(&h, 7, 0x1008, t));
		assert_null(dp_heap_find(&h, 7, 0x200008, t));
		assert_int_equal(found(&h, 8, 0x1008, t)->pid, 8);
	}
	b = found(&h, 7, 0x3008, 35);
	assert_int_equal(b->t_alloc, 30);
	assert_int_equal(b->t_free, UINT64_MAX);
	/* the past, asked after the replay went beyond the exec */
	b = found(&h, 7, 0x1008, 11);
	assert_int_equal(b->t_free, 20);
	dp_heap_free(&h);
}

/* Two readers of one history (a parallel report's parts), each at its own
 * place in time: the same answers as the one that read the records. */
static void test_shared_history(void **state)
{
	dp_heap_index a, b;
	const dp_heap_block *x;

	(void)state;
	dp_heap_init(&a);
	dp_heap_init(&b);
	for (uint64_t i = 0; i < 100; i++) {
		observe_alloc(&a, 9, 0x10000 + i * 64, 48, 100 + i * 10);
		if (i % 2)
			observe_free(&a, 9, 0x10000 + i * 64, 105 + i * 10);
	}
	dp_heap_finish(&a, 1);
	dp_heap_share(&b, &a);
	assert_false(dp_heap_empty(&b));
	/* b far ahead of a, then a ahead of b */
	x = dp_heap_find(&b, 9, 0x10000 + 98 * 64 + 8, 100 + 98 * 10 + 1);
	assert_non_null(x);
	assert_int_equal(x->addr, 0x10000 + 98 * 64);
	x = dp_heap_find(&a, 9, 0x10000 + 3 * 64, 100 + 3 * 10 + 2);
	assert_non_null(x);
	assert_int_equal(x->t_free, 105 + 3 * 10);
	assert_null(dp_heap_find(&a, 9, 0x10000 + 3 * 64, 100 + 3 * 10 + 6));
	x = dp_heap_find(&b, 9, 0x10000 + 3 * 64, 100 + 3 * 10 + 2);
	assert_non_null(x);
	assert_int_equal(x->addr, 0x10000 + 3 * 64);
	/* the history outlives the reader that made it */
	dp_heap_free(&a);
	x = dp_heap_find(&b, 9, 0x10000 + 99 * 64, 5000);
	assert_null(x);
	x = dp_heap_find(&b, 9, 0x10000 + 98 * 64, 5000);
	assert_non_null(x);
	dp_heap_free(&b);
}

/* realloc's FREE (kind DP_ALLOC_REALLOC) and its new block, one thread's
 * records in a row: the new block knows the one it came from, moved or
 * in place, even at one time; a plain free before a realloc of a block
 * never recorded, or another thread's, links nothing. */
static void test_realloc_origin(void **state)
{
	dp_heap_index h;
	const dp_heap_block *b, *o;

	(void)state;
	dp_heap_init(&h);
	observe_alloc(&h, 7, 0x1000, 16, 10);				 /* 0 */
	observe_free_kind(&h, 7, 7, 0x1000, 20, DP_ALLOC_REALLOC);	 /* moved: */
	observe_alloc_kind(&h, 7, 7, 0x2000, 64, 21, DP_ALLOC_REALLOC);	 /* 1 */
	observe_free_kind(&h, 7, 7, 0x2000, 30, DP_ALLOC_REALLOC);	 /* in place, */
	observe_alloc_kind(&h, 7, 7, 0x2000, 128, 30, DP_ALLOC_REALLOC); /* 2: one time */
	observe_alloc(&h, 7, 0x9000, 16, 40);				 /* 3 */
	observe_free(&h, 7, 0x9000, 41);				 /* a free, then */
	observe_alloc_kind(&h, 7, 7, 0x5000, 32, 42, DP_ALLOC_REALLOC);	 /* 4: not its */
	observe_alloc(&h, 7, 0x6000, 16, 50);				 /* 5 */
	observe_free_kind(&h, 7, 8, 0x6000, 51, DP_ALLOC_REALLOC);	 /* thread 8's, */
	observe_alloc_kind(&h, 7, 7, 0x7000, 32, 52, DP_ALLOC_REALLOC);	 /* 6: 7's */
	/* the sim tool's order: the new block, then the old one's FREE */
	observe_alloc(&h, 7, 0xa000, 16, 60);				 /* 7 */
	observe_alloc_kind(&h, 7, 7, 0xb000, 64, 61, DP_ALLOC_REALLOC);	 /* 8 */
	observe_free_kind(&h, 7, 7, 0xa000, 61, DP_ALLOC_REALLOC);
	/* made and freed within one tick of the clock: gone after it */
	observe_alloc(&h, 7, 0xc000, 16, 70);
	observe_free(&h, 7, 0xc000, 70);
	/* another process's batch, drained late: the history must be sorted,
	 * the ties above kept in their order */
	observe_alloc(&h, 8, 0xd000, 16, 5);
	dp_heap_finish(&h, 1);

	b = dp_heap_find(&h, 7, 0x2010, 25);
	assert_non_null(b);
	o = dp_heap_origin(&h, b);
	assert_non_null(o);
	assert_int_equal(o->addr, 0x1000);
	assert_int_equal(o->t_free, 20);
	/* in place at one time: the FREE goes first, the new block lives on */
	b = dp_heap_find(&h, 7, 0x2070, 35);
	assert_non_null(b);
	assert_int_equal(b->size, 128);
	assert_int_equal(b->t_free, UINT64_MAX);
	o = dp_heap_origin(&h, b);
	assert_non_null(o);
	assert_int_equal(o->size, 64);
	assert_int_equal(o->t_free, 30);
	assert_non_null(dp_heap_origin(&h, o));
	b = dp_heap_find(&h, 7, 0x5000, 45);
	assert_non_null(b);
	assert_null(dp_heap_origin(&h, b));
	b = dp_heap_find(&h, 7, 0x7000, 55);
	assert_non_null(b);
	assert_null(dp_heap_origin(&h, b));
	assert_null(dp_heap_origin(&h, dp_heap_find(&h, 7, 0x1000, 15)));
	b = dp_heap_find(&h, 7, 0xb008, 65);
	assert_non_null(b);
	o = dp_heap_origin(&h, b);
	assert_non_null(o);
	assert_int_equal(o->addr, 0xa000);
	assert_null(dp_heap_find(&h, 7, 0xa000, 65));
	assert_null(dp_heap_find(&h, 7, 0xc000, 75));
	assert_non_null(dp_heap_find(&h, 8, 0xd000, 75));
	assert_int_equal(h.hist->unmatched_frees, 0);
	dp_heap_free(&h);
}

/* One random history of three processes, two threads each: blocks at
 * reused addresses, frees of blocks never seen, reallocs moved and in
 * place in both orders; finished with `threads` threads. */
static void random_history(dp_heap_index *h, unsigned threads)
{
	uint64_t s = 0x2545f4914f6cdd1dull, t = 1;
	uint64_t live[3][64] = {{0}}; /* per process, slot -> address (0: none) */

	dp_heap_init(h);
	for (int i = 0; i < 20000; i++) {
		uint32_t p = (uint32_t)(rnd(&s) % 3), pid = 300 + p, tid = pid + 1000 * (i & 1);
		unsigned slot = (unsigned)(rnd(&s) % 64);
		uint64_t addr = 0x10000 + (uint64_t)slot * 4096 + p, r = rnd(&s) % 8;

		t += rnd(&s) % 3; /* ties too */
		if (r == 0) {
			observe_free(h, pid, 0x900000 + rnd(&s) % 4096, t); /* never seen */
		} else if (live[p][slot] && r < 4) {
			observe_free(h, pid, live[p][slot], t);
			live[p][slot] = 0;
		} else if (live[p][slot] && r < 6) {
			/* realloc: moved to the next slot if free, else in place */
			unsigned to = (slot + 1) % 64;
			bool in_place = live[p][to] != 0;
			uint64_t dst = in_place ? live[p][slot] : 0x10000 + (uint64_t)to * 4096 + p;

			if (r == 4) {
				observe_free_kind(h, pid, tid, live[p][slot], t, DP_ALLOC_REALLOC);
				observe_alloc_kind(h, pid, tid, dst, 64, t, DP_ALLOC_REALLOC);
			} else { /* the sim tool's order */
				observe_alloc_kind(h, pid, tid, dst, 64, t, DP_ALLOC_REALLOC);
				observe_free_kind(h, pid, tid, live[p][slot], t, DP_ALLOC_REALLOC);
			}
			live[p][slot] = 0;
			live[p][in_place ? slot : to] = dst;
		} else if (!live[p][slot]) {
			observe_alloc(h, pid, addr, 16 + rnd(&s) % 512, t);
			live[p][slot] = addr;
		}
	}
	dp_heap_finish(h, threads);
}

/* The frees matched in shares, in threads: the same blocks, lives, origins
 * and events for any number of threads. */
static void test_threads_same(void **state)
{
	static const unsigned threads[] = {2, 3, 8, 100};
	dp_heap_index one, many;
	size_t origins = 0, freed = 0;

	(void)state;
	random_history(&one, 1);
	for (size_t b = 0; b < one.hist->blocks.n; b++) {
		origins += one.hist->blocks.v[b].origin != UINT32_MAX;
		freed += one.hist->blocks.v[b].t_free != UINT64_MAX;
	}
	/* the history has all it should */
	assert_true(origins > 100);
	assert_true(freed > 1000);
	assert_true(one.hist->unmatched_frees > 100);
	for (size_t k = 0; k < DP_ARRAY_LEN(threads); k++) {
		random_history(&many, threads[k]);
		assert_int_equal(many.hist->blocks.n, one.hist->blocks.n);
		for (size_t b = 0; b < one.hist->blocks.n; b++) {
			assert_int_equal(many.hist->blocks.v[b].t_free,
					 one.hist->blocks.v[b].t_free);
			assert_int_equal(many.hist->blocks.v[b].origin,
					 one.hist->blocks.v[b].origin);
		}
		assert_int_equal(many.hist->ev.n, one.hist->ev.n);
		assert_memory_equal(many.hist->ev.v, one.hist->ev.v,
				    one.hist->ev.n * sizeof(*one.hist->ev.v));
		assert_int_equal(many.hist->unmatched_frees, one.hist->unmatched_frees);
		dp_heap_free(&many);
	}
	dp_heap_free(&one);
}

/* A history longer than the chunks its vectors are faulted in by (heap_index.c,
 * PREFAULT): every block and event where it belongs across them. */
static void test_long_history(void **state)
{
	enum { N = 100000 };
	dp_heap_index h;

	(void)state;
	dp_heap_init(&h);
	for (uint64_t i = 0; i < N; i++) {
		observe_alloc(&h, 5, 0x100000 + i * 32, 24, 10 + 2 * i);
		if (i % 3)
			observe_free(&h, 5, 0x100000 + i * 32, 11 + 2 * i);
	}
	dp_heap_finish(&h, 1);
	assert_int_equal(h.hist->blocks.n, N);
	assert_int_equal(h.hist->ev.n, N + N - (N + 2) / 3);
	for (uint64_t i = 0; i < N; i += 997) {
		const dp_heap_block *b = dp_heap_find(&h, 5, 0x100000 + i * 32 + 8, 10 + 2 * i);

		assert_non_null(b);
		assert_int_equal(b->t_alloc, 10 + 2 * i);
		assert_int_equal(b->t_free, i % 3 ? 11 + 2 * i : UINT64_MAX);
	}
	dp_heap_free(&h);
}

TU_MAIN(NULL, NULL, test_random_against_brute_force, test_missed_free_newest_wins,
	test_late_free_of_another_thread, test_exec_ends_blocks, test_shared_history,
	test_realloc_origin, test_threads_same, test_long_history)
