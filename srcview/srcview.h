/* dataprof annotate: a function's source lines interleaved with its
 * disassembly, each instruction with its samples, verdict mix, the data
 * objects and member paths it touched, the memory levels and mean weight.
 *
 * The samples stream through report (so --where and perf.data work as
 * everywhere); they are summed per distinct instruction, so memory grows
 * with instructions, not samples. Source and disassembly are read only for
 * the functions shown. */
#ifndef DP_SRCVIEW_H
#define DP_SRCVIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "../report/report.h"

#define DP_SV_MAX_ACCESS 8 /* data (object, member) pairs kept per instruction */
#define DP_SV_MAX_LEVELS 6 /* memory levels kept per instruction */

typedef struct dp_sv_access {
	uint32_t object, member; /* string ids; member 0: the whole object */
	uint64_t samples;
} dp_sv_access;

typedef struct dp_sv_level {
	uint32_t level; /* "L1 hit", "RAM hit" */
	uint64_t samples;
} dp_sv_level;

typedef struct dp_sv_insn {
	uint64_t vaddr;
	uint64_t first; /* the seq of its first sample */
	uint32_t func;	/* index in dp_srcview.funcs */
	uint64_t samples, period, weight, nweight;
	uint64_t verdicts[DP_V_COUNT];
	/* the first pairs met, from pairs once the samples are read */
	dp_sv_access access[DP_SV_MAX_ACCESS];
	uint64_t access_other; /* samples on pairs beyond the kept ones */
	uint8_t naccess, nlevels;
	dp_sv_level levels[DP_SV_MAX_LEVELS];
} dp_sv_insn;

typedef struct dp_sv_func {
	dp_image *im;
	const dp_func_table *t;
	uint32_t name;
	uint64_t samples, period;
	uint64_t first, name_first; /* the seq of its first sample, of its first named one */
} dp_sv_func;

/* Every (object, member) or memory level an instruction's samples named,
 * with its first sample: what a part of a parallel pass needs to keep so
 * that the merged instruction keeps the same first pairs as one pass. */
typedef struct dp_sv_pair {
	uint32_t insn, kind, a, b; /* kind 0: object a, member b; 1: level a */
	uint64_t first, samples;
} dp_sv_pair;

/* A straight-line range of code run between two taken branches of a
 * sample's branch stack (LBR): from one branch's target up to the next
 * branch taken, both ELF virtual addresses of the same function. */
typedef struct dp_sv_range {
	dp_image *im;
	uint64_t start, end; /* the first instruction; the branch that left */
	uint64_t count;	     /* executions seen */
	uint32_t next;	     /* the next range of the same hash; UINT32_MAX: none */
	uint32_t func;	     /* index in funcs; UINT32_MAX: in no sampled function */
	uint32_t ninsns;     /* 0: not a straight-line range of one function */
	bool loop;	     /* the branch at its end jumps back to its start: a whole
				iteration of a loop */
} dp_sv_range;

/* What became of the kept samples' branch stacks. */
typedef struct dp_sv_branches {
	uint64_t samples, entries; /* kept samples with a branch stack; their branches */
	uint64_t no_ranges;	   /* samples whose filter is not 'any' (a call stack, calls
				      only...): consecutive branches do not bound straight code */
	uint64_t ranges;	   /* straight-line ranges counted (executions) */
	uint64_t unmapped;	   /* ranges with an end in no binary of the process */
	uint64_t crossing;	   /* from one function into another, or backwards */
	uint64_t broken;	   /* an end off the instruction boundaries, or an unconditional
				      branch, call or return inside: a branch the stack lost */
} dp_sv_branches;

typedef enum dp_sv_select {
	DP_SV_HOTTEST,	/* no selection: the hottest functions */
	DP_SV_FUNCTION, /* a glob on function names */
	DP_SV_LINE,	/* FILE:LINE: the functions holding that line */
} dp_sv_select;

typedef struct dp_srcview_opts {
	const char *input;
	dp_select sel;	    /* (--between unused) */
	const char *object; /* --object SPEC: a glob on the data object */
	dp_sv_select select;
	const char *pattern; /* the function glob or FILE:LINE */
	size_t top;	     /* functions shown (default 5) */
	size_t top_ranges;   /* hottest ranges shown per function (default 10) */
	size_t hot_extra;    /* and those holding the most samples of the K hottest
				objects and of the K hottest instructions (view) */
	const char *source_dir;
	unsigned prefix_strip;
	bool intel;
	bool json;
	FILE *out;
} dp_srcview_opts;

typedef struct dp_srcview {
	const dp_srcview_opts *o;
	dp_report_result res;
	dp_annotator *ann; /* the report's, from dp_srcview_end */
	dp_strtab *strs;   /* the annotator's */
	DP_VEC(dp_sv_insn) insns;
	DP_VEC(dp_sv_func) funcs;
	dp_hashmap insn_of, func_of;
	DP_VEC(dp_sv_pair) pairs;
	dp_hashmap pair_of;	/* hash of (insn, kind, a, b) -> index (collisions probe) */
	DP_VEC(uint32_t) moved; /* after end: an instruction's index in the row pass -> now */
	uint64_t samples, period;      /* all kept samples */
	uint64_t outside, outside_per; /* kept samples in no function with code, or in dataprof's */
	DP_VEC(uint32_t) shown;	       /* functions to show, hottest first */
	dp_decoder *dec;	       /* set: branch stacks are read (annotate) */
	const dp_event_info *ev;
	size_t nev;
	DP_VEC(dp_sv_range) ranges;
	dp_hashmap range_of; /* hash of (image, start, end) -> first index in ranges */
	dp_sv_branches br;
	bool owns_res;		       /* res is this one's (dp_srcview_build) */
} dp_srcview;

/* One function's listing: every instruction in address order, with its
 * source line (the innermost, inline chain apart) and its sums. */
typedef struct dp_sv_row {
	uint64_t vaddr;
	const dp_sv_insn *st; /* NULL: no samples */
	char text[200];	      /* capstone: mnemonic[32] + " " + op_str[160] */
	uint32_t inline_chain;
	int line;	  /* index in lines; -1: no source location */
	bool starts_line; /* the source line differs from the previous row's */
} dp_sv_row;

typedef struct dp_sv_line {
	uint32_t line_id; /* "file.c:123", as report's line attribute */
	uint32_t path;	  /* as DWARF names the file */
	unsigned line;
	uint64_t samples, period;
	const char *text; /* NULL: source not found (why in the listing) */
	size_t len;
} dp_sv_line;

typedef struct dp_sv_listing {
	const dp_sv_func *f;
	DP_VEC(dp_sv_row) rows;
	DP_VEC(dp_sv_line) lines;
	char *why;		   /* why some or all source is missing; NULL when all was found */
	struct dp_sv_sources *src; /* the first listing's: the files the lines point into */
} dp_sv_listing;

struct dp_sv_sources;
/* The listing of function fi (an index in funcs). */
void dp_sv_listing_build(dp_srcview *v, uint32_t fi, struct dp_sv_sources *src, void *cs,
			 dp_sv_listing *l);
void dp_sv_listing_free(dp_sv_listing *l);
/* Verdict letters and shares ("v90 u10") and the data column ("nodes struct
 * node.next 80%, ...; L1 hit 60%; weight 34") of an instruction. */
void dp_sv_verdict_mix(const dp_sv_insn *in, char *buf, size_t len);
void dp_sv_data_text(dp_srcview *v, const dp_sv_insn *in, dp_buf *b);
/* Branch stacks (srcview/ranges.c): the ranges of a kept sample, counted;
 * once the samples are read, each distinct range checked against its
 * function's instructions and given its function. */
void dp_sv_ranges_row(dp_srcview *v, const dp_row *row);
/* Counts n executions of the range [start, end] of im. */
void dp_sv_range_add(dp_srcview *v, dp_image *im, uint64_t start, uint64_t end, uint64_t n);
void dp_sv_ranges_finish(dp_srcview *v);
/* The hottest ranges of function fi, hottest first: at most max of them
 * into out (indexes in ranges); returns how many the function has. */
size_t dp_sv_func_ranges(const dp_srcview *v, uint32_t fi, uint32_t *out, size_t max);
/* The source lines a range covers, "loop.c:12-14", or "" without DWARF. */
void dp_sv_range_lines(dp_srcview *v, const dp_sv_range *r, char *buf, size_t len);
/* Adds to shown the functions holding the most samples of the k hottest
 * objects and of the k hottest instructions (srcview/extra.c). */
void dp_sv_add_hot(dp_srcview *v, size_t k);
/* The listings of the shown functions (v->shown.n of them); NULL with err
 * set when capstone cannot open. */
dp_sv_listing *dp_srcview_listings(dp_srcview *v, dp_error *err);
void dp_srcview_listings_free(dp_srcview *v, dp_sv_listing *ls);
void dp_sv_print_text(dp_srcview *v, dp_sv_listing *ls, size_t n);
void dp_sv_print_json(dp_srcview *v, dp_sv_listing *ls, size_t n);

static inline uint64_t dp_sv_key(const dp_image *im, uint64_t vaddr)
{
	/* image ids are small; ELF virtual addresses stay below 2^48 */
	return ((uint64_t)(uint32_t)im->id << 48) ^ vaddr;
}

/* Counts samples of a pair (dp_sv_pair) of instruction insn. */
void dp_sv_pair_add(dp_srcview *v, uint32_t insn, uint32_t kind, uint32_t a, uint32_t b,
		    uint64_t first, uint64_t samples);
/* Adds what src (a part of the same profile, src_dec and src_strs its
 * decoder's and annotator's) counted to dst (dst_dec, dst_strs its); each
 * of src's instruction indexes -> dst's in *insn_map (malloc'd). */
void dp_srcview_merge(dp_srcview *dst, dp_decoder *dst_dec, dp_strtab *dst_strs,
		      const dp_srcview *src, const dp_strtab *src_strs, uint32_t **insn_map);
/* Puts functions and instructions in the order of their first samples and
 * gives each instruction its first pairs (dp_srcview_end does it; moved
 * says where each instruction went). */
void dp_sv_order(dp_srcview *v);

/* Streams the profile and sums per instruction; picks the functions to
 * show. -1 with err set (an unknown function is an error). */
int dp_srcview_build(const dp_srcview_opts *o, dp_srcview *v, dp_error *err);
/* The same in a report pass another command runs (view): begin, then each
 * kept row (the instruction's index in insns, -1 when it counts outside),
 * then end once the pass is done (res must outlive v). */
void dp_srcview_begin(const dp_srcview_opts *o, dp_srcview *v);
long dp_srcview_row(dp_srcview *v, const dp_row *row);
int dp_srcview_end(dp_srcview *v, dp_report_result *res, dp_error *err);
void dp_srcview_free(dp_srcview *v);
/* Prints the shown functions as text or JSON (dataprof-annotate/1). */
int dp_srcview_print(dp_srcview *v, dp_error *err);

#endif
