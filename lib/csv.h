/* Writing CSV (RFC 4180): the field quoting every CSV output shares. */
#ifndef DP_CSV_H
#define DP_CSV_H

#include <stdbool.h>
#include <stdio.h>

/* s as one field: in double quotes, its own doubled, when it holds a comma,
 * a quote or a line break, or always with quote. */
void dp_csv_field(FILE *f, const char *s, bool quote);

#endif
