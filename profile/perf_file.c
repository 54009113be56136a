/* perf.data containers: not read yet (issue 8). */
#include "reader_impl.h"

int dp_perf_open(dp_profile *p, dp_error *err)
{
	dp_error_set(err, "'%s' is a perf.data file, which this dataprof does not read yet",
		     p->path);
	return -1;
}

int dp_perf_next(dp_profile *p, dp_record *r)
{
	(void)p;
	(void)r;
	return 0;
}

void dp_perf_rewind(dp_profile *p)
{
	(void)p;
}

void dp_perf_close(dp_profile *p)
{
	(void)p;
}
