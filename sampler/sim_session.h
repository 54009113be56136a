/* record and stat with sim: events: the run on dataprof's Valgrind tool
 * (dp_sim_run) and what it tells its user, as dp_record_run does for a
 * kernel recording. */
#ifndef DP_SIM_SESSION_H
#define DP_SIM_SESSION_H

#include <stdio.h>

#include "sim_events.h"

/* dataprof record -e sim:...: the run, then (unless o->quiet) the summary
 * line on stderr: samples per event, heap records, bytes written. */
int dp_sim_record(const dp_sim_opts *o, dp_sim_result *res, dp_error *err);
/* dataprof stat -e sim:... (count_only): res's totals on f as perf stat
 * prints them: a line "  COUNT      NAME" per event of o under a title
 * naming the command, or with sep (-x) "COUNT<sep><sep>NAME" lines alone. */
void dp_sim_print_totals(FILE *f, const dp_sim_opts *o, const dp_sim_result *res, const char *sep);

#endif
