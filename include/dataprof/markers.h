/* Code markers: calls a program makes at points of interest, so that dataprof
 * can put its phases on the time axis of samples and counters, and measure the
 * time between them (docs/markers.md).
 *
 *	#include <dataprof/markers.h>      link with -ldataprof_markers
 *
 *	dp_markers_init("mybench");
 *	dp_marker_define(1, "solve begin");
 *	dp_mark(1);                        // by id: the cheapest
 *	solve();
 *	dp_mark_name("solve end");         // by name: hashes the name each time
 *	dp_markers_uninit();               // hands the marks to dataprof
 *
 * Markers are off unless the program runs under 'dataprof record --markers'
 * (which names a collector library in DATAPROF_COLLECTOR). Off, a mark is one
 * load and one predictable branch. On, a mark takes a timestamp, stores
 * (marker, time) in a block of its thread, without lock or allocation, and a
 * second timestamp just before it returns: the mark's own cost, which dataprof
 * subtracts from the intervals it reports. Any thread may mark. Marks reach
 * dataprof when the program calls dp_markers_uninit, when a thread exits, when
 * the process exits normally, or when a thread's block is full. A process that
 * dies by a signal or _exit loses the marks it still holds.
 *
 * Compile with -DDATAPROF_NO_MARKERS to remove every mark from the program. */
#ifndef DATAPROF_MARKERS_H
#define DATAPROF_MARKERS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marker ids the program chooses are below DP_MARKER_NAMED (0x80000000);
 * dp_mark_name uses the ids above it. */

#ifndef DATAPROF_NO_MARKERS

/* Starts markers if the environment names a collector (DATAPROF_COLLECTOR).
 * app names the program in the profile (NULL: the program's name). Returns 1
 * when marks are recorded, 0 when they are off; if a collector was named but
 * cannot be used, one warning line goes to stderr and dp_markers_error says
 * why. Calling it again does nothing. */
int dp_markers_init(const char *app);
/* Stops marking and hands this process's marks to dataprof. */
void dp_markers_uninit(void);
/* Why markers are off, or "" when they are on. */
const char *dp_markers_error(void);
/* Gives marker id a name in the profile. */
void dp_marker_define(uint32_t id, const char *name);

/* Set by dp_markers_init when marks are recorded; not for direct use. */
extern void (*dp_markers__mark)(uint32_t id);
extern void (*dp_markers__mark_name)(const char *name);

static inline int dp_markers_enabled(void)
{
	return __atomic_load_n(&dp_markers__mark, __ATOMIC_RELAXED) != 0;
}

/* Marks the point the program has reached, by id. */
static inline void dp_mark(uint32_t id)
{
	void (*f)(uint32_t) = __atomic_load_n(&dp_markers__mark, __ATOMIC_RELAXED);

	if (__builtin_expect(f != 0, 0))
		f(id);
}

/* Marks by name (a string that lives as long as the call). */
static inline void dp_mark_name(const char *name)
{
	void (*f)(const char *) = __atomic_load_n(&dp_markers__mark_name, __ATOMIC_RELAXED);

	if (__builtin_expect(f != 0, 0))
		f(name);
}

#else /* DATAPROF_NO_MARKERS */

static inline int dp_markers_init(const char *app)
{
	(void)app;
	return 0;
}
static inline void dp_markers_uninit(void)
{
}
static inline const char *dp_markers_error(void)
{
	return "compiled with DATAPROF_NO_MARKERS";
}
static inline void dp_marker_define(uint32_t id, const char *name)
{
	(void)id;
	(void)name;
}
static inline int dp_markers_enabled(void)
{
	return 0;
}
static inline void dp_mark(uint32_t id)
{
	(void)id;
}
static inline void dp_mark_name(const char *name)
{
	(void)name;
}

#endif /* DATAPROF_NO_MARKERS */

#ifdef __cplusplus
}
#endif

#endif
