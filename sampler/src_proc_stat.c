/* /proc/stat: CPU time per CPU and in total, context switches, interrupts,
 * forks, runnable and blocked tasks. */
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const cpu_fields[] = {"user", "nice",    "system", "idle",
					 "iowait", "irq", "softirq", "steal"};
#define NFIELDS 8

/* The other lines: the first number on the line. */
static const struct {
	const char *key;
	enum dp_sensor_kind kind;
	const char *unit;
} others[] = {
	{"intr", DP_SENSOR_COUNTER, "events"},
	{"ctxt", DP_SENSOR_COUNTER, "events"},
	{"processes", DP_SENSOR_COUNTER, "tasks"}, /* forks since boot */
	{"procs_running", DP_SENSOR_GAUGE, "tasks"},
	{"procs_blocked", DP_SENSOR_GAUGE, "tasks"},
	{"softirq", DP_SENSOR_COUNTER, "events"},
};

typedef struct stat_priv {
	uint64_t ns_per_tick;
	int ncpu_slots;  /* CPU numbers 0..ncpu_slots-2; slot 0 is the total */
	int *cpu_base;   /* first sensor of a CPU slot, -1: none */
	int other[DP_ARRAY_LEN(others)];
} stat_priv;

/* "cpu" -> 0, "cpuN" -> N + 1, anything else -> -1 */
static int cpu_slot(const dp_text_line *l)
{
	int n = 0;

	if (l->key_len < 3 || memcmp(l->key, "cpu", 3))
		return -1;
	if (l->key_len == 3)
		return 0;
	for (size_t i = 3; i < l->key_len; i++) {
		if (l->key[i] < '0' || l->key[i] > '9' || n > 1 << 20)
			return -1;
		n = n * 10 + (l->key[i] - '0');
	}
	return n + 1;
}

static void decode(const dp_source *s, const void *raw, size_t len, uint64_t *values)
{
	const stat_priv *sp = s->priv;
	const char *pos = raw, *end = pos + len;
	dp_text_line l;

	while (dp_text_next_line(&pos, end, &l)) {
		int slot = cpu_slot(&l);
		const char *p = l.val;
		uint64_t v;

		if (slot >= 0) {
			if (slot >= sp->ncpu_slots || sp->cpu_base[slot] < 0)
				continue; /* a CPU that came online later */
			for (int f = 0; f < NFIELDS && dp_text_u64(&p, l.end, &v); f++)
				values[sp->cpu_base[slot] + f] = v * sp->ns_per_tick;
			continue;
		}
		for (size_t i = 0; i < DP_ARRAY_LEN(others); i++) {
			if (sp->other[i] < 0 || l.key_len != strlen(others[i].key) ||
			    memcmp(l.key, others[i].key, l.key_len))
				continue;
			if (dp_text_u64(&p, l.end, &v))
				values[sp->other[i]] = v;
			break;
		}
	}
}

static void release(dp_source *s)
{
	stat_priv *sp = s->priv;

	if (sp)
		free(sp->cpu_base);
	dp_source_release_file(s);
}

static const dp_source_ops ops = {dp_source_collect_file, decode, release};

void dp_src_proc_stat(dp_source_vec *v, const dp_source_ctx *ctx)
{
	dp_source *s = dp_source_new(v, &ops, "proc/stat");
	stat_priv *sp = dp_calloc(1, sizeof(*sp));
	char *text = dp_source_open_proc(s, ctx, "stat"), leaf[64];
	const char *pos, *end;
	long hz = sysconf(_SC_CLK_TCK);
	dp_text_line l;

	sp->ns_per_tick = 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
	for (size_t i = 0; i < DP_ARRAY_LEN(others); i++)
		sp->other[i] = -1;
	if (!text) {
		/* names for 'list' and for a warning instead of "unknown" */
		for (int f = 0; f < NFIELDS; f++) {
			snprintf(leaf, sizeof(leaf), "cpu_%s", cpu_fields[f]);
			dp_source_add(s, leaf, NULL, DP_SENSOR_COUNTER, "ns", 64);
		}
		for (size_t i = 0; i < DP_ARRAY_LEN(others); i++)
			dp_source_add(s, others[i].key, NULL, others[i].kind, others[i].unit,
				      DP_ULONG_BITS);
		free(sp);
		return;
	}
	s->priv = sp;
	/* first pass: the highest CPU number */
	pos = text;
	end = text + strlen(text);
	while (dp_text_next_line(&pos, end, &l)) {
		int slot = cpu_slot(&l);

		if (slot >= sp->ncpu_slots)
			sp->ncpu_slots = slot + 1;
	}
	sp->cpu_base = dp_malloc((size_t)DP_MAX(sp->ncpu_slots, 1) * sizeof(int));
	for (int i = 0; i < sp->ncpu_slots; i++)
		sp->cpu_base[i] = -1;
	pos = text;
	while (dp_text_next_line(&pos, end, &l)) {
		int slot = cpu_slot(&l);

		if (slot >= 0) {
			sp->cpu_base[slot] = (int)s->sensors.n;
			for (int f = 0; f < NFIELDS; f++) {
				if (slot)
					snprintf(leaf, sizeof(leaf), "cpu_%s#cpu%d", cpu_fields[f],
						 slot - 1);
				else
					snprintf(leaf, sizeof(leaf), "cpu_%s", cpu_fields[f]);
				/* the kernel prints u64 nanoseconds divided into ticks */
				dp_source_add(s, leaf, NULL, DP_SENSOR_COUNTER, "ns", 64);
			}
			continue;
		}
		for (size_t i = 0; i < DP_ARRAY_LEN(others); i++) {
			if (sp->other[i] < 0 && l.key_len == strlen(others[i].key) &&
			    !memcmp(l.key, others[i].key, l.key_len)) {
				sp->other[i] = (int)s->sensors.n;
				/* intr and ctxt are u64 in the kernel; the rest unsigned long */
				dp_source_add(s, others[i].key, NULL, others[i].kind,
					      others[i].unit, i < 2 ? 64 : DP_ULONG_BITS);
			}
		}
	}
	free(text);
}
