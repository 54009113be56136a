/* LD_PRELOAD=libdp_nofire.so: this machine's hardware breakpoints behave
 * as on one whose kernel accepts them and never fires them (Firecracker
 * guests do): perf_event_open of a PERF_TYPE_BREAKPOINT event opens a
 * software event that never counts instead. The suite runs its breakpoint
 * tests under it (ctest label nofire) to show that they skip, and that
 * dataprof doctor and record say why, on any machine. */
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (nr == SYS_perf_event_open && a[0]) {
		const struct perf_event_attr *attr = (const struct perf_event_attr *)a[0];

		if (attr->type == PERF_TYPE_BREAKPOINT) {
			struct perf_event_attr dummy;
			size_t n =
			    attr->size && attr->size < sizeof(dummy) ? attr->size : sizeof(dummy);

			memset(&dummy, 0, sizeof(dummy));
			memcpy(&dummy, attr, n);
			dummy.size = sizeof(dummy);
			dummy.type = PERF_TYPE_SOFTWARE;
			dummy.config = PERF_COUNT_SW_DUMMY;
			dummy.bp_type = 0;
			dummy.bp_addr = 0;
			dummy.bp_len = 0;
			return real(nr, &dummy, a[1], a[2], a[3], a[4]);
		}
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
