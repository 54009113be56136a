/* How decode and annotate did on a simulated profile recorded with
 * --sim-skid N: each sample's DP_REC_SIM_TRUTH says which instruction
 * caused it and which address it touched (docs/sim.md#accuracy). */
#ifndef DP_SIM_ACCURACY_H
#define DP_SIM_ACCURACY_H

#include <stdint.h>

#include "util.h"
#include "../decode/decode.h"

typedef struct dp_sim_accuracy {
	uint64_t samples; /* samples with a truth record */
	uint64_t skid;	  /* instructions of skid (the first truth's) */
	uint64_t verified,
	    verified_right;	       /* verdict verified (or exact); of those, the true address */
	uint64_t insn, insn_right;     /* a causing instruction found; of those, the true one */
	uint64_t object, object_right; /* an object for a verified address; the true address's */
	uint64_t member, member_right; /* the same for the member path */
	/* set by the caller: only samples whose IP is in a mapping whose name
	 * contains this (NULL: all) */
	const char *only_map;
	/* set by the caller: only samples whose function (as annotate names
	 * it) matches this glob (NULL: all) */
	const char *only_func;
	/* set by the caller: called for each verified address that is wrong */
	void (*wrong_fn)(void *ctx, const dp_sample *s, const dp_decoded *x, uint64_t true_ip,
			 uint64_t true_addr, uint32_t size);
	void *wrong_ctx;
} dp_sim_accuracy;

/* Reads the profile at path; -1 with a message when it cannot be read. */
int dp_sim_accuracy_run(const char *path, dp_sim_accuracy *acc, dp_error *err);

#endif
