/* /proc/pressure/{cpu,memory,io}: pressure stall information. The running
 * totals of stalled time (µs, kept as ns) are counters: their rate is the
 * share of time some (or all) runnable tasks were stalled. The kernel's
 * avg10..avg300 are averages of the same and are left out. One source, three
 * files: PSI is there for all of them or for none. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const resources[] = {"cpu", "memory", "io"};
#define NRES  3
#define CHUNK 512 /* two lines of about 70 bytes each */

typedef struct pressure_priv {
	int fd[NRES];
} pressure_priv;

/* raw: per file, a u32 length then up to CHUNK - 8 bytes of text */
static ssize_t collect(dp_source *s, void *raw)
{
	const pressure_priv *pp = s->priv;

	for (int i = 0; i < NRES; i++) {
		uint8_t *chunk = (uint8_t *)raw + i * CHUNK;
		ssize_t n = pp->fd[i] >= 0 ? pread(pp->fd[i], chunk + 8, CHUNK - 8, 0) : -1;
		uint32_t len = n > 0 && n < CHUNK - 8 ? (uint32_t)n : 0;

		memcpy(chunk, &len, 4);
	}
	return NRES * CHUNK;
}

static void decode(const dp_source *s, const void *raw, size_t len, uint64_t *values)
{
	(void)len;
	for (int i = 0; i < NRES; i++) {
		const char *chunk = (const char *)raw + i * CHUNK, *pos = chunk + 8, *end;
		dp_text_line l;
		uint32_t n;

		memcpy(&n, chunk, 4);
		end = pos + n;
		while (dp_text_next_line(&pos, end, &l)) {
			const char *t = memmem(l.val, (size_t)(l.end - l.val), "total=", 6);
			int k = l.key_len == 4 && !memcmp(l.key, "some", 4)   ? 0
				: l.key_len == 4 && !memcmp(l.key, "full", 4) ? 1
									      : -1;
			uint64_t v;

			if (k < 0 || !t)
				continue;
			t += 6;
			if (dp_text_u64(&t, l.end, &v))
				values[2 * i + k] = v * 1000;
		}
	}
	(void)s;
}

static void release(dp_source *s)
{
	pressure_priv *pp = s->priv;

	for (int i = 0; pp && i < NRES; i++)
		if (pp->fd[i] >= 0)
			close(pp->fd[i]);
	free(pp);
	s->priv = NULL;
}

static const dp_source_ops ops = {collect, decode, release};

void dp_src_pressure(dp_source_vec *v, const dp_source_ctx *ctx)
{
	dp_source *s = dp_source_new(v, &ops, "proc/pressure");
	pressure_priv *pp = dp_calloc(1, sizeof(*pp));
	int opened = 0, err = 0;

	s->priv = pp;
	for (int i = 0; i < NRES; i++) {
		char leaf[32], *path = dp_asprintf("%s/pressure/%s", ctx->proc, resources[i]);
		char buf[CHUNK];

		snprintf(leaf, sizeof(leaf), "%s_some", resources[i]);
		dp_source_add(s, leaf, "some", DP_SENSOR_COUNTER, "ns", 64);
		/* "full" for cpu came with 5.13: before, it has no value */
		snprintf(leaf, sizeof(leaf), "%s_full", resources[i]);
		dp_source_add(s, leaf, "full", DP_SENSOR_COUNTER, "ns", 64);
		pp->fd[i] = open(path, O_RDONLY | O_CLOEXEC);
		/* the files exist but refuse reads when PSI is off */
		if (pp->fd[i] >= 0 && pread(pp->fd[i], buf, sizeof(buf), 0) < 0) {
			err = errno;
			close(pp->fd[i]);
			pp->fd[i] = -1;
		}
		opened += pp->fd[i] >= 0;
		free(path);
	}
	if (!opened && err == EOPNOTSUPP)
		dp_source_unavailable(s, "PSI is off in this kernel (boot with psi=1)");
	else if (!opened)
		dp_source_unavailable(s, "no %s/pressure (a kernel before 4.20, or without "
					 "CONFIG_PSI)",
				      ctx->proc);
	s->raw_cap = NRES * CHUNK;
}
