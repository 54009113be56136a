/* Writing JSON: the string escape every JSON output of dataprof shares. */
#ifndef DP_REPORT_JSON_H
#define DP_REPORT_JSON_H

#include <stdio.h>

/* s as a JSON string, quotes included: '"' and '\' escaped, control
 * characters as \u00XX; other bytes as they are (names are UTF-8). */
void dp_json_str(FILE *f, const char *s);

#endif
