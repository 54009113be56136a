/* dataprof export: a profile in Perfetto's or pprof's format */
#include "cli.h"
#include "../export/export.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
	cli_usage(
	    f, 24,
	    "usage: dataprof export [OPTIONS] [PROFILE]\n\n"
	    "Writes a profile (dataprof.dprof by default, or a perf.data file) for other\n"
	    "tools (docs/export.md); give one or both:\n\n"
	    "  -i, --input FILE      the profile (also the positional PROFILE)\n"
	    "      --perfetto FILE   Chrome trace event JSON for ui.perfetto.dev and\n"
	    "                        chrome://tracing: samples as instant events per thread,\n"
	    "                        marker regions as slices, counters as counter tracks\n"
	    "      --pprof FILE      pprof's profile.proto, gzip-compressed (FILE.pb.gz), for\n"
	    "                        pprof, Pyroscope, Parca: stacks with data labels\n"
	    "      --counters GLOBS  the counters for --perfetto (default: as view's)\n"
	    "@where\n"
	    "@time\n"
	    "@symfs\n"
	    "@help\n");
}

typedef struct both {
	dp_perfetto *perfetto;
	dp_pprof *pprof;
} both;

static void on_row(void *ctx, dp_attr_ctx *attrs, dp_row *row)
{
	both *b = ctx;

	if (b->perfetto)
		dp_perfetto_row(b->perfetto, attrs, row);
	if (b->pprof)
		dp_pprof_row(b->pprof, attrs, row);
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
	    CLI_OPT_INPUT,
	    {"perfetto", required_argument, 0, 'P'},
	    {"pprof", required_argument, 0, 'G'},
	    {"counters", required_argument, 0, 'K'},
	    CLI_OPT_WHERE,
	    CLI_OPT_TIME,
	    CLI_OPT_SYMFS,
	    CLI_OPT_HELP,
	    {0, 0, 0, 0},
	};
	cli_common co;
	const char *perfetto = NULL, *pprof = NULL, *globs = NULL;
	dp_report_opts o;
	dp_report_result res;
	dp_series_set ss = {0};
	dp_error err = {{0}};
	both b = {0};
	int c, st, rc = 1;

	memset(&o, 0, sizeof(o));
	memset(&res, 0, sizeof(res));
	cli_common_init(&co, "export", usage);
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:w:h", opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			perfetto = optarg;
			break;
		case 'G':
			pprof = optarg;
			break;
		case 'K':
			globs = optarg;
			break;
		default:
			if ((st = cli_common_opt(&co, c)) != CLI_OPT_TAKEN)
				return st;
		}
	}
	if (cli_common_profile(&co, argc, argv) < 0)
		return 2;
	cli_common_to_report(&co, &o);
	if (!perfetto && !pprof) {
		cli_error("export needs --perfetto FILE.json or --pprof FILE.pb.gz (or both)");
		return 2;
	}
	dp_attr_parse("event", &o.levels[0].attrs[0], &err);
	o.levels[0].nattrs = 1;
	o.nlevels = 1;
	o.progress = dp_stderr_is_tty();
	o.on_row = on_row;
	o.on_row_ctx = &b;
	if (perfetto && !(b.perfetto = dp_perfetto_open(perfetto, &res, &err)))
		goto fail;
	if (pprof)
		b.pprof = dp_pprof_new(&res);
	if (dp_report_build(&o, &res, &err) < 0)
		goto fail;
	if (b.perfetto) {
		if (dp_series_build(&res, globs, DP_SERIES_DEFAULT, 100000, &ss, &err) < 0)
			goto fail;
		rc = dp_perfetto_finish(b.perfetto, &ss, &err);
		b.perfetto = NULL;
		if (rc < 0)
			goto fail;
	}
	if (b.pprof && dp_pprof_write(b.pprof, pprof, &err) < 0)
		goto fail;
	rc = 0;
	goto done;
fail:
	cli_error("%s", err.msg);
	rc = 1;
done:
	dp_perfetto_abort(b.perfetto);
	dp_pprof_free(b.pprof);
	dp_series_free(&ss);
	if (res.p)
		dp_report_result_free(&res);
	return rc;
}
