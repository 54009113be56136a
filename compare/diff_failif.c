/* --fail-if: a threshold on the change of chosen keys, for CI. */
#include "diff.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TERMS 4

enum unit { U_PERCENT, U_RATIO, U_DELTA };
enum op { OP_GT, OP_GE, OP_LT, OP_LE };

struct term {
	int attr; /* index in --by */
	bool glob, negate;
	char *value;
};

struct dp_failif {
	char *src;
	bool total; /* the selector is "total": all samples kept */
	struct term t[MAX_TERMS];
	int nterms;
	dp_metric metric;
	enum op op;
	enum unit unit;
	double threshold;
};

void dp_failif_free(dp_failif *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nterms; i++)
		free(f->t[i].value);
	free(f->src);
	free(f);
}

static const char *skip_ws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* "samples > +10%": false if s is not one */
static bool parse_cond(const char *s, dp_failif *f)
{
	static const char *const metrics[] = {"samples", "period", "weight"};
	char *end;
	size_t n;
	int m;

	s = skip_ws(s);
	for (m = 0; m < 3; m++) {
		n = strlen(metrics[m]);
		if (!strncmp(s, metrics[m], n) && !isalnum((unsigned char)s[n]))
			break;
	}
	if (m == 3)
		return false;
	f->metric = (dp_metric)m;
	s = skip_ws(s + n);
	if (s[0] == '>' || s[0] == '<') {
		bool eq = s[1] == '=';

		f->op = s[0] == '>' ? (eq ? OP_GE : OP_GT) : (eq ? OP_LE : OP_LT);
		s += eq ? 2 : 1;
	} else {
		return false;
	}
	s = skip_ws(s);
	f->threshold = strtod(s, &end);
	if (end == s)
		return false;
	s = end;
	f->unit = *s == '%' ? U_PERCENT : *s == 'x' ? U_RATIO : U_DELTA;
	if (f->unit != U_DELTA)
		s++;
	return !*skip_ws(s);
}

static bool parse_selector(const char *s, size_t len, const dp_agg_level *by, dp_failif *f,
			   dp_error *err)
{
	char *sel = dp_strndup(s, len), *p = sel;
	bool ok = false;

	while (len && isspace((unsigned char)sel[len - 1]))
		sel[--len] = 0;
	p = (char *)skip_ws(p);
	if (!strcmp(p, "total")) {
		f->total = true;
		free(sel);
		return true;
	}
	while (*p) {
		struct term *t;
		size_t an = strcspn(p, "=!~ ");
		char *name = dp_strndup(p, an), *v;
		dp_attr a;
		int idx = -1;

		if (f->nterms == MAX_TERMS) {
			dp_error_set(err, "--fail-if '%s': at most %d terms", f->src, MAX_TERMS);
			free(name);
			goto out;
		}
		if (!dp_attr_parse(name, &a, err)) {
			dp_error_prefix(err, "--fail-if '%s': ", f->src);
			free(name);
			goto out;
		}
		free(name);
		for (int i = 0; i < by->nattrs; i++)
			if (by->attrs[i].id == a.id)
				idx = i;
		if (idx < 0) {
			dp_error_set(err, "--fail-if '%s': %s is not one of the --by attributes",
				     f->src, dp_attr_name(a.id));
			goto out;
		}
		t = &f->t[f->nterms++];
		t->attr = idx;
		p = (char *)skip_ws(p + an);
		if (p[0] == '!' && p[1] == '=')
			t->negate = true, p += 2;
		else if (p[0] == '!' && p[1] == '~')
			t->negate = t->glob = true, p += 2;
		else if (p[0] == '=')
			p++;
		else if (p[0] == '~')
			t->glob = true, p++;
		else {
			dp_error_set(err, "--fail-if '%s': write ATTR=VALUE before the ':'",
				     f->src);
			goto out;
		}
		p = (char *)skip_ws(p);
		if (*p == '"' || *p == '\'') {
			char q = *p++, *e = strchr(p, q);

			if (!e) {
				dp_error_set(err, "--fail-if '%s': a closing %c is missing", f->src,
					     q);
				goto out;
			}
			t->value = dp_strndup(p, (size_t)(e - p));
			p = (char *)skip_ws(e + 1);
		} else {
			char *e = strstr(p, " and ");

			v = e ? dp_strndup(p, (size_t)(e - p)) : dp_strdup(p);
			for (size_t k = strlen(v); k && isspace((unsigned char)v[k - 1]); k--)
				v[k - 1] = 0;
			t->value = v;
			p = e ? e : p + strlen(p);
		}
		if (!strncmp(p, " and ", 5) || !strncmp(p, "and ", 4))
			p = (char *)skip_ws(p + (*p == ' ' ? 5 : 4));
		else if (*p) {
			dp_error_set(err, "--fail-if '%s': join terms with 'and'", f->src);
			goto out;
		}
	}
	ok = true;
out:
	free(sel);
	return ok;
}

dp_failif *dp_failif_parse(const char *src, const dp_agg_level *by, dp_error *err)
{
	dp_failif *f = dp_calloc(1, sizeof(*f));

	f->src = dp_strdup(src);
	/* the condition is what follows the last ':' that starts one (a value
	 * may hold colons: line=hash.c:120) */
	for (const char *c = src + strlen(src); c-- > src;) {
		if (*c != ':' || !parse_cond(c + 1, f))
			continue;
		if (!parse_selector(src, (size_t)(c - src), by, f, err)) {
			dp_failif_free(f);
			return NULL;
		}
		return f;
	}
	if (parse_cond(src, f))
		return f;
	dp_error_set(err,
		     "--fail-if '%s': write [ATTR=VALUE:] METRIC OP CHANGE, e.g. "
		     "'member=struct node.next: period > +10%%' (METRIC samples, period or weight; "
		     "CHANGE +10%%, 1.5x or a delta per unit)",
		     src);
	dp_failif_free(f);
	return NULL;
}

static bool selects(const dp_failif *f, const dp_diff_result *r, const dp_diff_row *row)
{
	for (int i = 0; i < f->nterms; i++) {
		const struct term *t = &f->t[i];
		bool hit = false;

		/* either side's name of the key: a line that moved is still selected */
		for (int s = 0; s < 2; s++) {
			int32_t k = s ? row->nkey : row->bkey;
			const char *v;

			if (k < 0)
				continue;
			v = dp_rtable_str(&r->tab, r->tab.keys.v[k].vals[t->attr]);
			hit |= t->glob ? fnmatch(t->value, v, 0) == 0 : !strcmp(t->value, v);
		}
		if (hit == t->negate)
			return false;
	}
	return true;
}

static bool crosses(const dp_failif *f, const dp_rate_cmp *c)
{
	double v;

	if (!c->significant)
		return false;
	switch (f->unit) {
	case U_PERCENT:
		v = isinf(c->ratio) ? INFINITY : (c->ratio - 1) * 100;
		break;
	case U_RATIO:
		v = c->ratio;
		break;
	default:
		v = c->delta;
	}
	switch (f->op) {
	case OP_GT:
		return v > f->threshold;
	case OP_GE:
		return v >= f->threshold;
	case OP_LT:
		return v < f->threshold;
	default:
		return v <= f->threshold;
	}
}

bool dp_failif_eval(dp_failif *f, dp_diff_result *r, unsigned bit)
{
	bool held = false, any = false;

	if (f->total) {
		if (crosses(f, &r->total.c[f->metric])) {
			r->total.fails |= 1u << bit;
			return true;
		}
		return false;
	}
	for (size_t i = 0; i < r->rows.n; i++) {
		dp_diff_row *row = &r->rows.v[i];

		if (!selects(f, r, row))
			continue;
		any = true;
		if (crosses(f, &row->c[f->metric])) {
			row->fails |= 1u << bit;
			held = true;
		}
	}
	if (!any && f->nterms)
		fprintf(stderr, "dataprof: warning: --fail-if '%s' selects no key of either side\n",
			f->src);
	return held;
}
