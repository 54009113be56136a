#include "sim_events.h"
#include "units.h"
#include "../sim/sim_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const dp_sim_event_info dp_sim_events[DPS_NKINDS] = {
    {"loads", DPS_LOADS, DP_EVC_LOAD, "data loads"},
    {"stores", DPS_STORES, DP_EVC_STORE, "data stores"},
    {"mem", DPS_MEM, DP_EVC_MEMORY, "all data accesses (loads and stores)"},
    {"l1d-miss", DPS_L1D_MISS, DP_EVC_MEMORY, "accesses that missed the L1 data cache"},
    {"l2-miss", DPS_L2_MISS, DP_EVC_MEMORY, "accesses that missed the L2 cache"},
    {"llc-miss", DPS_LLC_MISS, DP_EVC_MEMORY,
     "accesses that missed the last-level cache (served by RAM)"},
    {"dtlb-miss", DPS_DTLB_MISS, DP_EVC_MEMORY, "accesses that missed the data TLB"},
    {"instructions", DPS_INSTRUCTIONS, DP_EVC_NONE, "instructions executed"},
};

int dp_sim_event_parse(const char *spec, dp_event_spec *e, dp_error *err)
{
	char *copy = dp_strdup(spec + 4), *mod = strchr(copy, ':');
	const dp_sim_event_info *info = NULL;

	if (mod)
		*mod++ = 0;
	for (size_t i = 0; i < DPS_NKINDS; i++)
		if (!strcmp(copy, dp_sim_events[i].name))
			info = &dp_sim_events[i];
	if (!info) {
		dp_error_set(err, "unknown simulated event '%s': 'dataprof list sim' lists them",
			     spec);
		free(copy);
		return -1;
	}
	for (char *m = mod, *next; m && *m; m = next) {
		uint64_t v;

		next = strchr(m, ':');
		if (next)
			*next++ = 0;
		if (!strncmp(m, "period=", 7) && dp_parse_u64(m + 7, &v) && v) {
			e->attr.sample_period = v;
			e->has_period = true;
		} else if (!strncmp(m, "watch=", 6)) {
			/* only the accesses that touch [ADDR, ADDR+LEN): a simulated
			 * watchpoint, as mem:ADDR/LEN but for reads too, and any length */
			char *slash = strchr(m + 6, '/'), *end;
			uint64_t len = 1;

			if (slash)
				*slash = 0;
			v = strtoull(m + 6, &end, 0);
			if (end == m + 6 || *end || (slash && (!dp_parse_u64(slash + 1, &len) || !len))) {
				dp_error_set(err, "event '%s': watch= needs ADDR[/LEN] (watch=0x601040/8)",
					     spec);
				free(copy);
				return -1;
			}
			e->attr.config1 = v;
			e->attr.config2 = len;
		} else if (!strcmp(m, "u")) {
			/* user space is all a simulator sees */
		} else {
			dp_error_set(err,
				     "event '%s': unknown modifier '%s' (simulated events take "
				     ":period=N and :u)",
				     spec, m);
			free(copy);
			return -1;
		}
	}
	free(copy);
	e->is_sim = true;
	e->sim_kind = (int)info->kind;
	e->canonical = dp_asprintf("sim:%s", info->name);
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_DUMMY;
	e->attr.exclude_kernel = 1;
	e->ip_sem = DP_IP_EXACT;
	e->evclass = info->evclass;
	return 0;
}

static const dp_sim_geometry defaults = {
    {32768, 8, 64}, {1048576, 16, 64}, {33554432, 16, 64}, {64, 4}, {4, 14, 50, 200, 30}};

/* One sysfs value: "32K", "8", "64". */
static bool read_val(const char *dir, const char *idx, const char *name, uint64_t *v)
{
	char path[512], buf[64], why[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, idx, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return false;
	buf[strcspn(buf, "\n")] = 0;
	return dp_parse_size(buf, v, why, sizeof(why));
}

void dp_sim_geometry_host(dp_sim_geometry *g, const char *dir)
{
	*g = defaults;
	for (int i = 0; i < 8; i++) {
		char idx[24], type[32] = "", path[512];
		uint64_t level, size, ways, line;
		FILE *f;

		snprintf(idx, sizeof(idx), "index%d", i);
		snprintf(path, sizeof(path), "%s/%s/type", dir, idx);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(type, sizeof(type), f))
			type[0] = 0;
		fclose(f);
		if (!strncmp(type, "Instruction", 11))
			continue;
		if (!read_val(dir, idx, "level", &level) || !read_val(dir, idx, "size", &size) ||
		    !read_val(dir, idx, "ways_of_associativity", &ways) ||
		    !read_val(dir, idx, "coherency_line_size", &line))
			continue;
		if (!dps_cache_geometry_ok(size, ways, line))
			continue; /* some VMs report 0 ways: keep the default */
		uint64_t *dst = level == 1   ? g->l1d
				: level == 2 ? g->l2
				: level == 3 ? g->llc
					     : NULL;
		if (dst) {
			dst[0] = size;
			dst[1] = ways;
			dst[2] = line;
		}
	}
}

static int parse_level(const char *spec, const char *val, uint64_t *dst, int n, dp_error *err)
{
	char *copy = dp_strdup(val), *save = NULL, *t;
	uint64_t v[3];
	int k = 0;

	for (t = strtok_r(copy, ":", &save); t && k < n; t = strtok_r(NULL, ":", &save)) {
		char why[64];

		if (!dp_parse_size(t, &v[k], why, sizeof(why)) || !v[k])
			break;
		k++;
	}
	free(copy);
	if (k != n || t) {
		dp_error_set(err, "--sim-cache: '%s' needs %s", spec,
			     n == 3 ? "SIZE:WAYS:LINE (32K:8:64)" : "ENTRIES:WAYS (64:4)");
		return -1;
	}
	if (n == 2 ? !dps_cache_geometry_ok(v[0] * 4096, v[1], 4096)
		   : !dps_cache_geometry_ok(v[0], v[1], v[2])) {
		dp_error_set(err,
			     "--sim-cache: '%s' is impossible: the line must be a power of two and "
			     "the size a multiple of ways x line",
			     spec);
		return -1;
	}
	memcpy(dst, v, n * sizeof(*v));
	return 0;
}

int dp_sim_geometry_parse(dp_sim_geometry *g, const char *s, dp_error *err)
{
	char *copy = dp_strdup(s), *save = NULL;
	int rc = 0;

	for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		const char *val = eq ? eq + 1 : "";

		if (eq)
			*eq = 0;
		if (!strcmp(t, "l1d"))
			rc = parse_level(t, val, g->l1d, 3, err);
		else if (!strcmp(t, "l2") && !strcmp(val, "none"))
			memset(g->l2, 0, sizeof(g->l2));
		else if (!strcmp(t, "l2"))
			rc = parse_level(t, val, g->l2, 3, err);
		else if (!strcmp(t, "llc"))
			rc = parse_level(t, val, g->llc, 3, err);
		else if (!strcmp(t, "dtlb"))
			rc = parse_level(t, val, g->dtlb, 2, err);
		else if (!strcmp(t, "lat")) {
			uint64_t v[5];
			int k =
			    sscanf(val, "%lu:%lu:%lu:%lu:%lu", &v[0], &v[1], &v[2], &v[3], &v[4]);

			if (k != 5) {
				dp_error_set(err,
					     "--sim-cache: lat= needs five latencies in cycles, "
					     "L1:L2:LLC:RAM:TLB-miss (4:14:50:200:30)");
				rc = -1;
			} else {
				memcpy(g->lat, v, sizeof(v));
			}
		} else {
			dp_error_set(
			    err, "--sim-cache: unknown level '%s' (l1d, l2, llc, dtlb, lat)", t);
			rc = -1;
		}
	}
	free(copy);
	return rc;
}
