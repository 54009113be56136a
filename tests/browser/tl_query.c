/* Puts random queries to report/timeline.h's index and prints the events and
 * the answers, for timeline_test.js to put the same queries to the page's
 * index (view/js/timeline.js):
 *   tl_query [SEED]
 *   E kind time tid ref               each event, in the order added
 *   Q kind time dir tid|-1 ref|-1     each query and the ref it found */
#include <stdio.h>
#include <stdlib.h>

#include "report/timeline.h"
#include "tests/support/tu_rand.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	return tu_xorshift64(&rng);
}

int main(int argc, char **argv)
{
	dp_timeline *t = dp_timeline_new();
	uint64_t ref = 0;

	if (argc > 1)
		rng += strtoull(argv[1], NULL, 10);
	/* samples and marks from three threads, times drawn from a small range
	 * so that ties happen; readings only set the overlap */
	for (int k = 0; k < 3; k++) {
		int n = k == DP_TL_READING ? 2 : 200 + (int)(next() % 100);
		uint64_t base = k == DP_TL_READING ? 0 : 50 + next() % 50;

		for (int i = 0; i < n; i++) {
			uint64_t time = k == DP_TL_READING
					    ? (i ? 5000 - next() % 200 : next() % 200)
					    : base + next() % 4000;
			uint32_t tid = k == DP_TL_READING ? 0 : 1 + (uint32_t)(next() % 3);

			dp_timeline_add(t, (dp_tl_kind)k, time, 1, tid, ref);
			printf("E %d %llu %u %llu\n", k, (unsigned long long)time, tid,
			       (unsigned long long)ref);
			ref++;
		}
	}
	dp_timeline_build(t);
	for (int q = 0; q < 3000; q++) {
		dp_tl_kind k = next() % 2 ? DP_TL_SAMPLE : DP_TL_MARK;
		uint64_t time = next() % 5200;
		dp_tl_dir dir = (dp_tl_dir)(next() % 3);
		int tid = next() % 2 ? -1 : 1 + (int)(next() % 4);
		uint32_t ut = (uint32_t)tid;
		const dp_tl_event *e =
		    dp_timeline_find(t, k, time, dir, tid < 0 ? NULL : dp_tl_same_tid, &ut);

		printf("Q %d %llu %d %d %lld\n", k, (unsigned long long)time, dir, tid,
		       e ? (long long)e->ref : -1ll);
	}
	dp_timeline_free(t);
	return 0;
}
