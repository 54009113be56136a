/* libdataprof_markers.a: the part of code markers linked into the program.
 * It only finds and loads the collector; marks go straight to the
 * collector's functions through two pointers (dataprof/markers.h). */
#include "dataprof/markers.h"
#include "dataprof/format.h"
#include "collector_api.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void (*dp_markers__mark)(uint32_t id);
void (*dp_markers__mark_name)(const char *name);

static const dp_collector_api *api;
static char why[512] = "dp_markers_init was not called";

/* The reason markers are off: in dp_markers_error, on stderr (one line), and
 * in the profile when dataprof's channel is there. */
static int off(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int off(const char *fmt, ...)
{
	const char *fdv = secure_getenv(DP_AGENT_FD_ENV);
	struct {
		struct dp_rec_header h;
		uint64_t time;
		char text[sizeof(why) + 32];
	} rec;
	struct timespec ts;
	struct stat sb;
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "dataprof markers: %s\n", why);
	if (!fdv || !*fdv || fstat(atoi(fdv), &sb) < 0 || !S_ISFIFO(sb.st_mode))
		return 0;
	memset(&rec, 0, sizeof(rec));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	rec.time = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	snprintf(rec.text, sizeof(rec.text), "markers are off: %s", why);
	len = (16 + strlen(rec.text) + 1 + 7) & ~(size_t)7;
	rec.h.type = DP_REC_WARNING;
	rec.h.size = (uint16_t)len;
	if (write(atoi(fdv), &rec, len) < 0)
		return 0;
	return 0;
}

int dp_markers_init(const char *app)
{
	/* secure_getenv: a setuid or setgid program never loads a library its
	 * caller names (DATAPROF_COLLECTOR is unset for it) */
	const char *path = secure_getenv(DP_COLLECTOR_ENV);
	dp_collector_entry_fn entry;
	const dp_collector_api *a;
	char err[256] = "";
	void *h;

	if (api) {
		__atomic_store_n(&dp_markers__mark, api->mark, __ATOMIC_RELEASE);
		__atomic_store_n(&dp_markers__mark_name, api->mark_name, __ATOMIC_RELEASE);
		return 1;
	}
	if ((!path || !*path) && getenv(DP_COLLECTOR_ENV)) {
		snprintf(why, sizeof(why), "%s is ignored: this program runs set-user-ID or "
			 "set-group-ID", DP_COLLECTOR_ENV);
		return 0;
	}
	if (!path || !*path) {
		/* the usual case outside dataprof: quietly off */
		snprintf(why, sizeof(why), "%s is not set (run under 'dataprof record --markers')",
			 DP_COLLECTOR_ENV);
		return 0;
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return off("cannot load the collector %s: %s; markers are off", path, dlerror());
	*(void **)&entry = dlsym(h, DP_COLLECTOR_ENTRY);
	if (!entry) {
		dlclose(h);
		return off("%s is not a dataprof marker collector (no %s); markers are off", path,
			   DP_COLLECTOR_ENTRY);
	}
	a = entry();
	if (!a || a->version != DP_COLLECTOR_API_VERSION || a->size < sizeof(*a) || !a->init ||
	    !a->mark || !a->mark_name || !a->define || !a->uninit) {
		unsigned version = a ? a->version : 0;

		dlclose(h); /* a pointed into it */
		return off("the collector %s is of another version (%u, this program needs %u): "
			   "rebuild the program or use the dataprof it came with; markers are off",
			   path, version, DP_COLLECTOR_API_VERSION);
	}
	if (a->init(app, err, sizeof(err)) < 0)
		return off("%s; markers are off", err);
	api = a;
	why[0] = 0;
	__atomic_store_n(&dp_markers__mark_name, a->mark_name, __ATOMIC_RELEASE);
	__atomic_store_n(&dp_markers__mark, a->mark, __ATOMIC_RELEASE);
	return 1;
}

void dp_markers_uninit(void)
{
	if (!api || !dp_markers__mark)
		return;
	__atomic_store_n(&dp_markers__mark, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&dp_markers__mark_name, NULL, __ATOMIC_RELEASE);
	api->uninit();
}

const char *dp_markers_error(void)
{
	return why;
}

void dp_marker_define(uint32_t id, const char *name)
{
	if (api && dp_markers__mark)
		api->define(id, name);
}
