/* Validation verdicts and their reasons (docs/architecture.md: verdict). */
#ifndef DP_VERDICT_H
#define DP_VERDICT_H

typedef enum dp_verdict {
	DP_V_EXACT,	   /* the hardware gave the data address */
	DP_V_VERIFIED,	   /* reconstructed, and nothing could have changed it */
	DP_V_UNVERIFIABLE, /* a candidate was found but cannot be trusted */
	DP_V_UNRESOLVABLE, /* no candidate instruction */
	DP_V_NO_MEMORY,	   /* the event is not a memory event, or not a data access */
	DP_V_COUNT,
} dp_verdict;

typedef enum dp_reason {
	DP_RS_NONE,
	/* unverifiable */
	DP_RS_REG_WRITTEN_BETWEEN, /* a register of the address was written between candidate and IP
				    */
	DP_RS_SELF_CLOBBER,	   /* the candidate wrote its own base or index register */
	DP_RS_BRANCH_TARGET,	   /* a branch target lies between candidate and IP */
	DP_RS_NO_REGS,		   /* the registers of the address were not sampled */
	DP_RS_SEGMENT_BASE,	   /* fs/gs-relative and the thread's segment base is unknown */
	DP_RS_OUTSIDE_MAPPINGS,	   /* the computed address is in no mapping known at that time */
	DP_RS_HW_MISMATCH,	   /* the computed address disagrees with the hardware's */
	DP_RS_REP_ITERATION,	   /* a repeated string instruction: which iteration is unknown */
	DP_RS_TWO_ACCESSES, /* two accesses of the event's kind (push mem, movs): which one is
			       unknown */
	DP_RS_SAVE_AREA,    /* xsave, fxsave and kin: which part of the area is unknown */
	/* unresolvable */
	DP_RS_NO_MAPPING,      /* the IP is in no known mapping (JIT, anonymous code) */
	DP_RS_NO_BINARY,       /* the mapped file could not be opened */
	DP_RS_BUILD_ID,	       /* the file on disk is not the one that ran (build-id differs) */
	DP_RS_NOT_ELF,	       /* the mapped file is not an ELF file we can read */
	DP_RS_NO_SYMBOL,       /* no symbol or CFI covers the IP: function bounds unknown */
	DP_RS_NOT_BOUNDARY,    /* the IP is not on an instruction boundary of its function */
	DP_RS_FUNCTION_START,  /* the walk reached the start of the function */
	DP_RS_CALL,	       /* a call lies just before the IP: the cause is in the callee */
	DP_RS_BRANCH,	       /* an unconditional branch lies before the IP */
	DP_RS_WINDOW,	       /* no memory instruction within the backtracking window */
	DP_RS_NO_MEMORY_INSN,  /* the instruction at an exact IP does not access memory */
	DP_RS_KERNEL,	       /* a kernel-mode sample */
	DP_RS_SKID_NOT_MEMORY, /* a fixed skid back lands on an instruction that does not access
				  memory */
	DP_RS_SKID_UNCOUNTED,  /* a fixed skid back crosses a repeated instruction's iterations */
	/* no-memory */
	DP_RS_NOT_MEMORY_EVENT, /* the event counts no memory access */
	DP_RS_IFETCH,		/* the fault was an instruction fetch, not a data access */
	DP_RS_COUNT,
} dp_reason;

const char *dp_verdict_name(dp_verdict v);
const char *dp_reason_name(dp_reason r);

#endif
