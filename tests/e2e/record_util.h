/* Helpers shared by end-to-end tests of dataprof record. */
#ifndef DP_RECORD_UTIL_H
#define DP_RECORD_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <sys/types.h>

#include "dataprof/profile.h"
#include "profile/writer.h"
#include "tu.h"

/* Records cmd (a shell word list) with the given dataprof options into
 * profile; the target's stdout (truth lines) comes back in res->out. */
int rec_run(tu_result *res, const char *profile, const char *opts, const char *cmd);

/* What rec_each calls with each record of a profile. */
typedef void (*rec_record_fn)(void *ctx, const dp_record *r);
/* Reads the whole profile, calling fn for each record; asserts it reads
 * cleanly; returns the number of samples. */
size_t rec_each(const char *profile, rec_record_fn fn, void *ctx);

/* Which truth lines a profile's samples belong to: a truth line of kind
 * names a thread or a process by its "tid" or "pid" (key), and, with
 * by_addr, a data address by its "addr". */
typedef struct rec_id_hits {
	size_t *hits;	 /* per truth line: the samples of its id (and address) */
	size_t forks;	 /* FORK records: new threads and new processes */
	size_t children; /* of those, new processes */
} rec_id_hits;
/* Counts them in profile for t[0..n); hits is malloc'd (free it). */
void rec_count_id_hits(rec_id_hits *out, const char *profile, const tu_truth *t, size_t n,
		       const char *kind, const char *key, bool by_addr);

/* Starts argv (dataprof record, say) with stdout to out, not through a
 * shell (a background shell job would ignore SIGINT): its pid. */
pid_t rec_start(char **argv, const char *out);

/* Records FIXTURE_DIR/fixture with its args (a shell word list, may be
 * empty) and the dataprof options opts into tu_tmpdir()/name: its path
 * (malloc'd). Fails the test when record does. */
char *rec_fixture(const char *fixture, const char *args, const char *opts, const char *name);

/* A fixture's run under dataprof record, with what the fixture printed. */
typedef struct rec_truth_run {
	char *profile; /* tu_tmpdir()/name */
	tu_result res; /* record's: the fixture's stdout in res.out */
	tu_truth *t;   /* the truth lines of that stdout */
	size_t n;
} rec_truth_run;
/* rec_fixture, keeping the fixture's output and its truth lines. */
void rec_fixture_truth(rec_truth_run *r, const char *fixture, const char *args, const char *opts,
		       const char *name);
void rec_truth_run_free(rec_truth_run *r);

/* The truth lines of FIXTURE_DIR/fixture --list (what a fixture of
 * patterns would do, run alone): how many (array malloc'd). Fails the
 * test unless it exits 0. */
size_t rec_fixture_list(const char *fixture, tu_truth **t);

/* Writes to w the MMAP2 record of an executable mapping of path (r-x,
 * private) at [start, start + len) in process pid, its sample_id_all
 * trailer at time 100 with event ID id: the one mapping of the synthetic
 * profiles tests write. */
void rec_write_exec_mmap(dp_writer *w, uint32_t pid, uint64_t start, uint64_t len, const char *path,
			 uint64_t id);

/* Copies the profile src to dst with one more META record key=value after
 * its header: another file (another run identity, docs/history.md) with
 * the same samples, cheaper than recording again. */
void rec_copy_tagged(const char *src, const char *dst, const char *key, const char *value);

/* The samples of a report --csv row of the first level whose key (column
 * 2) is key, or 0. */
unsigned long rec_csv_samples(const char *csv, const char *key);

/* pagetouch's page faults in a profile (dataprof's or perf's), against
 * the truth it printed (truth_text): the accesses it made, the samples in
 * its region, the accesses with a sample at their address, the samples in
 * the region with the IP in the program's text, and those read out of
 * compressed records. */
typedef struct rec_pf_result {
	size_t accesses, in_region, matched, exact_ip, decompressed;
} rec_pf_result;
void rec_pf_check(const char *profile, const char *truth_text, rec_pf_result *out);

/* In a function taking fmt, ...: out = the text they make, malloc'd (for
 * cmocka tests: fails the test if it cannot be made). */
#define REC_VFORMAT(out, fmt)                                                                      \
	do {                                                                                       \
		va_list ap_;                                                                       \
		va_start(ap_, fmt);                                                                \
		assert_true(vasprintf(&(out), fmt, ap_) >= 0);                                     \
		va_end(ap_);                                                                       \
	} while (0)

/* Runs dataprof ARGS, ARGS from fmt (a shell word list), and fails the
 * test, naming ARGS, unless it exits 0 with want in its stdout. */
void rec_expect_output(const char *want, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* How rec_expect_error judges a refusal; 0: any non-zero exit status, and
 * at most one newline in stderr. */
enum {
	REC_ERR_NOT3 = 1,   /* exit 3 is an answer ("changed"), not a refusal */
	REC_ERR_USAGE = 2,  /* only 1 (what the input cannot give) or 2 (usage) */
	REC_ERR_EOL = 4,    /* stderr one line that ends in its newline */
	REC_ERR_TMPDIR = 8, /* run in tu_tmpdir() (relative paths land there) */
};
/* Runs dataprof ARGS, ARGS from fmt (a shell word list), and fails the
 * test, naming ARGS, unless dataprof refuses them as how says with want
 * in its stderr, on one line. */
void rec_expect_error(unsigned how, const char *want, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Runs the shell command line from fmt in tu_tmpdir() and fails the test,
 * naming it, unless it exits status with want in its stderr, and that
 * stderr has exactly one newline. */
void rec_expect_exit(int status, const char *want, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A cmocka test named name that runs fn with *state = arg (a string): one
 * function for the cases of a family, each under a name of its own. */
#define REC_CASE(name, fn, arg)                                                                    \
	{                                                                                          \
		name, fn, NULL, NULL, (void *)(arg)                                                \
	}
/* A test run once per build of a fixture: named test_FIXTURE, fn finds the
 * fixture's name in *state. */
#define REC_FIXTURE_TEST(fn, fixture) REC_CASE("test_" fixture, fn, fixture)
/* The two cases of a test run on both builds of a fixture, FIXTURE_O0 and
 * FIXTURE_O2 (fixture a string literal): named name_O0 and name_O2. */
#define REC_CASE_BUILDS(name, fn, fixture)                                                         \
	REC_CASE(name "_O0", fn, fixture "_O0"), REC_CASE(name "_O2", fn, fixture "_O2")
/* REC_FIXTURE_TEST on both builds of the fixture: test_FIXTURE_O0, _O2. */
#define REC_FIXTURE_BUILDS(fn, fixture) REC_CASE_BUILDS("test_" fixture, fn, fixture)

/* Can record sim: events here (dataprof's Valgrind tool built, valgrind
 * installed)? When not, *why says what is missing. */
bool rec_have_sim(const char **why);

#endif
