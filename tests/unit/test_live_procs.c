/* The processes a --switch-output recording follows: each new file begins
 * with their mappings, read from /proc, or, for a process whose memory is
 * gone while its last samples are still being drained (exiting, a zombie
 * here), the ones its records last told, each a record of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dataprof/profile.h"
#include "profile/writer.h"
#include "sampler/live_procs.h"
#include "sampler/synth.h"
#include "synth_records.h"
#include "tu.h"
#include "tu_group.h"

#define ID 7

/* A child that waits until wake[1] is closed, then exits (unreaped: a
 * zombie, whose /proc/PID/maps is empty). */
static pid_t start_child(int wake[2])
{
	pid_t pid;

	assert_int_equal(pipe(wake), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;

		close(wake[1]);
		while (read(wake[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(wake[0]);
	return pid;
}

static void wait_zombie(pid_t pid)
{
	siginfo_t si;

	/* WNOWAIT: the child exits and stays a zombie */
	memset(&si, 0, sizeof(si));
	assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
}

typedef struct seen {
	size_t maps, comms;
	uint64_t last_map_time;
} seen;

/* The MMAP and COMM records of pid in each synthesis (marked by a warning
 * record before it), walked, and replayed by the file's index as a
 * report's side-band pass does (report/part.c): the same. */
static void read_back(const char *path, pid_t pid, seen *by_mark, size_t nmarks)
{
	dp_error err;
	dp_profile *p = dp_profile_open(path, &err);
	dp_profile_map m;
	dp_record r;
	size_t mark = 0, walked = 0, replayed = 0;

	assert_non_null(p);
	while (dp_profile_next(p, &r) > 0) {
		if (r.kind == DP_R_WARNING) {
			assert_true(mark < nmarks);
			mark++;
			continue;
		}
		if (!mark || (uint32_t)r.pid != (uint32_t)pid)
			continue;
		if (r.kind == DP_R_MMAP) {
			by_mark[mark - 1].maps++;
			by_mark[mark - 1].last_map_time = r.time;
			walked++;
		}
		by_mark[mark - 1].comms += r.kind == DP_R_COMM;
	}
	assert_true(dp_profile_stored_index(p, &m));
	dp_profile_skip_samples(p, true);
	for (size_t i = 0; i < m.nside; i++) {
		dp_profile_seek(p, m.side[i]);
		if (dp_profile_next(p, &r) > 0 && r.kind == DP_R_MMAP &&
		    (uint32_t)r.pid == (uint32_t)pid)
			replayed++;
	}
	assert_int_equal(replayed, walked);
	dp_profile_close(p);
}

/* A kernel MMAP2 record of pid, at time 1000, as the recorder drains it. */
static void kernel_mmap(dp_live_procs *lp, pid_t pid, uint64_t start, const char *name)
{
	struct perf_event_attr a = synth_minimal_attr();
	dp_buf b = {0};

	synth_exec_mmap2(&b, (uint32_t)pid, start, 4096, name);
	dp_synth_trailer(&b, &a, (uint32_t)pid, (uint32_t)pid, 1000, ID);
	((struct perf_event_header *)b.p)->size = (uint16_t)b.len;
	dp_live_procs_add_map(lp, b.p, b.len);
	dp_buf_free(&b);
}

/* A profile at path with one event (page-faults, attr a) to write into. */
static void writer_start(dp_writer *w, const char *path, const struct perf_event_attr *a)
{
	dp_error err;
	uint64_t id = ID;

	assert_int_equal(dp_writer_open(w, path, 1000, 2000, &err), 0);
	dp_writer_add_event(w, 0, "page-faults", a, DP_IP_EXACT, DP_EVC_MEMORY, &id, 1);
}

static void test_exiting_process_keeps_its_mappings(void **state)
{
	struct perf_event_attr a = synth_minimal_attr();
	char *path = tu_path("live.dprof");
	dp_live_procs lp;
	dp_writer w;
	int wake[2];
	pid_t child = start_child(wake);
	seen s[4] = {{0}};

	(void)state;
	dp_live_procs_init(&lp);
	dp_live_procs_set_alive(&lp, (uint32_t)child, true);
	writer_start(&w, path, &a);

	/* alive: from /proc; then one more mapping, as the kernel tells */
	dp_writer_add_warning(&w, 1, "first file");
	dp_live_procs_synth(&lp, &w, &a, ID);
	kernel_mmap(&lp, child, 0x10000000, "/dlopened.so");

	/* exiting (a zombie): /proc has no mappings, the kept ones are written */
	close(wake[1]);
	wait_zombie(child);
	dp_writer_add_warning(&w, 2, "second file");
	dp_live_procs_synth(&lp, &w, &a, ID);

	/* ended (its EXIT): once more, for samples of another CPU's ring
	 * drained after it; then nothing */
	dp_live_procs_set_alive(&lp, (uint32_t)child, false);
	dp_writer_add_warning(&w, 3, "third file");
	dp_live_procs_synth(&lp, &w, &a, ID);
	dp_writer_add_warning(&w, 4, "fourth file");
	dp_live_procs_synth(&lp, &w, &a, ID);
	synth_finish(&w, 0);
	assert_int_equal(dp_writer_close(&w), 0);
	waitpid(child, NULL, 0);

	read_back(path, child, s, 4);
	print_message("mappings: %zu from /proc, %zu kept\n", s[0].maps, s[1].maps);
	assert_true(s[0].maps >= 3); /* the program, libc, the stack... */
	assert_int_equal(s[1].maps, s[0].maps + 1);
	assert_int_equal(s[1].last_map_time, 1000); /* with its own time */
	assert_int_equal(s[2].maps, s[1].maps);
	assert_int_equal(s[3].maps, 0);
	assert_int_equal(s[3].comms, 0);
	dp_live_procs_free(&lp);
	free(path);
}

/* An exec ends the mappings kept: the old program's are not written again. */
static void test_exec_forgets(void **state)
{
	struct perf_event_attr a = synth_minimal_attr();
	char *path = tu_path("exec.dprof");
	dp_live_procs lp;
	dp_writer w;
	pid_t gone = 1 << 22; /* above pid_max's default: no /proc entry */
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
	} comm = {{PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, sizeof(comm)},
		  (uint32_t)gone,
		  (uint32_t)gone,
		  "new"};
	seen s[2] = {{0}};

	(void)state;
	dp_live_procs_init(&lp);
	dp_live_procs_set_alive(&lp, (uint32_t)gone, true);
	kernel_mmap(&lp, gone, 0x20000000, "/old-program");
	writer_start(&w, path, &a);
	dp_writer_add_warning(&w, 1, "before the exec");
	dp_live_procs_synth(&lp, &w, &a, ID);
	dp_live_procs_exec(&lp, &comm, sizeof(comm));
	kernel_mmap(&lp, gone, 0x30000000, "/new-program");
	dp_writer_add_warning(&w, 2, "after it");
	dp_live_procs_synth(&lp, &w, &a, ID);
	synth_finish(&w, 0);
	assert_int_equal(dp_writer_close(&w), 0);

	read_back(path, gone, s, 2);
	assert_int_equal(s[0].maps, 1);
	assert_int_equal(s[1].maps, 1); /* the new program's only */
	dp_live_procs_free(&lp);
	free(path);
}

/* Processes that ended are forgotten once their last mappings are
 * written: a recording of a build does not keep one entry per process it
 * ever saw. Those still running keep theirs, wherever the table moved
 * them, and a pid used again is a new process. */
static void test_ended_forgotten(void **state)
{
	enum { N = 1000 };
	struct perf_event_attr a = synth_minimal_attr();
	char *path = tu_path("forget.dprof");
	uint32_t base = 1u << 22; /* above pid_max's default: no /proc entries */
	dp_live_procs lp;
	dp_writer w;
	uint64_t slot;

	(void)state;
	dp_live_procs_init(&lp);
	for (uint32_t i = 0; i < N; i++) {
		dp_live_procs_set_alive(&lp, base + i, true);
		kernel_mmap(&lp, (pid_t)(base + i), 0x10000000 + (uint64_t)i * 4096, "/prog");
	}
	writer_start(&w, path, &a);
	dp_live_procs_synth(&lp, &w, &a, ID);
	/* all but every hundredth end */
	for (uint32_t i = 0; i < N; i++)
		if (i % 100)
			dp_live_procs_set_alive(&lp, base + i, false);
	dp_live_procs_synth(&lp, &w, &a, ID);
	assert_int_equal(lp.procs.n, N / 100);
	assert_int_equal(lp.slot_of.n, N / 100);
	for (uint32_t i = 0; i < N; i++) {
		bool kept = dp_hashmap_get(&lp.slot_of, base + i, &slot);

		assert_int_equal(kept, i % 100 == 0);
		if (kept) {
			assert_int_equal(lp.procs.v[slot - 1].pid, base + i);
			assert_int_equal(lp.procs.v[slot - 1].maps.len > 0, 1);
		}
	}
	/* a pid of a forgotten process, used again */
	dp_live_procs_set_alive(&lp, base + 1, true);
	kernel_mmap(&lp, (pid_t)(base + 1), 0x50000000, "/again");
	assert_true(dp_hashmap_get(&lp.slot_of, base + 1, &slot));
	assert_true(lp.procs.v[slot - 1].alive && lp.procs.v[slot - 1].maps.len > 0);
	synth_finish(&w, 0);
	assert_int_equal(dp_writer_close(&w), 0);
	dp_live_procs_free(&lp);
	free(path);
}

TU_MAIN(NULL, tu_teardown, test_exiting_process_keeps_its_mappings, test_exec_forgets,
	test_ended_forgotten)
