/* dataprof doctor: what this machine's kernel really delivers, probed
 * (sampler/probe.c), so that a user can see why an event gives nothing. */
#include "cli.h"
#include "json.h"
#include "../sampler/probe.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: dataprof doctor [--json] [PROBE...]\n\n"
		   "Opens each kind of event on itself, triggers it and reads back what the\n"
		   "kernel delivered (an open that succeeds proves nothing: some virtual\n"
		   "machines accept a hardware breakpoint and never fire it), then says which\n"
		   "events work on this machine. PROBE names some of them:\n"
		   "  page-faults cpu-clock task-clock breakpoint pmu unprivileged\n\n"
		   "  --json       one JSON object (schema dataprof-doctor/1, docs/record.md)\n"
		   "  -h, --help   show this help\n\n"
		   "Exit status: 0, whatever the answers; 2 on a usage error.\n");
}

static void print_text(const dp_probe_result *res, const bool *want)
{
	struct utsname u;
	bool any_yes = false, any_no = false;

	if (uname(&u) == 0)
		printf("# dataprof doctor: %s %s, running as %s\n", u.sysname, u.release,
		       geteuid() == 0 ? "root" : "an ordinary user");
	for (int i = 0; i < DP_PROBE_COUNT; i++)
		if (want[i])
			printf("%-3s  %-12s %s\n     %12s %s\n", res[i].ok ? "yes" : "no",
			       dp_probe_key(i), dp_probe_question(i), "", res[i].detail);
	for (int i = 0; i < DP_PROBE_COUNT; i++) {
		any_yes |= want[i] && res[i].ok;
		any_no |= want[i] && !res[i].ok;
	}
	printf("#\n");
	if (any_yes) {
		printf("# works here:");
		for (int i = 0; i < DP_PROBE_COUNT; i++)
			if (want[i] && res[i].ok)
				printf(" %s;", dp_probe_events(i));
		printf("\n");
	}
	if (!any_no)
		return;
	printf("# not here:");
	for (int i = 0; i < DP_PROBE_COUNT; i++)
		if (want[i] && !res[i].ok)
			printf(" %s;", dp_probe_events(i));
	printf("\n# without a PMU or breakpoints: page-faults give exact data addresses, "
	       "cpu-clock gives time, sim: events simulate the caches (dataprof list sim)\n");
}

static void print_json(const dp_probe_result *res, const bool *want)
{
	struct utsname u;
	bool first = true;

	printf("{\"schema\":\"dataprof-doctor/1\",\"kernel\":");
	dp_json_str(stdout, uname(&u) == 0 ? u.release : "");
	printf(",\"root\":%s,\"probes\":[", geteuid() == 0 ? "true" : "false");
	for (int i = 0; i < DP_PROBE_COUNT; i++) {
		if (!want[i])
			continue;
		printf("%s\n{\"name\":", first ? "" : ",");
		dp_json_str(stdout, dp_probe_key(i));
		printf(",\"ok\":%s,\"question\":", res[i].ok ? "true" : "false");
		dp_json_str(stdout, dp_probe_question(i));
		printf(",\"events\":");
		dp_json_str(stdout, dp_probe_events(i));
		printf(",\"detail\":");
		dp_json_str(stdout, res[i].detail);
		printf("}");
		first = false;
	}
	printf("\n]}\n");
}

/* doctor's options: --json; -h the shared help; any other, the usage */
typedef struct doctor_args {
	bool json;
} doctor_args;

static int doctor_opt(void *ctx, int c, const char *arg)
{
	(void)ctx, (void)arg;
	if (c == 'h')
		return CLI_OPT_SHARED;
	usage(stderr);
	return 2;
}

int cmd_doctor(int argc, char **argv)
{
	static const cli_opt opts[] = {
	    CLI_SET("json", 'j', doctor_args, json),
	    CLI_SHARED("help"),
	    CLI_END,
	};
	dp_probe_result res[DP_PROBE_COUNT];
	bool want[DP_PROBE_COUNT], named = false;
	doctor_args a = {false};
	int st;

	st = cli_parse_own("doctor", usage, argc, argv, "h", opts, doctor_opt, &a);
	if (st != CLI_OPT_TAKEN)
		return st;
	memset(want, 0, sizeof(want));
	for (; optind < argc; optind++) {
		int id = dp_probe_find(argv[optind]);

		if (id < 0) {
			cli_error("'%s' is not a probe; 'dataprof doctor --help' lists them",
				  argv[optind]);
			return 2;
		}
		want[id] = named = true;
	}
	for (int i = 0; i < DP_PROBE_COUNT; i++) {
		want[i] |= !named;
		if (want[i])
			dp_probe_run(i, &res[i]);
	}
	if (a.json)
		print_json(res, want);
	else
		print_text(res, want);
	return 0;
}
