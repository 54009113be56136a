#include "dataprof/data_src.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#define FIELD(v, name, bits) (((v) >> PERF_MEM_##name##_SHIFT) & ((1ull << (bits)) - 1))

#define COUNT(a) (sizeof(a) / sizeof(a[0]))

typedef struct {
	uint64_t bit;
	const char *name;
} bit_name;

/* the name of the first of t's bits that is set in bits; NULL: none is */
static const char *first_bit(uint64_t bits, const bit_name *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (bits & t[i].bit)
			return t[i].name;
	return NULL;
}

const char *dp_data_src_op(uint64_t v)
{
	static const bit_name ops[] = {
	    {PERF_MEM_OP_LOAD, "load"},
	    {PERF_MEM_OP_STORE, "store"},
	    {PERF_MEM_OP_PFETCH, "prefetch"},
	    {PERF_MEM_OP_EXEC, "exec"},
	};
	const char *op = first_bit(FIELD(v, OP, 5), ops, COUNT(ops));

	return op ? op : "n/a";
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
	static const bit_name lvl_names[] = {
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
	const char *name;

	if (num && num != PERF_MEM_LVLNUM_NA && num_names[num]) {
		snprintf(buf, len, "%s%s%s", remote ? "remote " : "", num_names[num], hm);
		return;
	}
	name = first_bit(lvl, lvl_names, COUNT(lvl_names));
	if (name)
		snprintf(buf, len, "%s%s", name, hm);
	else
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
	static const bit_name snoops[] = {
	    {PERF_MEM_SNOOP_HITM, "hitm"},
	    {PERF_MEM_SNOOP_HIT, "hit"},
	    {PERF_MEM_SNOOP_MISS, "miss"},
	    {PERF_MEM_SNOOP_NONE, "none"},
	};
	const char *s = first_bit(FIELD(v, SNOOP, 5), snoops, COUNT(snoops));

	return s ? s : "n/a";
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
