/* Records the kernel does not send for a process that existed before the
 * recording began (attach with -p): its threads' names and its mappings,
 * synthesized from /proc in the kernel's own record formats. */
#ifndef DP_SYNTH_H
#define DP_SYNTH_H

#include <linux/perf_event.h>
#include <sys/types.h>

#include "../profile/writer.h"

/* Writes COMM for each thread and MMAP2 for each mapping of pid. attr is
 * the tracking event's (its sample_id trailer is appended), id its ID. The
 * MMAP2 records are added to copy too, unless it is NULL. Returns how many
 * mappings there were, -1 when /proc could not say. */
int dp_synth_process(dp_writer *w, pid_t pid, const struct perf_event_attr *attr, uint64_t id,
		     dp_buf *copy);

/* Appends the sample_id trailer attr asks for to b. */
void dp_synth_trailer(dp_buf *b, const struct perf_event_attr *attr, uint32_t pid, uint32_t tid,
		      uint64_t time, uint64_t id);

#endif
