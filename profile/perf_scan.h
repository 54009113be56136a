/* The opening walk of a large perf.data file, split between threads
 * (perf_file.c): each thread but the caller's finds a record boundary past
 * its share's start by the shape of the records there, and maps the
 * records from it as the walk would. Its map is taken only where the
 * caller's own walk, which starts at a true boundary, lands exactly on the
 * boundary the thread found: a guess that was wrong costs time, never a
 * record. */
#ifndef DP_PERF_SCAN_H
#define DP_PERF_SCAN_H

#include "reader_impl.h"

#include <pthread.h>

typedef struct dp_perf_scan {
	/* in: the bytes of the record stream, and the share's place in it */
	const uint8_t *data;
	size_t data_end; /* the stream's end */
	size_t from, to; /* the share: its records start at or after from, and
			  * it ends at the first record boundary at or past to */
	size_t align_to; /* record boundaries are 8-byte steps from here */
	bool give_back;	 /* pages read are given back (a mapping of the file) */
	/* out, once joined: ok when [start, end) was read to its end */
	bool ok;
	size_t start, end;
	uint64_t samples;
	/* as the walk's map: side-band records; description records (perf's
	 * own types, which the caller reads itself); and where each chunk of
	 * samples starts, with its first sample counted from start */
	dp_u64_vec side, desc, chunks, seq;
	pthread_t thread;
	bool running;
} dp_perf_scan;

/* Starts the scan of sc's share on a thread of its own (or reads it at
 * once where no thread can be had). */
void dp_perf_scan_start(dp_perf_scan *sc);
/* Waits for the scan; its results are valid after. */
void dp_perf_scan_join(dp_perf_scan *sc);
void dp_perf_scan_free(dp_perf_scan *sc);

#endif
