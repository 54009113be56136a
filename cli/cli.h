/* The command-line front end: one function per subcommand. */
#ifndef DP_CLI_H
#define DP_CLI_H

#include <stdbool.h>
#include <stdint.h>

int cmd_record(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_markers(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_export(int argc, char **argv);

int cmd_diff(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_layout(int argc, char **argv);
int cmd_accuracy(int argc, char **argv);

struct dp_agg_level;
struct dp_error;
/* "object,member" into a level (--by, --then); -1 with a message. */
int cli_parse_level(const char *list, struct dp_agg_level *lv, struct dp_error *err);
/* "samples", "period" or "weight" into a dp_metric; -1 with a message. */
int cli_parse_metric(const char *name, int *metric, struct dp_error *err);
/* --where and --time, checked before any profile is read: -1 after
 * saying what is wrong (the command exits 2). */
int cli_check_filters(const char *where, const char *time_range);
/* "exact,verified" into a bit mask of verdicts. */
int cli_parse_verdicts(const char *list, unsigned *mask, struct dp_error *err);

/* "0.05" or "5%" into a fraction in [0, 1); false otherwise. */
bool cli_parse_fraction(const char *s, double *out);

/* diff and history check: a --fail-if condition held, distinct from errors
 * (1) and usage (2). */
#define CLI_EXIT_FAIL_IF 3

/* Prints "dataprof: <msg>" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The whole command line, for the profile header. */
extern const char *cli_cmdline;
/* The git revision this dataprof was built from (gen/version.c) */
extern const char dp_git_rev[];
/* From the dataprof binary to its agent libraries once installed (CMake
 * computes it from the install dirs) */
#ifndef DATAPROF_AGENT_RELDIR
#define DATAPROF_AGENT_RELDIR "../lib/dataprof"
#endif
/* The full path of an agent library (libdataprof_heap.so...), or NULL. */
char *cli_agent_library(const char *name);
/* The profile named after the options, if any, into *input; -1 (after
 * saying so) when more than one is named. cmd: for the message. */
int cli_one_profile(int argc, char **argv, const char *cmd, const char **input);
/* True when argv[i] is --help or -h. */
bool cli_wants_help(int argc, char **argv);
/* The marker collector library to name in DATAPROF_COLLECTOR (malloc'd), or
 * NULL when there is none. */
char *cli_collector_path(void);
struct dp_record_opts;
/* --markers: the collector in the command's environment (env[0], malloc'd)
 * and the agent channel open. No collector: a warning, markers off. */
/* For --markers: the environment entry naming the collector (*entry, NULL if
 * there is none: markers stay off, with a warning); -1 on a usage error. */
int cli_markers_env(struct dp_record_opts *o, char **entry);
/* --interval MS: at least 1 ms; prints the error and returns -1 otherwise. */
int cli_parse_interval(const char *arg, uint64_t *ns);

#endif
