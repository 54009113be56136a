#include "heap_index.h"
#include "merge_sort.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NIL	   UINT32_MAX
#define CHAIN_PAGE 8192 /* words: 64 KiB */
#define MAX_SPAN   16	/* cells a block may cover at its level */
#define HUGE	   (DP_HEAP_LEVELS - 1)
#define HEAP_FREED (1u << 31) /* an event's block: the free of it */
/* A FREE's event before matching: HEAP_FREED and its thread (NIL: none
 * known); after, HEAP_FREED and the block it ended. */
#define FREE_BY(tid) (HEAP_FREED | ((tid) & (HEAP_FREED - 1)))
/* millions of blocks and events are written into fresh memory: their pages
 * faulted in this many at a time (a fault each: a sixth of a report's
 * time before the samples, in a VM) */
#define PREFAULT 32768

/* The grids' cell sizes: a block goes to the first where it covers at
 * most MAX_SPAN cells (16 KiB, 16 MiB, 4 GiB), larger ones to one cell. */
static const unsigned cell_shift[HUGE] = {10, 20, 28};

static uint64_t key_of(uint32_t pid, uint64_t x)
{
	return ((uint64_t)pid << 40) ^ x;
}

/* pid_max is at most 2^22 and a cell number below 2^40: no overlap */
static uint64_t cell_key(unsigned level, uint32_t pid, uint64_t cell)
{
	return ((uint64_t)level << 62) | ((uint64_t)pid << 40) | cell;
}

void dp_heap_init(dp_heap_index *h)
{
	memset(h, 0, sizeof(*h));
	h->hist = dp_calloc(1, sizeof(*h->hist));
	h->hist->users = 1;
	h->hist->first_alloc = UINT64_MAX;
	dp_hashmap_init(&h->hist->chain_of, 1024);
	dp_hashmap_init(&h->hist->realloc_from, 64);
	dp_hashmap_init(&h->cell_of, 1024);
}

static void history_release(dp_heap_history *y)
{
	if (__atomic_sub_fetch(&y->users, 1, __ATOMIC_ACQ_REL))
		return;
	dp_vec_free(&y->blocks);
	dp_vec_free(&y->ev);
	dp_vec_free(&y->execs);
	for (size_t i = 0; i < y->chain_pages.n; i++)
		free(y->chain_pages.v[i]);
	dp_vec_free(&y->chain_pages);
	dp_hashmap_free(&y->chain_of);
	dp_hashmap_free(&y->realloc_from);
	free(y);
}

static void replay_free(dp_heap_index *h)
{
	dp_hashmap_free(&h->cell_of);
	for (size_t i = 0; i < h->cells.n; i++)
		free(h->cells.v[i].e);
	dp_vec_free(&h->cells);
	dp_vec_free(&h->freed);
}

void dp_heap_free(dp_heap_index *h)
{
	if (h->hist)
		history_release(h->hist);
	replay_free(h);
	memset(h, 0, sizeof(*h));
}

void dp_heap_share(dp_heap_index *h, dp_heap_index *from)
{
	dp_heap_history *y = from->hist;

	history_release(h->hist);
	replay_free(h);
	memset(h, 0, sizeof(*h));
	__atomic_add_fetch(&y->users, 1, __ATOMIC_ACQ_REL);
	h->hist = y;
	dp_hashmap_init(&h->cell_of, 1024);
}

static void push_event(dp_heap_history *h, uint64_t t, uint32_t block, uint32_t pid, uint64_t addr)
{
	dp_vec_prefault(&h->ev, PREFAULT);
	dp_vec_push(&h->ev, ((struct heap_event){t, addr, block, pid}));
}

/* The one copy of a call chain: a program makes millions of blocks from a
 * few thousand chains, so blocks share them (8 words each otherwise). The
 * length is the word before the chain. */
static const uint64_t *intern_chain(dp_heap_history *h, const uint64_t *f, uint32_t n)
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

void dp_heap_observe(dp_heap_index *x, const dp_record *r)
{
	dp_heap_history *h = x->hist;

	if (r->kind == DP_R_ALLOC) {
		const struct dp_rec_alloc *a = r->alloc;
		dp_heap_block b;

		const struct dp_rec_free *f = h->last_free.time ? &h->last_free : NULL;

		h->last_free.time = 0;
		h->last_realloc = 0;
		/* (a block's index must leave HEAP_FREED clear) */
		if (!a->size || a->addr + a->size < a->addr || h->blocks.n >= HEAP_FREED - 1)
			return;
		/* the tracker records realloc's FREE of the old block, then the
		 * new block, one thread's records staying together (the sim
		 * tool the other way round: below) */
		if (a->kind == DP_ALLOC_REALLOC && f && f->kind == DP_ALLOC_REALLOC &&
		    f->pid == a->pid && f->tid == a->tid && f->time <= a->time)
			dp_hashmap_put(&h->realloc_from, h->blocks.n, f->addr);
		else if (a->kind == DP_ALLOC_REALLOC) {
			h->last_realloc = (uint32_t)h->blocks.n + 1;
			h->last_realloc_pid = a->pid;
			h->last_realloc_tid = a->tid;
		}
		memset(&b, 0, sizeof(b));
		b.origin = NIL;
		b.addr = a->addr;
		b.size = a->size;
		b.t_alloc = a->time;
		h->first_alloc = DP_MIN(h->first_alloc, a->time);
		b.t_free = UINT64_MAX;
		b.pid = a->pid;
		b.tid = a->tid;
		b.kind = a->kind;
		b.nframes = DP_MIN(a->nframes, (uint32_t)DP_HEAP_FRAMES);
		b.frames = intern_chain(h, a->frames, b.nframes);
		dp_vec_prefault(&h->blocks, PREFAULT);
		dp_vec_push(&h->blocks, b);
		push_event(h, a->time, (uint32_t)(h->blocks.n - 1), a->pid, a->addr);
	} else if (r->kind == DP_R_FREE) {
		/* matched to its block when replayed, in time order */
		const struct dp_rec_free *f = r->free_rec;

		push_event(h, f->time, FREE_BY(f->tid), f->pid, f->addr);
		if (h->last_realloc && f->kind == DP_ALLOC_REALLOC &&
		    f->pid == h->last_realloc_pid && f->tid == h->last_realloc_tid)
			dp_hashmap_put(&h->realloc_from, h->last_realloc - 1, f->addr);
		h->last_realloc = 0;
		h->last_free = *f;
		h->last_free.time |= !h->last_free.time; /* (0 says none) */
	} else if (r->kind == DP_R_COMM && r->comm.exec && r->has_time) {
		struct heap_exec e = {r->time, r->pid};

		dp_vec_push(&h->execs, e);
	}
}

/* Time order, each time's records in the order they came: one thread's
 * are in the order it made them (realloc in place: the old block's FREE,
 * then the new block; a block made and freed within one tick of the
 * clock: its ALLOC, then its FREE), which a stable sort keeps. The rings
 * of several threads are drained in turn, in runs already in order; a
 * single-threaded program's are one run, seen in one pass. */
DP_MERGE_SORT(sort_by_time, struct heap_event, time)

static void sort_events(dp_heap_history *h)
{
	size_t i = 1;
	struct heap_event *tmp;

	while (i < h->ev.n && h->ev.v[i - 1].time <= h->ev.v[i].time)
		i++;
	if (i >= h->ev.n)
		return;
	tmp = dp_malloc(h->ev.n * sizeof(*tmp));
	sort_by_time(h->ev.v, tmp, h->ev.n);
	free(tmp);
}

/* One share of the matching: the events whose (pid, address) hashes to
 * part of nparts, in time order. */
struct match_part {
	dp_heap_history *h;
	uint32_t *out; /* per event: its block (a free's with HEAP_FREED), NIL: dropped */
	unsigned part, nparts;
	uint64_t unmatched;
};

static bool in_part(const struct match_part *m, uint64_t key)
{
	return m->nparts == 1 || (unsigned)((dp_hash64(key) >> 32) * m->nparts >> 32) == m->part;
}

/* The block a FREE ends: the one live at its key, unless that one was
 * made by another thread after an earlier block there ended unfreed (ended:
 * key -> that block). Malloc gave the address again, so the earlier block
 * was freed first: this FREE, timed late (a ring's FREE takes its thread's
 * next allocation's time, chan_ring.h), or one never recorded. */
static uint32_t freed_by(dp_heap_history *h, dp_hashmap *ended, uint64_t k, uint32_t live,
			 uint32_t by)
{
	uint64_t old;

	if (!ended->n || !dp_hashmap_get(ended, k, &old))
		return live;
	dp_hashmap_del(ended, k);
	if (by != NIL && (h->blocks.v[live].tid & (HEAP_FREED - 1)) != (by & ~HEAP_FREED))
		return (uint32_t)old;
	return live;
}

/* Each free of the share to the block it ends, as a replay would: every
 * block's t_free is known before any lookup, and a reader's replay is
 * only the blocks entering and leaving its cells. A key's events all go
 * to one share, in time order, so the result is the same for any number
 * of shares; a realloc's origin is looked up by the share of the address
 * it moved from. */
static void *match_part_run(void *arg)
{
	struct match_part *m = arg;
	dp_heap_history *h = m->h;
	/* (pid, addr) -> the block allocated there last, with HEAP_FREED once
	 * freed; ended: freed_by's */
	dp_hashmap live, ended;
	uint64_t v, from;

	dp_hashmap_init(&live, 1024);
	dp_hashmap_init(&ended, 16);
	for (size_t i = 0; i < h->ev.n; i++) {
		const struct heap_event *e = &h->ev.v[i];
		uint64_t k = key_of(e->pid, e->addr);
		uint32_t b;

		if (!(e->block & HEAP_FREED)) {
			/* a realloc's new block: the one its old address held
			 * (looked up before the new block enters: in place) */
			if (h->realloc_from.n &&
			    dp_hashmap_get(&h->realloc_from, e->block, &from) &&
			    in_part(m, key_of(e->pid, from)) &&
			    dp_hashmap_get(&live, key_of(e->pid, from), &v))
				h->blocks.v[e->block].origin = (uint32_t)v & ~HEAP_FREED;
			if (!in_part(m, k))
				continue;
			if (dp_hashmap_get(&live, k, &v) && !(v & HEAP_FREED)) {
				/* freed before this one was made: its FREE, if
				 * any, comes later (freed_by) */
				h->blocks.v[v].t_free = e->time;
				dp_hashmap_put(&ended, k, v);
			}
			dp_hashmap_put(&live, k, e->block);
			m->out[i] = e->block;
		} else if (!in_part(m, k)) {
			continue;
		} else if (dp_hashmap_get(&live, k, &v) && !(v & HEAP_FREED)) {
			b = freed_by(h, &ended, k, (uint32_t)v, e->block);
			m->out[i] = b | HEAP_FREED;
			if (b == v) {
				h->blocks.v[v].t_free = e->time;
				dp_hashmap_put(&live, k, v | HEAP_FREED);
			}
		} else {
			m->out[i] = NIL;
			m->unmatched++;
		}
	}
	dp_hashmap_free(&ended);
	dp_hashmap_free(&live);
	return NULL;
}

/* The frees matched in nparts shares, in threads (a report's other parts
 * wait for the history meanwhile); the unmatched ones dropped. */
static void match_frees(dp_heap_history *h, unsigned nparts)
{
	struct match_part m[DP_HEAP_MAX_THREADS];
	pthread_t th[DP_HEAP_MAX_THREADS];
	bool started[DP_HEAP_MAX_THREADS] = {false};
	uint32_t *out = dp_malloc(DP_MAX(h->ev.n, 1) * sizeof(*out));
	size_t n = 0;

	nparts = nparts < 1 ? 1 : nparts > DP_HEAP_MAX_THREADS ? DP_HEAP_MAX_THREADS : nparts;
	for (unsigned k = 0; k < nparts; k++) {
		m[k] = (struct match_part){h, out, k, nparts, 0};
		if (k)
			started[k] = pthread_create(&th[k], NULL, match_part_run, &m[k]) == 0;
	}
	match_part_run(&m[0]);
	for (unsigned k = 1; k < nparts; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		else
			match_part_run(&m[k]); /* no thread to be had: here */
		h->unmatched_frees += m[k].unmatched;
	}
	h->unmatched_frees += m[0].unmatched;
	for (size_t i = 0; i < h->ev.n; i++)
		if (out[i] != NIL) {
			h->ev.v[n] = h->ev.v[i];
			h->ev.v[n++].block = out[i];
		}
	h->ev.n = n;
	free(out);
}

static int cmp_exec(const void *a, const void *b)
{
	const struct heap_exec *x = a, *y = b;

	return x->pid != y->pid ? dp_cmp_u64(x->pid, y->pid) : dp_cmp_u64(x->time, y->time);
}

/* An exec replaces the process's memory: each block made before it ends
 * there at the latest. Most have no FREE: the image that would have freed
 * them is gone. */
static void end_at_execs(dp_heap_history *h)
{
	const struct heap_exec *e = h->execs.v;
	size_t n = h->execs.n;
	uint64_t last = 0;

	for (size_t i = 0; i < n; i++)
		last = DP_MAX(last, e[i].time);
	/* the common case: the one exec is the target's start, before any block */
	if (last <= h->first_alloc)
		return;
	qsort(h->execs.v, n, sizeof(*e), cmp_exec);
	for (size_t i = 0; i < h->blocks.n; i++) {
		dp_heap_block *b = &h->blocks.v[i];

		if (b->t_alloc >= last)
			continue;
		size_t at = DP_PARTITION_POINT(
		    n, k, e[k].pid < b->pid || (e[k].pid == b->pid && e[k].time <= b->t_alloc));

		if (at < n && e[at].pid == b->pid && e[at].time < b->t_free)
			b->t_free = e[at].time;
	}
}

void dp_heap_finish(dp_heap_index *x, unsigned threads)
{
	dp_heap_history *h = x->hist;

	sort_events(h);
	match_frees(h, threads);
	end_at_execs(h);
	dp_vec_free(&h->execs);
	dp_hashmap_free(&h->realloc_from);
	dp_hashmap_init(&h->realloc_from, 1);
}

/* The level of block b, and the first and last cells it covers there. */
static unsigned level_of(const dp_heap_block *b, uint64_t *first, uint64_t *last)
{
	uint64_t end = b->addr + b->size - 1;

	for (unsigned l = 0; l < HUGE; l++) {
		*first = b->addr >> cell_shift[l];
		*last = end >> cell_shift[l];
		if (*last - *first < MAX_SPAN)
			return l;
	}
	*first = *last = 0;
	return HUGE;
}

/* The cell, made on first use. */
static struct heap_cell *cell_make(dp_heap_index *h, unsigned level, uint32_t pid, uint64_t c)
{
	uint64_t k = cell_key(level, level == HUGE ? 0 : pid, c), v;
	struct heap_cell empty = {NULL, 0, 0, NIL, false};

	if (dp_hashmap_get(&h->cell_of, k, &v))
		return &h->cells.v[v];
	dp_vec_push(&h->cells, empty);
	dp_hashmap_put(&h->cell_of, k, h->cells.n - 1);
	h->at_level[level]++;
	return &h->cells.v[h->cells.n - 1];
}

/* The first entry of cell c whose address is above addr. */
static uint32_t upper(const struct heap_cell *c, uint64_t addr)
{
	return (uint32_t)DP_PARTITION_POINT(c->n, i, c->e[i].addr <= addr);
}

/* An allocation: into the live blocks of every cell it covers. */
static void enter_block(dp_heap_index *h, uint32_t bi)
{
	const dp_heap_block *b = &h->hist->blocks.v[bi];
	struct heap_entry e = {b->addr, b->addr + b->size, b->t_alloc, bi, b->pid};
	uint64_t first, last;
	unsigned level = level_of(b, &first, &last);

	for (uint64_t cn = first; cn <= last; cn++) {
		struct heap_cell *c = cell_make(h, level, b->pid, cn);
		uint32_t at = upper(c, e.addr);

		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 4;
			c->e = dp_realloc(c->e, c->cap * sizeof(*c->e));
		}
		memmove(c->e + at + 1, c->e + at, (c->n - at) * sizeof(*c->e));
		c->e[at] = e;
		c->n++;
		if ((at && c->e[at - 1].end > e.addr) ||
		    (at + 1 < c->n && c->e[at + 1].addr < e.end))
			c->overlap = true;
	}
}

/* A block that ended before its FREE's time (freed_by) into c's freed list
 * where its end puts it, so that the list stays latest end first: its end
 * is the next block's start there, a little before the FREE, so few are
 * passed; a file made to pass many per block gets a list a little out of
 * order after LINK_STEPS (a sample then may miss a block freed just
 * before it), never a walk that grows with the list. */
#define LINK_STEPS 64

static void link_freed(dp_heap_index *h, struct heap_cell *c, struct heap_freed f)
{
	const dp_heap_block *blocks = h->hist->blocks.v;
	uint64_t end = blocks[f.block].t_free;
	uint32_t prev = NIL, at = c->freed;

	for (unsigned steps = 0;
	     at != NIL && steps < LINK_STEPS && blocks[h->freed.v[at].block].t_free > end;
	     steps++) {
		prev = at;
		at = h->freed.v[at].next;
	}
	f.next = at;
	dp_vec_push(&h->freed, f);
	if (prev == NIL)
		c->freed = (uint32_t)(h->freed.n - 1);
	else
		h->freed.v[prev].next = (uint32_t)(h->freed.n - 1);
}

/* A free: from the live blocks of its cells to the head of their freed
 * lists (frees are replayed in time order). */
static void free_block(dp_heap_index *h, uint32_t bi, bool ended_before)
{
	const dp_heap_block *b = &h->hist->blocks.v[bi];
	uint64_t first, last, v;
	unsigned level = level_of(b, &first, &last);

	for (uint64_t cn = first; cn <= last; cn++) {
		if (!dp_hashmap_get(&h->cell_of, cell_key(level, level == HUGE ? 0 : b->pid, cn),
				    &v))
			continue;
		struct heap_cell *c = &h->cells.v[v];
		struct heap_freed f = {bi, c->freed};
		uint32_t at = upper(c, b->addr);

		/* entries of one address are few: a missed free's */
		while (at > 0 && c->e[at - 1].addr == b->addr && c->e[at - 1].block != bi)
			at--;
		if (at > 0 && c->e[at - 1].block == bi) {
			memmove(c->e + at - 1, c->e + at, (c->n - at) * sizeof(*c->e));
			c->n--;
		}
		if (ended_before) {
			link_freed(h, c, f);
			continue;
		}
		c->freed = (uint32_t)h->freed.n;
		dp_vec_push(&h->freed, f);
	}
}

/* Replays allocations and frees up to time t. */
static void advance(dp_heap_index *h, uint64_t t)
{
	const dp_heap_history *y = h->hist;

	while (h->next_ev < y->ev.n && y->ev.v[h->next_ev].time <= t) {
		const struct heap_event *e = &y->ev.v[h->next_ev++];
		uint32_t bi = e->block & ~HEAP_FREED;

		if (e->block & HEAP_FREED)
			free_block(h, bi, y->blocks.v[bi].t_free < e->time);
		else
			enter_block(h, bi);
	}
}

static bool covers(const dp_heap_block *b, uint32_t pid, uint64_t addr, uint64_t t)
{
	return b->size && b->pid == pid && addr >= b->addr && addr - b->addr < b->size &&
	       b->t_alloc <= t && t < b->t_free;
}

/* The block of cell c holding addr at t, NIL if none: the live one, or
 * one freed after t; where a missed free left several, the one allocated
 * last. */
static uint32_t find_in(const dp_heap_index *h, const struct heap_cell *c, uint32_t pid,
			uint64_t addr, uint64_t t)
{
	uint32_t found = NIL, at = upper(c, addr);

	/* live blocks do not overlap: only the one starting last below addr
	 * can hold it, unless a missed free left two. A block's end says
	 * whether it still held addr at t: one that an allocation or an exec
	 * ended stays here until its FREE, timed later, replays (if ever). */
	while (at-- > 0) {
		const struct heap_entry *e = &c->e[at];

		if (addr < e->end && e->pid == pid && e->t_alloc <= t &&
		    t < h->hist->blocks.v[e->block].t_free && (found == NIL || e->block > found))
			found = e->block;
		if (!c->overlap)
			break;
	}
	/* blocks freed after t only: the list runs back in time */
	for (uint32_t i = c->freed; i != NIL; i = h->freed.v[i].next) {
		uint32_t bi = h->freed.v[i].block;
		const dp_heap_block *b = &h->hist->blocks.v[bi];

		if (b->t_free <= t)
			break;
		if (covers(b, pid, addr, t) && (found == NIL || bi > found))
			found = bi;
	}
	return found;
}

const dp_heap_block *dp_heap_find(dp_heap_index *h, uint32_t pid, uint64_t addr, uint64_t t)
{
	if (!h->hist->ev.n)
		return NULL;
	advance(h, t);
	for (unsigned l = 0; l < DP_HEAP_LEVELS; l++) {
		uint64_t k, v;
		uint32_t bi;

		if (!h->at_level[l])
			continue;
		k = l == HUGE ? cell_key(l, 0, 0) : cell_key(l, pid, addr >> cell_shift[l]);
		if (dp_hashmap_get(&h->cell_of, k, &v) &&
		    (bi = find_in(h, &h->cells.v[v], pid, addr, t)) != NIL)
			return &h->hist->blocks.v[bi];
	}
	return NULL;
}
