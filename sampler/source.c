/* What every data source shares: creation, sensors, /proc files, text. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIN_RAW 4096

void dp_sources_prepare(dp_source_vec *out, const dp_source_ctx *ctx)
{
	dp_src_proc_stat(out, ctx);
	dp_src_meminfo(out, ctx);
	dp_src_vmstat(out, ctx);
	dp_src_pressure(out, ctx);
	if (ctx->pid > 0) {
		dp_src_pid_stat(out, ctx);
		dp_src_pid_status(out, ctx);
		dp_src_pid_io(out, ctx);
		dp_src_perf(out, ctx);
	}
}

void dp_sources_free(dp_source_vec *v)
{
	for (size_t i = 0; i < v->n; i++) {
		dp_source *s = v->v[i];

		if (s->ops && s->ops->release)
			s->ops->release(s);
		for (size_t k = 0; k < s->sensors.n; k++)
			free(s->sensors.v[k].name);
		dp_vec_free(&s->sensors);
		free(s->name);
		free(s);
	}
	dp_vec_free(v);
}

dp_source *dp_source_new(dp_source_vec *v, const dp_source_ops *ops, const char *fmt, ...)
{
	dp_source *s = dp_calloc(1, sizeof(*s));
	dp_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	dp_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	s->ops = ops;
	s->name = b.p;
	s->fd = -1;
	s->available = true;
	dp_vec_push(v, s);
	return s;
}

dp_sensor *dp_source_add(dp_source *s, const char *leaf, const char *key, enum dp_sensor_kind kind,
			 const char *unit, unsigned width)
{
	dp_sensor *se;
	size_t pre = strlen(s->name) + 1;
	const char *hash;

	dp_vec_grow(&s->sensors, s->sensors.n + 1);
	se = &s->sensors.v[s->sensors.n++];
	memset(se, 0, sizeof(*se));
	/* a source named "proc/task_stat#tid12" puts the instance after the leaf */
	hash = strchr(s->name, '#');
	if (hash)
		se->name = dp_asprintf("%.*s/%s%s", (int)(hash - s->name), s->name, leaf, hash);
	else
		se->name = dp_asprintf("%s/%s", s->name, leaf);
	if (hash)
		pre = (size_t)(hash - s->name) + 1;
	se->key = key ? key : se->name + pre;
	se->key_len = key ? strlen(key) : strcspn(se->name + pre, "#");
	se->kind = kind;
	se->unit = unit;
	se->width = (uint8_t)(kind == DP_SENSOR_COUNTER ? width : 64);
	return se;
}

void dp_source_unavailable(dp_source *s, const char *fmt, ...)
{
	va_list ap;

	s->available = false;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
}

char *dp_source_open_proc(dp_source *s, const dp_source_ctx *ctx, const char *rel)
{
	char *path = dp_asprintf("%s/%s", ctx->proc, rel);
	dp_buf b = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		dp_source_unavailable(s, "cannot open %s: %s", path, strerror(errno));
		free(path);
		return NULL;
	}
	for (size_t reads = 0;; reads++) {
		dp_buf_reserve(&b, 2 * b.len + 4096);
		ssize_t n = read(fd, b.p + b.len, b.cap - b.len - 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			/* the pressure files exist but refuse reads when PSI is off */
			dp_source_unavailable(s, "cannot read %s: %s%s", path, strerror(errno),
					      errno == EOPNOTSUPP ? " (PSI is off: boot with psi=1)"
								  : "");
			close(fd);
			dp_buf_free(&b);
			free(path);
			return NULL;
		}
		if (n == 0) {
			/* a file the kernel makes in one piece (not a list of records
			 * one page at a time) needs no second read to see its end */
			s->one_read = reads == 1;
			break;
		}
		b.len += (size_t)n;
	}
	free(path);
	dp_buf_reserve(&b, 1);
	b.p[b.len] = 0;
	s->fd = fd;
	/* room to grow (CPUs coming online, longer numbers), in whole pages */
	s->raw_cap = DP_ALIGN(DP_MAX((size_t)MIN_RAW, 2 * b.len + 1024), 4096);
	return b.p;
}

ssize_t dp_source_collect_file(dp_source *s, void *raw)
{
	size_t len = 0;

	while (len < s->raw_cap) {
		ssize_t n = pread(s->fd, (char *)raw + len, s->raw_cap - len, (off_t)len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return (ssize_t)len;
		len += (size_t)n;
		if (s->one_read && len < s->raw_cap)
			return (ssize_t)len;
	}
	return -1; /* grew past the buffer: a cut-off number would be a wrong value */
}

void dp_source_release_file(dp_source *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	free(s->priv);
	s->priv = NULL;
}

bool dp_text_next_line(const char **pos, const char *end, dp_text_line *l)
{
	const char *p = *pos, *eol, *k;

	if (p >= end)
		return false;
	eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		eol = end;
	k = p;
	while (p < eol && *p != ':' && *p != ' ' && *p != '\t')
		p++;
	l->key = k;
	l->key_len = (size_t)(p - k);
	if (p < eol && *p == ':')
		p++;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	l->val = p;
	l->end = eol;
	*pos = eol < end ? eol + 1 : end;
	return true;
}

bool dp_text_u64(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return false;
	while (p < end && *p >= '0' && *p <= '9')
		x = x * 10 + (uint64_t)(*p++ - '0');
	*pp = p;
	*v = x;
	return true;
}
