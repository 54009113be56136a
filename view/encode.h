/* Encodings the page's data is written in: JSON strings that are safe inside
 * an HTML <script> element, and columns of unsigned integers as LEB128
 * varints in base64 (a few bytes a value where JSON numbers take eight or
 * more, and decoded by the page in one loop). */
#ifndef DP_VIEW_ENCODE_H
#define DP_VIEW_ENCODE_H

#include <stdint.h>
#include <stdio.h>

#include "util.h"
#include "json.h" /* dp_json_str: safe inside <script> */

/* Appends v as an unsigned LEB128 varint. */
void dp_varint_put(dp_buf *b, uint64_t v);

/* b as one base64 string (RFC 4648, with padding), quotes included. */
void dp_base64_json(FILE *f, const dp_buf *b);

/* A column of n records as the page reads it: "nNAME":n,"NAME":b in
 * base64. */
void dp_varint_column_json(FILE *f, const char *name, size_t n, const dp_buf *b);

#endif
