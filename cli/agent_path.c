/* Where the libraries dataprof puts into a target live: next to the
 * dataprof binary in a build tree, or once installed in lib/dataprof (or
 * lib/<triplet>/dataprof), at DATAPROF_AGENT_RELDIR from the binary: the
 * path is relative, so the tree works under any prefix. */
#include "cli.h"
#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *cli_agent_library(const char *name)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *dirs[] = {"", "/" DATAPROF_AGENT_RELDIR};

	if (n <= 0)
		return NULL;
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	for (size_t i = 0; i < DP_ARRAY_LEN(dirs); i++) {
		char *p = dp_asprintf("%s%s/%s", exe, dirs[i], name);

		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}
