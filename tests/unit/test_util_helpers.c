/* lib/util.h's small helpers shared by the stages: dp_fit_end (report's and
 * diff's keys cut to the terminal) and dp_cmp_u64 (the steps of qsort
 * comparators). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdint.h>
#include <string.h>

#include "util.h"

static void fits(const char *s, int width, int least, const char *want)
{
	char out[64];

	dp_fit_end(s, width, least, out, sizeof(out));
	if (strcmp(out, want))
		fail_msg("'%s' in %d (at least %d): '%s', not '%s'", s, width, least, out, want);
}

static void test_fit_end(void **state)
{
	(void)state;
	fits("short", 10, 4, "short");
	fits("exactly10!", 10, 4, "exactly10!");
	fits("src/table.c:88", 10, 4, "...le.c:88");
	fits("abcdefghij", 2, 4, "...j");
	fits("abcdefghijkl", 0, 8, "...hijkl");
	fits("", 0, 8, "");
}

static void test_cmp_u64(void **state)
{
	(void)state;
	assert_int_equal(dp_cmp_u64(1, 2), -1);
	assert_int_equal(dp_cmp_u64(2, 1), 1);
	assert_int_equal(dp_cmp_u64(7, 7), 0);
	assert_int_equal(dp_cmp_u64(0, UINT64_MAX), -1);
	assert_int_equal(dp_cmp_u64(UINT64_MAX, 0), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fit_end),
	    cmocka_unit_test(test_cmp_u64),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
