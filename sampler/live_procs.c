#include "live_procs.h"
#include "synth.h"

#include <string.h>

void dp_live_procs_init(dp_live_procs *lp)
{
	memset(lp, 0, sizeof(*lp));
	dp_hashmap_init(&lp->slot_of, 16);
}

void dp_live_procs_free(dp_live_procs *lp)
{
	for (size_t i = 0; i < lp->procs.n; i++)
		dp_buf_free(&lp->procs.v[i].maps);
	dp_vec_free(&lp->procs);
	dp_hashmap_free(&lp->slot_of);
}

static dp_live_proc *find(const dp_live_procs *lp, uint32_t pid)
{
	uint64_t slot;

	return dp_hashmap_get(&lp->slot_of, pid, &slot) ? &lp->procs.v[slot - 1] : NULL;
}

void dp_live_procs_set_alive(dp_live_procs *lp, uint32_t pid, bool alive)
{
	dp_live_proc *p = find(lp, pid);

	if (!p) {
		dp_vec_push(&lp->procs, ((dp_live_proc){pid, alive, false, {0}}));
		dp_hashmap_put(&lp->slot_of, pid, lp->procs.n);
		return;
	}
	if (alive)
		p->maps.len = 0; /* a new process with the same pid */
	p->ended = p->alive && !alive;
	p->alive = alive;
}

/* The followed process a kernel record names (its pid comes first after
 * the header, in MMAP, MMAP2 and COMM), or NULL. */
static dp_live_proc *of_record(const dp_live_procs *lp, const void *rec, size_t size)
{
	uint32_t pid;
	dp_live_proc *p;

	if (size < sizeof(struct perf_event_header) + 4)
		return NULL;
	memcpy(&pid, (const uint8_t *)rec + sizeof(struct perf_event_header), 4);
	p = find(lp, pid);
	return p && p->alive ? p : NULL;
}

void dp_live_procs_add_map(dp_live_procs *lp, const void *rec, size_t size)
{
	dp_live_proc *p = of_record(lp, rec, size);

	if (p)
		dp_buf_add(&p->maps, rec, size);
}

void dp_live_procs_exec(dp_live_procs *lp, const void *rec, size_t size)
{
	dp_live_proc *p = of_record(lp, rec, size);

	if (p)
		p->maps.len = 0;
}

/* The records of b, one dp_writer_add each: the writer's index notes
 * where every one starts. */
static void write_each(dp_writer *w, const dp_buf *b)
{
	struct perf_event_header h;

	for (size_t at = 0; at + sizeof(h) <= b->len; at += h.size) {
		memcpy(&h, b->p + at, sizeof(h));
		if (h.size < sizeof(h) || h.size > b->len - at)
			break; /* (kernel records: never) */
		dp_writer_add(w, b->p + at, h.size);
	}
}

/* Forgets the process in slot i: the last one takes its place. */
static void forget(dp_live_procs *lp, size_t i)
{
	dp_live_proc *p = &lp->procs.v[i];

	dp_buf_free(&p->maps);
	dp_hashmap_del(&lp->slot_of, p->pid);
	if (i + 1 < lp->procs.n) {
		*p = lp->procs.v[lp->procs.n - 1];
		dp_hashmap_put(&lp->slot_of, p->pid, i + 1);
	}
	lp->procs.n--;
}

void dp_live_procs_synth(dp_live_procs *lp, dp_writer *w, const struct perf_event_attr *attr,
			 uint64_t id)
{
	for (size_t i = 0; i < lp->procs.n;) {
		dp_live_proc *p = &lp->procs.v[i];
		dp_buf now = {0};

		if (!p->alive) {
			/* its last mappings written once more, then nothing of it
			 * is kept (a build starts processes by the hundred thousand) */
			if (p->ended)
				write_each(w, &p->maps);
			forget(lp, i); /* the last one comes into slot i */
			continue;
		}
		if (dp_synth_process(w, (pid_t)p->pid, attr, id, &now) > 0) {
			dp_buf_free(&p->maps);
			p->maps = now;
		} else {
			write_each(w, &p->maps);
			dp_buf_free(&now);
		}
		i++;
	}
}
