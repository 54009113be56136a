/* Counting perf events on the target (its threads and children, inherited):
 * software events always, hardware ones where the machine has a PMU. The
 * counters of a thread form a group read with one read() where the kernel
 * allows groups with inherit (recent ones); else one read() each. */
#include "source.h"
#include "event_spec.h"
#include "privilege.h"

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
	bool group;  /* fds[0][thread] leads the thread's group */
} perf_priv;

/* a group read: PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING */
#define GROUP_WORDS(n) (3 + (n))

/* what read() gives with TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING */
typedef struct perf_value {
	uint64_t value, enabled, running;
} perf_value;

static ssize_t collect(dp_source *s, void *raw)
{
	const perf_priv *pp = s->priv;
	perf_value *v = raw;
	size_t n = s->sensors.n * pp->nfds;

	if (pp->group) {
		size_t words = GROUP_WORDS(s->sensors.n);

		for (size_t t = 0; t < pp->nfds; t++) {
			uint64_t *g = (uint64_t *)raw + t * words;

			if (read(pp->fds[t], g, words * 8) != (ssize_t)(words * 8))
				memset(g, 0, words * 8);
		}
		return (ssize_t)(pp->nfds * words * 8);
	}
	for (size_t i = 0; i < n; i++)
		if (read(pp->fds[i], &v[i], sizeof(v[i])) != (ssize_t)sizeof(v[i]))
			v[i].running = v[i].enabled = v[i].value = 0;
	return (ssize_t)(n * sizeof(*v));
}

/* multiplexed counters are scaled up to the whole time enabled */
static uint64_t scaled(uint64_t value, uint64_t enabled, uint64_t running)
{
	if (running && running < enabled)
		return (uint64_t)((double)value * (double)enabled / (double)running);
	return value;
}

static void decode(const dp_source *s, const void *raw, size_t len, uint64_t *values)
{
	const perf_priv *pp = s->priv;
	const perf_value *v = raw;
	size_t n = s->sensors.n;

	if (pp->group) {
		const uint64_t *g = raw;

		if (len < pp->nfds * GROUP_WORDS(n) * 8)
			return;
		for (size_t i = 0; i < n; i++)
			values[i] = 0;
		for (size_t t = 0; t < pp->nfds; t++, g += GROUP_WORDS(n))
			for (size_t i = 0; i < n && i < g[0]; i++)
				values[i] += scaled(g[3 + i], g[1], g[2]);
		return;
	}
	if (len < n * pp->nfds * sizeof(*v))
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t sum = 0;

		for (size_t t = 0; t < pp->nfds; t++, v++)
			sum += scaled(v->value, v->enabled, v->running);
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

static int open_counter(const perf_sensor *ps, const dp_source_ctx *ctx, int tid, int leader)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = ps->type;
	a.config = ps->config;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (leader >= -1)
		a.read_format |= PERF_FORMAT_GROUP;
	a.inherit = 1;
	/* members follow their leader */
	a.disabled = ctx->enable_on_exec && leader < 0;
	a.enable_on_exec = ctx->enable_on_exec && leader < 0;
	a.exclude_hv = 1;
	/* context switches and migrations happen in the kernel: count there when allowed */
	fd = syscall(SYS_perf_event_open, &a, tid, -1, DP_MAX(leader, -1), PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		a.exclude_kernel = 1;
		fd = syscall(SYS_perf_event_open, &a, tid, -1, DP_MAX(leader, -1),
			     PERF_FLAG_FD_CLOEXEC);
	}
	return (int)fd;
}

/* Opens every counter of every thread; group: one group per thread, its
 * leader the first counter. Returns 0, or -1 with errno and the failing
 * counter in *bad. */
static int open_all(perf_priv *pp, const perf_sensor *ps, size_t n, const dp_source_ctx *ctx,
		    size_t *bad)
{
	for (size_t t = 0; t < pp->nfds; t++) {
		int tid = ctx->ntids ? ctx->tids[t] : (int)ctx->pid;

		for (size_t i = 0; i < n; i++) {
			/* -1: leads its group; -2: no group */
			int leader = !pp->group ? -2 : i ? pp->fds[t] : -1;
			int fd;

			if (pp->group && i && pp->fds[t] < 0)
				break; /* the thread exited meanwhile */
			fd = open_counter(&ps[i], ctx, tid, leader);
			if (fd < 0 && errno == ESRCH)
				continue;
			if (fd < 0) {
				*bad = i;
				return -1;
			}
			pp->fds[i * pp->nfds + t] = fd;
		}
	}
	return 0;
}

static void close_all(perf_priv *pp, size_t n)
{
	for (size_t i = 0; i < n * pp->nfds; i++) {
		if (pp->fds[i] >= 0)
			close(pp->fds[i]);
		pp->fds[i] = -1;
	}
}

/* Do group reads of inherited counters work here (and count children)? */
static bool group_reads(const perf_priv *pp, size_t n)
{
	uint64_t g[GROUP_WORDS(8)];

	return n <= 8 && pp->fds[0] >= 0 &&
	       read(pp->fds[0], g, GROUP_WORDS(n) * 8) == (ssize_t)(GROUP_WORDS(n) * 8) &&
	       g[0] == n;
}

static void add_group(dp_source_vec *v, const dp_source_ctx *ctx, const char *group,
		      const perf_sensor *ps, size_t n, bool hw)
{
	dp_source *s = dp_source_new(v, &ops, "perf/%s", group);
	perf_priv *pp = dp_calloc(1, sizeof(*pp));
	size_t ntids = ctx->ntids ? ctx->ntids : 1, bad = 0;

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
	pp->group = true;
	if (open_all(pp, ps, n, ctx, &bad) < 0 || !group_reads(pp, n)) {
		close_all(pp, n);
		pp->group = false;
		if (open_all(pp, ps, n, ctx, &bad) < 0) {
			int en = errno;
			char user[64];
			bool foreign = (en == EACCES || en == EPERM) &&
				       dp_process_foreign(ctx->pid, user, sizeof(user));

			if (foreign)
				dp_source_unavailable(s,
						      "cannot count %s on process %d: %s; it is "
						      "user %s's (that needs that user, or root)",
						      ps[bad].name, (int)ctx->pid, strerror(en),
						      user);
			else
				dp_source_unavailable(s, "cannot count %s on process %d: %s%s",
						      ps[bad].name, (int)ctx->pid, strerror(en),
						      hw ? " (no hardware PMU?)" : "");
			return;
		}
	}
	s->raw_cap = pp->group ? ntids * GROUP_WORDS(n) * 8 : n * ntids * sizeof(perf_value);
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
