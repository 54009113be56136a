/* Options several commands share: attribute lists, verdict lists, metrics. */
#include "cli.h"
#include "../report/agg.h"
#include "../report/expr.h"
#include "units.h"

#include <stdlib.h>
#include <string.h>

int cli_parse_level(const char *list, dp_agg_level *lv, dp_error *err)
{
	char *copy = dp_strdup(list), *save = NULL;
	int rc = 0;

	lv->nattrs = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (lv->nattrs == DP_AGG_MAX_ATTRS) {
			dp_error_set(err, "'%s': at most %d attributes per level", list,
				     DP_AGG_MAX_ATTRS);
			rc = -1;
			break;
		}
		if (!dp_attr_parse(t, &lv->attrs[lv->nattrs++], err)) {
			rc = -1;
			break;
		}
	}
	if (!rc && !lv->nattrs) {
		dp_error_set(err, "'%s': no attribute given", list);
		rc = -1;
	}
	free(copy);
	return rc;
}

int cli_parse_verdicts(const char *list, unsigned *mask, dp_error *err)
{
	char *copy = dp_strdup(list), *save = NULL;

	*mask = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int v;
		for (v = 0; v < DP_V_COUNT; v++)
			if (!strcmp(t, dp_verdict_name((dp_verdict)v)))
				break;
		if (v == DP_V_COUNT) {
			dp_error_set(err,
				     "--verdict: '%s' is not one of exact, verified, unverifiable, "
				     "unresolvable, no-memory",
				     t);
			free(copy);
			return -1;
		}
		*mask |= 1u << v;
	}
	free(copy);
	return 0;
}

int cli_parse_metric(const char *name, int *metric, dp_error *err)
{
	static const char *const names[] = {
	    [DP_M_SAMPLES] = "samples", [DP_M_PERIOD] = "period", [DP_M_WEIGHT] = "weight"};

	for (int m = 0; m < (int)(sizeof(names) / sizeof(names[0])); m++)
		if (names[m] && !strcmp(name, names[m])) {
			*metric = m;
			return 0;
		}
	dp_error_set(err, "--metric '%s': use samples, period or weight", name);
	return -1;
}

int cli_check_filters(const char *where, const char *time_range)
{
	dp_error err;
	char why[160];
	uint64_t lo, hi;

	if (where && !dp_expr_check(where, &err)) {
		cli_error("%s", err.msg);
		return -1;
	}
	if (time_range && !dp_parse_time_range(time_range, &lo, &hi, why, sizeof(why))) {
		cli_error("--time %s", why);
		return -1;
	}
	return 0;
}

bool cli_parse_fraction(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return false;
	if (*end == '%' && !end[1])
		v /= 100;
	else if (*end)
		return false;
	*out = v;
	return v >= 0 && v < 1;
}
