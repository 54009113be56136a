/* libFuzzer target: arbitrary bytes through dp_profile_open and
 * dp_profile_next to the end, twice (rewind), for both formats (the first
 * bytes choose: raw profile, perf.data file or pipe mode), and the same
 * records through a reader whose opening walk was split. Everything a
 * record points to is read, so that ASan sees a pointer past the input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dataprof/profile.h"
#include "fuzz_file.h"
#include "util.h"

static volatile uint64_t sink;

static void touch(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += b[i];
	sink += s;
}

static void touch_str(const char *s)
{
	if (s)
		touch(s, strlen(s) + 1);
}

static void touch_record(const dp_record *r)
{
	const dp_sample *s;

	switch (r->kind) {
	case DP_R_SAMPLE:
		s = r->sample;
		touch(s->callchain, s->callchain_nr * sizeof(*s->callchain));
		touch(s->raw, s->raw_size);
		touch(s->branches, s->branch_nr * sizeof(*s->branches));
		touch(s->stack_user, s->stack_user_size);
		touch(s->read, s->read_size);
		touch(s->aux, s->aux_size);
		break;
	case DP_R_MMAP:
		touch_str(r->mmap.filename);
		break;
	case DP_R_COMM:
		touch_str(r->comm.comm);
		break;
	case DP_R_META:
		touch_str(r->meta.key);
		touch_str(r->meta.value);
		break;
	case DP_R_WARNING:
		touch_str(r->warning);
		break;
	case DP_R_OTHER:
		touch(r->other, r->size);
		break;
	default:
		break;
	}
}

/* Opened with its opening walk split between threads (perf.data; shares of
 * a page), the profile reads the same records as p, which is left at its
 * first record. */
static void check_split(const char *path, dp_profile *p)
{
	static const dp_profile_open_opts split = {NULL, 4};
	dp_error err;
	dp_profile *q;
	dp_record r, s;
	int a, b;

	setenv("DATAPROF_WALK_SHARE", "4096", 1);
	q = dp_profile_open_with(path, &split, &err);
	unsetenv("DATAPROF_WALK_SHARE");
	if (!q)
		__builtin_trap(); /* p opened */
	do {
		a = dp_profile_next(p, &r);
		b = dp_profile_next(q, &s);
		if (a != b || (a > 0 && (r.type != s.type || r.offset != s.offset)))
			__builtin_trap();
	} while (a > 0);
	dp_profile_close(q);
	dp_profile_rewind(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the reader opens a path: give it one in memory */
	const char *path = fuzz_file("fuzz_profile", data, size);
	dp_error err;
	dp_profile *p;
	dp_record r;

	if (!path)
		return 0;
	p = dp_profile_open(path, &err);
	if (!p)
		return 0;
	check_split(path, p);
	for (int pass = 0; pass < 2; pass++) {
		while (dp_profile_next(p, &r) > 0)
			touch_record(&r);
		touch_str(dp_profile_status(p)->error);
		dp_profile_rewind(p);
	}

	size_t n;
	const dp_event_info *ev = dp_profile_events(p, &n);
	for (size_t i = 0; i < n; i++)
		touch_str(ev[i].name);
	const dp_build_id *b;
	n = dp_profile_build_ids(p, &b);
	for (size_t i = 0; i < n; i++)
		touch_str(b[i].filename);
	touch_str(dp_profile_meta(p, "cmdline"));
	dp_profile_close(p);
	return 0;
}
