/* The options of record: what is sampled, whom, for how long and where to,
 * and what else is recorded (heap blocks, counters, marks; the simulator's
 * settings). */
#include "cli.h"
#include "units.h"
#include "record_opts.h"
#include "sim_cli.h"
#include "../sampler/branch_stack.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* --switch-output: "signal", a SIZE (a number and B, K, M or G) or a TIME
 * (a number and ms, s, m, h or d), as perf takes them. */
static int parse_switch(const char *arg, dp_record_opts *o)
{
	static const struct {
		const char *unit;
		uint64_t mul;
		bool time;
	} units[] = {
	    {"B", 1, false},
	    {"K", 1ull << 10, false},
	    {"M", 1ull << 20, false},
	    {"G", 1ull << 30, false},
	    {"ms", 1000000ull, true},
	    {"s", 1000000000ull, true},
	    {"m", 60000000000ull, true},
	    {"h", 3600000000000ull, true},
	    {"d", 86400000000000ull, true},
	};
	char *end;
	double n;

	if (!strcmp(arg, "signal")) {
		o->switch_signal = true;
		return 0;
	}
	errno = 0;
	n = strtod(arg, &end);
	for (size_t i = 0; end != arg && !errno && n > 0 && i < DP_ARRAY_LEN(units); i++) {
		double v = n * (double)units[i].mul;

		if (strcmp(end, units[i].unit) || v > 1e18)
			continue;
		if (units[i].time && v < 1e7) {
			cli_error("--switch-output '%s': switch at most every 10ms", arg);
			return -1;
		}
		if (!units[i].time && v < 4096) {
			cli_error("--switch-output '%s': files of 4K at least", arg);
			return -1;
		}
		*(units[i].time ? &o->switch_ns : &o->switch_bytes) = (uint64_t)v;
		return 0;
	}
	cli_error("--switch-output '%s' is no SIZE (100M: B K M G), TIME (30s: ms s m h d) nor "
		  "'signal'",
		  arg);
	return -1;
}

static int parse_duration(const char *arg, uint64_t *ns)
{
	char *end;
	double secs = strtod(arg, &end);

	if (end == arg || *end || !(secs > 0) || secs > 1e6) {
		cli_error("--duration needs a positive number of seconds, not '%s'", arg);
		return -1;
	}
	*ns = (uint64_t)(secs * 1e9);
	return 0;
}

/* The status of an option: taken, or 125 after a message. */
static int taken(int rc)
{
	return rc < 0 ? CLI_EXIT_OWN_FAILURE : CLI_OPT_TAKEN;
}

/* A count option's value: positive (or 0 when zero_ok) and at most max. */
static int count(const char *arg, uint64_t *v, bool zero_ok, uint64_t max, const char *msg)
{
	if (!dp_parse_u64(arg, v) || (!*v && !zero_ok) || *v > max) {
		cli_error("%s, not '%s'", msg, arg);
		return -1;
	}
	return 0;
}

/* -e, -c, -F, -b, -j, -m: what is sampled, and how */
static int sampling_opt(cli_record_args *a, int c, const char *arg)
{
	dp_record_opts *o = &a->o;
	dp_error err = {{0}};
	uint64_t v;

	switch (c) {
	case 'e':
		return taken(cli_parse_events(arg, &a->ev, false));
	case 'c':
		return taken(
		    count(arg, &o->period, false, UINT64_MAX, "-c needs a positive count"));
	case 'F':
		return taken(
		    count(arg, &o->freq, false, UINT64_MAX, "-F needs a positive frequency in Hz"));
	case 'b':
		o->branch_mode |= PERF_SAMPLE_BRANCH_ANY;
		return CLI_OPT_TAKEN;
	case 'j':
		if (dp_branch_filter_parse(arg, &v, &err) < 0) {
			cli_error("%s", err.msg);
			return CLI_EXIT_OWN_FAILURE;
		}
		o->branch_mode |= v;
		return CLI_OPT_TAKEN;
	case 'm':
		if (!dp_parse_u64(arg, &v) || !v || (v & (v - 1)) || v > (1u << 20)) {
			cli_error("-m needs a power of two number of pages, not '%s'", arg);
			return CLI_EXIT_OWN_FAILURE;
		}
		o->mmap_pages = (size_t)v;
		return CLI_OPT_TAKEN;
	}
	return CLI_OPT_SHARED;
}

/* -p, -C, --duration, --switch-output, --max-files: whom, for how long, and
 * where to */
static int target_opt(cli_record_args *a, int c, const char *arg)
{
	dp_record_opts *o = &a->o;

	switch (c) {
	case 'p':
		return taken(cli_parse_pid(arg, &o->pid));
	case 'C':
		o->system_wide = true; /* as perf: the CPUs' every process */
		o->cpu_list = arg;
		return CLI_OPT_TAKEN;
	case 'T':
		return taken(parse_duration(arg, &o->duration_ns));
	case 'W':
		return taken(parse_switch(arg, o));
	case 'X':
		return taken(count(arg, &o->max_files, false, UINT64_MAX,
				   "--max-files needs a number of files, 1 or more"));
	}
	return CLI_OPT_SHARED;
}

/* --heap, --heap-depth, --alloc-fn: heap blocks */
static int heap_opt(cli_record_args *a, int c, const char *arg)
{
	char why[160];

	switch (c) {
	case 'H':
		a->heap = true;
		if (arg && !dp_parse_size(arg, &a->heap_min, why, sizeof(why))) {
			cli_error("--heap=MIN: %s", why);
			return CLI_EXIT_OWN_FAILURE;
		}
		return CLI_OPT_TAKEN;
	case 'D':
		return taken(
		    count(arg, &a->heap_depth, false, 16, "--heap-depth needs 1 to 16 frames"));
	case 'A':
		if (!*arg || strchr(arg, '\n')) {
			cli_error("--alloc-fn needs a function name or glob, not '%s'", arg);
			return CLI_EXIT_OWN_FAILURE;
		}
		dp_buf_printf(&a->alloc_fns, "%s%s", a->alloc_fns.len ? "," : "", arg);
		return CLI_OPT_TAKEN;
	}
	return CLI_OPT_SHARED;
}

/* --interval, --sim-cache, --sim-skid, --sim-clock: what else is recorded */
static int more_opt(cli_record_args *a, int c, const char *arg)
{
	switch (c) {
	case 'I':
		return taken(cli_parse_interval(arg, &a->o.interval_ns));
	case 'S':
		a->sim_cache = arg;
		break;
	case 'K':
		if (count(arg, &a->sim_skid, true, 1000,
			  "--sim-skid needs 0 to 1000 instructions") < 0)
			return CLI_EXIT_OWN_FAILURE;
		break;
	case 'L':
		if (strcmp(arg, "sim") && strcmp(arg, "real")) {
			cli_error("--sim-clock is sim (simulated cycles) or real (the host's "
				  "clock), not '%s'",
				  arg);
			return CLI_EXIT_OWN_FAILURE;
		}
		a->sim_real_clock = !strcmp(arg, "real");
		break;
	default:
		return CLI_OPT_SHARED;
	}
	a->sim_given = true;
	return CLI_OPT_TAKEN;
}

/* The options the table does not store: every one is record's own, -h and
 * the unknown ones included. */
static int record_opt(void *ctx, int c, const char *arg)
{
	static int (*const groups[])(cli_record_args *, int,
				     const char *) = {sampling_opt, target_opt, heap_opt, more_opt};
	int st;

	for (size_t i = 0; i < DP_ARRAY_LEN(groups); i++)
		if ((st = groups[i](ctx, c, arg)) != CLI_OPT_SHARED)
			return st;
	if (c == 'h')
		return CLI_OPT_SHARED; /* the shared -h: the help, exit 0 */
	fprintf(stderr, "'dataprof record --help' lists the options\n");
	return CLI_EXIT_OWN_FAILURE;
}

int cli_record_parse(cli_record_args *a, int argc, char **argv, void (*usage)(FILE *f))
{
	static const cli_opt opts[] = {
	    CLI_OWN("event", required_argument, 'e'),
	    CLI_OWN("count", required_argument, 'c'),
	    CLI_OWN("freq", required_argument, 'F'),
	    CLI_OWN("pid", required_argument, 'p'),
	    CLI_STR("output", 'o', cli_record_args, o.output),
	    CLI_SET("call-graph", 'g', cli_record_args, o.callchain),
	    CLI_OWN("branch-any", no_argument, 'b'),
	    CLI_OWN("branch-filter", required_argument, 'j'),
	    CLI_OWN("mmap-pages", required_argument, 'm'),
	    CLI_SET("no-regs", 'R', cli_record_args, o.no_regs),
	    CLI_SET("quiet", 'q', cli_record_args, o.quiet),
	    CLI_SHARED("help"),
	    CLI_OWN("heap", optional_argument, 'H'),
	    CLI_OWN("heap-depth", required_argument, 'D'),
	    CLI_OWN("alloc-fn", required_argument, 'A'),
	    CLI_STR("counters", 'N', cli_record_args, o.counters),
	    CLI_SET("all-cpus", 'a', cli_record_args, o.system_wide),
	    CLI_OWN("cpu", required_argument, 'C'),
	    CLI_OWN("duration", required_argument, 'T'),
	    CLI_OWN("interval", required_argument, 'I'),
	    CLI_SET("markers", 'M', cli_record_args, markers),
	    CLI_OWN("sim-cache", required_argument, 'S'),
	    CLI_OWN("sim-skid", required_argument, 'K'),
	    CLI_OWN("sim-clock", required_argument, 'L'),
	    CLI_OWN("switch-output", required_argument, 'W'),
	    CLI_OWN("max-files", required_argument, 'X'),
	    CLI_OWN("switch-max-files", required_argument, 'X'), /* perf's name */
	    CLI_END,
	};
	int st;

	memset(a, 0, sizeof(*a));
	a->o.output = "dataprof.dprof";
	st = cli_parse_own("record", usage, argc, argv, "+e:c:F:p:o:gbj:m:qhaC:", opts, record_opt,
			   a);
	a->o.argv = argv + optind;
	return st;
}

void cli_record_args_free(cli_record_args *a)
{
	cli_events_free(&a->ev);
	dp_vec_free_each(&a->env, free);
	dp_buf_free(&a->alloc_fns);
}
