#include "special.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

bool dp_is_own_code(const char *map_name, const char *function)
{
	if (map_name) {
		const char *b = strrchr(map_name, '/');

		b = b ? b + 1 : map_name;
		if (!strncmp(b, "libdataprof_", 12))
			return true;
	}
	return function &&
	       (!strncmp(function, "dp_markers", 10) || !strncmp(function, "dp_marker_", 10));
}

bool dp_is_allocator_code(const char *function)
{
	/* glibc's entry points and internals (with its symbols: libc6-dbg or
	 * debuginfod), then the other allocators' prefixes */
	static const char *const globs[] = {
	    "malloc",	     "free",	       "calloc",	 "realloc",
	    "reallocarray",  "memalign",       "posix_memalign", "aligned_alloc",
	    "valloc",	     "pvalloc",	       "cfree",		 "__libc_malloc",
	    "__libc_free",   "__libc_calloc",  "__libc_realloc", "__libc_memalign",
	    "__libc_valloc", "__libc_pvalloc", "_int_*",	 "_mid_memalign",
	    "malloc_*",	     "unlink_chunk",   "sysmalloc",	 "systrim",
	    "heap_trim",     "tcache_*",       "arena_get*",	 "__malloc_*",
	    "je_*",	     "tc_*",	       "tcmalloc::*",	 "mi_*",
	    "_mi_*",
	};

	if (!function || !*function)
		return false;
	for (size_t i = 0; i < sizeof(globs) / sizeof(globs[0]); i++)
		if (!fnmatch(globs[i], function, 0))
			return true;
	return false;
}

/* x86-64 system call numbers, the ones programs spend time in. */
static const struct {
	unsigned nr;
	const char *name;
} calls[] = {
    {0, "read"},
    {1, "write"},
    {2, "open"},
    {3, "close"},
    {4, "stat"},
    {5, "fstat"},
    {7, "poll"},
    {8, "lseek"},
    {9, "mmap"},
    {10, "mprotect"},
    {11, "munmap"},
    {12, "brk"},
    {13, "rt_sigaction"},
    {14, "rt_sigprocmask"},
    {16, "ioctl"},
    {17, "pread64"},
    {18, "pwrite64"},
    {19, "readv"},
    {20, "writev"},
    {23, "select"},
    {24, "sched_yield"},
    {25, "mremap"},
    {28, "madvise"},
    {35, "nanosleep"},
    {39, "getpid"},
    {41, "socket"},
    {42, "connect"},
    {43, "accept"},
    {44, "sendto"},
    {45, "recvfrom"},
    {46, "sendmsg"},
    {47, "recvmsg"},
    {56, "clone"},
    {57, "fork"},
    {59, "execve"},
    {60, "exit"},
    {61, "wait4"},
    {62, "kill"},
    {72, "fcntl"},
    {74, "fsync"},
    {96, "gettimeofday"},
    {158, "arch_prctl"},
    {186, "gettid"},
    {202, "futex"},
    {217, "getdents64"},
    {228, "clock_gettime"},
    {230, "clock_nanosleep"},
    {231, "exit_group"},
    {232, "epoll_wait"},
    {257, "openat"},
    {262, "newfstatat"},
    {270, "pselect6"},
    {271, "ppoll"},
    {281, "epoll_pwait"},
    {288, "accept4"},
    {318, "getrandom"},
};

/* "__GI___libc_write" -> "write", "__nanosleep_nocancel" -> "nanosleep" */
static void name_from_function(const char *f, char *out, size_t cap)
{
	static const char *const prefixes[] = {"__GI_", "__libc_", "__"};
	size_t n;

	for (int again = 1; again;) {
		again = 0;
		for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
			size_t l = strlen(prefixes[i]);

			if (!strncmp(f, prefixes[i], l) && f[l]) {
				f += l;
				again = 1;
			}
		}
	}
	snprintf(out, cap, "%s", f);
	n = strlen(out);
	if (n > 9 && !strcmp(out + n - 9, "_nocancel"))
		out[n - 9] = 0;
}

bool dp_syscall_at(const dp_image *im, uint64_t ip_vaddr, const char *function, char *out,
		   size_t cap)
{
	unsigned char b[7];

	if (!im || ip_vaddr < sizeof(b) ||
	    dp_image_read(im, ip_vaddr - sizeof(b), b, sizeof(b)) != sizeof(b))
		return false;
	if (b[5] != 0x0f || b[6] != 0x05)
		return false;
	if (b[0] == 0xb8) { /* mov $imm32, %eax */
		unsigned nr = b[1] | b[2] << 8 | b[3] << 16 | (unsigned)b[4] << 24;

		for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
			if (calls[i].nr == nr) {
				snprintf(out, cap, "%s", calls[i].name);
				return true;
			}
		snprintf(out, cap, "%u", nr);
		return true;
	}
	if (function && *function)
		name_from_function(function, out, cap);
	else
		snprintf(out, cap, "?");
	return true;
}
