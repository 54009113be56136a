/* dataprof record: open the events on the target, drain their rings into
 * a raw profile while it runs, and finish the file when it ends. */
#ifndef DP_RECORDER_H
#define DP_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector.h"
#include "event_spec.h"
#include "util.h"

typedef struct dp_record_opts {
	dp_event_spec *events;
	size_t nevents;
	uint64_t period;	/* -c: for every event without its own; 0: default */
	uint64_t freq;		/* -F */
	bool callchain;		/* -g: user call chains */
	uint16_t callchain_max; /* their depth; 0: the kernel's (perf_event_max_stack) */
	uint64_t branch_mode;	/* -b, -j: PERF_SAMPLE_BRANCH_* filter; 0: no branch stack */
	bool no_regs;		/* --no-regs: skip register capture (smaller, no decode) */
	size_t mmap_pages;	/* -m: data pages per CPU ring (power of two) */
	const char *output;
	pid_t pid;		  /* -p: attach; 0: launch argv */
	bool system_wide;	  /* -a: every process on the CPUs (cpu_list, or all online) */
	const char *cpu_list;	  /* -C: "0-3,6"; NULL: every online CPU */
	uint64_t duration_ns;	  /* --duration: stop after this long (-a, -p); 0: none */
	char **argv;		  /* the command (launch), or what to wait for with -p */
	char **env;		  /* extra environment for the launched command */
	bool agent;		  /* open the agent channel (heap tracker, markers) */
	const char *counters;	  /* --counters: globs of sensors to collect; NULL: none */
	uint64_t interval_ns;	  /* --interval: between collections */
	dp_reading_fn on_reading; /* called with each reading (dataprof stat) */
	void *on_reading_ctx;
	bool quiet;
	const char *cmdline;  /* dataprof's own command line, for the header */
	const char *alloc_fn; /* --alloc-fn globs, comma-separated, for annotate; NULL: none */
	/* --switch-output: a new file of the series (output.TIMESTAMP) after
	 * this many bytes, this long, or at each SIGUSR2; --max-files: keep
	 * the newest N */
	uint64_t switch_bytes, switch_ns;
	bool switch_signal;
	uint64_t max_files;
} dp_record_opts;

typedef struct dp_record_result {
	int exit_code; /* what dataprof exits with: the target's */
	uint64_t samples, lost, throttles, bytes;
	bool disk_full, interrupted;
	uint64_t files, files_removed;		      /* --switch-output's series */
	uint64_t readings;			      /* counter readings written */
	uint64_t collector_cpu_ns, collector_wall_ns; /* the collector thread's cost */
} dp_record_result;

/* The sampled registers: every x86-64 general-purpose register, IP, flags. */
#define DP_X86_REGS_MASK 0xff0fffull

int dp_record_run(const dp_record_opts *o, dp_record_result *res, dp_error *err);

#endif
