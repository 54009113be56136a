/* What the kernel will not let this user profile, said before or instead
 * of a bare EACCES: another user's process (-p), and a command that gains
 * privileges when it starts (set-user-ID or set-group-ID to someone else),
 * whose events the kernel closes at exec. dataprof asks for no privilege
 * itself: it has what the kernel gives the user running it. */
#ifndef DP_PRIVILEGE_H
#define DP_PRIVILEGE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "event_spec.h"
#include "util.h"

/* The file execvp would run for cmd (PATH searched when cmd has no '/'):
 * true with *sb its status, false when there is none. */
bool dp_exec_resolve(const char *cmd, struct stat *sb);
/* Whether exec'ing cmd (looked up in PATH as execvp does) changes the
 * user or group IDs; why gets "set-user-ID (user nobody)". */
bool dp_exec_gains_ids(const char *cmd, char *why, size_t len);

/* Whether pid runs as another user than us; user gets its name. */
bool dp_process_foreign(pid_t pid, char *user, size_t len);

/* The error of opening event e on process pid (-p) with errno en: when the
 * process is another user's, or not dumpable, says so and what is needed;
 * otherwise the event's own error (dp_event_open_error). */
void dp_attach_error(pid_t pid, const dp_event_spec *e, int en, dp_error *err);

#endif
