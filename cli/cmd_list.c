/* dataprof list: the events libpfm4 knows here, and which can be opened;
 * with --counters, the system counters (sensors) of this machine. */
#include "cli.h"
#include "sim_cli.h"
#include "../sampler/event_spec.h"
#include "../sampler/source.h"

#include <fnmatch.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f, "usage: dataprof list [OPTIONS] [PATTERN]\n\n"
		   "Lists the events of this machine's PMUs as libpfm4 knows them, with\n"
		   "'yes' where this machine can open the event now. PATTERN is a glob on\n"
		   "the name (case-insensitive).\n\n"
		   "  -a, --all      list every umask combination (EVENT.UMASK); with\n"
		   "                 --counters, every CPU and thread instance\n"
		   "  -o, --openable only the events that can be opened here\n"
		   "  -c, --counters list the system counters (sensors) instead\n"
		   "  -h, --help     show this help\n\n"
		   "Data breakpoints are written mem:ADDR[/LEN][:w|rw] (see record --help).\n");
}

/* "proc/stat/cpu_user#cpu3" -> "proc/stat/cpu_user#cpuN" */
static char *collapsed(const char *name)
{
	const char *h = strchr(name, '#');
	size_t k;

	if (!h)
		return dp_strdup(name);
	k = (size_t)(h - name) + 1;
	while (name[k] && (name[k] < '0' || name[k] > '9'))
		k++;
	return dp_asprintf("%.*sN", (int)k, name);
}

static int list_counters(const char *pattern, bool all, bool only_ok)
{
	int self = (int)getpid();
	dp_source_ctx ctx = {"/proc", self, &self, 1, false};
	dp_source_vec v = {0};
	DP_VEC(char *) shown = {0};

	dp_sources_prepare(&v, &ctx);
	printf("# system counters; proc/pid_*, proc/task_* (#tidN: per thread) and perf/* are\n"
	       "# those of the recorded process; counters are shown as rates per second\n");
	printf("  %-52s %-7s %-6s %s\n", "SENSOR", "KIND", "UNIT", "OK");
	for (size_t i = 0; i < v.n; i++) {
		const dp_source *s = v.v[i];

		for (size_t k = 0; k < s->sensors.n; k++) {
			const dp_sensor *se = &s->sensors.v[k];
			/* thread IDs here are dataprof's own: show where they go */
			char *name = all && !strstr(se->name, "#tid") ? dp_strdup(se->name)
								       : collapsed(se->name);
			bool skip = (pattern && fnmatch(pattern, name, 0) &&
				     fnmatch(pattern, se->name, 0)) ||
				    (only_ok && !s->available);

			for (size_t j = 0; j < shown.n && !skip; j++)
				skip = !strcmp(shown.v[j], name);
			if (skip) {
				free(name);
				continue;
			}
			printf("  %-52s %-7s %-6s %s%s\n", name,
			       se->kind == DP_SENSOR_COUNTER ? "counter" : "gauge", se->unit,
			       s->available ? "yes" : "no: ", s->available ? "" : s->why);
			dp_vec_push(&shown, name);
		}
	}
	for (size_t j = 0; j < shown.n; j++)
		free(shown.v[j]);
	dp_vec_free(&shown);
	dp_sources_free(&v);
	return 0;
}

static bool openable(const char *name)
{
	dp_event_spec e;
	dp_error err;
	long fd;

	if (dp_event_parse(name, &e, &err) < 0)
		return false;
	e.attr.disabled = 1;
	e.attr.exclude_kernel = 1;
	e.attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &e.attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	dp_event_spec_free(&e);
	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

static void show(const char *pmu, const char *name, const char *desc, const char *pattern,
		 bool only_ok)
{
	char full[256];
	bool ok;

	snprintf(full, sizeof(full), "%s::%s", pmu, name);
	if (pattern && fnmatch(pattern, name, FNM_CASEFOLD) && fnmatch(pattern, full, FNM_CASEFOLD))
		return;
	ok = openable(full);
	if (only_ok && !ok)
		return;
	printf("  %-44s %-3s %.70s\n", name, ok ? "yes" : "no", desc ? desc : "");
}

/* One PMU's events (with -a their unit masks), those that match pattern. */
static void list_pmu(pfm_pmu_t pmu, const char *pattern, bool all, bool only_ok)
{
	pfm_pmu_info_t pi;

	if (!dp_pfm_pmu_info(pmu, &pi) || !pi.is_present)
		return;
	printf("%s: %s\n", pi.name, pi.desc);
	printf("  %-44s %-3s %s\n", "EVENT", "OK", "DESCRIPTION");
	for (int idx = pi.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
		pfm_event_info_t ei;

		if (!dp_pfm_event_info(idx, PFM_OS_PERF_EVENT_EXT, &ei))
			continue;
		show(pi.name, ei.name, ei.desc, pattern, only_ok);
		if (!all)
			continue;
		for (int a = 0; a < ei.nattrs; a++) {
			pfm_event_attr_info_t ai;
			char n[200];

			if (!dp_pfm_umask_info(idx, a, PFM_OS_PERF_EVENT_EXT, &ai))
				continue;
			snprintf(n, sizeof(n), "%s.%s", ei.name, ai.name);
			show(pi.name, n, ai.desc, pattern, only_ok);
		}
	}
}

/* list's options */
typedef struct list_args {
	bool all, only_ok, counters;
} list_args;

int cmd_list(int argc, char **argv)
{
	static const cli_opt opts[] = {
	    CLI_SET("all", 'a', list_args, all),
	    CLI_SET("openable", 'o', list_args, only_ok),
	    CLI_SET("counters", 'c', list_args, counters),
	    CLI_SHARED("help"),
	    CLI_END,
	};
	list_args a = {false, false, false};
	bool all, only_ok;
	const char *pattern = NULL;
	dp_error err;
	pfm_pmu_t pmu;
	int st;

	st = cli_parse_own("list", usage, argc, argv, "aoch", opts, NULL, &a);
	if (st != CLI_OPT_TAKEN)
		return st;
	all = a.all;
	only_ok = a.only_ok;
	if (optind < argc)
		pattern = argv[optind];
	if (a.counters)
		return list_counters(pattern, all, only_ok);
	if (pattern && !strncmp(pattern, "sim", 3)) {
		cli_sim_list(pattern); /* simulated events open everywhere Valgrind runs */
		return 0;
	}
	if (dp_events_init(&err) < 0) {
		cli_error("%s", err.msg);
		return 1;
	}
	if (!dp_have_hw_pmu())
		printf("# this machine exposes no hardware PMU: hardware events cannot be opened "
		       "here; software events (cpu-clock, page-faults) and breakpoints can\n");
	pfm_for_all_pmus(pmu) list_pmu(pmu, pattern, all, only_ok);
	return 0;
}
