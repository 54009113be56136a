/* Draining a ring buffer laid out as the kernel lays it out, with records
 * that wrap around its end; hardware samples (precise, DATA_SRC,
 * WEIGHT_STRUCT) go from the ring through the writer to the reader intact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataprof/profile.h"
#include "profile/writer.h"
#include <asm/perf_regs.h>
#include "sampler/ring.h"
#include "synth_records.h"
#include "tu.h"
#include "tu_group.h"

#define DATA_SIZE 4096

typedef struct fake_ring {
	dp_ring ring;
	struct perf_event_mmap_page *pc;
	uint64_t head;
} fake_ring;

static void fake_init(fake_ring *f)
{
	memset(f, 0, sizeof(*f));
	f->pc = aligned_alloc(4096, 4096 + DATA_SIZE);
	memset(f->pc, 0, 4096 + DATA_SIZE);
	f->ring.base = f->pc;
	f->ring.data = (uint8_t *)f->pc + 4096;
	f->ring.data_size = DATA_SIZE;
	f->ring.bounce = malloc(0x10000);
}

/* The kernel's side: write a record at head, wrapping. */
static void fake_put(fake_ring *f, const void *rec, size_t size)
{
	for (size_t i = 0; i < size; i++)
		f->ring.data[(f->head + i) % DATA_SIZE] = ((const uint8_t *)rec)[i];
	f->head += size;
	f->pc->data_head = f->head;
}

static void fake_free(fake_ring *f)
{
	free(f->pc);
	free(f->ring.bounce);
}

static void collect(void *ctx, const void *rec, size_t size)
{
	dp_writer *w = ctx;
	dp_writer_add(w, rec, size);
}

/* Reads the profile at path back: its samples, in order, to check with
 * their number; how many there were. */
static uint64_t read_back(const char *path, void (*check)(const dp_sample *s, uint64_t n))
{
	dp_error err;
	dp_profile *p = dp_profile_open(path, &err);
	dp_record r;
	uint64_t n = 0;

	assert_non_null(p);
	while (dp_profile_next(p, &r) > 0)
		if (r.kind == DP_R_SAMPLE)
			check(r.sample, n++);
	dp_profile_close(p);
	return n;
}

static struct perf_event_attr pebs_attr(void)
{
	/* MEM_LOAD_RETIRED.L3_MISS */
	struct perf_event_attr a = synth_attr(
	    PERF_TYPE_RAW, 0x20d1,
	    PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER |
		PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC);

	a.precise_ip = 2;
	return a;
}

/* Samples put in a ring and drained from it into a writer, as record
 * does. */
typedef struct ring_run {
	fake_ring f;
	dp_writer w;
	dp_buf b; /* the record to put next */
	char *path;
	size_t put, drained;
} ring_run;

static void run_open(ring_run *r, const char *name, const char *event,
		     const struct perf_event_attr *a, enum dp_ip_semantics ip_sem,
		     enum dp_event_class evclass, const uint64_t *id)
{
	dp_error err;

	memset(r, 0, sizeof(*r));
	r->path = tu_path(name);
	fake_init(&r->f);
	assert_int_equal(dp_writer_open(&r->w, r->path, 0, 0, &err), 0);
	dp_writer_add_event(&r->w, 0, event, a, ip_sem, evclass, id, 1);
}

/* Every sample put was drained and reads back as check says. */
static void run_close(ring_run *r, void (*check)(const dp_sample *s, uint64_t n))
{
	assert_int_equal(r->drained, r->put);
	assert_int_equal(dp_writer_close(&r->w), 0);
	assert_int_equal(read_back(r->path, check), r->put);
	dp_buf_free(&r->b);
	fake_free(&r->f);
	free(r->path);
}

/* Sample n of test_wrapping_hardware_samples, as it put it in the ring. */
static void check_hardware_sample(const dp_sample *s, uint64_t n)
{
	assert_int_equal(s->ip, 0x401000 + n);
	assert_int_equal(s->addr, 0x7f0000 + n * 64);
	assert_int_equal(s->weight, 200 + n);
	assert_int_equal(s->weight2, 9);
	assert_int_equal(s->regs_user.regs[PERF_REG_X86_R15], n * 100 + 19);
	assert_true(s->data_src & PERF_MEM_S(LVLNUM, RAM));
}

static void test_wrapping_hardware_samples(void **state)
{
	struct perf_event_attr a = pebs_attr();
	uint64_t id = 1234, regs[20];
	ring_run r;

	(void)state;
	run_open(&r, "ring.dprof", "MEM_LOAD_RETIRED.L3_MISS:pp", &a, DP_IP_EXACT_AFTER,
		 DP_EVC_LOAD, &id);
	/* 500 samples through a 4 KiB ring: it wraps many times, records split anywhere */
	for (int round = 0; round < 50; round++) {
		for (int k = 0; k < 10; k++) {
			uint64_t n = r.put++;
			for (int i = 0; i < 20; i++)
				regs[i] = n * 100 + (uint64_t)i;
			r.b.len = 0;
			/* L3 miss served from local RAM: op load, lvl miss L3 + loc ram */
			uint64_t data_src = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, MISS) |
					    PERF_MEM_S(LVL, L3) | PERF_MEM_S(LVLNUM, RAM) |
					    PERF_MEM_S(TLB, HIT) | PERF_MEM_S(TLB, L1);
			synth_sample(&r.b, &a, id, 0x401000 + n, 7, 8, 1000 + n, 0x7f0000 + n * 64,
				     1, 10009, (200 + n) | (9ull << 32), data_src, regs, NULL, 0);
			fake_put(&r.f, r.b.p, r.b.len);
		}
		r.drained += dp_ring_drain(&r.f.ring, collect, &r.w);
		assert_int_equal(r.f.pc->data_tail, r.f.head);
	}
	run_close(&r, check_hardware_sample);
}

/* Sample n of test_wrapping_branch_stacks, as it put it in the ring. */
static void check_branch_sample(const dp_sample *s, uint64_t n)
{
	assert_true(s->sample_type & PERF_SAMPLE_BRANCH_STACK);
	assert_int_equal(s->branch_nr, 32 - n % 5);
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		assert_int_equal(s->branches[i].from, 0x401000 + n * 64 + i);
		assert_int_equal(s->branches[i].to, 0x402000 + n * 64 + i);
		assert_int_equal(s->branches[i].mispred, i & 1);
		assert_int_equal(s->branches[i].cycles, n + i);
	}
	assert_int_equal(s->regs_user.abi, PERF_SAMPLE_REGS_ABI_64);
}

/* record -b: cycles samples with 32-entry branch stacks (LBR depth) go
 * from the ring, wrapping, through the writer to the reader with every
 * entry in place, as report and annotate read them. */
static void test_wrapping_branch_stacks(void **state)
{
	struct perf_event_attr a =
	    synth_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
		       PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			   PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER);
	struct perf_branch_entry br[32];
	uint64_t id = 99, regs[20] = {0};
	ring_run r;

	(void)state;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	run_open(&r, "ring_lbr.dprof", "cycles", &a, DP_IP_AFTER, DP_EVC_TIME, &id);
	for (int round = 0; round < 40; round++) {
		for (int k = 0; k < 3; k++) { /* about 1 KiB each: 3 fit the 4 KiB ring */
			uint64_t n = r.put++;

			memset(br, 0, sizeof(br));
			for (int i = 0; i < 32; i++) {
				br[i].from = 0x401000 + n * 64 + (uint64_t)i;
				br[i].to = 0x402000 + n * 64 + (uint64_t)i;
				br[i].mispred = i & 1;
				br[i].cycles = (uint16_t)(n + (uint64_t)i);
			}
			r.b.len = 0;
			synth_sample_br(&r.b, &a, id, 0x401000 + n, 7, 8, 1000 + n, 0, 1, 100000, 0,
					0, regs, NULL, 0, br, 32 - n % 5);
			fake_put(&r.f, r.b.p, r.b.len);
		}
		r.drained += dp_ring_drain(&r.f.ring, collect, &r.w);
	}
	run_close(&r, check_branch_sample);
}

/* A record whose header is split by the end of the ring. */
static void test_split_header(void **state)
{
	fake_ring f;
	dp_writer w;
	dp_error err;
	char *path = tu_path("split.dprof");
	uint64_t rec[4] = {0};
	/* copied in, not written through a cast: rec is an array of uint64_t
	 * (strict aliasing; gcc -O2 warns) */
	struct perf_event_header h = {.type = PERF_RECORD_LOST, .size = sizeof(rec)};

	(void)state;
	fake_init(&f);
	f.head = DATA_SIZE - 4; /* the next header starts 4 bytes before the end */
	f.pc->data_tail = f.head;
	memcpy(rec, &h, sizeof(h));
	rec[1] = 1;
	rec[2] = 77;
	fake_put(&f, rec, sizeof(rec));
	assert_int_equal(dp_writer_open(&w, path, 0, 0, &err), 0);
	assert_int_equal(dp_ring_drain(&f.ring, collect, &w), 1);
	assert_int_equal(w.buf.len, sizeof(rec));
	assert_memory_equal(w.buf.p, rec, sizeof(rec));
	dp_writer_close(&w);
	fake_free(&f);
	free(path);
}

TU_MAIN(NULL, tu_teardown, test_wrapping_hardware_samples, test_wrapping_branch_stacks,
	test_split_header)
