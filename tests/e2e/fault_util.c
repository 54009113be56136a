#include "fault_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* The number after key in text ("1,234" allowed), or -1. */
static long long number_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	long long v = 0;

	if (!p)
		return -1;
	for (p += strlen(key); *p == ' '; p++)
		;
	if (*p < '0' || *p > '9')
		return -1;
	for (; (*p >= '0' && *p <= '9') || *p == ','; p++)
		if (*p != ',')
			v = v * 10 + (*p - '0');
	return v;
}

void fault_check_usable(const char *prof, uint64_t *lost)
{
	tu_result res;
	long long dl, tl, jl;
	const char *p;

	if (tu_sh(&res, "'%s' dump -s '%s'", DATAPROF_BIN, prof) != 0)
		fail_msg("dump -s %s: exit %d: %s", prof, res.status, res.err);
	assert_null(strstr(res.err, "corrupt"));
	/* "# N records, M samples (...), L lost, ..." */
	p = strstr(res.out, "), ");
	dl = p ? number_after(p, "), ") : -1;
	tu_result_free(&res);

	if (tu_sh(&res, "'%s' report '%s'", DATAPROF_BIN, prof) != 0)
		fail_msg("report %s: exit %d: %s", prof, res.status, res.err);
	assert_null(strstr(res.err, "corrupt"));
	p = strstr(res.out, " lost");
	/* the header says "...; N lost" */
	tl = -1;
	if (p) {
		const char *q = p;
		while (q > res.out && q[-1] != ' ')
			q--;
		tl = number_after(q, "");
	}
	tu_result_free(&res);

	if (tu_sh(&res, "'%s' report --json '%s'", DATAPROF_BIN, prof) != 0)
		fail_msg("report --json %s: exit %d: %s", prof, res.status, res.err);
	assert_true(res.out[0] == '{');
	jl = number_after(res.out, "\"lost\":");
	tu_result_free(&res);

	printf("%s: lost %lld (dump), %lld (report), %lld (JSON)\n", prof, dl, tl, jl);
	assert_true(dl >= 0);
	assert_int_equal(tl, dl);
	assert_int_equal(jl, dl);
	if (lost)
		*lost = (uint64_t)dl;
}

typedef struct row_ctx {
	fault_row_fn fn;
	void *ctx;
	dp_attr fattr;
} row_ctx;

static void on_row(void *ctx, dp_attr_ctx *attrs, dp_row *row)
{
	row_ctx *c = ctx;
	uint64_t k = dp_attr_key(attrs, row, &c->fattr);

	c->fn(c->ctx, row->s->time, row->s->pid, dp_attr_string(attrs, &c->fattr, k));
}

void fault_each_row(const char *prof, fault_row_fn fn, void *ctx)
{
	dp_report_opts o;
	dp_report_result res;
	dp_error err;
	row_ctx c = {fn, ctx, {0, 0}};

	memset(&o, 0, sizeof(o));
	o.input = prof;
	assert_true(dp_attr_parse("function", &c.fattr, &err));
	o.levels[0].attrs[0] = c.fattr;
	o.levels[0].nattrs = 1;
	o.nlevels = 1;
	o.metric = DP_M_SAMPLES;
	o.on_row = on_row;
	o.on_row_ctx = &c;
	if (dp_report_build(&o, &res, &err) < 0)
		fail_msg("report %s: %s", prof, err.msg);
	dp_report_result_free(&res);
}

bool fault_finish(const char *prof, struct dp_rec_finish *out)
{
	dp_error err;
	dp_profile *p = dp_profile_open(prof, &err);
	dp_record r;
	bool found = false;

	if (!p)
		fail_msg("%s", err.msg);
	while (dp_profile_next(p, &r) > 0) {
		if (r.kind == DP_R_FINISH) {
			*out = *r.finish;
			found = true;
		}
	}
	dp_profile_close(p);
	return found;
}
