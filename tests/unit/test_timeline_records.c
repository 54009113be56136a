/* SENSOR, READING, MARKER and MARKER_NAME records: what the writer writes
 * (or an agent sends) the reader gives back; malformed ones are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataprof/profile.h"
#include "profile/writer_timeline.h"
#include "tu.h"
#include "tu_group.h"

#define BIG 10000 /* more values than one READING holds */

static void add_marks(dp_writer *w, uint32_t tid, uint32_t n, uint32_t claim)
{
	size_t size = sizeof(struct dp_rec_marker) + n * sizeof(struct dp_mark);
	struct dp_rec_marker *m = calloc(1, size);

	m->h.type = DP_REC_MARKER;
	m->h.size = (uint16_t)size;
	m->pid = 10;
	m->tid = tid;
	m->app = 0xabc;
	m->n = claim;
	for (uint32_t i = 0; i < n; i++) {
		m->marks[i].id = i;
		m->marks[i].time = 1000 + 100 * i;
		m->marks[i].end = 1000 + 100 * i + 7;
	}
	dp_writer_add(w, m, size);
	free(m);
}

static void add_name(dp_writer *w, uint32_t id, const char *name)
{
	struct dp_rec_marker_name n;
	dp_buf b = {0};

	memset(&n, 0, sizeof(n));
	n.pid = 10;
	n.app = 0xabc;
	n.id = id;
	dp_buf_add(&b, (uint8_t *)&n + 8, sizeof(n) - 8);
	dp_buf_add(&b, name, strlen(name) + 1);
	dp_writer_add_dp(w, DP_REC_MARKER_NAME, b.p, b.len);
	dp_buf_free(&b);
}

static void test_round_trip(void **state)
{
	char *path = tu_path("tl.dprof");
	uint64_t *v = calloc(BIG, 8);
	dp_writer w;
	dp_error err;
	dp_profile *p;
	dp_record r;
	size_t nsens, readings = 0, values = 0, marks = 0, names = 0;

	(void)state;
	assert_int_equal(dp_writer_open(&w, path, 1, 2, &err), 0);
	dp_writer_add_sensor(&w, 0, DP_SENSOR_COUNTER, "ns", "proc/stat/cpu_user#cpu0");
	dp_writer_add_sensor(&w, 1, DP_SENSOR_GAUGE, "bytes", "proc/meminfo/MemFree");
	for (uint32_t i = 0; i < BIG; i++)
		v[i] = i == 1 ? DP_READING_NONE : i * 3;
	dp_writer_add_reading(&w, 5000, 12, 0, v, BIG);
	dp_writer_add_reading(&w, 6000, 12, 0, v, 2);
	add_marks(&w, 11, 3, 3);
	add_marks(&w, 12, 2, 9); /* claims more marks than it holds: skipped */
	add_name(&w, 1, "phase one");
	add_name(&w, DP_MARKER_APP, "app");
	assert_int_equal(dp_writer_close(&w), 0);

	p = dp_profile_open(path, &err);
	assert_non_null(p);
	const dp_sensor_info *s = dp_profile_sensors(p, &nsens);
	assert_int_equal(nsens, 2);
	assert_string_equal(s[0].name, "proc/stat/cpu_user#cpu0");
	assert_int_equal(s[0].kind, DP_SENSOR_COUNTER);
	assert_string_equal(s[1].unit, "bytes");
	while (dp_profile_next(p, &r) > 0) {
		switch (r.kind) {
		case DP_R_READING:
			readings++;
			assert_true(r.has_time);
			for (uint32_t i = 0; i < r.reading.n; i++) {
				uint32_t id = r.reading.first + i;
				assert_true(r.reading.values[i] ==
					    (id == 1 ? DP_READING_NONE : id * 3ull));
			}
			values += r.reading.n;
			break;
		case DP_R_MARKER:
			assert_int_equal(r.tid, 11);
			assert_int_equal(r.time, 1000);
			for (uint32_t i = 0; i < r.marker.n; i++)
				assert_int_equal(r.marker.marks[i].end - r.marker.marks[i].time, 7);
			marks += r.marker.n;
			break;
		case DP_R_MARKER_NAME:
			names++;
			if (r.marker_name.id == 1)
				assert_string_equal(r.marker_name.name, "phase one");
			break;
		default:
			break;
		}
	}
	assert_int_equal(readings, 3); /* BIG values need two records */
	assert_int_equal(values, BIG + 2);
	assert_int_equal(marks, 3);
	assert_int_equal(names, 2);
	assert_int_equal(dp_profile_status(p)->readings, 3);
	assert_int_equal(dp_profile_status(p)->marks, 3);
	assert_int_equal(dp_profile_status(p)->unknown_records, 1);
	dp_profile_close(p);
	free(v);
	free(path);
}

TU_MAIN(NULL, tu_teardown, test_round_trip)
