/* Turning what the user wrote after -e into a perf_event_attr, an IP
 * semantics and an event class. Names go through libpfm4; hardware
 * breakpoints use perf's "mem:ADDR[/LEN][:r|w|rw|x]" form. */
#ifndef DP_EVENT_SPEC_H
#define DP_EVENT_SPEC_H

#include <stdbool.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>

#include "dataprof/format.h"
#include "../profile/event_class.h"
#include "util.h"

typedef struct dp_event_spec {
	char *name;      /* as written */
	char *canonical; /* libpfm4's fully qualified name, or the breakpoint */
	struct perf_event_attr attr;
	enum dp_ip_semantics ip_sem;
	enum dp_event_class evclass;
	bool has_period; /* the spec set its own period or frequency */
	bool is_breakpoint;
	bool is_hardware; /* counts on a CPU PMU */
	bool is_sim;	  /* sim:NAME, counted by the simulator (sim_events.h) */
	int sim_kind;	  /* enum dps_kind */
} dp_event_spec;

int dp_events_init(dp_error *err);
/* Parses spec; user_only: default privilege level is user space alone. */
int dp_event_parse(const char *spec, dp_event_spec *out, dp_error *err);
void dp_event_spec_free(dp_event_spec *e);

/* Does this machine expose a CPU PMU to perf_event_open? */
bool dp_have_hw_pmu(void);

/* Explains a failed perf_event_open of e (errno err_no) in one line. */
void dp_event_open_error(const dp_event_spec *e, int err_no, dp_error *err);

/* Up to n names close to a mistyped event, comma-separated, into out. */
void dp_event_suggest(const char *bad, char *out, size_t outlen);

/* What libpfm4 says of a PMU, of event idx (os: the attributes it lists)
 * and of its attribute a when that is a unit mask: each struct zeroed and
 * sized as libpfm4 wants it; false when it has no such thing. */
bool dp_pfm_pmu_info(pfm_pmu_t pmu, pfm_pmu_info_t *pi);
bool dp_pfm_event_info(int idx, pfm_os_t os, pfm_event_info_t *ei);
bool dp_pfm_umask_info(int idx, int a, pfm_os_t os, pfm_event_attr_info_t *ai);

#endif
