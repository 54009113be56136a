/* --where expressions: predicates on attributes, joined with and/or/not.
 *
 *	object=nodes and member~"struct node.*"
 *	(level="L3 miss" or level="RAM hit") and not function=main
 *	time=1s..2.5s  cpu!=0  weight>=100  addr=0x601000..0x602000
 *
 * Operators: = != (exact; a..b range for numbers), ~ !~ (glob), < <= > >=.
 * Values with spaces are quoted with " or '. Times have their unit and
 * ranges read as every time option does (lib/units.h). */
#ifndef DP_EXPR_H
#define DP_EXPR_H

#include "attr.h"

typedef struct dp_expr dp_expr;

/* Parses src; on error err says what and where ("at character N"). */
dp_expr *dp_expr_parse(const char *src, dp_attr_ctx *c, dp_error *err);
/* The syntax alone, before any profile is open: a command checks its
 * --where with the other options. */
bool dp_expr_check(const char *src, dp_error *err);
void dp_expr_free(dp_expr *e);
bool dp_expr_eval(dp_expr *e, dp_attr_ctx *c, dp_row *r);

#endif
