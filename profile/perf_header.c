/* What a perf.data file says about itself: feature sections (from the file
 * header, or HEADER_FEATURE records in pipe mode) and perf's description
 * records (attributes, event IDs, event names, build-ids). Everything maps
 * onto the profile's events, metadata and build-ids. */
#include "perf_file.h"
#include "event_class.h"

#include <stdio.h>
#include <stdlib.h>

#define PERF_ATTR_SIZE_MIN 64	      /* PERF_ATTR_SIZE_VER0: every attr has these bytes */
#define BUILD_ID_MISC_SIZE (1u << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */
#define EVENT_UPDATE_NAME  2	      /* PERF_EVENT_UPDATE__NAME */

void dp_perf_set_event_name(dp_profile *p, uint32_t index, const char *name, size_t len)
{
	if (index >= p->events.n)
		return;
	free((char *)p->events.v[index].name);
	p->events.v[index].name = dp_strndup(name, len);
}

/* struct perf_header_string: u32 len, then len bytes, NUL-padded. */
static const char *read_string(dp_pcur *c, size_t *len)
{
	uint32_t n = dp_pc_u32(c);
	const char *s = (const char *)dp_pc_take(c, n);

	*len = s ? strnlen(s, n) : 0;
	return s;
}

static int meta_string(dp_profile *p, const char *key, const uint8_t *b, size_t n)
{
	dp_pcur c = {b, b + n, false};
	size_t len;
	const char *s = read_string(&c, &len);

	if (!s)
		return -1;
	char *v = dp_strndup(s, len);
	dp_profile_set_meta(p, key, v);
	free(v);
	return 0;
}

/* HEADER_CMDLINE: a string list, joined by spaces. */
static int cmdline(dp_profile *p, const uint8_t *b, size_t n)
{
	dp_pcur c = {b, b + n, false};
	uint32_t nr = dp_pc_u32(&c);
	dp_buf line = {0};

	if (nr > n / 4)
		return -1;
	for (uint32_t i = 0; i < nr && !c.bad; i++) {
		size_t len;
		const char *s = read_string(&c, &len);

		if (s) {
			if (i)
				dp_buf_add(&line, " ", 1);
			dp_buf_add(&line, s, len);
		}
	}
	dp_buf_add(&line, "", 1);
	if (!c.bad)
		dp_profile_set_meta(p, "cmdline", line.p);
	dp_buf_free(&line);
	return c.bad ? -1 : 0;
}

/* HEADER_EVENT_DESC: per event, its attr, IDs and name as the user wrote it. */
static int event_desc(dp_profile *p, const uint8_t *b, size_t n)
{
	dp_pcur c = {b, b + n, false};
	uint32_t nr = dp_pc_u32(&c), asz = dp_pc_u32(&c);

	if (c.bad || asz < PERF_ATTR_SIZE_MIN || nr > n / asz)
		return -1;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nids, index;
		const char *name;
		size_t len;
		bool named = false;

		dp_pc_take(&c, asz);
		nids = dp_pc_u32(&c);
		name = read_string(&c, &len);
		if (c.bad || nids > (size_t)(c.end - c.p) / 8)
			return -1;
		for (uint32_t k = 0; k < nids; k++) {
			uint64_t id = dp_pc_u64(&c);

			if (!named && dp_profile_event_of_id(p, id, &index)) {
				dp_perf_set_event_name(p, index, name, len);
				named = true;
			}
		}
		/* no IDs (one event, no ID in its samples): events are in attr order */
		if (!nids && i < p->events.n)
			dp_perf_set_event_name(p, i, name, len);
	}
	return 0;
}

/* One build_id_event: header, [pid], build_id[24], filename. Files from
 * perf before 2.6.34 lack the pid (old_abi). */
static int add_build_id(dp_profile *p, const uint8_t *rec, size_t n, bool old_abi)
{
	size_t name_at = old_abi ? 32 : 36, id_at = old_abi ? 8 : 12;
	dp_build_id b = {0};
	uint16_t misc;
	int32_t pid = -1;

	if (n <= name_at)
		return -1;
	memcpy(&misc, rec + 4, 2);
	if (!old_abi)
		memcpy(&pid, rec + 8, 4);
	b.pid = pid;
	b.cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	b.size = misc & BUILD_ID_MISC_SIZE ? rec[id_at + 20] : 20;
	if (b.size > 20)
		b.size = 20;
	memcpy(b.id, rec + id_at, b.size);
	b.filename = dp_strndup((const char *)rec + name_at, n - name_at);
	dp_vec_push(&p->perf->build_ids, b);
	return 0;
}

/* HEADER_BUILD_ID: a sequence of build_id_event, each sized by its header. */
static int build_ids(dp_profile *p, const uint8_t *b, size_t n)
{
	bool old_abi = false;

	/* perf's own test: in the old layout, the first name (the kernel's)
	 * seems to lose its first four bytes to where the pid would be */
	if (n > 36 + 13 && !memcmp(b + 36, "nel.kallsyms]", 13))
		old_abi = true;
	for (size_t at = 0; n - at >= 8;) {
		uint16_t size;

		memcpy(&size, b + at + 6, 2);
		if (size < 8 || size > n - at)
			return -1;
		if (add_build_id(p, b + at, size, old_abi) < 0)
			return -1;
		at += size;
	}
	return 0;
}

static const char *clock_name(uint64_t id, char *buf, size_t len)
{
	switch (id) {
	case 0:
		return "CLOCK_REALTIME";
	case 1:
		return "CLOCK_MONOTONIC";
	case 4:
		return "CLOCK_MONOTONIC_RAW";
	case 7:
		return "CLOCK_BOOTTIME";
	case 11:
		return "CLOCK_TAI";
	default:
		snprintf(buf, len, "clockid %llu", (unsigned long long)id);
		return buf;
	}
}

int dp_perf_feature(dp_profile *p, uint64_t feat, const uint8_t *b, size_t n)
{
	/* the features that are one string, kept as the profile's metadata */
	static const struct {
		uint64_t feat;
		const char *key;
	} strings[] = {
	    {DP_FEAT_HOSTNAME, "hostname"},    {DP_FEAT_OSRELEASE, "kernel"},
	    {DP_FEAT_VERSION, "perf_version"}, {DP_FEAT_ARCH, "arch"},
	    {DP_FEAT_CPUDESC, "cpu"},	       {DP_FEAT_CPUID, "cpuid"},
	};

	for (size_t i = 0; i < DP_ARRAY_LEN(strings); i++)
		if (feat == strings[i].feat)
			return meta_string(p, strings[i].key, b, n);
	switch (feat) {
	case DP_FEAT_BUILD_ID:
		return build_ids(p, b, n);
	case DP_FEAT_CMDLINE:
		return cmdline(p, b, n);
	case DP_FEAT_EVENT_DESC:
		return event_desc(p, b, n);
	case DP_FEAT_NRCPUS: {
		dp_pcur c = {b, b + n, false};
		uint32_t avail = dp_pc_u32(&c), online = dp_pc_u32(&c);
		char buf[16];

		if (c.bad)
			return -1;
		snprintf(buf, sizeof(buf), "%u", online ? online : avail);
		dp_profile_set_meta(p, "ncpus", buf);
		return 0;
	}
	case DP_FEAT_CLOCKID: {
		dp_pcur c = {b, b + n, false};
		uint64_t id = dp_pc_u64(&c);
		char buf[32];

		if (c.bad)
			return -1;
		dp_profile_set_meta(p, "clock", clock_name(id, buf, sizeof(buf)));
		return 0;
	}
	default:
		return feat > DP_FEAT_LAST_KNOWN ? 1 : 0;
	}
}

int dp_perf_attr_record(dp_profile *p, const uint8_t *rec, size_t n, uint32_t index)
{
	uint32_t asz;

	if (n < 8 + PERF_ATTR_SIZE_MIN)
		return -1;
	memcpy(&asz, rec + 8 + 4, 4);
	if (!asz)
		asz = PERF_ATTR_SIZE_MIN;
	if (asz < PERF_ATTR_SIZE_MIN || asz > n - 8)
		return -1;
	if (!dp_profile_add_event(p, index, NULL, rec + 8, asz))
		return -1;
	/* the IDs of the event's file descriptors fill the rest */
	for (size_t at = 8 + asz; n - at >= 8; at += 8) {
		uint64_t id;

		memcpy(&id, rec + at, 8);
		dp_profile_add_id(p, id, index);
	}
	return 0;
}

int dp_perf_event_update(dp_profile *p, const uint8_t *rec, size_t n)
{
	dp_pcur c = {rec + 8, rec + n, false};
	uint64_t type = dp_pc_u64(&c), id = dp_pc_u64(&c);
	uint32_t index;

	if (c.bad)
		return -1;
	if (type == EVENT_UPDATE_NAME && dp_profile_event_of_id(p, id, &index)) {
		size_t len = strnlen((const char *)c.p, (size_t)(c.end - c.p));

		if (len)
			dp_perf_set_event_name(p, index, (const char *)c.p, len);
	}
	return 0;
}

/* HEADER_EVENT_TYPE (old perf): a tracepoint's id and name. */
int dp_perf_event_type(dp_profile *p, const uint8_t *rec, size_t n)
{
	uint64_t id;

	if (n < 16 + 1)
		return -1;
	memcpy(&id, rec + 8, 8);
	for (uint32_t i = 0; i < p->events.n; i++) {
		dp_event_info *e = &p->events.v[i];

		if (!e->name && e->attr.type == PERF_TYPE_TRACEPOINT && e->attr.config == id)
			dp_perf_set_event_name(p, i, (const char *)rec + 16,
					       strnlen((const char *)rec + 16, DP_MIN(n - 16, 64)));
	}
	return 0;
}

int dp_perf_build_id_record(dp_profile *p, const uint8_t *rec, size_t n)
{
	return add_build_id(p, rec, n, false);
}

void dp_perf_finish_events(dp_profile *p)
{
	const dp_event_info *first = p->events.n ? &p->events.v[0] : NULL;

	for (uint32_t i = 0; i < p->events.n; i++) {
		dp_event_info *e = &p->events.v[i];

		if (!e->name) {
			char buf[128];

			dp_event_attr_name(&e->attr, buf, sizeof(buf));
			e->name = dp_strdup(buf);
		}
		dp_event_classify(&e->attr, e->name, &e->ip_sem, &e->evclass);
	}
	if (first && !dp_profile_meta(p, "clock")) {
		char buf[32];

		/* without -k, perf's timestamps are the kernel's perf_clock (sched_clock) */
		dp_profile_set_meta(
		    p, "clock",
		    first->attr.use_clockid
			? clock_name((uint64_t)first->attr.clockid, buf, sizeof(buf))
			: "perf_clock");
	}
	const char *arch = dp_profile_meta(p, "arch");
	if (arch && !strcmp(arch, "x86_64"))
		p->hdr.arch = DP_ARCH_X86_64;
}

size_t dp_profile_build_ids(const dp_profile *p, const dp_build_id **ids)
{
	if (!p->perf) {
		*ids = NULL;
		return 0;
	}
	*ids = p->perf->build_ids.v;
	return p->perf->build_ids.n;
}
