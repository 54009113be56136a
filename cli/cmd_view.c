/* dataprof view: one self-contained HTML page of a profile */
#include "cli.h"
#include "../report/report.h"
#include "../view/annot.h"
#include "../view/model.h"
#include "../view/page.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
	cli_usage(
	    f, 24,
	    "usage: dataprof view [OPTIONS] [FILE]\n\n"
	    "Writes one HTML page of a profile (dataprof.dprof by default, or a perf.data\n"
	    "file) that opens from disk with no network: system counters over time, a lane\n"
	    "of sample density per thread, the samples and code marks around a time bar,\n"
	    "and the data objects, members and lines of the range shown (docs/view.md).\n\n"
	    "@input\n"
	    "  -o, --output FILE     the page (default: the profile's name with .html; -: stdout)\n"
	    "      --counters GLOBS  the counters to draw (default: CPU time, faults, memory,\n"
	    "                        context switches, those the profile has)\n"
	    "      --cpus            a lane per CPU too\n"
	    "      --buckets N       time buckets over the samples' span (default 4096)\n"
	    "  -j, --jobs N          read the profile in N threads (default: the CPUs\n"
	    "                        this process may use); the page does not depend on N\n"
	    "@where\n"
	    "@time\n"
	    "@symfs\n"
	    "      --annotate-top N  the hottest functions the annotate pane lists (default 8,\n"
	    "                        and those of the 10 hottest objects and instructions;\n"
	    "                        0: no pane)\n"
	    "      --source-dir DIR, --prefix-strip N   where the pane finds the source\n"
	    "                        (as in annotate)\n"
	    "@help\n");
}

/* "run.dprof" -> "run.html"; "perf.data" -> "perf.html" */
static char *default_output(const char *input)
{
	const char *base = strrchr(input, '/'), *dot;

	base = base ? base + 1 : input;
	dot = strrchr(base, '.');
	if (!strcmp(input, "-"))
		return dp_strdup("dataprof.html");
	return dp_asprintf("%.*s.html", (int)(dot && dot != base ? dot - base : (long)strlen(base)),
			   base);
}

/* One report pass feeds the page's model and the annotate pane's data:
 * the pane's numbers are then those of dataprof annotate on the same
 * samples. The pass reads in parts (report.h: part_new), each with its own
 * model and pane; part 0's are the command's, the others are merged into
 * them. */
typedef struct view_ctx {
	dp_view_model *m;
	dp_view_annot *annot;
	const dp_view_opts *vo;
	size_t annotate_top;
	const char *source_dir;
	unsigned prefix_strip;
} view_ctx;

static void *view_part_new(void *ctx, unsigned index, const dp_report_result *part)
{
	view_ctx *vc = ctx, *pt = vc;

	if (index) {
		pt = dp_calloc(1, sizeof(*pt));
		*pt = *vc;
		pt->m = dp_view_model_new(vc->vo);
		if (vc->annot)
			pt->annot =
			    dp_view_annot_new(vc->annotate_top, vc->source_dir, vc->prefix_strip);
	}
	if (pt->annot)
		dp_view_annot_start(pt->annot, part);
	return pt;
}

static void view_part_row(void *state, dp_attr_ctx *attrs, dp_row *row)
{
	view_ctx *pt = state;

	dp_view_model_row(pt->m, attrs, row);
	if (pt->annot)
		dp_view_annot_row(pt->annot, row, dp_view_model_bucket_ns(pt->m));
}

static void view_part_merge(void *ctx, void *dst, const dp_report_result *dst_part, void *src,
			    const dp_report_result *src_part)
{
	view_ctx *a = dst, *b = src;

	(void)ctx;
	dp_view_model_merge(a->m, b->m);
	if (a->annot)
		dp_view_annot_merge(a->annot, dst_part, b->annot, src_part);
}

static void view_part_free(void *ctx, void *state)
{
	view_ctx *pt = state;

	if (pt == ctx)
		return; /* part 0's: the command's */
	dp_view_model_free(pt->m);
	dp_view_annot_free(pt->annot);
	free(pt);
}

static const dp_report_parts view_parts = {view_part_new, view_part_row, view_part_merge,
					   view_part_free};

/* view's own options */
typedef struct view_args {
	dp_view_opts vo;
	const char *output, *source_dir;
	uint64_t annotate_top;
	unsigned prefix_strip;
} view_args;

/* The page into out ("-": stdout). A file is written aside and then
 * renamed: no half page if anything fails. Anything else (/dev/null, a
 * pipe) is written as it is: a rename would put a file in its place. -1
 * after saying why. */
static int write_page(dp_view_model *m, const char *out)
{
	char *tmp = NULL;
	dp_error err = {{0}};
	FILE *f = stdout;
	struct stat st;
	int rc = -1;

	if (strcmp(out, "-")) {
		bool special = stat(out, &st) == 0 && !S_ISREG(st.st_mode);

		if (!special)
			tmp = dp_asprintf("%s.tmp", out);
		f = fopen(tmp ? tmp : out, "w");
		if (!f) {
			cli_error("cannot write '%s': %m (choose another place with -o)",
				  tmp ? tmp : out);
			free(tmp);
			return -1;
		}
	}
	if (dp_view_page_write(m, f, &err) < 0 || fflush(f) != 0) {
		cli_error("%s: %s", out, err.msg[0] ? err.msg : "write failed");
		if (f != stdout)
			fclose(f);
		if (tmp)
			unlink(tmp);
	} else if (f != stdout && (fclose(f) != 0 || (tmp && rename(tmp, out) != 0))) {
		cli_error("cannot write '%s': %m", out);
		if (tmp)
			unlink(tmp);
	} else {
		rc = 0;
		if (tmp && dp_stderr_is_tty() && stat(out, &st) == 0)
			fprintf(stderr, "dataprof: wrote %s (%.1f MB, %llu samples)\n", out,
				(double)st.st_size / 1e6,
				(unsigned long long)dp_view_model_samples(m));
	}
	free(tmp);
	return rc;
}

int cmd_view(int argc, char **argv)
{
	static const cli_opt opts[] = {
	    CLI_SHARED("input"),
	    CLI_STR("output", 'o', view_args, output),
	    CLI_STR("counters", 'K', view_args, vo.counters),
	    CLI_SET("cpus", 'C', view_args, vo.cpu_lanes),
	    CLI_NUM("buckets", 'N', view_args, vo.max_buckets, 16, 262144,
		    "--buckets needs a count from 16 to 262144, not '%s'"),
	    CLI_SHARED("where,time,symfs,jobs"),
	    CLI_NUM("annotate-top", 'A', view_args, annotate_top, 0, 1000,
		    "--annotate-top needs a count from 0 to 1000, not '%s'"),
	    CLI_STR("source-dir", 'D', view_args, source_dir),
	    CLI_PREFIX_STRIP(view_args, prefix_strip),
	    CLI_SHARED("help"),
	    CLI_END,
	};
	cli_common co;
	dp_report_opts o;
	view_args a = {.annotate_top = 8};
	dp_report_result res;
	dp_error err = {{0}};
	view_ctx vc = {0};
	char *out = NULL;
	int st, rc = 1;

	cli_common_init(&co, "view", usage);
	st = cli_parse_pass(&co, &o, argc, argv, "i:o:w:j:h", opts, &a);
	if (st != CLI_OPT_TAKEN)
		return st;
	vc.m = dp_view_model_new(&a.vo);
	vc.vo = &a.vo;
	vc.annotate_top = (size_t)a.annotate_top;
	vc.source_dir = a.source_dir;
	vc.prefix_strip = a.prefix_strip;
	if (a.annotate_top)
		vc.annot = dp_view_annot_new(vc.annotate_top, a.source_dir, vc.prefix_strip);
	o.parts = &view_parts;
	o.on_row_ctx = &vc;
	if (dp_report_build(&o, &res, &err) < 0) {
		cli_error("%s", err.msg);
		dp_view_annot_free(vc.annot);
		dp_view_model_free(vc.m);
		return 1;
	}
	if (dp_view_model_finish(vc.m, &res, &err) < 0 ||
	    (vc.annot && dp_view_annot_finish(vc.annot, &res, &err) < 0)) {
		cli_error("%s", err.msg);
	} else {
		dp_view_model_set_annot(vc.m, vc.annot);
		out = a.output ? dp_strdup(a.output) : default_output(o.input);
		rc = write_page(vc.m, out) < 0;
	}
	free(out);
	dp_view_model_free(vc.m);
	dp_view_annot_free(vc.annot);
	dp_report_result_free(&res);
	return rc;
}
