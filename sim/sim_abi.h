/* What dataprof and its Valgrind tool (dpsim) agree on: the simulated event
 * kinds, in the order of the tool's --dp-event=KIND,... option, and the
 * META keys the tool writes its totals under. Plain C, no libc. */
#ifndef DPS_ABI_H
#define DPS_ABI_H

enum dps_kind {
	DPS_LOADS = 0,
	DPS_STORES,
	DPS_MEM,
	DPS_L1D_MISS,
	DPS_L2_MISS,
	DPS_LLC_MISS,
	DPS_DTLB_MISS,
	DPS_INSTRUCTIONS,
	DPS_NKINDS
};

/* Where an access was served, for data_src and the latency model. */
enum dps_level { DPS_LVL_L1 = 0, DPS_LVL_L2, DPS_LVL_LLC, DPS_LVL_RAM, DPS_NLEVELS };

/* The tool writes one META record per kind at exit: key "sim.total.NAME"
 * (NAME as in dps_kind_names), value the count in decimal. */
#define DPS_META_TOTAL "sim.total."

#define DPS_TOOL_NAME "dpsim"
#define DPS_TOOL_HEAP "dpsimheap" /* the same tool, its malloc replacement preloaded */
#define DPS_MAX_EVENTS 16

/* The ids in the samples' IDENTIFIER: event index + this (kernel ids are
 * small; a simulated profile has no kernel events). */
#define DPS_ID_BASE 0x53494d0000ull /* "SIM" */

#endif
