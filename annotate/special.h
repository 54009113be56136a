/* Samples that are not the program's data accesses: dataprof's own code
 * running inside the program (the heap tracker, the markers' collector),
 * and samples taken while the thread was inside a system call. */
#ifndef DP_SPECIAL_H
#define DP_SPECIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../decode/image.h"

/* Whether code in the mapping named map_name (a path), or in the function
 * named function, is dataprof's: its agent libraries (libdataprof_*.so) or
 * the markers library linked into the program (dp_markers_*, dp_marker_*). */
bool dp_is_own_code(const char *map_name, const char *function);
/* Whether the function named function is a memory allocator's own code
 * (glibc's malloc and its internals, jemalloc, tcmalloc, mimalloc): what it
 * touches outside the program's live blocks is its bookkeeping. Not the
 * wrappers programs put around it (those are alloc_fns.h's). */
bool dp_is_allocator_code(const char *function);
/* Whether the instruction before ip_vaddr in im is `syscall`; if so, its
 * name ("write") into out: from the `mov $N, %eax` just before it, else from
 * the function holding it (__libc_write: "write"). */
bool dp_syscall_at(const dp_image *im, uint64_t ip_vaddr, const char *function, char *out,
		   size_t cap);

#endif
