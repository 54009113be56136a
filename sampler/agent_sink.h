/* The recorder's side of the agent channel: a pipe whose write end the
 * target inherits (DATAPROF_AGENT_FD) and a memory file of per-thread rings
 * it maps (DATAPROF_AGENT_RING, agent/chan_ring.h), carrying heap and marker
 * records from libraries loaded in the target. Records are checked before
 * they reach the profile: the target is not trusted. */
#ifndef DP_AGENT_SINK_H
#define DP_AGENT_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "../profile/writer.h"
#include "agent_ticks.h"
#include "heap_pack.h"
#include "util.h"

struct dp_ring_header;
struct dp_ring_chain;

typedef struct dp_agent_sink {
	int rfd, wfd;
	int ring_fd;		      /* the rings' memory file, -1: none */
	struct dp_ring_header *rings; /* mapped; NULL: none, or no longer trusted */
	uint64_t *ring_tail;	      /* per slot: what the recorder took (its own count) */
	uint64_t *ring_who;	      /* per slot: its thread, pid << 32 | tid (0: not told yet) */
	dp_buf *ring_held;	      /* per slot: its FREEs waiting for a time (chan_ring.h) */
	uint64_t *ring_last;	      /* per slot: the time of its last timed record, ns */
	struct dp_ring_chain *ring_chains; /* per slot: its chain table (chan_ring.h) */
	size_t held_max;	      /* bytes of FREEs a slot holds at most; 0: 4 MiB (tests) */
	dp_buf whole;		      /* a ring's heap record, made the profile's */
	uint64_t ring_checked;	      /* when owned slots' threads were last looked for */
	dp_buf ring_data;	      /* one slot's bytes, copied out before they are read */
	bool ring_flowed;	      /* the last drain took bytes from a ring */
	int pipe_bytes; /* what the pipe holds, as the kernel granted it */
	dp_buf pending; /* a record split between two reads */
	uint64_t records, rejected;
	bool broken;	      /* malformed data seen: the channel is ignored from then on */
	bool no_pack;	      /* heap records as they came (DATAPROF_RECORD_NO_PACK) */
	dp_heap_pack pack;    /* heap records, packed as they come */
	dp_agent_ticks ticks; /* for times in ticks (DP_AGENT_TICKS) */
} dp_agent_sink;

int dp_agent_sink_open(dp_agent_sink *s, dp_error *err);
/* After the fork: the recorder keeps only the read end. */
void dp_agent_sink_close_writer(dp_agent_sink *s);
/* Moves whatever the channel holds now into the profile, the pipe's and
 * the rings'; returns the bytes read. */
size_t dp_agent_sink_drain(dp_agent_sink *s, dp_writer *w);
/* Whether the pipe holds enough for the recorder to leave it alone for
 * DP_AGENT_REST_NS after a read that found it flowing: the target writes a
 * batch of 4 KiB at a time, and waking for each (a poll, a read, a write of
 * the profile) cost the recorder more than packing what they carry. 1 MiB
 * is ~8 ms of the busiest allocator measured (Lua, 130 MB/s of records). */
bool dp_agent_sink_can_rest(const dp_agent_sink *s);
/* How long the recorder may wait before its next drain, in ms, for the
 * rings' sake (they wake nobody): 1 after a drain that found them flowing
 * (a ring holds ~8 ms of the busiest allocator), a few while they are
 * quiet; -1 without rings. */
int dp_agent_sink_poll_ms(const dp_agent_sink *s);
#define DP_AGENT_REST_NS 1000000ull
/* Writes the heap records still gathered for packing, and the rings' FREEs
 * still waiting for a time: before the end of a file (last: of the
 * recording, the target gone). */
void dp_agent_sink_flush(dp_agent_sink *s, dp_writer *w, bool last);
void dp_agent_sink_close(dp_agent_sink *s);

/* Is this a record type, of a sane size, that an agent may send? Exposed for tests. */
bool dp_agent_record_ok(const void *rec, size_t size);

#endif
