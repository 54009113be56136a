#include "perf_record.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "util.h"

/* A cursor over the fields of one record, bounds-checked (the reader keeps
 * the position between records). */
typedef struct cur {
	const uint8_t *p, *end;
	int bad;
} cur;

/* Returns a pointer to n bytes and skips them, or NULL when they are not there. */
static const void *take(cur *c, uint64_t n)
{
	const void *r = c->p;

	if (c->bad || (uint64_t)(c->end - c->p) < n) {
		c->bad = 1;
		return NULL;
	}
	c->p += n;
	return r;
}

/* The next n (<= 8) bytes as a little-endian number, or 0 when they are not there. */
static uint64_t rd(cur *c, unsigned n)
{
	const void *p = take(c, n);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, n);
	return v;
}

static inline uint64_t rd64(cur *c)
{
	return rd(c, 8);
}

static inline uint32_t rd32(cur *c)
{
	return (uint32_t)rd(c, 4);
}

/* A u64 field that sample_type st has where it has bit (and absent where
 * not: *v is left as it is): whether it was there. */
static inline bool rd64_if(cur *c, uint64_t st, uint64_t bit, uint64_t *v)
{
	if (!(st & bit))
		return false;
	*v = rd64(c);
	return true;
}

/* The bytes of the fields of sample_type st among these, each 8 bytes
 * (u64, or two u32 such as pid and tid) */
#define FIELDS_SIZE(st, fields) (8 * (size_t)__builtin_popcountll((st) & (fields)))

static void read_regs(cur *c, uint64_t mask, dp_regs *r)
{
	unsigned n = (unsigned)__builtin_popcountll(mask);

	r->abi = rd64(c);
	r->mask = 0;
	if (!r->abi)
		return;
	if (c->bad || (size_t)(c->end - c->p) < (size_t)n * 8) {
		c->bad = 1;
		return;
	}
	/* registers come in mask order; every sample of an event has the same
	 * mask, so its register numbers are listed once (per thread: parallel
	 * readers) and each sample is a run of copies */
	static _Thread_local struct {
		uint64_t mask;
		uint8_t idx[64];
	} last;
	if (last.mask != mask) {
		unsigned k = 0;

		for (uint64_t m = mask; m; m &= m - 1)
			last.idx[k++] = (uint8_t)__builtin_ctzll(m);
		last.mask = mask;
	}
	for (unsigned k = 0; k < n; k++)
		memcpy(&r->regs[last.idx[k]], c->p + 8 * k, 8);
	c->p += 8 * n;
	r->mask = mask;
}

/* The parts of a PERF_SAMPLE_READ value: each counter's entry (value,
 * [id], [lost]) and the times before the entries. */
static void read_layout(uint64_t rf, uint64_t *entry, uint64_t *times)
{
	*entry = 8 + (rf & PERF_FORMAT_ID ? 8 : 0) + (rf & PERF_FORMAT_LOST ? 8 : 0);
	*times = (rf & PERF_FORMAT_TOTAL_TIME_ENABLED ? 8 : 0) +
		 (rf & PERF_FORMAT_TOTAL_TIME_RUNNING ? 8 : 0);
}

static uint64_t read_size(const struct perf_event_attr *attr)
{
	uint64_t entry, times;

	if (attr->read_format & PERF_FORMAT_GROUP)
		return 0; /* variable: nr first */
	read_layout(attr->read_format, &entry, &times);
	return times + entry;
}

int dp_perf_parse_sample(const struct perf_event_attr *attr, const void *rec, size_t size,
			 dp_sample *s)
{
	cur c = {(const uint8_t *)rec + sizeof(struct perf_event_header), (const uint8_t *)rec + size,
		 0};
	uint64_t st = attr->sample_type;

	if (size < sizeof(struct perf_event_header))
		return -1;
	memset(s, 0, offsetof(dp_sample, regs_user));
	s->regs_user.abi = s->regs_user.mask = 0;
	s->regs_intr.abi = s->regs_intr.mask = 0;
	s->sample_type = st;
	s->misc = ((const struct perf_event_header *)rec)->misc;

	rd64_if(&c, st, PERF_SAMPLE_IDENTIFIER, &s->id);
	rd64_if(&c, st, PERF_SAMPLE_IP, &s->ip);
	if (st & PERF_SAMPLE_TID) {
		s->pid = rd32(&c);
		s->tid = rd32(&c);
	}
	rd64_if(&c, st, PERF_SAMPLE_TIME, &s->time);
	rd64_if(&c, st, PERF_SAMPLE_ADDR, &s->addr);
	rd64_if(&c, st, PERF_SAMPLE_ID, &s->id);
	rd64_if(&c, st, PERF_SAMPLE_STREAM_ID, &s->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		s->cpu = rd32(&c);
		rd32(&c);
	}
	rd64_if(&c, st, PERF_SAMPLE_PERIOD, &s->period);
	if (st & PERF_SAMPLE_READ) {
		const uint8_t *start = c.p;
		uint64_t n = read_size(attr);

		if (!n) { /* group: nr, [time_enabled], [time_running], {value, [id], [lost]}[nr] */
			uint64_t nr = rd64(&c), entry, times;

			read_layout(attr->read_format, &entry, &times);
			if (nr > (uint64_t)(c.end - c.p) / entry)
				return -1;
			n = times + nr * entry;
		}
		take(&c, n);
		s->read = start;
		s->read_size = (uint64_t)(c.p - start);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = rd64(&c);

		if (nr > (uint64_t)(c.end - c.p) / 8)
			return -1;
		s->callchain_nr = (uint32_t)nr;
		s->callchain = take(&c, nr * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		s->raw_size = rd32(&c);
		s->raw = take(&c, s->raw_size);
		/* the kernel pads raw data so that the branch entries after it
		 * stay 8-byte aligned; other sizes are not the kernel's */
		if ((s->raw_size + 4) & 7)
			return -1;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr = rd64(&c);

		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			s->branch_hw_idx = rd64(&c);
		if (nr > (uint64_t)(c.end - c.p) / sizeof(struct perf_branch_entry))
			return -1;
		s->branch_nr = nr;
		s->branches = take(&c, nr * sizeof(struct perf_branch_entry));
		/* Linux 6.8+: one u64 of event counters per branch */
		if (attr->branch_sample_type & DP_SAMPLE_BRANCH_COUNTERS)
			take(&c, nr * 8);
	}
	if (st & PERF_SAMPLE_REGS_USER)
		read_regs(&c, attr->sample_regs_user, &s->regs_user);
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t sz = rd64(&c);

		s->stack_user = take(&c, sz);
		if (sz)
			s->stack_user_size = rd64(&c); /* dyn_size: what was really copied */
		if (s->stack_user_size > sz)
			s->stack_user_size = sz;
	}
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		uint64_t w = rd64(&c);

		s->weight = (uint32_t)w;
		s->weight2 = (uint16_t)(w >> 32);
		s->weight3 = (uint16_t)(w >> 48);
	} else if (st & PERF_SAMPLE_WEIGHT) {
		s->weight = rd64(&c);
	}
	rd64_if(&c, st, PERF_SAMPLE_DATA_SRC, &s->data_src);
	rd64_if(&c, st, PERF_SAMPLE_TRANSACTION, &s->transaction);
	if (st & PERF_SAMPLE_REGS_INTR)
		read_regs(&c, attr->sample_regs_intr, &s->regs_intr);
	rd64_if(&c, st, PERF_SAMPLE_PHYS_ADDR, &s->phys_addr);
	rd64_if(&c, st, PERF_SAMPLE_CGROUP, &s->cgroup);
	rd64_if(&c, st, PERF_SAMPLE_DATA_PAGE_SIZE, &s->data_page_size);
	rd64_if(&c, st, PERF_SAMPLE_CODE_PAGE_SIZE, &s->code_page_size);
	/* AUX comes last, after the page sizes, though its bit is lower */
	if (rd64_if(&c, st, PERF_SAMPLE_AUX, &s->aux_size))
		s->aux = take(&c, s->aux_size);
	return c.bad ? -1 : 0;
}

int dp_perf_parse_sample_id(const struct perf_event_attr *attr, const void *rec, size_t size,
			    dp_sample_id *sid)
{
	uint64_t st = attr->sample_type;
	size_t n;
	cur c;

	memset(sid, 0, sizeof(*sid));
	if (!attr->sample_id_all)
		return 0;
	n = FIELDS_SIZE(st, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	if (size < sizeof(struct perf_event_header) + n)
		return -1;
	c.p = (const uint8_t *)rec + size - n;
	c.end = (const uint8_t *)rec + size;
	c.bad = 0;
	if (st & PERF_SAMPLE_TID) {
		sid->pid = rd32(&c);
		sid->tid = rd32(&c);
		sid->has_tid = 1;
	}
	sid->has_time = rd64_if(&c, st, PERF_SAMPLE_TIME, &sid->time);
	sid->has_id = rd64_if(&c, st, PERF_SAMPLE_ID, &sid->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		rd64(&c);
	if (st & PERF_SAMPLE_CPU) {
		sid->cpu = rd32(&c);
		rd32(&c);
		sid->has_cpu = 1;
	}
	if (rd64_if(&c, st, PERF_SAMPLE_IDENTIFIER, &sid->id))
		sid->has_id = 1;
	return c.bad ? -1 : 0;
}

int dp_perf_record_id(const struct perf_event_attr *attr, const void *rec, size_t size,
		      uint64_t *id)
{
	const struct perf_event_header *h = rec;
	uint64_t st = attr->sample_type;
	size_t off = sizeof(*h);

	if (size < sizeof(*h))
		return -1;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (!(st & PERF_SAMPLE_IDENTIFIER)) {
			if (!(st & PERF_SAMPLE_ID))
				return -1;
			off += FIELDS_SIZE(st, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						   PERF_SAMPLE_ADDR);
		}
		if (size < off + 8)
			return -1;
		memcpy(id, (const uint8_t *)rec + off, 8);
		return 0;
	}
	dp_sample_id sid;
	if (dp_perf_parse_sample_id(attr, rec, size, &sid) < 0 || !sid.has_id)
		return -1;
	*id = sid.id;
	return 0;
}

/* A NUL-terminated string inside [p, end), or NULL. */
static const char *str_in(const uint8_t *p, const uint8_t *end)
{
	if (p >= end || !memchr(p, 0, (size_t)(end - p)))
		return NULL;
	return (const char *)p;
}

/* What MMAP2 has beyond MMAP: the file's build-id or its device and inode,
 * then the mapping's protection and flags. */
static void read_mmap2_ids(cur *c, uint16_t misc, dp_mmap_info *m)
{
	if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		const uint8_t *bid = take(c, 24);

		if (bid) {
			m->build_id_size = bid[0] > 20 ? 20 : bid[0];
			memcpy(m->build_id, bid + 4, m->build_id_size);
		}
	} else {
		m->maj = rd32(c);
		m->min = rd32(c);
		m->ino = rd64(c);
		m->ino_generation = rd64(c);
	}
	m->prot = rd32(c);
	m->flags = rd32(c);
}

int dp_perf_decode_side_record(const void *rec, size_t size, dp_record *r)
{
	const struct perf_event_header *h = rec;
	const uint8_t *b = rec, *end = b + size;
	cur c = {b + sizeof(*h), end, 0};

	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		dp_mmap_info *m = &r->mmap;

		memset(m, 0, sizeof(*m));
		r->kind = DP_R_MMAP;
		m->pid = rd32(&c);
		m->tid = rd32(&c);
		m->start = rd64(&c);
		m->len = rd64(&c);
		m->pgoff = rd64(&c);
		m->exec = !(h->misc & PERF_RECORD_MISC_MMAP_DATA);
		if (h->type == PERF_RECORD_MMAP2)
			read_mmap2_ids(&c, h->misc, m);
		else
			m->prot = m->exec ? 5 : 1; /* PROT_READ|PROT_EXEC; MMAP carries no prot */
		m->filename = c.bad ? NULL : str_in(c.p, end);
		return m->filename ? 0 : -1;
	}
	case PERF_RECORD_COMM:
		r->kind = DP_R_COMM;
		rd32(&c);
		rd32(&c);
		r->comm.exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
		r->comm.comm = c.bad ? NULL : str_in(c.p, end);
		return r->comm.comm ? 0 : -1;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		r->kind = h->type == PERF_RECORD_FORK ? DP_R_FORK : DP_R_EXIT;
		r->task.pid = rd32(&c);
		r->task.ppid = rd32(&c);
		r->task.tid = rd32(&c);
		r->task.ptid = rd32(&c);
		rd64(&c);
		return c.bad ? -1 : 0;
	case PERF_RECORD_LOST:
		r->kind = DP_R_LOST;
		r->lost.id = rd64(&c);
		r->lost.count = rd64(&c);
		return c.bad ? -1 : 0;
	case PERF_RECORD_LOST_SAMPLES:
		r->kind = DP_R_LOST_SAMPLES;
		r->lost.id = 0;
		r->lost.count = rd64(&c);
		return c.bad ? -1 : 0;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		r->kind = h->type == PERF_RECORD_THROTTLE ? DP_R_THROTTLE : DP_R_UNTHROTTLE;
		rd64(&c); /* time */
		r->throttle.id = rd64(&c);
		r->throttle.stream_id = rd64(&c);
		return c.bad ? -1 : 0;
	case PERF_RECORD_AUX:
		r->kind = DP_R_AUX;
		r->aux.offset = rd64(&c);
		r->aux.size = rd64(&c);
		r->aux.flags = rd64(&c);
		return c.bad ? -1 : 0;
	default:
		r->kind = DP_R_OTHER;
		r->other = rec;
		return 0;
	}
}

const char *dp_perf_record_type_name(uint32_t type)
{
	static const char *const kernel[] = {
		[PERF_RECORD_MMAP] = "MMAP",
		[PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE",
		[PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
		[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	};
	/* perf's own records, from PERF_RECORD_USER_TYPE_START (64) */
	static const char *const user[] = {
		"HEADER_ATTR",  "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
		"FINISHED_ROUND", "ID_INDEX",        "AUXTRACE_INFO",       "AUXTRACE",
		"AUXTRACE_ERROR", "THREAD_MAP",      "CPU_MAP",             "STAT_CONFIG",
		"STAT",         "STAT_ROUND",        "EVENT_UPDATE",        "TIME_CONV",
		"HEADER_FEATURE", "COMPRESSED",      "FINISHED_INIT",       "COMPRESSED2",
	};

	if (type < DP_ARRAY_LEN(kernel))
		return kernel[type];
	if (type >= 64 && type - 64 < DP_ARRAY_LEN(user))
		return user[type - 64];
	return NULL;
}

const char *dp_perf_reg_name(unsigned reg)
{
	static const char *const names[] = {
		"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "ip", "flags", "cs", "ss",
		"ds", "es", "fs", "gs", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};

	return reg < sizeof(names) / sizeof(names[0]) ? names[reg] : "?";
}
