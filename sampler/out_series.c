#include "out_series.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void dp_out_series_init(dp_out_series *s, const char *base, uint64_t max_files)
{
	struct timespec t;

	memset(s, 0, sizeof(*s));
	s->base = base;
	s->max_files = max_files;
	clock_gettime(CLOCK_REALTIME, &t);
	/* one recording's files, told apart from another's of the same name */
	s->id = dp_asprintf("%ld-%lld.%09ld", (long)getpid(), (long long)t.tv_sec, t.tv_nsec);
}

/* the oldest complete files go while keeping them would exceed keep */
static void trim(dp_out_series *s, uint64_t keep)
{
	size_t drop = 0;

	while (s->max_files && s->kept.n - drop > keep) {
		if (unlink(s->kept.v[drop]) == 0)
			s->removed++;
		free(s->kept.v[drop++]);
	}
	if (drop) {
		memmove(s->kept.v, s->kept.v + drop, (s->kept.n - drop) * sizeof(*s->kept.v));
		s->kept.n -= drop;
	}
}

const char *dp_out_series_next(dp_out_series *s)
{
	struct timespec t;
	struct tm tm;
	char stamp[40];

	if (s->max_files)
		trim(s, s->max_files - 1);
	clock_gettime(CLOCK_REALTIME, &t);
	localtime_r(&t.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	snprintf(stamp + strlen(stamp), sizeof(stamp) - strlen(stamp), "%03ld",
		 t.tv_nsec / 1000000);
	/* two files in one millisecond (a tiny SIZE): -2, -3... sort after */
	s->same = strcmp(stamp, s->stamp) ? 1 : s->same + 1;
	memcpy(s->stamp, stamp, sizeof(s->stamp));
	free(s->last);
	s->last = s->same > 1 ? dp_asprintf("%s.%s-%u", s->base, stamp, s->same)
			      : dp_asprintf("%s.%s", s->base, stamp);
	s->index++;
	return s->last;
}

void dp_out_series_done(dp_out_series *s)
{
	if (!s->last)
		return;
	/* next made room for this one: N files at most, already */
	dp_vec_push(&s->kept, dp_strdup(s->last));
}

void dp_out_series_free(dp_out_series *s)
{
	dp_vec_free_each(&s->kept, free);
	free(s->id);
	free(s->last);
}
