/* record and stat with sim: events: the run, then its summary or totals. */
#include "sim_session.h"

#include <stdio.h>

static void print_summary(const dp_sim_opts *o, const dp_sim_result *res)
{
	fprintf(stderr, "[ dataprof record: %llu simulated samples (",
		(unsigned long long)res->samples);
	for (size_t i = 0; i < o->nevents; i++)
		fprintf(stderr, "%s%s %llu of %llu", i ? ", " : "", o->events[i].name,
			(unsigned long long)res->ev_samples[i],
			(unsigned long long)res->totals[o->events[i].sim_kind]);
	fprintf(stderr, ")");
	if (res->heap_raw)
		fprintf(stderr, ", heap records %.1f KiB packed into %.1f KiB",
			(double)res->heap_raw / 1024.0, (double)res->heap_packed / 1024.0);
	fprintf(stderr, ", %.1f KiB written to '%s' ]\n", (double)res->bytes / 1024.0, o->output);
}

int dp_sim_record(const dp_sim_opts *o, dp_sim_result *res, dp_error *err)
{
	if (dp_sim_run(o, res, err) < 0)
		return -1;
	if (!o->quiet)
		print_summary(o, res);
	return 0;
}

void dp_sim_print_totals(FILE *f, const dp_sim_opts *o, const dp_sim_result *res, const char *sep)
{
	if (!sep)
		fprintf(f, "\n Performance counter stats for '%s' (simulated):\n\n", o->argv[0]);
	for (size_t i = 0; i < o->nevents; i++) {
		unsigned long long c = (unsigned long long)res->totals[o->events[i].sim_kind];

		if (sep)
			fprintf(f, "%llu%s%s%s\n", c, sep, sep, o->events[i].name);
		else
			fprintf(f, " %18llu      %s\n", c, o->events[i].name);
	}
	if (!sep)
		fprintf(f, "\n");
}
