#ifndef DP_SIM_CLI_H
#define DP_SIM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../sampler/sim_events.h"

/* The folder of dataprof's Valgrind tool (malloc'd), or NULL. */
char *cli_sim_tool_dir(void);
/* *any: some events are sim:; -1 (after saying so) when sim: and kernel
 * events are mixed. */
int cli_sim_split(const dp_event_spec *ev, size_t n, bool *any);
/* The host's geometry, overridden by --sim-cache spec (may be NULL). */
int cli_sim_geometry(dp_sim_geometry *g, const char *spec);
/* One line per event, as perf stat: "  COUNT      NAME", or with sep
 * (-x) "COUNT<sep><unit><sep>NAME" (no unit: an empty field). */
void cli_sim_print_totals(FILE *f, const dp_event_spec *ev, size_t n, const uint64_t *totals,
			  const char *sep);
/* dataprof list sim */
void cli_sim_list(const char *pattern);

#endif
