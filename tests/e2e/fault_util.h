/* Helpers of the fault-injection tests: is a profile usable after the fault
 * (dump, report text and JSON), and the rows report makes of it. */
#ifndef DP_FAULT_UTIL_H
#define DP_FAULT_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "record_util.h"
#include "report/report.h"

/* dump -s, report and report --json all read prof and exit 0, without a
 * word of corruption; the lost count each of them shows goes to *lost. */
void fault_check_usable(const char *prof, uint64_t *lost);

/* Calls fn with the time, pid and function of every sample report keeps. */
typedef void (*fault_row_fn)(void *ctx, uint64_t time, uint32_t pid, const char *function);
void fault_each_row(const char *prof, fault_row_fn fn, void *ctx);

/* The FINISH record of prof, false when there is none. */
bool fault_finish(const char *prof, struct dp_rec_finish *out);

#endif
