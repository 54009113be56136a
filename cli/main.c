/* dataprof: which data does a program stall on. */
#include "cli.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
	{"diff", cmd_diff, "compare runs of two builds: which keys changed beyond noise"},
	{"history", cmd_history, "keep runs' aggregates per commit in SQLite; show trends"},
	{"layout", cmd_layout, "a type's layout from DWARF with the samples on each member"},
	{"dump", cmd_dump, "print every record of a profile"},
	{"list", cmd_list, "list the events this machine can sample"},
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
		printf("dataprof %s\n", DATAPROF_VERSION);
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
