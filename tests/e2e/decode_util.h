/* Decoding a whole profile in an end-to-end test. */
#ifndef DP_DECODE_UTIL_H
#define DP_DECODE_UTIL_H

#include "decode/decode.h"

/* Opens profile (into *p) and its decoder, failing the test when either
 * cannot be; the caller frees both. */
dp_decoder *rec_decoder_open(const char *profile, dp_profile **p);

typedef void (*rec_decoded_fn)(void *ctx, const dp_sample *s, const dp_decoded *x);

/* Opens profile and its decoder (failing the test when either cannot be),
 * decodes every sample and calls fn with it. */
void rec_decode_each(const char *profile, rec_decoded_fn fn, void *ctx);

/* The same, fn also given the decoder; with keep and keep_p, the decoder
 * and the profile are left open there (the caller frees them). */
typedef void (*rec_decoded_d_fn)(void *ctx, const dp_sample *s, const dp_decoded *x, dp_decoder *d);
void rec_decode_each_with(const char *profile, rec_decoded_d_fn fn, void *ctx, dp_decoder **keep,
			  dp_profile **keep_p);

#endif
