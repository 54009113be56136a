/* The options of history (history_opts.c). */
#ifndef DP_CLI_HISTORY_OPTS_H
#define DP_CLI_HISTORY_OPTS_H

#include <stdio.h>

#include "../compare/history.h"

enum {
	O_DB = 256,
	O_COMMIT,
	O_COMMIT_TIME,
	O_BRANCH,
	O_LABEL,
	O_LAST,
	O_PROGRAM,
	O_CSV,
	O_HTML,
	O_BASELINE,
	O_BASELINE_N,
};

/* What history's options said, for each subcommand. */
typedef struct hopts {
	const char *db, *by_text, *html;
	char commit_time[32];
	dp_history_add_opts add;
	dp_history_show_opts show;
	dp_history_check_opts check;
	int nby;
} hopts;

/* The options into o: 0, or the status to exit with now (1: the help was
 * shown). */
int cli_history_parse(int argc, char **argv, hopts *o, void (*usage)(FILE *f));

#endif
