#include "event_class.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/hw_breakpoint.h>

static bool contains(const char *hay, const char *needle)
{
	return hay && strcasestr(hay, needle) != NULL;
}

void dp_event_classify(const struct perf_event_attr *a, const char *pfm_name,
		       enum dp_ip_semantics *ip, enum dp_event_class *cls)
{
	*ip = DP_IP_NONE;
	*cls = DP_EVC_NONE;
	switch (a->type) {
	case PERF_TYPE_BREAKPOINT:
		*ip = DP_IP_AFTER; /* x86 data breakpoints trap after the access */
		if (a->bp_type == HW_BREAKPOINT_X) {
			*ip = DP_IP_EXACT;
			*cls = DP_EVC_NONE;
		} else if (a->bp_type == HW_BREAKPOINT_W) {
			*cls = DP_EVC_STORE;
		} else if (a->bp_type == HW_BREAKPOINT_R) {
			*cls = DP_EVC_LOAD;
		} else {
			*cls = DP_EVC_MEMORY;
		}
		return;
	case PERF_TYPE_SOFTWARE:
		switch (a->config) {
		case PERF_COUNT_SW_CPU_CLOCK:
		case PERF_COUNT_SW_TASK_CLOCK:
			*ip = DP_IP_AFTER;
			*cls = DP_EVC_TIME;
			return;
		case PERF_COUNT_SW_PAGE_FAULTS:
		case PERF_COUNT_SW_PAGE_FAULTS_MIN:
		case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
		case PERF_COUNT_SW_ALIGNMENT_FAULTS:
			/* the faulting instruction has not run: IP and registers are before it */
			*ip = DP_IP_EXACT;
			*cls = DP_EVC_MEMORY;
			return;
		default:
			return;
		}
	case PERF_TYPE_HARDWARE:
		*ip = a->precise_ip ? DP_IP_EXACT_AFTER : DP_IP_AFTER;
		switch (a->config & 0xffffffff) {
		case PERF_COUNT_HW_CPU_CYCLES:
		case PERF_COUNT_HW_REF_CPU_CYCLES:
		case PERF_COUNT_HW_BUS_CYCLES:
		case PERF_COUNT_HW_STALLED_CYCLES_FRONTEND:
		case PERF_COUNT_HW_STALLED_CYCLES_BACKEND:
			*cls = DP_EVC_TIME;
			return;
		case PERF_COUNT_HW_CACHE_REFERENCES:
		case PERF_COUNT_HW_CACHE_MISSES:
			*cls = DP_EVC_MEMORY;
			return;
		default:
			*ip = DP_IP_NONE;
			return;
		}
	case PERF_TYPE_HW_CACHE: {
		unsigned id = a->config & 0xff, op = (a->config >> 8) & 0xff;

		*ip = a->precise_ip ? DP_IP_EXACT_AFTER : DP_IP_AFTER;
		if (id == PERF_COUNT_HW_CACHE_L1D || id == PERF_COUNT_HW_CACHE_LL ||
		    id == PERF_COUNT_HW_CACHE_DTLB || id == PERF_COUNT_HW_CACHE_NODE) {
			*cls = op == PERF_COUNT_HW_CACHE_OP_WRITE ? DP_EVC_STORE : DP_EVC_LOAD;
		} else {
			*ip = DP_IP_NONE;
		}
		return;
	}
	case PERF_TYPE_TRACEPOINT:
		return;
	default:
		/* A raw or PMU-specific event: classify by its libpfm4 name. */
		*ip = a->precise_ip ? DP_IP_EXACT_AFTER : DP_IP_AFTER;
		if (contains(pfm_name, "STORE") || contains(pfm_name, "_ST_") ||
		    contains(pfm_name, ":ST") || contains(pfm_name, "RFO"))
			*cls = DP_EVC_STORE;
		else if (contains(pfm_name, "LOAD") || contains(pfm_name, "LD_") ||
			 contains(pfm_name, "L1D") || contains(pfm_name, "L2_RQSTS") ||
			 contains(pfm_name, "OFFCORE") || contains(pfm_name, "LATENCY"))
			*cls = DP_EVC_LOAD;
		else if (contains(pfm_name, "MEM") || contains(pfm_name, "CACHE") ||
			 contains(pfm_name, "TLB") || contains(pfm_name, "LLC"))
			*cls = DP_EVC_MEMORY;
		else if (contains(pfm_name, "CYCLE") || contains(pfm_name, "STALL"))
			*cls = DP_EVC_TIME;
		else
			*ip = DP_IP_NONE;
		return;
	}
}

void dp_event_attr_name(const struct perf_event_attr *a, char *buf, size_t len)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses",
		"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
		"stalled-cycles-backend", "ref-cycles",
	};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
		"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
	};
	const char *mod = a->precise_ip == 1 ? ":p" : a->precise_ip == 2 ? ":pp"
			  : a->precise_ip == 3 ? ":ppp" : "";

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		if (a->config < sizeof(hw) / sizeof(hw[0])) {
			snprintf(buf, len, "%s%s", hw[a->config], mod);
			return;
		}
		break;
	case PERF_TYPE_SOFTWARE:
		if (a->config < sizeof(sw) / sizeof(sw[0])) {
			snprintf(buf, len, "%s", sw[a->config]);
			return;
		}
		break;
	case PERF_TYPE_BREAKPOINT:
		snprintf(buf, len, "mem:0x%llx/%llu:%s", (unsigned long long)a->bp_addr,
			 (unsigned long long)a->bp_len,
			 a->bp_type == HW_BREAKPOINT_W ? "w" : a->bp_type == HW_BREAKPOINT_X ? "x"
			 : a->bp_type == HW_BREAKPOINT_R ? "r" : "rw");
		return;
	case PERF_TYPE_TRACEPOINT:
		snprintf(buf, len, "tracepoint %llu", (unsigned long long)a->config);
		return;
	case PERF_TYPE_HW_CACHE:
		snprintf(buf, len, "hw-cache 0x%llx%s", (unsigned long long)a->config, mod);
		return;
	}
	snprintf(buf, len, "raw 0x%llx%s (type %u)", (unsigned long long)a->config, mod, a->type);
}
