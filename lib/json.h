/* Writing JSON: the string escape every JSON output of dataprof shares. */
#ifndef DP_REPORT_JSON_H
#define DP_REPORT_JSON_H

#include <stdio.h>

#include "util.h"

/* s as a JSON string, quotes included: '"' and '\' escaped, control
 * characters as \n, \t or \u00XX, and '<', '>', '&' as \u00XX so that the
 * string is safe inside an HTML <script> (the pages); other bytes as they
 * are (names are UTF-8). NULL: "". */
void dp_json_str(FILE *f, const char *s);
/* The same, appended to b. */
void dp_json_buf(dp_buf *b, const char *s);
/* s as dp_json_str writes it, or null when s is NULL. */
void dp_json_str_or_null(FILE *f, const char *s);
/* v with 10 significant digits, or null (JSON has no infinity, no NaN). */
void dp_json_num(FILE *f, double v);
/* A member: key as it is written (with its separators and quotes:
 * ",\"name\":"), then the value as the functions above write it. */
void dp_json_key_str(FILE *f, const char *key, const char *s);
void dp_json_key_str_or_null(FILE *f, const char *key, const char *s);
void dp_json_key_num(FILE *f, const char *key, double v);

#endif
