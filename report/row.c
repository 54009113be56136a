#include "row.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "dataprof/data_src.h"
#include "context.h"
#include "hashmap.h"

typedef struct comm_ev {
	uint32_t tid;
	uint64_t time;
	uint32_t name;
} comm_ev;

struct dp_row_ctx {
	dp_decoder *dec;
	dp_annotator *ann;
	dp_strtab *strs;
	uint64_t start;
	DP_VEC(comm_ev) comms; /* sorted by (tid, time) */
	dp_hashmap insn_text;  /* runtime insn address ^ image -> string id */
	dp_hashmap callers;    /* (pid, return address) -> function id */
	dp_hashmap data_src;   /* data_src -> level id | tlb id << 32 */
	uint32_t s_load, s_store, s_rmw, s_nocallchain;
	dp_report_ctx *marks;
};

static int cmp_comm(const void *a, const void *b)
{
	const comm_ev *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

dp_row_ctx *dp_row_ctx_new(dp_profile *p, dp_decoder *d, dp_annotator *a)
{
	dp_row_ctx *c = dp_calloc(1, sizeof(*c));
	dp_record r;

	c->dec = d;
	c->ann = a;
	c->strs = dp_annotator_strings_mut(a);
	c->start = dp_profile_header(p)->start_time_ns;
	dp_hashmap_init(&c->insn_text, 256);
	dp_hashmap_init(&c->callers, 256);
	dp_hashmap_init(&c->data_src, 64);
	c->s_load = dp_strtab_intern(c->strs, "load");
	c->s_store = dp_strtab_intern(c->strs, "store");
	c->s_rmw = dp_strtab_intern(c->strs, "load+store");
	c->s_nocallchain = dp_strtab_intern(c->strs, "[no call chain: record -g]");
	c->marks = dp_report_ctx_new(c->strs);
	if (!c->start) {
		/* perf.data: no header start time; the first sample's will do */
		dp_profile_rewind(p);
		while (dp_profile_next(p, &r) > 0)
			if (r.kind == DP_R_SAMPLE) {
				c->start = r.sample->time;
				break;
			}
		dp_profile_rewind(p);
	}
	return c;
}

void dp_row_ctx_observe(dp_row_ctx *c, const dp_record *r)
{
	dp_report_ctx_observe(c->marks, r);
	if (r->kind == DP_R_COMM && r->comm.comm) {
		comm_ev e = {r->tid, r->has_time ? r->time : 0,
			     dp_strtab_intern(c->strs, r->comm.comm)};
		dp_vec_push(&c->comms, e);
	}
}

void dp_row_ctx_ready(dp_row_ctx *c)
{
	dp_report_ctx_ready(c->marks);
	if (c->comms.n > 1)
		qsort(c->comms.v, c->comms.n, sizeof(comm_ev), cmp_comm);
}

void dp_row_ctx_free(dp_row_ctx *c)
{
	if (!c)
		return;
	dp_vec_free(&c->comms);
	dp_hashmap_free(&c->insn_text);
	dp_hashmap_free(&c->callers);
	dp_hashmap_free(&c->data_src);
	dp_report_ctx_free(c->marks);
	free(c);
}

uint64_t dp_row_ctx_start(const dp_row_ctx *c)
{
	return c->start;
}

/* The name tid had at time t (a thread inherits its process's until it
 * names itself). */
static uint32_t comm_at(const dp_row_ctx *c, uint32_t tid, uint64_t t)
{
	size_t lo = DP_PARTITION_POINT(c->comms.n, i,
				       c->comms.v[i].tid < tid ||
					   (c->comms.v[i].tid == tid && c->comms.v[i].time <= t));

	if (lo > 0 && c->comms.v[lo - 1].tid == tid)
		return c->comms.v[lo - 1].name;
	/* no record at or before t: the first one there is */
	if (lo < c->comms.n && c->comms.v[lo].tid == tid)
		return c->comms.v[lo].name;
	return 0;
}

static uint32_t insn_text(dp_row_ctx *c, const dp_decoded *x)
{
	uint64_t key = x->insn_ip ^ ((uint64_t)(uintptr_t)x->image << 16), v;
	char buf[160];

	if (x->insn < 0)
		return 0;
	if (dp_hashmap_get(&c->insn_text, key, &v))
		return (uint32_t)v;
	dp_decoded_insn_text(c->dec, x, buf, sizeof(buf));
	v = dp_strtab_intern(c->strs, buf);
	dp_hashmap_put(&c->insn_text, key, v);
	return (uint32_t)v;
}

static uint32_t caller_of(dp_row_ctx *c, const dp_sample *s)
{
	uint32_t i = dp_callchain_returns(s);
	uint64_t ret, key, v;

	if (!(s->sample_type & PERF_SAMPLE_CALLCHAIN))
		return c->s_nocallchain;
	ret = i < s->callchain_nr ? s->callchain[i] : 0;
	if (!ret)
		return 0;
	key = ((uint64_t)s->pid << 48) ^ ret;
	if (dp_hashmap_get(&c->callers, key, &v))
		return (uint32_t)v;
	v = dp_annotate_function_at(c->ann, s->pid, ret - 1, s->time);
	dp_hashmap_put(&c->callers, key, v);
	return (uint32_t)v;
}

static void mem_level(dp_row_ctx *c, const dp_sample *s, uint32_t *level, uint32_t *tlb)
{
	uint64_t v;
	char buf[64];

	*level = *tlb = 0;
	if (!(s->sample_type & PERF_SAMPLE_DATA_SRC) || !s->data_src)
		return;
	if (!dp_hashmap_get(&c->data_src, s->data_src, &v)) {
		dp_data_src_level(s->data_src, buf, sizeof(buf));
		v = dp_strtab_intern(c->strs, buf);
		dp_data_src_tlb(s->data_src, buf, sizeof(buf));
		v |= (uint64_t)dp_strtab_intern(c->strs, buf) << 32;
		dp_hashmap_put(&c->data_src, s->data_src, v);
	}
	*level = (uint32_t)v;
	*tlb = (uint32_t)(v >> 32);
}

void dp_row_fill(dp_row_ctx *c, const dp_sample *s, const dp_decoded *x, const dp_annotation *a,
		 dp_row *r)
{
	r->s = s;
	r->x = x;
	r->a = a;
	r->time_rel = s->time >= c->start ? s->time - c->start : 0;
	r->process = comm_at(c, s->pid, s->time);
	r->thread = comm_at(c, s->tid, s->time);
	if (!r->thread)
		r->thread = r->process;
	r->caller = 0; /* computed when asked for: it symbolizes */
	r->insn = 0;
	r->op = x->insn < 0				    ? 0
		: x->access == (DP_ACC_LOAD | DP_ACC_STORE) ? c->s_rmw
		: x->access == DP_ACC_STORE		    ? c->s_store
							    : c->s_load;
	mem_level(c, s, &r->level, &r->tlb);
}

uint32_t dp_row_caller(dp_row_ctx *c, dp_row *r)
{
	if (!r->caller)
		r->caller = caller_of(c, r->s);
	return r->caller;
}

uint32_t dp_row_insn(dp_row_ctx *c, dp_row *r)
{
	if (!r->insn)
		r->insn = insn_text(c, r->x);
	return r->insn;
}

uint32_t dp_row_region(dp_row_ctx *c, dp_row *r)
{
	return dp_report_ctx_region(c->marks, r->s->pid, r->s->tid, r->s->time);
}

dp_report_ctx *dp_row_ctx_marks(dp_row_ctx *c)
{
	return c->marks;
}
