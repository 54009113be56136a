/* What the markers library (libdataprof_markers.a, in the program) finds in
 * the collector it loads (libdataprof_collector.so): one entry point that
 * returns this table. A library without the entry point, or with another
 * version, is not used. */
#ifndef DP_COLLECTOR_API_H
#define DP_COLLECTOR_API_H

#include <stddef.h>
#include <stdint.h>

#define DP_COLLECTOR_API_VERSION 1
#define DP_COLLECTOR_ENTRY       "dp_collector_api_v1"
#define DP_COLLECTOR_ENV         "DATAPROF_COLLECTOR"

typedef struct dp_collector_api {
	uint32_t version; /* DP_COLLECTOR_API_VERSION */
	uint32_t size;    /* sizeof(struct dp_collector_api) */
	/* 0: marks are recorded from now on; -1: they cannot be, why in err */
	int (*init)(const char *app, char *err, size_t errlen);
	void (*mark)(uint32_t id);
	void (*mark_name)(const char *name);
	void (*define)(uint32_t id, const char *name);
	/* hands every thread's marks over */
	void (*uninit)(void);
} dp_collector_api;

typedef const dp_collector_api *(*dp_collector_entry_fn)(void);

#endif
