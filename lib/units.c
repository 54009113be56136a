#include "units.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWO64 18446744073709551616.0

/* a plain decimal number at s (digits, at most one point: no sign, blank,
 * exponent, hex, "inf" or "nan", all of which strtod would take); *end
 * after it */
static bool number(const char *s, double *v, const char **end)
{
	size_t n = strspn(s, "0123456789.");
	const char *dot = memchr(s, '.', n);
	char buf[64];

	if (!n || n >= sizeof(buf) || (dot && memchr(dot + 1, '.', n - (size_t)(dot - s) - 1)) ||
	    (n == 1 && dot))
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	*v = strtod(buf, NULL);
	*end = s + n;
	return true;
}

static bool scaled(double v, double mult, uint64_t *out)
{
	double x = v * mult;

	if (!(x >= 0) || x + 0.5 >= TWO64)
		return false;
	*out = (uint64_t)(x + 0.5);
	return true;
}

typedef struct {
	const char *name;
	double mult;
} unit;

/* the units of one quantity, and how its messages name them */
typedef struct {
	const unit *u;
	size_t n;
	const char *names;  /* "K, M or G": the unit '...' is not <names> */
	const char *beyond; /* "2^64 bytes": '...' is beyond <beyond> */
} unit_set;

/* v (read from s) in the unit of us named end, scaled to us's base unit
 * into *out: that unit, or NULL with the reason in why */
static const unit *in_unit(const unit_set *us, const char *s, double v, const char *end,
			   uint64_t *out, char *why, size_t whylen)
{
	for (size_t i = 0; i < us->n; i++) {
		if (strcmp(end, us->u[i].name))
			continue;
		if (!scaled(v, us->u[i].mult, out)) {
			snprintf(why, whylen, "'%s' is beyond %s", s, us->beyond);
			return NULL;
		}
		return &us->u[i];
	}
	snprintf(why, whylen, "'%s': the unit '%s' is not %s", s, end, us->names);
	return NULL;
}

bool dp_parse_duration(const char *s, uint64_t *ns, char *why, size_t whylen)
{
	static const unit units[] = {{"ns", 1},	 {"us", 1e3},	{"ms", 1e6},
				     {"s", 1e9}, {"min", 60e9}, {"h", 3600e9}};
	static const unit_set us = {units, DP_ARRAY_LEN(units), "ns, us, ms, s, min or h",
				    "any profile (2^64 ns, 585 years)"};
	const char *end;
	double v;

	if (!s || !number(s, &v, &end)) {
		snprintf(why, whylen,
			 "'%s' is not a duration (a number and its unit: 100ms, 2.5s, "
			 "1us, 500ns, 2min, 1h)",
			 s ? s : "");
		return false;
	}
	if (!*end) {
		snprintf(why, whylen, "'%s' has no unit: write %sms, %ss, %sus or %sns", s, s, s, s,
			 s);
		return false;
	}
	return in_unit(&us, s, v, end, ns, why, whylen) != NULL;
}

bool dp_parse_time_range(const char *s, uint64_t *lo, uint64_t *hi, char *why, size_t whylen)
{
	const char *dots = s ? strstr(s, "..") : NULL;
	char a[64], b[64];
	bool rel;

	*lo = 0;
	*hi = UINT64_MAX;
	if (!dots || (size_t)(dots - s) >= sizeof(a) || strlen(dots + 2) >= sizeof(b)) {
		snprintf(why, whylen,
			 "'%s' is not a range: write START..END (1s..2.5s, 100ms.., "
			 "..3s, 2s..+500ms)",
			 s ? s : "");
		return false;
	}
	snprintf(a, sizeof(a), "%.*s", (int)(dots - s), s);
	snprintf(b, sizeof(b), "%s", dots + 2);
	if (*a && !dp_parse_duration(a, lo, why, whylen))
		return false;
	rel = b[0] == '+';
	if (*b && !dp_parse_duration(b + rel, hi, why, whylen))
		return false;
	if (rel) {
		if (*hi > UINT64_MAX - *lo) {
			snprintf(why, whylen, "'%s' ends beyond any profile (2^64 ns)", s);
			return false;
		}
		*hi += *lo;
	}
	if (*hi < *lo) {
		snprintf(why, whylen, "'%s' ends before it starts", s);
		return false;
	}
	return true;
}

bool dp_parse_size(const char *s, uint64_t *bytes, char *why, size_t whylen)
{
	static const unit units[] = {
	    {"", 1},	    {"B", 1},	      {"K", 1024},	   {"KiB", 1024},
	    {"M", 1048576}, {"MiB", 1048576}, {"G", 1073741824.0}, {"GiB", 1073741824.0}};
	static const unit_set us = {units, DP_ARRAY_LEN(units), "K, M or G", "2^64 bytes"};
	const unit *u;
	const char *end;
	double v;

	if (!s || !number(s, &v, &end)) {
		snprintf(why, whylen, "'%s' is not a size (bytes, or a number with K, M or G)",
			 s ? s : "");
		return false;
	}
	u = in_unit(&us, s, v, end, bytes, why, whylen);
	if (!u)
		return false;
	if (u->mult == 1 && strchr(s, '.')) {
		snprintf(why, whylen, "'%s': a number of bytes has no fraction", s);
		return false;
	}
	return true;
}
