/* Reading a mapped profile a window (2 MiB) at a time. Each page of a file
 * mapping costs a fault the first time it is read, and a long profile is
 * read once: on the 2-CPU VM, touching the pages of a 2.2 GB file once took
 * 1.1 s (a third of its report), and two threads touching half each took
 * 0.8 s. So the pages of the window the reader enters are mapped at once,
 * by one madvise(MADV_POPULATE_READ) (Linux 5.14): no fault a page, and no
 * copy. Where the kernel cannot, or with DATAPROF_READ_COPY set, the window
 * is pread() into a buffer whose pages were faulted once, a huge page where
 * the kernel gives one, moved over that part of the mapping (mremap); a
 * window given up gets the file's pages mapped back. Either way every byte
 * of the mapping reads the file's content at all times: a pointer kept
 * into a window given up reads the same bytes, through the file again. */
#ifndef DP_PROFILE_WINDOW_H
#define DP_PROFILE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DP_WIN_SLOTS 4

typedef struct dp_window {
	int fd;		/* the file, for pread (copied windows); -1: none */
	bool populate;	/* windows of the file's own pages, mapped at once */
	unsigned shift; /* a window's size: 1 << shift bytes */
	size_t size;	/* the file's */
	uint8_t *map;	/* the mapping */
	size_t cur;	/* the window of the last dp_win_need (SIZE_MAX: none) */
	uint64_t clock; /* for the least recently used */
	uint64_t fills; /* windows read (or mapped at once) */
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

/* Windows for p's mapping of path (size bytes, mapped at *map): populated
 * where the kernel can; else copied, and then *map may move (the mapping
 * grows to whole windows). Off when neither can be; then nothing changes. */
void dp_win_open(dp_window *w, const char *path, void **map, size_t size);
/* [off, off + len) of the mapping will be read now: make its windows
 * buffers. */
void dp_win_fill(dp_window *w, size_t off, size_t len);
static inline void dp_win_need(dp_window *w, size_t off, size_t len)
{
	if ((w->fd >= 0 || w->populate) &&
	    ((off >> w->shift) != w->cur || ((off + len - 1) >> w->shift) != w->cur))
		dp_win_fill(w, off, len);
}
/* Before [lo, hi) of the mapping is given back (MADV_DONTNEED), which would
 * empty a buffer: the windows there become the file's pages again. */
void dp_win_forget(dp_window *w, size_t lo, size_t hi);
/* Every window back to the file's pages, the buffers freed, the mapping's
 * tail past the file's last page unmapped: a plain mapping again. */
void dp_win_off(dp_window *w);

#endif
