#include "json.h"

#include <math.h>

/* The escape of byte c inside a JSON string, NULL when it stands as it is:
 * no "</script>" ends a page's data early, so '<', '>', '&' are escaped. */
static const char *escape(unsigned char c, char out[8])
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\t':
		return "\\t";
	case '<':
	case '>':
	case '&':
		break;
	default:
		if (c >= 0x20)
			return NULL;
	}
	snprintf(out, 8, "\\u%04x", c);
	return out;
}

void dp_json_str(FILE *f, const char *s)
{
	char tmp[8];

	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		const char *e = escape(*p, tmp);

		if (e)
			fputs(e, f);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void dp_json_buf(dp_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *run;
	char tmp[8];

	dp_buf_add(b, "\"", 1);
	for (;;) {
		const char *e = NULL;

		for (run = p; *p && !(e = escape(*p, tmp)); p++)
			;
		dp_buf_add(b, run, (size_t)(p - run));
		if (!*p)
			break;
		dp_buf_puts(b, e);
		p++;
	}
	dp_buf_add(b, "\"", 1);
}

void dp_json_str_or_null(FILE *f, const char *s)
{
	if (s)
		dp_json_str(f, s);
	else
		fputs("null", f);
}

void dp_json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.10g", v);
	else
		fputs("null", f);
}

void dp_json_key_str(FILE *f, const char *key, const char *s)
{
	fputs(key, f);
	dp_json_str(f, s);
}

void dp_json_key_str_or_null(FILE *f, const char *key, const char *s)
{
	fputs(key, f);
	dp_json_str_or_null(f, s);
}

void dp_json_key_num(FILE *f, const char *key, double v)
{
	fputs(key, f);
	dp_json_num(f, v);
}
