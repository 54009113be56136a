/* Writing a raw profile as the run goes. Records are appended to a buffer
 * and written out at each flush; a failed write (disk full) truncates the
 * file back to the last record boundary, so the file is always a valid
 * profile. */
#ifndef DP_WRITER_H
#define DP_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "dataprof/format.h"
#include "util.h"

typedef struct dp_writer {
	int fd;
	char *path;
	dp_buf buf;
	uint64_t written; /* bytes on disk, always a record boundary */
	uint64_t records;
	bool failed;      /* a write failed: nothing more is written */
	int failed_errno;
	/* the index written at close (DP_REC_INDEX): side-band records' and
	 * every DP_INDEX_CHUNK-th sample's offsets */
	DP_VEC(uint64_t) side;
	DP_VEC(uint64_t) chunks;
	uint64_t samples;
} dp_writer;

/* Creates (truncates) path, or stdout when path is "-". */
int dp_writer_open(dp_writer *w, const char *path, uint64_t start_ns, uint64_t start_real_ns,
		   dp_error *err);
/* Appends one complete record (size multiple of 8, header included). */
void dp_writer_add(dp_writer *w, const void *rec, size_t size);
/* Appends a record given as a header-less payload of a dataprof type. */
void dp_writer_add_dp(dp_writer *w, uint32_t type, const void *payload, size_t len);
void dp_writer_add_meta(dp_writer *w, const char *key, const char *value);
void dp_writer_add_warning(dp_writer *w, uint64_t time, const char *text);
void dp_writer_add_event(dp_writer *w, uint32_t index, const char *name,
			 const struct perf_event_attr *attr, enum dp_ip_semantics ip_sem,
			 enum dp_event_class evclass, const uint64_t *ids, size_t nids);
/* Writes what is buffered. Returns 0, or -1 once writing has failed. */
int dp_writer_flush(dp_writer *w);
/* After writing failed (disk full): tries to append one last complete
 * record (the FINISH) in whatever room is left; if it does not fit whole,
 * the file is cut back and still ends on a record boundary. 0 if written. */
int dp_writer_last(dp_writer *w, const void *rec, size_t size);
/* Ends the file with its index (unless writing failed), then closes it. */
int dp_writer_close(dp_writer *w);

#endif
