/* Times and sizes as users write them, one syntax for every option.
 *
 * A duration is a number (decimals allowed) with its unit: ns, us, ms, s,
 * min or h -- "100ms", "2.5s", "1us". The unit is required: a bare number
 * is refused (is 100 a hundred nanoseconds or a hundred seconds?). A time
 * range is START..END (either side may be left out: "1s..2.5s", "100ms..",
 * "..3s"), and END may be "+DURATION", counted from START ("2s..+500ms").
 * A size is bytes, or a number with K, M or G (powers of 1024; KiB, MiB and
 * GiB are the same). Each parser refuses garbage, negative values and values
 * beyond 64 bits, with the reason in why (no option name: the caller names
 * its option). */
#ifndef DP_UNITS_H
#define DP_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool dp_parse_duration(const char *s, uint64_t *ns, char *why, size_t whylen);
bool dp_parse_time_range(const char *s, uint64_t *lo, uint64_t *hi, char *why, size_t whylen);
bool dp_parse_size(const char *s, uint64_t *bytes, char *why, size_t whylen);

#endif
