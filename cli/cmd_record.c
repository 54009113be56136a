/* dataprof record */
#include "cli.h"
#include "units.h"
#include "../sampler/branch_stack.h"
#include "../sampler/procfs.h"
#include "../sampler/recorder.h"
#include "sim_cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_OWN_FAILURE 125 /* as timeout(1): the command's own codes stay free */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dataprof record [OPTIONS] [--] COMMAND [ARGS...]\n"
		"       dataprof record [OPTIONS] -p PID [-- COMMAND [ARGS...]]\n"
		"       dataprof record [OPTIONS] -a|-C LIST [--duration SECS] [-- COMMAND...]\n\n"
		"Samples events of COMMAND (and its threads and children) or of a running\n"
		"process, with the registers of each sample, into a raw profile.\n\n"
		"  -e, --event EVENT     event to sample; repeat or separate with commas.\n"
		"                        libpfm4 names: cycles, cpu-clock, page-faults,\n"
		"                        MEM_LOAD_RETIRED.L3_MISS:precise=2, with modifiers\n"
		"                        :u :k :p :pp :ppp, period=N, ldlat=N;\n"
		"                        data breakpoints: mem:ADDR[/LEN][:w|rw];\n"
		"                        simulated (Valgrind): sim:l1d-miss, sim:llc-miss...\n"
		"                        ('dataprof list sim')\n"
		"                        (default: cycles, or cpu-clock without a hardware PMU)\n"
		"  -c, --count N         take a sample every N events\n"
		"  -F, --freq HZ         take about HZ samples a second (default 4000;\n"
		"                        page faults and breakpoints: every event)\n"
		"  -p, --pid PID         attach to process PID and its threads; with a\n"
		"                        COMMAND, record until it exits\n"
		"  -a, --all-cpus        every process on every CPU (CAP_PERFMON, root, or\n"
		"                        kernel.perf_event_paranoid <= 0); with a COMMAND,\n"
		"                        until it exits\n"
		"  -C, --cpu LIST        as -a, on these CPUs only (0,2 or 0-3)\n"
		"      --duration SECS   stop recording -a or -p after SECS seconds\n"
		"  -o, --output FILE     write the profile to FILE (default dataprof.dprof)\n"
		"      --switch-output WHEN  write a series of complete files FILE.TIMESTAMP,\n"
		"                        a new one after a SIZE (100M, 1G: B K M G) or a\n"
		"                        TIME (30s, 10m: ms s m h d) or at each SIGUSR2\n"
		"                        ('signal'); read them as one: -i 'FILE.*'\n"
		"      --max-files N     with --switch-output, keep the newest N files\n"
		"  -g, --call-graph      record user-space call chains\n"
		"  -b, --branch-any      record a branch stack (LBR) with each sample: the\n"
		"                        last taken branches, for annotate's hottest ranges\n"
		"                        (a hardware event; default cycles)\n"
		"  -j, --branch-filter FILTERS\n"
		"                        the same with perf's filter words, comma-separated:\n"
		"                        any, any_call, any_ret, ind_call, ind_jmp, call,\n"
		"                        cond, u, k, hv, in_tx, no_tx, abort_tx, stack,\n"
		"                        save_type, hw_index, priv (ranges need any)\n"
		"  -m, --mmap-pages N    ring buffer data pages per CPU, a power of two\n"
		"                        (default 128)\n"
		"      --no-regs         do not capture registers (no data addresses later)\n"
		"      --heap[=MIN]      track heap blocks of at least MIN (bytes, 4K, 1M; 0:\n"
		"                        all) with their allocation sites, for data objects;\n"
		"                        sets PYTHONMALLOC=malloc unless set (or MIN > 512);\n"
		"                        records 6 frames of call chain (unless -g) to tell\n"
		"                        the tracker's clock reads and writes: [dataprof]\n"
		"      --heap-depth N    unwind N frames exactly per allocation (slow; by\n"
		"                        default the stack above malloc is scanned; sim:\n"
		"                        events unwind 8 by default, at no cost)\n"
		"      --alloc-fn GLOB   a function of the program's that allocates for\n"
		"                        its callers (a wrapper, a pool): heap blocks are\n"
		"                        named by its caller; repeat or separate with\n"
		"                        commas (malloc, operator new, std::, luaM_*,\n"
		"                        PyMem_*, sqlite3Malloc*, g_malloc*... are known)\n"
		"      --counters LIST   also collect system counters: comma-separated globs\n"
		"                        (proc/meminfo/*,proc/stat/cpu_*), or 'default';\n"
		"                        'dataprof list --counters' shows them\n"
		"      --interval TIME   between counter collections: 100ms (the default),\n"
		"                        1ms to 1h; a time has its unit (ns, us, ms, s)\n"
		"      --markers         record the code markers of COMMAND (dataprof/markers.h)\n"
		"      --sim-cache GEOM  sim: geometry over the host's (sysfs):\n"
		"                        l1d=32K:8:64,l2=1M:16:64,llc=32M:16:64,dtlb=64:4\n"
		"                        (size:ways:line, entries:ways; l2=none), and\n"
		"                        lat=4:14:50:200:30 (cycles: L1 L2 LLC RAM TLB-miss)\n"
		"      --sim-skid N      sim: report each sample N instructions late\n"
		"      --sim-clock CLOCK sim: the time axis: sim (default: simulated cycles at\n"
		"                        1 GHz, the same in every run) or real (the host's\n"
		"                        monotonic clock, as kernel events and markers)\n"
		"  -q, --quiet           print no summary\n"
		"  -h, --help            show this help\n\n"
		"Exit status: the command's; 125 if dataprof itself failed, 126/127 if the\n"
		"command could not be run. Ctrl-C stops the command and keeps the profile.\n");
}

typedef DP_VEC(dp_event_spec) spec_vec;

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

/* record -e sim:...: the command runs under dataprof's Valgrind tool. */
/* The options of record that only sim: events take. */
struct sim_args {
	const char *cache; /* --sim-cache */
	uint64_t skid;	   /* --sim-skid */
	bool real_clock;   /* --sim-clock real */
	bool given;	   /* any of them */
};

static int record_sim(const dp_record_opts *ro, const dp_event_spec *ev, size_t n,
		      const struct sim_args *sa, bool heap, uint64_t heap_depth, bool markers)
{
	dp_sim_opts o;
	dp_sim_result res;
	dp_error err = {{0}};
	int rc = EXIT_OWN_FAILURE;

	memset(&o, 0, sizeof(o));
	if (ro->pid || ro->system_wide || ro->freq || markers || ro->counters || ro->callchain ||
	    ro->branch_mode) {
		cli_error("sim: events run the command on a simulator: -p, -a, -C, -F, -g, -b, "
			  "-j, --counters and --markers do not apply (use -c N for the period)");
		return EXIT_OWN_FAILURE;
	}
	if (cli_sim_geometry(&o.geo, sa->cache) < 0)
		return EXIT_OWN_FAILURE;
	o.events = ev;
	o.nevents = n;
	o.period = ro->period;
	o.skid = sa->skid;
	o.real_clock = sa->real_clock;
	o.heap = heap;
	o.heap_depth = heap_depth;
	o.output = ro->output;
	o.argv = ro->argv;
	o.cmdline = cli_cmdline;
	o.quiet = ro->quiet;
	o.tool_dir = cli_sim_tool_dir();
	if (dp_sim_run(&o, &res, &err) < 0) {
		cli_error("%s", err.msg);
		rc = res.exit_code ? res.exit_code : EXIT_OWN_FAILURE;
		goto out;
	}
	if (!o.quiet) {
		fprintf(stderr, "[ dataprof record: %llu simulated samples (",
			(unsigned long long)res.samples);
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "%s%s %llu of %llu", i ? ", " : "", ev[i].name,
				(unsigned long long)res.ev_samples[i],
				(unsigned long long)res.totals[ev[i].sim_kind]);
		fprintf(stderr, ")");
		if (res.heap_raw)
			fprintf(stderr, ", heap records %.1f KiB packed into %.1f KiB",
				(double)res.heap_raw / 1024.0, (double)res.heap_packed / 1024.0);
		fprintf(stderr, ", %.1f KiB written to '%s' ]\n", (double)res.bytes / 1024.0,
			o.output);
	}
	rc = res.exit_code;
out:
	free(res.ev_samples);
	free((char *)o.tool_dir);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"event", required_argument, 0, 'e'},
	    {"count", required_argument, 0, 'c'},
	    {"freq", required_argument, 0, 'F'},
	    {"pid", required_argument, 0, 'p'},
	    {"output", required_argument, 0, 'o'},
	    {"call-graph", no_argument, 0, 'g'},
	    {"branch-any", no_argument, 0, 'b'},
	    {"branch-filter", required_argument, 0, 'j'},
	    {"mmap-pages", required_argument, 0, 'm'},
	    {"no-regs", no_argument, 0, 'R'},
	    {"quiet", no_argument, 0, 'q'},
	    {"help", no_argument, 0, 'h'},
	    {"heap", optional_argument, 0, 'H'},
	    {"heap-depth", required_argument, 0, 'D'},
	    {"alloc-fn", required_argument, 0, 'A'},
	    {"counters", required_argument, 0, 'N'},
	    {"all-cpus", no_argument, 0, 'a'},
	    {"cpu", required_argument, 0, 'C'},
	    {"duration", required_argument, 0, 'T'},
	    {"interval", required_argument, 0, 'I'},
	    {"markers", no_argument, 0, 'M'},
	    {"sim-cache", required_argument, 0, 'S'},
	    {"sim-skid", required_argument, 0, 'K'},
	    {"sim-clock", required_argument, 0, 'L'},
	    {"switch-output", required_argument, 0, 'W'},
	    {"max-files", required_argument, 0, 'X'},
	    {"switch-max-files", required_argument, 0, 'X'}, /* perf's name */
	    {0, 0, 0, 0},
	};
	spec_vec ev = {0};
	DP_VEC(char *) env = {0};
	bool heap = false;
	dp_buf alloc_fns = {0};
	uint64_t heap_min = 0, heap_depth = 0; /* 0: the default of the recorder */
	char why[160];
	dp_record_opts o;
	dp_record_result res;
	dp_error err = {{0}};
	uint64_t v;
	int c, rc = EXIT_OWN_FAILURE;
	bool markers = false, sim = false;
	struct sim_args sa = {0};

	memset(&o, 0, sizeof(o));
	o.output = "dataprof.dprof";
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:c:F:p:o:gbj:m:qhaC:", opts, NULL)) != -1) {
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
		case 'b':
			o.branch_mode |= PERF_SAMPLE_BRANCH_ANY;
			break;
		case 'j':
			if (dp_branch_filter_parse(optarg, &v, &err) < 0) {
				cli_error("%s", err.msg);
				goto out;
			}
			o.branch_mode |= v;
			break;
		case 'm':
			if (!dp_parse_u64(optarg, &v) || !v || (v & (v - 1)) || v > (1u << 20)) {
				cli_error("-m needs a power of two number of pages, not '%s'",
					  optarg);
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
		case 'A':
			if (!*optarg || strchr(optarg, '\n')) {
				cli_error("--alloc-fn needs a function name or glob, not '%s'",
					  optarg);
				goto out;
			}
			dp_buf_printf(&alloc_fns, "%s%s", alloc_fns.len ? "," : "", optarg);
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'N':
			o.counters = optarg;
			break;
		case 'a':
			o.system_wide = true;
			break;
		case 'C':
			o.system_wide = true; /* as perf: the CPUs' every process */
			o.cpu_list = optarg;
			break;
		case 'W':
			if (parse_switch(optarg, &o) < 0)
				goto out;
			break;
		case 'X':
			if (!dp_parse_u64(optarg, &o.max_files) || !o.max_files) {
				cli_error(
				    "--max-files needs a number of files, 1 or more, not '%s'",
				    optarg);
				goto out;
			}
			break;
		case 'T': {
			double secs;
			char *end;

			secs = strtod(optarg, &end);
			if (end == optarg || *end || !(secs > 0) || secs > 1e6) {
				cli_error("--duration needs a positive number of seconds, not '%s'",
					  optarg);
				goto out;
			}
			o.duration_ns = (uint64_t)(secs * 1e9);
			break;
		}
		case 'I':
			if (cli_parse_interval(optarg, &o.interval_ns) < 0)
				goto out;
			break;
		case 'M':
			markers = true;
			break;
		case 'S':
			sa.cache = optarg;
			sa.given = true;
			break;
		case 'K':
			if (!dp_parse_u64(optarg, &sa.skid) || sa.skid > 1000) {
				cli_error("--sim-skid needs 0 to 1000 instructions, not '%s'",
					  optarg);
				goto out;
			}
			sa.given = true;
			break;
		case 'L':
			if (strcmp(optarg, "sim") && strcmp(optarg, "real")) {
				cli_error("--sim-clock is sim (simulated cycles) or real (the "
					  "host's clock), not '%s'",
					  optarg);
				goto out;
			}
			sa.real_clock = !strcmp(optarg, "real");
			sa.given = true;
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
	if (!o.pid && !o.system_wide && !o.argv[0]) {
		cli_error("nothing to record: give a command after '--', -p PID or -a");
		goto out;
	}
	if (o.system_wide && (o.pid || heap || markers || o.counters)) {
		cli_error("-a and -C record every process on the CPUs: -p, --heap, --markers and "
			  "--counters need a command of their own (record it without -a)");
		goto out;
	}
	if (o.max_files && !(o.switch_bytes || o.switch_ns || o.switch_signal)) {
		cli_error("--max-files keeps the newest files of --switch-output: give both");
		goto out;
	}
	if ((o.switch_bytes || o.switch_ns || o.switch_signal) && !strcmp(o.output, "-")) {
		cli_error("--switch-output writes files: it cannot write to standard output "
			  "(-o -)");
		goto out;
	}
	if (o.duration_ns && !o.pid && !o.system_wide) {
		cli_error("--duration stops -a or -p: a command is recorded to its end (run "
			  "'timeout SECS COMMAND' to stop it)");
		goto out;
	}
	if (o.cpu_list) {
		dp_int_vec cpus = {0};
		bool ok = dp_parse_cpu_list(o.cpu_list, &cpus);

		dp_vec_free(&cpus);
		if (!ok) {
			cli_error("-C '%s' is not a CPU list: write 0,2 or 0-3", o.cpu_list);
			goto out;
		}
	}
	if (o.system_wide && !o.duration_ns && !o.argv[0] && !o.quiet && isatty(2))
		fprintf(stderr, "dataprof: recording every process until Ctrl-C (--duration "
				"SECS to stop by itself)\n");
	if (cli_sim_split(ev.v, ev.n, &sim) < 0)
		goto out;
	if (sim && (o.switch_bytes || o.switch_ns || o.switch_signal)) {
		cli_error("--switch-output records kernel events: a sim: recording is one file "
			  "(its program runs 20-50x slower: record a shorter run)");
		goto out;
	}
	if (sim) {
		/* Valgrind unwinds exactly and cheaply: deep enough for the site
		 * past wrappers (lua at depth 8: no slower, a smaller profile) */
		rc = record_sim(&o, ev.v, ev.n, &sa, heap, heap_depth ? heap_depth : 8, markers);
		goto out;
	}
	if (sa.given) {
		cli_error("--sim-cache, --sim-skid and --sim-clock apply to sim: events only");
		goto out;
	}
	if (heap && !o.callchain) {
		/* the tracker's clock reads (in the vDSO) and writes (in the C
		 * library) are told from the program's by who called them:
		 * a few frames do (annotate: [dataprof]) */
		o.callchain = true;
		o.callchain_max = 6;
	}
	if (!ev.n) {
		/* branch stacks come with hardware events only: cycles, as perf */
		const char *dfl = dp_have_hw_pmu() || o.branch_mode ? "cycles" : "cpu-clock";

		if (!dp_have_hw_pmu() && !o.branch_mode && !o.quiet)
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
				  "%s from it; reinstall dataprof",
				  DATAPROF_AGENT_RELDIR);
			goto out;
		}
		dp_vec_push(&env,
			    dp_asprintf("LD_PRELOAD=%s%s%s", lib, old ? ":" : "", old ? old : ""));
		dp_vec_push(&env,
			    dp_asprintf("DATAPROF_HEAP_MIN=%llu", (unsigned long long)heap_min));
		dp_vec_push(&env, dp_asprintf("DATAPROF_HEAP_DEPTH=%llu",
					      (unsigned long long)(heap_depth ? heap_depth : 1)));
		/* CPython's pymalloc hands out its objects from arenas the
		 * tracker sees only whole: its documented switch makes each one a
		 * malloc, named by its site (docs/heap.md, Python). Only CPython
		 * reads it; the user's own choice stands. Above pymalloc's 512
		 * bytes every object is a malloc already: not worth its cost. */
		if (!getenv("PYTHONMALLOC") && heap_min <= 512)
			dp_vec_push(&env, dp_strdup("PYTHONMALLOC=malloc"));
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
	o.alloc_fn = alloc_fns.p;
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
	dp_buf_free(&alloc_fns);
	return rc;
}
