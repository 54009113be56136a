/* lib/util.h's small helpers shared by the stages: dp_fit_end (report's and
 * diff's keys cut to the terminal) and dp_cmp_u64 (the steps of qsort
 * comparators); lib/hashmap.h against a plain array. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdint.h>
#include <string.h>

#include "hashmap.h"
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

/* Puts, replaces and deletes at random, keys crowded into few home slots
 * (so that deletions shift long runs, across the table's end too), each
 * step checked against an array of what should be there. */
static void test_hashmap_model(void **state)
{
	enum { KEYS = 600, STEPS = 200000 };
	static uint64_t want[KEYS];
	static bool have[KEYS];
	uint64_t rnd = 88172645463325252ull, v, k;
	size_t n = 0, pos = 0, seen = 0;
	dp_hashmap m;

	(void)state;
	dp_hashmap_init(&m, 8);
	for (int step = 0; step < STEPS; step++) {
		rnd ^= rnd << 13, rnd ^= rnd >> 7, rnd ^= rnd << 17;
		size_t i = (size_t)(rnd % KEYS);
		uint64_t key = i * 0x10000; /* few low bits: clustered homes */

		if ((rnd >> 32) % 3) {
			n += !have[i];
			have[i] = true;
			want[i] = rnd;
			dp_hashmap_put(&m, key, rnd);
		} else {
			assert_int_equal(dp_hashmap_del(&m, key), have[i]);
			n -= have[i];
			have[i] = false;
		}
		assert_int_equal(m.n, n);
		if (step % 997 == 0)
			for (size_t j = 0; j < KEYS; j++) {
				bool in = dp_hashmap_get(&m, j * 0x10000, &v);

				assert_int_equal(in, have[j]);
				if (in)
					assert_true(v == want[j]);
			}
	}
	while (dp_hashmap_next(&m, &pos, &k, &v)) {
		assert_true(have[k / 0x10000] && want[k / 0x10000] == v);
		seen++;
	}
	assert_int_equal(seen, n);
	/* emptied, it is an empty map */
	for (size_t j = 0; j < KEYS; j++)
		assert_int_equal(dp_hashmap_del(&m, j * 0x10000), have[j]);
	assert_int_equal(m.n, 0);
	assert_false(dp_hashmap_get(&m, 0, &v));
	assert_false(dp_hashmap_del(&m, 0));
	dp_hashmap_free(&m);
	assert_false(dp_hashmap_del(&m, 1)); /* a freed map: nothing */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fit_end),
	    cmocka_unit_test(test_cmp_u64),
	    cmocka_unit_test(test_hashmap_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
