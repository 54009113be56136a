#include "privilege.h"
#include "procfs.h"

#include <errno.h>
#include <pwd.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void user_name(uid_t uid, char *out, size_t len)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		snprintf(out, len, "%s", pw->pw_name);
	else
		snprintf(out, len, "%u", (unsigned)uid);
}

bool dp_exec_resolve(const char *cmd, struct stat *sb)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(cmd, '/'))
		return stat(cmd, sb) == 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? path : ".", cmd);
		if (stat(buf, sb) == 0 && S_ISREG(sb->st_mode) && access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

bool dp_exec_gains_ids(const char *cmd, char *why, size_t len)
{
	struct stat sb;
	char name[64];

	if (!cmd || !dp_exec_resolve(cmd, &sb))
		return false;
	if ((sb.st_mode & S_ISUID) && sb.st_uid != geteuid()) {
		user_name(sb.st_uid, name, sizeof(name));
		snprintf(why, len, "set-user-ID (it runs as user %s)", name);
		return true;
	}
	if ((sb.st_mode & S_ISGID) && sb.st_gid != getegid()) {
		struct group *g = getgrgid(sb.st_gid);

		snprintf(why, len, "set-group-ID (it runs as group %s)",
			 g ? g->gr_name : "another group");
		return true;
	}
	return false;
}

/* The real and effective user IDs of pid, from /proc/PID/status. */
static bool process_uids(pid_t pid, uid_t *ruid, uid_t *euid)
{
	char path[64], *s, *u;
	unsigned r, e;
	bool ok = false;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	s = dp_read_file(path, NULL);
	if (s && (u = strstr(s, "\nUid:")) && sscanf(u + 5, "%u %u", &r, &e) == 2) {
		*ruid = r;
		*euid = e;
		ok = true;
	}
	free(s);
	return ok;
}

bool dp_process_foreign(pid_t pid, char *user, size_t len)
{
	uid_t ruid, euid;

	if (!process_uids(pid, &ruid, &euid) || (ruid == geteuid() && euid == geteuid()))
		return false;
	user_name(ruid != geteuid() ? ruid : euid, user, len);
	return true;
}

void dp_attach_error(pid_t pid, const dp_event_spec *e, int en, dp_error *err)
{
	uid_t ruid, euid;
	char name[64];

	if ((en == EACCES || en == EPERM) && geteuid() != 0 && process_uids(pid, &ruid, &euid)) {
		if (dp_process_foreign(pid, name, sizeof(name))) {
			dp_error_set(err,
				     "no permission to profile process %d: it is user %s's; "
				     "attaching needs that user, or root (CAP_PERFMON and "
				     "CAP_SYS_PTRACE)",
				     (int)pid, name);
			return;
		}
		if (e->attr.exclude_kernel) {
			dp_error_set(err,
				     "no permission to profile process %d: it is yours but not "
				     "dumpable (it changed IDs or called "
				     "prctl(PR_SET_DUMPABLE, 0)); attaching needs root "
				     "(CAP_PERFMON and CAP_SYS_PTRACE)",
				     (int)pid);
			return;
		}
	}
	dp_event_open_error(e, en, err);
}
