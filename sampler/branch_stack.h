/* Branch stacks (LBR) for record -b / -j: perf's filter words, and why the
 * kernel refused them, probed rather than assumed. */
#ifndef DP_BRANCH_STACK_H
#define DP_BRANCH_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include "event_spec.h"
#include "util.h"

/* "any,u" -> PERF_SAMPLE_BRANCH_* bits, with perf's words (any, any_call,
 * any_ret, ind_call, ind_jmp, call, cond, u, k, hv, in_tx, no_tx, abort_tx,
 * stack, save_type, hw_index, priv). Privilege words alone mean any branch
 * at those levels. -1 with err set on an unknown word. */
int dp_branch_filter_parse(const char *list, uint64_t *mode, dp_error *err);
/* The words of mode, comma-separated, into buf. */
void dp_branch_filter_name(uint64_t mode, char *buf, size_t len);
/* Opens cycles with a user-space branch stack on the calling thread: can
 * this machine's PMU record branch stacks at all? why: the errno text. */
bool dp_branch_stack_supported(char *why, size_t len);
/* The one-line error for an event that failed to open with mode (errno en). */
void dp_branch_open_error(const dp_event_spec *e, uint64_t mode, int en, dp_error *err);

#endif
