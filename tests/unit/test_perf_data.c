/* Reading perf.data files: every file of tests/data/perf-data (recorded by
 * others on real hardware) gives what perf 6.1 counts in it (README.md
 * there); hand-made files test compressed records, corruption and limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "dataprof/profile.h"
#include "synth_records.h"
#include "tu.h"
#include "tu_group.h"

#define PERF_DATA_DIR DATA_DIR "/perf-data"

/* perf's own record types */
enum {
	T_ATTR = 64,
	T_EVENT_TYPE = 65,
	T_FINISHED_ROUND = 68,
	T_ID_INDEX = 69,
	T_THREAD_MAP = 73,
	T_CPU_MAP = 74,
	T_EVENT_UPDATE = 78,
	T_TIME_CONV = 79,
	T_FEATURE = 80,
	T_COMPRESSED = 81,
	T_FINISHED_INIT = 82,
	T_COMPRESSED2 = 83,
};

typedef struct tcount {
	uint32_t type;
	uint64_t n;
} tcount;

typedef struct expect {
	const char *file;
	dp_profile_format fmt;
	uint64_t records, samples;
	tcount types[20]; /* per record type, as perf report -D counts them */
	const char *events[8];
	uint64_t per_event[8];
	uint64_t lost_samples, throttles;
	const char *error; /* reading stops with this in the message */
	/* per event, as perf report --stats (6.1) counts LOST_SAMPLES records,
	 * each of one lost sample (perf report -D: "lost samples :1") */
	uint64_t lost_per_event[8];
} expect;

/* The "perf 6.1 reads" column of tests/data/README.md, with the
 * per-type counts of `perf report -D` (6.1) on the same files. */
/* clang-format off */
static const expect files[] = {
	{"quipper-weight_struct.data", DP_FMT_PERF_FILE, 12964, 14,
	 {{PERF_RECORD_MMAP, 15}, {PERF_RECORD_COMM, 2959}, {PERF_RECORD_EXIT, 59},
	  {PERF_RECORD_FORK, 2955}, {PERF_RECORD_SAMPLE, 14}, {PERF_RECORD_MMAP2, 6930},
	  {T_FINISHED_ROUND, 30}, {T_THREAD_MAP, 1}, {T_TIME_CONV, 1}},
	 {"MEM_TRANS_RETIRED.LOAD_LATENCY:ldlat=64:precise=2:mh:mg:pinned", "dummy:HG"},
	 {14, 0}},
	{"perfparser-vector_static_gcc.data", DP_FMT_PERF_FILE, 209, 45,
	 {{PERF_RECORD_MMAP, 141}, {PERF_RECORD_COMM, 2}, {PERF_RECORD_EXIT, 1},
	  {PERF_RECORD_SAMPLE, 45}, {PERF_RECORD_MMAP2, 13}, {T_FINISHED_ROUND, 4},
	  {T_THREAD_MAP, 1}, {T_CPU_MAP, 1}, {T_TIME_CONV, 1}},
	 {"cycles"}, {45}},
	{"perfparser-vector_static_gcc.lbr.data", DP_FMT_PERF_FILE, 38, 29,
	 {{PERF_RECORD_COMM, 2}, {PERF_RECORD_EXIT, 1}, {PERF_RECORD_SAMPLE, 29},
	  {PERF_RECORD_MMAP2, 2}, {T_FINISHED_ROUND, 1}, {T_THREAD_MAP, 1}, {T_CPU_MAP, 1},
	  {T_TIME_CONV, 1}},
	 {"cycles"}, {29}},
	/* perf counts the 7 COMPRESSED records and the 396 records inside them */
	{"perfparser-parallel_static_gcc.zstd.data", DP_FMT_PERF_FILE, 548, 242,
	 {{PERF_RECORD_MMAP, 140}, {PERF_RECORD_COMM, 2}, {PERF_RECORD_EXIT, 25},
	  {PERF_RECORD_FORK, 24}, {PERF_RECORD_SAMPLE, 242}, {PERF_RECORD_MMAP2, 62},
	  {PERF_RECORD_SWITCH, 42}, {T_FINISHED_ROUND, 1}, {T_THREAD_MAP, 1}, {T_CPU_MAP, 1},
	  {T_TIME_CONV, 1}, {T_COMPRESSED, 7}},
	 {"cycles", "sched:sched_switch"}, {233, 9}},
	/* perf 6.1 stops at COMPRESSED2 (type 83, perf 6.16). Our reading: 510
	 * records in the file, 146 of them COMPRESSED2, whose zstd stream holds
	 * 1419 more: the counts `zstd -d` on the concatenated payloads gives. */
	{"mstange-fibo.compressed2.pipe.data", DP_FMT_PERF_PIPE, 1929, 547,
	 {{PERF_RECORD_MMAP, 165}, {PERF_RECORD_COMM, 23}, {PERF_RECORD_EXIT, 17},
	  {PERF_RECORD_FORK, 19}, {PERF_RECORD_SAMPLE, 547}, {PERF_RECORD_MMAP2, 814},
	  {PERF_RECORD_KSYMBOL, 21}, {PERF_RECORD_BPF_EVENT, 21}, {T_ATTR, 2},
	  {T_FEATURE, 23}, {T_ID_INDEX, 1}, {T_EVENT_UPDATE, 3}, {T_THREAD_MAP, 1},
	  {T_CPU_MAP, 1}, {T_FINISHED_INIT, 1}, {T_COMPRESSED2, 146}, {T_FINISHED_ROUND, 124}},
	 {"cycles:P", "dummy:u"}, {547, 0}},
	{"quipper-lost_samples-4.4.data", DP_FMT_PERF_FILE, 243, 191,
	 {{PERF_RECORD_MMAP, 39}, {PERF_RECORD_COMM, 3}, {PERF_RECORD_EXIT, 1},
	  {PERF_RECORD_SAMPLE, 191}, {PERF_RECORD_MMAP2, 6}, {PERF_RECORD_LOST_SAMPLES, 2},
	  {T_FINISHED_ROUND, 1}},
	 {"cycles:pp", "instructions:pp", "branch-instructions:pp"}, {97, 80, 14}, 2, 0, NULL,
	 {1, 0, 1}},
	/* No names in this pipe file (perf 4.4 wrote no EVENT_UPDATE): perf 6.1
	 * shows "cycles:ppH" (exclude_guest); ours come from the attr alone. */
	{"quipper-piped.lost_samples-4.4.data", DP_FMT_PERF_PIPE, 246, 191,
	 {{PERF_RECORD_MMAP, 39}, {PERF_RECORD_COMM, 3}, {PERF_RECORD_EXIT, 1},
	  {PERF_RECORD_SAMPLE, 191}, {PERF_RECORD_MMAP2, 6}, {PERF_RECORD_LOST_SAMPLES, 2},
	  {T_ATTR, 3}, {T_FINISHED_ROUND, 1}},
	 {"cycles:pp", "instructions:pp", "branches:pp"}, {98, 79, 14}, 2, 0, NULL,
	 {0, 1, 1}},
	{"quipper-group_desc-4.14.data", DP_FMT_PERF_FILE, 50, 13,
	 {{PERF_RECORD_MMAP, 21}, {PERF_RECORD_COMM, 3}, {PERF_RECORD_EXIT, 1},
	  {PERF_RECORD_SAMPLE, 13}, {PERF_RECORD_MMAP2, 10}, {T_FINISHED_ROUND, 1},
	  {T_TIME_CONV, 1}},
	 {"cache-references", "branch-misses"}, {7, 6}},
	{"quipper-hybrid_topology.data", DP_FMT_PERF_FILE, 124, 7,
	 {{PERF_RECORD_MMAP, 100}, {PERF_RECORD_COMM, 3}, {PERF_RECORD_EXIT, 1},
	  {PERF_RECORD_SAMPLE, 7}, {PERF_RECORD_MMAP2, 7}, {T_FINISHED_ROUND, 1},
	  {T_THREAD_MAP, 1}, {T_CPU_MAP, 1}, {T_EVENT_UPDATE, 2}, {T_TIME_CONV, 1}},
	 {"cpu_core/cycles:ppp/", "cpu_atom/cycles:ppp/", "dummy:HG"}, {7, 0, 0}},
	{"quipper-piped.header_features_aligned-6.12.data", DP_FMT_PERF_PIPE, 45, 9,
	 {{PERF_RECORD_COMM, 2}, {PERF_RECORD_EXIT, 1}, {PERF_RECORD_SAMPLE, 9},
	  {PERF_RECORD_MMAP2, 4}, {T_ATTR, 1}, {T_FINISHED_ROUND, 1}, {T_ID_INDEX, 1},
	  {T_THREAD_MAP, 1}, {T_CPU_MAP, 1}, {T_EVENT_UPDATE, 2}, {T_TIME_CONV, 1},
	  {T_FEATURE, 20}, {T_FINISHED_INIT, 1}},
	 {"cycles:u"}, {9}},
	{"quipper-callgraph-3.8.data", DP_FMT_PERF_FILE, 3798, 1768,
	 {{PERF_RECORD_MMAP, 1793}, {PERF_RECORD_COMM, 229}, {PERF_RECORD_EXIT, 6},
	  {PERF_RECORD_FORK, 2}, {PERF_RECORD_SAMPLE, 1768}},
	 {"cycles"}, {1768}},
	{"quipper-forkexit-3.8.data", DP_FMT_PERF_FILE, 15464, 10335,
	 {{PERF_RECORD_MMAP, 3877}, {PERF_RECORD_COMM, 488}, {PERF_RECORD_EXIT, 510},
	  {PERF_RECORD_FORK, 254}, {PERF_RECORD_SAMPLE, 10335}},
	 {"cycles"}, {10335}},
	{"quipper-throttle-3.8.data", DP_FMT_PERF_FILE, 17001, 14980,
	 {{PERF_RECORD_MMAP, 1653}, {PERF_RECORD_COMM, 230}, {PERF_RECORD_EXIT, 4},
	  {PERF_RECORD_THROTTLE, 68}, {PERF_RECORD_UNTHROTTLE, 64}, {PERF_RECORD_FORK, 2},
	  {PERF_RECORD_SAMPLE, 14980}},
	 {"cycles", "instructions"}, {9036, 5944}, 0, 68},
	{"quipper-i686-3.4.data", DP_FMT_PERF_FILE, 2499, 703,
	 {{PERF_RECORD_MMAP, 1584}, {PERF_RECORD_COMM, 204}, {PERF_RECORD_EXIT, 6},
	  {PERF_RECORD_FORK, 2}, {PERF_RECORD_SAMPLE, 703}},
	 {"cycles", "instructions", "cache-references", "cache-misses", "branches",
	  "branch-misses"},
	 {147, 155, 116, 89, 95, 101}},
	/* a record of size 0 at 49104 (perf 6.1: "bad event header size"); the
	 * 570 records before it are read */
	{"quipper-piped.corrupted.zero_size_sample-3.2.data", DP_FMT_PERF_PIPE, 570, 0,
	 {{PERF_RECORD_MMAP, 468}, {PERF_RECORD_COMM, 100}, {T_ATTR, 1}, {T_EVENT_TYPE, 1}},
	 {"cycles"}, {0}, .error = "offset 49104"},
};
/* clang-format on */

static char *data_path(const char *name)
{
	return dp_asprintf("%s/%s", PERF_DATA_DIR, name);
}

/* Opens a file of tests/data/perf-data; a missing one fails the test with
 * its name */
static dp_profile *data_open(const char *path)
{
	dp_error err = {{0}};
	dp_profile *p = dp_profile_open(path, &err);

	if (!p)
		fail_msg("test input %s: %s", path, err.msg);
	return p;
}

/* A whole file of tests/data/perf-data, in a buffer */
static void data_read(const char *name, dp_buf *all)
{
	char *rel = dp_asprintf("perf-data/%s", name);

	all->p = tu_data_read(rel, &all->len);
	all->cap = all->len;
	free(rel);
}

/* Reads a profile to its end; returns dp_profile_next's last answer and
 * counts records by type. */
static int read_all(dp_profile *p, uint64_t *by_type, size_t ntypes)
{
	dp_record r;
	int rc;

	if (by_type)
		memset(by_type, 0, ntypes * sizeof(*by_type));
	while ((rc = dp_profile_next(p, &r)) > 0) {
		size_t nev;

		if (by_type && r.type < ntypes)
			by_type[r.type]++;
		dp_profile_events(p, &nev);
		if (r.kind == DP_R_SAMPLE)
			assert_true(r.sample->event < nev);
	}
	return rc;
}

static void check_file(const expect *e)
{
	char *path = data_path(e->file);
	dp_error err = {{0}};
	dp_profile *p = dp_profile_open(path, &err);
	uint64_t by_type[128], total = 0;
	size_t nev;

	if (!p)
		fail_msg("test input %s: %s", path, err.msg);
	for (int pass = 0; pass < 2; pass++) {
		int rc = read_all(p, by_type, 128);
		const dp_read_status *st = dp_profile_status(p);
		const dp_event_info *ev = dp_profile_events(p, &nev);

		printf("%s: %llu records, %llu samples%s%s\n", e->file,
		       (unsigned long long)st->records, (unsigned long long)st->samples,
		       rc < 0 ? ", error: " : "", rc < 0 ? st->error : "");
		assert_int_equal(st->format, e->fmt);
		assert_int_equal(rc, e->error ? -1 : 0);
		if (e->error)
			assert_non_null(strstr(st->error, e->error));
		assert_int_equal(st->records, e->records);
		assert_int_equal(st->samples, e->samples);
		total = 0;
		for (size_t i = 0; i < DP_ARRAY_LEN(e->types) && e->types[i].type; i++) {
			if (by_type[e->types[i].type] != e->types[i].n)
				fail_msg("%s: %llu records of type %u, perf says %llu", e->file,
					 (unsigned long long)by_type[e->types[i].type],
					 e->types[i].type, (unsigned long long)e->types[i].n);
			total += e->types[i].n;
		}
		assert_int_equal(total, e->records); /* no type left out */
		for (size_t i = 0; i < DP_ARRAY_LEN(e->events) && e->events[i]; i++) {
			assert_true(i < nev);
			assert_string_equal(ev[i].name, e->events[i]);
			assert_int_equal(ev[i].samples, e->per_event[i]);
		}
		assert_int_equal(st->lost_samples, e->lost_samples);
		assert_int_equal(st->lost, 0);
		{
			/* per event; no CPU in these files' sample_id (IP TID TIME ID PERIOD) */
			size_t nl;
			const dp_lost_count *l = dp_profile_lost(p, &nl);
			uint64_t got[8] = {0}, sum = 0;

			for (size_t i = 0; i < nl; i++) {
				assert_true(l[i].event < 8);
				assert_int_equal(l[i].cpu, -1);
				got[l[i].event] += l[i].count;
				sum += l[i].count;
			}
			assert_int_equal(sum, st->lost + st->lost_samples);
			for (size_t i = 0; i < 8; i++)
				if (e->lost_samples && got[i] != e->lost_per_event[i])
					fail_msg("%s: %llu lost on event %zu, perf says %llu",
						 e->file, (unsigned long long)got[i], i,
						 (unsigned long long)e->lost_per_event[i]);
		}
		assert_int_equal(st->throttles, e->throttles);
		assert_int_equal(st->unknown_records, 0);
		assert_int_equal(st->bad_samples, 0);
		assert_int_equal(st->truncated_at, 0);
		dp_profile_rewind(p); /* the second pass reads the same */
	}
	dp_profile_close(p);
	free(path);
}

static void test_every_shared_file(void **state)
{
	DIR *d = opendir(PERF_DATA_DIR);
	struct dirent *de;

	(void)state;
	if (!d)
		fail_msg("test inputs %s: %s (see tests/data/README.md)", PERF_DATA_DIR,
			 strerror(errno));
	/* no file without its expectations */
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		const expect *e = NULL;

		if (len < 5 || strcmp(de->d_name + len - 5, ".data"))
			continue;
		for (size_t i = 0; i < DP_ARRAY_LEN(files); i++)
			if (!strcmp(files[i].file, de->d_name))
				e = &files[i];
		if (!e)
			fail_msg("%s: a perf.data file with no expectations in this test",
				 de->d_name);
	}
	closedir(d);
	/* and every expected file there (check_file names a missing one) */
	for (size_t i = 0; i < DP_ARRAY_LEN(files); i++)
		check_file(&files[i]);
}

/* Header features: metadata, names, IP semantics, build-ids. */
static void test_features(void **state)
{
	char *path = data_path("quipper-weight_struct.data");
	dp_profile *p = data_open(path);
	const dp_build_id *b;
	size_t nev, nb;
	const dp_event_info *ev;

	(void)state;
	assert_non_null(p);
	assert_string_equal(dp_profile_meta(p, "hostname"), "oxco15.prod.google.com");
	assert_string_equal(dp_profile_meta(p, "kernel"), "4.15.0-smp-923.44.0.0");
	assert_string_equal(dp_profile_meta(p, "perf_version"), "5.17.0-3-GOOGLE-g92ebf5f91b4d");
	assert_string_equal(dp_profile_meta(p, "arch"), "x86_64");
	assert_string_equal(dp_profile_meta(p, "ncpus"), "112");
	assert_string_equal(dp_profile_meta(p, "cpu"),
			    "Intel(R) Xeon(R) Platinum 8173M CPU @ 2.00GHz");
	assert_string_equal(dp_profile_meta(p, "cpuid"), "GenuineIntel,6,85,4");
	assert_string_equal(dp_profile_meta(p, "clock"), "perf_clock");
	assert_non_null(strstr(dp_profile_meta(p, "cmdline"), "/usr/bin/perf5 record -a -c 10009"));
	assert_null(dp_profile_meta(p, "version")); /* dataprof's own */
	assert_int_equal(dp_profile_header(p)->arch, DP_ARCH_X86_64);
	ev = dp_profile_events(p, &nev);
	assert_int_equal(nev, 2);
	/* a precise load-latency event: the IP is the load, registers after it */
	assert_int_equal(ev[0].ip_sem, DP_IP_EXACT_AFTER);
	assert_int_equal(ev[0].evclass, DP_EVC_LOAD);
	assert_int_equal(ev[0].attr.precise_ip, 2);
	assert_int_equal(ev[1].evclass, DP_EVC_NONE);
	/* the same 95 as perf buildid-list, in its order */
	nb = dp_profile_build_ids(p, &b);
	assert_int_equal(nb, 95);
	assert_string_equal(b[0].filename, "/bin/bash");
	assert_int_equal(b[0].pid, -1);
	assert_int_equal(b[0].cpumode, PERF_RECORD_MISC_USER);
	assert_int_equal(b[0].id[0], 0x74);
	assert_int_equal(b[0].id[1], 0x5c);
	dp_profile_close(p);
	free(path);

	/* pipe mode: features arrive as records, names as EVENT_UPDATE */
	path = data_path("mstange-fibo.compressed2.pipe.data");
	p = data_open(path);
	assert_string_equal(dp_profile_meta(p, "clock"), "CLOCK_MONOTONIC"); /* perf -k */
	assert_string_equal(dp_profile_meta(p, "perf_version"), "6.16-1");
	ev = dp_profile_events(p, &nev);
	assert_string_equal(ev[0].name, "cycles:P");
	assert_int_equal(ev[0].evclass, DP_EVC_TIME);
	dp_profile_close(p);
	free(path);
}

/* quipper-weight_struct.expected.txt: per sample (in time order) tid,
 * addr, data_src, decoded data_src, weight, ip. */
static int by_time(const void *a, const void *b)
{
	const dp_sample *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

static void test_weight_struct_samples(void **state)
{
	char *path = data_path("quipper-weight_struct.data");
	char *txt = data_path("quipper-weight_struct.expected.txt");
	dp_profile *p = data_open(path);
	dp_sample s[32];
	size_t n = 0, user = 0, lines = 0;
	dp_record r;
	char line[512];
	FILE *f = fopen(txt, "r");

	(void)state;
	if (!f)
		fail_msg("test input %s: %s", txt, strerror(errno));
	while (dp_profile_next(p, &r) > 0)
		if (r.kind == DP_R_SAMPLE) {
			assert_true(n < DP_ARRAY_LEN(s));
			s[n++] = *r.sample;
			user += (r.sample->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
				PERF_RECORD_MISC_USER;
		}
	assert_int_equal(n, 14);
	assert_int_equal(user, 5);
	qsort(s, n, sizeof(s[0]), by_time);
	while (fgets(line, sizeof(line), f)) {
		unsigned tid;
		unsigned long long addr, src, weight, ip;
		char *tok[64];
		size_t nt = 0;

		for (char *t = strtok(line, " \n"); t && nt < 64; t = strtok(NULL, " \n"))
			tok[nt++] = t;
		assert_true(nt >= 5);
		tid = (unsigned)strtoul(tok[0], NULL, 10);
		addr = strtoull(tok[1], NULL, 16);
		src = strtoull(tok[2], NULL, 16);
		weight = strtoull(tok[nt - 2], NULL, 10);
		ip = strtoull(tok[nt - 1], NULL, 16);
		assert_true(lines < n);
		assert_int_equal(s[lines].tid, tid);
		assert_int_equal(s[lines].addr, addr);
		assert_int_equal(s[lines].data_src, src);
		assert_int_equal(s[lines].weight, weight);
		assert_int_equal(s[lines].ip, ip);
		assert_true(s[lines].sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
		lines++;
	}
	assert_int_equal(lines, 14);
	fclose(f);
	dp_profile_close(p);
	free(path);
	free(txt);
}

/* ---- hand-made pipe files ---- */

static struct perf_event_attr sample_attr(void)
{
	return synth_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
			  PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			      PERF_SAMPLE_PERIOD);
}

static void add_record(dp_buf *b, uint32_t type, const void *payload, size_t len)
{
	struct perf_event_header h = {type, 0, (uint16_t)(sizeof(h) + len)};

	dp_buf_add(b, &h, sizeof(h));
	dp_buf_add(b, payload, len);
}

/* A pipe header and one HEADER_ATTR record. */
static void pipe_start(dp_buf *b)
{
	struct perf_event_attr a = sample_attr();
	uint64_t size = 16, id = 7;
	uint8_t rec[sizeof(a) + 8];

	dp_buf_add(b, "PERFILE2", 8);
	dp_buf_add(b, &size, 8);
	memcpy(rec, &a, sizeof(a));
	memcpy(rec + sizeof(a), &id, 8);
	add_record(b, T_ATTR, rec, sizeof(rec));
}

static void samples(dp_buf *b, int n)
{
	struct perf_event_attr a = sample_attr();
	dp_buf tmp = {0}; /* synth_sample needs an aligned buffer; b may not be */

	for (int i = 0; i < n; i++)
		synth_sample(&tmp, &a, 0, 0x400000 + (uint64_t)i, 1, 2, 1000 + (uint64_t)i,
			     0x10000 + (uint64_t)i * 4096, 0, 1, 0, 0, NULL, NULL, 0);
	dp_buf_add(b, tmp.p, tmp.len);
	dp_buf_free(&tmp);
}

static char *write_file(const char *name, const void *data, size_t len)
{
	char *path = tu_path(name);
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	return path;
}

/* Compresses stream as one zstd stream (as perf record -z does: flushed,
 * never ended) into compressed records whose payloads are cut every `cut`
 * bytes, so that records straddle them. */
static void compress_into(dp_buf *b, const dp_buf *stream, size_t cut, bool v2)
{
	ZSTD_CStream *zc = ZSTD_createCStream();
	dp_buf z = {0};
	ZSTD_inBuffer in = {stream->p, stream->len, 0};

	ZSTD_initCStream(zc, 1);
	dp_buf_reserve(&z, ZSTD_compressBound(stream->len) + 1024);
	ZSTD_outBuffer out = {z.p, z.cap, 0};
	while (in.pos < in.size)
		assert_false(ZSTD_isError(ZSTD_compressStream(zc, &out, &in)));
	assert_int_equal(ZSTD_flushStream(zc, &out), 0);
	z.len = out.pos;
	for (size_t at = 0; at < z.len; at += cut) {
		size_t n = DP_MIN(cut, z.len - at);

		if (v2) {
			/* COMPRESSED2: data_size, data, padding to 8 */
			uint8_t pad[8] = {0};
			uint64_t ds = n;
			size_t padded = (16 + n + 7) & ~(size_t)7;
			struct perf_event_header h = {T_COMPRESSED2, 0, (uint16_t)padded};

			dp_buf_add(b, &h, 8);
			dp_buf_add(b, &ds, 8);
			dp_buf_add(b, z.p + at, n);
			dp_buf_add(b, pad, padded - 16 - n);
		} else {
			/* COMPRESSED: unpadded, so what follows is misaligned */
			add_record(b, T_COMPRESSED, z.p + at, n);
		}
	}
	ZSTD_freeCStream(zc);
	dp_buf_free(&z);
}

static void check_compressed(bool v2, size_t cut)
{
	dp_buf b = {0}, stream = {0};
	char *path;
	dp_error err;
	dp_profile *p;
	dp_record r;
	uint64_t n = 0, inner = 0;
	int rc;

	pipe_start(&b);
	samples(&stream, 300);
	compress_into(&b, &stream, cut, v2);
	samples(&b, 2); /* and two uncompressed after them */
	path = write_file("z.data", b.p, b.len);
	p = dp_profile_open(path, &err);
	assert_non_null(p);
	while ((rc = dp_profile_next(p, &r)) > 0) {
		if (r.kind != DP_R_SAMPLE)
			continue;
		assert_int_equal(r.sample->ip, 0x400000 + (n < 300 ? n : n - 300));
		assert_int_equal(r.sample->addr, 0x10000 + 4096 * (n < 300 ? n : n - 300));
		inner += r.decompressed;
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, 302);
	assert_int_equal(inner, 300);
	assert_int_equal(dp_profile_status(p)->truncated_at, 0);
	assert_string_equal(dp_profile_events(p, &(size_t){0})[0].name, "page-faults");
	dp_profile_close(p);
	dp_buf_free(&b);
	dp_buf_free(&stream);
	free(path);
}

/* Records cut across compressed records are put back together, as perf
 * does: the part left at the end of one goes in front of the next. */
static void test_compressed_straddle(void **state)
{
	(void)state;
	check_compressed(false, 37);
	check_compressed(false, 1000);
	check_compressed(true, 5);
	check_compressed(true, 4096);
}

/* A small file cannot make the reader allocate without bound. */
static void test_zstd_bomb(void **state)
{
	dp_buf b = {0}, zeros = {0};
	char *path;
	dp_error err;
	dp_profile *p;
	dp_record r;
	int rc;

	(void)state;
	pipe_start(&b);
	/* 200 MiB of zeros compress to a few KiB; the reader stops at its cap
	 * (64 MiB plus 1000 times the file) before it looks at the records */
	dp_buf_reserve(&zeros, 200u << 20);
	memset(zeros.p, 0, 200u << 20);
	zeros.len = 200u << 20;
	compress_into(&b, &zeros, 60000, true);
	dp_buf_free(&zeros);
	assert_true(b.len < 100000);
	path = write_file("bomb.data", b.p, b.len);
	p = dp_profile_open(path, &err);
	assert_non_null(p);
	while ((rc = dp_profile_next(p, &r)) > 0)
		;
	assert_int_equal(rc, -1);
	assert_non_null(strstr(dp_profile_status(p)->error, "decompressed data beyond"));
	dp_profile_close(p);
	dp_buf_free(&b);
	free(path);
}

static void expect_read_error(const dp_buf *b, const char *msg, uint64_t records_before)
{
	char *path = write_file("bad.data", b->p, b->len);
	dp_error err;
	dp_profile *p = dp_profile_open(path, &err);
	dp_record r;
	int rc;

	assert_non_null(p);
	while ((rc = dp_profile_next(p, &r)) > 0)
		;
	assert_int_equal(rc, -1);
	if (!strstr(dp_profile_status(p)->error, msg))
		fail_msg("error '%s' lacks '%s'", dp_profile_status(p)->error, msg);
	assert_int_equal(dp_profile_status(p)->records, records_before);
	/* errors stay: no loop, no progress past them */
	assert_int_equal(dp_profile_next(p, &r), -1);
	dp_profile_close(p);
	free(path);
}

static void test_corrupt_compressed(void **state)
{
	dp_buf b = {0}, stream = {0};
	uint8_t junk[64];

	(void)state;
	/* not zstd at all */
	pipe_start(&b);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 37 + 1);
	add_record(&b, T_COMPRESSED, junk, sizeof(junk));
	expect_read_error(&b, "zstd:", 2);
	/* a record of size 0 inside the decompressed data, after 3 good ones */
	b.len = 0;
	pipe_start(&b);
	samples(&stream, 3);
	dp_buf_add(&stream, (uint64_t[2]){0, 0}, 16);
	compress_into(&b, &stream, 10000, true);
	expect_read_error(&b, "corrupt record (size 0) at offset", 2 + 3);
	/* COMPRESSED2 claiming more data than it has */
	b.len = 0;
	pipe_start(&b);
	add_record(&b, T_COMPRESSED2, (uint64_t[2]){100, 0}, 16);
	expect_read_error(&b, "data size 100", 2);
	dp_buf_free(&b);
	dp_buf_free(&stream);
}

static void expect_open_error(const void *data, size_t len, const char *msg)
{
	char *path = write_file("refused.data", data, len);
	dp_error err = {{0}};

	assert_null(dp_profile_open(path, &err));
	if (!strstr(err.msg, msg))
		fail_msg("open error '%s' lacks '%s'", err.msg, msg);
	free(path);
}

static void test_refused(void **state)
{
	uint8_t h[128] = {0};
	uint64_t v;

	(void)state;
	memcpy(h, "2ELIFREP", 8);
	expect_open_error(h, sizeof(h), "big-endian");
	memcpy(h, "PERFFILE", 8);
	expect_open_error(h, sizeof(h), "first format");
	memcpy(h, "PERFILE2", 8);
	expect_open_error(h, 12, "too short");
	v = 1u << 30; /* header larger than the file */
	memcpy(h + 8, &v, 8);
	expect_open_error(h, sizeof(h), "corrupt perf.data header");
	/* attributes out of the file */
	v = 104;
	memcpy(h + 8, &v, 8);
	v = 136 + 16;
	memcpy(h + 16, &v, 8);
	v = 1u << 20;
	memcpy(h + 24, &v, 8);
	memcpy(h + 32, &v, 8);
	expect_open_error(h, sizeof(h), "attribute section at offset 1048576");
}

/* Any prefix of a file reads without harm: records before the cut, then
 * the end (truncated_at) or a clear error; never more samples. */
static void check_prefixes(const char *name, size_t step)
{
	dp_buf all = {0};
	uint64_t full = 0;
	size_t n;
	char *cut;

	data_read(name, &all);
	n = all.len;
	cut = write_file("cut.data", all.p, n);
	for (size_t i = 0; i * step <= n; i++) {
		size_t len = n - i * step;
		dp_error err;
		dp_profile *p;
		int rc;

		/* shortened in place: a file rewritten from nothing is written
		 * out at its close (ext4's auto_da_alloc), 21,000 times here */
		assert_int_equal(truncate(cut, (off_t)len), 0);
		p = dp_profile_open(cut, &err);
		if (!p) {
			assert_true(err.msg[0] != 0);
			continue;
		}
		rc = read_all(p, NULL, 0);
		const dp_read_status *st = dp_profile_status(p);
		if (len == n)
			full = st->samples;
		assert_true(st->samples <= full);
		if (rc < 0)
			assert_true(st->error[0] != 0);
		else if (len < n && st->samples < full && st->format == DP_FMT_PERF_FILE)
			/* a pipe cut at a record boundary cannot be told from its end */
			assert_true(st->truncated_at > 0 && st->truncated_at <= len);
		dp_profile_close(p);
	}
	dp_buf_free(&all);
	free(cut);
}

static void test_every_prefix(void **state)
{
	(void)state;
	check_prefixes("quipper-piped.header_features_aligned-6.12.data", 1);
	check_prefixes("quipper-group_desc-4.14.data", 1);
	/* 7 compressed records of about 3 KB: each still cut in 10 places,
	 * each cut inflating all before it again */
	check_prefixes("perfparser-parallel_static_gcc.zstd.data", 293);
}

typedef DP_VEC(uint64_t) dp_u64s;

static bool same_offsets(const uint64_t *a, const uint64_t *b, size_t n)
{
	return !n || !memcmp(a, b, n * sizeof(*a));
}

/* A one-thread walk's chunks hold DP_INDEX_CHUNK samples each. */
static bool seq_regular(const dp_profile_map *m)
{
	for (size_t c = 0; m->seq && c < m->nchunks; c++)
		if (m->seq[c] != c * DP_INDEX_CHUNK)
			return false;
	return true;
}

/* The map opening a perf.data file makes (dp_profile_own_map) is the one a
 * side-band pass with dp_profile_index would make; a compressed file has
 * neither. Returns whether p has one. */
static bool check_own_map(dp_profile *p, const char *name)
{
	dp_profile_map own, walked;
	dp_record r;
	bool has = dp_profile_own_map(p, &own);

	assert_false(dp_profile_stored_index(p, &walked)); /* no file's promise */
	dp_profile_rewind(p);
	dp_profile_skip_samples(p, true);
	dp_profile_index(p, DP_INDEX_CHUNK);
	while (dp_profile_next(p, &r) > 0)
		;
	if (!dp_profile_index_get(p, &walked)) {
		if (has)
			fail_msg("%s: a map at opening, none from a walk", name);
	} else if (!has) {
		fail_msg("%s: no map at opening, one from a walk", name);
	} else if (own.stored || !seq_regular(&own) || own.nside != walked.nside ||
		   own.nchunks != walked.nchunks || own.samples != walked.samples ||
		   !same_offsets(own.side, walked.side, own.nside) ||
		   !same_offsets(own.chunks, walked.chunks, own.nchunks)) {
		fail_msg("%s: the map made at opening (%zu side records, %zu chunks, %" PRIu64
			 " samples) is not the walk's (%zu, %zu, %" PRIu64 ")",
			 name, own.nside, own.nchunks, own.samples, walked.nside, walked.nchunks,
			 walked.samples);
	}
	dp_profile_skip_samples(p, false);
	dp_profile_rewind(p);
	return has;
}

static void test_own_map(void **state)
{
	size_t with = 0;
	dp_error err;

	(void)state;
	for (size_t i = 0; i < DP_ARRAY_LEN(files); i++) {
		char *path = data_path(files[i].file);
		dp_profile *p = data_open(path);

		with += check_own_map(p, files[i].file);
		dp_profile_close(p);
		free(path);
	}
	assert_true(with >= DP_ARRAY_LEN(files) / 2);

	/* a malformed side-band record among the samples: a side-band pass
	 * skips it, so the map must not send a reader there */
	dp_buf b = {0};
	uint64_t junk = 0;
	pipe_start(&b);
	samples(&b, 2000);
	add_record(&b, PERF_RECORD_MMAP, &junk, sizeof(junk)); /* no room for its fields */
	samples(&b, 1500);
	char *path = write_file("badside.data", b.p, b.len);
	dp_profile *p = dp_profile_open(path, &err);
	dp_profile_map m;
	assert_non_null(p);
	assert_true(check_own_map(p, "badside.data"));
	assert_true(dp_profile_own_map(p, &m));
	assert_int_equal(m.samples, 3500);
	assert_int_equal(m.nchunks, 4); /* chunks of 1024 */
	assert_int_equal(m.nside, 1);	/* the HEADER_ATTR, not the MMAP */
	dp_profile_close(p);
	dp_buf_free(&b);
	free(path);
}

/* A second reader opened beside the first (a report's other parts) reads
 * only the records the first's map names as side band, not the whole
 * file (perf's file format; the pipe format is walked whole): it must know
 * the same events, by the same names and attributes, and read the same
 * records. */
static void test_open_beside(void **state)
{
	size_t beside = 0;

	(void)state;
	for (size_t i = 0; i < DP_ARRAY_LEN(files); i++) {
		char *path = data_path(files[i].file);
		dp_profile *p = data_open(path), *q;
		const dp_event_info *ep, *eq;
		size_t np, nq;
		dp_profile_map own;
		dp_record r, s;
		dp_error err;

		if (!dp_profile_own_map(p, &own)) {
			dp_profile_close(p);
			free(path);
			continue;
		}
		dp_profile_open_opts po = {&own, 0};

		q = dp_profile_open_with(path, &po, &err);
		assert_non_null(q);
		beside += files[i].fmt == DP_FMT_PERF_FILE;
		ep = dp_profile_events(p, &np);
		eq = dp_profile_events(q, &nq);
		assert_int_equal(nq, np);
		for (size_t e = 0; e < np; e++) {
			assert_string_equal(eq[e].name, ep[e].name);
			assert_memory_equal(&eq[e].attr, &ep[e].attr, sizeof(ep[e].attr));
		}
		for (;;) {
			int a = dp_profile_next(p, &r), b = dp_profile_next(q, &s);

			assert_int_equal(b, a);
			if (a <= 0)
				break;
			assert_int_equal(s.kind, r.kind);
			assert_int_equal(s.offset, r.offset);
		}
		eq = dp_profile_events(q, &nq);
		for (size_t e = 0; e < np; e++)
			assert_int_equal(eq[e].samples, ep[e].samples);
		dp_profile_close(q);
		dp_profile_close(p);
		free(path);
	}
	assert_true(beside >= 3);
}

/* ---- the opening walk split between threads (profile/perf_scan.h) ---- */

/* A file-mode perf.data of one event, a, whose record stream is the
 * stream_len bytes added next. */
static void file_start(dp_buf *b, const struct perf_event_attr *a, size_t stream_len)
{
	uint64_t attr_size = sizeof(*a) + 16, hdr[13] = {0}, ids[2] = {0, 0};
	uint64_t data_off = DP_ALIGN(sizeof(hdr) + attr_size, 8);
	static const uint8_t zeros[8];

	memcpy(hdr, "PERFILE2", 8);
	hdr[1] = sizeof(hdr); /* the header's size, then attr_size and 3 sections */
	hdr[2] = attr_size;
	hdr[3] = sizeof(hdr);
	hdr[4] = attr_size;
	hdr[5] = data_off;
	hdr[6] = stream_len;
	dp_buf_add(b, hdr, sizeof(hdr));
	dp_buf_add(b, a, sizeof(*a));
	dp_buf_add(b, ids, sizeof(ids));
	dp_buf_add(b, zeros, data_off - b->len);
}

static dp_profile *open_split(const char *path)
{
	dp_profile_open_opts o = {NULL, 4};
	dp_error err = {{0}};
	dp_profile *p;

	setenv("DATAPROF_WALK_SHARE", "4096", 1); /* shares of a page */
	p = dp_profile_open_with(path, &o, &err);
	unsetenv("DATAPROF_WALK_SHARE");
	if (!p)
		fail_msg("%s: %s", path, err.msg);
	return p;
}

/* Chunk c of b, a split walk's map, starts at the sample its seq says:
 * where every sample could be read (their offsets in at), that one; else
 * (a malformed sample is counted, not read) one of the chunk of a, the
 * one-thread walk's map, that holds it, and at its start if that is a's
 * too. */
static bool chunk_agrees(const dp_profile_map *a, const dp_profile_map *b, size_t c,
			 const dp_u64s *at)
{
	uint64_t s = b->seq[c];
	size_t k = s / DP_INDEX_CHUNK;

	if (c && s <= b->seq[c - 1])
		return false;
	if (at->n == a->samples)
		return s < at->n && at->v[s] == b->chunks[c];
	if (k >= a->nchunks)
		return false;
	if (s % DP_INDEX_CHUNK == 0)
		return a->chunks[k] == b->chunks[c];
	return a->chunks[k] < b->chunks[c] &&
	       (k + 1 == a->nchunks || b->chunks[c] < a->chunks[k + 1]);
}

/* The map of a walk split between 4 threads says what the one-thread walk's
 * says: the same side-band records and samples, every chunk starting at a
 * sample whose number is its seq; and both read the same records. Returns
 * whether the split map's chunks differ (another thread's share was
 * taken: its first sample starts a chunk). */
static bool check_split(const char *path, const char *name)
{
	dp_profile *one = data_open(path), *four = open_split(path);
	dp_profile_map a, b;
	dp_record r, t;
	bool has = dp_profile_own_map(one, &a);
	dp_u64s at = {0}; /* each sample's offset */
	size_t c = 0;
	int ra, rb;

	assert_int_equal(dp_profile_own_map(four, &b), has);
	while ((ra = dp_profile_next(one, &r)) > 0) {
		rb = dp_profile_next(four, &t);
		if (rb != 1 || t.type != r.type || t.offset != r.offset)
			fail_msg("%s: the split walk's reader reads record type %u at %" PRIu64
				 " where the other reads type %u at %" PRIu64,
				 name, t.type, t.offset, r.type, r.offset);
		if (r.type == PERF_RECORD_SAMPLE)
			dp_vec_push(&at, r.offset);
	}
	assert_int_equal(dp_profile_next(four, &t), ra);
	if (has) {
		if (b.samples != a.samples || b.nside != a.nside ||
		    !same_offsets(a.side, b.side, a.nside))
			fail_msg("%s: split walk: %zu side records, %" PRIu64
				 " samples; one thread: %zu, %" PRIu64,
				 name, b.nside, b.samples, a.nside, a.samples);
		assert_true(b.seq || !b.nchunks);
		for (c = 0; c < b.nchunks; c++)
			if (!chunk_agrees(&a, &b, c, &at))
				fail_msg("%s: split walk's chunk %zu at %" PRIu64
					 " says it starts at sample %" PRIu64,
					 name, c, b.chunks[c], b.seq[c]);
	}
	bool differs =
	    has && (b.nchunks != a.nchunks || !same_offsets(a.chunks, b.chunks, a.nchunks));
	dp_vec_free(&at);
	dp_profile_close(one);
	dp_profile_close(four);
	return differs;
}

/* n samples of sample_attr, from sample number first: ip, address and time
 * from the number; with fake, every field is the same 8 bytes, which read as
 * the header of an 8-byte SAMPLE record (type 9, size 8): from any 8-byte
 * step inside them, records seem to chain on, to the real ones. */
static void file_samples(dp_buf *b, int first, int n, bool fake)
{
	struct perf_event_attr a = sample_attr();
	const uint64_t f = 9 | 8ull << 48; /* pid 9, tid 0x80000 in TID */

	for (int i = first; i < first + n; i++) {
		uint64_t x = (uint64_t)i;

		if (fake)
			synth_sample(b, &a, 0, f, 9, 0x80000, f, f, 0, f, 0, 0, NULL, NULL, 0);
		else
			synth_sample(b, &a, 0, 0x400000 + x, 1, 2, 1000 + x, 0x10000 + x * 4096, 0,
				     1, 0, 0, NULL, NULL, 0);
	}
}

static void test_walk_split(void **state)
{
	struct perf_event_attr a = sample_attr();
	uint64_t junk = 0;

	(void)state;
	/* other machines' files, in shares of a page */
	for (size_t i = 0; i < DP_ARRAY_LEN(files); i++) {
		char *path = data_path(files[i].file);

		check_split(path, files[i].file);
		free(path);
	}
	for (int fake = 0; fake < 2; fake++) {
		dp_buf stream = {0}, b = {0};

		file_samples(&stream, 0, 9000, fake);
		size_t m = stream.len;
		synth_exec_mmap2(&stream, 1, 0x400000, 0x1000, "/usr/bin/worker");
		((struct perf_event_header *)(stream.p + m))->size = (uint16_t)(stream.len - m);
		file_samples(&stream, 9000, 6000, fake);
		add_record(&stream, PERF_RECORD_MMAP, &junk, sizeof(junk)); /* malformed */
		file_samples(&stream, 15000, 5000, fake);
		file_start(&b, &a, stream.len);
		dp_buf_add(&b, stream.p, stream.len);

		char *path = write_file(fake ? "split_fake.data" : "split.data", b.p, b.len);
		bool differs = check_split(path, fake ? "split_fake.data" : "split.data");

		/* real headers only at real boundaries: the shares were taken
		 * (a fake chain, which may be guessed wrong, is only checked
		 * for the same answer) */
		if (!fake)
			assert_true(differs);
		free(path);
		dp_buf_free(&stream);
		dp_buf_free(&b);
	}
}

/* Random bytes changed in real files: read to the end without harm. */
static void test_byte_flips(void **state)
{
	static const char *const names[] = {
	    "quipper-piped.header_features_aligned-6.12.data",
	    "quipper-group_desc-4.14.data",
	    "quipper-hybrid_topology.data",
	    "perfparser-vector_static_gcc.lbr.data",
	    "perfparser-parallel_static_gcc.zstd.data",
	    "quipper-piped.lost_samples-4.4.data",
	};
	uint64_t x = 88172645463325252ull;

	(void)state;
	for (size_t k = 0; k < DP_ARRAY_LEN(names); k++) {
		char *out = tu_path("flip.data");
		FILE *f;
		dp_buf all = {0};
		size_t n;

		data_read(names[k], &all);
		n = all.len;
		for (int round = 0; round < 150; round++) {
			char *copy = malloc(n);
			dp_error err;
			dp_profile *p;

			memcpy(copy, all.p, n);
			for (int i = 0; i < 1 + round % 8; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				copy[x % n] = (char)(x >> 32);
			}
			f = fopen(out, "wb");
			fwrite(copy, 1, n, f);
			fclose(f);
			free(copy);
			p = dp_profile_open(out, &err);
			if (!p)
				continue;
			check_own_map(p, names[k]);
			check_split(out, names[k]);
			read_all(p, NULL, 0);
			dp_profile_rewind(p);
			read_all(p, NULL, 0);
			dp_profile_close(p);
		}
		dp_buf_free(&all);
		free(out);
	}
}

TU_MAIN(NULL, tu_teardown, test_every_shared_file, test_features, test_weight_struct_samples,
	test_compressed_straddle, test_zstd_bomb, test_corrupt_compressed, test_refused,
	test_every_prefix, test_own_map, test_open_beside, test_walk_split, test_byte_flips)
