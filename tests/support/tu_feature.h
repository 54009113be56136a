/* What this machine's kernel delivers, for the tests: the probes of
 * sampler/probe.c (the same that `dataprof doctor` prints), run once per
 * ctest run by the machine_probes setup test and cached in a file. A test
 * that needs a missing feature is skipped with its reason, which is also
 * appended to the skip log that ./build.sh test sums up. */
#ifndef DP_TU_FEATURE_H
#define DP_TU_FEATURE_H

#include <stdbool.h>

#include "sampler/probe.h"

/* Is the feature there? *why (when not NULL) gets the probe's words. */
bool tu_have(dp_probe_id id, const char **why);

/* Skips the calling cmocka test (skip()) when the feature is missing, with a
 * line saying why, logged for the summary. */
#define tu_require(id) tu_require_at((id), __func__)
void tu_require_at(dp_probe_id id, const char *test);

/* For a test program every test of which needs these features (a list
 * ending with DP_PROBE_COUNT): called first in main, before anything is
 * allocated; exits 77 (ctest's SKIP_RETURN_CODE for end-to-end tests) with
 * the reason when one is missing. */
void tu_require_program(dp_probe_id first, ...);

/* A test is about to record with these dataprof options: fails it, saying
 * which tu_require it lacks, when an event of the -e LIST (cpu-clock when
 * none is named) needs a feature this machine does not have. Skipping
 * there would leak what the test allocated before. */
void tu_check_events(const char *opts);

/* Runs every probe, writes the cache and empties the skip log: the
 * machine_probes setup test. Prints what it found. */
void tu_probe_machine(void);

#endif
