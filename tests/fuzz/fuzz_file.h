/* The input of a fuzz target whose code under test opens a path: a memory
 * file, made once per process. */
#ifndef DP_FUZZ_FILE_H
#define DP_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* The memory file named name, made on the first call: its descriptor (-1
 * if it cannot be made), *path its /proc/self/fd/N. */
static inline int fuzz_memfd(const char *name, const char **path)
{
	static int fd = -1;
	static char buf[64];

	if (fd < 0) {
		fd = memfd_create(name, MFD_CLOEXEC);
		if (fd < 0)
			return -1;
		snprintf(buf, sizeof(buf), "/proc/self/fd/%d", fd);
	}
	*path = buf;
	return fd;
}

/* The memory file holding just data: its path, or NULL. */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	const char *path;
	int fd = fuzz_memfd(name, &path);

	if (fd < 0 || ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return NULL;
	return path;
}

#endif
