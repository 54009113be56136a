/* The sim: parts of record, stat and list: which events are simulated, the
 * tool's folder, the geometry options, the totals as perf stat prints them. */
#include "cli.h"
#include "sim_cli.h"

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

void cli_sim_print_totals(FILE *f, const dp_event_spec *ev, size_t n, const uint64_t *totals,
			  const char *sep)
{
	for (size_t i = 0; i < n; i++) {
		unsigned long long c = (unsigned long long)totals[ev[i].sim_kind];

		if (sep)
			fprintf(f, "%llu%s%s%s\n", c, sep, sep, ev[i].name);
		else
			fprintf(f, " %18llu      %s\n", c, ev[i].name);
	}
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
