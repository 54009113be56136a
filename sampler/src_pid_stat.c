/* /proc/PID/stat of the target (and task/TID/stat of its threads): faults,
 * CPU time, threads, memory size. */
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum scale { ONE, TICKS, PAGES };

/* Fields counted from the one after the command name's ')', from 0: "state". */
static const struct field {
	const char *name;
	int index;
	enum dp_sensor_kind kind;
	enum scale scale;
	const char *unit;
	bool per_thread;
} fields[] = {
	{"minflt", 7, DP_SENSOR_COUNTER, ONE, "events", true},
	{"cminflt", 8, DP_SENSOR_COUNTER, ONE, "events", false},
	{"majflt", 9, DP_SENSOR_COUNTER, ONE, "events", true},
	{"cmajflt", 10, DP_SENSOR_COUNTER, ONE, "events", false},
	{"utime", 11, DP_SENSOR_COUNTER, TICKS, "ns", true},
	{"stime", 12, DP_SENSOR_COUNTER, TICKS, "ns", true},
	{"cutime", 13, DP_SENSOR_COUNTER, TICKS, "ns", false},
	{"cstime", 14, DP_SENSOR_COUNTER, TICKS, "ns", false},
	{"num_threads", 17, DP_SENSOR_GAUGE, ONE, "tasks", false},
	{"vsize", 20, DP_SENSOR_GAUGE, ONE, "bytes", false},
	{"rss", 21, DP_SENSOR_GAUGE, PAGES, "bytes", false},
};
#define LAST_FIELD 21

typedef struct pid_stat_priv {
	uint64_t scale[3];
} pid_stat_priv;

static void decode(const dp_source *s, const void *raw, size_t len, uint64_t *values)
{
	const pid_stat_priv *pp = s->priv;
	const char *p = memrchr(raw, ')', len), *end = (const char *)raw + len;
	uint64_t f[LAST_FIELD + 1];
	int n = 0;

	/* the command name may hold blanks and parentheses: fields start after the last ')' */
	if (!p)
		return;
	p++;
	while (n <= LAST_FIELD && p < end) {
		while (p < end && *p == ' ')
			p++;
		if (p < end && *p == '-') { /* signed fields (priority, nice) */
			p++;
			f[n] = 0;
		}
		if (!dp_text_u64(&p, end, &f[n]))
			f[n] = DP_READING_NONE; /* the state letter */
		while (p < end && *p != ' ')
			p++;
		n++;
	}
	for (size_t i = 0; i < s->sensors.n; i++) {
		const struct field *fd = &fields[s->sensors.v[i].loc];

		if (fd->index < n && f[fd->index] != DP_READING_NONE)
			values[i] = f[fd->index] * pp->scale[fd->scale];
	}
}

static const dp_source_ops ops = {dp_source_collect_file, decode, dp_source_release_file};

static void add_source(dp_source_vec *v, const dp_source_ctx *ctx, const char *rel, int tid)
{
	dp_source *s = tid ? dp_source_new(v, &ops, "proc/task_stat#tid%d", tid)
			   : dp_source_new(v, &ops, "proc/pid_stat");
	pid_stat_priv *pp = dp_calloc(1, sizeof(*pp));
	long hz = sysconf(_SC_CLK_TCK);
	char *text = dp_source_open_proc(s, ctx, rel);

	pp->scale[ONE] = 1;
	pp->scale[TICKS] = 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
	pp->scale[PAGES] = (uint64_t)sysconf(_SC_PAGESIZE);
	s->priv = pp;
	for (size_t i = 0; i < DP_ARRAY_LEN(fields); i++) {
		dp_sensor *se;

		if (tid && !fields[i].per_thread)
			continue;
		se = dp_source_add(s, fields[i].name, NULL, fields[i].kind, fields[i].unit,
				   DP_ULONG_BITS);
		se->loc = (uint32_t)i;
	}
	free(text);
}

void dp_src_pid_stat(dp_source_vec *v, const dp_source_ctx *ctx)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/stat", (int)ctx->pid);
	add_source(v, ctx, rel, 0);
	for (size_t i = 0; i < ctx->ntids; i++) {
		snprintf(rel, sizeof(rel), "%d/task/%d/stat", (int)ctx->pid, ctx->tids[i]);
		add_source(v, ctx, rel, ctx->tids[i]);
	}
}
