#include "writer_timeline.h"

#include <stdio.h>
#include <string.h>

void dp_writer_add_sensor(dp_writer *w, uint32_t id, enum dp_sensor_kind kind, const char *unit,
			  const char *name)
{
	struct dp_rec_sensor s;
	size_t nl = DP_MIN(strlen(name), (size_t)4095);
	dp_buf b = {0};

	memset(&s, 0, sizeof(s));
	s.id = id;
	s.kind = (uint8_t)kind;
	snprintf(s.unit, sizeof(s.unit), "%s", unit);
	dp_buf_add(&b, (const uint8_t *)&s + sizeof(s.h), sizeof(s) - sizeof(s.h));
	dp_buf_add(&b, name, nl);
	dp_buf_add(&b, "", 1);
	dp_writer_add_dp(w, DP_REC_SENSOR, b.p, b.len);
	dp_buf_free(&b);
}

void dp_writer_add_reading(dp_writer *w, uint64_t time, uint32_t duration, uint32_t first,
			   const uint64_t *values, size_t n)
{
	struct dp_rec_reading g;
	dp_buf b = {0};

	do {
		size_t k = DP_MIN(n, (size_t)DP_READING_MAX_VALUES);

		memset(&g, 0, sizeof(g));
		g.time = time;
		g.duration = duration;
		g.first = first;
		g.n = (uint32_t)k;
		b.len = 0;
		dp_buf_add(&b, (const uint8_t *)&g + sizeof(g.h), sizeof(g) - sizeof(g.h));
		dp_buf_add(&b, values, k * 8);
		dp_writer_add_dp(w, DP_REC_READING, b.p, b.len);
		first += (uint32_t)k;
		values += k;
		n -= k;
	} while (n);
	dp_buf_free(&b);
}
