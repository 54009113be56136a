/* Small helpers shared by every stage: allocation that never returns NULL,
 * growable arrays, one-line error messages. */
#ifndef DP_UTIL_H
#define DP_UTIL_H

#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdarg.h>

#define DP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Binary search, as C++'s partition_point: in [0, n), where pred (an
 * expression of the index i) holds for a prefix and not after it, the first
 * i where it does not. With pred "v[i].key <= x" on an array sorted by key
 * that is the upper bound of x: v[result - 1] is the last element at or
 * below x. A macro, so that per-sample lookups pay no call per step. */
#define DP_PARTITION_POINT(n, i, pred)                                                          \
	__extension__({                                                                         \
		size_t dp_lo_ = 0, dp_hi_ = (n);                                                \
		while (dp_lo_ < dp_hi_) {                                                       \
			size_t i = dp_lo_ + (dp_hi_ - dp_lo_) / 2;                              \
			if (pred)                                                               \
				dp_lo_ = i + 1;                                                 \
			else                                                                    \
				dp_hi_ = i;                                                     \
		}                                                                               \
		dp_lo_;                                                                         \
	})
#define DP_ALIGN(x, a)  (((x) + ((a)-1)) & ~((uint64_t)(a)-1))
#define DP_MIN(a, b)    ((a) < (b) ? (a) : (b))
#define DP_MAX(a, b)    ((a) > (b) ? (a) : (b))
#define DP_UNUSED       __attribute__((unused))
#define DP_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* -1, 0 or 1 as a is less than, equal to or more than b: a step of a
 * qsort comparator, the next one taken where it is 0. */
static inline int dp_cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* Puts the n items of v (each size bytes) in the order of their keys
 * (key[i]: item i's; distinct), the keys with them; where[old index] = the
 * item's new index. */
void dp_sort_by_key(void *v, size_t n, size_t size, uint64_t *key, uint32_t *where);

/* Removes path if it is a file: not /dev/null, a pipe or a device that an
 * output was given as (an output that failed is removed with this). */
void dp_unlink_file(const char *path);

/* One error message, one line, that names the thing and what to do. */
typedef struct dp_error {
	char msg[512];
} dp_error;

void dp_error_set(dp_error *err, const char *fmt, ...) DP_PRINTF(2, 3);
void dp_error_prefix(dp_error *err, const char *fmt, ...) DP_PRINTF(2, 3);

/* Fatal on allocation failure: a profiler that runs out of memory cannot
 * report anything useful, and checking every call obscures the logic. */
void *dp_malloc(size_t n);
void *dp_calloc(size_t n, size_t size);
void *dp_realloc(void *p, size_t n);
char *dp_strdup(const char *s);
char *dp_strndup(const char *s, size_t n);
char *dp_asprintf(const char *fmt, ...) DP_PRINTF(1, 2);
/* The pages of [p, p + n) of a buffer about to be written, faulted in by
 * one system call (MADV_POPULATE_WRITE) rather than one fault a page: a
 * fault is a trap to the kernel, costly in a VM. Nothing where the kernel
 * cannot (before Linux 5.14). */
void dp_prefault(void *p, size_t n);

/* Growable array: struct { T *v; size_t n, cap; }. */
#define DP_VEC(T)                                                                                  \
	struct {                                                                                   \
		T *v;                                                                              \
		size_t n, cap;                                                                     \
	}
#define dp_vec_grow(vec, want)                                                                     \
	do {                                                                                       \
		if ((want) > (vec)->cap) {                                                         \
			size_t nc_ = (vec)->cap ? (vec)->cap * 2 : 8;                              \
			while (nc_ < (want))                                                       \
				nc_ *= 2;                                                          \
			(vec)->v = dp_realloc((vec)->v, nc_ * sizeof(*(vec)->v));                  \
			(vec)->cap = nc_;                                                          \
		}                                                                                  \
	} while (0)
#define dp_vec_push(vec, x)                                                                        \
	do {                                                                                       \
		dp_vec_grow((vec), (vec)->n + 1);                                                  \
		(vec)->v[(vec)->n++] = (x);                                                        \
	} while (0)
/* Before a push to a vector filled in order: once it holds `chunk`
 * elements, at every further `chunk`, room for the next chunk, its pages
 * faulted in at once (dp_prefault). */
#define dp_vec_prefault(vec, chunk)                                                                \
	do {                                                                                       \
		if ((vec)->n && !((vec)->n % (chunk))) {                                           \
			dp_vec_grow((vec), (vec)->n + (chunk));                                    \
			dp_prefault((vec)->v + (vec)->n, (size_t)(chunk) * sizeof(*(vec)->v));     \
		}                                                                                  \
	} while (0)
#define dp_vec_free(vec)                                                                           \
	do {                                                                                       \
		free((vec)->v);                                                                    \
		(vec)->v = NULL;                                                                   \
		(vec)->n = (vec)->cap = 0;                                                         \
	} while (0)
/* fn (free, or the element type's own) on each element, then the vector. */
#define dp_vec_free_each(vec, fn)                                                                  \
	do {                                                                                       \
		for (size_t i_ = 0; i_ < (vec)->n; i_++)                                           \
			fn((vec)->v[i_]);                                                          \
		dp_vec_free(vec);                                                                  \
	} while (0)

/* A growable byte/string buffer. */
typedef struct dp_buf {
	char *p;
	size_t len, cap;
} dp_buf;

void dp_buf_reserve(dp_buf *b, size_t extra);
void dp_buf_add(dp_buf *b, const void *data, size_t n);
void dp_buf_puts(dp_buf *b, const char *s);
void dp_buf_printf(dp_buf *b, const char *fmt, ...) DP_PRINTF(2, 3);
void dp_buf_vprintf(dp_buf *b, const char *fmt, va_list ap);
void dp_buf_free(dp_buf *b);

/* Time on the clock every record of a profile uses (CLOCK_MONOTONIC). */
uint64_t dp_now_ns(void);

/* Parse helpers: strict, whole-string, with range check. */
bool dp_parse_u64(const char *s, uint64_t *out);
bool dp_parse_double(const char *s, double *out);

/* s into out, shortened to width characters (least, if width is less) by
 * "..." in place of its start: the end of a path or key is its distinctive
 * part. */
void dp_fit_end(const char *s, int width, int least, char *out, size_t len);

/* Edit distance for "did you mean" suggestions. */
unsigned dp_edit_distance(const char *a, const char *b, unsigned limit);

/* stderr progress is only shown when stderr is a terminal. */
bool dp_stderr_is_tty(void);

/* FNV-1a, 64 bits, of n bytes, continuing from h (DP_FNV_INIT to start):
 * a check of bytes written and read back, not a hash table's. */
#define DP_FNV_INIT 0xcbf29ce484222325ull
uint64_t dp_fnv1a(const void *p, size_t n, uint64_t h);

#endif
