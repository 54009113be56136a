/* dataprof stat: system counters of a command, no sampling. A live table on
 * a terminal, a summary at the end, and the readings in a raw profile. */
#include "cli.h"
#include "../sampler/recorder.h"
#include "sim_cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_OWN_FAILURE 125
#define LIVE_NS          1000000000ull /* redraw a terminal at most once a second */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dataprof stat [OPTIONS] [--] COMMAND [ARGS...]\n"
		"       dataprof stat [OPTIONS] -p PID [-- COMMAND [ARGS...]]\n\n"
		"Collects system counters while COMMAND (or process PID) runs, without\n"
		"sampling: a live table on a terminal (counters as rates per second), a\n"
		"summary on standard error at the end, and with -o the readings in a raw\n"
		"profile without samples.\n\n"
		"      --counters LIST   comma-separated globs of sensors (default: 'default';\n"
		"                        'dataprof list --counters' shows them)\n"
		"      --interval TIME   between collections: 100ms (the default), 1ms to\n"
		"                        1h; a time has its unit (ns, us, ms, s)\n"
		"  -o, --output FILE     keep the readings in FILE (a raw profile)\n"
		"      --markers         also record the code markers of COMMAND (with -o)\n"
		"  -p, --pid PID         count process PID; with a COMMAND, until it exits\n"
		"  -e, --event EVENT     count simulated events instead (sim:l1d-miss,\n"
		"                        sim:llc-miss...: 'dataprof list sim'); totals as\n"
		"                        perf stat prints them\n"
		"  -x, --field-separator SEP  with -e: COUNT<SEP><SEP>EVENT lines\n"
		"      --sim-cache GEOM  with -e: the simulated geometry (see record --help)\n"
		"  -q, --quiet           print no table\n"
		"  -h, --help            show this help\n\n"
		"Exit status: the command's; 125 if dataprof itself failed.\n");
}

/* What the table shows of one sensor. */
typedef struct sensor_stat {
	char *name; /* copied: the recorder's sensors end with the run */
	enum dp_sensor_kind kind;
	char unit[DP_SENSOR_UNIT_LEN];
	uint64_t first, last, min, max;
	uint64_t t_first, t_last;
	uint64_t shown, t_shown; /* value and time at the last redraw */
	double sum;
	uint64_t n;
} sensor_stat;

typedef struct stat_view {
	sensor_stat *s;
	size_t n;
	bool live;
	uint64_t next_draw, readings, interval_ns;
} stat_view;

static void human(char *out, size_t len, double v, const char *unit, bool rate)
{
	static const char *const bsuf[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int i = 0;

	if (!strcmp(unit, "bytes")) {
		while (fabs(v) >= 1024 && i < 4) {
			v /= 1024;
			i++;
		}
		snprintf(out, len, "%.4g %s%s", v, bsuf[i], rate ? "/s" : "");
	} else if (!strcmp(unit, "ns")) {
		snprintf(out, len, "%.4f s%s", v / 1e9, rate ? "/s" : "");
	} else if (rate) {
		snprintf(out, len, "%.1f/s", v);
	} else {
		snprintf(out, len, "%.0f", v);
	}
}

static double rate(uint64_t v0, uint64_t t0, uint64_t v1, uint64_t t1)
{
	return t1 > t0 ? (double)(v1 - v0) * 1e9 / (double)(t1 - t0) : 0;
}

static void draw_live(stat_view *v, uint64_t now)
{
	char a[48];

	fprintf(stderr, "\033[H\033[J dataprof stat: %llu readings\n\n %-48s %s\n",
		(unsigned long long)v->readings, "sensor", "now");
	for (size_t i = 0; i < v->n; i++) {
		sensor_stat *s = &v->s[i];

		if (!s->n)
			continue;
		if (s->kind == DP_SENSOR_COUNTER)
			human(a, sizeof(a), rate(s->shown, s->t_shown, s->last, s->t_last), s->unit,
			      true);
		else
			human(a, sizeof(a), (double)s->last, s->unit, false);
		fprintf(stderr, " %-48s %s\n", s->name, a);
		s->shown = s->last;
		s->t_shown = s->t_last;
	}
	v->next_draw = now + DP_MAX(LIVE_NS, v->interval_ns);
}

static void on_reading(void *ctx, const dp_counters *c, uint64_t time, const uint64_t *values)
{
	stat_view *v = ctx;

	if (!v->s) {
		v->n = c->n;
		v->s = dp_calloc(c->n + 1, sizeof(*v->s));
		for (size_t i = 0; i < v->n; i++) {
			v->s[i].name = dp_strdup(c->sensor[i]->name);
			v->s[i].kind = c->sensor[i]->kind;
			snprintf(v->s[i].unit, sizeof(v->s[i].unit), "%s", c->sensor[i]->unit);
		}
		v->next_draw = time + DP_MAX(LIVE_NS, v->interval_ns);
	}
	v->readings++;
	for (size_t i = 0; i < v->n; i++) {
		sensor_stat *s = &v->s[i];
		uint64_t x = values[i];

		if (x == DP_READING_NONE)
			continue;
		if (!s->n++) {
			s->first = s->min = s->max = s->shown = x;
			s->t_first = s->t_shown = time;
		}
		s->last = x;
		s->t_last = time;
		s->min = DP_MIN(s->min, x);
		s->max = DP_MAX(s->max, x);
		s->sum += (double)x;
	}
	if (v->live && time >= v->next_draw)
		draw_live(v, time);
}

static void summary(const stat_view *v, const dp_record_result *res)
{
	char a[48], b[48], c[48], d[48];
	bool any = false;

	fprintf(stderr, "\n dataprof stat: %llu readings every %.3g ms",
		(unsigned long long)v->readings, (double)v->interval_ns / 1e6);
	if (res->collector_wall_ns)
		fprintf(stderr, "; collector thread: %.2f ms of CPU in %.3f s (%.3f%% of a core)",
			(double)res->collector_cpu_ns / 1e6, (double)res->collector_wall_ns / 1e9,
			100.0 * (double)res->collector_cpu_ns / (double)res->collector_wall_ns);
	fprintf(stderr, "\n\n");
	for (size_t i = 0; i < v->n; i++) {
		const sensor_stat *s = &v->s[i];

		if (s->kind != DP_SENSOR_COUNTER)
			continue;
		if (!any)
			fprintf(stderr, " %-48s %16s %16s\n", "counter", "total", "per second");
		any = true;
		if (!s->n) {
			fprintf(stderr, " %-48s %16s\n", s->name, "-");
			continue;
		}
		human(a, sizeof(a), (double)(s->last - s->first), s->unit, false);
		human(b, sizeof(b), rate(s->first, s->t_first, s->last, s->t_last), s->unit, true);
		fprintf(stderr, " %-48s %16s %16s\n", s->name, a, b);
	}
	any = false;
	for (size_t i = 0; i < v->n; i++) {
		const sensor_stat *s = &v->s[i];

		if (s->kind != DP_SENSOR_GAUGE)
			continue;
		if (!any)
			fprintf(stderr, "%s %-48s %12s %12s %12s %12s\n", i ? "\n" : "", "gauge",
				"min", "mean", "max", "last");
		any = true;
		if (!s->n) {
			fprintf(stderr, " %-48s %12s\n", s->name, "-");
			continue;
		}
		human(a, sizeof(a), (double)s->min, s->unit, false);
		human(b, sizeof(b), s->sum / (double)s->n, s->unit, false);
		human(c, sizeof(c), (double)s->max, s->unit, false);
		human(d, sizeof(d), (double)s->last, s->unit, false);
		fprintf(stderr, " %-48s %12s %12s %12s %12s\n", s->name, a, b, c, d);
	}
}

/* stat -e sim:...: the command on the simulator, totals as perf stat. */
static int stat_sim(const dp_record_opts *ro, const dp_event_spec *ev, size_t n,
		    const char *cache, const char *sep)
{
	dp_sim_opts o;
	dp_sim_result res;
	dp_error err = {{0}};
	int rc = EXIT_OWN_FAILURE;

	memset(&o, 0, sizeof(o));
	memset(&res, 0, sizeof(res));
	if (ro->pid) {
		cli_error("sim: events run the command on a simulator: -p does not apply");
		return EXIT_OWN_FAILURE;
	}
	if (cli_sim_geometry(&o.geo, cache) < 0)
		return EXIT_OWN_FAILURE;
	o.events = ev;
	o.nevents = n;
	o.count_only = true;
	o.output = ro->output;
	o.argv = ro->argv;
	o.cmdline = cli_cmdline;
	o.tool_dir = cli_sim_tool_dir();
	if (dp_sim_run(&o, &res, &err) < 0) {
		cli_error("%s", err.msg);
		rc = res.exit_code ? res.exit_code : EXIT_OWN_FAILURE;
		goto out;
	}
	if (!res.have_totals) {
		cli_error("the simulator gave no totals: Valgrind could not run '%s' (its message "
			  "is above)",
			  o.argv[0]);
		rc = res.exit_code ? res.exit_code : EXIT_OWN_FAILURE;
		goto out;
	}
	if (!sep)
		fprintf(stderr, "\n Performance counter stats for '%s' (simulated):\n\n",
			o.argv[0]);
	cli_sim_print_totals(stderr, ev, n, res.totals, sep);
	if (!sep)
		fprintf(stderr, "\n");
	rc = res.exit_code;
out:
	free(res.ev_samples);
	free((char *)o.tool_dir);
	return rc;
}

int cmd_stat(int argc, char **argv)
{
	static const struct option opts[] = {
		{"counters", required_argument, 0, 'C'}, {"interval", required_argument, 0, 'I'},
		{"output", required_argument, 0, 'o'},   {"pid", required_argument, 0, 'p'},
		{"quiet", no_argument, 0, 'q'},          {"help", no_argument, 0, 'h'},
		{"markers", no_argument, 0, 'M'},        {"event", required_argument, 0, 'e'},
		{"field-separator", required_argument, 0, 'x'},
		{"sim-cache", required_argument, 0, 'S'}, {0, 0, 0, 0},
	};
	dp_record_opts o;
	dp_record_result res;
	dp_error err = {{0}};
	stat_view view = {0};
	uint64_t v;
	int c, rc = EXIT_OWN_FAILURE;
	bool quiet, markers = false;
	char *env[2] = {NULL, NULL};

	memset(&o, 0, sizeof(o));
	o.output = "/dev/null"; /* without -o the readings are only shown */
	o.counters = "default";
	o.interval_ns = 100000000ull;
	optind = 1;
	DP_VEC(dp_event_spec) ev = {0};
	const char *sep = NULL, *sim_cache = NULL;

	while ((c = getopt_long(argc, argv, "+o:p:qhe:x:", opts, NULL)) != -1) {
		switch (c) {
		case 'e': {
			char *copy = dp_strdup(optarg), *save = NULL;

			for (char *t = strtok_r(copy, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				dp_event_spec e;

				if (dp_event_parse(t, &e, &err) < 0) {
					cli_error("%s", err.msg);
					free(copy);
					goto out_ev;
				}
				dp_vec_push(&ev, e);
				if (!e.is_sim) {
					cli_error(
					    "stat -e counts simulated events (sim:...) only; '%s' "
					    "is a kernel event: use 'perf stat -e %s'",
					    t, t);
					free(copy);
					goto out_ev;
				}
			}
			free(copy);
			break;
		}
		case 'x':
			sep = optarg;
			break;
		case 'S':
			sim_cache = optarg;
			break;
		case 'C':
			o.counters = optarg;
			break;
		case 'I':
			if (cli_parse_interval(optarg, &o.interval_ns) < 0)
				return EXIT_OWN_FAILURE;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'p':
			if (!dp_parse_u64(optarg, &v) || !v || v > 0x7fffffff) {
				cli_error("-p needs a process ID, not '%s'", optarg);
				return EXIT_OWN_FAILURE;
			}
			o.pid = (pid_t)v;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'M':
			markers = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "'dataprof stat --help' lists the options\n");
			return EXIT_OWN_FAILURE;
		}
	}
	o.argv = argv + optind;
	if (!o.pid && !o.argv[0]) {
		cli_error("nothing to count: give a command after '--', or -p PID");
		goto out_ev;
	}
	if (ev.n) {
		rc = stat_sim(&o, ev.v, ev.n, sim_cache, sep);
		goto out_ev;
	}
	if (sep || sim_cache) {
		cli_error("-x and --sim-cache apply to -e sim: events only");
		goto out_ev;
	}
	dp_vec_free(&ev);
	if (markers) {
		if (cli_markers_env(&o, &env[0]) < 0)
			return EXIT_OWN_FAILURE;
		if (env[0])
			o.env = env;
	}
	o.cmdline = cli_cmdline;
	o.on_reading = on_reading;
	o.on_reading_ctx = &view;
	view.live = !o.quiet && dp_stderr_is_tty();
	view.interval_ns = o.interval_ns;
	/* the recorder's own summary line would repeat ours */
	quiet = o.quiet;
	o.quiet = true;
	if (dp_record_run(&o, &res, &err) < 0) {
		cli_error("%s", err.msg);
		rc = res.exit_code ? res.exit_code : EXIT_OWN_FAILURE;
		goto out;
	}
	if (!quiet && view.s)
		summary(&view, &res);
	rc = res.exit_code;
out:
	free(env[0]);
	for (size_t i = 0; i < view.n; i++)
		free(view.s[i].name);
	free(view.s);
	return rc;
out_ev:
	for (size_t i = 0; i < ev.n; i++)
		dp_event_spec_free(&ev.v[i]);
	dp_vec_free(&ev);
	return rc;
}
