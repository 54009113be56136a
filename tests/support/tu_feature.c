#include "tu_feature.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PROBE_CACHE
#error "PROBE_CACHE must be defined"
#endif
#ifndef SKIP_LOG
#error "SKIP_LOG must be defined"
#endif

/* what the tests say when a feature is missing */
static const char *const missing[DP_PROBE_COUNT] = {
    [DP_PROBE_PAGE_FAULTS] = "page-fault samples carry no address on this kernel",
    [DP_PROBE_CPU_CLOCK] = "cpu-clock gives no user-mode samples with registers here",
    [DP_PROBE_TASK_CLOCK] = "task-clock does not track CPU time on this kernel",
    [DP_PROBE_BREAKPOINT] = "hardware breakpoints do not fire on this kernel",
    [DP_PROBE_PMU] = "this machine has no hardware PMU",
    [DP_PROBE_UNPRIVILEGED] = "an ordinary user cannot sample here",
    [DP_PROBE_BRANCH_STACK] = "this machine's PMU records no branch stacks (LBR)",
};

static struct {
	bool loaded;
	dp_probe_result res[DP_PROBE_COUNT];
} cache;

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

/* The cache file: one line per probe, "key<TAB>yes|no<TAB>detail". */
static bool load_cache(void)
{
	FILE *f = fopen(env_or("DATAPROF_TEST_PROBES", PROBE_CACHE), "r");
	char line[512];
	int seen = 0;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *ok = strchr(line, '\t'), *detail = ok ? strchr(ok + 1, '\t') : NULL;
		int id;

		if (!detail)
			continue;
		*ok++ = 0;
		*detail++ = 0;
		detail[strcspn(detail, "\n")] = 0;
		id = dp_probe_find(line);
		if (id < 0)
			continue;
		cache.res[id].ok = !strcmp(ok, "yes");
		snprintf(cache.res[id].detail, sizeof(cache.res[id].detail), "%s", detail);
		seen |= 1 << id;
	}
	fclose(f);
	return seen == (1 << DP_PROBE_COUNT) - 1;
}

static void ensure(void)
{
	if (cache.loaded)
		return;
	/* a test run by hand, without ctest's setup test: probe now */
	if (!load_cache())
		for (int i = 0; i < DP_PROBE_COUNT; i++)
			dp_probe_run(i, &cache.res[i]);
	cache.loaded = true;
}

bool tu_have(dp_probe_id id, const char **why)
{
	ensure();
	if (why)
		*why = cache.res[id].detail;
	return cache.res[id].ok;
}

static void log_skip(const char *test, dp_probe_id id, const char *why)
{
	FILE *log;

	printf("SKIP %s: %s (%s)\n", test, missing[id], why);
	fflush(stdout);
	log = fopen(env_or("DATAPROF_TEST_SKIPS", SKIP_LOG), "a");
	if (log) {
		fprintf(log, "%s: %s\t%s\n", program_invocation_short_name, test, missing[id]);
		fclose(log);
	}
}

void tu_require_at(dp_probe_id id, const char *test)
{
	const char *why;

	if (tu_have(id, &why))
		return;
	log_skip(test, id, why);
	skip();
}

void tu_require_program(dp_probe_id first, ...)
{
	va_list ap;

	va_start(ap, first);
	for (int id = (int)first; id >= 0 && id < DP_PROBE_COUNT; id = va_arg(ap, int)) {
		const char *why;

		if (tu_have((dp_probe_id)id, &why))
			continue;
		log_skip("all tests", (dp_probe_id)id, why);
		va_end(ap);
		exit(77);
	}
	va_end(ap);
}

/* The probe an event named in a record command line depends on, or -1. */
static int probe_of_event(const char *ev, size_t len)
{
	if (len >= 4 && !strncmp(ev, "mem:", 4))
		return DP_PROBE_BREAKPOINT;
	if ((len == 11 && !strncmp(ev, "page-faults", 11)) ||
	    (len == 6 && !strncmp(ev, "faults", 6)))
		return DP_PROBE_PAGE_FAULTS;
	if (len >= 9 && !strncmp(ev, "cpu-clock", 9))
		return DP_PROBE_CPU_CLOCK;
	if (len >= 10 && !strncmp(ev, "task-clock", 10))
		return DP_PROBE_TASK_CLOCK;
	return -1;
}

static void check_event(int id)
{
	const char *why;

	if (id >= 0 && !tu_have((dp_probe_id)id, &why))
		fail_msg("this test records with an event this machine lacks (%s: %s): give it "
			 "tu_require(%s) before anything else (tests/support/tu_feature.h)",
			 missing[id], why, dp_probe_key((dp_probe_id)id));
}

void tu_check_events(const char *opts)
{
	bool named = false;

	for (const char *p = opts; p && (p = strstr(p, "-e ")); p += 3) {
		const char *list = p + 3;
		size_t len = strcspn(list, " '\"");

		if (p != opts && p[-1] != ' ')
			continue;
		named = true;
		for (size_t at = 0; at < len;) {
			size_t n = strcspn(list + at, ",");

			if (n > len - at)
				n = len - at;
			check_event(probe_of_event(list + at, n));
			at += n + 1;
		}
	}
	if (!named)
		check_event(DP_PROBE_CPU_CLOCK); /* record's default without a PMU */
}

void tu_probe_machine(void)
{
	const char *path = env_or("DATAPROF_TEST_PROBES", PROBE_CACHE);
	char *tmp;
	FILE *f, *log;

	if (asprintf(&tmp, "%s.%d", path, (int)getpid()) < 0)
		abort();
	f = fopen(tmp, "w");
	if (!f)
		fail_msg("cannot write %s: %s", tmp, strerror(errno));
	for (int i = 0; i < DP_PROBE_COUNT; i++) {
		dp_probe_run(i, &cache.res[i]);
		fprintf(f, "%s\t%s\t%s\n", dp_probe_key(i), cache.res[i].ok ? "yes" : "no",
			cache.res[i].detail);
		printf("%-3s %-12s %s\n", cache.res[i].ok ? "yes" : "no", dp_probe_key(i),
		       cache.res[i].detail);
	}
	cache.loaded = true;
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		fail_msg("cannot write %s: %s", path, strerror(errno));
	free(tmp);
	/* a new run: its skips only */
	log = fopen(env_or("DATAPROF_TEST_SKIPS", SKIP_LOG), "w");
	if (log)
		fclose(log);
}
