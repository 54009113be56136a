#include "series.h"
#include "context.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const dp_sensor_info *sensor_of(const dp_profile *p, const char *name)
{
	size_t n;
	const dp_sensor_info *s = dp_profile_sensors(p, &n);

	for (size_t i = 0; i < n; i++)
		if (s[i].name && !strcmp(s[i].name, name))
			return &s[i];
	return NULL;
}

int dp_series_build(dp_report_result *res, const char *globs, const char *deflt,
		    uint32_t max_points, dp_series_set *out, dp_error *err)
{
	dp_report_ctx *rc = dp_row_ctx_marks(res->rows);
	size_t nr = dp_report_ctx_nreadings(rc), stride, nt = 0;
	uint64_t *abs;

	memset(out, 0, sizeof(*out));
	out->readings = dp_report_ctx_readings_span(rc, &out->lo, &out->hi);
	if (!out->readings) {
		if (globs) {
			dp_error_set(err, "--counters: the profile has no counter readings (record "
					  "with --counters)");
			return -1;
		}
		return 0;
	}
	if (globs) {
		if (dp_report_ctx_counters(rc, res->p, globs, err) < 0)
			return -1;
	} else if (deflt) {
		char *copy = dp_strdup(deflt), *save = NULL;
		dp_error ignore;

		for (char *g = strtok_r(copy, ",", &save); g; g = strtok_r(NULL, ",", &save))
			dp_report_ctx_counters(rc, res->p, g, &ignore);
		free(copy);
	}
	/* readings split over several records share a time: one point */
	abs = dp_malloc((nr ? nr : 1) * sizeof(uint64_t));
	for (size_t i = 0; i < nr; i++) {
		uint64_t t = dp_report_ctx_reading_time(rc, i);
		if (!nt || abs[nt - 1] != t)
			abs[nt++] = t;
	}
	if (!max_points)
		max_points = 4000;
	stride = (nt + max_points - 1) / max_points;
	if (!stride)
		stride = 1;
	out->times = dp_malloc((nt / stride + 1) * sizeof(uint64_t));
	for (size_t i = 0; i < nt; i += stride)
		out->times[out->n++] = abs[i];
	free(abs);
	out->ns = dp_report_ctx_ncounters(rc);
	out->s = dp_calloc(out->ns ? out->ns : 1, sizeof(dp_series));
	for (size_t k = 0; k < out->ns; k++) {
		dp_series *s = &out->s[k];
		const dp_sensor_info *si;

		s->name = dp_report_ctx_counter_name(rc, k);
		si = sensor_of(res->p, s->name);
		s->unit = si && si->unit ? si->unit : "";
		s->gauge = si && si->kind == DP_SENSOR_GAUGE;
		s->v = dp_malloc((out->n ? out->n : 1) * sizeof(double));
		for (size_t i = 0; i < out->n; i++) {
			uint64_t t1 = out->times[i], t0 = i ? out->times[i - 1] : t1;
			char text[64];
			double v;

			if ((!s->gauge && !i) ||
			    !dp_report_ctx_counter(rc, k, t0, t1, &v, text, sizeof(text)))
				v = NAN;
			s->v[i] = v;
		}
	}
	return 0;
}

void dp_series_free(dp_series_set *s)
{
	for (size_t k = 0; k < s->ns; k++)
		free(s->s[k].v);
	free(s->s);
	free(s->times);
	memset(s, 0, sizeof(*s));
}
