/* The options of record (record_opts.c). */
#ifndef DP_CLI_RECORD_OPTS_H
#define DP_CLI_RECORD_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../sampler/heap_env.h"
#include "../sampler/recorder.h"
#include "sim_cli.h"

/* record and stat exit 125 when dataprof itself fails, as timeout(1): the
 * command's own codes stay free */
#define CLI_EXIT_OWN_FAILURE 125

/* What record's options said. */
typedef struct cli_record_args {
	dp_record_opts o;
	cli_event_vec ev;
	dp_env_vec env;	     /* the launched command's extra environment */
	dp_buf alloc_fns;    /* --alloc-fn, comma-separated */
	bool heap, markers;  /* --heap, --markers */
	uint64_t heap_min;   /* --heap=MIN */
	uint64_t heap_depth; /* --heap-depth; 0: the default */
	/* the options that only sim: events take */
	const char *sim_cache; /* --sim-cache */
	uint64_t sim_skid;     /* --sim-skid */
	bool sim_real_clock;   /* --sim-clock real */
	bool sim_given;	       /* any of them */
} cli_record_args;

/* argv's options into a (the command after them: a->o.argv): CLI_OPT_TAKEN,
 * or the status to exit with now (0 after -h, 125 after saying what is
 * wrong). */
int cli_record_parse(cli_record_args *a, int argc, char **argv, void (*usage)(FILE *f));
void cli_record_args_free(cli_record_args *a);

#endif
