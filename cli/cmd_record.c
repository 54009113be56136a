/* dataprof record */
#include "cli.h"
#include "units.h"
#include "../sampler/recorder.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_OWN_FAILURE 125 /* as timeout(1): the command's own codes stay free */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dataprof record [OPTIONS] [--] COMMAND [ARGS...]\n"
		"       dataprof record [OPTIONS] -p PID [-- COMMAND [ARGS...]]\n\n"
		"Samples events of COMMAND (and its threads and children) or of a running\n"
		"process, with the registers of each sample, into a raw profile.\n\n"
		"  -e, --event EVENT     event to sample; repeat or separate with commas.\n"
		"                        libpfm4 names: cycles, cpu-clock, page-faults,\n"
		"                        MEM_LOAD_RETIRED.L3_MISS:precise=2, with modifiers\n"
		"                        :u :k :p :pp :ppp, period=N, ldlat=N;\n"
		"                        data breakpoints: mem:ADDR[/LEN][:w|rw]\n"
		"                        (default: cycles, or cpu-clock without a hardware PMU)\n"
		"  -c, --count N         take a sample every N events\n"
		"  -F, --freq HZ         take about HZ samples a second (default 4000;\n"
		"                        page faults and breakpoints: every event)\n"
		"  -p, --pid PID         attach to process PID and its threads; with a\n"
		"                        COMMAND, record until it exits\n"
		"  -o, --output FILE     write the profile to FILE (default dataprof.dprof)\n"
		"  -g, --call-graph      record user-space call chains\n"
		"  -m, --mmap-pages N    ring buffer data pages per CPU, a power of two\n"
		"                        (default 128)\n"
		"      --no-regs         do not capture registers (no data addresses later)\n"
		"      --heap[=MIN]      track heap blocks of at least MIN (bytes, 4K, 1M; 0:\n"
		"                        all) with their allocation sites, for data objects\n"
		"      --heap-depth N    call-site frames kept per allocation (default 1)\n"
		"      --counters LIST   also collect system counters: comma-separated globs\n"
		"                        (proc/meminfo/*,proc/stat/cpu_*), or 'default';\n"
		"                        'dataprof list --counters' shows them\n"
		"      --interval TIME   between counter collections: 100ms (the default),\n"
		"                        1ms to 1h; a time has its unit (ns, us, ms, s)\n"
		"      --markers         record the code markers of COMMAND (dataprof/markers.h)\n"
		"  -q, --quiet           print no summary\n"
		"  -h, --help            show this help\n\n"
		"Exit status: the command's; 125 if dataprof itself failed, 126/127 if the\n"
		"command could not be run. Ctrl-C stops the command and keeps the profile.\n");
}

typedef DP_VEC(dp_event_spec) spec_vec;

static int add_events(const char *list, spec_vec *ev, dp_error *err)
{
	char *copy = dp_strdup(list), *save = NULL;
	int rc = 0;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		dp_event_spec e;

		if (dp_event_parse(t, &e, err) < 0) {
			rc = -1;
			break;
		}
		dp_vec_push(ev, e);
	}
	free(copy);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{"event", required_argument, 0, 'e'},  {"count", required_argument, 0, 'c'},
		{"freq", required_argument, 0, 'F'},   {"pid", required_argument, 0, 'p'},
		{"output", required_argument, 0, 'o'}, {"call-graph", no_argument, 0, 'g'},
		{"mmap-pages", required_argument, 0, 'm'}, {"no-regs", no_argument, 0, 'R'},
		{"quiet", no_argument, 0, 'q'},        {"help", no_argument, 0, 'h'},
		{"heap", optional_argument, 0, 'H'},   {"heap-depth", required_argument, 0, 'D'},
		{"counters", required_argument, 0, 'C'}, {"interval", required_argument, 0, 'I'},
		{"markers", no_argument, 0, 'M'},
		{0, 0, 0, 0},
	};
	spec_vec ev = {0};
	DP_VEC(char *) env = {0};
	bool heap = false;
	uint64_t heap_min = 0, heap_depth = 1;
	char why[160];
	dp_record_opts o;
	dp_record_result res;
	dp_error err = {{0}};
	uint64_t v;
	int c, rc = EXIT_OWN_FAILURE;
	bool markers = false;

	memset(&o, 0, sizeof(o));
	o.output = "dataprof.dprof";
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:c:F:p:o:gm:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (add_events(optarg, &ev, &err) < 0) {
				cli_error("%s", err.msg);
				goto out;
			}
			break;
		case 'c':
			if (!dp_parse_u64(optarg, &o.period) || !o.period) {
				cli_error("-c needs a positive count, not '%s'", optarg);
				goto out;
			}
			break;
		case 'F':
			if (!dp_parse_u64(optarg, &o.freq) || !o.freq) {
				cli_error("-F needs a positive frequency in Hz, not '%s'", optarg);
				goto out;
			}
			break;
		case 'p':
			if (!dp_parse_u64(optarg, &v) || !v || v > 0x7fffffff) {
				cli_error("-p needs a process ID, not '%s'", optarg);
				goto out;
			}
			o.pid = (pid_t)v;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'g':
			o.callchain = true;
			break;
		case 'm':
			if (!dp_parse_u64(optarg, &v) || !v || (v & (v - 1)) || v > (1u << 20)) {
				cli_error("-m needs a power of two number of pages, not '%s'", optarg);
				goto out;
			}
			o.mmap_pages = (size_t)v;
			break;
		case 'R':
			o.no_regs = true;
			break;
		case 'H':
			heap = true;
			if (optarg && !dp_parse_size(optarg, &heap_min, why, sizeof(why))) {
				cli_error("--heap=MIN: %s", why);
				goto out;
			}
			break;
		case 'D':
			if (!dp_parse_u64(optarg, &heap_depth) || !heap_depth || heap_depth > 16) {
				cli_error("--heap-depth needs 1 to 16 frames, not '%s'", optarg);
				goto out;
			}
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'C':
			o.counters = optarg;
			break;
		case 'I':
			if (cli_parse_interval(optarg, &o.interval_ns) < 0)
				goto out;
			break;
		case 'M':
			markers = true;
			break;
		case 'h':
			usage(stdout);
			rc = 0;
			goto out;
		default:
			fprintf(stderr, "'dataprof record --help' lists the options\n");
			goto out;
		}
	}
	if (o.period && o.freq) {
		cli_error("-c and -F both given: choose a count or a frequency");
		goto out;
	}
	o.argv = argv + optind;
	if (!o.pid && !o.argv[0]) {
		cli_error("nothing to record: give a command after '--', or -p PID");
		goto out;
	}
	if (!ev.n) {
		const char *dfl = dp_have_hw_pmu() ? "cycles" : "cpu-clock";

		if (!dp_have_hw_pmu() && !o.quiet)
			fprintf(stderr, "dataprof: no hardware PMU on this machine: sampling "
					"cpu-clock (choose with -e)\n");
		if (add_events(dfl, &ev, &err) < 0) {
			cli_error("%s", err.msg);
			goto out;
		}
	}
	if (heap) {
		char *lib = cli_agent_library("libdataprof_heap.so");
		const char *old = getenv("LD_PRELOAD");

		if (o.pid) {
			cli_error("--heap needs dataprof to start the command: it cannot be used "
				  "with -p");
			goto out;
		}
		if (!lib) {
			cli_error("--heap: libdataprof_heap.so is not next to dataprof nor in "
				  "%s from it; reinstall dataprof", DATAPROF_AGENT_RELDIR);
			goto out;
		}
		dp_vec_push(&env, dp_asprintf("LD_PRELOAD=%s%s%s", lib, old ? ":" : "",
					      old ? old : ""));
		dp_vec_push(&env, dp_asprintf("DATAPROF_HEAP_MIN=%llu",
					      (unsigned long long)heap_min));
		dp_vec_push(&env, dp_asprintf("DATAPROF_HEAP_DEPTH=%llu",
					      (unsigned long long)heap_depth));
		free(lib);
		o.agent = true;
	}
	if (markers) {
		char *entry = NULL;

		if (cli_markers_env(&o, &entry) < 0)
			goto out;
		if (entry)
			dp_vec_push(&env, entry);
	}
	dp_vec_push(&env, NULL);
	o.env = env.v;
	o.events = ev.v;
	o.nevents = ev.n;
	o.cmdline = cli_cmdline;
	if (dp_record_run(&o, &res, &err) < 0) {
		cli_error("%s", err.msg);
		rc = res.exit_code ? res.exit_code : EXIT_OWN_FAILURE;
		goto out;
	}
	rc = res.exit_code;
out:
	for (size_t i = 0; i < ev.n; i++)
		dp_event_spec_free(&ev.v[i]);
	dp_vec_free(&ev);
	for (size_t i = 0; i < env.n; i++)
		free(env.v[i]);
	dp_vec_free(&env);
	return rc;
}
