/* Reading the records that share the samples' time axis: system counter
 * descriptions and readings, code marks and their names. */
#include "reader_impl.h"

#include <string.h>

#define MAX_SENSORS (1u << 20)

/* A NUL-terminated string that starts at s and ends before end. */
static const char *string_in(const uint8_t *s, const uint8_t *end)
{
	if (s >= end || !memchr(s, 0, (size_t)(end - s)))
		return NULL;
	return (const char *)s;
}

static int add_sensor(dp_profile *p, const struct dp_rec_sensor *s, const char *name)
{
	dp_sensor_info *si;

	/* ids count from 0, one SENSOR record each: an id the file has no room
	 * to describe is corrupt, and must not size the table */
	if (s->id >= MAX_SENSORS || s->id >= p->size / sizeof(*s))
		return -1;
	if (s->id >= p->sensors.n) {
		size_t old = p->sensors.n;

		dp_vec_grow(&p->sensors, (size_t)s->id + 1);
		memset(p->sensors.v + old, 0, (s->id + 1 - old) * sizeof(*p->sensors.v));
		p->sensors.n = s->id + 1;
	}
	si = &p->sensors.v[s->id];
	si->id = s->id;
	si->kind = s->kind;
	si->unit = s->unit;
	si->name = name;
	return 0;
}

int dp_profile_decode_timeline(dp_profile *p, const uint8_t *rec, size_t size, dp_record *r,
			       bool first_pass)
{
	const struct dp_rec_header *h = (const void *)rec;
	const uint8_t *end = rec + size;

	switch (h->type) {
	case DP_REC_SENSOR: {
		const struct dp_rec_sensor *s = (const void *)rec;
		const char *name;

		if (size < sizeof(*s) || !memchr(s->unit, 0, sizeof(s->unit)))
			return -1;
		name = string_in(rec + sizeof(*s), end);
		if (!name || (s->kind != DP_SENSOR_COUNTER && s->kind != DP_SENSOR_GAUGE))
			return -1;
		if (first_pass && add_sensor(p, s, name) < 0)
			return -1;
		r->kind = DP_R_SENSOR;
		r->sensor.id = s->id;
		r->sensor.kind = s->kind;
		r->sensor.unit = s->unit;
		r->sensor.name = name;
		return 0;
	}
	case DP_REC_READING: {
		const struct dp_rec_reading *g = (const void *)rec;

		if (!DP_REC_HOLDS(size, g, n, 8))
			return -1;
		dp_rec_at(r, DP_R_READING, g->time);
		r->reading.first = g->first;
		r->reading.n = g->n;
		r->reading.duration = g->duration;
		r->reading.values = g->values;
		p->st.readings++;
		return 0;
	}
	case DP_REC_MARKER: {
		const struct dp_rec_marker *m = (const void *)rec;

		if (!DP_REC_HOLDS(size, m, n, sizeof(struct dp_mark)) || m->n == 0)
			return -1;
		dp_rec_of_thread(r, DP_R_MARKER, m->marks[0].time, m->pid, m->tid);
		r->marker.app = m->app;
		r->marker.n = m->n;
		r->marker.marks = m->marks;
		p->st.marks += m->n;
		return 0;
	}
	case DP_REC_MARKER_NAME: {
		const struct dp_rec_marker_name *m = (const void *)rec;
		const char *name;

		if (size < sizeof(*m) || !(name = string_in(rec + sizeof(*m), end)))
			return -1;
		r->kind = DP_R_MARKER_NAME;
		r->pid = m->pid;
		r->marker_name.app = m->app;
		r->marker_name.id = m->id;
		r->marker_name.name = name;
		return 0;
	}
	}
	return -1;
}

const dp_sensor_info *dp_profile_sensors(const dp_profile *p, size_t *n)
{
	*n = p->sensors.n;
	return p->sensors.v;
}
