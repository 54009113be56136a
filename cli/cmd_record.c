/* dataprof record */
#include "cli.h"
#include "record_opts.h"
#include "sim_cli.h"
#include "../sampler/procfs.h"
#include "../sampler/sim_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static bool switching(const dp_record_opts *o)
{
	return o->switch_bytes || o->switch_ns || o->switch_signal;
}

/* The options that do not go together: -1 after saying which. */
static int check_args(const cli_record_args *a)
{
	const dp_record_opts *o = &a->o;
	const char *why = NULL;

	if (o->period && o->freq)
		why = "-c and -F both given: choose a count or a frequency";
	else if (!o->pid && !o->system_wide && !o->argv[0])
		why = "nothing to record: give a command after '--', -p PID or -a";
	else if (o->system_wide && (o->pid || a->heap || a->markers || o->counters))
		why = "-a and -C record every process on the CPUs: -p, --heap, --markers and "
		      "--counters need a command of their own (record it without -a)";
	else if (o->max_files && !switching(o))
		why = "--max-files keeps the newest files of --switch-output: give both";
	else if (switching(o) && !strcmp(o->output, "-"))
		why = "--switch-output writes files: it cannot write to standard output (-o -)";
	else if (o->duration_ns && !o->pid && !o->system_wide)
		why = "--duration stops -a or -p: a command is recorded to its end (run "
		      "'timeout SECS COMMAND' to stop it)";
	if (why) {
		cli_error("%s", why);
		return -1;
	}
	if (o->cpu_list) {
		dp_int_vec cpus = {0};
		bool ok = dp_parse_cpu_list(o->cpu_list, &cpus);

		dp_vec_free(&cpus);
		if (!ok) {
			cli_error("-C '%s' is not a CPU list: write 0,2 or 0-3", o->cpu_list);
			return -1;
		}
	}
	return 0;
}

/* record -e sim:...: the command runs under dataprof's Valgrind tool. */
static int record_sim(const cli_record_args *a)
{
	const dp_record_opts *ro = &a->o;
	dp_sim_opts o;
	dp_sim_result res;
	dp_error err = {{0}};
	int rc;

	memset(&o, 0, sizeof(o));
	if (ro->pid || ro->system_wide || ro->freq || a->markers || ro->counters || ro->callchain ||
	    ro->branch_mode) {
		cli_error("sim: events run the command on a simulator: -p, -a, -C, -F, -g, -b, "
			  "-j, --counters and --markers do not apply (use -c N for the period)");
		return CLI_EXIT_OWN_FAILURE;
	}
	if (cli_sim_geometry(&o.geo, a->sim_cache) < 0)
		return CLI_EXIT_OWN_FAILURE;
	o.events = a->ev.v;
	o.nevents = a->ev.n;
	o.period = ro->period;
	o.skid = a->sim_skid;
	o.real_clock = a->sim_real_clock;
	o.heap = a->heap;
	/* Valgrind unwinds exactly and cheaply: deep enough for the site
	 * past wrappers (lua at depth 8: no slower, a smaller profile) */
	o.heap_depth = a->heap_depth ? a->heap_depth : 8;
	o.output = ro->output;
	o.argv = ro->argv;
	o.cmdline = cli_cmdline;
	o.quiet = ro->quiet;
	o.tool_dir = cli_sim_tool_dir();
	if (dp_sim_record(&o, &res, &err) < 0) {
		cli_error("%s", err.msg);
		rc = res.exit_code ? res.exit_code : CLI_EXIT_OWN_FAILURE;
	} else {
		rc = res.exit_code;
	}
	free(res.ev_samples);
	free((char *)o.tool_dir);
	return rc;
}

/* No -e: cycles, or cpu-clock on a machine without a hardware PMU. */
static int default_event(cli_record_args *a)
{
	dp_record_opts *o = &a->o;
	/* branch stacks come with hardware events only: cycles, as perf */
	const char *dfl = dp_have_hw_pmu() || o->branch_mode ? "cycles" : "cpu-clock";

	if (!dp_have_hw_pmu() && !o->branch_mode && !o->quiet)
		fprintf(stderr, "dataprof: no hardware PMU on this machine: sampling "
				"cpu-clock (choose with -e)\n");
	return cli_parse_events(dfl, &a->ev, false);
}

/* --heap: the tracker preloaded into the command, the agent channel open. */
static int heap_env(cli_record_args *a)
{
	char *lib;

	if (a->o.pid) {
		cli_error("--heap needs dataprof to start the command: it cannot be used with -p");
		return -1;
	}
	if (!(lib = cli_agent_library("libdataprof_heap.so"))) {
		cli_error("--heap: libdataprof_heap.so is not next to dataprof nor in %s from it; "
			  "reinstall dataprof",
			  DATAPROF_AGENT_RELDIR);
		return -1;
	}
	dp_heap_env(lib, a->heap_min, a->heap_depth, &a->env);
	free(lib);
	a->o.agent = true;
	return 0;
}

/* The kernel's events: what the options leave to record, then the run. */
static int record_kernel(cli_record_args *a)
{
	dp_record_opts *o = &a->o;
	dp_record_result res;
	dp_error err = {{0}};
	char *entry = NULL;

	if (a->sim_given) {
		cli_error("--sim-cache, --sim-skid and --sim-clock apply to sim: events only");
		return CLI_EXIT_OWN_FAILURE;
	}
	if (a->heap && !o->callchain) {
		/* the tracker's clock reads (in the vDSO) and writes (in the C
		 * library) are told from the program's by who called them:
		 * a few frames do (annotate: [dataprof]) */
		o->callchain = true;
		o->callchain_max = 6;
	}
	if ((!a->ev.n && default_event(a) < 0) || (a->heap && heap_env(a) < 0))
		return CLI_EXIT_OWN_FAILURE;
	if (a->markers && cli_markers_env(o, &entry) < 0)
		return CLI_EXIT_OWN_FAILURE;
	if (entry)
		dp_vec_push(&a->env, entry);
	dp_vec_push(&a->env, NULL);
	o->env = a->env.v;
	o->events = a->ev.v;
	o->nevents = a->ev.n;
	o->cmdline = cli_cmdline;
	o->alloc_fn = a->alloc_fns.p;
	if (dp_record_run(o, &res, &err) < 0) {
		cli_error("%s", err.msg);
		return res.exit_code ? res.exit_code : CLI_EXIT_OWN_FAILURE;
	}
	return res.exit_code;
}

int cmd_record(int argc, char **argv)
{
	cli_record_args a;
	bool sim = false;
	int rc = cli_record_parse(&a, argc, argv, usage);

	if (rc != CLI_OPT_TAKEN)
		goto out;
	rc = CLI_EXIT_OWN_FAILURE;
	if (check_args(&a) < 0)
		goto out;
	if (a.o.system_wide && !a.o.duration_ns && !a.o.argv[0] && !a.o.quiet && isatty(2))
		fprintf(stderr, "dataprof: recording every process until Ctrl-C (--duration "
				"SECS to stop by itself)\n");
	if (cli_sim_split(a.ev.v, a.ev.n, &sim) < 0)
		goto out;
	if (sim && switching(&a.o))
		cli_error("--switch-output records kernel events: a sim: recording is one file "
			  "(its program runs 20-50x slower: record a shorter run)");
	else
		rc = sim ? record_sim(&a) : record_kernel(&a);
out:
	cli_record_args_free(&a);
	return rc;
}
