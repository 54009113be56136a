/* Decoding a whole profile in an end-to-end test. */
#ifndef DP_DECODE_UTIL_H
#define DP_DECODE_UTIL_H

#include "decode/decode.h"

typedef void (*rec_decoded_fn)(void *ctx, const dp_sample *s, const dp_decoded *x);

/* Opens profile and its decoder (failing the test when either cannot be),
 * decodes every sample and calls fn with it. */
void rec_decode_each(const char *profile, rec_decoded_fn fn, void *ctx);

#endif
