#include "event_spec.h"
#include "procfs.h"
#include "sim_events.h"

#include <ctype.h>
#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>

static int pfm_ready;

int dp_events_init(dp_error *err)
{
	int rc;

	if (pfm_ready)
		return 0;
	rc = pfm_initialize();
	if (rc != PFM_SUCCESS) {
		dp_error_set(err, "libpfm4 failed to initialise: %s", pfm_strerror(rc));
		return -1;
	}
	pfm_ready = 1;
	return 0;
}

bool dp_have_hw_pmu(void)
{
	/* Intel and AMD core PMUs register as "cpu"; hybrid parts as cpu_core/cpu_atom. */
	return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK) == 0;
}

/* mem:ADDR[/LEN][:r|w|rw|x] */
static int parse_breakpoint(const char *spec, dp_event_spec *e, dp_error *err)
{
	char *s = dp_strdup(spec + 4), *type = strchr(s, ':'), *len = strchr(s, '/');
	uint64_t addr, l = 8;
	struct perf_event_attr *a = &e->attr;

	if (type)
		*type++ = 0;
	if (len)
		*len++ = 0;
	if (!dp_parse_u64(s, &addr)) {
		dp_error_set(err, "event '%s': '%s' is not an address (write mem:0xADDR[/LEN][:rw])",
			     spec, s);
		goto fail;
	}
	if (len && (!dp_parse_u64(len, &l) || (l != 1 && l != 2 && l != 4 && l != 8))) {
		dp_error_set(err, "event '%s': breakpoint length must be 1, 2, 4 or 8 bytes", spec);
		goto fail;
	}
	if (addr & (l - 1)) {
		dp_error_set(err,
			     "event '%s': address 0x%llx is not aligned to the length %llu (x86 "
			     "debug registers need natural alignment)",
			     spec, (unsigned long long)addr, (unsigned long long)l);
		goto fail;
	}
	a->type = PERF_TYPE_BREAKPOINT;
	a->bp_addr = addr;
	a->bp_len = l;
	if (!type || !strcmp(type, "rw") || !strcmp(type, "wr")) {
		a->bp_type = HW_BREAKPOINT_RW;
	} else if (!strcmp(type, "w")) {
		a->bp_type = HW_BREAKPOINT_W;
	} else if (!strcmp(type, "r")) {
		/* x86 debug registers watch writes or reads-and-writes, never reads alone */
		dp_error_set(err,
			     "event '%s': x86 cannot watch reads alone; use :rw (reads and "
			     "writes) or :w",
			     spec);
		goto fail;
	} else if (!strcmp(type, "x")) {
		a->bp_type = HW_BREAKPOINT_X;
		a->bp_len = sizeof(long);
	} else {
		dp_error_set(err, "event '%s': access type '%s' is not one of r, w, rw, x", spec,
			     type);
		goto fail;
	}
	e->canonical = dp_asprintf("mem:0x%llx/%llu:%s", (unsigned long long)addr,
				   (unsigned long long)a->bp_len,
				   a->bp_type == HW_BREAKPOINT_W    ? "w"
				   : a->bp_type == HW_BREAKPOINT_X ? "x"
								   : "rw");
	e->is_breakpoint = true;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	free(s);
	return 0;
fail:
	free(s);
	return -1;
}

/* perf-style modifiers (":u", ":k", ":pp", ":upp") into libpfm4 syntax. */
static char *translate_modifiers(const char *spec)
{
	dp_buf b = {0};
	const char *p = spec;

	while (*p) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		bool perf_style = p != spec && n > 0 && strspn(p, "ukhpPGHS") == n;

		if (perf_style) {
			unsigned precise = 0;
			bool u = false, k = false, h = false;

			for (size_t i = 0; i < n; i++) {
				if (p[i] == 'p')
					precise++;
				else if (p[i] == 'P')
					precise = 3;
				else if (p[i] == 'u')
					u = true;
				else if (p[i] == 'k')
					k = true;
				else if (p[i] == 'h')
					h = true;
			}
			if (b.len && b.p[b.len - 1] == ':')
				b.len--;
			if (u)
				dp_buf_puts(&b, ":u");
			if (k)
				dp_buf_puts(&b, ":k");
			if (h)
				dp_buf_puts(&b, ":h");
			if (precise)
				dp_buf_printf(&b, ":precise=%u", precise > 3 ? 3 : precise);
			if (colon)
				dp_buf_puts(&b, ":");
		} else {
			dp_buf_add(&b, p, n + (colon ? 1 : 0));
		}
		p += n + (colon ? 1 : 0);
	}
	if (!b.p)
		return dp_strdup(spec);
	return b.p;
}

bool dp_pfm_pmu_info(pfm_pmu_t pmu, pfm_pmu_info_t *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->size = sizeof(*pi);
	return pfm_get_pmu_info(pmu, pi) == PFM_SUCCESS;
}

bool dp_pfm_event_info(int idx, pfm_os_t os, pfm_event_info_t *ei)
{
	memset(ei, 0, sizeof(*ei));
	ei->size = sizeof(*ei);
	return pfm_get_event_info(idx, os, ei) == PFM_SUCCESS;
}

bool dp_pfm_umask_info(int idx, int a, pfm_os_t os, pfm_event_attr_info_t *ai)
{
	memset(ai, 0, sizeof(*ai));
	ai->size = sizeof(*ai);
	return pfm_get_event_attr_info(idx, a, os, ai) == PFM_SUCCESS && ai->type == PFM_ATTR_UMASK;
}

/* Which PMUs, present or not, know an event of this name (before any ':'). */
static void pmus_knowing(const char *name, char *out, size_t outlen)
{
	char base[256];
	pfm_pmu_t pmu;
	size_t used = 0;
	const char *dcolon = strstr(name, "::");

	if (dcolon)
		name = dcolon + 2;
	snprintf(base, sizeof(base), "%s", name);
	base[strcspn(base, ":.")] = 0;
	out[0] = 0;
	pfm_for_all_pmus(pmu)
	{
		pfm_pmu_info_t pi;

		if (!dp_pfm_pmu_info(pmu, &pi) || pi.is_present)
			continue;
		for (int idx = pi.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
			pfm_event_info_t ei;

			if (!dp_pfm_event_info(idx, PFM_OS_NONE, &ei))
				continue;
			if (!strcasecmp(ei.name, base)) {
				int n = snprintf(out + used, outlen - used, "%s%s",
						 used ? ", " : "", pi.name);
				if (n > 0 && (size_t)n < outlen - used)
					used += (size_t)n;
				break;
			}
		}
		if (used > outlen - 40)
			break;
	}
}

void dp_event_suggest(const char *bad, char *out, size_t outlen)
{
	struct {
		unsigned d;
		char name[160];
	} best[3];
	unsigned nbest = 0, limit;
	char base[256];
	pfm_pmu_t pmu;

	snprintf(base, sizeof(base), "%s", bad);
	base[strcspn(base, ":")] = 0;
	limit = (unsigned)DP_MAX(2, strlen(base) / 3);
	pfm_for_all_pmus(pmu)
	{
		pfm_pmu_info_t pi;

		if (!dp_pfm_pmu_info(pmu, &pi) || !pi.is_present)
			continue;
		for (int idx = pi.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
			pfm_event_info_t ei;
			char cand[160];

			if (!dp_pfm_event_info(idx, PFM_OS_PERF_EVENT, &ei))
				continue;
			for (int a = -1; a < ei.nattrs; a++) {
				if (a < 0) {
					snprintf(cand, sizeof(cand), "%s", ei.name);
				} else {
					pfm_event_attr_info_t ai;

					if (!dp_pfm_umask_info(idx, a, PFM_OS_PERF_EVENT, &ai))
						continue;
					snprintf(cand, sizeof(cand), "%s.%s", ei.name, ai.name);
				}
				unsigned d = dp_edit_distance(base, cand, limit);
				if (d > limit)
					continue;
				unsigned i;
				/* a free slot, else the worst one if this is better
				 * (the third candidate used to be compared with an
				 * uninitialised slot: found by the Valgrind run) */
				if (nbest < 3)
					i = nbest++;
				else if (best[2].d <= d)
					continue;
				else
					i = 2;
				best[i].d = d;
				snprintf(best[i].name, sizeof(best[i].name), "%s", cand);
				for (; i > 0 && best[i].d < best[i - 1].d; i--) {
					__typeof__(best[0]) t = best[i];
					best[i] = best[i - 1];
					best[i - 1] = t;
				}
			}
		}
	}
	out[0] = 0;
	bool lower = true;
	for (const char *q = base; *q; q++)
		if (isupper((unsigned char)*q))
			lower = false;
	for (unsigned i = 0; i < nbest; i++) {
		/* libpfm4 spells generic events in capitals; answer in the user's case */
		if (lower)
			for (char *q = best[i].name; *q; q++)
				*q = (char)tolower((unsigned char)*q);
		size_t l = strlen(out);
		snprintf(out + l, outlen - l, "%s%s", i ? ", " : "", best[i].name);
	}
}

int dp_event_parse(const char *spec, dp_event_spec *e, dp_error *err)
{
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL, *pfm_spec;
	int rc;

	memset(e, 0, sizeof(*e));
	e->name = dp_strdup(spec);
	e->attr.size = sizeof(e->attr);
	if (!strncmp(spec, "sim:", 4)) {
		if (dp_sim_event_parse(spec, e, err) < 0)
			goto fail;
		return 0;
	}
	if (!strncmp(spec, "mem:", 4)) {
		if (parse_breakpoint(spec, e, err) < 0)
			goto fail;
		dp_event_classify(&e->attr, NULL, &e->ip_sem, &e->evclass);
		return 0;
	}
	if (dp_events_init(err) < 0)
		goto fail;
	pfm_spec = translate_modifiers(spec);
	memset(&arg, 0, sizeof(arg));
	arg.attr = &e->attr;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	rc = pfm_get_os_event_encoding(pfm_spec, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (rc == PFM_ERR_NOTFOUND && strchr(pfm_spec, ':') && !strstr(pfm_spec, "::")) {
		/* generic names with modifiers may need the perf:: PMU spelled out */
		char *alt = dp_asprintf("perf::%s", pfm_spec);
		memset(&e->attr, 0, sizeof(e->attr));
		rc = pfm_get_os_event_encoding(alt, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
		free(alt);
	}
	if (rc != PFM_SUCCESS) {
		char sugg[512], pmus[512];

		if (rc == PFM_ERR_NOTFOUND) {
			pmus_knowing(pfm_spec, pmus, sizeof(pmus));
			dp_event_suggest(pfm_spec, sugg, sizeof(sugg));
			if (pmus[0])
				dp_error_set(err,
					     "event '%s' is not on this machine's PMU; it exists on: "
					     "%s%s%s ('dataprof list' shows what this machine has)",
					     spec, pmus, sugg[0] ? "; close names here: " : "", sugg);
			else
				dp_error_set(err, "unknown event '%s'%s%s; 'dataprof list' shows "
						  "the events of this machine",
					     spec, sugg[0] ? "; did you mean: " : "", sugg);
		} else {
			dp_error_set(err, "event '%s': %s ('dataprof list' shows the events and "
					  "their modifiers)",
				     spec, pfm_strerror(rc));
		}
		free(pfm_spec);
		goto fail;
	}
	free(pfm_spec);
	e->canonical = fstr;
	e->attr.size = sizeof(e->attr);
	e->has_period = e->attr.sample_period != 0;
	e->is_hardware = e->attr.type != PERF_TYPE_SOFTWARE &&
			 e->attr.type != PERF_TYPE_TRACEPOINT &&
			 e->attr.type != PERF_TYPE_BREAKPOINT;
	dp_event_classify(&e->attr, fstr, &e->ip_sem, &e->evclass);
	return 0;
fail:
	dp_event_spec_free(e);
	return -1;
}

void dp_event_spec_free(dp_event_spec *e)
{
	free(e->name);
	free(e->canonical);
	e->name = e->canonical = NULL;
}

void dp_event_open_error(const dp_event_spec *e, int en, dp_error *err)
{
	int paranoid = dp_perf_paranoid(-9);

	switch (en) {
	case EACCES:
	case EPERM:
		if (!e->attr.exclude_kernel)
			dp_error_set(err,
				     "no permission to sample '%s' in the kernel: that needs "
				     "kernel.perf_event_paranoid 1 or lower (it is %d) or "
				     "CAP_PERFMON; drop the k modifier for user space only, or as "
				     "root run 'sysctl kernel.perf_event_paranoid=1'",
				     e->name, paranoid);
		else
			dp_error_set(err,
				     "no permission to sample '%s' (kernel.perf_event_paranoid is "
				     "%d): profiling your own processes needs 2 or lower; as root run "
				     "'sysctl kernel.perf_event_paranoid=2'",
				     e->name, paranoid);
		return;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (e->is_hardware && !dp_have_hw_pmu())
			dp_error_set(err,
				     "event '%s' cannot be counted here: this machine exposes no "
				     "hardware PMU (a VM without PMU passthrough?); use -e cpu-clock "
				     "for time or -e page-faults for memory accesses",
				     e->name);
		else if (e->attr.precise_ip)
			dp_error_set(err,
				     "event '%s' cannot be sampled precisely here (precise=%u); try "
				     "a lower precise level or an event that supports PEBS/IBS",
				     e->name, e->attr.precise_ip);
		else
			dp_error_set(err, "event '%s' is not supported by this machine's kernel "
					  "or PMU (%s)",
				     e->name, strerror(en));
		return;
	case ENOSPC:
		dp_error_set(err,
			     "event '%s': no free hardware %s left (x86 has 4 debug registers; "
			     "watch fewer addresses)",
			     e->name, e->is_breakpoint ? "breakpoint slot" : "counter");
		return;
	case EINVAL:
		dp_error_set(err,
			     "event '%s': the kernel rejected its settings (%s); check the "
			     "modifiers, period and address",
			     e->name, strerror(en));
		return;
	case EMFILE:
		dp_error_set(err,
			     "event '%s': out of file descriptors (%s); raise 'ulimit -n' or "
			     "record fewer events or threads",
			     e->name, strerror(en));
		return;
	default:
		dp_error_set(err, "cannot open event '%s': %s", e->name, strerror(en));
	}
}
