/* What this machine's kernel really delivers. Each probe opens an event on
 * the calling thread, triggers it once (or for a few milliseconds of CPU)
 * and reads back what came: an open that succeeds proves nothing (some
 * virtual machines accept a hardware breakpoint and never fire it).
 * `dataprof doctor` prints them; the tests skip on them; record asks the
 * breakpoint probe when a breakpoint gave no sample. */
#ifndef DP_PROBE_H
#define DP_PROBE_H

#include <stdbool.h>

typedef enum dp_probe_id {
	DP_PROBE_PAGE_FAULTS,  /* page-fault samples carry the faulting address */
	DP_PROBE_CPU_CLOCK,    /* cpu-clock samples in user mode carry user registers */
	DP_PROBE_TASK_CLOCK,   /* task-clock counts the thread's CPU time */
	DP_PROBE_BREAKPOINT,   /* a hardware data breakpoint fires on each access */
	DP_PROBE_PMU,	       /* a hardware PMU counts cycles */
	DP_PROBE_UNPRIVILEGED, /* a user without privileges samples its own process */
	DP_PROBE_BRANCH_STACK, /* cycles samples carry a branch stack (LBR) */
	DP_PROBE_COUNT
} dp_probe_id;

typedef struct dp_probe_result {
	bool ok;
	char detail[240]; /* what came back, or why nothing did: one line */
} dp_probe_result;

/* Stable key ("breakpoint"), used by --json and the tests. */
const char *dp_probe_key(dp_probe_id id);
/* What the probe asks, in words. */
const char *dp_probe_question(dp_probe_id id);
/* The events a user names that depend on it ("mem:ADDR (data breakpoints)"). */
const char *dp_probe_events(dp_probe_id id);
/* dp_probe_key's inverse; -1 when no probe has that key. */
int dp_probe_find(const char *key);

/* Runs one probe in the calling thread (milliseconds; up to about 50 ms of
 * CPU for the clocks). Never fails: a probe that cannot run says why. */
void dp_probe_run(dp_probe_id id, dp_probe_result *res);

#endif
