/* The heap codec (profile/heap_codec.h): records come back byte for byte,
 * the compact forms and the verbatim one mixed (other record types, flags
 * in misc, too many frames, threads that change, times that go back), and
 * any cut or changed byte of an encoding decodes to whole records or stops,
 * never past its output. Chains that take turns behind one first frame
 * cost codec 2 their place in its table, and codec 1's encodings (files
 * written before) still decode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dataprof/format.h"
#include "profile/heap_codec.h"
#include "synth_records.h"
#include "tu_group.h"
#include "tu_rand.h"

#define CAP (1u << 20)

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return tu_xorshift64(&rnd_state);
}

/* Appends records like the tracker's, with every odd case now and then. */
static size_t make_records(uint8_t *buf, size_t want)
{
	static const uint64_t sites[4][5] = {
	    {0x55550000a000, 0x0006555500001000, 0x0010555500002000, 0x7f0000001000},
	    {0x55550000b000, 0x0008555500003000},
	    {0x7f000000c000, 0x000c7f000000d000, 0x00147f000000e000, 0x00205555000f0000,
	     0x0028555500010000},
	    {0x55550000a000, 0x0006555500001000, 0x0011555500002008},
	};
	static const uint32_t nsites[4] = {4, 2, 5, 3};
	size_t len = 0;
	uint64_t time = 1000000000, addr = 0x555500100000;

	while (len + 512 < want) {
		unsigned r = (unsigned)(rnd() % 100);
		uint32_t tid = 100 + (uint32_t)(rnd() % 3);

		time += rnd() % 2000;
		if (r < 5) /* a time from another thread's batch, earlier */
			time -= 5000;
		if (r < 45) {
			struct dp_rec_alloc a;
			unsigned s = (unsigned)(rnd() % 4);
			uint32_t n = r == 7 ? 20 : r == 8 ? 0 : nsites[s];

			SYNTH_REC_START(a, DP_REC_ALLOC, time, r == 10 ? 7 : 42, tid);
			a.h.misc = r == 9 ? 1 : 0;
			a.h.size = (uint16_t)(sizeof(a) + n * 8);
			addr += (rnd() % 4096) - 1024;
			a.addr = addr;
			a.size = rnd() % (r == 11 ? UINT64_MAX : 5000);
			a.kind = 1 + (uint32_t)(rnd() % 5);
			a.nframes = n;
			memcpy(buf + len, &a, sizeof(a));
			for (uint32_t i = 0; i < n; i++) {
				uint64_t f = sites[s][i % nsites[s]] + (r == 12 ? rnd() : 0);
				memcpy(buf + len + sizeof(a) + i * 8, &f, 8);
			}
			len += a.h.size;
		} else if (r < 90) {
			struct dp_rec_free f;

			SYNTH_REC_START(f, DP_REC_FREE, time, 42, tid);
			f.addr = addr - rnd() % 100000;
			f.kind = r == 50 ? DP_ALLOC_MMAP : 0;
			f.size = r == 50 ? 1 << 20 : 0;
			f.reserved = r == 51 ? 3 : 0;
			memcpy(buf + len, &f, sizeof(f));
			len += sizeof(f);
		} else {
			struct dp_rec_thread t;

			SYNTH_REC_START(t, DP_REC_THREAD, time, 42, tid);
			t.fs_base = rnd();
			memcpy(buf + len, &t, sizeof(t));
			len += sizeof(t);
		}
	}
	return len;
}

static void test_round_trip(void **unused)
{
	uint8_t *recs = malloc(CAP), *coded = malloc(dp_heap_encode_bound(CAP)),
		*back = malloc(CAP);
	size_t len = make_records(recs, CAP / 2), n, m;
	int damaged = 0;

	(void)unused;
	n = dp_heap_encode(recs, len, coded);
	assert_true(n <= dp_heap_encode_bound(len));
	assert_true(n < len / 2); /* the point of it */
	m = dp_heap_decode(coded, n, DP_HEAP_CODEC, back, CAP, &damaged);
	assert_int_equal(damaged, 0);
	assert_int_equal(m, len);
	assert_memory_equal(back, recs, len);
	/* exactly the room the records need is enough */
	m = dp_heap_decode(coded, n, DP_HEAP_CODEC, back, len, &damaged);
	assert_int_equal(damaged, 0);
	assert_int_equal(m, len);
	/* nothing at all */
	assert_int_equal(dp_heap_encode(recs, 0, coded), 0);
	assert_int_equal(dp_heap_decode(coded, 0, DP_HEAP_CODEC, back, CAP, &damaged), 0);
	assert_int_equal(damaged, 0);
	free(recs);
	free(coded);
	free(back);
}

/* The records that grow most in the codec stay within its bound: ALLOCs
 * of 15 frames unlike any before, every field at its longest varint. */
static void test_bound(void **unused)
{
	size_t len = 0, cap = 64 * 1024;
	uint8_t *recs = malloc(cap), *coded = malloc(dp_heap_encode_bound(cap)),
		*back = malloc(cap);
	int damaged = 0;

	(void)unused;
	while (len + 256 < cap) {
		struct dp_rec_alloc a;

		/* a thread change each */
		SYNTH_REC_START(a, DP_REC_ALLOC, rnd() | 1ull << 63,
				UINT32_MAX - (uint32_t)(len >> 3 & 1), UINT32_MAX);
		a.h.size = (uint16_t)(sizeof(a) + 15 * 8);
		a.addr = rnd() | 1ull << 63;
		a.size = UINT64_MAX;
		a.kind = UINT32_MAX;
		a.nframes = 15;
		memcpy(recs + len, &a, sizeof(a));
		for (int i = 0; i < 15; i++) {
			uint64_t f = rnd() | 0xffffull << 48;
			memcpy(recs + len + sizeof(a) + i * 8, &f, 8);
		}
		len += a.h.size;
	}
	size_t n = dp_heap_encode(recs, len, coded);
	assert_true(n > len); /* it does grow */
	assert_true(n <= dp_heap_encode_bound(len));
	assert_int_equal(dp_heap_decode(coded, n, DP_HEAP_CODEC, back, cap, &damaged), len);
	assert_int_equal(damaged, 0);
	assert_memory_equal(back, recs, len);
	free(recs);
	free(coded);
	free(back);
}

/* Whatever decodes from damage is whole records, within the room given. */
static void check_whole(const uint8_t *p, size_t len)
{
	for (size_t off = 0; off < len;) {
		const struct dp_rec_header *h = (const void *)(p + off);

		assert_true(h->size >= 8 && !(h->size & 7) && h->size <= len - off);
		off += h->size;
	}
}

static void test_damage(void **unused)
{
	uint8_t *recs = malloc(8192), *coded = malloc(dp_heap_encode_bound(8192)),
		*back = malloc(8192), *bad = malloc(dp_heap_encode_bound(8192));
	size_t len = make_records(recs, 8192), n = dp_heap_encode(recs, len, coded);

	(void)unused;
	/* cut anywhere: a prefix of the records, and damage unless on a record's end */
	for (size_t cut = 0; cut < n; cut++) {
		int damaged = 0;
		size_t m = dp_heap_decode(coded, cut, DP_HEAP_CODEC, back, 8192, &damaged);

		assert_true(m <= len);
		assert_memory_equal(back, recs, m);
		check_whole(back, m);
	}
	/* too little room: stops at a record's end */
	for (size_t room = 0; room < len; room += 8) {
		int damaged = 0;
		size_t m = dp_heap_decode(coded, n, DP_HEAP_CODEC, back, room, &damaged);

		assert_true(m <= room);
		assert_int_equal(damaged, 1);
		assert_memory_equal(back, recs, m);
	}
	/* a changed byte: whole records, in the room (ASan watches the rest) */
	for (size_t i = 0; i < n; i++)
		for (unsigned v = 0; v < 256; v += 37) {
			int damaged = 0;
			size_t m;

			memcpy(bad, coded, n);
			bad[i] = (uint8_t)(bad[i] ^ (v | 1));
			m = dp_heap_decode(bad, n, DP_HEAP_CODEC, back, 8192, &damaged);
			assert_true(m <= 8192);
			check_whole(back, m);
		}
	free(recs);
	free(coded);
	free(back);
	free(bad);
}

/* Two chains behind the same first frame, taking turns (an allocator
 * wrapper's callers): codec 1 wrote the chain out each time it changed;
 * codec 2 names it by its place, a byte or two. */
static void test_chains_taking_turns(void **unused)
{
	enum { N = 2000 };
	static const uint64_t chains[2][4] = {
	    {0x55550000a000, 0x0006555500001000, 0x0010555500002000, 0x0018555500007000},
	    {0x55550000a000, 0x0006555500003000, 0x0010555500004000, 0x0018555500008000},
	};
	uint8_t *recs = malloc(N * 80), *coded = malloc(dp_heap_encode_bound(N * 80)),
		*back = malloc(N * 80);
	size_t len = 0, n, m;
	int damaged = 0;

	(void)unused;
	for (uint32_t i = 0; i < N; i++)
		len += synth_alloc(recs + len, 1000000 + i * 100, 0x555500100000 + i * 64, 48,
				   chains[i & 1], 4);
	n = dp_heap_encode(recs, len, coded);
	m = dp_heap_decode(coded, n, DP_HEAP_CODEC, back, N * 80, &damaged);
	assert_int_equal(damaged, 0);
	assert_int_equal(m, len);
	assert_memory_equal(back, recs, len);
	/* tag, time, address, size, kind (7 bytes here) and the place (1 or 2),
	 * where codec 1 wrote the first frame and three more, 14 bytes more */
	assert_true(n <= (size_t)N * 9);
	/* its places mean nothing to codec 1 */
	m = dp_heap_decode(coded, n, 1, back, N * 80, &damaged);
	assert_int_equal(damaged, 1);
	assert_true(m < len);
	free(recs);
	free(coded);
	free(back);
}

/* An encoding made by codec 1 (tests/data/heap_codec: its records and their
 * encoding, written by the encoder of November 2026) decodes as it did. */
static void test_codec1_still_read(void **unused)
{
	size_t rlen, clen, m;
	char *recs = tu_data_read("heap_codec/v1.records", &rlen),
	     *coded = tu_data_read("heap_codec/v1.coded", &clen);
	uint8_t *back = malloc(rlen);
	int damaged = 0;

	(void)unused;
	assert_non_null(recs);
	assert_non_null(coded);
	m = dp_heap_decode((const uint8_t *)coded, clen, 1, back, rlen, &damaged);
	assert_int_equal(damaged, 0);
	assert_int_equal(m, rlen);
	assert_memory_equal(back, recs, rlen);
	free(recs);
	free(coded);
	free(back);
}

TU_MAIN(NULL, NULL, test_round_trip, test_chains_taking_turns, test_codec1_still_read, test_bound,
	test_damage)
