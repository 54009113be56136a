/* The source files annotate shows, found where DWARF says they were
 * compiled, or under --source-dir with --prefix-strip leading components
 * dropped (a tree that moved); each read once. */
#ifndef DP_SV_SOURCE_H
#define DP_SV_SOURCE_H

#include <stddef.h>

typedef struct dp_sv_sources dp_sv_sources;

dp_sv_sources *dp_sv_sources_new(const char *source_dir, unsigned prefix_strip);
void dp_sv_sources_free(dp_sv_sources *s);
/* Line n (from 1) of the file DWARF names path, without its newline, into
 * *text and *len; false when the file cannot be read or is shorter, with *why
 * (the path tried and the reason; static until the next call). */
bool dp_sv_source_line(dp_sv_sources *s, const char *path, unsigned n, const char **text,
		       size_t *len, const char **why);

#endif
