/* One syntax for times and sizes (lib/units.h): what it takes, and what it
 * refuses with a reason -- garbage, signs, exponents, bare numbers for
 * times, overflow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "units.h"
#include "tu_group.h"

static void dur_ok(const char *s, uint64_t want)
{
	char why[160] = "";
	uint64_t ns = 0;

	if (!dp_parse_duration(s, &ns, why, sizeof(why)))
		fail_msg("'%s' refused: %s", s, why);
	if (ns != want)
		fail_msg("'%s' gave %llu ns, not %llu", s, (unsigned long long)ns,
			 (unsigned long long)want);
}

static void dur_bad(const char *s, const char *reason)
{
	char why[160] = "";
	uint64_t ns = 0;

	if (dp_parse_duration(s, &ns, why, sizeof(why)))
		fail_msg("'%s' taken as %llu ns", s, (unsigned long long)ns);
	if (!strstr(why, reason))
		fail_msg("'%s': '%s' lacks '%s'", s, why, reason);
}

static void test_durations(void **state)
{
	(void)state;
	dur_ok("100ms", 100000000);
	dur_ok("2.5s", 2500000000ull);
	dur_ok("1us", 1000);
	dur_ok("500ns", 500);
	dur_ok("0.5us", 500);
	dur_ok("2min", 120000000000ull);
	dur_ok("1h", 3600000000000ull);
	dur_ok("0s", 0);
	dur_ok("18446744073709549568ns", 0xfffffffffffff800ull); /* 2^64 - 2^11: a double */
	dur_bad("18446744073709551615ns", "beyond any profile"); /* rounds to 2^64 */
	dur_bad("100", "has no unit");
	dur_bad("", "not a duration");
	dur_bad("ms", "not a duration");
	dur_bad("-1s", "not a duration");
	dur_bad("+1s", "not a duration");
	dur_bad(" 1s", "not a duration");
	dur_bad("1e3ms", "is not ns, us");
	dur_bad("0x10ms", "is not ns, us");
	dur_bad("inf", "not a duration");
	dur_bad("nan", "not a duration");
	dur_bad("1.2.3s", "not a duration");
	dur_bad(".", "not a duration");
	dur_bad("1 s", "is not ns, us");
	dur_bad("10parsecs", "is not ns, us");
	dur_bad("585y", "is not ns, us");
	dur_bad("600000000000h", "beyond any profile");
	dur_bad("99999999999999999999999999999999999999999999999999999999999999999s",
		"not a duration"); /* longer than any number we read */
}

static void range_ok(const char *s, uint64_t lo, uint64_t hi)
{
	char why[160] = "";
	uint64_t a = 1, b = 1;

	if (!dp_parse_time_range(s, &a, &b, why, sizeof(why)))
		fail_msg("'%s' refused: %s", s, why);
	if (a != lo || b != hi)
		fail_msg("'%s' gave %llu..%llu", s, (unsigned long long)a, (unsigned long long)b);
}

static void range_bad(const char *s, const char *reason)
{
	char why[160] = "";
	uint64_t a, b;

	if (dp_parse_time_range(s, &a, &b, why, sizeof(why)))
		fail_msg("'%s' taken", s);
	if (!strstr(why, reason))
		fail_msg("'%s': '%s' lacks '%s'", s, why, reason);
}

static void test_ranges(void **state)
{
	(void)state;
	range_ok("1s..2.5s", 1000000000, 2500000000ull);
	range_ok("100ms..", 100000000, UINT64_MAX);
	range_ok("..3s", 0, 3000000000ull);
	range_ok("..", 0, UINT64_MAX);
	range_ok("2s..+500ms", 2000000000, 2500000000ull);
	range_bad("3s", "not a range");
	range_bad("1..2", "has no unit");
	range_bad("2s..1s", "ends before it starts");
	range_bad("1s..+", "not a duration");
	range_bad("1h..+18446744073709551615ns", "beyond any profile");
}

static void size_ok(const char *s, uint64_t want)
{
	char why[160] = "";
	uint64_t n = 0;

	if (!dp_parse_size(s, &n, why, sizeof(why)))
		fail_msg("'%s' refused: %s", s, why);
	if (n != want)
		fail_msg("'%s' gave %llu", s, (unsigned long long)n);
}

static void size_bad(const char *s, const char *reason)
{
	char why[160] = "";
	uint64_t n;

	if (dp_parse_size(s, &n, why, sizeof(why)))
		fail_msg("'%s' taken as %llu", s, (unsigned long long)n);
	if (!strstr(why, reason))
		fail_msg("'%s': '%s' lacks '%s'", s, why, reason);
}

static void test_sizes(void **state)
{
	(void)state;
	size_ok("4096", 4096);
	size_ok("4K", 4096);
	size_ok("1.5M", 1572864);
	size_ok("2GiB", 2147483648ull);
	size_ok("0", 0);
	size_bad("1.5", "no fraction");
	size_bad("-4K", "not a size");
	size_bad("4T", "not K, M or G");
	size_bad("4 K", "not K, M or G");
	size_bad("99999999999999999999G", "beyond");
}

TU_MAIN(NULL, NULL, test_durations, test_ranges, test_sizes)
