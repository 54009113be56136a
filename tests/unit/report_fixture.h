/* A real report context (profile, decoder, annotator, rows, attributes) over
 * a tiny synthetic profile with two events and no samples, and rows built
 * by hand: the tests of attributes, --where and aggregation need the
 * string table and event names a report has, not the samples. The context
 * is a report part, opened as report opens one (report/part.h). */
#ifndef DP_REPORT_FIXTURE_H
#define DP_REPORT_FIXTURE_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataprof/profile.h"
#include "profile/writer.h"
#include "report/attr.h"
#include "report/part.h"
#include "report/row.h"
#include "synth_records.h"
#include "tu.h"

typedef struct rfx {
	char *path;
	dp_report_opts o; /* the part's: its input alone */
	dp_report_part part;
	dp_attr_ctx *attrs; /* the part's, which the tests use */
} rfx;

static inline void rfx_open(rfx *f, const char *name)
{
	struct perf_event_attr a;
	uint64_t id0 = 501, id1 = 502;
	dp_writer w;
	dp_error err = {{0}};

	memset(f, 0, sizeof(*f));
	a = synth_page_fault_attr();
	f->path = tu_path(name);
	if (dp_writer_open(&w, f->path, 1000, 2000, &err) < 0)
		fail_msg("writer: %s", err.msg);
	dp_writer_add_event(&w, 0, "page-faults", &a, DP_IP_EXACT, DP_EVC_MEMORY, &id0, 1);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	dp_writer_add_event(&w, 1, "cycles", &a, DP_IP_AFTER, DP_EVC_TIME, &id1, 1);
	if (dp_writer_close(&w) < 0)
		fail_msg("writer close");
	f->o.input = f->path;
	if (dp_report_part_open(&f->part, &f->o, 0, 1, 0, UINT64_MAX, NULL, &err) < 0)
		fail_msg("report part: %s", err.msg);
	f->attrs = f->part.res.attrs;
}

static inline void rfx_close(rfx *f)
{
	dp_report_part_free(&f->part);
	unlink(f->path);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

/* One hand-made sample with its decode and annotation: the row points
 * into it, so it must stay where it is while the row is used. */
typedef struct rsample {
	dp_sample s;
	dp_decoded x;
	dp_annotation a;
	dp_row r;
} rsample;

static inline uint32_t rfx_str(rfx *f, const char *s)
{
	return dp_strtab_intern(dp_attr_strings(f->attrs), s);
}

static inline void rsample_init(rsample *m)
{
	memset(m, 0, sizeof(*m));
	m->x.verdict = DP_V_EXACT;
	m->x.insn = -1;
	m->r.s = &m->s;
	m->r.x = &m->x;
	m->r.a = &m->a;
}

#endif
