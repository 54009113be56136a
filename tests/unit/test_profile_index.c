/* The index a finished raw profile ends with: the writer's says what a walk
 * of the file would find, a series' joins its files', and an index that
 * disagrees with its file in any way (cut, damaged, hostile) is refused,
 * so that the file is walked instead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dataprof/profile.h"
#include "profile/writer.h"
#include "synth_records.h"
#include "tu.h"
#include "tu_group.h"

#define IP0 0x400000ull

/* A profile of samples first..first+n-1 (sample i at IP0 + i), with
 * side-band records among them: a warning every 300 samples, a thread
 * record every 1000, a FINISH at the end; series_index: a file of a
 * series. */
static char *write_profile(const char *name, uint64_t first, int n, const char *series_index)
{
	char *path = tu_path(name);
	struct perf_event_attr a = synth_minimal_attr();
	uint64_t id = 7;
	dp_writer w;
	dp_error err;
	dp_buf b = {0};

	assert_int_equal(dp_writer_open(&w, path, 1000, 2000, &err), 0);
	dp_writer_add_meta(&w, "cmdline", "index test");
	if (series_index) {
		dp_writer_add_meta(&w, "series", "test-series");
		dp_writer_add_meta(&w, "series_index", series_index);
	}
	dp_writer_add_event(&w, 0, "page-faults", &a, DP_IP_EXACT, DP_EVC_MEMORY, &id, 1);
	for (int i = 0; i < n; i++) {
		uint64_t k = first + (uint64_t)i;

		b.len = 0;
		synth_sample(&b, &a, id, IP0 + k, 42, 43, 5000 + k, 0, 0, 1, 0, 0, NULL, NULL, 0);
		dp_writer_add(&w, b.p, b.len);
		if (i % 300 == 0)
			dp_writer_add_warning(&w, 5000 + k, "a side-band record");
		if (i % 1000 == 999) {
			struct dp_rec_thread t;

			memset(&t, 0, sizeof(t));
			t.time = 5000 + k;
			t.pid = 42;
			t.tid = 43;
			dp_writer_add_dp(&w, DP_REC_THREAD, (uint8_t *)&t + 8, sizeof(t) - 8);
		}
		if (i % 97 == 0)
			assert_int_equal(dp_writer_flush(&w), 0);
	}
	synth_finish(&w, (uint64_t)n);
	assert_int_equal(dp_writer_close(&w), 0);
	dp_buf_free(&b);
	return path;
}

typedef struct walked {
	DP_VEC(uint64_t) side, chunks;
	uint64_t samples;
} walked;

/* What a side-band pass with dp_profile_index finds. */
static void walk(dp_profile *p, walked *m)
{
	dp_profile_map x;
	dp_record r;

	dp_profile_rewind(p);
	dp_profile_skip_samples(p, true);
	dp_profile_index(p, DP_INDEX_CHUNK);
	while (dp_profile_next(p, &r) > 0)
		;
	assert_true(dp_profile_index_get(p, &x));
	assert_false(x.stored);
	for (size_t i = 0; i < x.nside; i++)
		dp_vec_push(&m->side, x.side[i]);
	for (size_t i = 0; i < x.nchunks; i++)
		dp_vec_push(&m->chunks, x.chunks[i]);
	m->samples = x.samples;
	dp_profile_skip_samples(p, false);
	dp_profile_rewind(p);
}

static void walked_free(walked *m)
{
	dp_vec_free(&m->side);
	dp_vec_free(&m->chunks);
}

static bool same_map(const dp_profile_map *x, const walked *m)
{
	return x->nside == m->side.n && x->nchunks == m->chunks.n && x->samples == m->samples &&
	       !memcmp(x->side, m->side.v, m->side.n * 8) &&
	       !memcmp(x->chunks, m->chunks.v, m->chunks.n * 8);
}

static void test_index_is_what_a_walk_finds(void **state)
{
	char *path = write_profile("idx.dprof", 0, 5000, NULL);
	dp_error err;
	dp_profile *p = dp_profile_open(path, &err);
	dp_profile_map m;
	walked w = {0};

	(void)state;
	assert_non_null(p);
	assert_true(dp_profile_stored_index(p, &m));
	assert_true(m.stored);
	assert_null(m.seq);
	assert_int_equal(m.nchunks, 5); /* 5000 samples, chunks of 1024 */
	walk(p, &w);
	assert_int_equal(w.samples, 5000);
	assert_true(same_map(&m, &w));
	for (size_t c = 0; c < m.nchunks; c++)
		assert_int_equal(synth_sample_ip_at(p, m.chunks[c]), IP0 + c * DP_INDEX_CHUNK);
	/* the index records are not the program's: read as nothing */
	dp_record r;
	dp_profile_rewind(p);
	while (dp_profile_next(p, &r) > 0)
		;
	assert_int_equal(dp_profile_status(p)->unknown_records, 0);
	assert_true(dp_profile_status(p)->finished);
	walked_free(&w);
	dp_profile_close(p);
	free(path);
}

/* The file's bytes, and a copy of them written as path. */
static char *slurp(const char *path, size_t *len)
{
	struct stat sb;
	FILE *f = fopen(path, "rb");
	char *all;

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &sb), 0);
	all = malloc((size_t)sb.st_size);
	assert_int_equal(fread(all, 1, (size_t)sb.st_size, f), (size_t)sb.st_size);
	fclose(f);
	*len = (size_t)sb.st_size;
	return all;
}

static void spit(const char *path, const char *all, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_int_equal(fwrite(all, 1, len, f), len);
	fclose(f);
}

/* Opened, the copy either has no index or the true one. */
static bool index_refused_or_true(const char *path, const walked *truth)
{
	dp_error err;
	dp_profile *p = dp_profile_open(path, &err);
	dp_profile_map m;
	bool ok;

	if (!p)
		return true; /* the header itself was hit */
	ok = !dp_profile_stored_index(p, &m) || same_map(&m, truth);
	dp_profile_close(p);
	return ok;
}

/* The end record's check, made anew over the index as it now stands. */
static void rehash(char *all, size_t len, uint64_t index_at)
{
	struct dp_rec_index_end e;
	size_t end_at = len - sizeof(e);
	uint64_t h = dp_fnv1a(all + index_at, end_at - index_at, DP_FNV_INIT);

	memcpy(&e, all + end_at, sizeof(e));
	e.check = dp_fnv1a(&e, offsetof(struct dp_rec_index_end, check), h);
	memcpy(all + end_at, &e, sizeof(e));
}

/* Cut anywhere in the index, or with any byte of it changed, the file has
 * no index or the right one: never one that points elsewhere. */
static void test_damaged_index_is_refused(void **state)
{
	char *path = write_profile("dmg.dprof", 0, 2100, NULL), *copy = tu_path("dmg-copy.dprof");
	dp_error err;
	dp_profile *p = dp_profile_open(path, &err);
	dp_profile_map m;
	walked truth = {0};
	size_t len, refused = 0;
	char *all = slurp(path, &len);

	(void)state;
	assert_true(dp_profile_stored_index(p, &m));
	walk(p, &truth);
	dp_profile_close(p);
	uint64_t index_at;
	memcpy(&index_at, all + len - sizeof(struct dp_rec_index_end) + 8, 8);
	assert_true(index_at > DP_FILE_HEADER_SIZE && index_at < len);
	for (size_t cut = index_at; cut < len; cut += 8) {
		spit(copy, all, cut);
		p = dp_profile_open(copy, &err);
		assert_non_null(p);
		assert_false(dp_profile_stored_index(p, &m));
		dp_profile_close(p);
	}
	for (size_t at = index_at; at < len; at++) {
		for (int bit = 0; bit < 8; bit += 3) {
			all[at] ^= (char)(1 << bit);
			spit(copy, all, len);
			assert_true(index_refused_or_true(copy, &truth));
			all[at] ^= (char)(1 << bit);
		}
	}
	/* with the check made anew (a hostile index): chunk 1's offset moved
	 * off the 8-byte grid, onto chunk 0's, past the samples, out of the
	 * file. (Moved onto another record, it is kept: that a sample starts
	 * there is seen when the chunk is read, report/part.c.) */
	size_t chunk0 = index_at + (sizeof(struct dp_rec_index) + truth.side.n * 8) +
			sizeof(struct dp_rec_index);
	uint64_t v;
	memcpy(&v, all + chunk0 + 8, 8);
	assert_int_equal(v, truth.chunks.v[1]);
	const uint64_t bad[] = {v - 4, truth.chunks.v[0], index_at, len, UINT64_MAX - 7};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(all + chunk0 + 8, &bad[i], 8);
		rehash(all, len, index_at);
		spit(copy, all, len);
		p = dp_profile_open(copy, &err);
		assert_non_null(p);
		refused += !dp_profile_stored_index(p, &m);
		dp_profile_close(p);
	}
	/* and a side-band offset (the warning after sample 0, the 4th record
	 * not a sample) moved onto sample 0, still in order */
	memcpy(all + chunk0 + 8, &v, 8);
	size_t side3 = index_at + sizeof(struct dp_rec_index) + 3 * 8;
	uint64_t s3;
	memcpy(&s3, all + side3, 8);
	assert_true(s3 > truth.chunks.v[0] && truth.chunks.v[0] > truth.side.v[2]);
	memcpy(all + side3, &truth.chunks.v[0], 8);
	rehash(all, len, index_at);
	spit(copy, all, len);
	p = dp_profile_open(copy, &err);
	refused += !dp_profile_stored_index(p, &m);
	dp_profile_close(p);
	memcpy(all + side3, &s3, 8);
	assert_int_equal(refused, sizeof(bad) / sizeof(bad[0]) + 1);
	rehash(all, len, index_at);
	spit(copy, all, len);
	assert_true(index_refused_or_true(copy, &truth));
	p = dp_profile_open(copy, &err);
	assert_true(dp_profile_stored_index(p, &m));
	dp_profile_close(p);
	walked_free(&truth);
	free(all);
	free(path);
	free(copy);
}

/* A series' index is its files', in series positions, each chunk with the
 * number of its first sample in the series. One file without an index:
 * the series has none. */
static void test_series_index(void **state)
{
	char *a = write_profile("s.0.dprof", 0, 1500, "0"),
	     *b = write_profile("s.1.dprof", 1500, 2100, "1");
	char spec[512];
	dp_error err;
	dp_profile *p;
	dp_profile_map m;
	const uint64_t want_seq[] = {0, 1024, 1500, 2524, 3548};

	(void)state;
	snprintf(spec, sizeof(spec), "%s" DP_PROFILE_SPEC_SEP "%s", a, b);
	p = dp_profile_open(spec, &err);
	assert_non_null(p);
	assert_true(dp_profile_stored_index(p, &m));
	assert_int_equal(m.nchunks, 5);
	assert_int_equal(m.samples, 3600);
	assert_non_null(m.seq);
	for (size_t c = 0; c < m.nchunks; c++) {
		assert_int_equal(m.seq[c], want_seq[c]);
		assert_int_equal(synth_sample_ip_at(p, m.chunks[c]), IP0 + want_seq[c]);
	}
	dp_profile_close(p);

	size_t len;
	char *all = slurp(b, &len);
	spit(b, all, len - 8); /* the second file's index cut */
	p = dp_profile_open(spec, &err);
	assert_non_null(p);
	assert_false(dp_profile_stored_index(p, &m));
	dp_profile_close(p);
	free(all);
	free(a);
	free(b);
}

/* A file copied record by record (dataprof's own rewriting) gets an index
 * of its own offsets: the reader never hands out the original's. */
static void test_copy_gets_its_own_index(void **state)
{
	char *path = write_profile("orig.dprof", 0, 1100, NULL), *copy = tu_path("copied.dprof");
	dp_error err;
	dp_profile *p = dp_profile_open(path, &err), *q;
	dp_writer w;
	dp_record r;
	dp_profile_map m;
	walked truth = {0};

	(void)state;
	assert_int_equal(dp_writer_open(&w, copy, 1000, 2000, &err), 0);
	dp_writer_add_meta(&w, "extra", "shifts every offset"); /* before the copies */
	while (dp_profile_next(p, &r) > 0)
		dp_writer_add(&w, dp_profile_record_bytes(p, &r), r.size);
	assert_int_equal(dp_writer_close(&w), 0);
	dp_profile_close(p);
	q = dp_profile_open(copy, &err);
	assert_non_null(q);
	assert_true(dp_profile_stored_index(q, &m));
	walk(q, &truth);
	assert_true(same_map(&m, &truth));
	walked_free(&truth);
	dp_profile_close(q);
	free(path);
	free(copy);
}

TU_MAIN(NULL, tu_teardown, test_index_is_what_a_walk_finds, test_damaged_index_is_refused,
	test_series_index, test_copy_gets_its_own_index)
