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

/* dp_parse_duration and dp_parse_size: a text to a number, or a reason */
typedef bool (*parse_fn)(const char *s, uint64_t *v, char *why, size_t whylen);

/* parse takes s as want */
static void taken(parse_fn parse, const char *s, uint64_t want)
{
	char why[160] = "";
	uint64_t v = 0;

	if (!parse(s, &v, why, sizeof(why)))
		fail_msg("'%s' refused: %s", s, why);
	if (v != want)
		fail_msg("'%s' gave %llu, not %llu", s, (unsigned long long)v,
			 (unsigned long long)want);
}

/* parse refuses s, saying reason */
static void refused(parse_fn parse, const char *s, const char *reason)
{
	char why[160] = "";
	uint64_t v = 0;

	if (parse(s, &v, why, sizeof(why)))
		fail_msg("'%s' taken as %llu", s, (unsigned long long)v);
	if (!strstr(why, reason))
		fail_msg("'%s': '%s' lacks '%s'", s, why, reason);
}

static void test_durations(void **state)
{
	(void)state;
	taken(dp_parse_duration, "100ms", 100000000);
	taken(dp_parse_duration, "2.5s", 2500000000ull);
	taken(dp_parse_duration, "1us", 1000);
	taken(dp_parse_duration, "500ns", 500);
	taken(dp_parse_duration, "0.5us", 500);
	taken(dp_parse_duration, "2min", 120000000000ull);
	taken(dp_parse_duration, "1h", 3600000000000ull);
	taken(dp_parse_duration, "0s", 0);
	taken(dp_parse_duration, "18446744073709549568ns",
	      0xfffffffffffff800ull); /* 2^64 - 2^11: a double */
	refused(dp_parse_duration, "18446744073709551615ns",
		"beyond any profile"); /* rounds to 2^64 */
	refused(dp_parse_duration, "100", "has no unit");
	refused(dp_parse_duration, "", "not a duration");
	refused(dp_parse_duration, "ms", "not a duration");
	refused(dp_parse_duration, "-1s", "not a duration");
	refused(dp_parse_duration, "+1s", "not a duration");
	refused(dp_parse_duration, " 1s", "not a duration");
	refused(dp_parse_duration, "1e3ms", "is not ns, us");
	refused(dp_parse_duration, "0x10ms", "is not ns, us");
	refused(dp_parse_duration, "inf", "not a duration");
	refused(dp_parse_duration, "nan", "not a duration");
	refused(dp_parse_duration, "1.2.3s", "not a duration");
	refused(dp_parse_duration, ".", "not a duration");
	refused(dp_parse_duration, "1 s", "is not ns, us");
	refused(dp_parse_duration, "10parsecs", "is not ns, us");
	refused(dp_parse_duration, "585y", "is not ns, us");
	refused(dp_parse_duration, "600000000000h", "beyond any profile");
	refused(dp_parse_duration,
		"99999999999999999999999999999999999999999999999999999999999999999s",
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

static void test_sizes(void **state)
{
	(void)state;
	taken(dp_parse_size, "4096", 4096);
	taken(dp_parse_size, "4K", 4096);
	taken(dp_parse_size, "1.5M", 1572864);
	taken(dp_parse_size, "2GiB", 2147483648ull);
	taken(dp_parse_size, "0", 0);
	refused(dp_parse_size, "1.5", "no fraction");
	refused(dp_parse_size, "-4K", "not a size");
	refused(dp_parse_size, "4T", "not K, M or G");
	refused(dp_parse_size, "4 K", "not K, M or G");
	refused(dp_parse_size, "99999999999999999999G", "beyond");
}

TU_MAIN(NULL, NULL, test_durations, test_ranges, test_sizes)
