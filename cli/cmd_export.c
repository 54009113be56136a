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
	    "  -j, --jobs N          read the profile in N threads (default: the CPUs\n"
	    "                        this process may use); the files do not depend on N\n"
	    "@where\n"
	    "@time\n"
	    "@symfs\n"
	    "@help\n");
}

typedef struct both {
	dp_perfetto *perfetto;
	dp_pprof *pprof;
	const char *pprof_path;
	struct part *first; /* part 0's */
} both;

/* A part of the report's samples (report.h: part_new), for each export. */
struct part {
	void *perfetto;
	dp_pprof *pprof;
};

static void *part_new(void *ctx, unsigned index, const dp_report_result *res)
{
	both *b = ctx;
	struct part *pt = dp_calloc(1, sizeof(*pt));

	if (b->perfetto)
		pt->perfetto = dp_perfetto_part_new(b->perfetto, index);
	if (b->pprof_path)
		pt->pprof = dp_pprof_new(res);
	if (index == 0)
		b->first = pt;
	return pt;
}

static void part_row(void *state, dp_attr_ctx *attrs, dp_row *row)
{
	struct part *pt = state;

	if (pt->perfetto)
		dp_perfetto_part_row(pt->perfetto, attrs, row);
	if (pt->pprof)
		dp_pprof_row(pt->pprof, attrs, row);
}

static void part_merge(void *ctx, void *dst, const dp_report_result *dst_part, void *src,
		       const dp_report_result *src_part)
{
	struct part *a = dst, *b = src;

	(void)ctx, (void)dst_part, (void)src_part;
	if (a->perfetto)
		dp_perfetto_part_merge(a->perfetto, b->perfetto);
	if (a->pprof)
		dp_pprof_merge(a->pprof, b->pprof);
}

static void part_free(void *ctx, void *state)
{
	struct part *pt = state;

	(void)ctx;
	dp_perfetto_part_free(pt->perfetto);
	dp_pprof_free(pt->pprof);
	free(pt);
}

static const dp_report_parts parts = {part_new, part_row, part_merge, part_free};

/* export's own options */
typedef struct export_args {
	const char *perfetto, *pprof, *globs;
} export_args;

int cmd_export(int argc, char **argv)
{
	static const cli_opt opts[] = {
	    CLI_SHARED("input"),
	    CLI_STR("perfetto", 'P', export_args, perfetto),
	    CLI_STR("pprof", 'G', export_args, pprof),
	    CLI_STR("counters", 'K', export_args, globs),
	    CLI_SHARED("where,time,symfs,jobs,help"),
	    CLI_END,
	};
	cli_common co;
	export_args a = {0};
	dp_report_opts o;
	dp_report_result res;
	dp_series_set ss = {0};
	dp_error err = {{0}};
	both b = {0};
	int st, rc = 1;

	memset(&res, 0, sizeof(res));
	cli_common_init(&co, "export", usage);
	st = cli_parse_pass(&co, &o, argc, argv, "i:w:j:h", opts, &a);
	if (st != CLI_OPT_TAKEN)
		return st;
	if (!a.perfetto && !a.pprof) {
		cli_error("export needs --perfetto FILE.json or --pprof FILE.pb.gz (or both)");
		return 2;
	}
	o.parts = &parts;
	o.on_row_ctx = &b;
	b.pprof_path = a.pprof;
	if (a.perfetto && !(b.perfetto = dp_perfetto_open(a.perfetto, &res, &err)))
		goto fail;
	if (dp_report_build(&o, &res, &err) < 0)
		goto fail;
	if (b.first) {
		/* part 0's: the exports' own now */
		b.pprof = b.first->pprof;
		free(b.first);
		b.first = NULL;
	}
	if (b.perfetto) {
		if (dp_series_build(&res, a.globs, DP_SERIES_DEFAULT, 100000, &ss, &err) < 0)
			goto fail;
		rc = dp_perfetto_finish(b.perfetto, &ss, &err);
		b.perfetto = NULL;
		if (rc < 0)
			goto fail;
	}
	if (b.pprof && dp_pprof_write(b.pprof, a.pprof, &err) < 0)
		goto fail;
	rc = 0;
	goto done;
fail:
	cli_error("%s", err.msg);
	rc = 1;
done:
	dp_perfetto_abort(b.perfetto);
	dp_pprof_free(b.pprof);
	if (b.first) {
		dp_pprof_free(b.first->pprof);
		free(b.first);
	}
	dp_series_free(&ss);
	if (res.p)
		dp_report_result_free(&res);
	return rc;
}
