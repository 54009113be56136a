#include "csv.h"

#include <string.h>

void dp_csv_field(FILE *f, const char *s, bool quote)
{
	if (!quote && !strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
