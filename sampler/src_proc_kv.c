/* /proc files of "key value" lines: /proc/meminfo, /proc/vmstat, and the
 * target's /proc/PID/status and /proc/PID/io (per thread: task/TID/status). */
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How one kind of file maps keys to sensors. */
typedef struct kv_kind {
	const char *group;   /* "meminfo", "pid_status" ... */
	/* A key that is a sensor: its kind, unit, width; false to skip the line. */
	bool (*classify)(const char *key, size_t len, const dp_text_line *l,
			 enum dp_sensor_kind *kind, const char **unit, unsigned *width);
	const char *const *fixed; /* the keys, when they are known in advance */
} kv_kind;

/* sensor->loc is the factor from the file's unit to the base unit. */
static void decode(const dp_source *s, const void *raw, size_t len, uint64_t *values)
{
	const char *pos = raw, *end = pos + len;
	size_t cur = 0, n = s->sensors.n;
	dp_text_line l;

	while (dp_text_next_line(&pos, end, &l)) {
		const dp_sensor *se = NULL;
		const char *p = l.val;
		uint64_t v;
		size_t i;

		/* the lines keep their order from one read to the next */
		if (cur < n && s->sensors.v[cur].key_len == l.key_len &&
		    !memcmp(s->sensors.v[cur].key, l.key, l.key_len)) {
			i = cur++;
		} else {
			for (i = 0; i < n; i++)
				if (s->sensors.v[i].key_len == l.key_len &&
				    !memcmp(s->sensors.v[i].key, l.key, l.key_len))
					break;
			if (i == n)
				continue;
			cur = i + 1;
		}
		se = &s->sensors.v[i];
		if (dp_text_u64(&p, l.end, &v))
			values[i] = v * se->loc;
	}
}

static const dp_source_ops ops = {dp_source_collect_file, decode, dp_source_release_file};

/* "1234 kB" */
static bool in_kb(const dp_text_line *l)
{
	return l->end - l->val > 3 && !memcmp(l->end - 2, "kB", 2);
}

static void add_source(dp_source_vec *v, const dp_source_ctx *ctx, const kv_kind *k,
		       const char *rel, const char *instance)
{
	dp_source *s = dp_source_new(v, &ops, "proc/%s%s", k->group, instance ? instance : "");
	char *text = dp_source_open_proc(s, ctx, rel);
	const char *pos, *end;
	dp_text_line l;

	if (!text) {
		for (size_t i = 0; k->fixed && k->fixed[i]; i++) {
			enum dp_sensor_kind kind;
			const char *unit;
			unsigned width;
			const char *e = "";
			dp_text_line none = {k->fixed[i], e, e, strlen(k->fixed[i])};

			/* a fixed key its classifier refuses is no sensor (and its
			 * kind, unit and width would be unset) */
			if (!k->classify(k->fixed[i], strlen(k->fixed[i]), &none, &kind, &unit,
					 &width))
				continue;
			dp_source_add(s, k->fixed[i], NULL, kind, unit, width);
		}
		return;
	}
	pos = text;
	end = text + strlen(text);
	while (dp_text_next_line(&pos, end, &l)) {
		enum dp_sensor_kind kind;
		const char *unit, *p = l.val;
		unsigned width;
		uint64_t dummy;
		char key[128];
		dp_sensor *se;

		if (!l.key_len || l.key_len >= sizeof(key) || !dp_text_u64(&p, l.end, &dummy))
			continue;
		memcpy(key, l.key, l.key_len);
		key[l.key_len] = 0;
		if (!k->classify(key, l.key_len, &l, &kind, &unit, &width))
			continue;
		se = dp_source_add(s, key, NULL, kind, unit, width);
		se->loc = in_kb(&l) ? 1024 : 1;
	}
	free(text);
}

/* ---- /proc/meminfo: levels, kB shown, bytes kept ---- */

static bool meminfo_class(const char *key, size_t len, const dp_text_line *l,
			  enum dp_sensor_kind *kind, const char **unit, unsigned *width)
{
	(void)key;
	(void)len;
	*kind = DP_SENSOR_GAUGE;
	*unit = in_kb(l) ? "bytes" : "pages";
	*width = 64;
	return true;
}

static const kv_kind meminfo = {"meminfo", meminfo_class, NULL};

void dp_src_meminfo(dp_source_vec *v, const dp_source_ctx *ctx)
{
	add_source(v, ctx, &meminfo, "meminfo", NULL);
}

/* ---- /proc/vmstat: event counters, and nr_* levels in pages ---- */

static bool vmstat_class(const char *key, size_t len, const dp_text_line *l,
			 enum dp_sensor_kind *kind, const char **unit, unsigned *width)
{
	/* nr_* are levels, except these running totals */
	static const char *const nr_counters[] = {"nr_dirtied", "nr_written",
						  "nr_foll_pin_acquired", "nr_foll_pin_released",
						  NULL};
	bool gauge = len > 3 && !memcmp(key, "nr_", 3);

	(void)l;
	for (size_t i = 0; gauge && nr_counters[i]; i++)
		if (!strcmp(key, nr_counters[i]))
			gauge = false;
	if (!strcmp(key, "workingset_nodes"))
		gauge = true;
	*kind = gauge ? DP_SENSOR_GAUGE : DP_SENSOR_COUNTER;
	*unit = gauge ? "pages" : "events";
	*width = DP_ULONG_BITS;
	return true;
}

static const kv_kind vmstat = {"vmstat", vmstat_class, NULL};

void dp_src_vmstat(dp_source_vec *v, const dp_source_ctx *ctx)
{
	add_source(v, ctx, &vmstat, "vmstat", NULL);
}

/* ---- /proc/PID/status and task/TID/status: memory levels, switches ---- */

static const char *const status_keys[] = {
	"VmPeak",   "VmSize",  "VmLck",   "VmPin",   "VmHWM",  "VmRSS",   "RssAnon",
	"RssFile",  "RssShmem", "VmData", "VmStk",   "VmExe",  "VmLib",   "VmPTE",
	"VmSwap",   "Threads", "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches",
	NULL,
};

static bool is_switches(const char *key)
{
	return strstr(key, "ctxt_switches") != NULL;
}

static bool status_class(const char *key, size_t len, const dp_text_line *l,
			 enum dp_sensor_kind *kind, const char **unit, unsigned *width)
{
	size_t i;

	(void)len;
	(void)l;
	for (i = 0; status_keys[i] && strcmp(status_keys[i], key); i++)
		;
	if (!status_keys[i])
		return false;
	*kind = is_switches(key) ? DP_SENSOR_COUNTER : DP_SENSOR_GAUGE;
	*unit = is_switches(key) ? "events" : !strcmp(key, "Threads") ? "tasks" : "bytes";
	*width = DP_ULONG_BITS;
	return true;
}

/* a thread's status repeats the process's memory; only its own switches */
static bool task_status_class(const char *key, size_t len, const dp_text_line *l,
			      enum dp_sensor_kind *kind, const char **unit, unsigned *width)
{
	return is_switches(key) && status_class(key, len, l, kind, unit, width);
}

static const char *const task_status_keys[] = {"voluntary_ctxt_switches",
					       "nonvoluntary_ctxt_switches", NULL};
static const kv_kind pid_status = {"pid_status", status_class, status_keys};
static const kv_kind task_status = {"task_status", task_status_class, task_status_keys};

void dp_src_pid_status(dp_source_vec *v, const dp_source_ctx *ctx)
{
	char rel[64], inst[32];

	snprintf(rel, sizeof(rel), "%d/status", (int)ctx->pid);
	add_source(v, ctx, &pid_status, rel, NULL);
	for (size_t i = 0; i < ctx->ntids; i++) {
		snprintf(rel, sizeof(rel), "%d/task/%d/status", (int)ctx->pid, ctx->tids[i]);
		snprintf(inst, sizeof(inst), "#tid%d", ctx->tids[i]);
		add_source(v, ctx, &task_status, rel, inst);
	}
}

/* ---- /proc/PID/io: bytes and calls, running totals ---- */

static bool io_class(const char *key, size_t len, const dp_text_line *l,
		     enum dp_sensor_kind *kind, const char **unit, unsigned *width)
{
	(void)len;
	(void)l;
	*kind = DP_SENSOR_COUNTER;
	*unit = !strncmp(key, "sysc", 4) ? "events" : "bytes";
	*width = 64;
	return true;
}

static const char *const io_keys[] = {"rchar",      "wchar",       "syscr",
				      "syscw",      "read_bytes",  "write_bytes",
				      "cancelled_write_bytes", NULL};
static const kv_kind pid_io = {"pid_io", io_class, io_keys};

void dp_src_pid_io(dp_source_vec *v, const dp_source_ctx *ctx)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "%d/io", (int)ctx->pid);
	add_source(v, ctx, &pid_io, rel, NULL);
}
