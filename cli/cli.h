/* The command-line front end: one function per subcommand. */
#ifndef DP_CLI_H
#define DP_CLI_H

#include <stdbool.h>

int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_report(int argc, char **argv);

int cmd_diff(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_layout(int argc, char **argv);

struct dp_agg_level;
struct dp_error;
/* "object,member" into a level (--by, --then); -1 with a message. */
int cli_parse_level(const char *list, struct dp_agg_level *lv, struct dp_error *err);
/* "exact,verified" into a bit mask of verdicts. */
int cli_parse_verdicts(const char *list, unsigned *mask, struct dp_error *err);

/* Prints "dataprof: <msg>" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The whole command line, for the profile header. */
extern const char *cli_cmdline;
/* The full path of an agent library (libdataprof_heap.so...), or NULL. */
char *cli_agent_library(const char *name);
/* True when argv[i] is --help or -h. */
bool cli_wants_help(int argc, char **argv);

#endif
