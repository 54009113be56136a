#include "backtrack.h"

#include <string.h>

static bool operand_matches(const dp_memop *mo, enum dp_event_class cls)
{
	return !(cls == DP_EVC_LOAD && !(mo->access & DP_ACC_LOAD)) &&
	       !(cls == DP_EVC_STORE && !(mo->access & DP_ACC_STORE));
}

/* The memory operand of in that can cause an event of class cls, or -1. */
static int matching_operand(const dp_insn *in, enum dp_event_class cls)
{
	if (!(in->flags & DP_INSN_MEM))
		return -1;
	for (int m = 0; m < in->nmem; m++)
		if (operand_matches(&in->mem[m], cls))
			return m;
	return -1;
}

/* Another operand than m could have caused it too (push mem: the load
 * and the stack's store; movs: both strings). */
static bool another_matches(const dp_insn *in, int m, enum dp_event_class cls)
{
	for (int k = 0; k < in->nmem; k++)
		if (k != m && operand_matches(&in->mem[k], cls))
			return true;
	return false;
}

/* Does the candidate's own write spoil the registers the address is read from? */
static bool self_clobbered(const dp_insn *in, const dp_memop *m, bool regs_after)
{
	uint32_t need = dp_memop_regs(m, regs_after), w = in->regs_written;

	if (!regs_after)
		return false;
	if (m->implicit && m->after_base >= 0)
		w &= ~(1u << m->after_base); /* moved by a known amount: accounted for */
	if (m->implicit == DP_IMPLICIT_STRING)
		w &= ~((1u << 9) | (1u << 2)); /* flags and the rep count: not address registers */
	return (need & w) != 0;
}

/* Why the address of candidate c's operand m cannot be verified, or
 * DP_RS_NONE where it can: the first of the doubts that holds. */
static dp_reason doubt(const dp_insn *c, int m, enum dp_event_class cls, bool regs_after,
		       uint32_t written_between, bool crossed_leader)
{
	const dp_memop *mo = &c->mem[m];
	/* the event was one access (a time sample is none: any the nearest
	 * instruction made is as true) */
	bool one_access = cls != DP_EVC_TIME;

	if (self_clobbered(c, mo, regs_after))
		return DP_RS_SELF_CLOBBER;
	if (dp_memop_regs(mo, regs_after) & written_between)
		return DP_RS_REG_WRITTEN_BETWEEN;
	if (crossed_leader)
		return DP_RS_BRANCH_TARGET;
	/* the operand is the area's start; the access was somewhere in it */
	if (one_access && (c->flags & DP_INSN_AREA))
		return DP_RS_SAVE_AREA;
	if (one_access && another_matches(c, m, cls))
		return DP_RS_TWO_ACCESSES;
	return DP_RS_NONE;
}

static void found(dp_bt *o, const dp_func_table *t, long j, int m, enum dp_event_class cls,
		  bool regs_after, uint32_t written_between, bool crossed_leader, uint8_t distance)
{
	o->insn = j;
	o->mem = m;
	o->regs_after = regs_after;
	o->distance = distance;
	o->reason = doubt(&t->insns.v[j], m, cls, regs_after, written_between, crossed_leader);
	o->verdict = o->reason == DP_RS_NONE ? DP_V_VERIFIED : DP_V_UNVERIFIABLE;
}

static void none(dp_bt *o, dp_verdict v, dp_reason r)
{
	o->insn = -1;
	o->mem = -1;
	o->verdict = v;
	o->reason = r;
}

/* The cause retired exactly n instructions before the one at k: the
 * instruction n steps back, when every step back is certain. */
/* One step back from instruction cur: the one that ran just before it, or
 * -1 with o set (the function's start, or no fall-in to follow). Several
 * ways in make the step a guess: *crossed. A call stepped back over is
 * the callee's work, which no walk can see through. */
static long step_back(const dp_func_table *t, long cur, bool *crossed, dp_bt *o)
{
	const dp_insn *at = &t->insns.v[cur];

	if (cur == 0) {
		none(o, DP_V_UNRESOLVABLE, DP_RS_FUNCTION_START);
		return -1;
	}
	if (at->pred < 0) {
		none(o, DP_V_UNRESOLVABLE, DP_RS_BRANCH);
		return -1;
	}
	if (at->npred != 1)
		*crossed = true;
	if (t->insns.v[at->pred].flags & DP_INSN_CALL) {
		none(o, DP_V_UNRESOLVABLE, DP_RS_CALL);
		return -1;
	}
	return at->pred;
}

static void back_exactly(const dp_func_table *t, long k, unsigned n, enum dp_event_class cls,
			 dp_bt *o)
{
	uint32_t written = 0;
	bool crossed = false;
	long cur = k;
	int m;

	/* an interrupted repeated instruction: its iterations count one each */
	if (t->insns.v[k].flags & DP_INSN_REP) {
		none(o, DP_V_UNRESOLVABLE, DP_RS_SKID_UNCOUNTED);
		return;
	}
	for (unsigned steps = 0; steps < n; steps++) {
		long j = step_back(t, cur, &crossed, o);
		const dp_insn *c;

		if (j < 0)
			return;
		c = &t->insns.v[j];
		/* a repeated one's iterations: which is n back is not known */
		if (c->flags & DP_INSN_REP) {
			none(o, DP_V_UNRESOLVABLE, DP_RS_SKID_UNCOUNTED);
			return;
		}
		if (steps + 1 < n)
			written |= c->regs_written;
		cur = j;
	}
	m = matching_operand(&t->insns.v[cur], cls);
	if (m < 0) {
		none(o, DP_V_UNRESOLVABLE, DP_RS_SKID_NOT_MEMORY);
		return;
	}
	found(o, t, cur, m, cls, true, written, crossed, (uint8_t)DP_MIN(n - 1, 255));
}

void dp_backtrack(const dp_func_table *t, uint64_t ip, enum dp_ip_semantics sem,
		  enum dp_event_class cls, unsigned skid, dp_bt *o)
{
	long k = dp_func_table_find(t, ip);
	uint32_t written = 0;
	bool crossed = false;
	int m;

	memset(o, 0, sizeof(*o));
	if (cls == DP_EVC_NONE || sem == DP_IP_NONE) {
		none(o, DP_V_NO_MEMORY, DP_RS_NOT_MEMORY_EVENT);
		return;
	}
	if (k < 0) {
		none(o, DP_V_UNRESOLVABLE, DP_RS_NOT_BOUNDARY);
		return;
	}
	if (sem == DP_IP_EXACT || sem == DP_IP_EXACT_AFTER) {
		m = matching_operand(&t->insns.v[k], cls);
		if (m < 0) {
			none(o, DP_V_UNRESOLVABLE, DP_RS_NO_MEMORY_INSN);
			return;
		}
		found(o, t, k, m, cls, sem == DP_IP_EXACT_AFTER, 0, false, 0);
		return;
	}

	if (skid) {
		back_exactly(t, k, skid, cls, o);
		return;
	}
	/* DP_IP_AFTER: the cause retired before the IP. A repeated string
	 * instruction that is interrupted between iterations leaves the IP on
	 * itself: it may be the cause, but which iteration ran is unknown. */
	if ((t->insns.v[k].flags & DP_INSN_REP) &&
	    (m = matching_operand(&t->insns.v[k], cls)) >= 0) {
		found(o, t, k, m, cls, true, 0, false, 0);
		if (o->verdict == DP_V_VERIFIED || o->reason == DP_RS_TWO_ACCESSES) {
			o->verdict = DP_V_UNVERIFIABLE;
			o->reason = DP_RS_REP_ITERATION;
		}
		return;
	}
	for (long cur = k, steps = 0;; steps++) {
		long j;

		if (cur != 0 && steps >= DP_BACKTRACK_WINDOW) {
			none(o, DP_V_UNRESOLVABLE, DP_RS_WINDOW);
			return;
		}
		if ((j = step_back(t, cur, &crossed, o)) < 0)
			return;
		const dp_insn *c = &t->insns.v[j];
		m = matching_operand(c, cls);
		if (m >= 0) {
			found(o, t, j, m, cls, true, written, crossed, (uint8_t)DP_MIN(steps, 255));
			return;
		}
		written |= c->regs_written;
		cur = j;
	}
}
