/* libFuzzer target: arbitrary bytes as the libraries in a target (heap
 * tracker, marker collector) would write them into the agent channel, in
 * writes of sizes the input chooses, to the pipe or to one of four of the
 * shared rings (agent/chan_ring.h), sometimes with a head the input makes
 * up, through the recorder's side of it (sampler/agent_sink.c: records
 * split across reads put back together, ring counts checked,
 * dp_agent_record_ok on each) into a profile. The profile is then read
 * back: every record the sink let through must read as a valid record of
 * its kind (the reader accepts whatever the recorder accepted), and the
 * sink may only add its one warning. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent/chan_ring.h"
#include "dataprof/profile.h"
#include "fuzz_file.h"
#include "sampler/agent_sink.h"

static volatile uint64_t sink;

/* n bytes into ring k as its thread would put a batch (waiting for room by
 * draining), or, when lie is set, a head made up from the bytes instead. */
static void ring_write(dp_agent_sink *s, dp_writer *w, uint32_t k, const uint8_t *p, size_t n,
		       bool lie)
{
	struct dp_ring_ctl *c = &s->rings->ctl[k];
	uint8_t *data = (uint8_t *)s->rings + DP_RING_DATA_OFF + (size_t)k * DP_RING_SLOT_BYTES;
	size_t at = (size_t)(c->head & (DP_RING_SLOT_BYTES - 1)), first;

	c->state = DP_RING_SLOT_OWNED;
	if (lie) {
		uint64_t h = 0;

		memcpy(&h, p, n < 8 ? n : 8);
		c->head = h;
		return;
	}
	if (c->head + n - c->tail > DP_RING_SLOT_BYTES)
		dp_agent_sink_drain(s, w);
	if (c->head + n - c->tail > DP_RING_SLOT_BYTES)
		return; /* the sink stopped taking (malformed data): the thread would drop it */
	first = n < DP_RING_SLOT_BYTES - at ? n : DP_RING_SLOT_BYTES - at;
	memcpy(data + at, p, first);
	memcpy(data, p + first, n - first);
	c->head += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path;
	dp_agent_sink s;
	dp_writer w;
	dp_error err;
	dp_profile *p;
	dp_record r;
	uint64_t got = 0, warnings = 0;
	uint32_t seed;

	if (size < 4)
		return 0;
	if (fuzz_memfd("fuzz_agent", &path) < 0)
		return 0;
	memcpy(&seed, data, 4);
	data += 4;
	size -= 4;
	if (dp_agent_sink_open(&s, &err) < 0 || dp_writer_open(&w, path, 1, 1, &err) < 0)
		abort();
	/* writes of 1 byte to 64 KiB (a pipe's default size: the sink drains it
	 * after each, so no write blocks) */
	for (size_t off = 0; off < size;) {
		size_t n;

		seed = seed * 1103515245u + 12345u;
		n = (seed >> 8) % ((seed & 1) ? 16 : 65536) + 1;
		n = n < size - off ? n : size - off;
		if (s.rings && (seed & 0x200))
			ring_write(&s, &w, (seed >> 10) & 3, data + off, n,
				   (seed & 0x7800) == 0x7800);
		else if (write(s.wfd, data + off, n) != (ssize_t)n)
			abort();
		dp_agent_sink_drain(&s, &w);
		off += n;
	}
	dp_agent_sink_drain(&s, &w);
	dp_agent_sink_flush(&s, &w, true); /* the heap records it packs */
	if (dp_writer_close(&w) < 0)
		abort();
	p = dp_profile_open(path, &err);
	if (!p)
		abort();
	while (dp_profile_next(p, &r) > 0) {
		if (r.kind == DP_R_WARNING)
			warnings++;
		else
			got++;
		if (r.kind == DP_R_MARKER)
			for (uint32_t i = 0; i < r.marker.n; i++)
				sink += r.marker.marks[i].time;
		if (r.kind == DP_R_ALLOC)
			for (uint32_t i = 0; i < r.alloc->nframes; i++)
				sink += r.alloc->frames[i];
		if (r.kind == DP_R_MARKER_NAME)
			sink += strlen(r.marker_name.name);
	}
	const dp_read_status *st = dp_profile_status(p);
	/* everything the sink wrote reads back, as a known record */
	if (st->error[0] || st->truncated_at || st->unknown_records ||
	    got + warnings != s.records + (s.broken ? 1 : 0) || warnings > s.records + 1) {
		fprintf(stderr,
			"fuzz_agent: the sink passed %llu records (broken %d), the reader read "
			"%llu + %llu warnings, %llu unknown, error '%s'\n",
			(unsigned long long)s.records, s.broken, (unsigned long long)got,
			(unsigned long long)warnings, (unsigned long long)st->unknown_records,
			st->error);
		abort();
	}
	dp_profile_close(p);
	dp_agent_sink_close(&s);
	return 0;
}
