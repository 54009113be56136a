/* A raw profile read through windows (profile/window.h) reads as it does
 * through its mapping alone: every record, after seeks and rewinds too,
 * and a pointer into a window given up since still reads the file's
 * bytes. Windows of one page here, four at a time, so that a profile of a
 * few hundred KiB moves them hundreds of times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataprof/profile.h"
#include "profile/reader_impl.h"
#include "profile/writer.h"
#include "synth_records.h"
#include "tu.h"
#include "tu_group.h"

#define IP0	 0x400000ull
#define SAMPLES	 20000
#define KEEP_ONE 37 /* every KEEP_ONE-th record's bytes are kept by pointer */

static char *path;

/* SAMPLES samples (sample i at IP0 + i), a warning every 50 of them. */
static int write_profile(void **state)
{
	struct perf_event_attr a = synth_minimal_attr();
	uint64_t id = 7;
	dp_writer w;
	dp_error err;
	dp_buf b = {0};

	(void)state;
	path = tu_path("window.dprof");
	assert_int_equal(dp_writer_open(&w, path, 1000, 2000, &err), 0);
	dp_writer_add_event(&w, 0, "page-faults", &a, DP_IP_EXACT, DP_EVC_MEMORY, &id, 1);
	for (int i = 0; i < SAMPLES; i++) {
		b.len = 0;
		synth_sample(&b, &a, id, IP0 + (uint64_t)i, 42, 43, 5000 + (uint64_t)i, 0, 0, 1, 0,
			     0, NULL, NULL, 0);
		dp_writer_add(&w, b.p, b.len);
		if (i % 50 == 0) {
			char msg[64];

			snprintf(msg, sizeof(msg), "warning number %d, padded out a little", i);
			dp_writer_add_warning(&w, 5000 + (uint64_t)i, msg);
		}
	}
	synth_finish(&w, SAMPLES);
	assert_int_equal(dp_writer_close(&w), 0);
	dp_buf_free(&b);
	return 0;
}

static int remove_profile(void **state)
{
	free(path);
	return tu_teardown(state);
}

typedef struct seen {
	uint64_t offset;
	unsigned size;
	uint8_t bytes[128]; /* the record's first bytes */
	const uint8_t *at;  /* where the reader had them (windows on) */
} seen;

static dp_profile *open_with(const char *window_kib)
{
	dp_error err;
	dp_profile *p;

	setenv("DATAPROF_READ_WINDOW", window_kib, 1);
	p = dp_profile_open(path, &err);
	unsetenv("DATAPROF_READ_WINDOW");
	assert_non_null(p);
	return p;
}

/* Every record from the reader's place on. */
static size_t read_all(dp_profile *p, seen *out, size_t max)
{
	dp_record r;
	size_t n = 0;

	while (dp_profile_next(p, &r) > 0) {
		const struct perf_event_header *h = dp_profile_record_bytes(p, &r);

		assert_non_null(h);
		assert_true(n < max);
		out[n].offset = r.offset;
		out[n].size = h->size;
		memcpy(out[n].bytes, h, h->size < 128 ? h->size : 128);
		out[n].at = (const uint8_t *)h;
		n++;
	}
	return n;
}

static void test_windows_read_what_the_mapping_reads(void **state)
{
	size_t max = SAMPLES * 2;
	seen *plain = calloc(max, sizeof(*plain)), *win = calloc(max, sizeof(*win));
	dp_profile *p = open_with("0"), *q = open_with("4");
	size_t n, m;

	(void)state;
	assert_int_equal(p->win.fd, -1); /* 0: no windows */
	assert_true(q->win.fd >= 0);
	assert_int_equal(dp_win_bytes(&q->win), 4096);
	n = read_all(p, plain, max);
	m = read_all(q, win, max);
	assert_true(n > SAMPLES);
	assert_int_equal(m, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(win[i].offset, plain[i].offset);
		assert_int_equal(win[i].size, plain[i].size);
		assert_memory_equal(win[i].bytes, plain[i].bytes,
				    plain[i].size < 128 ? plain[i].size : 128);
	}
	/* hundreds of windows read, four at most at a time: most given up */
	assert_true(q->win.fills > 100);
	for (size_t i = 0; i < n; i += KEEP_ONE)
		assert_memory_equal(win[i].at, plain[i].bytes,
				    plain[i].size < 128 ? plain[i].size : 128);
	/* a second pass reads the same */
	dp_profile_rewind(q);
	assert_int_equal(read_all(q, win, max), n);
	for (size_t i = 0; i < n; i++)
		assert_memory_equal(win[i].bytes, plain[i].bytes,
				    plain[i].size < 128 ? plain[i].size : 128);
	free(plain);
	free(win);
	dp_profile_close(p);
	dp_profile_close(q);
}

static void test_windows_follow_seeks(void **state)
{
	dp_profile *q = open_with("4");
	dp_profile_map m;

	(void)state;
	assert_true(dp_profile_stored_index(q, &m));
	assert_true(m.nchunks > 10);
	/* backwards, then forwards: each chunk's first sample, read where the
	 * index says it starts */
	for (size_t c = m.nchunks; c-- > 1;)
		assert_int_equal(synth_sample_ip_at(q, m.chunks[c]), IP0 + c * DP_INDEX_CHUNK);
	for (size_t c = 1; c < m.nchunks; c++)
		assert_int_equal(synth_sample_ip_at(q, m.chunks[c]), IP0 + c * DP_INDEX_CHUNK);
	/* the side band alone, as a report's parts read it */
	dp_record r;
	size_t warnings = 0;

	dp_profile_rewind(q);
	dp_profile_skip_samples(q, true);
	while (dp_profile_next(q, &r) > 0)
		if (r.kind == DP_R_WARNING) {
			char want[64];

			snprintf(want, sizeof(want), "warning number %zu, padded out a little",
				 warnings * 50);
			assert_string_equal(r.warning, want);
			warnings++;
		}
	assert_int_equal(warnings, SAMPLES / 50);
	dp_profile_close(q);
}

/* Readers in threads, each opening, reading and closing the profile again
 * and again, with the windows of a report (2 MiB, one for this file): a
 * place a buffer leaves must never be a hole, even for an instant, or
 * another thread's mmap of its file can land there and be overwritten (a
 * bug: `report -j 4` of a series of small files crashed). */
#define THREADS 4

typedef struct reader {
	pthread_t th;
	const seen *want;
	size_t n, bad;
} reader;

/* Opens (an mmap where the kernel likes, which could take another
 * thread's hole), reads and closes the profile, again and again. */
static void *read_in_thread(void *arg)
{
	reader *t = arg;

	for (int pass = 0; pass < 50; pass++) {
		dp_error err;
		dp_profile *q = dp_profile_open(path, &err);
		dp_record r;
		size_t i = 0;

		if (!q) {
			t->bad++;
			continue;
		}
		while (dp_profile_next(q, &r) > 0) {
			const struct perf_event_header *h = dp_profile_record_bytes(q, &r);
			size_t cmp = t->want[i].size < 128 ? t->want[i].size : 128;

			if (i >= t->n || r.offset != t->want[i].offset ||
			    memcmp(h, t->want[i].bytes, cmp))
				t->bad++;
			i++;
		}
		if (i != t->n)
			t->bad++;
		dp_profile_close(q);
	}
	return NULL;
}

static void test_windows_of_threads(void **state)
{
	size_t max = SAMPLES * 2;
	seen *plain = calloc(max, sizeof(*plain));
	dp_profile *p = open_with("0");
	reader t[THREADS];

	(void)state;
	size_t n = read_all(p, plain, max);
	dp_profile_close(p);
	setenv("DATAPROF_READ_WINDOW", "2048", 1);
	for (int i = 0; i < THREADS; i++) {
		t[i] = (reader){.want = plain, .n = n};
		assert_int_equal(pthread_create(&t[i].th, NULL, read_in_thread, &t[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i].th, NULL);
		assert_int_equal(t[i].bad, 0);
	}
	unsetenv("DATAPROF_READ_WINDOW");
	free(plain);
}

TU_MAIN(write_profile, remove_profile, test_windows_read_what_the_mapping_reads,
	test_windows_follow_seeks, test_windows_of_threads)
