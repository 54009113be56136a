#include "attr.h"
#include "units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	bool numeric;
} attrs[DP_A_COUNT] = {
    [DP_A_EVENT] = {"event", false},   [DP_A_PROCESS] = {"process", false},
    [DP_A_PID] = {"pid", true},	       [DP_A_THREAD] = {"thread", false},
    [DP_A_TID] = {"tid", true},	       [DP_A_CPU] = {"cpu", true},
    [DP_A_TIME] = {"time", true},      [DP_A_FUNCTION] = {"function", false},
    [DP_A_INLINE] = {"inline", false}, [DP_A_FILE] = {"file", false},
    [DP_A_LINE] = {"line", false},     [DP_A_IP] = {"ip", true},
    [DP_A_INSN] = {"insn", false},     [DP_A_OBJECT] = {"object", false},
    [DP_A_KIND] = {"kind", false},     [DP_A_SITE] = {"site", false},
    [DP_A_TYPE] = {"type", false},     [DP_A_MEMBER] = {"member", false},
    [DP_A_ADDR] = {"addr", true},      [DP_A_CACHELINE] = {"cacheline", true},
    [DP_A_PAGE] = {"page", true},      [DP_A_LEVEL] = {"level", false},
    [DP_A_TLB] = {"tlb", false},       [DP_A_OP] = {"op", false},
    [DP_A_WEIGHT] = {"weight", true},  [DP_A_VERDICT] = {"verdict", false},
    [DP_A_REASON] = {"reason", false}, [DP_A_CALLER] = {"caller", false},
    [DP_A_REGION] = {"region", false},
};

struct dp_attr_ctx {
	dp_row_ctx *rows;
	dp_annotator *ann;
	dp_strtab *strs;
	const dp_event_info *ev;
	size_t nev;
	uint32_t none_by_verdict[DP_V_COUNT]; /* "[unverifiable]"... as objects */
	uint32_t s_unknown, s_none, s_no_region;
	uint32_t s_kind[DP_OBJ_COUNT];
	uint32_t s_reason[DP_AR_COUNT];
	dp_hashmap insn; /* insn_ip -> "function+0x12: mov ..." id */
};

dp_attr_ctx *dp_attr_ctx_new(dp_row_ctx *rows, dp_annotator *a, dp_profile *p)
{
	dp_attr_ctx *c = dp_calloc(1, sizeof(*c));
	char buf[128];

	c->rows = rows;
	c->ann = a;
	c->strs = dp_annotator_strings_mut(a);
	c->ev = dp_profile_events(p, &c->nev);
	for (int v = 0; v < DP_V_COUNT; v++) {
		snprintf(buf, sizeof(buf), "[%s]", dp_verdict_name((dp_verdict)v));
		c->none_by_verdict[v] = dp_strtab_intern(c->strs, buf);
	}
	for (int k = 0; k < DP_OBJ_COUNT; k++)
		c->s_kind[k] = dp_strtab_intern(c->strs, dp_object_kind_name((dp_object_kind)k));
	for (int r = 1; r < DP_AR_COUNT; r++) {
		snprintf(buf, sizeof(buf), "[%s]", dp_annot_reason_name((dp_annot_reason)r));
		c->s_reason[r] = dp_strtab_intern(c->strs, buf);
	}
	c->s_unknown = dp_strtab_intern(c->strs, "[unknown]");
	c->s_none = dp_strtab_intern(c->strs, "-");
	c->s_no_region = dp_strtab_intern(c->strs, "[no marker region]");
	dp_hashmap_init(&c->insn, 256);
	return c;
}

void dp_attr_ctx_free(dp_attr_ctx *c)
{
	if (!c)
		return;
	dp_hashmap_free(&c->insn);
	free(c);
}

dp_strtab *dp_attr_strings(dp_attr_ctx *c)
{
	return c->strs;
}

/* Keys that are ids in the string table (the others are numbers or enums). */
static bool string_keyed(dp_attr_id id)
{
	return !dp_attr_numeric(id) && id != DP_A_EVENT && id != DP_A_VERDICT && id != DP_A_REASON;
}

uint64_t dp_attr_key_in(dp_attr_ctx *dst, const dp_attr_ctx *src, const dp_attr *a, uint64_t key)
{
	if (!string_keyed(a->id))
		return key;
	return dp_strtab_intern(dst->strs, dp_strtab_get(src->strs, (uint32_t)key));
}

int dp_attr_compare(const dp_attr_ctx *c, const dp_attr *a, uint64_t x, uint64_t y)
{
	if (x == y)
		return 0;
	if (string_keyed(a->id)) {
		int d = strcmp(dp_strtab_get(c->strs, (uint32_t)x),
			       dp_strtab_get(c->strs, (uint32_t)y));
		if (d)
			return d < 0 ? -1 : 1;
	}
	return x < y ? -1 : 1;
}

const char *dp_attr_name(dp_attr_id id)
{
	return (unsigned)id < DP_A_COUNT ? attrs[id].name : "?";
}

bool dp_attr_numeric(dp_attr_id id)
{
	return (unsigned)id < DP_A_COUNT && attrs[id].numeric;
}

const char *dp_attr_all_names(void)
{
	static char all[512];

	if (!all[0]) {
		size_t o = 0;
		for (int i = 0; i < DP_A_COUNT; i++)
			o += (size_t)snprintf(all + o, sizeof(all) - o, "%s%s", i ? ", " : "",
					      attrs[i].name);
	}
	return all;
}

/* Names are quoted in errors up to this many characters, so that a long one
 * leaves room for the reason and the list of valid names. */
#define QUOTE 40

bool dp_attr_parse(const char *name, dp_attr *out, dp_error *err)
{
	const char *colon = strchr(name, ':');
	size_t n = colon ? (size_t)(colon - name) : strlen(name);
	int q = (int)strnlen(name, QUOTE);
	const char *more = name[q] ? "..." : "";

	memset(out, 0, sizeof(*out));
	/* the member path is also asked for as type.member (as in diff) */
	if (n == 11 && !strncmp(name, "type.member", 11)) {
		out->id = DP_A_MEMBER;
		return true;
	}
	for (int i = 0; i < DP_A_COUNT; i++) {
		if (strlen(attrs[i].name) != n || strncmp(attrs[i].name, name, n))
			continue;
		out->id = (dp_attr_id)i;
		if (colon && i != DP_A_TIME) {
			dp_error_set(
			    err, "'%.*s%s': only time takes a bucket width (time:100ms, time:1s)",
			    q, name, more);
			return false;
		}
		if (colon) {
			char why[160];

			if (!dp_parse_duration(colon + 1, &out->bucket, why, sizeof(why))) {
				dp_error_set(err, "'%.*s%s': the bucket width %s", q, name, more,
					     why);
				return false;
			}
			if (!out->bucket) {
				dp_error_set(err, "'%.*s%s': the bucket width must be more than 0",
					     q, name, more);
				return false;
			}
		}
		return true;
	}
	dp_error_set(err, "unknown attribute '%.*s%s'; the attributes are: %s",
		     (int)(n < QUOTE ? n : QUOTE), name, n > QUOTE ? "..." : "",
		     dp_attr_all_names());
	return false;
}

static uint32_t intern(dp_attr_ctx *c, const char *s)
{
	return dp_strtab_intern(c->strs, s);
}

uint64_t dp_attr_key(dp_attr_ctx *c, dp_row *r, const dp_attr *a)
{
	const dp_sample *s = r->s;
	const dp_decoded *x = r->x;
	const dp_annotation *an = r->a;
	bool trusted = x->verdict == DP_V_EXACT || x->verdict == DP_V_VERIFIED;

	switch (a->id) {
	case DP_A_EVENT:
		return s->event;
	case DP_A_PROCESS:
		return r->process ? r->process : c->s_unknown;
	case DP_A_PID:
		return s->pid;
	case DP_A_THREAD:
		return r->thread ? r->thread : c->s_unknown;
	case DP_A_TID:
		return s->tid;
	case DP_A_CPU:
		return s->cpu;
	case DP_A_TIME:
		return a->bucket ? r->time_rel / a->bucket : r->time_rel;
	case DP_A_FUNCTION:
		return an->function ? an->function : c->s_unknown;
	case DP_A_INLINE:
		return an->inline_chain ? an->inline_chain : c->s_none;
	case DP_A_FILE:
		return an->file ? an->file : c->s_unknown;
	case DP_A_LINE:
		return an->line ? an->line : c->s_unknown;
	case DP_A_IP:
		return s->ip;
	case DP_A_INSN: {
		uint64_t v;
		char buf[256];

		if (x->insn < 0)
			return c->none_by_verdict[x->verdict];
		if (dp_hashmap_get(&c->insn, x->insn_ip, &v))
			return v;
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64 ": %s", x->function ? x->function : "?",
			 x->insn_vaddr - x->function_vaddr,
			 dp_strtab_get(c->strs, dp_row_insn(c->rows, r)));
		v = intern(c, buf);
		dp_hashmap_put(&c->insn, x->insn_ip, v);
		return v;
	}
	case DP_A_OBJECT:
		/* dataprof's own work, a system call: one row each, whatever the address */
		if (an->obj_reason == DP_AR_OWN_WORK || an->obj_reason == DP_AR_SYSCALL)
			return an->function;
		/* no trusted address: a row of its own per verdict, never merged */
		if (!trusted)
			return c->none_by_verdict[x->verdict];
		return an->object ? an->object : c->s_unknown;
	case DP_A_KIND:
		return trusted ? c->s_kind[an->obj_kind] : c->none_by_verdict[x->verdict];
	case DP_A_SITE:
		return an->site ? an->site : c->s_none;
	case DP_A_TYPE:
		return an->type		 ? an->type
		       : an->type_reason ? c->s_reason[an->type_reason]
					 : c->s_none;
	case DP_A_MEMBER:
		if (an->member)
			return an->member;
		if (an->type)
			return an->type; /* the whole object */
		return an->type_reason ? c->s_reason[an->type_reason] : c->s_none;
	case DP_A_ADDR:
		return x->data_addr;
	case DP_A_CACHELINE:
		return x->data_addr & ~63ull;
	case DP_A_PAGE:
		return x->data_addr & ~4095ull;
	case DP_A_LEVEL:
		return r->level ? r->level : c->s_none;
	case DP_A_TLB:
		return r->tlb ? r->tlb : c->s_none;
	case DP_A_OP:
		return r->op ? r->op : c->s_none;
	case DP_A_WEIGHT:
		return s->weight;
	case DP_A_VERDICT:
		return x->verdict;
	case DP_A_REASON:
		return x->reason;
	case DP_A_CALLER: {
		uint32_t v = dp_row_caller(c->rows, r);
		return v ? v : c->s_unknown;
	}
	case DP_A_REGION:
		return dp_row_region(c->rows, r);
	default:
		return 0;
	}
}

const char *dp_attr_string(dp_attr_ctx *c, const dp_attr *a, uint64_t key)
{
	switch (a->id) {
	case DP_A_EVENT:
		return key < c->nev && c->ev[key].name ? c->ev[key].name : "?";
	case DP_A_VERDICT:
		return dp_verdict_name((dp_verdict)key);
	case DP_A_REASON:
		return key ? dp_reason_name((dp_reason)key) : "-";
	default:
		if (dp_attr_numeric(a->id))
			return NULL;
		return dp_strtab_get(c->strs, (uint32_t)key);
	}
}

const char *dp_attr_format(dp_attr_ctx *c, const dp_attr *a, uint64_t key, char *buf, size_t len)
{
	const char *s = dp_attr_string(c, a, key);

	if (s)
		return s;
	switch (a->id) {
	case DP_A_TIME: {
		uint64_t ns = a->bucket ? key * a->bucket : key;
		snprintf(buf, len, "%.3fs", (double)ns / 1e9);
		break;
	}
	case DP_A_IP:
	case DP_A_ADDR:
	case DP_A_CACHELINE:
	case DP_A_PAGE:
		snprintf(buf, len, "0x%" PRIx64, key);
		break;
	default:
		snprintf(buf, len, "%" PRIu64, key);
	}
	return buf;
}
