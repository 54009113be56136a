/* Simulated memory events (sim:NAME): the names, their parsing into an
 * event spec, the cache geometry, and running the program under dataprof's
 * Valgrind tool (docs/sim.md). */
#ifndef DP_SIM_EVENTS_H
#define DP_SIM_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "event_spec.h"
#include "../sim/sim_abi.h"
#include "util.h"

typedef struct dp_sim_event_info {
	const char *name; /* without "sim:" */
	enum dps_kind kind;
	enum dp_event_class evclass;
	const char *desc;
} dp_sim_event_info;

extern const dp_sim_event_info dp_sim_events[DPS_NKINDS];

/* spec starts with "sim:". NAME[:period=N]. Fills e (is_sim, sim_kind). */
int dp_sim_event_parse(const char *spec, dp_event_spec *e, dp_error *err);

/* The simulated hierarchy: bytes, ways, line (for the dTLB: entries, ways). */
typedef struct dp_sim_geometry {
	uint64_t l1d[3], l2[3], llc[3], dtlb[2]; /* l2[0] == 0: no L2 */
	uint64_t lat[5];			 /* cycles: L1 L2 LLC RAM, dTLB miss */
} dp_sim_geometry;

/* The host's caches from sysfs_dir (/sys/devices/system/cpu/cpu0/cache);
 * what it lacks stays at a common default. */
void dp_sim_geometry_host(dp_sim_geometry *g, const char *sysfs_dir);
/* --sim-cache l1d=32K:8:64,l2=1M:16:64,llc=32M:16:64,dtlb=64:4 (l2=none),
 * lat=4:14:50:200:30 over g. */
int dp_sim_geometry_parse(dp_sim_geometry *g, const char *s, dp_error *err);

/* dataprof record/stat -e sim:...: the program runs under the tool. */
typedef struct dp_sim_opts {
	const dp_event_spec *events; /* all is_sim */
	size_t nevents;
	uint64_t period; /* -c: for events without their own; 0: per-event default */
	dp_sim_geometry geo;
	uint64_t skid;	 /* --sim-skid: samples reported this many instructions late */
	bool real_clock; /* --sim-clock real: the host's monotonic clock, not simulated time */
	bool heap;	 /* allocation records from the tool's malloc */
	uint64_t heap_depth;
	bool count_only;    /* dataprof stat: totals, no samples */
	const char *output; /* the profile; "/dev/null" for stat without -o */
	char **argv;
	const char *tool_dir; /* holds dpsim-amd64-linux and links to Valgrind's files */
	const char *cmdline;
	bool quiet;
} dp_sim_opts;

typedef struct dp_sim_result {
	int exit_code; /* the program's */
	uint64_t samples, bytes;
	uint64_t heap_raw, heap_packed; /* --heap: its records' bytes before and after packing */
	uint64_t totals[DPS_NKINDS];	/* summed over processes */
	bool have_totals;
	uint64_t *ev_samples; /* per event, nevents (the caller frees) */
} dp_sim_result;

/* The sample period an event gets without -c or :period=. */
uint64_t dp_sim_default_period(int kind);
/* Is Valgrind on PATH? */
bool dp_sim_have_valgrind(void);
int dp_sim_run(const dp_sim_opts *o, dp_sim_result *res, dp_error *err);

#endif
