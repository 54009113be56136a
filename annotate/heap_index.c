#include "heap_index.h"

#include <stdlib.h>
#include <string.h>

#define PAGE_SHIFT  12
#define LARGE_PAGES 16 /* blocks over 64 KiB go to the scanned list */
#define WINDOW_NS   2000000000ull
#define NIL	    UINT32_MAX
#define CHAIN_PAGE  8192 /* words: 64 KiB */

static uint64_t key_of(uint32_t pid, uint64_t x)
{
	return ((uint64_t)pid << 40) ^ x;
}

void dp_heap_init(dp_heap_index *h)
{
	memset(h, 0, sizeof(*h));
	dp_hashmap_init(&h->live, 1024);
	dp_hashmap_init(&h->pages, 1024);
	dp_hashmap_init(&h->chain_of, 1024);
	h->window = WINDOW_NS;
}

void dp_heap_free(dp_heap_index *h)
{
	dp_vec_free(&h->blocks);
	free(h->ev);
	dp_hashmap_free(&h->live);
	dp_hashmap_free(&h->pages);
	dp_vec_free(&h->links);
	dp_vec_free(&h->large);
	for (size_t i = 0; i < h->chain_pages.n; i++)
		free(h->chain_pages.v[i]);
	dp_vec_free(&h->chain_pages);
	dp_hashmap_free(&h->chain_of);
}

static void push_event(dp_heap_index *h, uint64_t t, uint32_t block, uint32_t pid, uint64_t addr)
{
	if (h->nev == h->evcap) {
		h->evcap = h->evcap ? h->evcap * 2 : 1024;
		h->ev = dp_realloc(h->ev, h->evcap * sizeof(*h->ev));
	}
	h->ev[h->nev].time = t;
	h->ev[h->nev].addr = addr;
	h->ev[h->nev].block = block;
	h->ev[h->nev].pid = pid;
	h->nev++;
}

/* The one copy of a call chain: a program makes millions of blocks from a
 * few thousand chains, so blocks share them (8 words each otherwise). The
 * length is the word before the chain. */
static const uint64_t *intern_chain(dp_heap_index *h, const uint64_t *f, uint32_t n)
{
	uint64_t k = 1469598103934665603ull ^ n, v;
	uint64_t *c;

	for (uint32_t i = 0; i < n; i++)
		k = (k ^ f[i]) * 1099511628211ull;
	for (;; k++) {
		if (!dp_hashmap_get(&h->chain_of, k, &v))
			break;
		c = (uint64_t *)(uintptr_t)v;
		if (c[-1] == n && !memcmp(c, f, n * 8))
			return c;
	}
	if (!h->chain_pages.n || h->chain_used + n + 1 > CHAIN_PAGE) {
		dp_vec_push(&h->chain_pages, dp_calloc(CHAIN_PAGE, 8));
		h->chain_used = 0;
	}
	c = h->chain_pages.v[h->chain_pages.n - 1] + h->chain_used;
	c[0] = n;
	memcpy(c + 1, f, n * 8);
	h->chain_used += n + 1;
	dp_hashmap_put(&h->chain_of, k, (uint64_t)(uintptr_t)(c + 1));
	return c + 1;
}

void dp_heap_observe(dp_heap_index *h, const dp_record *r)
{
	if (r->kind == DP_R_ALLOC) {
		const struct dp_rec_alloc *a = r->alloc;
		dp_heap_block b;

		if (!a->size || a->addr + a->size < a->addr)
			return;
		memset(&b, 0, sizeof(b));
		b.addr = a->addr;
		b.size = a->size;
		b.t_alloc = a->time;
		b.t_free = UINT64_MAX;
		b.pid = a->pid;
		b.tid = a->tid;
		b.kind = a->kind;
		b.nframes = DP_MIN(a->nframes, (uint32_t)DP_HEAP_FRAMES);
		b.frames = intern_chain(h, a->frames, b.nframes);
		dp_vec_push(&h->blocks, b);
		push_event(h, a->time, (uint32_t)(h->blocks.n - 1), a->pid, a->addr);
	} else if (r->kind == DP_R_FREE) {
		/* matched to its block when replayed, in time order */
		push_event(h, r->free_rec->time, NIL, r->free_rec->pid, r->free_rec->addr);
	}
}

static int cmp_ev(const void *a, const void *b)
{
	const struct heap_event *x = a, *y = b;
	bool xf = x->block == NIL, yf = y->block == NIL;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* at equal times: allocations before frees (realloc gives both) */
	if (xf != yf)
		return xf ? 1 : -1;
	if (!xf)
		return x->block < y->block ? -1 : x->block > y->block;
	/* frees of one time: in any order, the same outcome */
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void dp_heap_finish(dp_heap_index *h)
{
	if (h->nev > 1)
		qsort(h->ev, h->nev, sizeof(*h->ev), cmp_ev);
}

static void link_block(dp_heap_index *h, uint32_t bi)
{
	const dp_heap_block *b = &h->blocks.v[bi];
	uint64_t first = b->addr >> PAGE_SHIFT, last = (b->addr + b->size - 1) >> PAGE_SHIFT;

	if (last - first >= LARGE_PAGES) {
		dp_vec_push(&h->large, bi);
		return;
	}
	for (uint64_t pg = first; pg <= last; pg++) {
		uint64_t k = key_of(b->pid, pg), head = NIL;

		dp_hashmap_get(&h->pages, k, &head);
		struct heap_link l = {bi, (uint32_t)head};
		dp_vec_push(&h->links, l);
		dp_hashmap_put(&h->pages, k, h->links.n - 1);
	}
}

/* Replays allocations and frees up to time t. */
static void advance(dp_heap_index *h, uint64_t t)
{
	while (h->next_ev < h->nev && h->ev[h->next_ev].time <= t) {
		const struct heap_event *e = &h->ev[h->next_ev++];
		uint64_t k = key_of(e->pid, e->addr), v;

		if (e->block != NIL) {
			dp_hashmap_put(&h->live, k, e->block);
			link_block(h, e->block);
		} else if (dp_hashmap_get(&h->live, k, &v) && v != NIL) {
			h->blocks.v[v].t_free = e->time;
			dp_hashmap_put(&h->live, k, NIL);
		} else {
			h->unmatched_frees++;
		}
	}
	if (t > h->now)
		h->now = t;
}

static bool covers(const dp_heap_block *b, uint32_t pid, uint64_t addr, uint64_t t)
{
	return b->size && b->pid == pid && addr >= b->addr && addr - b->addr < b->size &&
	       b->t_alloc <= t && t < b->t_free;
}

const dp_heap_block *dp_heap_find(dp_heap_index *h, uint32_t pid, uint64_t addr, uint64_t t)
{
	uint64_t head;

	if (!h->nev)
		return NULL;
	advance(h, t);
	if (dp_hashmap_get(&h->pages, key_of(pid, addr >> PAGE_SHIFT), &head)) {
		/* newest first; drop links to blocks freed before the window */
		uint32_t prev = NIL;
		for (uint32_t i = (uint32_t)head; i != NIL;) {
			struct heap_link *l = &h->links.v[i];
			const dp_heap_block *b = &h->blocks.v[l->block];

			if (covers(b, pid, addr, t))
				return b;
			if (b->t_free != UINT64_MAX && b->t_free + h->window < h->now) {
				/* unlink: it can no longer be asked for */
				if (prev == NIL)
					dp_hashmap_put(&h->pages, key_of(pid, addr >> PAGE_SHIFT),
						       l->next);
				else
					h->links.v[prev].next = l->next;
				i = l->next;
				continue;
			}
			prev = i;
			i = l->next;
		}
	}
	for (size_t i = 0; i < h->large.n;) {
		const dp_heap_block *b = &h->blocks.v[h->large.v[i]];

		if (covers(b, pid, addr, t))
			return b;
		if (b->t_free != UINT64_MAX && b->t_free + h->window < h->now) {
			h->large.v[i] = h->large.v[--h->large.n];
			continue;
		}
		i++;
	}
	return NULL;
}
