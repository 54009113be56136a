#include "maps.h"

#include <stdlib.h>
#include <string.h>

#define STACK_GROWTH (64ull << 20) /* beyond the default 8 MiB rlimit, well within reason */
#define BLOCK_MIN    4096	   /* the smallest heap block kept (dp_maps_observe_block) */

/* One event in a process's address-space history. */
typedef struct as_event {
	uint64_t time;
	uint32_t seq; /* file order, to keep equal times stable */
	enum { EV_MAP, EV_EXEC, EV_FORK } kind;
	uint32_t parent; /* EV_FORK: the pid this space was copied from */
	dp_map map;	 /* EV_MAP */
} as_event;

/* Heap blocks' extents: as observed, then (after finish) their union,
 * sorted, each part with the earliest time of the blocks in it. */
typedef struct block_span {
	uint64_t start, end, time;
} block_span;

struct dp_addr_space {
	uint32_t pid;
	DP_VEC(as_event) events; /* pass 1 */
	DP_VEC(block_span) blocks;
	/* after finish: every mapping this process had, with its lifetime,
	 * sorted by start address; overlaps are disambiguated by time */
	DP_VEC(dp_map) maps;
	uint64_t max_len; /* the longest mapping, to bound the backward scan */
	bool finished;
	size_t recent[4]; /* the last mappings found (index + 1), most recent first:
			   * the code's, the data's, and a neighbour or two */
};

void dp_maps_init(dp_maps *m)
{
	memset(m, 0, sizeof(*m));
	dp_hashmap_init(&m->by_pid, 64);
	dp_hashmap_init(&m->names, 256);
}

static void space_free(dp_addr_space *as)
{
	dp_vec_free(&as->events);
	dp_vec_free(&as->maps);
	dp_vec_free(&as->blocks);
	free(as);
}

void dp_maps_free(dp_maps *m)
{
	dp_vec_free_each(&m->spaces, space_free);
	dp_vec_free_each(&m->name_v, free);
	dp_hashmap_free(&m->by_pid);
	dp_hashmap_free(&m->names);
}

static const char *intern(dp_maps *m, const char *s)
{
	uint64_t h = dp_hash_bytes(s, strlen(s), 0), v;

	/* linear probing on the hash: collisions compare the strings */
	for (;; h++) {
		if (!dp_hashmap_get(&m->names, h, &v))
			break;
		if (!strcmp(m->name_v.v[v], s))
			return m->name_v.v[v];
	}
	dp_vec_push(&m->name_v, dp_strdup(s));
	dp_hashmap_put(&m->names, h, m->name_v.n - 1);
	return m->name_v.v[m->name_v.n - 1];
}

static dp_addr_space *space(dp_maps *m, uint32_t pid, bool create)
{
	uint64_t v;
	dp_addr_space *as;

	if (m->last_space && m->last_space->pid == pid)
		return m->last_space;
	if (dp_hashmap_get(&m->by_pid, pid, &v))
		return m->last_space = m->spaces.v[v];
	if (!create)
		return NULL;
	as = dp_calloc(1, sizeof(*as));
	as->pid = pid;
	dp_vec_push(&m->spaces, as);
	dp_hashmap_put(&m->by_pid, pid, m->spaces.n - 1);
	return as;
}

void dp_maps_observe(dp_maps *m, const dp_record *r)
{
	as_event e;

	memset(&e, 0, sizeof(e));
	e.time = r->has_time ? r->time : 0;
	e.seq = m->seq++;
	switch (r->kind) {
	case DP_R_MMAP: {
		const dp_mmap_info *mi = &r->mmap;

		if (!mi->len || mi->start + mi->len < mi->start)
			return;
		e.kind = EV_MAP;
		e.map.start = mi->start;
		e.map.end = mi->start + mi->len;
		e.map.pgoff = mi->pgoff;
		e.map.time = e.time;
		e.map.end_time = UINT64_MAX;
		e.map.prot = mi->prot;
		e.map.exec = mi->exec;
		e.map.build_id_size = mi->build_id_size;
		memcpy(e.map.build_id, mi->build_id, sizeof(e.map.build_id));
		e.map.name = intern(m, mi->filename ? mi->filename : "//anon");
		dp_vec_push(&space(m, mi->pid, true)->events, e);
		return;
	}
	case DP_R_COMM:
		if (!r->comm.exec)
			return;
		e.kind = EV_EXEC;
		dp_vec_push(&space(m, r->pid, true)->events, e);
		return;
	case DP_R_FORK:
		if (r->task.pid == r->task.ppid)
			return; /* a thread: same address space */
		e.kind = EV_FORK;
		e.parent = r->task.ppid;
		dp_vec_push(&space(m, r->task.pid, true)->events, e);
		return;
	default:
		return;
	}
}

void dp_maps_observe_block(dp_maps *m, uint32_t pid, uint64_t addr, uint64_t size, uint64_t t)
{
	if (size < BLOCK_MIN || addr + size < addr)
		return;
	dp_vec_push(&space(m, pid, true)->blocks, ((block_span){addr, addr + size, t}));
}

static int cmp_span(const void *a, const void *b)
{
	const block_span *x = a, *y = b;

	return dp_cmp_u64(x->start, y->start);
}

/* The blocks' union: sorted, overlapping and touching ones merged. */
static void merge_blocks(dp_addr_space *as)
{
	size_t n = 0;

	if (!as->blocks.n)
		return;
	qsort(as->blocks.v, as->blocks.n, sizeof(block_span), cmp_span);
	for (size_t i = 1; i < as->blocks.n; i++) {
		block_span *last = &as->blocks.v[n], *b = &as->blocks.v[i];

		if (b->start <= last->end) {
			last->end = DP_MAX(last->end, b->end);
			last->time = DP_MIN(last->time, b->time);
		} else {
			as->blocks.v[++n] = *b;
		}
	}
	as->blocks.n = n + 1;
}

static void finish_space(dp_maps *m, dp_addr_space *as, int depth);

bool dp_maps_in_block(dp_maps *m, uint32_t pid, uint64_t addr, uint64_t t)
{
	dp_addr_space *as = space(m, pid, false);
	size_t lo;

	if (!as || !as->blocks.n)
		return false;
	if (!as->finished)
		finish_space(m, as, 0);
	/* the last part that starts at addr or below */
	lo = DP_PARTITION_POINT(as->blocks.n, i, as->blocks.v[i].start <= addr);
	return lo && addr < as->blocks.v[lo - 1].end && as->blocks.v[lo - 1].time <= t;
}

static int cmp_event(const void *a, const void *b)
{
	const as_event *x = a, *y = b;
	int c = dp_cmp_u64(x->time, y->time);

	return c ? c : dp_cmp_u64(x->seq, y->seq);
}

static int cmp_map(const void *a, const void *b)
{
	const dp_map *x = a, *y = b;
	int c = dp_cmp_u64(x->start, y->start);

	return c ? c : dp_cmp_u64(x->time, y->time);
}

typedef DP_VEC(dp_map) map_vec;

/* Ends, at time t, every live mapping that overlaps [start, end). A
 * partially covered mapping keeps its uncovered parts alive as new pieces. */
static void replace_range(map_vec *live, map_vec *dead, uint64_t start, uint64_t end, uint64_t t)
{
	for (size_t i = 0; i < live->n;) {
		dp_map *o = &live->v[i];

		if (o->end <= start || o->start >= end) {
			i++;
			continue;
		}
		dp_map old = *o;
		old.end_time = t;
		dp_vec_push(dead, old);
		/* keep the parts outside [start, end) */
		dp_map lo = *o, hi = *o;
		live->v[i] = live->v[--live->n];
		if (lo.start < start) {
			lo.end = start;
			lo.time = t;
			dp_vec_push(live, lo);
		}
		if (hi.end > end) {
			hi.pgoff += end - hi.start;
			hi.start = end;
			hi.time = t;
			dp_vec_push(live, hi);
		}
	}
}

static void finish_space(dp_maps *m, dp_addr_space *as, int depth)
{
	map_vec live = {0}, dead = {0};

	if (as->finished)
		return;
	as->finished = true;
	merge_blocks(as);
	if (as->events.n > 1)
		qsort(as->events.v, as->events.n, sizeof(as_event), cmp_event);
	for (size_t i = 0; i < as->events.n; i++) {
		as_event *e = &as->events.v[i];

		switch (e->kind) {
		case EV_MAP:
			replace_range(&live, &dead, e->map.start, e->map.end, e->time);
			dp_vec_push(&live, e->map);
			break;
		case EV_EXEC:
			replace_range(&live, &dead, 0, UINT64_MAX, e->time);
			break;
		case EV_FORK: {
			dp_addr_space *parent = space(m, e->parent, false);

			if (!parent || depth > 64)
				break;
			finish_space(m, parent, depth + 1);
			/* the child starts with what the parent had mapped then */
			for (size_t k = 0; k < parent->maps.n; k++) {
				dp_map pm = parent->maps.v[k];

				if (pm.time <= e->time && pm.end_time > e->time) {
					pm.image = NULL;
					pm.image_state = 0;
					replace_range(&live, &dead, pm.start, pm.end, e->time);
					pm.end_time = UINT64_MAX;
					dp_vec_push(&live, pm);
				}
			}
			break;
		}
		}
	}
	for (size_t i = 0; i < dead.n; i++)
		dp_vec_push(&live, dead.v[i]);
	if (live.n > 1)
		qsort(live.v, live.n, sizeof(dp_map), cmp_map);
	as->maps.v = live.v;
	as->maps.n = live.n;
	as->maps.cap = live.cap;
	for (size_t i = 0; i < live.n; i++)
		as->max_len = DP_MAX(as->max_len, live.v[i].end - live.v[i].start);
	dp_vec_free(&dead);
	dp_vec_free(&as->events);
}

void dp_maps_finish(dp_maps *m)
{
	for (size_t i = 0; i < m->spaces.n; i++)
		finish_space(m, m->spaces.v[i], 0);
}

/* Moves the mapping at recent[k] (or a new one, k = last) to the front. */
static void remember(dp_addr_space *as, int k, size_t idx)
{
	for (; k > 0; k--)
		as->recent[k] = as->recent[k - 1];
	as->recent[0] = idx;
}

dp_map *dp_maps_find(dp_maps *m, uint32_t pid, uint64_t addr, uint64_t t)
{
	dp_addr_space *as = space(m, pid, false);
	size_t lo;

	if (!as)
		return NULL;
	if (!as->finished)
		finish_space(m, as, 0);
	/* samples come in runs on the same code and data: one address is
	 * mapped by one mapping at a time, so a recent one that holds it is it */
	for (int k = 0; k < 4; k++) {
		dp_map *mp = as->recent[k] ? &as->maps.v[as->recent[k] - 1] : NULL;

		if (mp && addr >= mp->start && addr < mp->end && mp->time <= t &&
		    t < mp->end_time) {
			remember(as, k, as->recent[k]);
			return mp;
		}
	}
	/* the last mapping starting at or below addr... */
	lo = DP_PARTITION_POINT(as->maps.n, i, as->maps.v[i].start <= addr);
	/* ...and the ones before it that still reach addr (overlaps in time) */
	for (size_t i = lo; i-- > 0;) {
		dp_map *mp = &as->maps.v[i];

		if (addr - mp->start >= as->max_len)
			break;
		if (addr < mp->end && mp->time <= t && t < mp->end_time) {
			remember(as, 3, i + 1);
			return mp;
		}
	}
	/* a sample a little before its own mapping record (different CPU rings,
	 * mmap records timestamped at the end of mmap()): accept the mapping
	 * that is current at the end if nothing was mapped there at t */
	for (size_t i = lo; i-- > 0;) {
		dp_map *mp = &as->maps.v[i];

		if (addr - mp->start >= as->max_len)
			break;
		if (addr < mp->end && mp->end_time == UINT64_MAX && mp->time > t)
			return mp;
	}
	return NULL;
}

dp_map *dp_maps_find_stack(dp_maps *m, uint32_t pid, uint64_t addr, uint64_t t)
{
	dp_addr_space *as = space(m, pid, false);

	if (!as)
		return NULL;
	for (size_t i = 0; i < as->maps.n; i++) {
		dp_map *mp = &as->maps.v[i];

		if (mp->name && !strcmp(mp->name, "[stack]") && addr < mp->start &&
		    mp->start - addr <= STACK_GROWTH && mp->time <= t && t < mp->end_time)
			return mp;
	}
	return NULL;
}

dp_map *dp_maps_list(dp_maps *m, uint32_t pid, size_t *n)
{
	dp_addr_space *as = space(m, pid, false);

	*n = 0;
	if (!as)
		return NULL;
	if (!as->finished)
		finish_space(m, as, 0);
	*n = as->maps.n;
	return as->maps.v;
}
