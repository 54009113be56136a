/* libFuzzer target: arbitrary bytes as a profile given to dataprof report
 * (raw profile or perf.data, as fuzz_profile), through the whole report:
 * decode's maps and images, annotate's heap blocks, marks and counters on
 * the time axis, aggregation and the text, JSON and CSV outputs. Four
 * views: the overview (object > member > line) as text; time buckets with
 * counters and a --where as JSON; the same within --between as CSV; and
 * annotate's --json (srcview: per-instruction sums, the listings, the
 * hottest ranges of branch stacks).
 *
 * It also holds report to its memory bound: what a hostile file can make
 * report allocate must be justified by its size. The peak of bytes
 * allocated while one input is reported is checked against
 * BOUND_FIXED + BOUND_PER_BYTE * size (binaries and their DWARF are what a
 * profile may legitimately cost beyond that; the seeds name few). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "export/export.h"
#include "fuzz_file.h"
#include "srcview/srcview.h"

/* allocation hooks: the sanitizers' (clang's libFuzzer build, gcc's replay) */
#if defined(__SANITIZE_ADDRESS__)
#define HAVE_HOOKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_HOOKS 1
#endif
#endif
#ifdef HAVE_HOOKS
/* sanitizer/allocator_interface.h, which gcc 12 does not install */
int __sanitizer_install_malloc_and_free_hooks(void (*m)(const volatile void *, size_t),
					      void (*f)(const volatile void *));
size_t __sanitizer_get_allocated_size(const volatile void *p);
#endif

/* (libdw decompresses a binary's debug sections as it opens them: 12.4 MB
 * of the 32 MB a C++ fixture's seed took, with Debian's libc and libstdc++
 * debug info installed; heaptrack on `report` of it) */
#define BOUND_FIXED    (40u << 20)
#define BOUND_PER_BYTE 64u

#ifdef HAVE_HOOKS
static size_t cur, peak;
static int watching;

static void on_malloc(const volatile void *p, size_t n)
{
	(void)p;
	if (!watching)
		return;
	cur += n;
	if (cur > peak)
		peak = cur;
}

static void on_free(const volatile void *p)
{
	size_t n;

	if (!watching || !p)
		return;
	n = __sanitizer_get_allocated_size(p);
	cur = n < cur ? cur - n : 0;
}
#endif

/* dataprof annotate --json -n 5,10 */
static void annotate_view(const char *path, FILE *out)
{
	dp_srcview_opts o;
	dp_srcview v;
	dp_error err;

	memset(&o, 0, sizeof(o));
	o.input = path;
	o.sel.symfs = "/nonexistent-symfs";
	o.top = 5;
	o.top_ranges = 10;
	o.json = true;
	o.out = out;
	if (dp_srcview_build(&o, &v, &err) == 0)
		dp_srcview_print(&v, &err);
	dp_srcview_free(&v);
}

static void one_view(const char *path, int view, FILE *out)
{
	dp_report_opts o;
	dp_out_format fmt;
	dp_error err;
	dp_attr a;

	if (view == 3) {
		annotate_view(path, out);
		return;
	}
	memset(&o, 0, sizeof(o));
	o.input = path;
	o.sel.symfs = "/nonexistent-symfs";
	o.out = out;
	o.metric = DP_M_PERIOD;
	o.width = 80;
	if (view == 0) {
		const char *lv[3] = {"object", "member", "line"};

		o.default_view = true;
		for (int i = 0; i < 3; i++) {
			dp_attr_parse(lv[i], &a, &err);
			o.levels[i].attrs[0] = a;
			o.levels[i].nattrs = 1;
			o.top[i] = i == 0 ? 10 : 3;
		}
		o.nlevels = 3;
		fmt = DP_OUT_TEXT;
	} else {
		dp_attr_parse("time:1ms", &a, &err);
		o.levels[0].attrs[0] = a;
		dp_attr_parse("function", &a, &err);
		o.levels[0].attrs[1] = a;
		o.levels[0].nattrs = 2;
		dp_attr_parse("region", &a, &err);
		o.levels[1].attrs[0] = a;
		o.levels[1].nattrs = 1;
		o.nlevels = 2;
		o.counters = "*";
		o.sel.where = "not object=x or kind=heap and addr=0..0xffffffff";
		fmt = DP_OUT_JSON;
		if (view == 2) {
			o.sel.between[0] = "1";
			o.sel.between[1] = "2";
			fmt = DP_OUT_CSV;
		}
	}
	dp_report_print(&o, fmt, NULL, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *out;
	const char *path;
#ifdef HAVE_HOOKS
	static int verbose = -1;
#endif

	if (!out) {
		out = fopen("/dev/null", "w");
		if (!out)
			return 0;
		unsetenv("HOME"); /* no build-id cache */
#ifdef HAVE_HOOKS
		verbose = getenv("FUZZ_REPORT_VERBOSE") != NULL;
		__sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
#endif
	}
	path = fuzz_file("fuzz_report", data, size);
	if (!path)
		return 0;
	for (int view = 0; view < 4; view++) {
#ifdef HAVE_HOOKS
		cur = peak = 0;
		watching = 1;
#endif
		one_view(path, view, out);
#ifdef HAVE_HOOKS
		watching = 0;
		if (verbose)
			fprintf(stderr,
				"fuzz_report: %zu bytes, view %d: peak %zu bytes allocated\n", size,
				view, peak);
		if (peak > BOUND_FIXED + (size_t)BOUND_PER_BYTE * size) {
			fprintf(stderr,
				"fuzz_report: a %zu-byte profile made report allocate %zu bytes at "
				"its peak (view %d); the bound is %zu\n",
				size, peak, view, BOUND_FIXED + (size_t)BOUND_PER_BYTE * size);
			abort();
		}
#endif
	}
	return 0;
}
