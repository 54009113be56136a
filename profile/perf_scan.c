/* A share of a perf.data file's opening walk, on a thread (perf_scan.h). */
#include "perf_scan.h"
#include "perf_file.h"
#include "perf_record.h"

#include <sys/mman.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

/* A boundary is believed where this many records in a row have the shape
 * of records (or run exactly to the stream's end): sample bytes that look
 * like 32 chained headers of known types and 8-byte sizes are rare, and a
 * wrong guess only costs the share (the caller checks it). */
#define CHAIN  32
#define WINDOW ((size_t)2 << 20) /* pages mapped at once, as profile/window.h */
/* Pages read are given back this many at once: each madvise(MADV_DONTNEED)
 * flushes the other CPUs' TLBs of the process. */
#define RELEASE ((size_t)8 << 20)
#define AHEAD	4096

/* The record at pos, if it has the shape of one this scan can step over:
 * a type the reader knows, an 8-byte multiple size that fits. Records
 * that carry data past their size, or a compressed stream, end the scan
 * (the caller's walk reads those). */
static size_t record_size(const dp_perf_scan *sc, size_t pos, uint32_t *type)
{
	struct perf_event_header h;

	if (sc->data_end - pos < sizeof(h))
		return 0;
	memcpy(&h, sc->data + pos, sizeof(h));
	if (h.size < sizeof(h) || (h.size & 7) || h.size > sc->data_end - pos ||
	    !dp_perf_record_type_name(h.type))
		return 0;
	switch (h.type) {
	case DP_PERF_HEADER_TRACING_DATA:
	case DP_PERF_AUXTRACE:
	case DP_PERF_COMPRESSED:
	case DP_PERF_COMPRESSED2:
		return 0;
	}
	*type = h.type;
	return h.size;
}

static bool chain_from(const dp_perf_scan *sc, size_t pos)
{
	uint32_t type;

	for (int i = 0; i < CHAIN; i++) {
		if (pos == sc->data_end)
			return true;
		size_t n = record_size(sc, pos, &type);

		if (!n)
			return false;
		pos += n;
	}
	return true;
}

static void map_span(dp_perf_scan *sc, size_t lo, size_t hi, int advice)
{
	hi = DP_MIN(hi, sc->data_end);
	/* (the mapping is page-aligned, and so are windows) */
	if (sc->give_back && lo < hi)
		madvise((void *)(sc->data + lo), hi - lo, advice);
}

static void map_window(dp_perf_scan *sc, size_t win, int advice)
{
	map_span(sc, win, win + WINDOW, advice);
}

static void scan(dp_perf_scan *sc)
{
	size_t pos = sc->from + (sc->align_to - sc->from % 8 + 8) % 8;
	/* (from is a page's start; pages before it are the previous
	 * share's reader's) */
	size_t win = sc->from & ~(WINDOW - 1), dropped = sc->from;
	uint32_t type;
	dp_record r;

	map_span(sc, sc->from, win + WINDOW, MADV_POPULATE_READ);
	while (pos < sc->to && !chain_from(sc, pos))
		pos += 8;
	if (pos >= sc->to)
		return; /* no boundary found in the share: the caller reads it */
	sc->start = pos;
	while (pos < sc->data_end && pos < sc->to) {
		size_t n = record_size(sc, pos, &type);

		if (!n)
			break;
		__builtin_prefetch(sc->data + pos + AHEAD);
		while (pos + n > win + WINDOW) {
			win += WINDOW;
			map_window(sc, win, MADV_POPULATE_READ);
			if (win - dropped >= RELEASE) {
				map_span(sc, dropped, win, MADV_DONTNEED);
				dropped = win;
			}
		}
		if (type == PERF_RECORD_SAMPLE) {
			if (sc->samples % DP_INDEX_CHUNK == 0) {
				dp_vec_push(&sc->chunks, pos);
				dp_vec_push(&sc->seq, sc->samples);
			}
			sc->samples++;
		} else if (type >= DP_PERF_HEADER_ATTR) {
			dp_vec_push(&sc->side, pos);
			dp_vec_push(&sc->desc, pos);
		} else if (dp_perf_decode_side_record(sc->data + pos, n, &r) == 0) {
			dp_vec_push(&sc->side, pos);
		}
		pos += n;
	}
	map_span(sc, dropped, win + WINDOW, MADV_DONTNEED);
	sc->end = pos;
	sc->ok = pos >= sc->to || pos == sc->data_end;
}

static void *scan_thread(void *arg)
{
	scan(arg);
	return NULL;
}

void dp_perf_scan_start(dp_perf_scan *sc)
{
	sc->running = pthread_create(&sc->thread, NULL, scan_thread, sc) == 0;
	if (!sc->running)
		scan(sc);
}

void dp_perf_scan_join(dp_perf_scan *sc)
{
	if (sc->running)
		pthread_join(sc->thread, NULL);
	sc->running = false;
}

void dp_perf_scan_free(dp_perf_scan *sc)
{
	dp_perf_scan_join(sc);
	dp_vec_free(&sc->side);
	dp_vec_free(&sc->desc);
	dp_vec_free(&sc->chunks);
	dp_vec_free(&sc->seq);
}
