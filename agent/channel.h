/* The target's side of the agent channel (see DP_AGENT_FD_ENV in
 * dataprof/format.h): per-thread batches of records, each copied into the
 * thread's shared ring (chan_ring.h) or, where there is none, written with one
 * write() so that the threads and processes of the target never interleave
 * inside a batch. No allocation after the first use of a thread. */
#ifndef DP_AGENT_CHANNEL_H
#define DP_AGENT_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "dataprof/format.h"

/* Internal to each library that holds a copy (the heap tracker, the
 * collector): hidden, so that a copy never binds to another's (a preloaded
 * library's symbols come first) and calls within a library are direct. */
#pragma GCC visibility push(hidden)

/* The channel's fd, or -1 when the target runs without dataprof. */
int dp_chan_fd(void);
/* Appends one record (size a multiple of 8, <= DP_AGENT_BATCH) to this
 * thread's batch; sends the batch first if it would not fit. */
void dp_chan_put(const void *rec, size_t size);
/* Room for one record of size bytes (as dp_chan_put takes) at the end of
 * this thread's batch, for the caller to fill in place before its next
 * call here; NULL when there is no channel. */
void *dp_chan_reserve(size_t size);
/* Whether this thread writes to a ring of its own (chan_ring.h): its
 * heap records may then be the ring's smaller ones. 0: no; else which of
 * the rings this thread took it is (1 for the first; it changes when the
 * thread takes another, as a fork's child does), for state that the
 * recorder keeps per ring (the chains of DP_RING_REC_ALLOC). */
uint32_t dp_chan_on_ring(void);
/* Sends this thread's batch now. */
void dp_chan_flush(void);
/* Sends this thread's batch and gives its ring back: the thread or the
 * process ends (what it sends after goes through the pipe). */
void dp_chan_close(void);
/* Before this thread's exec: its batch goes out and its ring back
 * (dp_chan_close), but in a vfork child, whose thread variables are its
 * parent's: there only the batch, which is sent once either way. */
void dp_chan_before_exec(void);
/* Counts records that could not be sent (channel closed by the program). */
uint64_t dp_chan_dropped(void);
uint64_t dp_chan_now(void);

#pragma GCC visibility pop

#endif
