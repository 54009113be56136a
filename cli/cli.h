/* The command-line front end: one function per subcommand. */
#ifndef DP_CLI_H
#define DP_CLI_H

#include "../report/agg.h"
#include "../report/report.h"

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* The options several commands share: one entry, one parser and one help
 * line each (opt_table.c, common_opts.c). A command's table (cli_opt) names
 * the shared ones it takes and its own, in its own order (getopt_long lists
 * the matches of an ambiguous abbreviation in that order); the shared ones go
 * to cli_common_opt. The values are above any command's own. */
enum {
	CLI_O_TIME = 0x1000,
	CLI_O_VERDICT,
	CLI_O_CSV, /* CSV, JSON, Markdown: in cli_format's order */
	CLI_O_JSON,
	CLI_O_MARKDOWN,
	CLI_O_SYMFS,
	CLI_O_WIDTH,
	CLI_O_PER, /* diff's and history's comparison */
	CLI_O_CONFIDENCE,
	CLI_O_NOISE,
	CLI_O_FAIL_IF,
	CLI_O_EVENT, /* the event diff, history and layout compare */
};
/* An entry of a command's option table: shared options by name; the
 * command's own stored straight into its context (the argument, or true) or
 * handed to its own function (cli_own_opt). */
typedef enum cli_opt_kind {
	CLI_K_END,
	CLI_K_SHARED,
	CLI_K_STR,
	CLI_K_SET,
	CLI_K_NUM,
	CLI_K_OWN
} cli_opt_kind;
typedef struct cli_opt {
	cli_opt_kind kind;
	const char *name; /* CLI_K_SHARED: the shared options' names, comma-separated */
	int has_arg, val;
	size_t off; /* CLI_K_STR (const char *), CLI_K_SET (bool), CLI_K_NUM: the field's offset */
	/* CLI_K_NUM: the field's size (uint32_t or uint64_t); the values it
	 * takes, from min to max (pow2: the powers of two only); the message
	 * for any other, its %s the value given */
	size_t size;
	uint64_t min, max;
	bool pow2;
	const char *bad;
} cli_opt;
/* offsetof(type, field), and a compile error unless the field is a T */
#define CLI_FIELD_(type, field, T) _Generic(&((type *)0)->field, T * : offsetof(type, field))
/* the same for a uint32_t or uint64_t field */
/* clang-format off */
#define CLI_NUM_FIELD_(type, field)                                                                \
	_Generic(&((type *)0)->field, uint32_t *: offsetof(type, field),                           \
		 uint64_t *: offsetof(type, field))
/* clang-format on */
/* "input,where,time": the shared options of these names, in this order */
#define CLI_SHARED(names)                                                                          \
	{                                                                                          \
		CLI_K_SHARED, names, 0, 0, 0                                                       \
	}
/* --NAME ARG: ARG into type's field */
#define CLI_STR(name, val, type, field)                                                            \
	{                                                                                          \
		CLI_K_STR, name, required_argument, val, CLI_FIELD_(type, field, const char *)     \
	}
/* --NAME: type's field true */
#define CLI_SET(name, val, type, field)                                                            \
	{                                                                                          \
		CLI_K_SET, name, no_argument, val, CLI_FIELD_(type, field, bool)                   \
	}
/* --NAME N: a whole number from min to max into type's field (uint32_t or
 * uint64_t); any other N: the message bad (its %s: N), and exit 2 */
#define CLI_NUM(name, val, type, field, min, max, bad)                                             \
	{                                                                                          \
		CLI_K_NUM, name, required_argument, val, CLI_NUM_FIELD_(type, field),              \
		    sizeof(((type *)0)->field), min, max, false, bad                               \
	}
/* the same, a power of two */
#define CLI_POW2(name, val, type, field, min, max, bad)                                            \
	{                                                                                          \
		CLI_K_NUM, name, required_argument, val, CLI_NUM_FIELD_(type, field),              \
		    sizeof(((type *)0)->field), min, max, true, bad                                \
	}
/* --prefix-strip N (annotate, view): 0-64 path components into type's
 * field */
#define CLI_PREFIX_STRIP(type, field)                                                              \
	CLI_NUM("prefix-strip", 'P', type, field, 0, 64,                                           \
		"--prefix-strip '%s': a number of path components (0-64)")
/* --NAME for the command's own function */
#define CLI_OWN(name, has_arg, val)                                                                \
	{                                                                                          \
		CLI_K_OWN, name, has_arg, val, 0                                                   \
	}
#define CLI_END                                                                                    \
	{                                                                                          \
		CLI_K_END, NULL, 0, 0, 0                                                           \
	}

typedef enum cli_format { CLI_FMT_TEXT, CLI_FMT_CSV, CLI_FMT_JSON, CLI_FMT_MARKDOWN } cli_format;

struct dp_diff_opts;
/* What the shared options said, and how the command takes them. */
typedef struct cli_common {
	const char *cmd; /* "report": for the messages */
	void (*usage)(FILE *f);
	bool top_per_level; /* -n 20,5: a count per level (report) */
	int min_width;	    /* --width's least (40) */
	/* --per, --confidence, --noise, --fail-if go straight there */
	struct dp_diff_opts *diff;
	bool per_interval; /* --per interval (diff's --between) */

	const char *input;
	/* --where, --time, --verdict, --symfs, --jobs; --between (report's and
	 * diff's own) */
	dp_select sel;
	const char *event;   /* --event; NULL: the profile's first */
	bool input_given;    /* -i given: another -i adds a file */
	const char *by_text; /* --by as written; NULL: not given */
	bool have_by, metric_given;
	dp_agg_level by, then[DP_AGG_MAX_LEVELS - 1];
	int nthen;
	dp_metric metric;
	size_t top[DP_AGG_MAX_LEVELS];
	int width;
	cli_format format; /* the last of --csv, --json, --markdown */
} cli_common;

/* The defaults: the profile dataprof.dprof, metric period, --width 40 or more. */
void cli_common_init(cli_common *co, const char *cmd, void (*usage)(FILE *f));
/* Takes what getopt_long returned (c, optarg) into co: CLI_OPT_TAKEN, or the
 * status to exit with now: 0 after -h, 2 after saying what is wrong (a bad
 * value, an option the command does not know). */
#define CLI_OPT_TAKEN (-1)
int cli_common_opt(cli_common *co, int c);
/* After the options: the profile named after them into co->input, then
 * --where and --time checked; -1 after saying what is wrong (exit 2). */
int cli_common_profile(cli_common *co, int argc, char **argv);
/* A command's own option, as getopt_long returned it (optarg in arg):
 * CLI_OPT_TAKEN, CLI_OPT_SHARED when it is not the command's own (the
 * shared options take it), or the status to exit with now. */
#define CLI_OPT_SHARED (-2)
typedef int (*cli_own_opt)(void *ctx, int c, const char *arg);
/* Reads the options of argv, each to own (the command's) and else to the
 * shared ones: CLI_OPT_TAKEN when all are read (optind: the first word
 * after them), else the status to exit with (0 after -h, 2 after saying
 * what is wrong). */
int cli_parse_options(cli_common *co, int argc, char **argv, const char *shortopts,
		      const cli_opt *opts, cli_own_opt own, void *ctx);
/* The same, then the profile named after the options (cli_common_profile). */
int cli_parse(cli_common *co, int argc, char **argv, const char *shortopts, const cli_opt *opts,
	      cli_own_opt own, void *ctx);
/* cli_parse_options for a command that keeps none of the shared options'
 * values (list, doctor, stat, record): cmd and usage as cli_common_init's. */
int cli_parse_own(const char *cmd, void (*usage)(FILE *f), int argc, char **argv,
		  const char *shortopts, const cli_opt *opts, cli_own_opt own, void *ctx);
struct dp_report_opts;
struct dp_run_opts;
/* co's input, filters, metric, counts and sizes into a report's options. */
void cli_common_to_report(const cli_common *co, struct dp_report_opts *o);
/* co's event and filters (--where, --time, --verdict, --symfs) into a run's
 * options. */
void cli_common_to_run(const cli_common *co, struct dp_run_opts *o);
/* export's and view's start: o zeroed, the options read into co and ctx
 * (cli_parse), then co's into o for one report pass by event, with progress
 * on a terminal. CLI_OPT_TAKEN, or the status to exit with. */
int cli_parse_pass(cli_common *co, struct dp_report_opts *o, int argc, char **argv,
		   const char *shortopts, const cli_opt *opts, void *ctx);
/* Prints a command's help, fmt formatted: a line "@NAME" stands for the
 * shared help line of --NAME, its text from column col. */
void cli_usage(FILE *f, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

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
/* The profiles named after the options, if any, into *input (several:
 * read as one profile, dp_profile_open); they replace -i's. 0. */
int cli_one_profile(int argc, char **argv, const char *cmd, const char **input);
/* list (NULL: none yet) with one more profile path: a repeated -i. */
const char *cli_add_profile(const char *list, const char *path);
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
