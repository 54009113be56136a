/* The raw profile: what the writer writes, the reader reads back, and any
 * prefix of a file is a valid profile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dataprof/profile.h"
#include "profile/writer.h"
#include "synth_records.h"
#include "tu.h"
#include "tu_group.h"

static struct perf_event_attr attr(void)
{
	return synth_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
			  SYNTH_PF_SAMPLE_TYPE | PERF_SAMPLE_REGS_USER);
}

/* Writes a profile of nsamples samples; returns its path. */
static char *write_profile(const char *name, int nsamples, bool finish)
{
	char *path = tu_path(name);
	struct perf_event_attr a = attr();
	uint64_t ids[2] = {501, 502}, regs[20] = {0};
	dp_writer w;
	dp_error err;
	dp_buf b = {0};

	assert_int_equal(dp_writer_open(&w, path, 1000, 2000, &err), 0);
	dp_writer_add_meta(&w, "cmdline", "test");
	dp_writer_add_event(&w, 0, "page-faults", &a, DP_IP_EXACT, DP_EVC_MEMORY, ids, 2);
	for (int i = 0; i < nsamples; i++) {
		b.len = 0;
		regs[0] = (uint64_t)i;
		synth_sample(&b, &a, ids[i & 1], 0x400000 + (uint64_t)i, 42, 43,
			     5000 + (uint64_t)i, 0x10000 + 4096 * (uint64_t)i, 0, 1, 0, 0, regs,
			     NULL, 0);
		dp_writer_add(&w, b.p, b.len);
		if (i % 7 == 0)
			assert_int_equal(dp_writer_flush(&w), 0);
	}
	if (finish)
		synth_finish(&w, (uint64_t)nsamples);
	assert_int_equal(dp_writer_close(&w), 0);
	dp_buf_free(&b);
	return path;
}

static void test_round_trip(void **state)
{
	char *path = write_profile("rt.dprof", 50, true);
	dp_error err;
	dp_profile *p = dp_profile_open(path, &err);
	dp_record r;
	size_t nev, n = 0;

	(void)state;
	assert_non_null(p);
	const dp_event_info *ev = dp_profile_events(p, &nev);
	assert_int_equal(nev, 1);
	assert_string_equal(ev[0].name, "page-faults");
	assert_int_equal(ev[0].ip_sem, DP_IP_EXACT);
	assert_int_equal(ev[0].evclass, DP_EVC_MEMORY);
	assert_string_equal(dp_profile_meta(p, "cmdline"), "test");
	while (dp_profile_next(p, &r) > 0) {
		if (r.kind != DP_R_SAMPLE)
			continue;
		assert_int_equal(r.sample->ip, 0x400000 + n);
		assert_int_equal(r.sample->addr, 0x10000 + 4096 * n);
		assert_int_equal(r.sample->regs_user.regs[0], n);
		assert_int_equal(r.sample->event, 0);
		n++;
	}
	assert_int_equal(n, 50);
	assert_true(dp_profile_status(p)->finished);
	assert_int_equal(dp_profile_status(p)->truncated_at, 0);
	/* a second pass gives the same */
	dp_profile_rewind(p);
	n = 0;
	while (dp_profile_next(p, &r) > 0)
		n += r.kind == DP_R_SAMPLE;
	assert_int_equal(n, 50);
	dp_profile_close(p);
	free(path);
}

/* Cutting the file at every byte leaves a readable profile of the records
 * before the cut, and says where the cut record began. */
static void test_every_prefix(void **state)
{
	char *path = write_profile("full.dprof", 20, true), *cut = tu_path("cut.dprof");
	FILE *f = fopen(path, "rb");
	struct stat sb;
	char *all;
	size_t boundaries = 0, full_samples = 20;

	(void)state;
	stat(path, &sb);
	all = malloc((size_t)sb.st_size);
	assert_int_equal(fread(all, 1, (size_t)sb.st_size, f), (size_t)sb.st_size);
	fclose(f);
	for (off_t len = DP_FILE_HEADER_SIZE; len <= sb.st_size; len++) {
		FILE *o = fopen(cut, "wb");
		dp_error err;
		dp_profile *p;
		dp_record r;
		size_t samples = 0;
		int rc;

		fwrite(all, 1, (size_t)len, o);
		fclose(o);
		p = dp_profile_open(cut, &err);
		assert_non_null(p);
		while ((rc = dp_profile_next(p, &r)) > 0)
			samples += r.kind == DP_R_SAMPLE;
		assert_int_equal(rc, 0);
		const dp_read_status *st = dp_profile_status(p);
		if (st->truncated_at == 0)
			boundaries++;
		else
			assert_true(st->truncated_at < (uint64_t)len);
		assert_true(samples <= full_samples);
		if (len == sb.st_size) {
			assert_int_equal(samples, full_samples);
			assert_true(st->finished);
		}
		dp_profile_close(p);
	}
	assert_true(boundaries > 20);
	free(all);
	free(path);
	free(cut);
}

static void test_corrupt_size(void **state)
{
	char *path = write_profile("bad.dprof", 10, true);
	FILE *f = fopen(path, "r+b");
	dp_error err;
	dp_profile *p;
	dp_record r;
	uint64_t last_good = 0, bad_at = 0;
	int rc;
	size_t samples = 0;

	(void)state;
	/* find the 5th sample and zero its size */
	p = dp_profile_open(path, &err);
	while (dp_profile_next(p, &r) > 0)
		if (r.kind == DP_R_SAMPLE && ++samples == 5)
			bad_at = r.offset;
	dp_profile_close(p);
	fseek(f, (long)bad_at + 6, SEEK_SET);
	fputc(0, f);
	fputc(0, f);
	fclose(f);
	p = dp_profile_open(path, &err);
	samples = 0;
	while ((rc = dp_profile_next(p, &r)) > 0) {
		samples += r.kind == DP_R_SAMPLE;
		last_good = r.offset;
	}
	assert_int_equal(rc, -1);
	assert_int_equal(samples, 4);
	assert_true(last_good < bad_at);
	char want[64];
	snprintf(want, sizeof(want), "offset %llu", (unsigned long long)bad_at);
	assert_non_null(strstr(dp_profile_status(p)->error, want));
	dp_profile_close(p);
	free(path);
}

/* A write that fails midway (file size limit: EFBIG, as a full disk gives
 * ENOSPC) leaves the file cut at a record boundary. */
static void test_disk_full(void **state)
{
	char *path = tu_path("full-disk.dprof");
	struct perf_event_attr a = attr();
	struct rlimit old, lim;
	uint64_t regs[20] = {0}, id = 9;
	dp_writer w;
	dp_error err;
	dp_buf b = {0};
	int failed_at = -1;

	(void)state;
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 3000;
	setrlimit(RLIMIT_FSIZE, &lim);
	assert_int_equal(dp_writer_open(&w, path, 0, 0, &err), 0);
	dp_writer_add_event(&w, 0, "page-faults", &a, DP_IP_EXACT, DP_EVC_MEMORY, &id, 1);
	for (int i = 0; i < 100 && failed_at < 0; i++) {
		b.len = 0;
		synth_sample(&b, &a, id, 1, 2, 3, 4, 5, 0, 1, 0, 0, regs, NULL, 0);
		dp_writer_add(&w, b.p, b.len);
		dp_writer_add(&w, b.p, b.len); /* two per flush: one may fit, one not */
		if (dp_writer_flush(&w) < 0)
			failed_at = i;
	}
	setrlimit(RLIMIT_FSIZE, &old);
	assert_true(failed_at > 0);
	assert_true(w.failed);
	dp_writer_close(&w);

	struct stat sb;
	stat(path, &sb);
	assert_true(sb.st_size <= 3000);
	dp_profile *p = dp_profile_open(path, &err);
	dp_record r;
	size_t samples = 0;
	assert_non_null(p);
	while (dp_profile_next(p, &r) > 0)
		samples += r.kind == DP_R_SAMPLE;
	assert_int_equal(dp_profile_status(p)->truncated_at, 0);
	assert_true(samples >= 2 * (size_t)failed_at);
	dp_profile_close(p);
	dp_buf_free(&b);
	free(path);
}

static void test_not_a_profile(void **state)
{
	char *path = tu_path("text.txt");
	FILE *f = fopen(path, "w");
	dp_error err;

	(void)state;
	fputs("hello, this is not a profile at all, and it is long enough to have a header\n", f);
	fclose(f);
	assert_null(dp_profile_open(path, &err));
	assert_non_null(strstr(err.msg, "not a dataprof profile"));
	assert_null(dp_profile_open("/nonexistent/x.dprof", &err));
	assert_non_null(strstr(err.msg, "cannot open profile"));
	free(path);
}

TU_MAIN(NULL, tu_teardown, test_round_trip, test_every_prefix, test_corrupt_size, test_disk_full,
	test_not_a_profile)
