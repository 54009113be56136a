/* dataprof dump: every record of a profile, one line each, like perf script -D. */
#include "cli.h"
#include "dataprof/profile.h"
#include "../report/dump.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

static void usage(FILE *f)
{
	cli_usage(f, 21,
		  "usage: dataprof dump [OPTIONS] [FILE]\n\n"
		  "Prints every record of a profile (dataprof.dprof by default) or of a\n"
		  "perf.data file, one line each: offset (z0x...: in the data decompressed\n"
		  "from perf's compressed records), time, type and fields.\n\n"
		  "@input\n"
		  "  -r, --regs         print the sampled registers\n"
		  "  -g, --callchain    print call chains\n"
		  "  -b, --branches     print branch stacks, newest first: FROM/TO/M\n"
		  "                     (M mispredicted, P predicted, - not known)\n"
		  "  -s, --summary      print only the summary\n"
		  "  -d, --decoded      one line per sample: the causing instruction, its\n"
		  "                     data address (computed and hardware) and the verdict\n"
		  "  -a, --annotated    one line per sample: function, source line, data object,\n"
		  "                     type and member path, and why any is missing\n"
		  "@symfs\n"
		  "@help\n");
}

/* How the reading ended, when not at a clean end: one line on stderr. */
static void say_status(const dp_profile *p, const char *path, bool failed)
{
	const dp_read_status *st = dp_profile_status(p);

	if (failed)
		cli_error("%s: %s", path, st->error);
	else if (st->truncated_at)
		cli_error("warning: '%s' ends inside a record at offset %" PRIu64
			  ": the recording was cut short; every record before it was read",
			  path, st->truncated_at);
	else if (!st->finished && st->format == DP_FMT_DPROF)
		cli_error("warning: '%s' has no end record: the recorder did not finish (killed?); "
			  "every record in it was read",
			  path);
}

int cmd_dump(int argc, char **argv)
{
	static const cli_opt opts[] = {
	    CLI_SHARED("input"),
	    CLI_SET("regs", 'r', dp_dump_opts, regs),
	    CLI_SET("callchain", 'g', dp_dump_opts, callchain),
	    CLI_SET("branches", 'b', dp_dump_opts, branches),
	    CLI_SET("summary", 's', dp_dump_opts, summary_only),
	    CLI_SET("decoded", 'd', dp_dump_opts, decoded),
	    CLI_SHARED("symfs"),
	    CLI_SET("annotated", 'a', dp_dump_opts, annotated),
	    CLI_SHARED("help"),
	    CLI_END,
	};
	cli_common co;
	dp_dump_opts o = {0};
	dp_error err = {{0}};
	dp_profile *p;
	int rc;

	cli_common_init(&co, "dump", usage);
	rc = cli_parse(&co, argc, argv, "i:rgbsdah", opts, NULL, &o);
	if (rc != CLI_OPT_TAKEN)
		return rc;
	o.symfs = co.sel.symfs;
	p = dp_profile_open(co.input, &err);
	if (!p) {
		cli_error("%s", err.msg);
		return 1;
	}
	rc = dp_dump(p, &o, stdout, &err);
	if (rc < 0)
		cli_error("%s", err.msg);
	else
		say_status(p, co.input, rc > 0);
	dp_profile_close(p);
	return rc ? 1 : 0;
}
