/* dataprof layout: offsets, sizes, holes and padding as pahole gives them
 * for the fixtures' types; the samples of the layout fixture on struct
 * item's members, with the advice it leads to; false sharing flagged in
 * the falseshare fixture and not in its padded build; --diff of the two
 * layouts; bad input gets one line and a non-zero status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_util.h"
#include "tu_feature.h"
#include "util.h"
#include "tu_group.h"

typedef struct facts {
	struct {
		char name[64];
		double share;
		int hot, loads, stores;
	} m[32];
	int nm;
	double now, suggested, aligned;
	char order[512];
	int nfalse;
	struct {
		char member[64];
		unsigned long tid;
	} w[16];
	int nw;
	char *pahole;
} facts;

/* dataprof layout --json ARGS, checked against its schema (and pahole,
 * when binary is given), read back. */
static int layout(facts *f, const char *binary, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int layout(facts *f, const char *binary, const char *fmt, ...)
{
	char *json = tu_path("layout.json"), *args, *pa = NULL;
	tu_result res;

	REC_VFORMAT(args, fmt);
	if (binary)
		pa = dp_asprintf("--pahole '%s'", binary);
	memset(f, 0, sizeof(*f));
	tu_sh(&res,
	      "'%s' layout --json %s > '%s' || exit 98; /usr/bin/python3 "
	      "'%s/tests/schema/layout_facts.py' '%s/docs/schema/layout.schema.json' %s < '%s'",
	      DATAPROF_BIN, args, json, SOURCE_DIR, SOURCE_DIR, pa ? pa : "", json);
	if (res.status == 98)
		fail_msg("layout %s: %s", args, res.err);
	for (char *save = NULL, *l = strtok_r(res.out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, "MEMBER ", 7) && f->nm < 32) {
			sscanf(l, "MEMBER %63s %lf %d %d %d", f->m[f->nm].name, &f->m[f->nm].share,
			       &f->m[f->nm].hot, &f->m[f->nm].loads, &f->m[f->nm].stores);
			f->nm++;
		} else if (!strncmp(l, "LINES ", 6)) {
			sscanf(l, "LINES %lf %lf %lf", &f->now, &f->suggested, &f->aligned);
		} else if (!strncmp(l, "ORDER ", 6)) {
			snprintf(f->order, sizeof(f->order), "%s", l + 6);
		} else if (!strncmp(l, "FALSE ", 6)) {
			f->nfalse = atoi(l + 6);
		} else if (!strncmp(l, "WRITER ", 7) && f->nw < 16) {
			sscanf(l, "WRITER %*s %63s %lu", f->w[f->nw].member, &f->w[f->nw].tid);
			f->nw++;
		} else if (!strncmp(l, "PAHOLE ", 7)) {
			f->pahole = dp_strdup(l);
		}
	}
	if (res.status)
		printf("%s%s", res.out, res.err);
	int status = res.status;
	tu_result_free(&res);
	free(args);
	free(pa);
	free(json);
	return status;
}

static const char *const pahole_cases[][2] = {
    {"struct item", "layout_O2"},
    {"struct item", "b/layout_O2"},
    {"struct mixed", "layout_O2"},
    {"struct mixed", "layout_O0"},
    {"struct pos", "layout_O2"},
    {"struct counters", "falseshare_O2"},
    {"struct counters", "padded/falseshare_O2"},
    {"struct node", "objects_O2"},
    {"struct grid", "objects_O2"},
    {"struct particle", "objects_O2"},
    {"struct histogram", "objects_O2"},
    {"cell_t", "objects_O2"},
    {"union value", "objects_O2"},
    {"class Account", "objects_cxx_O2"},
    {"class SavingsAccount", "objects_cxx_O2"},
};

static void test_pahole(void **state)
{
	size_t ok = 0;

	(void)state;
	for (size_t i = 0; i < DP_ARRAY_LEN(pahole_cases); i++) {
		char *bin = tu_fixture(pahole_cases[i][1]);
		facts f;
		int rc = layout(&f, bin, "'%s' '%s'", pahole_cases[i][0], bin);

		printf("%s (%s)\n", f.pahole ? f.pahole : "PAHOLE ?", pahole_cases[i][1]);
		ok += rc == 0;
		free(f.pahole);
		free(bin);
	}
	printf("ACCURACY layout against pahole: %zu of %zu types alike (members, offsets, sizes, "
	       "bitfields, holes, padding)\n",
	       ok, DP_ARRAY_LEN(pahole_cases));
	assert_int_equal(ok, DP_ARRAY_LEN(pahole_cases));
}

static char *prof_a, *prof_b;

static void record_layouts(void)
{
	if (prof_a)
		return;
	prof_a = rec_fixture("layout_O2", "", "--heap -e cpu-clock -F 4000", "a.dprof");
	prof_b = rec_fixture("b/layout_O2", "", "--heap -e cpu-clock -F 4000", "b.dprof");
}

static int find(const facts *f, const char *name)
{
	for (int i = 0; i < f->nm; i++)
		if (!strcmp(f->m[i].name, name))
			return i;
	fail_msg("no member %s", name);
	return -1;
}

static void test_heat(void **state)
{
	facts f;
	tu_result res;
	int a, b;

	(void)state;
	record_layouts();
	assert_int_equal(layout(&f, NULL, "'struct item' '%s'", prof_a), 0);
	a = find(&f, "a"), b = find(&f, "b");
	printf("struct item in layout A: a %.1f%%, b %.1f%%; lines per visit %.2f now, %.2f in the "
	       "order %s, %.2f aligned\n",
	       f.m[a].share, f.m[b].share, f.now, f.suggested, f.order, f.aligned);
	/* walk() reads a and b of each item, and nothing else of it */
	assert_true(f.m[a].hot && f.m[b].hot);
	assert_true(f.m[a].share + f.m[b].share > 99);
	assert_true(f.m[a].loads > 0 && f.m[a].stores == 0);
	for (int i = 0; i < f.nm; i++)
		if (i != a && i != b)
			assert_false(f.m[i].hot);
	/* 128 bytes apart: two lines; packed: one, but where an element of
	 * the smaller array starts at the last 8 bytes of a line */
	assert_true(f.now > 1.99 && f.now < 2.01);
	assert_true(f.suggested < 1.2);
	assert_true(f.aligned > 0.99 && f.aligned < 1.01);
	assert_true(!strncmp(f.order, "a,b,", 4) || !strncmp(f.order, "b,a,", 4));
	assert_int_equal(tu_sh(&res, "'%s' layout 'struct item' '%s'", DATAPROF_BIN, prof_a), 0);
	printf("%s", res.out);
	tu_assert_contains(res.out, "touch 2.00 cache lines per visit; they fit in 1",
			   "cold members flag, count, cold (117 bytes) lie between",
			   "holes: 3 bytes after flag; 6 bytes of padding", "instances start at",
			   "memory levels: none recorded", NULL);
	tu_result_free(&res);
	/* layout B did what the advice says */
	assert_int_equal(layout(&f, NULL, "'struct item' '%s'", prof_b), 0);
	printf("struct item in layout B: lines per visit %.2f\n", f.now);
	assert_true(f.now > 0.99 && f.now < 1.01);
}

static void test_diff(void **state)
{
	tu_result res;

	(void)state;
	record_layouts();
	assert_int_equal(
	    tu_sh(&res, "'%s' layout --diff '%s' '%s' 'struct item'", DATAPROF_BIN, prof_a, prof_b),
	    0);
	printf("%s", res.out);
	tu_assert_contains(res.out, "lines per visit of the hot members: 2.00 -> 1.00", "~ b ",
			   "128 -> 8 ", NULL);
	tu_result_free(&res);
}

/* Records the fixture (its truth lines say which thread writes which
 * member) and checks what layout flags against them. */
static void check_false_sharing(const char *fixture, bool expect)
{
	char *prof = tu_path("fs.dprof"), *fx = tu_fixture(fixture), *cmd = dp_asprintf("'%s'", fx);
	tu_truth *t;
	size_t nt;
	facts f;
	tu_result res, run;
	int matched = 0;

	assert_int_equal(rec_run(&run, prof, "-e cpu-clock -F 4000", cmd), 0);
	nt = tu_truth_parse(run.out, &t);
	assert_int_equal(layout(&f, NULL, "'struct counters' '%s'", prof), 0);
	printf("%s: %d line%s flagged\n", fixture, f.nfalse, f.nfalse == 1 ? "" : "s");
	assert_int_equal(f.nfalse > 0, expect);
	/* each member written on a flagged line, by the thread the fixture says */
	for (int k = 0; k < f.nw; k++) {
		char want[80];
		bool ok = false;

		snprintf(want, sizeof(want), "struct counters.%s", f.w[k].member);
		for (size_t i = 0; i < nt; i++)
			ok |= !strcmp(t[i].kind, "thread") &&
			      !strcmp(tu_truth_get(&t[i], "role"), "writer") &&
			      tu_truth_u64(&t[i], "tid") == f.w[k].tid &&
			      !strcmp(tu_truth_get(&t[i], "member"), want);
		printf("  flagged: %s written by tid %lu%s\n", f.w[k].member, f.w[k].tid,
		       ok ? " (its writer)" : " (NOT its writer)");
		matched += ok;
	}
	if (expect) {
		assert_int_equal(matched, f.nw);
		assert_true(matched >= 2);
	}
	assert_int_equal(tu_sh(&res, "'%s' layout 'struct counters' '%s'", DATAPROF_BIN, prof), 0);
	printf("%s", res.out);
	assert_int_equal(strstr(res.out, "possible false sharing") != NULL, expect);
	assert_int_equal(strstr(res.out, "put a and b on separate cache lines") != NULL, expect);
	if (!expect)
		assert_non_null(strstr(res.out, "written by different threads: keep them"));
	tu_result_free(&res);
	tu_result_free(&run);
	free(t);
	free(cmd);
	free(fx);
	free(prof);
}

static void test_false_sharing(void **state)
{
	(void)state;
	check_false_sharing("falseshare_O2", true);
}

static void test_padded(void **state)
{
	(void)state;
	check_false_sharing("padded/falseshare_O2", false);
}

static void test_bad_input(void **state)
{
	char *bin = tu_fixture("layout_O2"), *stripped = tu_path("stripped"),
	     *text = tu_path("x.txt");
	tu_result res;
	FILE *f;

	(void)state;
	record_layouts();
	tu_sh(&res, "objcopy --strip-debug '%s' '%s'", bin, stripped);
	assert_int_equal(res.status, 0);
	tu_result_free(&res);
	f = fopen(text, "w");
	fputs("neither a profile nor a binary\n", f);
	fclose(f);
	rec_expect_error(0, "no type 'struct itme' in layout_O2", "layout 'struct itme' '%s'",
			 prof_a);
	rec_expect_error(0, "did you mean 'struct item'", "layout 'struct itme' '%s'", prof_a);
	rec_expect_error(0, "did you mean 'struct item'", "layout itme '%s'", bin);
	rec_expect_error(0, "has no debug info (DWARF): rebuild it with -g",
			 "layout 'struct item' '%s'", stripped);
	rec_expect_error(0, "x.txt", "layout 'struct item' '%s'", text);
	rec_expect_error(0, "--cacheline '100': a power of two",
			 "layout --cacheline 100 'struct item' '%s'", bin);
	rec_expect_error(0, "layout needs a TYPE", "layout ");
	rec_expect_error(0, "layout --diff takes BASE NEW TYPE", "layout --diff '%s' 'struct item'",
			 prof_a);
	rec_expect_error(0, "has no event 'page-faults'",
			 "layout --event page-faults 'struct item' '%s'", prof_a);
	free(bin);
	free(stripped);
	free(text);
}

static int teardown(void **state)
{
	(void)state;
	free(prof_a);
	free(prof_b);
	tu_cleanup();
	return 0;
}

TU_MAIN_AFTER(tu_require_program(DP_PROBE_CPU_CLOCK, DP_PROBE_PAGE_FAULTS, DP_PROBE_COUNT), NULL,
	      teardown, test_pahole, test_heat, test_diff, test_false_sharing, test_padded,
	      test_bad_input)
