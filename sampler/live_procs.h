/* The processes a recording of a command follows (the command and its
 * children) and their mappings as the records last told them, for
 * --switch-output: each new file of the series begins with the names and
 * mappings of the processes still running, so that it is read alone too. */
#ifndef DP_LIVE_PROCS_H
#define DP_LIVE_PROCS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "../profile/writer.h"
#include "hashmap.h"
#include "util.h"

typedef struct dp_live_proc {
	uint32_t pid;
	bool alive;
	bool ended;  /* since the last file began: its last samples may follow */
	dp_buf maps; /* MMAP and MMAP2 records, as written */
} dp_live_proc;

typedef struct dp_live_procs {
	dp_hashmap slot_of; /* pid -> index in procs + 1 */
	DP_VEC(dp_live_proc) procs;
} dp_live_procs;

void dp_live_procs_init(dp_live_procs *lp);
void dp_live_procs_free(dp_live_procs *lp);
/* pid began (its FORK, or the command started) or ended (its EXIT). */
void dp_live_procs_set_alive(dp_live_procs *lp, uint32_t pid, bool alive);
/* A kernel MMAP or MMAP2 record: kept with its process's, if followed. */
void dp_live_procs_add_map(dp_live_procs *lp, const void *rec, size_t size);
/* A kernel COMM record of an exec: the process's mappings kept so far are
 * gone with its old program. */
void dp_live_procs_exec(dp_live_procs *lp, const void *rec, size_t size);
/* Writes to w the names and mappings of every process alive, read from
 * /proc (dp_synth_process), which become its kept mappings. A process
 * whose mappings /proc no longer shows (exiting: its memory is gone before
 * its EXIT record is drained, while the samples it took just before still
 * are) gets its kept records instead, with their own times; so does, once,
 * a process that ended since the last call (one CPU's ring is drained
 * after another's: samples it took before its EXIT can come after), and
 * is then forgotten. attr and id: the tracking event's. */
void dp_live_procs_synth(dp_live_procs *lp, dp_writer *w, const struct perf_event_attr *attr,
			 uint64_t id);

#endif
