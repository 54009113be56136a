/* Counting perf events on the target (its threads and children, inherited):
 * software events always, hardware ones where the machine has a PMU. */
#include "source.h"
#include "event_spec.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct perf_priv {
	size_t nfds; /* per sensor */
	int *fds;    /* [sensor][thread] */
} perf_priv;

/* what read() gives with TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING */
typedef struct perf_value {
	uint64_t value, enabled, running;
} perf_value;

static ssize_t collect(dp_source *s, void *raw)
{
	const perf_priv *pp = s->priv;
	perf_value *v = raw;
	size_t n = s->sensors.n * pp->nfds;

	for (size_t i = 0; i < n; i++)
		if (read(pp->fds[i], &v[i], sizeof(v[i])) != (ssize_t)sizeof(v[i]))
			v[i].running = v[i].enabled = v[i].value = 0;
	return (ssize_t)(n * sizeof(*v));
}

static void decode(const dp_source *s, const void *raw, size_t len, uint64_t *values)
{
	const perf_priv *pp = s->priv;
	const perf_value *v = raw;

	if (len < s->sensors.n * pp->nfds * sizeof(*v))
		return;
	for (size_t i = 0; i < s->sensors.n; i++) {
		uint64_t sum = 0;

		for (size_t t = 0; t < pp->nfds; t++, v++) {
			/* multiplexed: scale up to the whole time enabled */
			if (v->running && v->running < v->enabled)
				sum += (uint64_t)((double)v->value * (double)v->enabled /
						  (double)v->running);
			else
				sum += v->value;
		}
		values[i] = sum;
	}
}

static void release(dp_source *s)
{
	perf_priv *pp = s->priv;

	for (size_t i = 0; pp && i < s->sensors.n * pp->nfds; i++)
		if (pp->fds[i] >= 0)
			close(pp->fds[i]);
	if (pp)
		free(pp->fds);
	free(pp);
	s->priv = NULL;
}

static const dp_source_ops ops = {collect, decode, release};

typedef struct perf_sensor {
	const char *name;
	uint32_t type;
	uint64_t config;
	const char *unit;
} perf_sensor;

static int open_counter(const perf_sensor *ps, const dp_source_ctx *ctx, int tid)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = ps->type;
	a.config = ps->config;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.inherit = 1;
	a.disabled = ctx->enable_on_exec;
	a.enable_on_exec = ctx->enable_on_exec;
	a.exclude_hv = 1;
	/* context switches and migrations happen in the kernel: count there when allowed */
	fd = syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		a.exclude_kernel = 1;
		fd = syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return (int)fd;
}

static void add_group(dp_source_vec *v, const dp_source_ctx *ctx, const char *group,
		      const perf_sensor *ps, size_t n, bool hw)
{
	dp_source *s = dp_source_new(v, &ops, "perf/%s", group);
	perf_priv *pp = dp_calloc(1, sizeof(*pp));
	size_t ntids = ctx->ntids ? ctx->ntids : 1;

	for (size_t i = 0; i < n; i++)
		dp_source_add(s, ps[i].name, NULL, DP_SENSOR_COUNTER, ps[i].unit, 64);
	s->priv = pp;
	if (hw && !dp_have_hw_pmu()) {
		dp_source_unavailable(s, "no hardware PMU on this machine (a VM without one?)");
		return;
	}
	pp->nfds = ntids;
	pp->fds = dp_malloc(n * ntids * sizeof(int));
	for (size_t i = 0; i < n * ntids; i++)
		pp->fds[i] = -1;
	for (size_t i = 0; i < n; i++) {
		for (size_t t = 0; t < ntids; t++) {
			int tid = ctx->ntids ? ctx->tids[t] : (int)ctx->pid;
			int fd = open_counter(&ps[i], ctx, tid);

			if (fd < 0 && errno == ESRCH)
				continue; /* a thread that exited meanwhile */
			if (fd < 0) {
				dp_source_unavailable(s, "cannot count %s on process %d: %s%s",
						      ps[i].name, (int)ctx->pid, strerror(errno),
						      hw ? " (no hardware PMU?)" : "");
				return;
			}
			pp->fds[i * ntids + t] = fd;
		}
	}
	s->raw_cap = n * ntids * sizeof(perf_value);
}

void dp_src_perf(dp_source_vec *v, const dp_source_ctx *ctx)
{
	static const perf_sensor sw[] = {
		{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "ns"},
		{"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "events"},
		{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "events"},
		{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "events"},
	};
	static const perf_sensor hw[] = {
		{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "events"},
		{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "events"},
		{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "events"},
	};

	add_group(v, ctx, "sw", sw, DP_ARRAY_LEN(sw), false);
	add_group(v, ctx, "hw", hw, DP_ARRAY_LEN(hw), true);
}
