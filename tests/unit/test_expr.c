/* --where expressions (report/expr.h): the syntax taken and refused, with
 * where the error is; precedence of not/and/or and parentheses; every
 * operator on numbers, times and names, evaluated on hand-made rows in a
 * real report context; and hostile input (deep nesting, long values,
 * overflow, garbage bytes) refused with a message rather than a crash
 * (issue 17). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/expr.h"
#include "report_fixture.h"
#include "tu_group.h"

static void ok(const char *src)
{
	dp_error err = {{0}};

	if (!dp_expr_check(src, &err))
		fail_msg("'%s' refused: %s", src, err.msg);
}

/* Refused, the message saying what (a part of it) and where. */
static void bad(const char *src, const char *what, int at)
{
	dp_error err = {{0}};
	char where[48];

	if (dp_expr_check(src, &err))
		fail_msg("'%s' taken", src);
	if (!strstr(err.msg, what))
		fail_msg("'%s': '%s' lacks '%s'", src, err.msg, what);
	snprintf(where, sizeof(where), "at character %d", at);
	if (!strstr(err.msg, where))
		fail_msg("'%s': '%s' lacks '%s'", src, err.msg, where);
}

static void test_syntax(void **state)
{
	(void)state;
	ok("cpu=1");
	ok("  cpu = 1  ");
	ok("cpu!=0 and weight>=100");
	ok("cpu<1 or cpu<=1 or cpu>1 or cpu>=1");
	ok("function~\"ma*\" && object!~'[*]' || not level=\"L3 miss\"");
	ok("!(cpu=1) and !cpu=2");
	ok("((cpu=1))");
	ok("type.member=\"struct node.next\""); /* diff's spelling of member */
	ok("time=1s..2.5s");
	ok("time=100ms..");
	ok("time=..3s");
	ok("time=2s..+500ms");
	ok("time<1.5s");
	ok("addr=0x601000..0x602000");
	ok("cpu=..3");
	ok("cpu=3..");
	ok("function=\"\""); /* an empty name is a name */

	bad("", "an attribute name is expected", 1);
	bad("   ", "an attribute name is expected", 4);
	bad("cpu", "an operator", 4);
	bad("cpu=", "a value is missing", 5);
	bad("cpu==1", "'==': compare with =", 4);
	bad("kind==\"heap\"", "'==': compare with =", 5); /* not the name ="heap" */
	bad("cpu=1 cpu=2", "unexpected text", 7);
	bad("cpu=1 and", "an attribute name is expected", 10);
	bad("cpu=1 or or cpu=2", "unknown attribute 'or'", 10);
	bad("(cpu=1", "')' is missing", 7);
	bad("cpu=1)", "unexpected text", 6);
	bad("()", "an attribute name is expected", 2);
	bad("nosuch=1", "unknown attribute 'nosuch'", 1);
	bad("cpu=1 and nosuch=1", "unknown attribute 'nosuch'", 11);
	bad("cpu~1", "cannot be matched with ~", 5);
	bad("function<main", "names compare with = != ~ !~ only", 10);
	bad("function=\"main", "unterminated quoted value", 15);
	bad("function='main", "unterminated quoted value", 15);
	bad("weight=1.5", "a number is expected", 8);
	bad("cpu=-1", "a number is expected", 5);
	bad("cpu=1..x", "a range is written LOW..HIGH", 5);
	bad("time=100", "has no unit", 6);
	bad("time=1s..x", "'x' is not a duration", 6);
	bad("time=2s..1s", "ends before it starts", 6);
	bad("cpu=5..2", "ends before it starts", 5);
	bad("addr=0x602000..0x601000", "ends before it starts", 6);
	bad("time:100ms=1", "an operator", 5); /* buckets belong to --by, not --where */
}

/* The unknown attribute's message lists the valid ones. */
static void test_unknown_names_valid(void **state)
{
	dp_error err = {{0}};

	(void)state;
	assert_false(dp_expr_check("objekt=nodes", &err));
	assert_non_null(strstr(err.msg, "objekt"));
	assert_non_null(strstr(err.msg, dp_attr_all_names()));
}

static void test_overflow(void **state)
{
	(void)state;
	ok("addr=18446744073709551615");
	ok("addr=0xffffffffffffffff");
	bad("addr=18446744073709551616", "a number is expected", 6);
	bad("addr=0x10000000000000000", "a number is expected", 6);
	bad("cpu=99999999999999999999999999999..", "a range is written", 5);
	bad("time=99999999999h", "beyond", 6);
}

/* n parentheses around a predicate, or n nots before it: up to 1000
 * levels are taken, more are refused where the 1001st opens, never a crash
 * of the stack (65536 overflowed it before the limit). */
static void deep(size_t n, char open, bool close)
{
	dp_error err = {{0}};
	char *s = malloc(2 * n + 16);
	bool taken;

	memset(s, open, n);
	strcpy(s + n, "cpu=1");
	if (close)
		memset(s + n + 5, ')', n);
	s[n + 5 + (close ? n : 0)] = 0;
	taken = dp_expr_check(s, &err);
	if (n <= 1000 && !taken)
		fail_msg("%zu x '%c' refused: %s", n, open, err.msg);
	if (n > 1000 &&
	    (taken || !strstr(err.msg, "nested too deep") || !strstr(err.msg, "at character 1001")))
		fail_msg("%zu x '%c': %s", n, open, taken ? "taken" : err.msg);
	/* unbalanced: nothing closes */
	if (close) {
		s[n + 5] = 0;
		assert_false(dp_expr_check(s, &err));
	}
	free(s);
}

static void test_hostile(void **state)
{
	(void)state;
	deep(10, '(', true);
	deep(1000, '(', true);
	deep(1001, '(', true);
	deep(10000, '(', true);
	deep(65536, '(', true); /* about what one argument of a command can hold */
	deep(1000, '!', false);
	deep(1001, '!', false);
	deep(65536, '!', false);
}

static void test_long_values(void **state)
{
	size_t n = 100000;
	char *s = malloc(n + 64);
	dp_error err = {{0}};

	(void)state;
	strcpy(s, "function=\"");
	memset(s + 10, 'x', n);
	strcpy(s + 10 + n, " y\"");
	ok(s);
	/* an error far into a long expression still says what and where */
	strcpy(s + 10 + n, "y");
	assert_false(dp_expr_check(s, &err));
	assert_non_null(strstr(err.msg, "unterminated quoted value"));
	char where[48];
	snprintf(where, sizeof(where), "at character %zu", 10 + n + 2);
	if (!strstr(err.msg, where))
		fail_msg("'%s' lacks '%s'", err.msg, where);
	/* a long attribute name */
	memset(s, 'a', n);
	strcpy(s + n, "=1");
	assert_false(dp_expr_check(s, &err));
	tu_assert_contains(err.msg, "unknown attribute", "at character 1", NULL);
	free(s);
}

/* Bytes that are no syntax: refused at the first of them. */
static void test_garbage(void **state)
{
	char s[64];

	(void)state;
	bad("\x01\x02\x03", "an attribute name is expected", 1);
	bad("cpu\xff=1", "an operator", 4);
	bad("cpu=1 \x7f", "unexpected text", 7);
	bad("@#$%", "an attribute name is expected", 1);
	ok("function=\xc3\xa9t\xc3\xa9"); /* UTF-8 names are names */
	/* every byte after a valid predicate: taken or refused, never more */
	for (int c = 1; c < 256; c++) {
		dp_error err = {{0}};
		snprintf(s, sizeof(s), "cpu=1 %c cpu=2", c);
		if (!dp_expr_check(s, &err))
			assert_non_null(strstr(err.msg, "at character"));
	}
}

/* The row every evaluation test looks at. */
typedef struct efx {
	rfx f;
	rsample m;
} efx;

static int setup(void **state)
{
	efx *e = calloc(1, sizeof(*e));

	rfx_open(&e->f, "expr.dprof");
	rsample_init(&e->m);
	e->m.s.event = 1; /* cycles */
	e->m.s.cpu = 3;
	e->m.s.pid = 42;
	e->m.s.tid = 43;
	e->m.s.weight = 120;
	e->m.s.ip = 0x401234;
	e->m.r.time_rel = 1500000000; /* 1.5 s */
	e->m.x.data_addr = 0x601040;
	e->m.a.function = rfx_str(&e->f, "main");
	e->m.a.object = rfx_str(&e->f, "nodes");
	e->m.a.type = rfx_str(&e->f, "struct node");
	e->m.a.member = rfx_str(&e->f, "struct node.next");
	e->m.r.level = rfx_str(&e->f, "L3 miss");
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	efx *e = *state;

	rfx_close(&e->f);
	free(e);
	return 0;
}

static bool eval(efx *e, const char *src)
{
	dp_error err = {{0}};
	dp_expr *x = dp_expr_parse(src, e->f.attrs, &err);
	bool v;

	if (!x)
		fail_msg("'%s' refused: %s", src, err.msg);
	v = dp_expr_eval(x, e->f.attrs, &e->m.r);
	/* twice: a glob's result is remembered per name */
	assert_int_equal(dp_expr_eval(x, e->f.attrs, &e->m.r), v);
	dp_expr_free(x);
	return v;
}

/* A long chain of predicates is no nesting: taken and evaluated. */
static void chain(efx *e, const char *join, size_t skip, bool want)
{
	size_t n = 8000;
	dp_buf b = {0};
	dp_error err = {{0}};

	for (size_t i = 0; i < n; i++)
		if (i != skip)
			dp_buf_printf(&b, "%scpu%s%zu", b.len ? join : "",
				      *join == ' ' && join[1] == 'o' ? "=" : "!=", i);
	dp_buf_add(&b, "", 1);
	dp_expr *x = dp_expr_parse((char *)b.p, e->f.attrs, &err);
	if (!x)
		fail_msg("%s", err.msg);
	assert_int_equal(dp_expr_eval(x, e->f.attrs, &e->m.r), want);
	dp_expr_free(x);
	dp_buf_free(&b);
}

static void test_long_chain(void **state)
{
	efx *e = *state;

	chain(e, " or ", SIZE_MAX, true);   /* cpu=0 or ... cpu=7999 */
	chain(e, " or ", 3, false);	    /* ... without cpu=3 */
	chain(e, " and ", SIZE_MAX, false); /* cpu!=0 and ... cpu!=7999 */
	chain(e, " and ", 3, true);	    /* ... without cpu!=3 */
}

#define T(src) assert_true(eval(e, src))
#define F(src) assert_false(eval(e, src))

static void test_numbers(void **state)
{
	efx *e = *state;

	T("cpu=3");
	F("cpu=2");
	T("cpu!=2");
	F("cpu!=3");
	T("cpu<4");
	F("cpu<3");
	T("cpu<=3");
	F("cpu<=2");
	T("cpu>2");
	F("cpu>3");
	T("cpu>=3");
	F("cpu>=4");
	T("cpu=0..3");
	T("cpu=3..9");
	F("cpu=4..9");
	T("cpu=..3");
	F("cpu=..2");
	T("cpu=3..");
	F("cpu!=0..5");
	T("cpu!=4..");
	T("pid=42 and tid=43");
	T("weight>=100");
	F("weight>120");
	T("addr=0x601040");
	T("addr=0x601000..0x602000");
	F("addr=0x602000..");
	T("ip=0x401234");
	T("cacheline=0x601040"); /* 0x601040 is line-aligned */
	F("cacheline=0x601041");
	T("page=0x601000");
	T("cpu=\"3\""); /* quoted numbers are numbers */
	T("cpu=0x3");
}

static void test_times(void **state)
{
	efx *e = *state;

	T("time=1s..2s");
	T("time=1.5s");
	T("time=1500ms");
	T("time=1500000us");
	F("time=1499999999ns");
	T("time>1s");
	F("time>1.5s");
	T("time>=1.5s");
	T("time<2s");
	T("time<=1500ms");
	T("time=1s..+500ms");
	F("time=1s..+499ms");
	T("time=1.5s..");
	F("time=..1s");
	F("time!=1s..2s");
	T("time!=2s..3s");
	T("time<1min and time<1h");
}

static void test_names(void **state)
{
	efx *e = *state;

	T("function=main");
	F("function=mai");
	T("function!=mai");
	T("function~ma*");
	T("function~\"m?in\"");
	F("function!~ma*");
	T("function!~x*");
	T("object='nodes'");
	T("level=\"L3 miss\"");
	F("level=L3");
	T("level~\"L3 *\"");
	T("member=\"struct node.next\"");
	T("type.member=\"struct node.next\"");
	T("member~\"struct node.*\"");
	T("type=\"struct node\"");
	/* attributes named from the profile, not the string table */
	T("event=cycles");
	F("event=page-faults");
	T("event~cyc*");
	T("verdict=exact");
	F("verdict=verified");
	/* a name the profile has never seen matches nothing */
	F("function=never_seen");
	T("function!=never_seen");
	/* what a row lacks */
	T("site=-");
	T("inline=-");
	T("file=[unknown]");
}

static void test_precedence(void **state)
{
	efx *e = *state;

	/* and binds tighter than or: true or (false and false) */
	T("cpu=3 or cpu=0 and cpu=1");
	/* (true or false) and false */
	F("(cpu=3 or cpu=0) and cpu=1");
	/* false and false or true = (false and false) or true */
	T("cpu=0 and cpu=1 or cpu=3");
	F("cpu=0 and (cpu=1 or cpu=3)");
	/* not binds tightest: (not true) or true */
	T("not cpu=3 or cpu=3");
	F("not (cpu=3 or cpu=0)");
	T("not cpu=0 and not cpu=1");
	F("not not cpu=0");
	T("!!cpu=3");
	T("!(cpu=0)");
	T("((((cpu=3))))");
	/* left to right, and the same result both ways round */
	T("cpu=0 or cpu=1 or cpu=2 or cpu=3");
	F("cpu=3 and cpu=3 and cpu=3 and cpu=2");
	T("cpu=3 && pid=42 || cpu=9");
	/* "and"/"or"/"not" are words, not prefixes of names */
	bad("cpu=1 andcpu=2", "unexpected text", 7);
}

TU_MAIN_PLAIN_THEN_EACH(setup, teardown,
			(test_syntax, test_unknown_names_valid, test_overflow, test_hostile,
			 test_long_values, test_garbage),
			test_numbers, test_times, test_names, test_precedence, test_long_chain)
