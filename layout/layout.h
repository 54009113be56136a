/* dataprof layout: a type's layout from DWARF (type_layout.h)
 * with the samples of a profile on each member, the cache lines of its
 * instances, lines that threads share falsely, and advice stated as what
 * was measured: hot members apart, cold members between them, holes, and
 * an order that packs the hot members into fewer lines. */
#ifndef DP_LAYOUT_H
#define DP_LAYOUT_H

#include <stdio.h>

#include "type_layout.h"
#include "../compare/runtab.h"

typedef struct dp_layout_opts {
	const char *type;   /* as asked: "struct node" */
	const char *input;  /* a profile, or a binary (layout alone) */
	unsigned cacheline; /* bytes (64) */
	dp_metric metric;
	dp_run_opts run; /* event, --where, --time, --verdict, --symfs */
	size_t top;	 /* hot lines shown */
} dp_layout_opts;

/* A name and how much of the metric it had. */
typedef struct dp_lcount {
	uint32_t id;  /* in dp_layout.strs */
	uint32_t tid; /* threads */
	double x;
} dp_lcount;
typedef DP_VEC(dp_lcount) dp_lcounts;

typedef struct dp_lmember {
	double x; /* the metric on it */
	double samples;
	double loads, stores; /* samples that read, wrote it (a read-modify-write: both) */
	dp_lcounts threads, functions, levels;
	bool hot;
	uint64_t new_offset; /* in the suggested order */
} dp_lmember;

/* A thread's accesses to one member on one memory line. */
typedef struct dp_laccess {
	uint32_t tid, thread; /* thread: its name's id */
	int member;	      /* index, -1: unknown */
	double loads, stores;
	uint32_t function;
} dp_laccess;

typedef struct dp_lline {
	uint64_t addr;	 /* of the memory line */
	uint32_t object; /* the object it is in */
	uint64_t index;	 /* the instance's index in that object, when an array */
	double x;
	DP_VEC(dp_laccess) acc;
	bool false_sharing, true_sharing;
} dp_lline;

typedef struct dp_layout {
	const dp_layout_opts *o;
	dp_type_layout t;
	bool has_profile;
	dp_strtab strs;
	DP_VEC(dp_lmember) m; /* parallel to t.members */
	double total;	      /* the metric on the type */
	double other;	      /* on the type but no member (padding, the whole object) */
	double kept;	      /* on every type: what the profile kept */
	uint64_t samples;     /* on the type */
	bool have_op, have_level, have_addr;
	DP_VEC(dp_lcount) align; /* instance start within a line (id: the offset) -> metric */
	DP_VEC(dp_lline) lines;	 /* memory lines of its instances, hottest first */
	/* analysis (layout_advice.c) */
	double lines_now, lines_suggested, lines_aligned; /* per visit of an instance */
	uint64_t suggested_size, hot_bytes;
	DP_VEC(size_t) order; /* member indices in the suggested order */
	DP_VEC(char *) advice;
	size_t nfalse; /* lines flagged */
	char *event;
} dp_layout;

/* Finds the type and, for a profile, reads the samples on it. */
int dp_layout_build(const dp_layout_opts *o, dp_layout *l, dp_error *err);
void dp_layout_free(dp_layout *l);

/* The analysis: hot members, the suggested order, lines per visit, false
 * sharing, the advice (layout_advice.c). */
void dp_layout_analyze(dp_layout *l);
/* Distinct lines of size n covering the members in idx[] (with the offsets
 * off[] when given, else their own) for instances starting at a within a
 * line. */
unsigned dp_layout_lines(const dp_layout *l, const size_t *idx, size_t k, const uint64_t *off,
			 uint64_t a);

void dp_layout_text(const dp_layout *l, FILE *f);
void dp_layout_json(const dp_layout *l, FILE *f);
/* Two builds side by side (layout_diff.c). */
void dp_layout_diff_text(const dp_layout *a, const dp_layout *b, FILE *f);

#endif
