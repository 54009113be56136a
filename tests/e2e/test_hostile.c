/* Profiles from elsewhere name paths on this machine: report and dump must
 * open only regular files by them. A mapping named after a FIFO used to
 * block report forever in open(); one named after a directory or a device
 * is refused the same way, as "not an ELF file". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profile/writer.h"
#include "record_util.h"
#include "../unit/synth_records.h"
#include "tu_group.h"
#include "tu.h"
#include "tu_feature.h"
#include "util.h"

#define ID 7

/* A profile with one executable mapping of path and one sample in it; with
 * stray_id, a second event and a sample whose ID belongs to an event no
 * record describes. */
static void write_profile_ids(const char *prof, const char *path, bool stray_id)
{
	struct perf_event_attr a;
	dp_writer w;
	dp_error err;
	uint64_t id = ID;
	struct synth_pf_sample s = {{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s)},
				    ID,
				    0x401000,
				    1,
				    1,
				    200,
				    0x1000,
				    0,
				    0,
				    1};

	a = synth_page_fault_attr();
	a.sample_period = 1;
	assert_int_equal(dp_writer_open(&w, prof, 1, 1, &err), 0);
	dp_writer_add_event(&w, 0, "page-faults", &a, DP_IP_EXACT, DP_EVC_MEMORY, &id, 1);
	rec_write_exec_mmap(&w, 1, 0x400000, 0x10000, path, ID);
	dp_writer_add(&w, &s, sizeof(s));
	if (stray_id) {
		uint64_t id2 = ID + 1, stray = ID + 2;
		/* the record in a byte buffer: a struct with a flexible array
		 * member inside another is a GNU extension (clang warns) */
		struct dp_rec_event_ids eh = {
		    {DP_REC_EVENT_IDS, 0, sizeof(eh) + sizeof(stray)}, 9, 1};
		uint8_t ids[sizeof(eh) + sizeof(stray)];

		memcpy(ids, &eh, sizeof(eh));
		memcpy(ids + sizeof(eh), &stray, sizeof(stray));

		dp_writer_add_event(&w, 1, "page-faults:u", &a, DP_IP_EXACT, DP_EVC_MEMORY, &id2,
				    1);
		dp_writer_add(&w, ids, sizeof(ids));
		s.id = ID + 2;
		dp_writer_add(&w, &s, sizeof(s));
	}
	assert_int_equal(dp_writer_close(&w), 0);
}

static void write_profile(const char *prof, const char *path)
{
	write_profile_ids(prof, path, false);
}

static void check_not_opened(const char *what, const char *path)
{
	char *prof = tu_path("hostile.dprof");
	tu_result res;

	write_profile(prof, path);
	/* timeout: what used to happen is a hang */
	tu_sh(&res, "timeout 20 '%s' report --by function '%s'", DATAPROF_BIN, prof);
	printf("a mapping of %s (%s): report exit %d\n", what, path, res.status);
	assert_int_equal(res.status, 0);
	assert_non_null(strstr(res.out, "1 samples"));
	tu_result_free(&res);
	tu_sh(&res, "timeout 20 '%s' dump -d '%s'", DATAPROF_BIN, prof);
	assert_int_not_equal(res.status, 124);
	tu_result_free(&res);
	free(prof);
}

static void test_fifo(void **state)
{
	char *fifo = tu_path("fifo");

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	check_not_opened("a FIFO", fifo);
	free(fifo);
}

static void test_directory_and_device(void **state)
{
	(void)state;
	check_not_opened("a directory", tu_tmpdir());
	check_not_opened("a device", "/dev/null");
	check_not_opened("a terminal", "/dev/tty");
}

/* A sample's ID names event 9 of 2: it used to be parsed with an attr read
 * from beyond the event table (fuzz_report found it). Now it is skipped,
 * counted and said; the good sample is reported. */
static void test_sample_of_undescribed_event(void **state)
{
	char *prof = tu_path("stray-id.dprof");
	tu_result res;

	(void)state;
	write_profile_ids(prof, "/bin/true", true);
	tu_sh(&res, "'%s' report --by event '%s'", DATAPROF_BIN, prof);
	printf("%s%s", res.out, res.err);
	assert_int_equal(res.status, 0);
	assert_non_null(strstr(res.out, "1 samples"));
	assert_non_null(strstr(res.err, "1 malformed samples skipped"));
	tu_result_free(&res);
	free(prof);
}

/* Heap records packed with zstd (PACKED), as the recorder wrote them in
 * version 1, in version 2 (the heap codec inside) and writes them now (its
 * codec 2), and damaged (tests/fuzz/hostile.py makes them): a header whose
 * sizes lie, a record cut inside, PACKED in PACKED, a kernel record inside,
 * a chain by a place never filled or in codec 1, a codec unknown. Every
 * complete heap record is kept, the damage counted, and the samples after
 * the PACKED record are read. */
static void test_packed_damage(void **state)
{
	static const struct {
		const char *name;
		int allocs, unknown;
	} cases[] = {
	    {"packed-heap", 2, 0},	     {"packed-claims-more", 2, 1},
	    {"packed-raw-huge", 2, 1},	     {"packed-frame-past-record", 2, 1},
	    {"packed-record-cut", 1, 1},     {"packed-in-packed", 0, 1},
	    {"packed-kernel-record", 2, 1},  {"packed-codec", 2, 0},
	    {"packed-codec-verbatim", 2, 0}, {"packed-codec-cut", 1, 1},
	    {"packed-codec2", 2, 0},	     {"packed-codec2-seen", 2, 0},
	    {"packed-codec2-unseen", 1, 1},  {"packed-codec1-seen", 1, 1},
	    {"packed-codec-unknown", 0, 1},
	};
	tu_result res;

	(void)state;
	assert_int_equal(
	    tu_sh(&res, "python3 '%s/tests/fuzz/hostile.py' '%s/hostile'", SOURCE_DIR, tu_tmpdir()),
	    0);
	tu_result_free(&res);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int allocs = 0, unknown = -1;
		const char *sum, *line;

		tu_sh(&res, "'%s' dump '%s/hostile/%s'", DATAPROF_BIN, tu_tmpdir(), cases[i].name);
		for (line = res.out; (line = strstr(line, " ALLOC ")); line++)
			allocs++;
		sum = strstr(res.out, "\n# ");
		if (sum)
			sscanf(strstr(sum, "throttled, ") ? strstr(sum, "throttled, ") : sum,
			       "throttled, %d unknown", &unknown);
		printf("%-26s exit %d, %d heap records, %d damaged, samples after it: %s\n",
		       cases[i].name, res.status, allocs, unknown,
		       strstr(res.out, "2 samples") ? "both" : "NOT ALL");
		assert_int_equal(res.status, 0);
		assert_int_equal(allocs, cases[i].allocs);
		assert_int_equal(unknown, cases[i].unknown);
		assert_non_null(strstr(res.out, "2 samples"));
		tu_result_free(&res);
	}
}

TU_MAIN_AFTER(
    {
	    tu_require_program(DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT);
	    signal(SIGPIPE, SIG_IGN);
    },
    NULL, tu_teardown, test_fifo, test_directory_and_device, test_sample_of_undescribed_event,
    test_packed_damage)
