/* The group teardown most tests share, and the main every test program has:
 * a cmocka group of test functions, run once. */
#ifndef DP_TU_GROUP_H
#define DP_TU_GROUP_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "tu.h"

/* Removes tu_tmpdir(): for a test whose files are all there. */
static inline int tu_teardown(void **state)
{
	(void)state;
	tu_cleanup();
	return 0;
}

/* Runs the n test functions fns as the cmocka group "tests", each named as
 * in names (their names as the source lists them, separated by commas and
 * parentheses: what TU_MAIN's #__VA_ARGS__ gives), all but the first plain
 * ones each between test_setup and test_teardown (either NULL), the whole
 * between group_setup and group_teardown (either NULL). Returns what
 * cmocka_run_group_tests does. */
int tu_run_group(const char *names, const CMUnitTestFunction *fns, size_t n, size_t plain,
		 CMFixtureFunction test_setup, CMFixtureFunction test_teardown,
		 CMFixtureFunction group_setup, CMFixtureFunction group_teardown);

/* TU_MAIN_AFTER(before, setup, teardown, test_a, test_b, ...): the test
 * program's main. Runs the statement before (what every test needs first:
 * tu_require_program(...), signal(...)), then the tests named, in order, as
 * one group between setup and teardown (group fixtures, either NULL). */
#define TU_MAIN_AFTER(before, setup, teardown, ...)                                                \
	TU_MAIN_(before, NULL, NULL, setup, teardown, __VA_ARGS__)
/* The same with nothing before. */
#define TU_MAIN(setup, teardown, ...) TU_MAIN_((void)0, NULL, NULL, setup, teardown, __VA_ARGS__)
/* The same with nothing before, each test between test_setup and
 * test_teardown (as cmocka_unit_test_setup_teardown) and no group fixture. */
#define TU_MAIN_EACH(test_setup, test_teardown, ...)                                               \
	TU_MAIN_((void)0, test_setup, test_teardown, NULL, NULL, __VA_ARGS__)
/* TU_MAIN_PLAIN_THEN_EACH(test_setup, test_teardown, (a, b), c, d): a and
 * b run alone, then c and d each between test_setup and test_teardown. */
#define TU_MAIN_PLAIN_THEN_EACH(test_setup, test_teardown, plain_tests, ...)                       \
	int main(void)                                                                             \
	{                                                                                          \
		static const CMUnitTestFunction tu_plain_[] = {TU_LIST_ plain_tests};              \
		static const CMUnitTestFunction tu_fns_[] = {TU_LIST_ plain_tests, __VA_ARGS__};   \
		return tu_run_group(#plain_tests ", " #__VA_ARGS__, tu_fns_, TU_COUNT_(tu_fns_),   \
				    TU_COUNT_(tu_plain_), test_setup, test_teardown, NULL, NULL);  \
	}

#define TU_LIST_(...)	 __VA_ARGS__
#define TU_COUNT_(array) (sizeof(array) / sizeof(*(array)))
#define TU_MAIN_(before, test_setup, test_teardown, setup, teardown, ...)                          \
	int main(void)                                                                             \
	{                                                                                          \
		static const CMUnitTestFunction tu_fns_[] = {__VA_ARGS__};                         \
		before;                                                                            \
		return tu_run_group(#__VA_ARGS__, tu_fns_, TU_COUNT_(tu_fns_), 0, test_setup,      \
				    test_teardown, setup, teardown);                               \
	}

#endif
