/* A memory-bound workload with a fixed amount of work: random reads and
 * writes over a large array. Prints its own elapsed time so that a
 * profiler's start-up does not count. Usage: memwalk [MiB] [millions] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 256;
	size_t ops = (argc > 2 ? strtoul(argv[2], NULL, 0) : 40) * 1000000ul;
	size_t n = mib * (1u << 20) / sizeof(uint64_t);
	uint64_t *a = malloc(n * sizeof(*a)), x = 88172645463325252ull, sum = 0;
	double t0;

	for (size_t i = 0; i < n; i++)
		a[i] = i;
	t0 = bench_wall();
	for (size_t i = 0; i < ops; i++) {
		x = bench_xorshift(x);
		sum += a[x % n];
		a[(x >> 17) % n] = sum;
	}
	printf("%.6f seconds, checksum %llu\n", bench_wall() - t0, (unsigned long long)sum);
	return 0;
}
