/* The agent channel end to end inside one process: the target's side
 * (agent/channel.c, as the heap tracker and the collector hold it) writing,
 * the recorder's (sampler/agent_sink.c) taking into a profile, read back.
 * Every record sent arrives once, in its thread's order, whichever way it
 * went: a thread's shared ring, given back when the thread ends and taken
 * again by the next; the pipe, for the threads beyond the rings; a ring
 * that wraps many times with its writer waiting for room; a forked child's
 * own ring. Then what the recorder does with rings it cannot trust, the
 * ring's own smaller heap records, and its probe of whether the target may
 * read the TSC for its times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent/chan_ring.h"
#include "agent/channel.h"
#include "dataprof/profile.h"
#include "sampler/agent_sink.h"
#include "sampler/agent_ticks.h"
#include "tu.h"

#define MAX_SENDERS 256

static dp_agent_sink sink;
static dp_writer out;
static char *out_path;

/* A sender's records: FREEs whose size names the sender and whose address
 * counts its records, so that the reader can check each sender's order. */
static void send_records(uint32_t sender, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct dp_rec_free f;

		memset(&f, 0, sizeof(f));
		f.h.type = DP_REC_FREE;
		f.h.size = sizeof(f);
		f.pid = (uint32_t)getpid();
		f.addr = i;
		f.size = sender;
		dp_chan_put(&f, sizeof(f));
	}
}

static size_t owned_rings(void)
{
	size_t n = 0;

	for (int i = 0; i < DP_RING_SLOTS; i++)
		n += __atomic_load_n(&sink.rings->ctl[i].state, __ATOMIC_ACQUIRE) !=
		     DP_RING_SLOT_FREE;
	return n;
}

static int pipe_bytes(void)
{
	int n = 0;

	assert_int_equal(ioctl(sink.rfd, FIONREAD, &n), 0);
	return n;
}

/* ---- senders ---- */

typedef struct sender {
	pthread_t t;
	uint32_t id, n;
	pthread_barrier_t *sent, *go; /* NULL: none */
} sender;

static void *sender_main(void *arg)
{
	sender *s = arg;

	send_records(s->id, s->n);
	if (s->sent) {
		dp_chan_flush();
		pthread_barrier_wait(s->sent);
		pthread_barrier_wait(s->go);
	}
	return NULL; /* the thread's end sends the rest and gives its ring back */
}

/* ---- reading the profile back ---- */

typedef struct got {
	uint32_t next[MAX_SENDERS]; /* each sender's next record */
	size_t out_of_order, warnings;
} got;

static void read_back(got *g)
{
	dp_error err;
	dp_profile *p;
	dp_record r;

	dp_agent_sink_drain(&sink, &out);
	dp_agent_sink_flush(&sink, &out, true);
	assert_int_equal(dp_writer_close(&out), 0);
	p = dp_profile_open(out_path, &err);
	assert_non_null(p);
	memset(g, 0, sizeof(*g));
	while (dp_profile_next(p, &r) > 0) {
		if (r.kind == DP_R_WARNING)
			g->warnings++;
		if (r.kind != DP_R_FREE)
			continue;
		assert_true(r.free_rec->size < MAX_SENDERS);
		if (r.free_rec->addr != g->next[r.free_rec->size])
			g->out_of_order++;
		g->next[r.free_rec->size] = (uint32_t)r.free_rec->addr + 1;
	}
	dp_profile_close(p);
}

static void start_profile(void)
{
	dp_error err;

	assert_int_equal(dp_writer_open(&out, out_path, 1, 1, &err), 0);
}

/* 100 threads one after another, each ending before the next begins: each
 * sends through a ring (nothing in the pipe), and gives it back, so that
 * after the recorder's drain no ring is held and the next thread takes one
 * again. 64 rings would not have lasted otherwise. */
static void test_rings_given_back(void **state)
{
	got g;

	(void)state;
	start_profile();
	for (uint32_t id = 1; id <= 100; id++) {
		sender s = {.id = id, .n = 300};

		assert_int_equal(pthread_create(&s.t, NULL, sender_main, &s), 0);
		pthread_join(s.t, NULL);
		assert_int_equal(pipe_bytes(), 0);
		assert_int_equal(owned_rings(), 1); /* closed, not yet taken from */
		dp_agent_sink_drain(&sink, &out);
		assert_int_equal(owned_rings(), 0);
	}
	read_back(&g);
	for (uint32_t id = 1; id <= 100; id++)
		assert_int_equal(g.next[id], 300);
	assert_int_equal(g.out_of_order, 0);
	assert_int_equal(g.warnings, 0);
}

/* 80 threads at once: 64 take the rings, the other 16 write to the pipe
 * (3 KiB each: a pipe of the kernel's default size holds them all); all of
 * it arrives, in each thread's order. */
static void test_more_threads_than_rings(void **state)
{
	enum { N = 80 };
	sender s[N];
	pthread_barrier_t sent, go;
	got g;

	(void)state;
	start_profile();
	pthread_barrier_init(&sent, NULL, N + 1);
	pthread_barrier_init(&go, NULL, N + 1);
	for (uint32_t i = 0; i < N; i++) {
		s[i] = (sender){.id = 101 + i, .n = 64, .sent = &sent, .go = &go};
		assert_int_equal(pthread_create(&s[i].t, NULL, sender_main, &s[i]), 0);
	}
	pthread_barrier_wait(&sent);
	assert_int_equal(owned_rings(), DP_RING_SLOTS);
	assert_int_equal(pipe_bytes(), (N - DP_RING_SLOTS) * 64 * 48);
	pthread_barrier_wait(&go);
	for (uint32_t i = 0; i < N; i++)
		pthread_join(s[i].t, NULL);
	read_back(&g);
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(g.next[101 + i], 64);
	assert_int_equal(g.out_of_order, 0);
	assert_int_equal(owned_rings(), 0);
	pthread_barrier_destroy(&sent);
	pthread_barrier_destroy(&go);
}

/* One thread sends 5 rings' worth while the recorder drains now and then:
 * the ring wraps, and its writer waits for room rather than losing any. */
static void test_ring_wraps(void **state)
{
	sender s = {.id = 200, .n = 5 * DP_RING_SLOT_BYTES / 48};
	struct timespec ms = {0, 1000000};
	got g;
	int done = 0;

	(void)state;
	start_profile();
	assert_int_equal(pthread_create(&s.t, NULL, sender_main, &s), 0);
	while (!done) {
		nanosleep(&ms, NULL);
		dp_agent_sink_drain(&sink, &out);
		done = pthread_tryjoin_np(s.t, NULL) == 0;
	}
	assert_int_equal(pipe_bytes(), 0);
	read_back(&g);
	assert_int_equal(g.next[200], s.n);
	assert_int_equal(g.out_of_order, 0);
	assert_int_equal(dp_chan_dropped(), 0);
}

/* A forked child takes a ring of its own (the parent's thread keeps its
 * one) and gives it back when it closes the channel, as it does at exit. */
static void test_forked_child(void **state)
{
	pid_t pid;
	int status;
	got g;

	(void)state;
	start_profile();
	send_records(201, 100);
	dp_chan_flush();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		send_records(202, 150);
		dp_chan_close();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(pipe_bytes(), 0);
	assert_int_equal(owned_rings(), 2);
	read_back(&g);
	assert_int_equal(g.next[201], 100);
	assert_int_equal(g.next[202], 150);
	assert_int_equal(owned_rings(), 1); /* the parent's, held */
}

/* ---- rings the recorder cannot trust (a sink of their own) ---- */

typedef struct spoiler {
	void (*spoil)(dp_agent_sink *k);
} spoiler;

static void test_hostile(void **state)
{
	const spoiler *how = *state;
	dp_agent_sink k;
	dp_writer w;
	dp_error err;
	char *path = tu_path("hostile_ring.dprof");
	dp_profile *p;
	dp_record r;
	size_t warnings = 0, frees = 0;

	assert_int_equal(dp_agent_sink_open(&k, &err), 0);
	assert_non_null(k.rings);
	assert_int_equal(dp_writer_open(&w, path, 1, 1, &err), 0);
	how->spoil(&k);
	dp_agent_sink_drain(&k, &w);
	assert_true(k.broken);
	/* no writer is left waiting for room: every tail is its head */
	for (int i = 0; i < DP_RING_SLOTS; i++)
		assert_true(k.rings->ctl[i].tail == k.rings->ctl[i].head || i == 0);
	dp_agent_sink_drain(&k, &w);
	for (int i = 0; i < DP_RING_SLOTS; i++)
		assert_true(k.rings->ctl[i].tail == k.rings->ctl[i].head);
	dp_agent_sink_flush(&k, &w, true);
	assert_int_equal(dp_writer_close(&w), 0);
	dp_agent_sink_close(&k);
	p = dp_profile_open(path, &err);
	assert_non_null(p);
	while (dp_profile_next(p, &r) > 0) {
		warnings += r.kind == DP_R_WARNING;
		frees += r.kind == DP_R_FREE;
	}
	dp_profile_close(p);
	assert_int_equal(warnings, 1);
	assert_int_equal(frees, 0);
	free(path);
}

static void head_too_far(dp_agent_sink *k)
{
	k->rings->ctl[0].state = DP_RING_SLOT_OWNED;
	k->rings->ctl[0].head = 2 * DP_RING_SLOT_BYTES;
}

static void head_behind(dp_agent_sink *k)
{
	k->rings->ctl[0].state = DP_RING_SLOT_OWNED;
	k->rings->ctl[0].head = (uint64_t)-8;
}

static void record_cut(dp_agent_sink *k)
{
	struct dp_rec_free f;
	uint8_t *data = (uint8_t *)k->rings + DP_RING_DATA_OFF + 5 * (size_t)DP_RING_SLOT_BYTES;

	memset(&f, 0, sizeof(f));
	f.h.type = DP_REC_FREE;
	f.h.size = sizeof(f);
	memcpy(data, &f, 24); /* half a record, published as if whole */
	k->rings->ctl[5].state = DP_RING_SLOT_OWNED;
	k->rings->ctl[5].head = 24;
}

static const spoiler too_far = {head_too_far}, behind = {head_behind}, cut = {record_cut};

/* The recorder frees a slot whose thread is gone. A slot once took its new
 * owner's tid after its state, and in between the recorder found the last
 * owner's tid gone and freed it under the new owner (who then waited for
 * room forever: python started through pyenv's shims in test_corpus). A
 * slot's state and tid now change in one compare-and-swap, so a slot
 * being taken has its taker's tid: if that thread is gone (killed while
 * taking it), the slot is freed, else it is left alone, as it fills
 * nothing yet. An owned slot whose thread is gone is freed too. */
static void test_taking_slot_by_its_tid(void **state)
{
	dp_agent_sink k;
	dp_writer w;
	dp_error err;
	char *path = tu_path("taking.dprof");
	pid_t gone = fork();

	(void)state;
	if (gone == 0)
		_exit(0);
	assert_true(gone > 0);
	assert_int_equal(waitpid(gone, NULL, 0), gone);
	assert_int_equal(dp_agent_sink_open(&k, &err), 0);
	assert_int_equal(dp_writer_open(&w, path, 1, 1, &err), 0);
	k.rings->ctl[2].state_tid =
	    dp_ring_state_tid(DP_RING_SLOT_TAKING, (uint32_t)syscall(SYS_gettid));
	k.rings->ctl[3].state_tid = dp_ring_state_tid(DP_RING_SLOT_TAKING, (uint32_t)gone);
	k.rings->ctl[4].state_tid = dp_ring_state_tid(DP_RING_SLOT_OWNED, (uint32_t)gone);
	assert_int_equal(k.rings->ctl[3].state, DP_RING_SLOT_TAKING);
	assert_int_equal(k.rings->ctl[3].tid, (uint32_t)gone);
	k.ring_checked = 0; /* the owners are looked for at this drain */
	dp_agent_sink_drain(&k, &w);
	assert_int_equal(k.rings->ctl[2].state, DP_RING_SLOT_TAKING);
	assert_int_equal(k.rings->ctl[3].state, DP_RING_SLOT_FREE);
	assert_int_equal(k.rings->ctl[4].state, DP_RING_SLOT_FREE);
	dp_agent_sink_flush(&k, &w, true);
	assert_int_equal(dp_writer_close(&w), 0);
	dp_agent_sink_close(&k);
	free(path);
}

/* ---- the ring's own heap records (agent/chan_ring.h) ---- */

/* A thread's records: a ring FREE before the ring has said its thread
 * (dropped), a whole FREE that says it, then ring ALLOCs and FREEs, which
 * the recorder writes out as the profile's with that thread. A ring FREE
 * has no time: it takes the next ALLOC's, and the last one, which no ALLOC
 * follows, the time of the flush after the thread ended. The second ALLOC
 * takes its frames from the chain table's place 5, where the first put
 * them; one that names an empty place is dropped. */
static void put_ring_alloc(uint64_t time, uint64_t addr, unsigned place, bool ref)
{
	uint64_t buf[(sizeof(struct dp_ring_alloc) + 16) / 8];
	struct dp_ring_alloc *ra = (void *)buf;
	uint16_t size = ref ? sizeof(*ra) : sizeof(buf);

	ra->h = (struct dp_rec_header){DP_RING_REC_ALLOC, (uint16_t)(place << 8), size};
	ra->time = time;
	ra->addr = addr;
	ra->size_kind_n = 96 | (uint64_t)DP_ALLOC_CALLOC << DP_RING_SIZE_BITS | 2ull << 56 |
			  (ref ? DP_RING_CHAIN_REF : 0);
	ra->frames[0] = 0x401000;
	ra->frames[1] = 0x402000 | 3ull << 48;
	dp_chan_put(buf, size);
}

static void put_ring_free(uint64_t addr)
{
	struct dp_ring_free rf = {{DP_RING_REC_FREE, (uint16_t)(DP_ALLOC_REALLOC << 8), sizeof(rf)},
				  addr};

	dp_chan_put(&rf, sizeof(rf));
}

/* A whole FREE (of 0x6000), which says the ring's thread: pid, tid. */
static void say_thread(uint32_t pid, uint32_t tid)
{
	struct dp_rec_free f;

	memset(&f, 0, sizeof(f));
	f.h.type = DP_REC_FREE;
	f.h.size = sizeof(f);
	f.pid = pid;
	f.tid = tid;
	f.addr = 0x6000;
	dp_chan_put(&f, sizeof(f));
}

/* Runs fn in a thread of its own, which writes to its ring only; once it
 * ended (*ended: when, if asked), the sink's drain and flush make the
 * profile, opened. */
static dp_profile *profile_of_thread(void *(*fn)(void *), uint64_t *ended)
{
	pthread_t t;
	dp_error err;
	dp_profile *p;

	start_profile();
	assert_int_equal(pthread_create(&t, NULL, fn, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	if (ended)
		*ended = dp_now_ns();
	assert_int_equal(pipe_bytes(), 0);
	dp_agent_sink_drain(&sink, &out);
	dp_agent_sink_flush(&sink, &out, true);
	assert_int_equal(dp_writer_close(&out), 0);
	p = dp_profile_open(out_path, &err);
	assert_non_null(p);
	return p;
}

static void *ring_records_main(void *arg)
{
	(void)arg;
	put_ring_free(0x5000);
	say_thread(4242, 77);
	put_ring_alloc(10, 0x4000, 5, false);
	put_ring_free(0x5000);
	put_ring_free(0x5010);
	put_ring_alloc(25, 0x4100, 5, true);
	put_ring_alloc(26, 0x4200, 9, true); /* nothing there: dropped */
	put_ring_free(0x5100);
	return NULL;
}

static void test_ring_records(void **state)
{
	uint64_t rejected = sink.rejected, ended;
	size_t allocs = 0, frees = 0, at = 0;
	dp_profile *p;
	dp_record r;

	(void)state;
	p = profile_of_thread(ring_records_main, &ended);
	assert_int_equal(sink.rejected, rejected + 2);
	/* in the thread's order: ALLOC 0x4000, FREE 0x5000 and 0x5010 at the
	 * next ALLOC's time, ALLOC 0x4100, FREE 0x5100 at the flush */
	while (dp_profile_next(p, &r) > 0) {
		if (r.kind == DP_R_ALLOC && r.alloc->pid == 4242) {
			assert_int_equal(r.alloc->tid, 77);
			assert_int_equal(r.alloc->time, r.alloc->addr == 0x4000 ? 10 : 25);
			assert_int_equal(r.alloc->addr, at ? 0x4100 : 0x4000);
			assert_int_equal(at, at ? 3 : 0);
			assert_int_equal(r.alloc->size, 96);
			assert_int_equal(r.alloc->kind, DP_ALLOC_CALLOC);
			assert_int_equal(r.alloc->nframes, 2);
			assert_int_equal(r.alloc->frames[0], 0x401000);
			assert_int_equal(r.alloc->frames[1], 0x402000 | 3ull << 48);
			allocs++;
			at++;
		} else if (r.kind == DP_R_FREE && r.free_rec->addr != 0x6000) {
			assert_int_equal(r.free_rec->pid, 4242);
			assert_int_equal(r.free_rec->tid, 77);
			assert_int_equal(r.free_rec->kind, DP_ALLOC_REALLOC);
			assert_int_equal(r.free_rec->size, 0);
			if (r.free_rec->addr == 0x5100) {
				assert_int_equal(at, 4);
				assert_true(r.free_rec->time >= ended);
			} else {
				assert_int_equal(r.free_rec->addr, at == 1 ? 0x5000 : 0x5010);
				assert_in_range(at, 1, 2);
				assert_int_equal(r.free_rec->time, 25);
			}
			frees++;
			at++;
		}
	}
	dp_profile_close(p);
	assert_int_equal(allocs, 2);
	assert_int_equal(frees, 3); /* the one before the thread was told is not there */
}

/* A thread that frees more than the recorder holds for it: the FREEs held
 * go out at the thread's last time, in its order, and the rest at its next
 * ALLOC's. */
static void *many_frees_main(void *arg)
{
	(void)arg;
	say_thread(4243, 78);
	put_ring_alloc(10, 0x4000, 0, false);
	for (uint64_t i = 0; i < 6; i++)
		put_ring_free(0x7000 + i * 16);
	put_ring_alloc(30, 0x4100, 0, false);
	return NULL;
}

static void test_ring_frees_held_at_most(void **state)
{
	uint64_t next = 0x7000;
	dp_profile *p;
	dp_record r;

	(void)state;
	sink.held_max = 4 * sizeof(struct dp_ring_free);
	p = profile_of_thread(many_frees_main, NULL);
	sink.held_max = 0;
	while (dp_profile_next(p, &r) > 0) {
		if (r.kind != DP_R_FREE || r.free_rec->tid != 78 || r.free_rec->addr < 0x7000)
			continue;
		assert_int_equal(r.free_rec->addr, next);
		/* four held, then out with the fifth at the last ALLOC's time */
		assert_int_equal(r.free_rec->time, next < 0x7040 ? 10 : 30);
		next += 16;
	}
	dp_profile_close(p);
	assert_int_equal(next, 0x7000 + 6 * 16);
}

/* A file of a --switch-output series ends while a thread that freed has
 * not allocated since: its FREE goes out in that file at the thread's last
 * time, which the thread's next records follow. */
static sem_t freed, switched;

static void *switch_main(void *arg)
{
	(void)arg;
	say_thread(4244, 79);
	put_ring_alloc(10, 0x4000, 0, false);
	put_ring_free(0x9000);
	dp_chan_flush();
	sem_post(&freed);
	sem_wait(&switched);
	put_ring_alloc(20, 0x4100, 0, false);
	return NULL;
}

static void test_ring_frees_at_a_switch(void **state)
{
	size_t seen = 0;
	pthread_t t;
	dp_error err;
	dp_profile *p;
	dp_record r;

	(void)state;
	start_profile();
	sem_init(&freed, 0, 0);
	sem_init(&switched, 0, 0);
	assert_int_equal(pthread_create(&t, NULL, switch_main, NULL), 0);
	sem_wait(&freed);
	dp_agent_sink_drain(&sink, &out);
	dp_agent_sink_flush(&sink, &out, false); /* the file ends; the thread goes on */
	sem_post(&switched);
	assert_int_equal(pthread_join(t, NULL), 0);
	dp_agent_sink_drain(&sink, &out);
	dp_agent_sink_flush(&sink, &out, true);
	assert_int_equal(dp_writer_close(&out), 0);
	p = dp_profile_open(out_path, &err);
	assert_non_null(p);
	while (dp_profile_next(p, &r) > 0)
		if (r.kind == DP_R_FREE && r.free_rec->addr == 0x9000) {
			assert_int_equal(r.free_rec->time, 10);
			seen++;
		}
	dp_profile_close(p);
	assert_int_equal(seen, 1);
}

/* ---- whether the TSC may stand for the clock (sampler/agent_ticks.c) ---- */

static void test_ticks_agree(void **state)
{
	/* 2.5 ticks per ns, the first CPU's pairs 100 us apart */
	dp_clock_pair a = {1000000, 5000000}, b = {1250000, 5100000};
	dp_clock_pair same[] = {{1100000, 5040000}, {1200000, 5080001}};
	dp_clock_pair skewed[] = {{1100000, 5040000}, {1200000, 5085000}}; /* 5 us off */
	dp_clock_pair before[] = {{900000, 4960000}}; /* not taken between a and b */

	(void)state;
	assert_true(dp_agent_ticks_agree(a, b, same, 2));
	assert_true(dp_agent_ticks_agree(a, b, NULL, 0)); /* one CPU */
	assert_false(dp_agent_ticks_agree(a, b, skewed, 2));
	assert_false(dp_agent_ticks_agree(a, b, before, 1));
	assert_false(dp_agent_ticks_agree(b, a, same, 2)); /* the clock went back */
	/* this machine: whatever the answer, the probe leaves the affinity as it found it */
	cpu_set_t before_set, after_set;
	assert_int_equal(sched_getaffinity(0, sizeof(before_set), &before_set), 0);
	(void)dp_agent_ticks_probe();
	assert_int_equal(sched_getaffinity(0, sizeof(after_set), &after_set), 0);
	assert_true(CPU_EQUAL(&before_set, &after_set));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rings_given_back),
	    cmocka_unit_test(test_more_threads_than_rings),
	    cmocka_unit_test(test_ring_wraps),
	    cmocka_unit_test(test_forked_child),
	    cmocka_unit_test_prestate(test_hostile, (void *)&too_far),
	    cmocka_unit_test_prestate(test_hostile, (void *)&behind),
	    cmocka_unit_test_prestate(test_hostile, (void *)&cut),
	    cmocka_unit_test(test_taking_slot_by_its_tid),
	    cmocka_unit_test(test_ring_records),
	    cmocka_unit_test(test_ring_frees_held_at_most),
	    cmocka_unit_test(test_ring_frees_at_a_switch),
	    cmocka_unit_test(test_ticks_agree),
	};
	dp_error err;
	char fd[16];
	int rc;

	out_path = tu_path("agent_channel.dprof");
	if (dp_agent_sink_open(&sink, &err) < 0 || !sink.rings) {
		fprintf(stderr, "cannot open the agent channel with rings\n");
		return 1;
	}
	/* the channel reads these once, at its first use */
	snprintf(fd, sizeof(fd), "%d", sink.wfd);
	setenv(DP_AGENT_FD_ENV, fd, 1);
	snprintf(fd, sizeof(fd), "%d", sink.ring_fd);
	setenv(DP_AGENT_RING_ENV, fd, 1);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	dp_agent_sink_close(&sink);
	free(out_path);
	return rc;
}
