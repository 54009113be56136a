/* dataprof report, diff, history add, export, view and annotate --jobs:
 * the output is the same, byte for byte, whatever the number of threads
 * that read the samples, on a profile of several processes, threads and
 * heap objects, in text, JSON and CSV; on a raw profile cut short, and on
 * perf.data files of several kinds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataprof/format.h"
#include "record_util.h"
#include "tu_feature.h"
#include "util.h"
#include "tu_group.h"

/* Each part of the report takes 1024 samples in turn (report/part.c): with
 * fewer than this many, some of the 4 parts would have nothing to do. */
#define ENOUGH_SAMPLES (4 * 1024 * 2)

static char *mixed_profile;

/* threads (4 threads), forker (3 children and an exec) and objects (heap
 * blocks of four sites, globals, statics, TLS, stack) in one recording,
 * every page fault a sample, with the heap tracked. */
static const char *profile(void)
{
	if (!mixed_profile) {
		char *th = tu_fixture("threads_O2"), *fk = tu_fixture("forker_O2"),
		     *ob = tu_fixture("objects_O2");
		char *cmd = dp_asprintf("sh -c \"'%s' 4 4096 & '%s' 3; '%s'; wait\"", th, fk, ob);
		tu_result res;

		mixed_profile = tu_path("mixed.dprof");
		assert_int_equal(rec_run(&res, mixed_profile, "--heap -e page-faults", cmd), 0);
		tu_result_free(&res);
		free(cmd);
		free(th);
		free(fk);
		free(ob);
	}
	return mixed_profile;
}

/* The output of a dataprof command (cmd, with its options) on file with
 * --jobs N. */
static char *run_jobs(const char *cmd, int jobs, const char *file)
{
	tu_result res;
	char *out;

	if (tu_sh(&res, "'%s' %s --jobs %d -i '%s'", DATAPROF_BIN, cmd, jobs, file) != 0)
		fail_msg("%s --jobs %d: %s", cmd, jobs, res.err);
	out = res.out;
	free(res.err);
	return out;
}

static char *report(const char *file, int jobs, const char *args)
{
	char *cmd = dp_asprintf("report %s", args), *out = run_jobs(cmd, jobs, file);

	free(cmd);
	return out;
}

/* The first line where a and b differ, for the failure message. */
static void assert_same(const char *a, const char *b, const char *what)
{
	size_t line = 1, i = 0;

	if (!strcmp(a, b))
		return;
	while (a[i] && a[i] == b[i])
		line += a[i++] == '\n';
	const char *la = a + i, *lb = b + i;
	while (la > a && la[-1] != '\n')
		la--, lb--;
	fail_msg("%s: --jobs 1 and 4 differ at line %zu:\n  1: %.200s\n  4: %.200s", what, line, la,
		 lb);
}

/* The number of data lines (not comments) of a CSV output. */
static size_t csv_rows(const char *csv)
{
	size_t n = 0;

	for (const char *p = csv; (p = strchr(p, '\n')); p++)
		n++;
	return n ? n - 1 : 0;
}

/* The samples a text report's header counts ("# 12,345 samples: ..."). */
static unsigned long header_samples(const char *out)
{
	const char *s = strstr(out, "\n# ");
	unsigned long n = 0;

	assert_non_null(s);
	for (s += 3; *s; s++)
		if (*s >= '0' && *s <= '9')
			n = n * 10 + (unsigned long)(*s - '0');
		else if (*s != ',')
			break;
	return n;
}

/* The samples a report with args (its filters) keeps: the sum of the
 * samples column of its CSV by event. */
static unsigned long kept_samples(const char *file, const char *args)
{
	char *rargs = dp_asprintf("--by event --csv -m samples %s", args);
	char *csv = report(file, 1, rargs);
	unsigned long n = 0;

	/* depth,event,samples,... */
	for (const char *s = strchr(csv, '\n'); s && s[1]; s = strchr(s + 1, '\n'))
		n += strtoul(strchr(strchr(s + 1, ',') + 1, ',') + 1, NULL, 10);
	free(rargs);
	free(csv);
	return n;
}

static void test_profile_is_mixed(void **state)
{
	(void)state;
	char *pids = report(profile(), 1, "--by pid --csv");
	char *tids = report(profile(), 1, "--by tid --csv");
	char *kinds = report(profile(), 1, "--by kind --csv");
	char *head = report(profile(), 1, "--by event -n 1");
	unsigned long n = header_samples(head);

	printf("profile: %lu samples, %zu processes, %zu threads\n", n, csv_rows(pids),
	       csv_rows(tids));
	/* threads, forker and its 3 children, objects (and the shell, unless
	 * it took no page fault of its own) */
	if (csv_rows(pids) < 5 || csv_rows(tids) < csv_rows(pids) + 3)
		fail_msg("not the processes and threads expected:\n%s\n%s", pids, tids);
	if (!strstr(kinds, "heap") || !strstr(kinds, "global"))
		fail_msg("no heap or global object:\n%s", kinds);
	if (n < ENOUGH_SAMPLES)
		fail_msg("%lu samples: fewer than the %d that give each of 4 parts some", n,
			 ENOUGH_SAMPLES);
	free(pids);
	free(tids);
	free(kinds);
	free(head);
}

static const char *const views[] = {
    "report",
    "report --json",
    "report --by process,thread --then object --then member -n 100,100,100",
    "report --by object,site --then member --then line -n 1000,1000,1000",
    "report --json --by function --then object,kind",
    "report --csv --by pid,tid,event --then line",
    "report --csv --by insn --then verdict,reason",
    "report --json --by time:10ms --then process",
    "report --by member --where 'kind=heap' -m samples",
    "report --by file --verdict verified,exact --time 1ms..",
};

/* Each of the n commands on file gives the same output with --jobs 1 and 4. */
static void assert_same_for_any_jobs(const char *const *cmds, size_t n, const char *file)
{
	for (size_t i = 0; i < n; i++) {
		char *one = run_jobs(cmds[i], 1, file), *four = run_jobs(cmds[i], 4, file);

		assert_same(one, four, cmds[i]);
		free(one);
		free(four);
	}
}

static void test_same_for_any_jobs(void **state)
{
	(void)state;
	assert_same_for_any_jobs(views, sizeof(views) / sizeof(views[0]), profile());
}

/* A profile cut inside a record: every part stops where one part does,
 * and the warning is the same. */
static void test_truncated(void **state)
{
	char *cut = tu_path("mixed_cut.dprof");
	tu_result r1, r4;

	(void)state;
	assert_int_equal(tu_sh(&r1, "head -c $(( $(stat -c %%s '%s') * 2 / 3 )) '%s' > '%s'",
			       profile(), profile(), cut),
			 0);
	tu_result_free(&r1);
	assert_int_equal(tu_sh(&r1, "'%s' report --jobs 1 --json '%s'", DATAPROF_BIN, cut), 0);
	assert_int_equal(tu_sh(&r4, "'%s' report --jobs 4 --json '%s'", DATAPROF_BIN, cut), 0);
	assert_same(r1.out, r4.out, "a truncated profile");
	assert_same(r1.err, r4.err, "a truncated profile's warning");
	assert_non_null(strstr(r4.err, "cut short"));
	tu_result_free(&r1);
	tu_result_free(&r4);
	free(cut);
}

/* The profile's index (format.h, DP_REC_INDEX): where it starts, and
 * where the chunk-th 1024 samples start, from the file's INDEX records. */
static uint64_t index_of(const char *path, size_t chunk, uint64_t *chunk_at)
{
	FILE *f = fopen(path, "rb");
	struct dp_rec_index_end e;
	struct dp_rec_index x;

	assert_non_null(f);
	assert_int_equal(fseek(f, -(long)sizeof(e), SEEK_END), 0);
	assert_int_equal(fread(&e, sizeof(e), 1, f), 1);
	assert_int_equal(e.magic, DP_INDEX_MAGIC);
	assert_true(chunk < e.nchunks);
	*chunk_at = 0;
	for (long at = (long)e.index_at; !*chunk_at; at += x.h.size) {
		assert_int_equal(fseek(f, at, SEEK_SET), 0);
		assert_int_equal(fread(&x, sizeof(x), 1, f), 1);
		assert_int_equal(x.h.type, DP_REC_INDEX);
		if (x.what != DP_INDEX_CHUNKS)
			continue;
		if (chunk < x.count) {
			assert_int_equal(fseek(f, at + (long)(sizeof(x) + 8 * chunk), SEEK_SET), 0);
			assert_int_equal(fread(chunk_at, 8, 1, f), 1);
		}
		chunk -= chunk < x.count ? 0 : x.count;
	}
	fclose(f);
	return e.index_at;
}

/* report --by event of file with --jobs 1 (r1) and 4 (r4): the same
 * output and warnings. */
static void report_1_and_4(const char *file, tu_result *r1, tu_result *r4, const char *what)
{
	char *warn = dp_asprintf("%s's warning", what);

	assert_int_equal(tu_sh(r1, "'%s' report --jobs 1 --by event -n 1 '%s'", DATAPROF_BIN, file),
			 0);
	assert_int_equal(tu_sh(r4, "'%s' report --jobs 4 --by event -n 1 '%s'", DATAPROF_BIN, file),
			 0);
	assert_same(r1->out, r4->out, what);
	assert_same(r1->err, r4->err, warn);
	free(warn);
}

/* A copy of the first len bytes of path (0: all of it). */
static char *copy_head(const char *path, uint64_t len, const char *name)
{
	char *out = tu_path(name);
	tu_result r;

	if (len)
		assert_int_equal(
		    tu_sh(&r, "head -c %llu '%s' > '%s'", (unsigned long long)len, path, out), 0);
	else
		assert_int_equal(tu_sh(&r, "cp '%s' '%s'", path, out), 0);
	tu_result_free(&r);
	return out;
}

/* A finished profile is read by its index; cut where the index starts (a
 * profile as earlier versions wrote it), by a first walk through it: the
 * same report (but for the path in its first line). */
static void test_index_or_walk_same(void **state)
{
	/* four views, text and JSON: the reading does not depend on what is
	 * aggregated */
	static const size_t some[] = {0, 1, 3, 7};
	uint64_t at;
	char *bare = copy_head(profile(), index_of(profile(), 0, &at), "mixed_unindexed.dprof");

	(void)state;
	for (size_t k = 0; k < DP_ARRAY_LEN(some); k++) {
		const char *view = views[some[k]];
		char *a = run_jobs(view, 4, profile()), *b = run_jobs(view, 4, bare);
		const char *la = strchr(a, '\n'), *lb = strchr(b, '\n');

		if (!strstr(view, "--json") && la && lb)
			assert_same(la, lb, view);
		else
			assert_int_equal(strlen(a) - strlen(profile()), strlen(b) - strlen(bare));
		free(a);
		free(b);
	}
	free(bare);
}

/* A sample of the third chunk after its first (the second sample record
 * from the chunk's start, at *before samples of the chunk): its offset. */
static uint64_t second_sample(const char *path, uint64_t chunk_at, unsigned *before)
{
	FILE *f = fopen(path, "rb");
	struct dp_rec_header h;
	uint64_t at = chunk_at;

	assert_non_null(f);
	for (*before = 0;; at += h.size) {
		assert_int_equal(fseek(f, (long)at, SEEK_SET), 0);
		assert_int_equal(fread(&h, sizeof(h), 1, f), 1);
		assert_true(h.size >= 8);
		if (h.type == 9 /* PERF_RECORD_SAMPLE */ && (*before)++)
			break;
	}
	fclose(f);
	(*before)--;
	return at;
}

/* A sample's size zeroed inside the third chunk: with the index, the
 * report loses the rest of that chunk and no other sample, says so, and is
 * the same for any --jobs; walked (without the index) it ends there. */
static void test_damaged_chunk(void **state)
{
	uint64_t chunk2, all, at = index_of(profile(), 2, &chunk2), bad_at;
	char *bad = copy_head(profile(), 0, "mixed_damaged.dprof"), *bare;
	char *head = report(profile(), 1, "--by event -n 1");
	unsigned before;
	tu_result r1, r4;

	(void)state;
	all = header_samples(head);
	bad_at = second_sample(profile(), chunk2, &before);
	assert_int_equal(tu_sh(&r1, "printf '\\0\\0' | dd of='%s' bs=1 seek=%llu conv=notrunc 2>&1",
			       bad, (unsigned long long)bad_at + 6),
			 0);
	tu_result_free(&r1);
	report_1_and_4(bad, &r1, &r4, "a damaged chunk");
	char want[96];
	snprintf(want, sizeof(want), "corrupt record at offset %llu", (unsigned long long)bad_at);
	if (!strstr(r4.err, want) || !strstr(r4.err, "skipped"))
		fail_msg("no warning naming the damage at %s: %s", want, r4.err);
	assert_int_equal(header_samples(r4.out), all - (1024 - before));
	tu_result_free(&r1);
	tu_result_free(&r4);
	bare = copy_head(bad, at, "mixed_damaged_unindexed.dprof");
	assert_int_equal(
	    tu_sh(&r4, "'%s' report --jobs 4 --by event -n 1 '%s'", DATAPROF_BIN, bare), 0);
	assert_int_equal(header_samples(r4.out), 2 * 1024 + before);
	assert_non_null(strstr(r4.err, "covers the records before it"));
	tu_result_free(&r4);
	free(head);
	free(bad);
	free(bare);
}

/* A hostile index (its check made anew) whose third chunk starts 8 bytes
 * into a sample: the chunk before reads that sample whole, the third is
 * found not to start with one and is skipped; the same for any --jobs. */
static void test_hostile_chunk_offset(void **state)
{
	char *bad = copy_head(profile(), 0, "mixed_hostile.dprof"), *head;
	FILE *f = fopen(bad, "r+b");
	struct dp_rec_index_end e;
	struct dp_rec_index x;
	uint64_t all, chunk2 = 0;
	tu_result r1, r4;
	char *idx;

	(void)state;
	assert_non_null(f);
	fseek(f, -(long)sizeof(e), SEEK_END);
	assert_int_equal(fread(&e, sizeof(e), 1, f), 1);
	long len = ftell(f) - (long)e.index_at;
	idx = malloc((size_t)len);
	fseek(f, (long)e.index_at, SEEK_SET);
	assert_int_equal(fread(idx, 1, (size_t)len, f), (size_t)len);
	for (long at = 0; at < len - (long)sizeof(e); at += x.h.size) {
		memcpy(&x, idx + at, sizeof(x));
		if (x.what == DP_INDEX_CHUNKS && !chunk2) {
			memcpy(&chunk2, idx + at + sizeof(x) + 16, 8);
			chunk2 += 8;
			memcpy(idx + at + sizeof(x) + 16, &chunk2, 8);
		}
	}
	memcpy(&e, idx + len - sizeof(e), sizeof(e));
	e.check = dp_fnv1a(idx, (size_t)len - sizeof(e), DP_FNV_INIT);
	e.check = dp_fnv1a(&e, offsetof(struct dp_rec_index_end, check), e.check);
	memcpy(idx + len - sizeof(e), &e, sizeof(e));
	fseek(f, (long)e.index_at, SEEK_SET);
	assert_int_equal(fwrite(idx, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	head = report(profile(), 1, "--by event -n 1");
	all = header_samples(head);
	report_1_and_4(bad, &r1, &r4, "a hostile index");
	if (!strstr(r4.err, "skipped"))
		fail_msg("no warning: %s", r4.err);
	assert_int_equal(header_samples(r4.out), all - 1023);
	tu_result_free(&r1);
	tu_result_free(&r4);
	free(head);
	free(idx);
	free(bad);
}

/* perf.data files of other machines (tests/data/perf-data): file mode,
 * where parts seek (and the first part's opening walk is split between
 * the 4 threads, in shares of a page); pipe mode; compressed with -z,
 * where each part walks the whole stream and takes its chunks of
 * samples. */
static void test_perf_data(void **state)
{
	static const char *const files[] = {
	    "quipper-forkexit-3.8.data",	  "quipper-throttle-3.8.data",
	    "quipper-callgraph-3.8.data",	  "perfparser-parallel_static_gcc.zstd.data",
	    "mstange-fibo.compressed2.pipe.data",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *path = dp_asprintf("%s/perf-data/%s", DATA_DIR, files[i]);
		char *args[] = {"", "--json --by process,pid --then function,event"};

		for (int k = 0; k < 2; k++) {
			char *one = report(path, 1, args[k]), *four;

			setenv("DATAPROF_WALK_SHARE", "4096", 1);
			four = report(path, 4, args[k]);
			unsetenv("DATAPROF_WALK_SHARE");

			assert_same(one, four, files[i]);
			free(one);
			free(four);
		}
		free(path);
	}
}

/* The mixed profile's first two thirds: a second run to compare it with. */
static char *cut_profile(void)
{
	char *cut = tu_path("mixed_two_thirds.dprof");
	tu_result r;

	assert_int_equal(tu_sh(&r, "head -c $(( $(stat -c %%s '%s') * 2 / 3 )) '%s' > '%s'",
			       profile(), profile(), cut),
			 0);
	tu_result_free(&r);
	return cut;
}

/* diff reads each profile in parts too (runtab.c sums each part's keys by
 * their text, then merges): the same output for any --jobs. */
static void test_diff_same_for_any_jobs(void **state)
{
	static const char *const args[] = {
	    "--by member -n 1000",
	    "--json --by line,function -n 1000",
	    "--markdown --by object,site -n 1000",
	    "--by function --where kind=heap -m samples",
	};
	char *cut = cut_profile();

	(void)state;
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		tu_result r1, r4;

		assert_int_equal(tu_sh(&r1, "'%s' diff --jobs 1 %s '%s' '%s'", DATAPROF_BIN,
				       args[i], profile(), cut),
				 0);
		assert_int_equal(tu_sh(&r4, "'%s' diff --jobs 4 %s '%s' '%s'", DATAPROF_BIN,
				       args[i], profile(), cut),
				 0);
		assert_true(strlen(r1.out) > 200);
		assert_same(r1.out, r4.out, args[i]);
		tu_result_free(&r1);
		tu_result_free(&r4);
	}
	free(cut);
}

/* history add stores the same aggregates for any --jobs: what show prints
 * of two databases, each given both profiles, is the same. */
static void test_history_same_for_any_jobs(void **state)
{
	char *cut = cut_profile(), *db[2];
	static const char *const by[] = {"member", "line", "object", "function"};
	int jobs[2] = {1, 4};

	(void)state;
	for (int k = 0; k < 2; k++) {
		tu_result r;

		db[k] = dp_asprintf("%s/jobs%d.db", tu_tmpdir(), jobs[k]);
		unlink(db[k]);
		assert_int_equal(tu_sh(&r,
				       "'%s' history --db '%s' add --jobs %d --commit c1 "
				       "--commit-time 2026-01-01T00:00:00Z '%s' && "
				       "'%s' history --db '%s' add --jobs %d --commit c2 "
				       "--commit-time 2026-01-02T00:00:00Z '%s'",
				       DATAPROF_BIN, db[k], jobs[k], profile(), DATAPROF_BIN, db[k],
				       jobs[k], cut),
				 0);
		tu_result_free(&r);
	}
	for (size_t i = 0; i < sizeof(by) / sizeof(by[0]); i++) {
		tu_result r1, r4;

		assert_int_equal(tu_sh(&r1, "'%s' history --db '%s' show --csv --by %s -n 1000",
				       DATAPROF_BIN, db[0], by[i]),
				 0);
		assert_int_equal(tu_sh(&r4, "'%s' history --db '%s' show --csv --by %s -n 1000",
				       DATAPROF_BIN, db[1], by[i]),
				 0);
		assert_true(strlen(r1.out) > 200);
		assert_same(r1.out, r4.out, by[i]);
		tu_result_free(&r1);
		tu_result_free(&r4);
	}
	for (int k = 0; k < 2; k++)
		free(db[k]);
	free(cut);
}

/* export reads in parts too: the Perfetto trace (each part's events put back
 * in file order) and the pprof profile (merged by text, numbered in the
 * order one pass gives) are the same files for any --jobs, with every kept
 * sample in the trace; a profile with call chains gives pprof its callers. */
static void test_export_same_for_any_jobs(void **state)
{
	static const char *const args[] = {"", "--where kind=heap", "--time 1ms.."};
	char *chains = tu_path("chains.dprof"), *fx = tu_fixture("objects_O2");
	const char *files[] = {profile(), chains};
	tu_result r;

	(void)state;
	assert_int_equal(rec_run(&r, chains, "--heap -e page-faults -g", fx), 0);
	tu_result_free(&r);
	for (size_t f = 0; f < 2; f++)
		for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
			char *out[2];
			unsigned long events, samples;

			for (int k = 0; k < 2; k++) {
				out[k] = dp_asprintf("%s/export%d", tu_tmpdir(), k);
				assert_int_equal(
				    tu_sh(&r,
					  "'%s' export --jobs %d %s --perfetto '%s.json' "
					  "--pprof '%s.pb.gz' '%s'",
					  DATAPROF_BIN, k ? 4 : 1, args[i], out[k], out[k],
					  files[f]),
				    0);
				tu_result_free(&r);
			}
			if (tu_sh(&r, "cmp '%s.json' '%s.json' && cmp '%s.pb.gz' '%s.pb.gz'",
				  out[0], out[1], out[0], out[1]) != 0)
				fail_msg("export %s of %s: --jobs 1 and 4 differ: %s", args[i],
					 files[f], r.out);
			tu_result_free(&r);
			/* the trace holds every sample the report keeps */
			assert_int_equal(
			    tu_sh(&r, "grep -o '\"cat\":\"sample\"' '%s.json' | wc -l", out[0]), 0);
			events = strtoul(r.out, NULL, 10);
			tu_result_free(&r);
			samples = kept_samples(files[f], args[i]);
			printf("export %s of %s: %lu sample events, report keeps %lu\n", args[i],
			       f ? "chains" : "mixed", events, samples);
			assert_true(events > 0);
			assert_int_equal(events, samples);
			free(out[0]);
			free(out[1]);
		}
	free(chains);
	free(fx);
}

/* report --sqlite spools each part's samples and inserts them in file order:
 * the database is the same file for any --jobs, with every kept sample. */
static void test_sqlite_same_for_any_jobs(void **state)
{
	static const char *const args[] = {"--by object", "--by function --where kind=heap"};

	(void)state;
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		char *db[2];
		tu_result r;
		unsigned long rows, samples;

		for (int k = 0; k < 2; k++) {
			db[k] = dp_asprintf("%s/jobs%d.sqlite", tu_tmpdir(), k ? 4 : 1);
			assert_int_equal(tu_sh(&r, "'%s' report --jobs %d %s --sqlite '%s' '%s'",
					       DATAPROF_BIN, k ? 4 : 1, args[i], db[k], profile()),
					 0);
			tu_result_free(&r);
		}
		if (tu_sh(&r, "cmp '%s' '%s'", db[0], db[1]) != 0)
			fail_msg("report %s --sqlite: --jobs 1 and 4 differ: %s", args[i], r.out);
		tu_result_free(&r);
		assert_int_equal(tu_sh(&r, "sqlite3 '%s' 'SELECT count(*) FROM samples'", db[1]),
				 0);
		rows = strtoul(r.out, NULL, 10);
		tu_result_free(&r);
		samples =
		    kept_samples(profile(), strstr(args[i], "--where") ? "--where kind=heap" : "");
		printf("report %s --sqlite: %lu sample rows, report keeps %lu\n", args[i], rows,
		       samples);
		assert_true(rows > 0);
		assert_int_equal(rows, samples);
		free(db[0]);
		free(db[1]);
	}
}

/* view and annotate sum the samples per lane, time bucket and combination
 * of attributes, and per instruction, in parts; put together they make the
 * same page and listing as one part does, byte for byte. */
static void test_view_annotate_same_for_any_jobs(void **state)
{
	static const char *const cmds[] = {
	    "view -o -",
	    "view --cpus --buckets 64 --annotate-top 20 -o -",
	    "view --where kind=heap --time 1ms.. -o -",
	    "annotate",
	    "annotate --json -n 20",
	    "annotate --object 'heap*'",
	};

	(void)state;
	assert_same_for_any_jobs(cmds, sizeof(cmds) / sizeof(cmds[0]), profile());
}

/* annotate keeps an instruction's first 8 (object, member) pairs and sums
 * the rest: manyobjs' one store writes 16 arrays of 512 pages in turn, a
 * page fault each, so the pairs kept are the first 8 arrays it wrote (its
 * TRUTH lines, in order) with 512 samples each, and the other 4096 are
 * summed, whichever part met which array first (with 4 parts, part 0 reads
 * the samples of the 1st, 2nd, 9th and 10th arrays). */
static void test_annotate_first_pairs(void **state)
{
	char *prof = tu_path("manyobjs.dprof"), *fx = tu_fixture("manyobjs_O2");
	char *json = tu_path("manyobjs.json"), *one, *four;
	char expect[512] = "[", name[16];
	const char *t;
	tu_result res;
	FILE *f;

	(void)state;
	assert_int_equal(rec_run(&res, prof, "-e page-faults", fx), 0);
	t = res.out;
	for (int k = 0; k < 8; k++) {
		t = strstr(t, "TRUTH object name=");
		assert_non_null(t);
		assert_int_equal(sscanf(t, "TRUTH object name=%15s", name), 1);
		snprintf(expect + strlen(expect), sizeof(expect) - strlen(expect), "%s('%s', 512)",
			 k ? ", " : "", name);
		t++;
	}
	strcat(expect, "] 4096\n");
	tu_result_free(&res);
	one = run_jobs("annotate --json touch", 1, prof);
	four = run_jobs("annotate --json touch", 4, prof);
	assert_same(one, four, "annotate --json touch");
	f = fopen(json, "w");
	assert_non_null(f);
	fputs(four, f);
	fclose(f);
	assert_int_equal(
	    tu_sh(&res,
		  "/usr/bin/python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); "
		  "r=max((r for f in d['functions'] for r in f['instructions']), "
		  "key=lambda r: r['samples']); print([(a['object'], a['samples']) "
		  "for a in r['accesses']], r['accesses_other'])\" '%s'",
		  json),
	    0);
	printf("the store's pairs: %s", res.out);
	assert_string_equal(res.out, expect);
	tu_result_free(&res);
	free(one);
	free(four);
	free(json);
	free(prof);
	free(fx);
}

/* A pipe can be read once: whatever --jobs says, stdin is read in one part. */
static void test_stdin(void **state)
{
	tu_result a, b;

	(void)state;
	assert_int_equal(
	    tu_sh(&a, "'%s' report --jobs 4 - < '%s' | tail -n +2", DATAPROF_BIN, profile()), 0);
	assert_int_equal(
	    tu_sh(&b, "'%s' report --jobs 1 '%s' | tail -n +2", DATAPROF_BIN, profile()), 0);
	assert_same(b.out, a.out, "stdin");
	tu_result_free(&a);
	tu_result_free(&b);
}

static void test_bad_jobs(void **state)
{
	tu_result res;

	(void)state;
	assert_int_equal(tu_sh(&res, "'%s' report --jobs 0 '%s'", DATAPROF_BIN, profile()), 2);
	assert_non_null(strstr(res.err, "--jobs"));
	tu_result_free(&res);
	assert_int_equal(tu_sh(&res, "'%s' report -j x '%s'", DATAPROF_BIN, profile()), 2);
	tu_result_free(&res);
}

static int teardown(void **state)
{
	(void)state;
	free(mixed_profile);
	return 0;
}

TU_MAIN(NULL, teardown, test_profile_is_mixed, test_same_for_any_jobs, test_truncated,
	test_index_or_walk_same, test_damaged_chunk, test_hostile_chunk_offset, test_perf_data,
	test_diff_same_for_any_jobs, test_history_same_for_any_jobs, test_export_same_for_any_jobs,
	test_sqlite_same_for_any_jobs, test_view_annotate_same_for_any_jobs,
	test_annotate_first_pairs, test_stdin, test_bad_jobs)
