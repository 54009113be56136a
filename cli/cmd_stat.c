/* dataprof stat: system counters of a command, no sampling. A live table on
 * a terminal, a summary at the end, and the readings in a raw profile. */
#include "cli.h"
#include "record_opts.h"
#include "sim_cli.h"
#include "../sampler/sim_session.h"
#include "../sampler/stat_view.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dataprof stat [OPTIONS] [--] COMMAND [ARGS...]\n"
		"       dataprof stat [OPTIONS] -p PID [-- COMMAND [ARGS...]]\n\n"
		"Collects system counters while COMMAND (or process PID) runs, without\n"
		"sampling: a live table on a terminal (counters as rates per second), a\n"
		"summary on standard error at the end, and with -o the readings in a raw\n"
		"profile without samples.\n\n"
		"      --counters LIST   comma-separated globs of sensors (default: 'default';\n"
		"                        'dataprof list --counters' shows them)\n"
		"      --interval TIME   between collections: 100ms (the default), 1ms to\n"
		"                        1h; a time has its unit (ns, us, ms, s)\n"
		"  -o, --output FILE     keep the readings in FILE (a raw profile)\n"
		"      --markers         also record the code markers of COMMAND (with -o)\n"
		"  -p, --pid PID         count process PID; with a COMMAND, until it exits\n"
		"  -e, --event EVENT     count simulated events instead (sim:l1d-miss,\n"
		"                        sim:llc-miss...: 'dataprof list sim'); totals as\n"
		"                        perf stat prints them\n"
		"  -x, --field-separator SEP  with -e: COUNT<SEP><SEP>EVENT lines\n"
		"      --sim-cache GEOM  with -e: the simulated geometry (see record --help)\n"
		"  -q, --quiet           print no table\n"
		"  -h, --help            show this help\n\n"
		"Exit status: the command's; 125 if dataprof itself failed.\n");
}

/* What stat's options said. */
typedef struct stat_args {
	dp_record_opts o;
	bool markers;
	cli_event_vec ev; /* -e: sim: events */
	const char *sep, *sim_cache;
} stat_args;

static int stat_opt(void *ctx, int c, const char *arg)
{
	stat_args *a = ctx;

	switch (c) {
	case 'e':
		return cli_parse_events(arg, &a->ev, true) < 0 ? CLI_EXIT_OWN_FAILURE
							       : CLI_OPT_TAKEN;
	case 'I':
		return cli_parse_interval(arg, &a->o.interval_ns) < 0 ? CLI_EXIT_OWN_FAILURE
								      : CLI_OPT_TAKEN;
	case 'p':
		return cli_parse_pid(arg, &a->o.pid) < 0 ? CLI_EXIT_OWN_FAILURE : CLI_OPT_TAKEN;
	case 'h':
		return CLI_OPT_SHARED; /* the shared -h: the help, exit 0 */
	default:
		fprintf(stderr, "'dataprof stat --help' lists the options\n");
		return CLI_EXIT_OWN_FAILURE;
	}
	return CLI_OPT_TAKEN;
}

static int parse(stat_args *a, int argc, char **argv)
{
	static const cli_opt opts[] = {
	    CLI_STR("counters", 'C', stat_args, o.counters),
	    CLI_OWN("interval", required_argument, 'I'),
	    CLI_STR("output", 'o', stat_args, o.output),
	    CLI_OWN("pid", required_argument, 'p'),
	    CLI_SET("quiet", 'q', stat_args, o.quiet),
	    CLI_SHARED("help"),
	    CLI_SET("markers", 'M', stat_args, markers),
	    CLI_OWN("event", required_argument, 'e'),
	    CLI_STR("field-separator", 'x', stat_args, sep),
	    CLI_STR("sim-cache", 'S', stat_args, sim_cache),
	    CLI_END,
	};
	int st;

	memset(a, 0, sizeof(*a));
	a->o.output = "/dev/null"; /* without -o the readings are only shown */
	a->o.counters = "default";
	a->o.interval_ns = 100000000ull;
	st = cli_parse_own("stat", usage, argc, argv, "+o:p:qhe:x:", opts, stat_opt, a);
	a->o.argv = argv + optind;
	return st;
}

/* stat -e sim:...: the command on the simulator, totals as perf stat. */
static int stat_sim(const stat_args *a)
{
	dp_sim_opts o;
	dp_sim_result res;
	dp_error err = {{0}};
	bool ok = false;
	int rc;

	memset(&o, 0, sizeof(o));
	memset(&res, 0, sizeof(res));
	if (a->o.pid) {
		cli_error("sim: events run the command on a simulator: -p does not apply");
		return CLI_EXIT_OWN_FAILURE;
	}
	if (cli_sim_geometry(&o.geo, a->sim_cache) < 0)
		return CLI_EXIT_OWN_FAILURE;
	o.events = a->ev.v;
	o.nevents = a->ev.n;
	o.count_only = true;
	o.output = a->o.output;
	o.argv = a->o.argv;
	o.cmdline = cli_cmdline;
	o.tool_dir = cli_sim_tool_dir();
	if (dp_sim_run(&o, &res, &err) < 0) {
		cli_error("%s", err.msg);
	} else if (!res.have_totals) {
		cli_error("the simulator gave no totals: Valgrind could not run '%s' (its message "
			  "is above)",
			  o.argv[0]);
	} else {
		dp_sim_print_totals(stderr, &o, &res, a->sep);
		ok = true;
	}
	rc = ok || res.exit_code ? res.exit_code : CLI_EXIT_OWN_FAILURE;
	free(res.ev_samples);
	free((char *)o.tool_dir);
	return rc;
}

/* The counters while the command runs: the live table, then the summary. */
static int stat_counters(stat_args *a)
{
	dp_record_opts *o = &a->o;
	dp_record_result res;
	dp_error err = {{0}};
	dp_stat_view view = {0};
	char *env[2] = {NULL, NULL};
	bool quiet = o->quiet;
	int rc;

	if (a->markers) {
		if (cli_markers_env(o, &env[0]) < 0)
			return CLI_EXIT_OWN_FAILURE;
		if (env[0])
			o->env = env;
	}
	o->cmdline = cli_cmdline;
	o->on_reading = dp_stat_view_reading;
	o->on_reading_ctx = &view;
	view.live = !o->quiet && dp_stderr_is_tty();
	view.interval_ns = o->interval_ns;
	o->quiet = true; /* the recorder's own summary line would repeat ours */
	if (dp_record_run(o, &res, &err) < 0) {
		cli_error("%s", err.msg);
		rc = res.exit_code ? res.exit_code : CLI_EXIT_OWN_FAILURE;
	} else {
		if (!quiet && view.s)
			dp_stat_view_summary(&view, &res);
		rc = res.exit_code;
	}
	free(env[0]);
	dp_stat_view_free(&view);
	return rc;
}

int cmd_stat(int argc, char **argv)
{
	stat_args a;
	int rc = parse(&a, argc, argv);

	if (rc != CLI_OPT_TAKEN)
		goto out;
	rc = CLI_EXIT_OWN_FAILURE;
	if (!a.o.pid && !a.o.argv[0])
		cli_error("nothing to count: give a command after '--', or -p PID");
	else if (a.ev.n)
		rc = stat_sim(&a);
	else if (a.sep || a.sim_cache)
		cli_error("-x and --sim-cache apply to -e sim: events only");
	else
		rc = stat_counters(&a);
out:
	cli_events_free(&a.ev);
	return rc;
}
