#include "expr.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "units.h"

typedef enum { OP_EQ, OP_NE, OP_GLOB, OP_NGLOB, OP_LT, OP_LE, OP_GT, OP_GE } op_t;
typedef enum { N_PRED, N_AND, N_OR, N_NOT } node_t;

struct dp_expr {
	node_t kind;
	dp_expr *l, *r;
	/* N_PRED */
	dp_attr attr;
	op_t op;
	char *text;	 /* the value as written */
	uint32_t sid;	 /* string attributes, OP_EQ/NE: the value's id */
	uint64_t lo, hi; /* numeric: [lo, hi] for = and ranges, lo for < > */
	dp_hashmap memo; /* glob results per string id: 1 match, 2 not */
};

typedef struct parser {
	const char *src, *p;
	dp_attr_ctx *c;
	dp_error *err;
	bool failed;
	int depth;     /* parentheses and nots open: each is a level of recursion */
	char why[160]; /* what was wrong with a time (lib/units.h) */
} parser;

/* Deeper nesting would overflow the stack long before a person writes it
 * (one argument holds 64Ki parentheses). */
#define MAX_DEPTH 1000

static void fail(parser *ps, const char *what)
{
	size_t at = (size_t)(ps->p - ps->src), len = strlen(ps->src), from;

	if (ps->failed)
		return;
	ps->failed = true;
	if (len <= 80) {
		dp_error_set(ps->err, "--where '%s': %s at character %zu", ps->src, what, at + 1);
		return;
	}
	/* a long expression is quoted around the error only, so that the
	 * message still has room for what and where */
	from = at > 40 ? at - 40 : 0;
	dp_error_set(ps->err, "--where '%s%.60s%s': %s at character %zu", from ? "..." : "",
		     ps->src + from, from + 60 < len ? "..." : "", what, at + 1);
}

static void skip(parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static bool word(parser *ps, const char *w)
{
	size_t n = strlen(w);

	skip(ps);
	if (!strncmp(ps->p, w, n) && !isalnum((unsigned char)ps->p[n]) && ps->p[n] != '_') {
		ps->p += n;
		return true;
	}
	return false;
}

static dp_expr *parse_or(parser *ps);

static bool parse_number(parser *ps, const char *s, dp_attr_id id, uint64_t *v)
{
	if (id == DP_A_TIME)
		return dp_parse_duration(s, v, ps->why, sizeof(ps->why));
	return dp_parse_u64(s, v);
}

static char *value(parser *ps)
{
	const char *start;

	skip(ps);
	if (*ps->p == '"' || *ps->p == '\'') {
		char q = *ps->p++;
		start = ps->p;
		while (*ps->p && *ps->p != q)
			ps->p++;
		if (!*ps->p) {
			fail(ps, "unterminated quoted value");
			return NULL;
		}
		char *v = dp_strndup(start, (size_t)(ps->p - start));
		ps->p++;
		return v;
	}
	start = ps->p;
	while (*ps->p && !isspace((unsigned char)*ps->p) && *ps->p != '(' && *ps->p != ')')
		ps->p++;
	if (ps->p == start) {
		fail(ps, "a value is missing");
		return NULL;
	}
	return dp_strndup(start, (size_t)(ps->p - start));
}

static dp_expr *parse_pred(parser *ps)
{
	const char *start;
	char name[64];
	dp_expr *e;
	dp_error aerr;

	skip(ps);
	start = ps->p;
	while (isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.')
		ps->p++;
	if (ps->p == start) {
		fail(ps, "an attribute name is expected");
		return NULL;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(ps->p - start), start);
	e = dp_calloc(1, sizeof(*e));
	e->kind = N_PRED;
	if (!dp_attr_parse(name, &e->attr, &aerr)) {
		ps->p = start;
		fail(ps, aerr.msg);
		free(e);
		return NULL;
	}
	skip(ps);
	static const struct {
		const char *s;
		op_t op;
	} ops[] = {{"!=", OP_NE}, {"!~", OP_NGLOB}, {"<=", OP_LE}, {">=", OP_GE},
		   {"=", OP_EQ},  {"~", OP_GLOB},   {"<", OP_LT},  {">", OP_GT}};
	size_t k;
	for (k = 0; k < DP_ARRAY_LEN(ops); k++)
		if (!strncmp(ps->p, ops[k].s, strlen(ops[k].s)))
			break;
	if (k == DP_ARRAY_LEN(ops)) {
		fail(ps, "an operator (= != ~ !~ < <= > >=) is expected");
		free(e);
		return NULL;
	}
	if (!strncmp(ps->p, "==", 2)) {
		/* else kind=="heap" would look for the name ="heap" and keep nothing */
		fail(ps, "'==': compare with = (cpu=1, kind=heap)");
		free(e);
		return NULL;
	}
	e->op = ops[k].op;
	ps->p += strlen(ops[k].s);
	const char *vat = ps->p;
	e->text = value(ps);
	if (!e->text) {
		free(e);
		return NULL;
	}
	/* only a glob remembers its results (64 slots: not for every predicate) */
	if (e->op == OP_GLOB || e->op == OP_NGLOB)
		dp_hashmap_init(&e->memo, 16);
	bool numeric = dp_attr_numeric(e->attr.id) && e->attr.id != DP_A_EVENT;
	if (numeric && (e->op == OP_GLOB || e->op == OP_NGLOB)) {
		ps->p = vat;
		fail(ps, "a number cannot be matched with ~");
		return e;
	}
	if (numeric) {
		char *dots = strstr(e->text, "..");
		if (dots && (e->op == OP_EQ || e->op == OP_NE) && e->attr.id == DP_A_TIME) {
			/* the time-range syntax of every option (lib/units.h) */
			if (!dp_parse_time_range(e->text, &e->lo, &e->hi, ps->why,
						 sizeof(ps->why))) {
				ps->p = vat;
				fail(ps, ps->why);
			}
		} else if (dots && (e->op == OP_EQ || e->op == OP_NE)) {
			*dots = 0;
			e->lo = 0;
			e->hi = UINT64_MAX;
			if ((*e->text && !parse_number(ps, e->text, e->attr.id, &e->lo)) ||
			    (dots[2] && !parse_number(ps, dots + 2, e->attr.id, &e->hi))) {
				*dots = '.';
				ps->p = vat;
				fail(ps, "a range is written LOW..HIGH with numbers");
			} else if (e->lo > e->hi) {
				/* as a time range is: it would match nothing */
				ps->p = vat;
				fail(ps, "the range ends before it starts");
			}
			*dots = '.';
		} else if (!parse_number(ps, e->text, e->attr.id, &e->lo)) {
			ps->p = vat;
			fail(ps, e->attr.id == DP_A_TIME ? ps->why : "a number is expected");
		} else {
			e->hi = e->lo;
		}
		if (e->attr.bucket) {
			e->lo /= e->attr.bucket;
			e->hi = e->hi == UINT64_MAX ? e->hi : e->hi / e->attr.bucket;
		}
	} else if (e->op == OP_EQ || e->op == OP_NE) {
		e->sid = ps->c ? dp_strtab_intern(dp_attr_strings(ps->c), e->text) : 0;
	} else if (e->op != OP_GLOB && e->op != OP_NGLOB) {
		ps->p = vat;
		fail(ps, "names compare with = != ~ !~ only");
	}
	return e;
}

static dp_expr *node(node_t k, dp_expr *l, dp_expr *r)
{
	dp_expr *e = dp_calloc(1, sizeof(*e));

	e->kind = k;
	e->l = l;
	e->r = r;
	return e;
}

/* One more level of parentheses or nots, opened at at. */
static bool deeper(parser *ps, const char *at)
{
	if (ps->depth >= MAX_DEPTH) {
		ps->p = at;
		fail(ps, "parentheses and nots nested too deep (more than 1000)");
		return false;
	}
	ps->depth++;
	return true;
}

static dp_expr *parse_not(parser *ps)
{
	const char *at;

	skip(ps);
	at = ps->p;
	if (word(ps, "not") || (*ps->p == '!' && ps->p[1] != '=' && ps->p[1] != '~' && ps->p++)) {
		if (!deeper(ps, at))
			return NULL;
		dp_expr *x = parse_not(ps);
		ps->depth--;
		return x ? node(N_NOT, x, NULL) : NULL;
	}
	skip(ps);
	if (*ps->p == '(') {
		if (!deeper(ps, ps->p))
			return NULL;
		ps->p++;
		dp_expr *x = parse_or(ps);
		ps->depth--;
		skip(ps);
		if (!x)
			return NULL;
		if (*ps->p != ')') {
			fail(ps, "')' is missing");
			dp_expr_free(x);
			return NULL;
		}
		ps->p++;
		return x;
	}
	return parse_pred(ps);
}

/* the binary operators, loosest first: "or" joins "and"s, "and" joins
 * negations */
static const struct {
	const char *word, *sym;
	node_t kind;
} binops[] = {{"or", "||", N_OR}, {"and", "&&", N_AND}};

static dp_expr *parse_binary(parser *ps, size_t level);

static dp_expr *operand(parser *ps, size_t level)
{
	return level + 1 < DP_ARRAY_LEN(binops) ? parse_binary(ps, level + 1) : parse_not(ps);
}

/* binops[level], as a word or a symbol, taken */
static bool binop(parser *ps, size_t level)
{
	if (word(ps, binops[level].word))
		return true;
	skip(ps);
	if (strncmp(ps->p, binops[level].sym, 2))
		return false;
	ps->p += 2;
	return true;
}

/* operands joined by binops[level], left to right */
static dp_expr *parse_binary(parser *ps, size_t level)
{
	dp_expr *l = operand(ps, level);

	while (l && !ps->failed && binop(ps, level)) {
		dp_expr *r = operand(ps, level);
		if (!r) {
			dp_expr_free(l);
			return NULL;
		}
		l = node(binops[level].kind, l, r);
	}
	return l;
}

static dp_expr *parse_or(parser *ps)
{
	return parse_binary(ps, 0);
}

dp_expr *dp_expr_parse(const char *src, dp_attr_ctx *c, dp_error *err)
{
	parser ps = {src, src, c, err, false};
	dp_expr *e = parse_or(&ps);

	skip(&ps);
	if (e && !ps.failed && *ps.p)
		fail(&ps, "unexpected text (join predicates with and/or)");
	if (ps.failed || !e) {
		if (!ps.failed)
			fail(&ps, "an expression is expected");
		dp_expr_free(e);
		return NULL;
	}
	return e;
}

bool dp_expr_check(const char *src, dp_error *err)
{
	dp_expr *e = dp_expr_parse(src, NULL, err);

	dp_expr_free(e);
	return e != NULL;
}

void dp_expr_free(dp_expr *e)
{
	if (!e)
		return;
	dp_expr_free(e->l);
	dp_expr_free(e->r);
	free(e->text);
	if (e->memo.cap)
		dp_hashmap_free(&e->memo);
	free(e);
}

static bool eval_pred(dp_expr *e, dp_attr_ctx *c, dp_row *r)
{
	uint64_t k = dp_attr_key(c, r, &e->attr);
	bool numeric = dp_attr_numeric(e->attr.id);

	if (numeric) {
		switch (e->op) {
		case OP_EQ:
			return k >= e->lo && k <= e->hi;
		case OP_NE:
			return k < e->lo || k > e->hi;
		case OP_LT:
			return k < e->lo;
		case OP_LE:
			return k <= e->lo;
		case OP_GT:
			return k > e->lo;
		case OP_GE:
			return k >= e->lo;
		default:
			return false;
		}
	}
	/* names: interned attributes compare by id; others (event, verdict) by text */
	const char *s = dp_attr_string(c, &e->attr, k);
	bool by_id =
	    e->attr.id != DP_A_EVENT && e->attr.id != DP_A_VERDICT && e->attr.id != DP_A_REASON;
	switch (e->op) {
	case OP_EQ:
		return by_id ? k == e->sid : !strcmp(s, e->text);
	case OP_NE:
		return by_id ? k != e->sid : strcmp(s, e->text) != 0;
	case OP_GLOB:
	case OP_NGLOB: {
		uint64_t m;
		bool hit;

		if (dp_hashmap_get(&e->memo, k, &m)) {
			hit = m == 1;
		} else {
			hit = fnmatch(e->text, s, 0) == 0;
			dp_hashmap_put(&e->memo, k, hit ? 1 : 2);
		}
		return e->op == OP_GLOB ? hit : !hit;
	}
	default:
		return false;
	}
}

bool dp_expr_eval(dp_expr *e, dp_attr_ctx *c, dp_row *r)
{
	switch (e->kind) {
	case N_AND:
		return dp_expr_eval(e->l, c, r) && dp_expr_eval(e->r, c, r);
	case N_OR:
		return dp_expr_eval(e->l, c, r) || dp_expr_eval(e->r, c, r);
	case N_NOT:
		return !dp_expr_eval(e->l, c, r);
	default:
		return eval_pred(e, c, r);
	}
}
