/* The page's files compiled in (cmake/embed.cmake writes the table from the
 * files under view/ that CMakeLists.txt names). */
#ifndef DP_VIEW_ASSETS_H
#define DP_VIEW_ASSETS_H

#include <stddef.h>

struct dp_asset {
	const char *name; /* the path under view/: "js/grid.js" */
	const unsigned char *data;
	size_t len;
};

/* Ends with a NULL name. */
extern const struct dp_asset dp_assets[];

#endif
