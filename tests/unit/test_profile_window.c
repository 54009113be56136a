/* A raw profile read through windows (profile/window.h) reads as it does
 * through its mapping alone: every record, after seeks and rewinds too,
 * and a pointer into a window given up since still reads the file's
 * bytes. Windows of one page here, copied into buffers (four at a time)
 * or populated, so that a profile of a
 * few hundred KiB moves them hundreds of times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dataprof/profile.h"
#include "profile/reader_impl.h"
#include "profile/window.h"
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

/* The profile read through windows of window_kib (0: none), copied into
 * buffers, or else populated where the kernel can. */
static dp_profile *open_with(const char *window_kib, bool copy)
{
	dp_error err;
	dp_profile *p;

	setenv("DATAPROF_READ_WINDOW", window_kib, 1);
	if (copy)
		setenv("DATAPROF_READ_COPY", "1", 1);
	p = dp_profile_open(path, &err);
	unsetenv("DATAPROF_READ_WINDOW");
	unsetenv("DATAPROF_READ_COPY");
	assert_non_null(p);
	return p;
}

/* How many pages of [p, p + len) this process has mapped now (pagemap's
 * present bit): not the page cache, which mincore would say. -1 where
 * pagemap cannot be read. */
static long present_pages(const void *p, size_t len)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	long n = 0;

	if (fd < 0)
		return -1;
	for (uintptr_t a = (uintptr_t)p; a < (uintptr_t)p + len; a += 4096) {
		uint64_t e;

		if (pread(fd, &e, sizeof(e), (off_t)(a / 4096 * sizeof(e))) != sizeof(e)) {
			n = -1;
			break;
		}
		n += (long)(e >> 63);
	}
	close(fd);
	return n;
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

/* Windows of 4 KiB, copied or populated, read what the plain mapping
 * reads, record by record, and pointers kept into windows given up still
 * read it. */
static void read_what_the_mapping_reads(bool copy)
{
	size_t max = SAMPLES * 2;
	seen *plain = calloc(max, sizeof(*plain)), *win = calloc(max, sizeof(*win));
	dp_profile *p = open_with("0", false), *q = open_with("4", copy);
	size_t n, m;

	assert_int_equal(p->win.fd, -1); /* 0: no windows */
	assert_false(p->win.populate);
	if (copy)
		assert_true(q->win.fd >= 0);
	else if (!q->win.populate)
		printf("windows not populated: the kernel cannot (before Linux 5.14)\n");
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
	assert_true(q->win.fills > 100 || (!copy && !q->win.populate));

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

static void test_windows_read_what_the_mapping_reads(void **state)
{
	(void)state;
	read_what_the_mapping_reads(true);
	read_what_the_mapping_reads(false);
}

static void follow_seeks(bool copy)
{
	dp_profile *q = open_with("4", copy);
	dp_profile_map m;

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

static void test_windows_follow_seeks(void **state)
{
	(void)state;
	follow_seeks(true);
	follow_seeks(false);
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

/* Populated windows hold their pages until they are given up, and a window
 * the reader gives back in part goes whole: the rest of it, mapped and no
 * longer tracked, would stay in memory to the end (a 2.5 GB profile's
 * report held 150 MiB more so). Only the window's own pages are counted:
 * the kernel may map more around them (fault-around, large folios). */
static void test_populated_windows_given_back(void **state)
{
	char *file = tu_path("pages.bin");
	size_t size = 1 << 20, win = 64 << 10, pages = win / 4096;
	uint8_t *buf = calloc(1, size);
	dp_window w;
	void *map;
	FILE *f = fopen(file, "wb");

	(void)state;
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, size, f), size);
	fclose(f);
	free(buf);
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	assert_true(map != MAP_FAILED);
	setenv("DATAPROF_READ_WINDOW", "64", 1);
	dp_win_open(&w, file, &map, size);
	unsetenv("DATAPROF_READ_WINDOW");
	if (!w.populate) {
		printf("windows not populated: the kernel cannot (before Linux 5.14)\n");
		dp_win_off(&w);
		munmap(map, size);
		free(file);
		skip();
	}
	uint8_t *sixth = (uint8_t *)map + 5 * win;

	if (present_pages(map, win) < 0) {
		printf("/proc/self/pagemap cannot be read here\n");
		dp_win_off(&w);
		munmap(map, size);
		free(file);
		skip();
	}
	/* the first window (at the open), then the sixth, whole */
	assert_int_equal(present_pages(map, win), pages);
	dp_win_need(&w, 5 * win, 100);
	assert_int_equal(present_pages(sixth, win), pages);
	/* the reader gives back the first five and a half: the sixth goes
	 * whole */
	dp_win_forget(&w, 0, 5 * win + win / 2);
	madvise(map, 5 * win + win / 2, MADV_DONTNEED);
	assert_int_equal(present_pages(map, win), 0);
	assert_int_equal(present_pages(sixth, win), 0);
	/* read again, it is mapped again: the same bytes */
	dp_win_need(&w, 5 * win, 100);
	assert_int_equal(present_pages(sixth, win), pages);
	assert_int_equal(sixth[win / 2], 0);
	dp_win_off(&w);
	munmap(map, size);
	unlink(file);
	free(file);
}

static void test_windows_of_threads(void **state)
{
	size_t max = SAMPLES * 2;
	seen *plain = calloc(max, sizeof(*plain));
	dp_profile *p = open_with("0", false);
	reader t[THREADS];

	(void)state;
	size_t n = read_all(p, plain, max);
	dp_profile_close(p);
	setenv("DATAPROF_READ_WINDOW", "2048", 1);
	setenv("DATAPROF_READ_COPY", "1", 1); /* the buffers that move */
	for (int i = 0; i < THREADS; i++) {
		t[i] = (reader){.want = plain, .n = n};
		assert_int_equal(pthread_create(&t[i].th, NULL, read_in_thread, &t[i]), 0);
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i].th, NULL);
		assert_int_equal(t[i].bad, 0);
	}
	unsetenv("DATAPROF_READ_WINDOW");
	unsetenv("DATAPROF_READ_COPY");
	free(plain);
}

TU_MAIN(write_profile, remove_profile, test_windows_read_what_the_mapping_reads,
	test_windows_follow_seeks, test_populated_windows_given_back, test_windows_of_threads)
