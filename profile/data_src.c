#include "dataprof/data_src.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#define FIELD(v, name, bits) (((v) >> PERF_MEM_##name##_SHIFT) & ((1ull << (bits)) - 1))

const char *dp_data_src_op(uint64_t v)
{
	uint64_t op = FIELD(v, OP, 5);

	if (op & PERF_MEM_OP_LOAD)
		return "load";
	if (op & PERF_MEM_OP_STORE)
		return "store";
	if (op & PERF_MEM_OP_PFETCH)
		return "prefetch";
	if (op & PERF_MEM_OP_EXEC)
		return "exec";
	return "n/a";
}

static const char *hit_miss(uint64_t bits, uint64_t hit, uint64_t miss)
{
	if (bits & hit)
		return " hit";
	if (bits & miss)
		return " miss";
	return "";
}

void dp_data_src_level(uint64_t v, char *buf, size_t len)
{
	static const char *const num_names[16] = {
		[PERF_MEM_LVLNUM_L1] = "L1",     [PERF_MEM_LVLNUM_L2] = "L2",
		[PERF_MEM_LVLNUM_L3] = "L3",     [PERF_MEM_LVLNUM_L4] = "L4",
		[PERF_MEM_LVLNUM_CXL] = "CXL",   [PERF_MEM_LVLNUM_IO] = "I/O",
		[PERF_MEM_LVLNUM_ANY_CACHE] = "any cache", [PERF_MEM_LVLNUM_LFB] = "LFB",
		[PERF_MEM_LVLNUM_RAM] = "RAM",   [PERF_MEM_LVLNUM_PMEM] = "PMEM",
	};
	static const struct {
		uint64_t bit;
		const char *name;
	} lvl_names[] = {
		{PERF_MEM_LVL_L1, "L1"},
		{PERF_MEM_LVL_LFB, "LFB"},
		{PERF_MEM_LVL_L2, "L2"},
		{PERF_MEM_LVL_L3, "L3"},
		{PERF_MEM_LVL_LOC_RAM, "RAM"},
		{PERF_MEM_LVL_REM_RAM1, "remote RAM (1 hop)"},
		{PERF_MEM_LVL_REM_RAM2, "remote RAM (2 hops)"},
		{PERF_MEM_LVL_REM_CCE1, "remote cache (1 hop)"},
		{PERF_MEM_LVL_REM_CCE2, "remote cache (2 hops)"},
		{PERF_MEM_LVL_IO, "I/O"},
		{PERF_MEM_LVL_UNC, "uncached"},
	};
	uint64_t lvl = FIELD(v, LVL, 14), num = FIELD(v, LVLNUM, 4);
	bool remote = FIELD(v, REMOTE, 1);
	const char *hm = hit_miss(lvl, PERF_MEM_LVL_HIT, PERF_MEM_LVL_MISS);

	if (num && num != PERF_MEM_LVLNUM_NA && num_names[num]) {
		snprintf(buf, len, "%s%s%s", remote ? "remote " : "", num_names[num], hm);
		return;
	}
	for (size_t i = 0; i < sizeof(lvl_names) / sizeof(lvl_names[0]); i++) {
		if (lvl & lvl_names[i].bit) {
			snprintf(buf, len, "%s%s", lvl_names[i].name, hm);
			return;
		}
	}
	snprintf(buf, len, "n/a");
}

void dp_data_src_tlb(uint64_t v, char *buf, size_t len)
{
	uint64_t t = FIELD(v, TLB, 7);
	const char *where = (t & PERF_MEM_TLB_L2)   ? "L2"
			    : (t & PERF_MEM_TLB_L1) ? "L1"
						    : NULL;

	if (!t || t == PERF_MEM_TLB_NA) {
		snprintf(buf, len, "n/a");
		return;
	}
	snprintf(buf, len, "%s%s%s%s", where ? where : "TLB",
		 hit_miss(t, PERF_MEM_TLB_HIT, PERF_MEM_TLB_MISS),
		 (t & PERF_MEM_TLB_WK) ? ", walker" : "", (t & PERF_MEM_TLB_OS) ? ", OS" : "");
}

const char *dp_data_src_snoop(uint64_t v)
{
	uint64_t s = FIELD(v, SNOOP, 5);

	if (s & PERF_MEM_SNOOP_HITM)
		return "hitm";
	if (s & PERF_MEM_SNOOP_HIT)
		return "hit";
	if (s & PERF_MEM_SNOOP_MISS)
		return "miss";
	if (s & PERF_MEM_SNOOP_NONE)
		return "none";
	return "n/a";
}

int dp_data_src_locked(uint64_t v)
{
	uint64_t l = FIELD(v, LOCK, 2);

	if (l & PERF_MEM_LOCK_LOCKED)
		return 1;
	if (l & PERF_MEM_LOCK_NA || !l)
		return -1;
	return 0;
}
