#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void dp_error_set(dp_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void dp_error_prefix(dp_error *err, const char *fmt, ...)
{
	char old[sizeof(err->msg)];
	va_list ap;
	int n;

	if (!err)
		return;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n + 2 < sizeof(err->msg)) {
		size_t room = sizeof(err->msg) - (size_t)n;

		err->msg[n] = ':';
		err->msg[n + 1] = ' ';
		memcpy(err->msg + n + 2, old, DP_MIN(room - 2, strlen(old) + 1));
		err->msg[sizeof(err->msg) - 1] = 0;
	}
}

static void *check(void *p, size_t n)
{
	if (!p && n) {
		fprintf(stderr, "dataprof: out of memory allocating %zu bytes\n", n);
		abort();
	}
	return p;
}

void *dp_malloc(size_t n)
{
	return check(malloc(n ? n : 1), n);
}

void *dp_calloc(size_t n, size_t size)
{
	return check(calloc(n ? n : 1, size ? size : 1), n * size);
}

void *dp_realloc(void *p, size_t n)
{
	return check(realloc(p, n ? n : 1), n);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

void dp_prefault(void *p, size_t n)
{
	uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)4095;

	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}

char *dp_strdup(const char *s)
{
	return dp_strndup(s, strlen(s));
}

char *dp_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *r = dp_malloc(len + 1);

	memcpy(r, s, len);
	r[len] = 0;
	return r;
}

char *dp_asprintf(const char *fmt, ...)
{
	dp_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	dp_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return b.p;
}

void dp_buf_reserve(dp_buf *b, size_t extra)
{
	size_t want = b->len + extra + 1;

	if (want > b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 256;

		while (nc < want)
			nc *= 2;
		b->p = dp_realloc(b->p, nc);
		b->cap = nc;
	}
}

void dp_buf_add(dp_buf *b, const void *data, size_t n)
{
	dp_buf_reserve(b, n);
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = 0;
}

void dp_buf_puts(dp_buf *b, const char *s)
{
	dp_buf_add(b, s, strlen(s));
}

void dp_buf_vprintf(dp_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	dp_buf_reserve(b, 64);
	n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	if (n >= 0 && (size_t)n >= b->cap - b->len) {
		dp_buf_reserve(b, (size_t)n);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap2);
	}
	va_end(ap2);
	if (n > 0)
		b->len += (size_t)n;
}

void dp_buf_printf(dp_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dp_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void dp_buf_free(dp_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

uint64_t dp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool dp_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool dp_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

void dp_fit_end(const char *s, int width, int least, char *out, size_t len)
{
	int n = (int)strlen(s);

	if (width < least)
		width = least;
	if (n <= width)
		snprintf(out, len, "%s", s);
	else
		snprintf(out, len, "...%s", s + n - (width - 3));
}

unsigned dp_edit_distance(const char *a, const char *b, unsigned limit)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[128], i, j;

	if (lb >= DP_ARRAY_LEN(row))
		return limit + 1;
	if ((la > lb ? la - lb : lb - la) > limit)
		return limit + 1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		unsigned prev = row[0], best;

		row[0] = i;
		best = row[0];
		for (j = 1; j <= lb; j++) {
			unsigned cur = row[j];
			unsigned cost = tolower((unsigned char)a[i - 1]) !=
					tolower((unsigned char)b[j - 1]);
			unsigned v = prev + cost;

			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			prev = cur;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
	}
	return row[lb];
}

bool dp_stderr_is_tty(void)
{
	return isatty(STDERR_FILENO) == 1;
}

static int by_key(const void *pa, const void *pb, void *ctx)
{
	const uint64_t *key = ctx;
	uint64_t a = key[*(const uint32_t *)pa], b = key[*(const uint32_t *)pb];

	return a < b ? -1 : a > b;
}

void dp_sort_by_key(void *v, size_t n, size_t size, uint64_t *key, uint32_t *where)
{
	uint32_t *order = dp_calloc(n + 1, sizeof(uint32_t));
	char *old = dp_malloc(n * size + 1);
	uint64_t *old_key = dp_calloc(n + 1, sizeof(uint64_t));

	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	if (n > 1)
		qsort_r(order, n, sizeof(uint32_t), by_key, key);
	if (n) {
		memcpy(old, v, n * size);
		memcpy(old_key, key, n * sizeof(uint64_t));
	}
	for (size_t i = 0; i < n; i++) {
		memcpy((char *)v + i * size, old + (size_t)order[i] * size, size);
		key[i] = old_key[order[i]];
		where[order[i]] = (uint32_t)i;
	}
	free(order);
	free(old);
	free(old_key);
}

void dp_unlink_file(const char *path)
{
	struct stat st;

	if (path && lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		unlink(path);
}

uint64_t dp_fnv1a(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}
