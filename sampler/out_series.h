/* The files of record --switch-output: their names, and the oldest removed
 * beyond --max-files. */
#ifndef DP_OUT_SERIES_H
#define DP_OUT_SERIES_H

#include <stdint.h>

#include "util.h"

typedef struct dp_out_series {
	const char *base;    /* -o */
	char *id;	     /* the "series" of every file's header */
	uint64_t index;	     /* the file being written, from 1 */
	uint64_t max_files;  /* 0: keep every file */
	DP_VEC(char *) kept; /* complete files, oldest first */
	uint64_t removed;
	char *last;	/* the name dp_out_series_next gave */
	char stamp[40]; /* its time, and how many files had it */
	unsigned same;
} dp_out_series;

void dp_out_series_init(dp_out_series *s, const char *base, uint64_t max_files);
/* The next file's name, BASE.YYYYmmddHHMMSSmmm (as perf's, to the
 * millisecond; a -N suffix if two fall in one), once room is made for it. */
const char *dp_out_series_next(dp_out_series *s);
/* The file being written is complete. */
void dp_out_series_done(dp_out_series *s);
void dp_out_series_free(dp_out_series *s);

#endif
