/* Libraries that look like a marker collector but are not one: built with
 * -DNO_ENTRY (no entry point) or -DOTHER_VERSION (an entry point of another
 * version), for test_markers. */
#include "collector_api.h"

#ifdef NO_ENTRY
int dp_not_a_collector(void);
int dp_not_a_collector(void)
{
	return 0;
}
#else
static dp_collector_api api = {99, sizeof(dp_collector_api), 0, 0, 0, 0, 0};

const dp_collector_api *dp_collector_api_v1(void);
const dp_collector_api *dp_collector_api_v1(void)
{
	return &api;
}
#endif
