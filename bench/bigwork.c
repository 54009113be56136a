/* bigwork: a large target. THREADS threads (default 64) share a working
 * set of MIB MiB (default 1024), each walking its own slice at random,
 * reading and writing, for SECONDS (default 10).
 *   bigwork [THREADS] [MIB] [SECONDS]
 * Prints the accesses made. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "bench_util.h"

static uint64_t *set;
static size_t slice; /* words per thread */
static double seconds = 10;
static uint64_t total;

static __attribute__((noinline)) uint64_t walk(uint64_t *a, size_t n, uint64_t x, int steps)
{
	uint64_t sum = 0;

	for (int i = 0; i < steps; i++) {
		x = bench_xorshift(x);
		sum += a[x % n];
		a[(x >> 17) % n] = sum;
	}
	return sum;
}

static void *work(void *arg)
{
	uintptr_t k = (uintptr_t)arg;
	uint64_t *a = set + k * slice, x = 88172645463325252ull ^ k, n = 0;
	double end = bench_wall() + seconds;

	for (size_t i = 0; i < slice; i += 512)
		a[i] = i; /* first touch: this thread's pages */
	while (bench_wall() < end) {
		x += walk(a, slice, x, 100000);
		n += 100000;
	}
	__atomic_add_fetch(&total, n, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 64;
	size_t mib = argc > 2 ? strtoul(argv[2], NULL, 0) : 1024;
	pthread_t *t;

	if (argc > 3)
		seconds = atof(argv[3]);
	if (nt < 1)
		nt = 64;
	t = calloc((size_t)nt, sizeof(*t));
	set = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (set == MAP_FAILED) {
		perror("bigwork: mmap");
		return 1;
	}
	slice = (mib << 20) / 8 / (size_t)nt;
	for (int i = 0; i < nt; i++)
		pthread_create(&t[i], NULL, work, (void *)(uintptr_t)i);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	printf("bigwork: %llu accesses over %zu MiB by %d threads in %.0f s\n",
	       (unsigned long long)total, mib, nt, seconds);
	return 0;
}
