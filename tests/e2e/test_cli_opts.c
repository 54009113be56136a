/* The options several commands share (cli/common_opts.c): every command
 * that takes one takes it alike: the same bad value gets the same one-line
 * error and exit status 2, and its help has the same line. A command that
 * stops taking one fails here (getopt_long's "unrecognized option" instead). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tu_group.h"
#include "util.h"

typedef struct shared_opt {
	const char *name; /* --name */
	char letter;	  /* -l, or 0 */
	const char *bad;  /* a bad value; NULL: none is refused before reading */
	const char *error;
	const char *ok;	  /* a value it takes ("": none) */
	const char *help; /* the text of its help line; NULL: each command's own */
} shared_opt;

static const shared_opt opts[] = {
    {"input", 'i', NULL, NULL, "x.dprof", "the profile (also the positional FILE)"},
    {"where", 'w', "'(('", "--where '((': an attribute name is expected at character 3", "x",
     "keep the samples that match (as report)"},
    {"time", 0, "bogus",
     "--time 'bogus' is not a range: write START..END (1s..2.5s, 100ms.., ..3s, 2s..+500ms)",
     "1s..", "keep a time range (1s..2.5s, 100ms..)"},
    {"verdict", 0, "bogus",
     "--verdict: 'bogus' is not one of exact, verified, unverifiable, unresolvable, no-memory",
     "exact", "keep these verdicts"},
    {"metric", 'm', "bogus", "--metric 'bogus': use samples, period or weight", "samples",
     "samples, period (default) or weight (latency)"},
    {"top", 'n', "0", "--top '0': a positive count", "3", NULL},
    {"by", 'b', "bogus", "unknown attribute 'bogus'", "function", NULL},
    {"then", 't', "bogus", "unknown attribute 'bogus'", "line", NULL},
    {"jobs", 'j', "0", "--jobs '0': a number of threads from 1 to 256", "2", NULL},
    {"csv", 0, NULL, NULL, "", NULL},
    {"json", 0, NULL, NULL, "", NULL},
    {"markdown", 0, NULL, NULL, "", NULL},
    {"symfs", 0, NULL, NULL, "/", "look for the profiled binaries under DIR first"},
    {"width", 0, NULL, NULL, "100", "text width (default: the terminal's, or 80)"},
    {"help", 'h', NULL, NULL, "", "show this help"},
    {"per", 0, NULL, NULL, "run", NULL},
    {"confidence", 0, "0", "--confidence '0': a level between 0 and 1 (0.95) or a percentage (95%)",
     "0.9", NULL},
    {"noise", 0, "x", "--noise 'x': a fraction (0.05) or a percentage (5%)", "5%", NULL},
    {"fail-if", 0, NULL, NULL, "'member=x: period > +10%'", NULL},
};

/* The shared options each command takes, those of them whose help line is
 * its own, and those whose value it checks only once it reads the runs. */
static const struct {
	const char *cmd, *opts, *own_help, *late;
} cmds[] = {
    {"report", "input by then where time verdict metric top csv json symfs width help jobs",
     "where verdict", ""},
    {"view", "input where time symfs help", "", ""},
    {"export", "input where time symfs help", "input", ""},
    {"annotate", "input where time top json symfs help", "input", ""},
    {"diff",
     "by metric where time verdict json markdown top symfs width help per confidence noise "
     "fail-if",
     "time", ""},
    {"layout", "metric where time verdict top json symfs help", "", ""},
    {"history", "by where metric top json markdown help per confidence noise fail-if", "", "where"},
    {"markers", "input help", "", ""},
    {"dump", "input symfs help", "", ""},
};

static bool takes(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(list, name); p; p = strstr(p + 1, name))
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

static int run(tu_result *res, const char *cmd, const char *args)
{
	return tu_sh(res, "cd '%s' && '%s' %s %s", tu_tmpdir(), DATAPROF_BIN, cmd, args);
}

/* "dataprof: <error>...", one line, and exit 2; the same as *first, the
 * other commands' answer (NULL: the first answer, kept there). */
static void expect_usage_error(const char *cmd, const char *args, const char *error, char **first)
{
	char *want = dp_asprintf("dataprof: %s", error);
	tu_result res;
	int rc = run(&res, cmd, args);

	if (rc != 2 || strncmp(res.err, want, strlen(want)) ||
	    strchr(res.err, '\n') != res.err + strlen(res.err) - 1)
		fail_msg("dataprof %s %s: exit %d, stderr '%s' (want 2, '%s', one line)", cmd, args,
			 rc, res.err, want);
	if (first && *first && strcmp(res.err, *first))
		fail_msg("dataprof %s %s: '%s', another command '%s'", cmd, args, res.err, *first);
	if (first && !*first)
		*first = dp_strdup(res.err);
	tu_result_free(&res);
	free(want);
}

/* a value it takes, then --help: the help, exit 0 */
static void expect_taken(const char *cmd, const char *args)
{
	char *with_help = dp_asprintf("%s --help", args);
	char *usage = dp_asprintf("usage: dataprof %s", cmd);
	tu_result res;
	int rc = run(&res, cmd, with_help);

	if (rc != 0 || strncmp(res.out, usage, strlen(usage)))
		fail_msg("dataprof %s %s: exit %d, stderr '%s'", cmd, with_help, rc, res.err);
	tu_result_free(&res);
	free(usage);
	free(with_help);
}

/* one bad value of option s, written as args, from every command taking it */
static void expect_same_error(const shared_opt *s, const char *args)
{
	char *first = NULL;

	for (size_t c = 0; c < DP_ARRAY_LEN(cmds); c++) {
		/* report's --top is per level (annotate's: functions, ranges),
		 * with a message of its own */
		if (!takes(cmds[c].opts, s->name) || takes(cmds[c].late, s->name) ||
		    (s->letter == 'n' &&
		     (!strcmp(cmds[c].cmd, "report") || !strcmp(cmds[c].cmd, "annotate"))))
			continue;
		expect_usage_error(cmds[c].cmd, args, s->error, &first);
	}
	free(first);
}

static void test_bad_values(void **state)
{
	(void)state;
	for (size_t o = 0; o < DP_ARRAY_LEN(opts); o++) {
		const shared_opt *s = &opts[o];
		char *args;

		if (!s->bad)
			continue;
		args = dp_asprintf("--%s %s", s->name, s->bad);
		expect_same_error(s, args);
		free(args);
		if (!s->letter)
			continue;
		args = dp_asprintf("-%c %s", s->letter, s->bad);
		expect_same_error(s, args);
		free(args);
	}
}

static void test_values_taken(void **state)
{
	(void)state;
	for (size_t c = 0; c < DP_ARRAY_LEN(cmds); c++)
		for (size_t o = 0; o < DP_ARRAY_LEN(opts); o++) {
			const shared_opt *s = &opts[o];
			char *args;

			if (!takes(cmds[c].opts, s->name))
				continue;
			args = dp_asprintf("--%s %s", s->name, s->ok);
			expect_taken(cmds[c].cmd, args);
			free(args);
		}
}

/* the shared help line, at the command's column */
static void test_help_lines(void **state)
{
	(void)state;
	for (size_t c = 0; c < DP_ARRAY_LEN(cmds); c++) {
		tu_result res, h;

		assert_int_equal(run(&res, cmds[c].cmd, "--help"), 0);
		assert_int_equal(run(&h, cmds[c].cmd, "-h"), 0);
		assert_string_equal(res.out, h.out);
		for (size_t o = 0; o < DP_ARRAY_LEN(opts); o++) {
			char *opt = dp_asprintf("--%s", opts[o].name), *line, *text;

			if (!opts[o].help || !takes(cmds[c].opts, opts[o].name) ||
			    takes(cmds[c].own_help, opts[o].name)) {
				free(opt);
				continue;
			}
			line = strstr(res.out, opt);
			if (!line)
				fail_msg("dataprof %s --help: no %s", cmds[c].cmd, opt);
			text = strstr(line, opts[o].help);
			if (!text || strchr(line, '\n') != text + strlen(opts[o].help))
				fail_msg("dataprof %s --help: %s is not '%s'", cmds[c].cmd, opt,
					 opts[o].help);
			free(opt);
		}
		tu_result_free(&h);
		tu_result_free(&res);
	}
}

/* an option no command knows; -i FILE that is not there */
static void test_unknown_and_missing(void **state)
{
	(void)state;
	for (size_t c = 0; c < DP_ARRAY_LEN(cmds); c++) {
		char *hint = dp_asprintf("'dataprof %s --help' lists the options\n", cmds[c].cmd);
		tu_result res;

		assert_int_equal(run(&res, cmds[c].cmd, "--no-such-option"), 2);
		assert_non_null(strstr(res.err, "unrecognized option '--no-such-option'"));
		assert_string_equal(strchr(res.err, '\n') + 1, hint);
		tu_result_free(&res);
		free(hint);
		if (!takes(cmds[c].opts, "input"))
			continue;
		/* export reads nothing without a format to write */
		assert_int_equal(run(&res, cmds[c].cmd,
				     strcmp(cmds[c].cmd, "export")
					 ? "-i /nonexistent.dprof"
					 : "-i /nonexistent.dprof --pprof x"),
				 1);
		assert_non_null(strstr(res.err, "cannot open profile '/nonexistent.dprof'"));
		tu_result_free(&res);
	}
}

/* what differs by design: report's --top per level, --width's least, the
 * intervals of diff --between to compare per */
static void test_per_command(void **state)
{
	(void)state;
	expect_usage_error("report", "--top 5,0", "--top '5,0': positive counts, comma-separated",
			   NULL);
	expect_usage_error("report", "--width 39", "--width needs 40 or more columns", NULL);
	expect_usage_error("diff", "--width 59", "--width needs 60 or more columns", NULL);
	expect_usage_error("report", "-b function -t line -t line -t line -t line",
			   "at most 3 --then levels", NULL);
	expect_usage_error("diff", "--per x", "--per 'x': use second, run, ginsn or interval",
			   NULL);
	expect_usage_error("history", "--per interval",
			   "--per 'interval': use second, run or ginsn", NULL);
	/* one marker only, after profiles given: one line, exit 2 and nothing
	 * leaked (AddressSanitizer's exit 1 here before) */
	expect_usage_error("diff", "--base a.dprof --new b.dprof --between A",
			   "--between takes two markers: --between A B", NULL);
}

TU_MAIN(NULL, NULL, test_bad_values, test_values_taken, test_help_lines, test_unknown_and_missing,
	test_per_command)
