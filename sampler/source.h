/* Data sources of system counters (docs/architecture.md: sensor). A source is one
 * thing that is read at once — a /proc file, a set of perf counters — and
 * gives values to a group of sensors. It works in three stages:
 *
 *   prepare  once, before collection: find the sensors, open what collect
 *            reads, size the raw buffer (raw_cap);
 *   collect  every interval, in the collector thread: copy raw bytes into a
 *            buffer the caller gives. No allocation, no parsing, files stay
 *            open and are pread from offset 0;
 *   decode   later, in the recorder's main thread: raw bytes to one value per
 *            sensor, in base units (ns, bytes), DP_READING_NONE where absent.
 *
 * A source that cannot work here (no such file, no PMU) still lists its
 * sensors, marked unavailable with a one-line reason, so that asking for them
 * is a warning, not an "unknown counter" error. */
#ifndef DP_SOURCE_H
#define DP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dataprof/format.h"
#include "util.h"

/* Where sources look, and for whom. */
typedef struct dp_source_ctx {
	const char *proc;    /* "/proc", or a directory of canned files (tests) */
	pid_t pid;           /* the target; 0: none (its sources are listed, not opened) */
	const int *tids;     /* its threads now, for per-thread sensors and perf counters */
	size_t ntids;
	bool enable_on_exec; /* the target has not exec'd yet: perf counters start at exec */
} dp_source_ctx;

typedef struct dp_sensor {
	char *name;            /* source/group/sensor[#instance] */
	const char *key;       /* what decode looks for (in name, or a static string) */
	size_t key_len;
	enum dp_sensor_kind kind;
	const char *unit;      /* static */
	uint8_t width;         /* counters: bits of the raw value before it wraps */
	uint32_t loc;          /* where the source finds it (line, field, fd...) */
} dp_sensor;

typedef struct dp_source dp_source;

typedef struct dp_source_ops {
	/* Reads the raw bytes into raw (raw_cap bytes); returns how many, or -1
	 * when the source cannot be read now (its values are then absent). */
	ssize_t (*collect)(dp_source *s, void *raw);
	/* raw bytes from collect -> values[i] for sensors[i]; values come preset
	 * to DP_READING_NONE. */
	void (*decode)(const dp_source *s, const void *raw, size_t len, uint64_t *values);
	void (*release)(dp_source *s);
} dp_source_ops;

struct dp_source {
	const dp_source_ops *ops;
	char *name; /* "proc/meminfo", "perf/hw": for messages */
	DP_VEC(dp_sensor) sensors;
	bool available;
	char why[200]; /* why not available: one line */
	size_t raw_cap;
	int fd;        /* the file collect reads; -1 */
	bool one_read; /* the kernel gives fd's whole text to one read() */
	void *priv;
};

typedef DP_VEC(dp_source *) dp_source_vec;

/* Every source of this machine and target, prepared (or marked unavailable). */
void dp_sources_prepare(dp_source_vec *out, const dp_source_ctx *ctx);
void dp_sources_free(dp_source_vec *v);

/* ---- for source implementations ---- */

dp_source *dp_source_new(dp_source_vec *v, const dp_source_ops *ops, const char *fmt, ...)
	DP_PRINTF(3, 4);
/* Adds a sensor named "<source name>/<leaf>" (leaf may carry "#instance");
 * key: what decode matches, NULL for the leaf up to '#'. */
dp_sensor *dp_source_add(dp_source *s, const char *leaf, const char *key, enum dp_sensor_kind kind,
			 const char *unit, unsigned width);
void dp_source_unavailable(dp_source *s, const char *fmt, ...) DP_PRINTF(2, 3);

/* Opens ctx->proc/rel for collect and returns its text now (malloc'd), with
 * raw_cap sized for it to grow; NULL with the reason set when it cannot. */
char *dp_source_open_proc(dp_source *s, const dp_source_ctx *ctx, const char *rel);
/* collect for sources that read s->fd whole. */
ssize_t dp_source_collect_file(dp_source *s, void *raw);
void dp_source_release_file(dp_source *s);

/* Walks "key value" lines: *line is the current one, returns false at the end.
 * key ends at ':' or a blank; val points after the separator's blanks. */
typedef struct dp_text_line {
	const char *key, *val, *end;
	size_t key_len;
} dp_text_line;
bool dp_text_next_line(const char **pos, const char *end, dp_text_line *l);
/* The unsigned number at *p (skipping blanks), advancing *p; false if none. */
bool dp_text_u64(const char **p, const char *end, uint64_t *v);

/* Bits of a kernel "unsigned long" counter. */
#define DP_ULONG_BITS ((unsigned)(sizeof(long) * 8))

/* The source adders (one file each). */
void dp_src_proc_stat(dp_source_vec *v, const dp_source_ctx *ctx);
void dp_src_meminfo(dp_source_vec *v, const dp_source_ctx *ctx);
void dp_src_vmstat(dp_source_vec *v, const dp_source_ctx *ctx);
void dp_src_pid_status(dp_source_vec *v, const dp_source_ctx *ctx);
void dp_src_pid_io(dp_source_vec *v, const dp_source_ctx *ctx);
void dp_src_pressure(dp_source_vec *v, const dp_source_ctx *ctx);
void dp_src_pid_stat(dp_source_vec *v, const dp_source_ctx *ctx);
void dp_src_perf(dp_source_vec *v, const dp_source_ctx *ctx);

#endif
