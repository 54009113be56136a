/* What record and stat share, -e and -p, and the sim: parts of record, stat
 * and list: which events are simulated, the tool's folder, the geometry
 * options. */
#include "cli.h"
#include "sim_cli.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *cli_sim_tool_dir(void)
{
	return cli_agent_library("valgrind");
}

int cli_sim_split(const dp_event_spec *ev, size_t n, bool *any)
{
	size_t sims = 0;

	for (size_t i = 0; i < n; i++)
		sims += ev[i].is_sim;
	*any = sims > 0;
	if (sims && sims != n) {
		cli_error("sim: events cannot be mixed with kernel events in one run (the program "
			  "runs on the simulator, not the CPU): record them in two runs");
		return -1;
	}
	return 0;
}

int cli_sim_geometry(dp_sim_geometry *g, const char *spec)
{
	dp_error err = {{0}};

	dp_sim_geometry_host(g, "/sys/devices/system/cpu/cpu0/cache");
	if (spec && dp_sim_geometry_parse(g, spec, &err) < 0) {
		cli_error("%s", err.msg);
		return -1;
	}
	return 0;
}

void cli_sim_list(const char *pattern)
{
	for (size_t i = 0; i < DPS_NKINDS; i++) {
		char name[64];

		snprintf(name, sizeof(name), "sim:%s", dp_sim_events[i].name);
		if (pattern && strcmp(pattern, "sim") && strcmp(pattern, "sim:") &&
		    !strstr(name, pattern))
			continue;
		printf("%-20s %s (simulated, period %llu by default)\n", name,
		       dp_sim_events[i].desc,
		       (unsigned long long)dp_sim_default_period((int)dp_sim_events[i].kind));
	}
}

int cli_parse_events(const char *list, cli_event_vec *ev, bool sim_only)
{
	char *copy = dp_strdup(list), *save = NULL;
	dp_error err = {{0}};
	int rc = 0;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		dp_event_spec e;

		if (dp_event_parse(t, &e, &err) < 0) {
			cli_error("%s", err.msg);
			rc = -1;
			break;
		}
		dp_vec_push(ev, e);
		if (sim_only && !e.is_sim) {
			cli_error("stat -e counts simulated events (sim:...) only; '%s' is a "
				  "kernel event: use 'perf stat -e %s'",
				  t, t);
			rc = -1;
			break;
		}
	}
	free(copy);
	return rc;
}

void cli_events_free(cli_event_vec *ev)
{
	for (size_t i = 0; i < ev->n; i++)
		dp_event_spec_free(&ev->v[i]);
	dp_vec_free(ev);
}

int cli_parse_pid(const char *arg, pid_t *pid)
{
	uint64_t v;

	if (!dp_parse_u64(arg, &v) || !v || v > 0x7fffffff) {
		cli_error("-p needs a process ID, not '%s'", arg);
		return -1;
	}
	*pid = (pid_t)v;
	return 0;
}
