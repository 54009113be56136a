/* Decoding and annotating a whole profile in an end-to-end test. */
#ifndef DP_ANNOT_UTIL_H
#define DP_ANNOT_UTIL_H

#include "annotate/annotate.h"

/* One sample with what decode and annotate made of it; strs holds the
 * annotation's names, d is the profile's decoder (its mappings). */
typedef struct rec_annotated {
	const dp_sample *s;
	const dp_decoded *x;
	const dp_annotation *a;
	const dp_strtab *strs;
	dp_decoder *d;
} rec_annotated;

typedef void (*rec_annotated_fn)(void *ctx, const rec_annotated *r);

/* Opens profile, its decoder and annotator (failing the test when one
 * cannot be), decodes and annotates every sample in file order and calls
 * fn with it. */
void rec_annotate_each(const char *profile, rec_annotated_fn fn, void *ctx);

#endif
