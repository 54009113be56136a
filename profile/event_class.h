/* What an event's samples mean for decode: where the IP stands relative
 * to the causing instruction, and which instructions can cause it. Decided
 * from the perf_event_attr (and the event's name for PMU-specific events),
 * so that profiles from perf record get the same treatment. */
#ifndef DP_EVENT_CLASS_H
#define DP_EVENT_CLASS_H

#include <stddef.h>
#include <linux/perf_event.h>

#include "dataprof/format.h"

void dp_event_classify(const struct perf_event_attr *attr, const char *name,
		       enum dp_ip_semantics *ip, enum dp_event_class *cls);

/* A readable name for an event from its attr alone ("cycles", "cpu-clock",
 * "page-faults", "mem:0x601040/8:rw", "raw 0x20d1"), for profiles that do
 * not carry one. */
void dp_event_attr_name(const struct perf_event_attr *attr, char *buf, size_t len);

#endif
