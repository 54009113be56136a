/* dataprof diff */
#include "cli.h"
#include "../compare/diff.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static void usage(FILE *f)
{
	cli_usage(f, 26,
		  "usage: dataprof diff [OPTIONS] BASE NEW\n"
		  "       dataprof diff [OPTIONS] BASE... -- NEW...\n"
		  "       dataprof diff [OPTIONS] --base FILE... --new FILE...\n\n"
		  "Compares runs of one program: the samples of each key (--by) in the BASE\n"
		  "profiles against the NEW ones, per unit of work, and says which changes\n"
		  "are beyond noise. Several profiles a side are pooled; two or more a side\n"
		  "let diff measure the noise between runs.\n\n"
		  "  -b, --by A[,B...]       keys (default member): function, line, object,\n"
		  "                          member (type.member), site, ... -- not addresses\n"
		  "      --base FILE         a BASE profile (repeat)\n"
		  "      --new FILE          a NEW profile (repeat)\n"
		  "@metric\n"
		  "      --per UNIT          normalise per second (of recorded time: default),\n"
		  "                          run (each run did the same work), ginsn (1e9\n"
		  "                          instructions, when counted) or interval (of\n"
		  "                          --between A B)\n"
		  "      --confidence P      level of the intervals (default 0.95), shared\n"
		  "                          among the keys compared\n"
		  "      --noise CV          assume the machine's noise between runs is at\n"
		  "                          least CV (5%%) beyond Poisson; measured when a\n"
		  "                          side has two runs or more\n"
		  "      --line-tolerance N  match file.c:120 to file.c:123 in the same function\n"
		  "                          when lines moved by up to N (default 5; 0: exact)\n"
		  "      --fail-if EXPR      exit %d when a change beyond noise crosses it, e.g.\n"
		  "                          'member=struct node.next: period > +10%%' (repeat)\n"
		  "      --event NAME        the event to compare (default: the first)\n"
		  "@where\n"
		  "      --time START..END   keep a time range of each run\n"
		  "      --between A B       keep what each thread did from code mark A to its\n"
		  "                          next mark B; --per interval: per such interval\n"
		  "@verdict\n"
		  "      --force             compare different programs or events anyway\n"
		  "      --json              JSON (schema dataprof-diff/1, docs/diff.md)\n"
		  "      --markdown          a Markdown table for a pull request\n"
		  "  -n, --top N             rows shown (default 20)\n"
		  "@symfs\n"
		  "@width\n"
		  "  -j, --jobs N            read each profile in N threads (default: the CPUs\n"
		  "                          this process may use); the output is the same\n"
		  "@help\n\n"
		  "Exit status: 0, %d when a --fail-if held, 1 on errors, 2 on bad usage.\n",
		  CLI_EXIT_FAIL_IF, CLI_EXIT_FAIL_IF);
}

enum { O_BASE = 256, O_NEW, O_TOL, O_BETWEEN, O_FORCE };

/* diff's own options, and the profiles they name */
typedef struct diff_args {
	cli_common *co; /* --between goes there, with the shared options */
	dp_diff_opts *o;
	DP_VEC(const char *) base, news;
	int argc;
	char **args;	 /* argv, "--" replaced by sep */
	const char *sep; /* the "--" between BASE... and NEW... */
	unsigned line_tolerance;
} diff_args;

static int diff_opt(void *ctx, int c, const char *arg)
{
	diff_args *a = ctx;

	switch (c) {
	case O_BASE:
		dp_vec_push(&a->base, arg);
		break;
	case O_NEW:
		dp_vec_push(&a->news, arg);
		break;
	case O_BETWEEN:
		if (optind >= a->argc || a->args[optind] == a->sep) {
			cli_error("--between takes two markers: --between A B");
			return 2;
		}
		a->co->sel.between[0] = arg;
		a->co->sel.between[1] = a->args[optind++];
		break;
	case O_FORCE:
		a->o->force = true;
		break;
	default:
		return CLI_OPT_SHARED;
	}
	return CLI_OPT_TAKEN;
}

/* The profiles the words after the options name (BASE NEW, or BASE... --
 * NEW...) into a's base and news, or those of --base and --new; -1 with
 * err set. */
static int profiles_of(diff_args *a, int dashdash, dp_error *err)
{
	int argc = a->argc;
	char **args = a->args;

	if (a->base.n || a->news.n) {
		if (optind < argc) {
			dp_error_set(err,
				     "'%s': give the profiles either with --base and --new or as "
				     "arguments, not both",
				     args[optind] == a->sep ? "--" : args[optind]);
			return -1;
		}
	} else if (dashdash >= 0) {
		bool after = false;

		for (int i = optind; i < argc; i++) {
			if (args[i] == a->sep)
				after = true;
			else if (after)
				dp_vec_push(&a->news, args[i]);
			else
				dp_vec_push(&a->base, args[i]);
		}
	} else if (argc - optind == 2) {
		dp_vec_push(&a->base, args[optind]);
		dp_vec_push(&a->news, args[optind + 1]);
	} else if (argc - optind > 2) {
		dp_error_set(err,
			     "%d profiles: write BASE... -- NEW... (or --base and --new) to say "
			     "which are which",
			     argc - optind);
		return -1;
	}
	if (!a->base.n || !a->news.n) {
		dp_error_set(
		    err, "diff needs BASE and NEW profiles: dataprof diff base.dprof new.dprof");
		return -1;
	}
	return 0;
}

/* BASE... -- NEW...: the "--" separates the profiles, options may be
 * anywhere; it becomes a word getopt keeps in place among the others (in
 * a->args, as sep). Its index, or -1. */
static int mark_dashdash(diff_args *a, int argc, char **argv, char *sep)
{
	int dashdash = -1;

	for (int i = 0; i < argc; i++) {
		a->args[i] = argv[i];
		if (dashdash < 0 && i && !strcmp(argv[i], "--")) {
			a->args[i] = sep;
			dashdash = i;
		}
	}
	return dashdash;
}

/* The shared options' values into diff's options. */
static void take_common(const cli_common *co, dp_diff_opts *o)
{
	cli_common_to_run(co, &o->run);
	o->metric = co->metric;
	o->top = co->top[0];
	o->width = co->width;
	o->by = co->by;
	o->by_text = co->by_text ? co->by_text : "member";
}

/* The terminal's width when it has 60 columns or more; else 0. */
static int terminal_width(void)
{
	struct winsize ws;

	if (isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 60)
		return ws.ws_col;
	return 0;
}

static void print_result(const dp_diff_result *r, cli_format format)
{
	if (format == CLI_FMT_JSON)
		dp_diff_json(r, stdout);
	else if (format == CLI_FMT_MARKDOWN)
		dp_diff_markdown(r, stdout);
	else
		dp_diff_text(r, stdout);
}

int cmd_diff(int argc, char **argv)
{
	static const cli_opt opts[] = {
	    CLI_SHARED("by"),
	    CLI_OWN("base", required_argument, O_BASE),
	    CLI_OWN("new", required_argument, O_NEW),
	    CLI_SHARED("metric,per,confidence"),
	    CLI_NUM("line-tolerance", O_TOL, diff_args, line_tolerance, 0, 10000,
		    "--line-tolerance '%s': a number of lines"),
	    CLI_SHARED("noise,fail-if"),
	    CLI_SHARED("event,where,time"),
	    CLI_OWN("between", required_argument, O_BETWEEN),
	    CLI_SHARED("verdict"),
	    CLI_OWN("force", no_argument, O_FORCE),
	    CLI_SHARED("json,markdown,top,symfs,width,jobs,help"),
	    CLI_END,
	};
	cli_common co;
	dp_diff_opts o;
	dp_diff_result r;
	dp_error err = {{0}};
	static char sep[] = "\x1f--";
	diff_args a = {.co = &co,
		       .o = &o,
		       .argc = argc,
		       .args = dp_calloc((size_t)argc + 1, sizeof(char *)),
		       .sep = sep,
		       .line_tolerance = 5};
	int dashdash = -1, rc = 2;

	memset(&o, 0, sizeof(o));
	o.per = DP_PER_SECOND;
	o.confidence = 0.95;
	cli_common_init(&co, "diff", usage);
	co.min_width = 60;
	co.diff = &o;
	co.per_interval = true;
	dashdash = mark_dashdash(&a, argc, argv, sep);
	rc = cli_parse_options(&co, argc, a.args, "b:m:w:n:j:h", opts, diff_opt, &a);
	if (rc != CLI_OPT_TAKEN)
		goto out; /* frees what earlier options gathered */
	rc = 2;
	o.line_tolerance = a.line_tolerance;
	take_common(&co, &o);
	if (cli_check_filters(o.run.sel.where, o.run.sel.time_range) < 0)
		goto out; /* rc is 2 */
	if (!o.by.nattrs)
		cli_parse_level("member", &o.by, &err);
	if (profiles_of(&a, dashdash, &err) < 0)
		goto bad;
	o.base = a.base.v;
	o.nbase = a.base.n;
	o.new_ = a.news.v;
	o.nnew = a.news.n;
	if (!o.width)
		o.width = terminal_width();
	if (dp_diff_build(&o, &r, &err) < 0) {
		cli_error("%s", err.msg);
		rc = 1;
		goto out;
	}
	print_result(&r, co.format);
	rc = r.failed ? CLI_EXIT_FAIL_IF : 0;
	dp_diff_free(&r);
	goto out;
bad:
	cli_error("%s", err.msg);
	rc = 2;
out:
	dp_vec_free(&a.base);
	dp_vec_free(&a.news);
	free(a.args);
	return rc;
}
