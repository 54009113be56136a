/* An allocation-heavy workload for bench/heap.sh: ROUNDS mallocs of sizes
 * from 16 bytes to 4 KiB (one in 64 of 64 KiB), each freed WINDOW
 * allocations later, every block touched once.   mallocs [ROUNDS] [WINDOW] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 4000000;
	long window = argc > 2 ? atol(argv[2]) : 1024;
	char **ring = calloc((size_t)window, sizeof(*ring));
	uint64_t x = 88172645463325252ull, sum = 0;

	if (!ring || window <= 0)
		return 1;
	for (long i = 0; i < rounds; i++) {
		size_t sz;

		x = bench_xorshift(x);
		sz = (x & 63) ? 16 + (x >> 8) % 4080 : 65536;
		free(ring[i % window]);
		ring[i % window] = malloc(sz);
		if (!ring[i % window])
			return 1;
		ring[i % window][0] = (char)i;
		if (ring[(i * 7) % window])
			sum += (uint8_t)ring[(i * 7) % window][0];
	}
	for (long i = 0; i < window; i++)
		free(ring[i]);
	free(ring);
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
