/* churn: a workload for the recorder's memory bound. THREADS threads each
 * malloc and free blocks of random sizes (16 B to 64 KiB) and write to
 * them, for SECONDS; with --heap every one is an ALLOC and a FREE record.
 *   churn [THREADS] [SECONDS]
 * Prints the allocations made. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

static double seconds = 10;
static uint64_t total;

static void *work(void *arg)
{
	uint64_t x = (uintptr_t)arg * 2654435761u + 1, n = 0;
	void *keep[64] = {0};
	double end = bench_wall() + seconds;

	while (bench_wall() < end) {
		for (int i = 0; i < 256; i++) {
			size_t sz;
			int k;

			x = x * 6364136223846793005ull + 1442695040888963407ull;
			sz = 16u << ((x >> 33) % 13);
			k = (int)((x >> 20) % 64);
			free(keep[k]);
			keep[k] = malloc(sz);
			memset(keep[k], (int)i, sz < 256 ? sz : 256);
			n++;
		}
	}
	for (int k = 0; k < 64; k++)
		free(keep[k]);
	__atomic_add_fetch(&total, n, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[256];

	if (argc > 2)
		seconds = atof(argv[2]);
	if (nt < 1 || nt > 256)
		nt = 4;
	for (int i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, work, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	printf("churn: %llu allocations in %.0f s by %d threads\n", (unsigned long long)total,
	       seconds, nt);
	return 0;
}
