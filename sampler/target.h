/* Starting the profiled command: forked first, held until its events are
 * open, then exec'd (events are enabled at exec). */
#ifndef DP_TARGET_H
#define DP_TARGET_H

#include <sys/types.h>

#include "util.h"

typedef struct dp_target {
	pid_t pid;
	int go_fd;  /* write one byte: the child may exec */
	int err_fd; /* the child writes errno here if exec fails; EOF on success */
	int exec_errno; /* set when dp_target_go failed to exec */
} dp_target;

/* Forks; the child waits. env: extra "NAME=value" strings (may be NULL).
 * keep: nkeep descriptors the command inherits across exec (-1s ignored). */
int dp_target_fork(dp_target *t, char *const argv[], char *const env[], const int *keep,
		   size_t nkeep, dp_error *err);
/* Lets the child exec. Returns 0, or -1 (message in err) if exec failed, in
 * which case the child has been reaped. */
int dp_target_go(dp_target *t, const char *cmd, dp_error *err);
/* Finds cmd as execvp would (a path when it holds '/', else along PATH)
 * into path; returns 0, or the errno exec would fail with (ENOENT, EACCES)
 * with the same one-line message in err as dp_target_go's. */
int dp_target_find(const char *cmd, char *path, size_t len, dp_error *err);
/* Kills and reaps a child that never went. */
void dp_target_abort(dp_target *t);
/* The command's exit code from its wait status, as a shell gives it (128 +
 * the signal that ended it). */
int dp_target_exit_code(int status);

#endif
