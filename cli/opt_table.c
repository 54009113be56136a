/* The options several commands share, one entry each (cli.h): how
 * getopt_long knows it and its help line; and the reading of a command's
 * option table (cli_opt), its own options and the shared ones it names. */
#include "cli.h"
#include "util.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const struct shared {
	struct option o;
	/* the help line, where it is the same for every command that takes it */
	const char *syntax, *text;
} shared[] = {
    {{"input", required_argument, 0, 'i'},
     "-i, --input FILE",
     "the profile (also the positional FILE)"},
    {{"where", required_argument, 0, 'w'},
     "-w, --where EXPR",
     "keep the samples that match (as report)"},
    {{"time", required_argument, 0, CLI_O_TIME},
     "    --time START..END",
     "keep a time range (1s..2.5s, 100ms..)"},
    {{"verdict", required_argument, 0, CLI_O_VERDICT}, "    --verdict LIST", "keep these verdicts"},
    {{"metric", required_argument, 0, 'm'},
     "-m, --metric M",
     "samples, period (default) or weight (latency)"},
    {{"top", required_argument, 0, 'n'}, NULL, NULL},
    {{"by", required_argument, 0, 'b'}, NULL, NULL},
    {{"then", required_argument, 0, 't'}, NULL, NULL},
    {{"csv", no_argument, 0, CLI_O_CSV}, NULL, NULL},
    {{"json", no_argument, 0, CLI_O_JSON}, NULL, NULL},
    {{"markdown", no_argument, 0, CLI_O_MARKDOWN}, NULL, NULL},
    {{"symfs", required_argument, 0, CLI_O_SYMFS},
     "    --symfs DIR",
     "look for the profiled binaries under DIR first"},
    {{"width", required_argument, 0, CLI_O_WIDTH},
     "    --width N",
     "text width (default: the terminal's, or 80)"},
    {{"jobs", required_argument, 0, 'j'}, NULL, NULL},
    {{"help", no_argument, 0, 'h'}, "-h, --help", "show this help"},
    {{"per", required_argument, 0, CLI_O_PER}, NULL, NULL},
    {{"confidence", required_argument, 0, CLI_O_CONFIDENCE}, NULL, NULL},
    {{"noise", required_argument, 0, CLI_O_NOISE}, NULL, NULL},
    {{"fail-if", required_argument, 0, CLI_O_FAIL_IF}, NULL, NULL},
    {{"event", required_argument, 0, CLI_O_EVENT}, NULL, NULL},
};

static const struct shared *find_shared(const char *name, size_t len)
{
	for (size_t i = 0; i < DP_ARRAY_LEN(shared); i++)
		if (strlen(shared[i].o.name) == len && !memcmp(shared[i].o.name, name, len))
			return &shared[i];
	return NULL;
}

/* The table as getopt_long takes it (malloc'd): the shared options named
 * in their places. A name not in the shared table is a bug: abort. */
static struct option *long_options(const cli_opt *opts)
{
	DP_VEC(struct option) lo = {0};
	struct option end = {0, 0, 0, 0};

	for (const cli_opt *t = opts; t->kind != CLI_K_END; t++) {
		if (t->kind != CLI_K_SHARED) {
			struct option o = {t->name, t->has_arg, NULL, t->val};

			dp_vec_push(&lo, o);
			continue;
		}
		for (const char *p = t->name; *p;) {
			size_t n = strcspn(p, ",");
			const struct shared *s = find_shared(p, n);

			if (!s)
				abort();
			dp_vec_push(&lo, s->o);
			p += n + (p[n] == ',');
		}
	}
	dp_vec_push(&lo, end);
	return lo.v;
}

/* The command's own entry for c that the table itself takes (CLI_K_STR,
 * CLI_K_SET, CLI_K_NUM), or NULL. */
static const cli_opt *stored(const cli_opt *opts, int c)
{
	for (const cli_opt *t = opts; t->kind != CLI_K_END; t++)
		if (t->val == c &&
		    (t->kind == CLI_K_STR || t->kind == CLI_K_SET || t->kind == CLI_K_NUM))
			return t;
	return NULL;
}

/* t's value (arg) into its field of ctx: CLI_OPT_TAKEN, or 2 after saying
 * what is wrong with it. */
static int store(const cli_opt *t, void *ctx, const char *arg)
{
	char *field = (char *)ctx + t->off;
	uint64_t v;

	if (t->kind == CLI_K_STR) {
		*(const char **)field = arg;
	} else if (t->kind == CLI_K_SET) {
		*(bool *)field = true;
	} else if (!dp_parse_u64(arg, &v) || v < t->min || v > t->max ||
		   (t->pow2 && (v & (v - 1)))) {
		cli_error(t->bad, arg);
		return 2;
	} else if (t->size == sizeof(uint32_t)) {
		*(uint32_t *)field = (uint32_t)v;
	} else {
		*(uint64_t *)field = v;
	}
	return CLI_OPT_TAKEN;
}

int cli_parse_options(cli_common *co, int argc, char **argv, const char *shortopts,
		      const cli_opt *opts, cli_own_opt own, void *ctx)
{
	struct option *lo = long_options(opts);
	const cli_opt *t;
	int c, st = CLI_OPT_TAKEN;

	optind = 1;
	while (st == CLI_OPT_TAKEN && (c = getopt_long(argc, argv, shortopts, lo, NULL)) != -1) {
		if ((t = stored(opts, c)))
			st = store(t, ctx, optarg);
		else if ((st = own ? own(ctx, c, optarg) : CLI_OPT_SHARED) == CLI_OPT_SHARED)
			st = cli_common_opt(co, c);
	}
	free(lo);
	return st;
}

int cli_parse_own(const char *cmd, void (*usage)(FILE *f), int argc, char **argv,
		  const char *shortopts, const cli_opt *opts, cli_own_opt own, void *ctx)
{
	cli_common co;

	cli_common_init(&co, cmd, usage);
	return cli_parse_options(&co, argc, argv, shortopts, opts, own, ctx);
}

int cli_parse(cli_common *co, int argc, char **argv, const char *shortopts, const cli_opt *opts,
	      cli_own_opt own, void *ctx)
{
	int st = cli_parse_options(co, argc, argv, shortopts, opts, own, ctx);

	if (st != CLI_OPT_TAKEN)
		return st;
	return cli_common_profile(co, argc, argv) < 0 ? 2 : CLI_OPT_TAKEN;
}

void cli_usage(FILE *f, int col, const char *fmt, ...)
{
	dp_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	dp_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	for (const char *p = b.p; p && *p;) {
		size_t n = strcspn(p, "\n");
		const struct shared *h = *p == '@' ? find_shared(p + 1, n - 1) : NULL;

		if (h && h->syntax)
			fprintf(f, "  %-*s %s\n", col - 3, h->syntax, h->text);
		else
			fwrite(p, 1, n + (p[n] == '\n'), f);
		p += n + (p[n] == '\n');
	}
	dp_buf_free(&b);
}
