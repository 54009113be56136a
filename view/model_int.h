/* view/model.c and view/model_merge.c: the model between its rows and its
 * page. */
#ifndef DP_VIEW_MODEL_INT_H
#define DP_VIEW_MODEL_INT_H

#include "model.h"
#include "../report/series.h"

#include "hashmap.h"
#include "strtab.h"

/* The attributes a combination holds: what the lanes are coloured by and
 * the data view's object, member, line. */
static const dp_attr_id dp_vm_attrs[] = {
    DP_A_EVENT, DP_A_OBJECT,  DP_A_MEMBER, DP_A_LINE,	DP_A_FUNCTION,
    DP_A_LEVEL, DP_A_VERDICT, DP_A_SITE,   DP_A_REGION,
};
#define NATTRS DP_ARRAY_LEN(dp_vm_attrs)

/* Cell keys pack lane, bucket and combination into 64 bits. */
#define LANE_BITS   20
#define BUCKET_BITS 20
#define COMBO_BITS  24

typedef struct cell {
	uint32_t lane, bucket, combo;
	uint64_t count, period;
} cell;

typedef struct group {
	uint32_t lane, bucket;
	uint64_t count, toff; /* toff: the sum of the samples' times past the bucket's start */
} group;

typedef struct lane {
	bool cpu;
	uint32_t pid, tid, cpu_no, name;
	uint64_t seq; /* its first sample's */
} lane;

struct dp_view_model {
	dp_view_opts o;
	dp_attr attrs[NATTRS];
	dp_strtab strs;		     /* the page's strings */
	DP_VEC(uint32_t) combo_strs; /* NATTRS string ids a combination */
	DP_VEC(uint64_t) combo_keys; /* NATTRS attribute keys a combination */
	DP_VEC(uint64_t) combo_seq;  /* the combination's first sample */
	dp_hashmap combo_index;	     /* hash of the keys -> combination */
	DP_VEC(lane) lanes;
	dp_hashmap lane_index; /* pid << 32 | tid, or 1 << 63 | cpu -> lane */
	DP_VEC(cell) cells;
	dp_hashmap cell_index;
	DP_VEC(group) groups;
	dp_hashmap group_index;
	unsigned shift; /* buckets are 1 << shift ns */
	uint64_t samples, first, last;
	dp_report_result *res;
	dp_series_set ss; /* after finish */
	struct dp_view_annot *annot;
};

/* The model's pieces, shared by its rows and its merge. */
uint32_t dp_vm_lane_of(dp_view_model *m, bool cpu, uint32_t pid, uint32_t tid, uint32_t cpu_no,
		       const char *name, uint64_t seq);
void dp_vm_cell_add(dp_view_model *m, uint32_t lane_no, uint32_t bucket, uint32_t combo,
		    uint64_t count, uint64_t period);
void dp_vm_group_add(dp_view_model *m, uint32_t lane_no, uint32_t bucket, uint64_t count,
		     uint64_t toff);
/* The cells and groups anew: lanes through lmap, combinations through cmap
 * (NULL: as they are), buckets 2^by times wider. */
void dp_vm_rebuild(dp_view_model *m, const uint32_t *lmap, const uint32_t *cmap, unsigned by);
/* Doubles the bucket width: bucket b goes into b / 2. */
void dp_vm_widen(dp_view_model *m);
/* Combinations (one per distinct set of strings) and lanes in the order of
 * their first samples, and the strings in the order they were first
 * needed: what a pass in file order makes, however the samples were split
 * (view/model_merge.c). */
void dp_view_model_order(dp_view_model *m);

#endif
