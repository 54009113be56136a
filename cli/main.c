/* dataprof: which data does a program stall on. */
#include "cli.h"
#include "units.h"
#include "util.h"
#include "../sampler/recorder.h"

#include <limits.h>
#include <stdarg.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef DATAPROF_VERSION
#define DATAPROF_VERSION "0"
#endif

const char *cli_cmdline;

static const struct command {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} commands[] = {
	{"record", cmd_record, "sample events of a command or process into a raw profile"},
	{"report", cmd_report, "which data objects, members and lines the samples fall on"},
	{"annotate", cmd_annotate, "source and instructions, with what data each one touched"},
	{"diff", cmd_diff, "compare runs of two builds: which keys changed beyond noise"},
	{"history", cmd_history, "keep runs' aggregates per commit in SQLite; show trends"},
	{"layout", cmd_layout, "a type's layout from DWARF with the samples on each member"},
	{"accuracy", cmd_accuracy, "decode's precision and recall against a sim: profile's truth"},
	{"dump", cmd_dump, "print every record of a profile"},
	{"list", cmd_list, "list the events (or --counters) this machine can sample"},
	{"doctor", cmd_doctor, "probe what this machine's kernel delivers: which events work"},
	{"stat", cmd_stat, "collect system counters of a command, without sampling"},
	{"markers", cmd_markers, "the time between the code marks of a profile"},
	{"view", cmd_view, "one HTML page: counters, thread lanes, samples and data over time"},
	{"export", cmd_export, "a profile for Perfetto (trace JSON) or pprof (profile.proto)"},
};

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("dataprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *cli_add_profile(const char *list, const char *path)
{
	/* kept to the end: the strings live as long as the command */
	static DP_VEC(char *) joined;
	char *s;

	if (!list)
		return path;
	s = dp_asprintf("%s%s%s", list, DP_PROFILE_SPEC_SEP, path);
	dp_vec_push(&joined, s);
	return s;
}

int cli_one_profile(int argc, char **argv, const char *cmd, const char **input)
{
	const char *list = NULL;

	(void)cmd;
	/* several files (a series of record --switch-output, the shell's glob
	 * expanded) are read as one profile: the reader checks they are one */
	while (optind < argc)
		list = cli_add_profile(list, argv[optind++]);
	if (list)
		*input = list;
	return 0;
}

bool cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	}
	return false;
}

int cli_parse_interval(const char *arg, uint64_t *ns)
{
	char why[160];

	if (!dp_parse_duration(arg, ns, why, sizeof(why))) {
		cli_error("--interval %s", why);
		return -1;
	}
	if (*ns < 1000000 || *ns > 3600000000000ull) {
		cli_error("--interval '%s': between 1ms and 1h", arg);
		return -1;
	}
	return 0;
}

/* The marker collector: $DATAPROF_COLLECTOR, else next to this binary (a
 * build tree), else in the installed tree's lib/dataprof/, found from this
 * binary's place (DATAPROF_AGENT_RELDIR, relative: any prefix). */
char *cli_collector_path(void)
{
	static const char *const rel[] = {"libdataprof_collector.so",
					  DATAPROF_AGENT_RELDIR "/libdataprof_collector.so"};
	const char *env = getenv("DATAPROF_COLLECTOR");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return access(env, R_OK) == 0 ? dp_strdup(env) : NULL;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	for (size_t i = 0; i < DP_ARRAY_LEN(rel); i++) {
		char *p = dp_asprintf("%s/%s", exe, rel[i]), *real = realpath(p, NULL);

		free(p);
		if (real && access(real, R_OK) == 0)
			return real;
		free(real);
	}
	return NULL;
}

int cli_markers_env(dp_record_opts *o, char **entry)
{
	char *path;

	if (o->pid) {
		cli_error("--markers needs a command that dataprof starts, not -p: the collector "
			  "is named in the command's environment");
		return -1;
	}
	path = cli_collector_path();
	if (!path) {
		fprintf(stderr, "dataprof: warning: no marker collector (libdataprof_collector.so "
				"next to dataprof, in " DATAPROF_AGENT_RELDIR " from it, or "
				"DATAPROF_COLLECTOR): "
				"markers are off\n");
		/* the command would try the same path and say it again */
		unsetenv("DATAPROF_COLLECTOR");
		return 0;
	}
	*entry = dp_asprintf("DATAPROF_COLLECTOR=%s", path);
	free(path);
	o->agent = true;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: dataprof [--version] [--help] COMMAND [ARGS]\n\n"
		   "dataprof samples a program and tells which data it stalls on.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < DP_ARRAY_LEN(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'dataprof COMMAND --help' describes each command.\n");
}

int main(int argc, char **argv)
{
	dp_buf cmdline = {0};

	for (int i = 0; i < argc; i++)
		dp_buf_printf(&cmdline, "%s%s", i ? " " : "", argv[i]);
	cli_cmdline = cmdline.p;
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("dataprof %s (git %s)\n", DATAPROF_VERSION, dp_git_rev);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < DP_ARRAY_LEN(commands); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			int rc = commands[i].fn(argc - 1, argv + 1);
			dp_buf_free(&cmdline);
			return rc;
		}
	}
	cli_error("'%s' is not a command; 'dataprof --help' lists them", argv[1]);
	dp_buf_free(&cmdline);
	return 2;
}
