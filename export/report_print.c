/* dataprof report's outputs: the report built once, printed as text, CSV
 * or JSON, and the sample table into SQLite as the samples stream. */
#include "export.h"

#include <string.h>

int dp_report_print(const dp_report_opts *o, dp_out_format fmt, const char *sqlite, dp_error *err)
{
	dp_report_opts with = *o;
	dp_report_result res;
	dp_sqlite_out *sq = NULL;
	int rc;

	if (sqlite) {
		sq = dp_sqlite_new(sqlite);
		with.on_start = dp_sqlite_start;
		with.parts = &dp_sqlite_parts;
		with.on_row_ctx = sq;
	}
	if (dp_report_build(&with, &res, err) < 0) {
		if (sq)
			dp_sqlite_finish(sq, NULL, err);
		return -1;
	}
	rc = sq ? dp_sqlite_finish(sq, &res, err) : 0;
	switch (fmt) {
	case DP_OUT_CSV:
		dp_report_csv(&res, o->out);
		break;
	case DP_OUT_JSON:
		dp_report_json(&res, o->out);
		break;
	default:
		dp_report_text(&res, o->out);
	}
	dp_report_result_free(&res);
	return rc;
}
