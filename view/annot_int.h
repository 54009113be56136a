/* view/annot.c and view/annot_json.c: the pane's data between collection
 * and writing. */
#ifndef DP_VIEW_ANNOT_INT_H
#define DP_VIEW_ANNOT_INT_H

/* the hottest ranges of branch stacks listed per function (annotate's default) */
#define DP_VIEW_RANGES 10

#include "annot.h"
#include "../srcview/srcview.h"

/* what a sample says of its instruction; ids: the annotator's strings */
typedef struct dp_va_combo {
	uint32_t insn; /* index in srcview's insns */
	uint32_t object, member, level;
	uint32_t verdict; /* DP_V_COUNT: none */
} dp_va_combo;

typedef struct dp_va_cell {
	uint32_t combo, bucket;
	uint64_t count, period, weight, nweight;
} dp_va_cell;

struct dp_view_annot {
	dp_srcview_opts o;
	dp_srcview v;
	DP_VEC(dp_va_combo) combos;
	DP_VEC(uint64_t) combo_seq; /* a combination's first sample */
	dp_hashmap combo_of; /* hash of the combo -> index (collisions probe the next) */
	DP_VEC(dp_va_cell) cells;
	dp_hashmap cell_of; /* combo << 24 | bucket -> index */
	unsigned shift;	    /* buckets are 1 << shift ns, as the model's */
	dp_sv_listing *ls;  /* after finish: the shown functions' listings */
};

/* Merges the cells into buckets of 1 << shift ns. */
void dp_va_widen(dp_view_annot *a, unsigned shift);

#endif
