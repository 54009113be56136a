/* Parsing kernel sample records: every field, and every truncation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <asm/perf_regs.h>

#include "profile/perf_record.h"
#include "synth_records.h"
#include "tu_group.h"

/* The header of a record built in a u64 array (memcpy: no type punning). */
static void set_header(uint64_t *rec, uint32_t type, size_t size)
{
	struct perf_event_header h = {type, 0, (uint16_t)size};

	memcpy(rec, &h, sizeof(h));
}

static struct perf_event_attr full_attr(void)
{
	return synth_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
			  PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
			      PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			      PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC);
}

static void test_every_field(void **state)
{
	struct perf_event_attr a = full_attr();
	uint64_t regs[20], chain[3] = {0x401000, 0x401100, 0x401200};
	/* weight struct: var1 = 350 cycles, var2 (instruction latency) = 12 */
	uint64_t weight = 350 | (12ull << 32);
	dp_buf b = {0};
	dp_sample s;

	(void)state;
	for (int i = 0; i < 20; i++)
		regs[i] = 0x1000 + (uint64_t)i;
	synth_sample(&b, &a, 77, 0x401234, 10, 11, 123456789, 0x7fff0000, 1, 10009, weight,
		     0x68100142ull, regs, chain, 3);
	assert_int_equal(dp_perf_parse_sample(&a, b.p, b.len, &s), 0);
	assert_int_equal(s.id, 77);
	assert_int_equal(s.ip, 0x401234);
	assert_int_equal(s.pid, 10);
	assert_int_equal(s.tid, 11);
	assert_int_equal(s.time, 123456789);
	assert_int_equal(s.addr, 0x7fff0000);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.period, 10009);
	assert_int_equal(s.weight, 350);
	assert_int_equal(s.weight2, 12);
	assert_int_equal(s.data_src, 0x68100142ull);
	assert_int_equal(s.callchain_nr, 3);
	assert_int_equal(s.callchain[2], 0x401200);
	assert_int_equal(s.regs_user.abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(s.regs_user.mask, 0xff0fff);
	/* registers land at their perf numbers: AX=0 ... SS=11, R8=16 ... R15=23 */
	assert_int_equal(s.regs_user.regs[PERF_REG_X86_AX], 0x1000);
	assert_int_equal(s.regs_user.regs[PERF_REG_X86_SS], 0x100b);
	assert_int_equal(s.regs_user.regs[PERF_REG_X86_R8], 0x100c);
	assert_int_equal(s.regs_user.regs[PERF_REG_X86_R15], 0x1013);
	dp_buf_free(&b);
}

/* Every shorter length must be refused, never read past the end (ASan). */
static void test_truncations(void **state)
{
	struct perf_event_attr a = full_attr();
	uint64_t regs[20] = {0}, chain[2] = {1, 2};
	dp_buf b = {0};
	dp_sample s;

	(void)state;
	synth_sample(&b, &a, 1, 2, 3, 4, 5, 6, 0, 1, 0, 0, regs, chain, 2);
	for (size_t len = 0; len < b.len; len++) {
		char *copy = malloc(len ? len : 1);
		memcpy(copy, b.p, len);
		assert_int_equal(dp_perf_parse_sample(&a, copy, len, &s), -1);
		free(copy);
	}
	dp_buf_free(&b);
}

/* A call chain count larger than the record must not be trusted. */
static void test_hostile_callchain(void **state)
{
	struct perf_event_attr a;
	uint64_t rec[4];
	dp_sample s;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.sample_type = PERF_SAMPLE_CALLCHAIN;
	rec[0] = 0;
	set_header(rec, PERF_RECORD_SAMPLE, sizeof(rec));
	rec[1] = 0x1fffffffffffffffull; /* nr */
	rec[2] = rec[3] = 0;
	assert_int_equal(dp_perf_parse_sample(&a, rec, sizeof(rec), &s), -1);
}

static void test_sample_id_trailer(void **state)
{
	struct perf_event_attr a = full_attr();
	struct {
		struct perf_event_header h;
		uint64_t id, ignored;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t ident;
	} rec = {{PERF_RECORD_LOST, 0, sizeof(rec)}, 5, 9, 100, 101, 42, 1, 0, 99};
	dp_sample_id sid;
	uint64_t id;

	(void)state;
	assert_int_equal(dp_perf_parse_sample_id(&a, &rec, sizeof(rec), &sid), 0);
	assert_int_equal(sid.pid, 100);
	assert_int_equal(sid.tid, 101);
	assert_int_equal(sid.time, 42);
	assert_int_equal(sid.cpu, 1);
	assert_int_equal(sid.id, 99);
	assert_int_equal(dp_perf_record_id(&a, &rec, sizeof(rec), &id), 0);
	assert_int_equal(id, 99);
}

static void test_mmap2_build_id(void **state)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		uint8_t bid_size, r1;
		uint16_t r2;
		uint8_t bid[20];
		uint32_t prot, flags;
		char name[16];
	} m = {{PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID, sizeof(m)},
	       7, 8, 0x400000, 0x1000, 0, 20, 0, 0, {0xab, 0xcd}, 5, 2, "/bin/true"};
	dp_record r;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(dp_perf_decode_side_record(&m, sizeof(m), &r), 0);
	assert_int_equal(r.kind, DP_R_MMAP);
	assert_int_equal(r.mmap.build_id_size, 20);
	assert_int_equal(r.mmap.build_id[0], 0xab);
	assert_int_equal(r.mmap.start, 0x400000);
	assert_true(r.mmap.exec);
	assert_string_equal(r.mmap.filename, "/bin/true");
	/* a name without its terminating NUL is refused */
	memset(m.name, 'x', sizeof(m.name));
	assert_int_equal(dp_perf_decode_side_record(&m, sizeof(m), &r), -1);
}

/* The rarer fields, in the kernel's order: READ of a group, BRANCH_STACK
 * with hw_idx (and Linux 6.8's counters), REGS_INTR, PHYS_ADDR, CGROUP, the
 * page sizes, and AUX last though its bit is below CGROUP's. */
static void check_rare_fields(bool counters)
{
	struct perf_event_attr a;
	uint64_t rec[64], *w = rec + 1;
	dp_sample s;

	memset(&a, 0, sizeof(a));
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_READ |
			PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR |
			PERF_SAMPLE_AUX | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |
			PERF_SAMPLE_CODE_PAGE_SIZE;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX;
	if (counters)
		a.branch_sample_type |= DP_SAMPLE_BRANCH_COUNTERS;
	a.sample_regs_intr = (1ull << PERF_REG_X86_AX) | (1ull << PERF_REG_X86_IP);
	*w++ = 77;       /* identifier */
	*w++ = 0x401000; /* ip */
	*w++ = 2;        /* read: nr, time_enabled, {value, id} x 2 */
	*w++ = 1000;
	*w++ = 11;
	*w++ = 501;
	*w++ = 22;
	*w++ = 502;
	*w++ = 1;          /* branches: nr, hw_idx, one entry (from, to, flags) */
	*w++ = 5;
	*w++ = 0x401100;
	*w++ = 0x401200;
	*w++ = 0;
	if (counters)
		*w++ = 3; /* one counter per branch */
	*w++ = PERF_SAMPLE_REGS_ABI_64;
	*w++ = 0xaaaa; /* ax */
	*w++ = 0x401000; /* ip */
	*w++ = 0x12345000; /* phys_addr */
	*w++ = 42;         /* cgroup */
	*w++ = 4096;       /* data page size */
	*w++ = 2u << 20;   /* code page size */
	*w++ = 8;          /* aux size, then the data */
	*w++ = 0x5555;
	rec[0] = 0;
	set_header(rec, PERF_RECORD_SAMPLE, (uint16_t)((w - rec) * 8));
	assert_int_equal(dp_perf_parse_sample(&a, rec, (size_t)(w - rec) * 8, &s), 0);
	assert_int_equal(s.id, 77);
	assert_int_equal(s.read_size, 6 * 8);
	assert_int_equal(((const uint64_t *)s.read)[5], 502);
	assert_int_equal(s.branch_nr, 1);
	assert_int_equal(s.branch_hw_idx, 5);
	assert_int_equal(s.branches[0].to, 0x401200);
	assert_int_equal(s.regs_intr.abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(s.regs_intr.regs[PERF_REG_X86_AX], 0xaaaa);
	assert_int_equal(s.regs_intr.regs[PERF_REG_X86_IP], 0x401000);
	assert_int_equal(s.phys_addr, 0x12345000);
	assert_int_equal(s.cgroup, 42);
	assert_int_equal(s.data_page_size, 4096);
	assert_int_equal(s.code_page_size, 2u << 20);
	assert_int_equal(s.aux_size, 8);
	assert_int_equal(*(const uint64_t *)s.aux, 0x5555);
	/* cut short anywhere: refused */
	for (size_t len = 8; len < (size_t)(w - rec) * 8; len += 8)
		assert_int_equal(dp_perf_parse_sample(&a, rec, len, &s), -1);
}

static void test_rare_fields(void **state)
{
	(void)state;
	check_rare_fields(false);
	check_rare_fields(true);
}

/* Raw data the kernel did not pad would leave the branch entries after it
 * misaligned (found by fuzz_perf_record): refused. */
static void test_raw_padding(void **state)
{
	struct perf_event_attr a;
	uint64_t rec[4] = {0};
	dp_sample s;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.sample_type = PERF_SAMPLE_RAW;
	set_header(rec, PERF_RECORD_SAMPLE, sizeof(rec));
	rec[1] = 4; /* size 4: 4 + 4 bytes, aligned */
	assert_int_equal(dp_perf_parse_sample(&a, rec, 16, &s), 0);
	assert_int_equal(s.raw_size, 4);
	rec[1] = 5;
	assert_int_equal(dp_perf_parse_sample(&a, rec, sizeof(rec), &s), -1);
}

static void test_aux_record(void **state)
{
	uint64_t rec[4] = {0, 0x1000, 0x200, PERF_AUX_FLAG_TRUNCATED};
	dp_record r;

	(void)state;
	set_header(rec, PERF_RECORD_AUX, sizeof(rec));
	memset(&r, 0, sizeof(r));
	assert_int_equal(dp_perf_decode_side_record(rec, sizeof(rec), &r), 0);
	assert_int_equal(r.kind, DP_R_AUX);
	assert_int_equal(r.aux.offset, 0x1000);
	assert_int_equal(r.aux.size, 0x200);
	assert_int_equal(r.aux.flags, PERF_AUX_FLAG_TRUNCATED);
	assert_int_equal(dp_perf_decode_side_record(rec, 24, &r), -1);
	assert_string_equal(dp_perf_record_type_name(PERF_RECORD_SWITCH), "SWITCH");
	assert_string_equal(dp_perf_record_type_name(83), "COMPRESSED2");
	assert_null(dp_perf_record_type_name(200));
}

TU_MAIN(NULL, NULL, test_every_field, test_truncations, test_hostile_callchain,
	test_sample_id_trailer, test_mmap2_build_id, test_rare_fields, test_raw_padding,
	test_aux_record)
