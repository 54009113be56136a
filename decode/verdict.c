#include "verdict.h"

const char *dp_verdict_name(dp_verdict v)
{
	static const char *const n[DP_V_COUNT] = {
	    "exact", "verified", "unverifiable", "unresolvable", "no-memory",
	};
	return (unsigned)v < DP_V_COUNT ? n[v] : "?";
}

const char *dp_reason_name(dp_reason r)
{
	static const char *const n[DP_RS_COUNT] = {
	    [DP_RS_NONE] = "",
	    [DP_RS_REG_WRITTEN_BETWEEN] = "register written between candidate and IP",
	    [DP_RS_SELF_CLOBBER] = "candidate writes its own address register",
	    [DP_RS_BRANCH_TARGET] = "branch target crossed",
	    [DP_RS_NO_REGS] = "registers not sampled",
	    [DP_RS_SEGMENT_BASE] = "segment base unknown",
	    [DP_RS_OUTSIDE_MAPPINGS] = "address outside known mappings",
	    [DP_RS_HW_MISMATCH] = "disagrees with the hardware address",
	    [DP_RS_REP_ITERATION] = "repeated string instruction",
	    [DP_RS_TWO_ACCESSES] = "two memory accesses: which one is unknown",
	    [DP_RS_SAVE_AREA] = "save area: which part is unknown",
	    [DP_RS_NO_MAPPING] = "IP outside known mappings (JIT or anonymous code)",
	    [DP_RS_NO_BINARY] = "binary not found",
	    [DP_RS_BUILD_ID] = "binary changed since recording (build-id mismatch)",
	    [DP_RS_NOT_ELF] = "binary unreadable",
	    [DP_RS_NO_SYMBOL] = "no symbol for the IP",
	    [DP_RS_NOT_BOUNDARY] = "IP not on an instruction boundary",
	    [DP_RS_FUNCTION_START] = "reached the start of the function",
	    [DP_RS_CALL] = "call before the IP",
	    [DP_RS_BRANCH] = "unconditional branch before the IP",
	    [DP_RS_WINDOW] = "backtracking window exhausted",
	    [DP_RS_NO_MEMORY_INSN] = "instruction at the IP does not access memory",
	    [DP_RS_KERNEL] = "kernel sample",
	    [DP_RS_SKID_NOT_MEMORY] = "the instruction the skid points to does not access memory",
	    [DP_RS_SKID_UNCOUNTED] = "the skid crosses a repeated instruction",
	    [DP_RS_NOT_MEMORY_EVENT] = "not a memory event",
	    [DP_RS_IFETCH] = "instruction fetch",
	};
	return (unsigned)r < DP_RS_COUNT && n[r] ? n[r] : "?";
}
