/* A program that marks, built against an installed dataprof (pkg-config or
 * find_package): ROUNDS rounds of work between two marks, and a heap block
 * per round. Prints its truth:
 *   TRUTH marks=N enabled=E
 * N the marks it made, E whether markers were on (1 under 'record --markers').
 * The work is bounded by this thread's CPU time, not the wall clock. */
#include <dataprof/markers.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ROUNDS = 5, BEGIN = 1, END = 2 };

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void)
{
	int enabled = dp_markers_init("marked");
	volatile unsigned sum = 0;
	int marks = 0;

	dp_marker_define(BEGIN, "round begin");
	dp_marker_define(END, "round end");
	for (int r = 0; r < ROUNDS; r++) {
		unsigned char *block = malloc(1 << 20);
		double until = cpu_ms() + 20;

		dp_mark(BEGIN);
		marks++;
		while (cpu_ms() < until) {
			memset(block, r, 1 << 20);
			sum += block[r * 4096];
		}
		dp_mark(END);
		marks++;
		free(block);
	}
	dp_markers_uninit();
	printf("TRUTH marks=%d enabled=%d\n", marks, enabled);
	return 0;
}
