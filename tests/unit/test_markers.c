/* Code markers in a program: off without a collector, off with one warning
 * when the collector is missing or is not one, and with the real collector:
 * every mark of every thread reaches the channel, also when marks overflow
 * a thread's block. Each case runs in a child process, as a program would. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dataprof/markers.h"
#include "sampler/agent_sink.h"
#include "tu_group.h"

typedef struct child_out {
	int status;
	dp_buf chan; /* what the child sent on the agent channel */
	dp_buf err;  /* its stderr */
} child_out;

/* One read of the pipe *fd into b, closing it (*fd = -1) at its end */
static void read_some(int *fd, dp_buf *b)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n > 0)
		dp_buf_add(b, buf, (size_t)n);
	else
		close(*fd), *fd = -1;
}

/* Runs fn in a child with the given environment (NAME=value, NULL-ended)
 * and an agent channel when chan is true. */
static void run_child(void (*fn)(void), const char *const *env, bool chan, child_out *out)
{
	int cp[2], ep[2];
	pid_t pid;

	memset(out, 0, sizeof(*out));
	assert_int_equal(pipe(cp), 0);
	assert_int_equal(pipe(ep), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char fd[16];

		close(cp[0]);
		close(ep[0]);
		dup2(ep[1], 2);
		unsetenv("DATAPROF_COLLECTOR");
		unsetenv("DATAPROF_AGENT_FD");
		for (size_t i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		if (chan) {
			snprintf(fd, sizeof(fd), "%d", cp[1]);
			setenv("DATAPROF_AGENT_FD", fd, 1);
		}
		fn();
		_exit(0);
	}
	close(cp[1]);
	close(ep[1]);
	/* read both until the child is done, so that it never blocks on a full pipe */
	for (int open_fds = 2; open_fds;) {
		open_fds = 0;
		if (cp[0] >= 0) {
			read_some(&cp[0], &out->chan);
			open_fds++;
		}
		if (cp[0] < 0 && ep[0] >= 0) {
			read_some(&ep[0], &out->err);
			open_fds++;
		}
	}
	dp_buf_add(&out->err, "", 1);
	assert_int_equal(waitpid(pid, &out->status, 0), pid);
}

static void free_out(child_out *o)
{
	dp_buf_free(&o->chan);
	dp_buf_free(&o->err);
}

/* ---- off ---- */

static void mark_some(void)
{
	int on = dp_markers_init("test");

	printf("on=%d enabled=%d why=%s\n", on, dp_markers_enabled(), dp_markers_error());
	fflush(stdout);
	for (int i = 0; i < 100; i++)
		dp_mark((uint32_t)i);
	dp_mark_name("x");
	dp_marker_define(1, "one");
	dp_markers_uninit();
	/* the verdict, for the parent: exit 10 + on */
	_exit(10 + on + 2 * dp_markers_enabled());
}

static void expect_off(const char *const *env, bool chan, const char *why)
{
	child_out o;

	run_child(mark_some, env, chan, &o);
	if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 10)
		fail_msg("child status 0x%x, stderr: %s", o.status, o.err.p);
	if (why) {
		/* one line on stderr that says why */
		if (!strstr(o.err.p, why))
			fail_msg("stderr '%s' lacks '%s'", o.err.p, why);
		assert_non_null(strchr(o.err.p, '\n'));
		assert_int_equal(strchr(o.err.p, '\n')[1], 0);
	} else {
		assert_string_equal(o.err.p, "");
	}
	/* nothing on the channel but, at most, the warning */
	for (size_t off = 0; off + 8 <= o.chan.len;) {
		const struct dp_rec_header *h = (const void *)(o.chan.p + off);

		assert_int_equal(h->type, DP_REC_WARNING);
		assert_true(dp_agent_record_ok(h, h->size));
		off += h->size;
	}
	free_out(&o);
}

/* expect_off with the collector library at path (DATAPROF_COLLECTOR) */
static void expect_off_with(const char *path, bool chan, const char *why)
{
	char var[4096];
	const char *env[] = {var, NULL};

	assert_true((size_t)snprintf(var, sizeof(var), "DATAPROF_COLLECTOR=%s", path) <
		    sizeof(var));
	expect_off(env, chan, why);
}

static void test_no_collector(void **state)
{
	(void)state;
	expect_off(NULL, true, NULL);
}

static void test_missing_collector(void **state)
{
	(void)state;
	expect_off_with("/nonexistent/libdataprof_collector.so", true,
			"cannot load the collector /nonexistent");
}

static void test_not_a_collector(void **state)
{
	(void)state;
	expect_off_with(FAKE_NO_ENTRY, true,
			"is not a dataprof marker collector (no dp_collector_api_v1)");
}

static void test_other_version(void **state)
{
	(void)state;
	expect_off_with(FAKE_OTHER_VERSION, true, "is of another version (99");
}

static void test_no_channel(void **state)
{
	(void)state;
	expect_off_with(COLLECTOR, false, "no channel to dataprof");
}

/* ---- on: every mark arrives ---- */

#define MAIN_MARKS   1000
#define THREADS      4
#define THREAD_MARKS 500
#define BLOCK        16

static void *thread_marks(void *arg)
{
	for (uint32_t i = 0; i < THREAD_MARKS; i++)
		dp_mark(1000 * (uint32_t)(uintptr_t)arg + i);
	return NULL;
}

static void mark_many(void)
{
	pthread_t t[THREADS];

	if (!dp_markers_init("overflow"))
		_exit(3);
	dp_marker_define(7, "seven");
	for (uintptr_t i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, thread_marks, (void *)(i + 1));
	for (uint32_t i = 0; i < MAIN_MARKS; i++)
		dp_mark(i);
	dp_mark_name("by name");
	dp_mark_name("by name");
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	dp_markers_uninit();
}

typedef struct per_tid {
	uint32_t tid;
	uint64_t marks, flushed, next_id, last_time;
	bool in_order;
} per_tid;

static void test_block_overflow(void **state)
{
	const char *env[] = {"DATAPROF_COLLECTOR=" COLLECTOR, "DATAPROF_MARKER_BLOCK=16", NULL};
	child_out o;
	per_tid tids[THREADS + 1];
	size_t ntids = 0, names = 0, records = 0;
	bool named_seen = false;

	(void)state;
	memset(tids, 0, sizeof(tids));
	run_child(mark_many, env, true, &o);
	assert_true(WIFEXITED(o.status));
	assert_int_equal(WEXITSTATUS(o.status), 0);
	assert_string_equal(o.err.p, "");
	for (size_t off = 0; off + 8 <= o.chan.len;) {
		const struct dp_rec_header *h = (const void *)(o.chan.p + off);

		/* what the recorder would take */
		assert_true(dp_agent_record_ok(h, h->size));
		records++;
		if (h->type == DP_REC_MARKER_NAME) {
			const struct dp_rec_marker_name *n = (const void *)h;

			names++;
			named_seen |= !strcmp((const char *)(n + 1), "by name");
		} else if (h->type == DP_REC_MARKER) {
			const struct dp_rec_marker *m = (const void *)h;
			per_tid *t = NULL;

			for (size_t i = 0; i < ntids && !t; i++)
				if (tids[i].tid == m->tid)
					t = &tids[i];
			if (!t) {
				assert_true(ntids < THREADS + 1);
				t = &tids[ntids++];
				t->tid = m->tid;
				t->in_order = true;
				t->next_id = (uint64_t)-1;
			}
			for (uint32_t i = 0; i < m->n; i++) {
				const struct dp_mark *k = &m->marks[i];

				/* ids come in the order they were marked, times grow */
				if (t->next_id != (uint64_t)-1 && k->id != t->next_id &&
				    !(k->id & DP_MARKER_NAMED))
					t->in_order = false;
				t->next_id = k->id + 1;
				assert_true(k->end >= k->time);
				assert_true(k->time >= t->last_time);
				t->last_time = k->time;
				t->flushed += (k->flags & DP_MARK_FLUSHED) != 0;
				t->marks++;
			}
		}
		off += h->size;
	}
	assert_int_equal(ntids, THREADS + 1);
	for (size_t i = 0; i < ntids; i++) {
		uint64_t want = tids[i].marks > THREAD_MARKS ? MAIN_MARKS + 2 : THREAD_MARKS;

		printf("thread %u: %llu marks, %llu block hand-overs\n", tids[i].tid,
		       (unsigned long long)tids[i].marks, (unsigned long long)tids[i].flushed);
		/* none lost, none twice */
		assert_int_equal(tids[i].marks, want);
		assert_true(tids[i].in_order);
		/* a block of 16 is handed over by the mark after each 16th */
		assert_int_equal(tids[i].flushed, (want - 1) / BLOCK);
	}
	assert_true(named_seen);
	assert_int_equal(names, 3); /* the application, "seven", "by name" once */
	free_out(&o);
}

/* The recorder checks what an agent sends: marks counted right, names ended. */
static void test_agent_records(void **state)
{
	union {
		struct dp_rec_marker m;
		struct dp_rec_marker_name n;
		uint8_t b[256];
	} u;

	(void)state;
	memset(&u, 0, sizeof(u));
	u.m.h.type = DP_REC_MARKER;
	u.m.h.size = sizeof(u.m) + 2 * sizeof(struct dp_mark);
	u.m.n = 2;
	assert_true(dp_agent_record_ok(&u, u.m.h.size));
	u.m.n = 3; /* more than it holds */
	assert_false(dp_agent_record_ok(&u, u.m.h.size));
	u.m.n = 1; /* fewer: bytes nobody reads */
	assert_false(dp_agent_record_ok(&u, u.m.h.size));
	u.m.n = 0;
	u.m.h.size = sizeof(u.m);
	assert_false(dp_agent_record_ok(&u, u.m.h.size));
	memset(&u, 'x', sizeof(u));
	u.n.h.type = DP_REC_MARKER_NAME;
	u.n.h.misc = 0;
	u.n.h.size = sizeof(u.n) + 16;
	assert_false(dp_agent_record_ok(&u, u.n.h.size)); /* no NUL */
	u.b[sizeof(u.n) + 15] = 0;
	assert_true(dp_agent_record_ok(&u, u.n.h.size));
}

TU_MAIN(NULL, NULL, test_no_collector, test_missing_collector, test_not_a_collector,
	test_other_version, test_no_channel, test_block_overflow, test_agent_records)
