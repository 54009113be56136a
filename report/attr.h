/* The attributes of a sample that reports group, filter and print by. One
 * name for each, the same in every command (docs/architecture.md:
 * attributes). A key is a 64-bit value: a string id for names, the number
 * for numeric attributes. */
#ifndef DP_ATTR_H
#define DP_ATTR_H

#include <stdbool.h>
#include <stdint.h>

#include "row.h"

typedef enum dp_attr_id {
	DP_A_EVENT,
	DP_A_PROCESS,
	DP_A_PID,
	DP_A_THREAD,
	DP_A_TID,
	DP_A_CPU,
	DP_A_TIME,
	DP_A_FUNCTION,
	DP_A_INLINE,
	DP_A_FILE,
	DP_A_LINE,
	DP_A_IP,
	DP_A_INSN,
	DP_A_OBJECT,
	DP_A_KIND,
	DP_A_SITE,
	DP_A_TYPE,
	DP_A_MEMBER,
	DP_A_ADDR,
	DP_A_CACHELINE,
	DP_A_PAGE,
	DP_A_LEVEL,
	DP_A_TLB,
	DP_A_OP,
	DP_A_WEIGHT,
	DP_A_VERDICT,
	DP_A_REASON,
	DP_A_CALLER,
	DP_A_REGION,
	DP_A_COUNT,
} dp_attr_id;

typedef struct dp_attr {
	dp_attr_id id;
	uint64_t bucket; /* time:100ms -> 100000000; 0: none */
} dp_attr;

typedef struct dp_attr_ctx dp_attr_ctx;

dp_attr_ctx *dp_attr_ctx_new(dp_row_ctx *rows, dp_annotator *a, dp_profile *p);
void dp_attr_ctx_free(dp_attr_ctx *c);

/* "object", "time:100ms"... Returns false with a message naming the valid ones. */
bool dp_attr_parse(const char *name, dp_attr *out, dp_error *err);
const char *dp_attr_name(dp_attr_id id);
bool dp_attr_numeric(dp_attr_id id);
/* All names, comma-separated, for help and errors. */
const char *dp_attr_all_names(void);

uint64_t dp_attr_key(dp_attr_ctx *c, dp_row *r, const dp_attr *a);
/* The text of a key (for string attributes a pointer into the string table). */
const char *dp_attr_format(dp_attr_ctx *c, const dp_attr *a, uint64_t key, char *buf, size_t len);
/* The string a string attribute has for key (NULL for numeric ones). */
const char *dp_attr_string(dp_attr_ctx *c, const dp_attr *a, uint64_t key);
dp_strtab *dp_attr_strings(dp_attr_ctx *c);
/* The key in dst's string table of a key of src's (another pipeline over
 * the same profile: a parallel report's worker); numbers are themselves. */
uint64_t dp_attr_key_in(dp_attr_ctx *dst, const dp_attr_ctx *src, const dp_attr *a, uint64_t key);
/* Orders keys by what they say (names by their text, numbers by value), not
 * by string ids, which depend on the order samples were met: -1, 0, 1. */
int dp_attr_compare(const dp_attr_ctx *c, const dp_attr *a, uint64_t x, uint64_t y);

#endif
