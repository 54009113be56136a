/* pprof's profile.proto (export/vendor/pprof), gzip-compressed: what pprof,
 * Pyroscope and Parca read. Samples with the same stack and the same data
 * labels are merged; each carries its count and, per event, its period
 * (CPU nanoseconds for cpu-clock and task-clock, events otherwise). */
#include "export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hashmap.h"
#include "profile.pb-c.h"
#include "strtab.h"

#define MAX_FRAMES 128

/* Data labels; names a Prometheus-style label set accepts (Pyroscope,
 * Parca): letters, digits, underscores. */
static const struct {
	const char *key;
	dp_attr_id attr;
} labels[] = {
    {"data_object", DP_A_OBJECT},
    {"type_member", DP_A_MEMBER},
    {"alloc_site", DP_A_SITE},
    {"verdict", DP_A_VERDICT},
};
#define NLABELS DP_ARRAY_LEN(labels)

typedef struct loc {
	uint64_t address;
	uint32_t function; /* index in funcs */
	int64_t line;
} loc;

typedef struct func {
	uint32_t name, file; /* pprof strings */
} func;

typedef struct psample {
	uint32_t nloc, first;	 /* locations: frames[first..first+nloc), leaf first */
	uint32_t label[NLABELS]; /* pprof strings; 0: none */
	uint64_t *values;	 /* samples, then each event's period */
	uint64_t seq, ip;	 /* its first sample's place in the profile and IP */
} psample;

/* A part of the report sums its samples here; the parts are merged by the
 * texts of their stacks and labels, then put in the order a single pass
 * makes (by the place of each stack's first sample), so that the profile
 * is the same however the samples were split. */
struct dp_pprof {
	const dp_report_result *res; /* part 0's: the whole report's */
	dp_annotator *ann;	     /* this part's */
	dp_strtab strs;		     /* the profile's string table: id 0 is "" */
	DP_VEC(loc) locs;
	dp_hashmap loc_index; /* hash of (function, file, line) or caller -> loc */
	DP_VEC(func) funcs;
	dp_hashmap func_index; /* name << 32 | file -> func */
	DP_VEC(uint32_t) frames;
	DP_VEC(psample) samples;
	dp_hashmap sample_index; /* hash of (frames, labels) -> sample */
	dp_hashmap callers;	 /* pid << 48 ^ return address -> annotator string id */
	size_t nev;
	uint64_t first, last;
};

dp_pprof *dp_pprof_new(const dp_report_result *part)
{
	dp_pprof *p = dp_calloc(1, sizeof(*p));

	p->res = part;
	p->ann = part ? part->ann : NULL;
	p->nev = part && part->nev ? part->nev : 1;
	dp_strtab_init(&p->strs);
	dp_strtab_intern(&p->strs, ""); /* string 0, as pprof wants */
	dp_hashmap_init(&p->loc_index, 256);
	dp_hashmap_init(&p->func_index, 256);
	dp_hashmap_init(&p->sample_index, 1024);
	dp_hashmap_init(&p->callers, 256);
	p->first = UINT64_MAX;
	return p;
}

void dp_pprof_free(dp_pprof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->samples.n; i++)
		free(p->samples.v[i].values);
	dp_vec_free(&p->samples);
	dp_vec_free(&p->locs);
	dp_vec_free(&p->funcs);
	dp_vec_free(&p->frames);
	dp_hashmap_free(&p->loc_index);
	dp_hashmap_free(&p->func_index);
	dp_hashmap_free(&p->sample_index);
	dp_hashmap_free(&p->callers);
	dp_strtab_free(&p->strs);
	free(p);
}

static uint32_t func_of(dp_pprof *p, const char *name, const char *file)
{
	uint32_t n = dp_strtab_intern(&p->strs, name), f = dp_strtab_intern(&p->strs, file);
	uint64_t key = (uint64_t)n << 32 | f, v;

	if (dp_hashmap_get(&p->func_index, key, &v))
		return (uint32_t)v;
	func fn = {n, f};
	dp_vec_push(&p->funcs, fn);
	dp_hashmap_put(&p->func_index, key, p->funcs.n - 1);
	return (uint32_t)(p->funcs.n - 1);
}

/* A location per distinct (function, line) at the sample's IP, and per
 * calling function (line 0: the call chain gives no line) further up. */
static uint32_t loc_of(dp_pprof *p, uint32_t fn, int64_t line, uint64_t address, bool caller)
{
	uint64_t key[3] = {fn, (uint64_t)line, caller}, h = dp_hash_bytes(key, sizeof(key), 7), v;

	while (dp_hashmap_get(&p->loc_index, h, &v)) {
		const loc *l = &p->locs.v[v];
		if (l->function == fn && l->line == line && (l->address == 0) == caller)
			return (uint32_t)v;
		h++;
	}
	loc l = {caller ? 0 : address, fn, line};
	dp_vec_push(&p->locs, l);
	dp_hashmap_put(&p->loc_index, h, p->locs.n - 1);
	return (uint32_t)(p->locs.n - 1);
}

static const char *caller_name(dp_pprof *p, const dp_sample *s, uint64_t ret)
{
	uint64_t key = (uint64_t)s->pid << 48 ^ ret, v;
	const dp_strtab *a = dp_annotator_strings(p->ann);

	if (!dp_hashmap_get(&p->callers, key, &v)) {
		v = dp_annotate_function_at(p->ann, s->pid, ret - 1, s->time);
		dp_hashmap_put(&p->callers, key, v);
	}
	return v ? dp_strtab_get(a, (uint32_t)v) : "[unknown]";
}

/* The sample of a stack and labels, made (with its first place and IP)
 * when there is none. */
static size_t sample_of(dp_pprof *p, const uint32_t *stack, uint32_t n, const uint32_t *lab,
			uint64_t seq, uint64_t ip)
{
	uint64_t h = dp_hash_bytes(stack, n * sizeof(uint32_t),
				   dp_hash_bytes(lab, NLABELS * sizeof(uint32_t), n)),
		 v;

	for (;; h++) {
		if (!dp_hashmap_get(&p->sample_index, h, &v)) {
			psample ps = {n, (uint32_t)p->frames.n, {0}, dp_calloc(1 + p->nev, 8), seq,
				      ip};

			memcpy(ps.label, lab, sizeof(ps.label));
			for (uint32_t i = 0; i < n; i++)
				dp_vec_push(&p->frames, stack[i]);
			dp_vec_push(&p->samples, ps);
			dp_hashmap_put(&p->sample_index, h, p->samples.n - 1);
			return p->samples.n - 1;
		}
		psample *o = &p->samples.v[v];
		if (o->nloc == n && !memcmp(&p->frames.v[o->first], stack, n * sizeof(uint32_t)) &&
		    !memcmp(o->label, lab, sizeof(o->label))) {
			if (seq < o->seq) {
				o->seq = seq;
				o->ip = ip;
			}
			return v;
		}
	}
}

void dp_pprof_row(void *ctx, dp_attr_ctx *attrs, dp_row *row)
{
	dp_pprof *p = ctx;
	const dp_sample *s = row->s;
	const dp_annotation *an = row->a;
	const dp_strtab *as = dp_annotator_strings(p->ann);
	uint32_t stack[MAX_FRAMES], n = 0, lab[NLABELS];
	size_t v;
	char buf[128];

	stack[n++] = loc_of(p,
			    func_of(p, an->function ? dp_strtab_get(as, an->function) : "[unknown]",
				    an->file ? dp_strtab_get(as, an->file) : ""),
			    an->line_no, s->ip, false);
	if (s->sample_type & PERF_SAMPLE_CALLCHAIN) {
		/* the return addresses, less the context markers among them */
		for (uint32_t i = dp_callchain_returns(s); i < s->callchain_nr && n < MAX_FRAMES;
		     i++) {
			uint64_t a = s->callchain[i];

			if (a >= PERF_CONTEXT_MAX)
				continue;
			stack[n++] = loc_of(p, func_of(p, caller_name(p, s, a), ""), 0, 0, true);
		}
	}
	for (size_t i = 0; i < NLABELS; i++) {
		dp_attr a = {labels[i].attr, 0};
		const char *val =
		    dp_attr_format(attrs, &a, dp_attr_key(attrs, row, &a), buf, sizeof(buf));
		lab[i] = strcmp(val, "-") ? dp_strtab_intern(&p->strs, val) : 0;
	}
	v = sample_of(p, stack, n, lab, row->seq, s->ip);
	p->samples.v[v].values[0]++;
	if (s->event < p->nev)
		p->samples.v[v].values[1 + s->event] += s->period ? s->period : 1;
	if (s->time < p->first)
		p->first = s->time;
	if (s->time > p->last)
		p->last = s->time;
}

/* src's sample ps into dst, by the texts of its frames and labels; the
 * leaf's address is the sample's first IP where dst has no such location. */
static void add_sample(dp_pprof *dst, const dp_pprof *src, const psample *ps)
{
	uint32_t stack[MAX_FRAMES], lab[NLABELS];
	size_t v;

	for (uint32_t i = 0; i < ps->nloc; i++) {
		const loc *l = &src->locs.v[src->frames.v[ps->first + i]];
		const func *f = &src->funcs.v[l->function];
		uint32_t fn = func_of(dst, dp_strtab_get(&src->strs, f->name),
				      dp_strtab_get(&src->strs, f->file));

		stack[i] =
		    loc_of(dst, fn, l->line, i ? 0 : ps->ip, i > 0); /* callers above the leaf */
	}
	for (size_t k = 0; k < NLABELS; k++)
		lab[k] = ps->label[k]
			     ? dp_strtab_intern(&dst->strs, dp_strtab_get(&src->strs, ps->label[k]))
			     : 0;
	v = sample_of(dst, stack, ps->nloc, lab, ps->seq, ps->ip);
	for (size_t k = 0; k <= dst->nev && k <= src->nev; k++)
		dst->samples.v[v].values[k] += ps->values[k];
}

void dp_pprof_merge(dp_pprof *dst, const dp_pprof *src)
{
	for (size_t i = 0; i < src->samples.n; i++)
		add_sample(dst, src, &src->samples.v[i]);
	dst->first = DP_MIN(dst->first, src->first);
	dst->last = DP_MAX(dst->last, src->last);
}

static int by_seq(const void *a, const void *b)
{
	const psample *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Strings, functions, locations and samples numbered as one pass over the
 * samples in file order numbers them: each sample in the order of its
 * first place, its frames leaf first, then its labels. */
static void order_canonically(dp_pprof *p)
{
	dp_pprof *q = dp_pprof_new(NULL);

	q->nev = p->nev;
	if (p->samples.n)
		qsort(p->samples.v, p->samples.n, sizeof(psample), by_seq);
	for (size_t i = 0; i < p->samples.n; i++)
		add_sample(q, p, &p->samples.v[i]);
	q->res = p->res;
	q->ann = p->ann;
	q->first = p->first;
	q->last = p->last;
	/* q takes p's place */
	dp_pprof tmp = *p;
	*p = *q;
	*q = tmp;
	dp_pprof_free(q);
}

static bool time_event(const char *name)
{
	return !strncmp(name, "cpu-clock", 9) || !strncmp(name, "task-clock", 10);
}

static Perftools__Profiles__ValueType *value_type(dp_pprof *p, const char *type, const char *unit)
{
	Perftools__Profiles__ValueType *vt = dp_calloc(1, sizeof(*vt));

	perftools__profiles__value_type__init(vt);
	vt->type = dp_strtab_intern(&p->strs, type);
	vt->unit = dp_strtab_intern(&p->strs, unit);
	return vt;
}

static int gzip_write(const char *path, const uint8_t *data, size_t len, dp_error *err)
{
	gzFile gz = gzopen(path, "wb");

	if (!gz) {
		dp_error_set(err, "cannot write '%s': %m (choose another file)", path);
		return -1;
	}
	while (len) {
		unsigned chunk = len > (1u << 30) ? 1u << 30 : (unsigned)len;
		if (gzwrite(gz, data, chunk) != (int)chunk) {
			gzclose(gz);
			dp_error_set(err, "writing '%s' failed (is the disk full?)", path);
			return -1;
		}
		data += chunk;
		len -= chunk;
	}
	if (gzclose(gz) != Z_OK) {
		dp_error_set(err, "writing '%s' failed (is the disk full?)", path);
		return -1;
	}
	return 0;
}

static int encode_write(dp_pprof *p, const char *path, dp_error *err)
{
	Perftools__Profiles__Profile pr;
	Perftools__Profiles__Mapping map, *maps[1] = {&map};
	size_t nev = p->res->nev, nst = 1 + nev, ev_default = 0;
	Perftools__Profiles__ValueType **st = dp_calloc(nst, sizeof(*st));
	Perftools__Profiles__Sample **smp = dp_calloc(p->samples.n + 1, sizeof(*smp));
	Perftools__Profiles__Sample *sv = dp_calloc(p->samples.n + 1, sizeof(*sv));
	Perftools__Profiles__Label *lv = dp_calloc(p->samples.n * NLABELS + 1, sizeof(*lv));
	Perftools__Profiles__Label **lp = dp_calloc(p->samples.n * NLABELS + 1, sizeof(*lp));
	uint64_t *locids = dp_calloc(p->frames.n + 1, sizeof(uint64_t));
	int64_t *vals = dp_calloc(p->samples.n * nst + 1, sizeof(int64_t));
	Perftools__Profiles__Location **lcp = dp_calloc(p->locs.n + 1, sizeof(*lcp));
	Perftools__Profiles__Location *lcv = dp_calloc(p->locs.n + 1, sizeof(*lcv));
	Perftools__Profiles__Line *lnv = dp_calloc(p->locs.n + 1, sizeof(*lnv));
	Perftools__Profiles__Line **lnp = dp_calloc(p->locs.n + 1, sizeof(*lnp));
	Perftools__Profiles__Function **fnp = dp_calloc(p->funcs.n + 1, sizeof(*fnp));
	Perftools__Profiles__Function *fnv = dp_calloc(p->funcs.n + 1, sizeof(*fnv));
	uint32_t label_keys[NLABELS];
	const char *cmd = dp_profile_meta(p->res->p, "cmdline");
	char prog[256] = "";
	uint8_t *buf = NULL;
	size_t len, nl = 0;
	int rc;

	perftools__profiles__profile__init(&pr);
	st[0] = value_type(p, "samples", "count");
	for (size_t e = 0; e < nev; e++) {
		const char *name = p->res->ev[e].name ? p->res->ev[e].name : "?";
		bool tb = time_event(name);

		st[1 + e] = value_type(p, tb ? "cpu" : name, tb ? "nanoseconds" : "events");
		/* the default is the first event's metric; the one with most samples */
		if (p->res->ev[e].samples > p->res->ev[ev_default].samples)
			ev_default = e;
	}
	pr.n_sample_type = nst;
	pr.sample_type = st;
	if (nev) {
		const dp_event_info *ev = &p->res->ev[ev_default];

		pr.default_sample_type = st[1 + ev_default]->type;
		pr.period_type =
		    value_type(p, dp_strtab_get(&p->strs, (uint32_t)st[1 + ev_default]->type),
			       dp_strtab_get(&p->strs, (uint32_t)st[1 + ev_default]->unit));
		if (!ev->attr.freq)
			pr.period = (int64_t)ev->attr.sample_period;
		else if (time_event(ev->name ? ev->name : "") && ev->attr.sample_freq)
			pr.period = (int64_t)(1000000000ull / ev->attr.sample_freq);
	}
	for (size_t i = 0; i < NLABELS; i++)
		label_keys[i] = dp_strtab_intern(&p->strs, labels[i].key);
	for (size_t i = 0; i < p->frames.n; i++)
		locids[i] = p->frames.v[i] + 1;
	for (size_t i = 0; i < p->samples.n; i++) {
		const psample *ps = &p->samples.v[i];
		Perftools__Profiles__Sample *s = &sv[i];

		perftools__profiles__sample__init(s);
		s->n_location_id = ps->nloc;
		s->location_id = &locids[ps->first];
		s->n_value = nst;
		s->value = &vals[i * nst];
		for (size_t k = 0; k < nst; k++)
			s->value[k] = (int64_t)ps->values[k];
		s->label = &lp[nl];
		for (size_t k = 0; k < NLABELS; k++) {
			if (!ps->label[k])
				continue;
			perftools__profiles__label__init(&lv[nl]);
			lv[nl].key = label_keys[k];
			lv[nl].str = ps->label[k];
			lp[nl] = &lv[nl];
			nl++;
			s->n_label++;
		}
		smp[i] = s;
	}
	pr.n_sample = p->samples.n;
	pr.sample = smp;
	for (size_t i = 0; i < p->funcs.n; i++) {
		perftools__profiles__function__init(&fnv[i]);
		fnv[i].id = i + 1;
		fnv[i].name = fnv[i].system_name = p->funcs.v[i].name;
		fnv[i].filename = p->funcs.v[i].file;
		fnp[i] = &fnv[i];
	}
	pr.n_function = p->funcs.n;
	pr.function = fnp;
	for (size_t i = 0; i < p->locs.n; i++) {
		perftools__profiles__location__init(&lcv[i]);
		perftools__profiles__line__init(&lnv[i]);
		lcv[i].id = i + 1;
		lcv[i].mapping_id = 1;
		lcv[i].address = p->locs.v[i].address;
		lnv[i].function_id = p->locs.v[i].function + 1;
		lnv[i].line = p->locs.v[i].line;
		lnp[i] = &lnv[i];
		lcv[i].n_line = 1;
		lcv[i].line = &lnp[i];
		lcp[i] = &lcv[i];
	}
	pr.n_location = p->locs.n;
	pr.location = lcp;
	/* one mapping that says the functions are already symbolized, so that
	 * pprof does not look for the binary */
	perftools__profiles__mapping__init(&map);
	map.id = 1;
	map.memory_limit = UINT64_MAX;
	if (cmd)
		sscanf(cmd, "%255s", prog);
	map.filename = dp_strtab_intern(&p->strs, prog);
	map.has_functions = map.has_filenames = map.has_line_numbers = 1;
	pr.n_mapping = 1;
	pr.mapping = maps;
	pr.time_nanos = (int64_t)dp_profile_header(p->res->p)->start_realtime_ns;
	if (p->last > p->first && p->first != UINT64_MAX)
		pr.duration_nanos = (int64_t)(p->last - p->first);
	/* the string table last: everything above has interned its strings */
	pr.n_string_table = dp_strtab_count(&p->strs);
	pr.string_table = dp_calloc(pr.n_string_table + 1, sizeof(char *));
	for (size_t i = 0; i < pr.n_string_table; i++)
		pr.string_table[i] = (char *)dp_strtab_get(&p->strs, (uint32_t)i);
	len = perftools__profiles__profile__get_packed_size(&pr);
	buf = dp_malloc(len ? len : 1);
	perftools__profiles__profile__pack(&pr, buf);
	rc = gzip_write(path, buf, len, err);
	free(buf);
	free(pr.string_table);
	for (size_t i = 0; i < nst; i++)
		free(st[i]);
	free(pr.period_type);
	free(st);
	free(smp);
	free(sv);
	free(lv);
	free(lp);
	free(locids);
	free(vals);
	free(lcp);
	free(lcv);
	free(lnv);
	free(lnp);
	free(fnp);
	free(fnv);
	return rc;
}

int dp_pprof_write(dp_pprof *p, const char *path, dp_error *err)
{
	order_canonically(p);
	return encode_write(p, path, err);
}
