/* The pseudo-random numbers tests draw their inputs from: Marsaglia's
 * xorshift64, the same sequence from the same seed on every machine. */
#ifndef DP_TU_RAND_H
#define DP_TU_RAND_H

#include <stdint.h>

/* Steps the state *s (never 0) and returns its new value. */
static inline uint64_t tu_xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
