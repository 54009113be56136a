/* From the sampled IP to the instruction that caused the event: the walk
 * back through one function's instructions, decided once per distinct
 * (instruction, IP semantics, event class) and cached by the decoder. */
#ifndef DP_BACKTRACK_H
#define DP_BACKTRACK_H

#include "dataprof/format.h"
#include "insn_table.h"
#include "verdict.h"

#define DP_BACKTRACK_WINDOW 16 /* instructions walked back at most */

typedef struct dp_bt {
	long insn;	    /* the candidate's index in the table, -1: none */
	int mem;	    /* which of its memory operands */
	dp_verdict verdict; /* VERIFIED: verifiable once the address checks out;
			     * UNVERIFIABLE, UNRESOLVABLE, NO_MEMORY: final */
	dp_reason reason;
	bool regs_after;  /* the sampled registers are from after the candidate ran */
	uint8_t distance; /* instructions between the candidate and the IP */
} dp_bt;

/* skid: with DP_IP_AFTER, 0 when the cause retired some instructions
 * before the IP (the nearest memory instruction is taken), N when exactly N
 * (a simulator's --sim-skid N: the instruction N back, or none). */
void dp_backtrack(const dp_func_table *t, uint64_t ip_vaddr, enum dp_ip_semantics sem,
		  enum dp_event_class cls, unsigned skid, dp_bt *out);

#endif
