#include "window.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* One huge page: a buffer moves over a window by one page-table entry, and
 * a window is one pread. The parts of a report read runs of chunks
 * (report/part.c), so that a window is mostly one part's. */
#define WINDOW_BYTES (2u << 20)
#define PAGE	     4096u
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

/* len bytes of address space at a multiple of align, reserved */
static uint8_t *reserve_aligned(size_t len, size_t align)
{
	uint8_t *r = mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			  -1, 0),
		*a;

	if (r == MAP_FAILED)
		return NULL;
	a = (uint8_t *)(((uintptr_t)r + align - 1) & ~(uintptr_t)(align - 1));
	if (a > r)
		munmap(r, (size_t)(a - r));
	munmap(a + len, (size_t)(r + len + align - (a + len)));
	return a;
}

/* A window's size: a power of two, at least a page. DATAPROF_READ_WINDOW
 * (KiB; 0: no windows) sets another, DATAPROF_READ_COPY copied windows
 * where populated ones would do: to compare and to test. */
static unsigned window_shift(void)
{
	const char *e = getenv("DATAPROF_READ_WINDOW");
	unsigned long kib = e && *e ? strtoul(e, NULL, 10) : WINDOW_BYTES >> 10;
	unsigned shift = 12;

	if (!kib)
		return 0;
	while (shift < 30 && (2ul << shift) <= kib << 10)
		shift++;
	return shift;
}

void dp_win_open(dp_window *w, const char *path, void **map, size_t size)
{
	unsigned shift = window_shift();
	size_t bytes = (size_t)1 << shift, len = (size + bytes - 1) & ~(bytes - 1);
	size_t pages = (size + PAGE - 1) & ~(size_t)(PAGE - 1);
	uint8_t *home = NULL, *m = NULL;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	/* a file of one window or less faults in fewer pages than a buffer
	 * costs to set up (address space reserved, a huge page cleared and
	 * moved): it is read as mapped */
	if (!shift || size <= bytes)
		return;
	/* the first window mapped at once: the kernel can, and it is read next */
	if (!getenv("DATAPROF_READ_COPY") && madvise(*map, bytes, MADV_POPULATE_READ) == 0) {
		w->populate = true;
		w->map = *map;
		w->shift = shift;
		w->size = size;
		w->cur = 0;
		w->fills = 1;
		w->slot[0].at = 0;
		w->slot[0].used = ++w->clock;
		for (int i = 1; i < DP_WIN_SLOTS; i++)
			w->slot[i].at = SIZE_MAX;
		return;
	}
	/* buffers and windows at multiples of their size: a 2 MiB buffer is
	 * then one huge page, moved whole; the mapping grows to whole windows,
	 * for the last one's buffer (past the end of the file, never read) */
	home = reserve_aligned(DP_WIN_SLOTS * bytes, bytes);
	m = reserve_aligned(len, bytes);
	if (!home || !m ||
	    mmap(home, DP_WIN_SLOTS * bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED ||
	    (w->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    mremap(*map, pages, len, MREMAP_MAYMOVE | MREMAP_FIXED, m) == MAP_FAILED) {
		if (home)
			munmap(home, DP_WIN_SLOTS * bytes);
		if (m)
			munmap(m, len);
		if (w->fd >= 0)
			close(w->fd);
		w->fd = -1;
		return;
	}
	madvise(home, DP_WIN_SLOTS * bytes, MADV_HUGEPAGE);
	*map = m;
	w->map = m;
	w->home = home;
	w->shift = shift;
	w->size = size;
	w->cur = SIZE_MAX;
	for (int i = 0; i < DP_WIN_SLOTS; i++)
		w->slot[i].at = SIZE_MAX;
}

/* The mapping's length: the file's size, to whole windows. */
static size_t map_len(const dp_window *w)
{
	return (w->size + dp_win_bytes(w) - 1) & ~(dp_win_bytes(w) - 1);
}

/* Window k is the file's pages again (its buffer was moved away). */
static void map_file(dp_window *w, size_t k)
{
	if (mmap(w->map + k * dp_win_bytes(w), dp_win_bytes(w), PROT_READ, MAP_PRIVATE | MAP_FIXED,
		 w->fd, (off_t)(k * dp_win_bytes(w))) == MAP_FAILED) {
		/* a hole in the mapping would fault at the next read */
		fprintf(stderr, "dataprof: out of memory mapping the profile: %s\n",
			strerror(errno));
		abort();
	}
}

/* The pages of from, moved to to. The place they leave stays mapped (empty
 * anonymous memory) until the caller maps there what belongs: never a
 * hole, which another thread's mmap could take in between. */
static bool move(uint8_t *from, uint8_t *to, size_t n)
{
	return mremap(from, n, n, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, to) !=
	       MAP_FAILED;
}

/* Slot i's buffer, back at its home. */
static void go_home(dp_window *w, int i)
{
	struct dp_win_slot *s = &w->slot[i];

	if (!move(w->map + s->at * dp_win_bytes(w), w->home + (size_t)i * dp_win_bytes(w),
		  dp_win_bytes(w))) {
		/* the buffer stays where it is: the file's bytes are in it */
		return;
	}
	map_file(w, s->at);
	if (w->cur == s->at)
		w->cur = SIZE_MAX;
	s->at = SIZE_MAX;
}

static bool read_all(int fd, uint8_t *to, size_t n, size_t off)
{
	while (n) {
		ssize_t got = pread(fd, to, n, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		to += got, off += (size_t)got, n -= (size_t)got;
	}
	return true;
}

/* Slot i's buffer over window k, filled from the file. */
static bool move_in(dp_window *w, int i, size_t k)
{
	struct dp_win_slot *s = &w->slot[i];
	uint8_t *from = s->at == SIZE_MAX ? w->home + (size_t)i * dp_win_bytes(w)
					  : w->map + s->at * dp_win_bytes(w);
	uint8_t *to = w->map + k * dp_win_bytes(w);
	size_t n = w->size - k * dp_win_bytes(w) < dp_win_bytes(w) ? w->size - k * dp_win_bytes(w)
								   : dp_win_bytes(w);

	if (!move(from, to, dp_win_bytes(w)))
		return false;
	if (s->at != SIZE_MAX)
		map_file(w, s->at); /* its home stays, empty, for dp_win_forget */
	s->at = SIZE_MAX;
	if (!read_all(w->fd, to, n, k * dp_win_bytes(w))) {
		/* the buffer is lost: the file's pages again */
		map_file(w, k);
		return false;
	}
	s->at = k;
	w->fills++;
	return true;
}

/* The bytes of window k in a populated mapping (the file's, to a page). */
static size_t populated_len(const dp_window *w, size_t k)
{
	size_t end = (w->size + PAGE - 1) & ~(size_t)(PAGE - 1), at = k * dp_win_bytes(w);

	return end - at < dp_win_bytes(w) ? end - at : dp_win_bytes(w);
}

/* Slot i over window k, populated: the window it held goes back to faults
 * (its pages the file's still: a pointer kept there reads them again), so
 * that memory holds a few windows of the file however it is read. */
static void populate_in(dp_window *w, int i, size_t k)
{
	struct dp_win_slot *s = &w->slot[i];

	if (s->at != SIZE_MAX)
		madvise(w->map + s->at * dp_win_bytes(w), populated_len(w, s->at), MADV_DONTNEED);
	/* (where the kernel maps nothing now, the reads fault the pages in) */
	madvise(w->map + k * dp_win_bytes(w), populated_len(w, k), MADV_POPULATE_READ);
	s->at = k;
	w->fills++;
}

/* The slot for window k, never one holding a window in [lo, hi]: the one
 * that holds k (*have), else a free one, else the least recently used. */
static int slot_for(const dp_window *w, size_t k, size_t lo, size_t hi, bool *have)
{
	int best = -1;

	*have = false;
	for (int i = 0; i < DP_WIN_SLOTS; i++)
		if (w->slot[i].at == k) {
			*have = true;
			return i;
		}
	for (int i = 0; i < DP_WIN_SLOTS; i++) {
		size_t at = w->slot[i].at;

		if (at == SIZE_MAX)
			return i;
		if ((at < lo || at > hi) && (best < 0 || w->slot[i].used < w->slot[best].used))
			best = i;
	}
	return best;
}

void dp_win_fill(dp_window *w, size_t off, size_t len)
{
	size_t lo, hi;

	if (!len || off >= w->size)
		return;
	if (len > w->size - off)
		len = w->size - off;
	lo = off >> w->shift;
	hi = (off + len - 1) >> w->shift;
	if (hi - lo >= DP_WIN_SLOTS)
		hi = lo + DP_WIN_SLOTS - 1; /* the rest read as the file's pages */
	for (size_t k = lo; k <= hi; k++) {
		bool have;
		int i = slot_for(w, k, lo, hi, &have);

		if (i < 0)
			return;
		if (!have && w->populate) {
			populate_in(w, i, k);
		} else if (!have && !move_in(w, i, k)) {
			/* (a kernel before 5.7 cannot move and keep the place:
			 * every window would fail alike) the file's pages, plainly */
			dp_win_off(w);
			return;
		}
		w->slot[i].used = ++w->clock;
	}
	w->cur = hi;
}

void dp_win_forget(dp_window *w, size_t lo, size_t hi)
{
	if (w->fd < 0 && !w->populate)
		return;
	for (int i = 0; i < DP_WIN_SLOTS; i++) {
		size_t at = w->slot[i].at;

		if (at == SIZE_MAX || at * dp_win_bytes(w) >= hi ||
		    (at + 1) * dp_win_bytes(w) <= lo)
			continue;
		if (w->populate) {
			/* all of it: the caller gives back only [lo, hi), and
			 * the rest would stay mapped, untracked */
			madvise(w->map + at * dp_win_bytes(w), populated_len(w, at), MADV_DONTNEED);
			w->slot[i].at = SIZE_MAX;
			if (w->cur == at)
				w->cur = SIZE_MAX;
		} else {
			go_home(w, i);
		}
	}
}

void dp_win_off(dp_window *w)
{
	size_t pages;

	w->populate = false;
	if (w->fd < 0)
		return;
	dp_win_forget(w, 0, map_len(w));
	munmap(w->home, DP_WIN_SLOTS * dp_win_bytes(w));
	pages = (w->size + PAGE - 1) / PAGE * PAGE;
	if (map_len(w) > pages)
		munmap(w->map + pages, map_len(w) - pages);
	close(w->fd);
	w->fd = -1;
}
