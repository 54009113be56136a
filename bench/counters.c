/* What collecting system counters costs: the collect stage of each source
 * (µs per collection, measured over many), and the CPU time of the collector
 * thread over a run at a given interval, as a share of one core (target:
 * under 1% at 10 ms). Not a test: it prints figures.
 *
 *	bench_counters [--interval MS] [--seconds S] [--counters LIST]
 *
 * The target of the per-process sources is a child that sleeps. */
#include "sampler/collector.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"interval", required_argument, 0, 'i'},
		{"seconds", required_argument, 0, 's'},
		{"counters", required_argument, 0, 'c'},
		{0, 0, 0, 0},
	};
	const char *list = "default";
	uint64_t interval_ms = 10, seconds = 10;
	dp_collector k;
	dp_error err;
	dp_writer w;
	pid_t child;
	int c;

	while ((c = getopt_long(argc, argv, "i:s:c:", opts, NULL)) != -1) {
		if (c == 'i' && dp_parse_u64(optarg, &interval_ms) && interval_ms)
			continue;
		if (c == 's' && dp_parse_u64(optarg, &seconds) && seconds)
			continue;
		if (c == 'c') {
			list = optarg;
			continue;
		}
		fprintf(stderr, "usage: bench_counters [--interval MS] [--seconds S] "
				"[--counters LIST]\n");
		return 2;
	}
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	dp_source_ctx ctx = {"/proc", child, &child, 1, false};
	if (dp_collector_open(&k, &ctx, list, interval_ms * 1000000, &err) < 0) {
		fprintf(stderr, "bench_counters: %s\n", err.msg);
		kill(child, SIGKILL);
		return 1;
	}
	printf("counters '%s': %zu sensors from %zu sources, %zu raw bytes a collection\n", list,
	       k.c.chosen.n, k.c.active.n, k.c.raw_size);

	/* each source's collect, alone */
	uint8_t *raw = malloc(k.c.raw_size);
	const int reps = 2000;
	uint64_t all = 0;
	for (size_t i = 0; i < k.c.active.n; i++) {
		dp_source *s = k.c.active.v[i];
		uint64_t t0 = cpu_now();

		for (int r = 0; r < reps; r++)
			s->ops->collect(s, raw + k.c.raw_off[i]);
		uint64_t t = (cpu_now() - t0) / reps;
		all += t;
		printf("  collect %-24s %7.1f us\n", s->name, (double)t / 1e3);
	}
	printf("  collect, all sources         %7.1f us: %.3f%% of a core at %llu ms\n",
	       (double)all / 1e3, 100.0 * (double)all / ((double)interval_ms * 1e6),
	       (unsigned long long)interval_ms);
	free(raw);

	/* the thread at its interval, its readings drained into /dev/null */
	if (dp_writer_open(&w, "/dev/null", 0, 0, &err) < 0 || dp_collector_start(&k, &err) < 0) {
		fprintf(stderr, "bench_counters: %s\n", err.msg);
		return 1;
	}
	uint64_t main_cpu = cpu_now(), end = dp_now_ns() + seconds * 1000000000ull;
	while (dp_now_ns() < end) {
		usleep(100000);
		dp_collector_drain(&k, &w);
		dp_writer_flush(&w);
	}
	dp_collector_finish(&k, &w);
	main_cpu = cpu_now() - main_cpu;
	printf("collector thread: %llu readings in %.2f s, %.2f ms of CPU: %.3f%% of one core "
	       "(target < 1%% at 10 ms)\n",
	       (unsigned long long)k.readings, (double)k.wall_ns / 1e9, (double)k.cpu_ns / 1e6,
	       100.0 * (double)k.cpu_ns / (double)k.wall_ns);
	printf("decoding and writing them (main thread): %.2f ms of CPU: %.3f%% of one core\n",
	       (double)main_cpu / 1e6, 100.0 * (double)main_cpu / (double)k.wall_ns);
	dp_collector_close(&k);
	dp_writer_close(&w);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 0;
}
