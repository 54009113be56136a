#ifndef DP_SIM_CLI_H
#define DP_SIM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <sys/types.h>

#include "../sampler/sim_events.h"

typedef DP_VEC(dp_event_spec) cli_event_vec;

/* The folder of dataprof's Valgrind tool (malloc'd), or NULL. */
char *cli_sim_tool_dir(void);
/* *any: some events are sim:; -1 (after saying so) when sim: and kernel
 * events are mixed. */
int cli_sim_split(const dp_event_spec *ev, size_t n, bool *any);
/* The host's geometry, overridden by --sim-cache spec (may be NULL). */
int cli_sim_geometry(dp_sim_geometry *g, const char *spec);
/* dataprof list sim */
void cli_sim_list(const char *pattern);

/* -e LIST: each event of the comma-separated list parsed into ev; -1 after
 * saying what is wrong. sim_only (stat): a kernel event is refused. */
int cli_parse_events(const char *list, cli_event_vec *ev, bool sim_only);
void cli_events_free(cli_event_vec *ev);
/* -p PID into *pid; -1 after saying what is wrong. */
int cli_parse_pid(const char *arg, pid_t *pid);

#endif
