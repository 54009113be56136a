#include "json.h"

#include <math.h>

void dp_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '<':
		case '>':
		case '&':
			/* no "</script>" ends a page's data early */
			fprintf(f, "\\u%04x", *p);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
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
