/* Reading a mapped profile through a few reused buffers. Each page of a
 * file mapping costs a fault the first time it is read, and a long profile
 * is read once: on the 2-CPU VM, touching the pages of a 2.2 GB file took
 * 1.1 s (a third of its report), and two threads touching half each took
 * 0.8 s. So the window the reader is in (2 MiB) is pread() into a buffer
 * whose pages were faulted once, a huge page where the kernel gives one,
 * moved over that part of the mapping (mremap); a window given up gets the
 * file's pages mapped back. Every byte of the mapping reads the file's
 * content at all times: a pointer kept into a window given up reads the
 * same bytes, through the file again. The same report then took 2.4 s. */
#ifndef DP_PROFILE_WINDOW_H
#define DP_PROFILE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DP_WIN_SLOTS 4

typedef struct dp_window {
	int fd;		/* the file, for pread; -1: windows off */
	unsigned shift; /* a window's size: 1 << shift bytes */
	size_t size;	/* the file's */
	uint8_t *map;	/* the mapping */
	size_t cur;	/* the window of the last dp_win_need (SIZE_MAX: none) */
	uint64_t clock; /* for the least recently used */
	uint64_t fills; /* windows read */
	uint8_t *home;	/* DP_WIN_SLOTS buffers' places while not in use */
	struct dp_win_slot {
		size_t at; /* the window it holds; SIZE_MAX: at home */
		uint64_t used;
	} slot[DP_WIN_SLOTS];
} dp_window;

struct dp_profile;

static inline size_t dp_win_bytes(const dp_window *w)
{
	return (size_t)1 << w->shift;
}

/* Windows for p's mapping of path (size bytes, mapped at *map, which may
 * move: the mapping grows to whole windows). Off when the file cannot be
 * opened again or the mapping cannot grow; then nothing changes. */
void dp_win_open(dp_window *w, const char *path, void **map, size_t size);
/* [off, off + len) of the mapping will be read now: make its windows
 * buffers. */
void dp_win_fill(dp_window *w, size_t off, size_t len);
static inline void dp_win_need(dp_window *w, size_t off, size_t len)
{
	if (w->fd >= 0 && ((off >> w->shift) != w->cur || ((off + len - 1) >> w->shift) != w->cur))
		dp_win_fill(w, off, len);
}
/* Before [lo, hi) of the mapping is given back (MADV_DONTNEED), which would
 * empty a buffer: the windows there become the file's pages again. */
void dp_win_forget(dp_window *w, size_t lo, size_t hi);
/* Every window back to the file's pages, the buffers freed, the mapping's
 * tail past the file's last page unmapped: a plain mapping again. */
void dp_win_off(dp_window *w);

#endif
