#include "diff.h"

#include <math.h>
#include <string.h>

const char *dp_diff_fmt_num(double v, bool sign, char *buf, size_t len)
{
	static const char suffix[] = " kMGTPE";
	double a = fabs(v);
	int s = 0;

	while (a >= 999.5 && s < 6) {
		a /= 1000;
		s++;
	}
	if (a >= 99.95 || (s == 0 && a == floor(a)))
		snprintf(buf, len, "%s%.0f", v < 0 ? "-" : sign ? "+" : "", a);
	else if (a >= 9.995)
		snprintf(buf, len, "%s%.1f", v < 0 ? "-" : sign ? "+" : "", a);
	else
		snprintf(buf, len, "%s%.2f", v < 0 ? "-" : sign ? "+" : "", a);
	if (s) {
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, "%c", suffix[s]);
	}
	return buf;
}

static void percent(double ratio, char *buf, size_t len, double one_decimal_below)
{
	double p = (ratio - 1) * 100;

	if (isinf(ratio))
		snprintf(buf, len, "+inf");
	else if (fabs(p) < one_decimal_below)
		snprintf(buf, len, "%+.1f%%", p);
	else
		snprintf(buf, len, "%+.0f%%", p);
}

const char *dp_diff_fmt_change(const dp_rate_cmp *c, char *buf, size_t len)
{
	if (c->base <= 0 && c->new_ > 0)
		snprintf(buf, len, "new");
	else if (c->base <= 0)
		snprintf(buf, len, "-");
	else
		percent(c->ratio, buf, len, 99.95);
	return buf;
}

const char *dp_diff_fmt_interval(const dp_rate_cmp *c, const char *sep, char *buf, size_t len)
{
	char lo[32], hi[32];

	if (c->base <= 0 && c->new_ <= 0) {
		snprintf(buf, len, "-");
		return buf;
	}
	/* bounds to two digits: they are not known better than that */
	percent(c->ratio_lo, lo, sizeof(lo), 9.95);
	percent(c->ratio_hi, hi, sizeof(hi), 9.95);
	if (sep)
		snprintf(buf, len, "%s%s%s", lo, sep, hi);
	else
		snprintf(buf, len, "[%s, %s]", lo, hi);
	return buf;
}

const char *dp_diff_fmt_key(const dp_diff_result *r, const dp_diff_row *row, char *buf, size_t len)
{
	if (row->bkey >= 0 && row->nkey >= 0 && row->bkey != row->nkey)
		snprintf(buf, len, "%s -> %s", dp_diff_key_text(r, row, false),
			 dp_diff_key_text(r, row, true));
	else
		snprintf(buf, len, "%s", dp_diff_key_text(r, row, row->nkey >= 0));
	return buf;
}

const char *dp_diff_noise_text(const dp_diff_result *r, int m)
{
	static char buf[160];
	double cv = sqrt(r->kappa[m]) * 100;

	if (r->noise_measured)
		snprintf(
		    buf, sizeof(buf),
		    "run-to-run noise measured: %.1f%% a run beyond Poisson, and each key's own "
		    "(moderated; Student's t)",
		    cv);
	else if (r->o->noise > 0)
		snprintf(buf, sizeof(buf), "run-to-run noise assumed: %.1f%% a run (--noise)", cv);
	else
		snprintf(buf, sizeof(buf),
			 "run-to-run noise not measured (one run a side: give two or more)");
	return buf;
}
