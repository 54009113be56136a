#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int dp_target_fork(dp_target *t, char *const argv[], char *const env[], const int *keep,
		   size_t nkeep, dp_error *err)
{
	int go[2], ex[2];

	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0) {
		dp_error_set(err, "cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	t->pid = fork();
	if (t->pid < 0) {
		dp_error_set(err, "cannot fork: %s", strerror(errno));
		return -1;
	}
	if (t->pid == 0) {
		sigset_t none;
		char c;
		int e;

		/* the recorder blocks signals for its signalfd; the target must not inherit that */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		close(go[1]);
		close(ex[0]);
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		for (size_t i = 0; env && env[i]; i++)
			putenv(env[i]);
		for (size_t i = 0; i < nkeep; i++)
			if (keep[i] >= 0)
				fcntl(keep[i], F_SETFD, 0);
		execvp(argv[0], argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	t->go_fd = go[1];
	t->err_fd = ex[0];
	return 0;
}

static void exec_error(dp_error *err, const char *cmd, int e)
{
	dp_error_set(err, "cannot execute '%s': %s%s", cmd, strerror(e),
		     e == ENOENT ? " (check the command name and PATH)" : "");
}

int dp_target_find(const char *cmd, char *path, size_t len, dp_error *err)
{
	const char *dirs = getenv("PATH");
	int e = ENOENT;

	if (!*cmd) {
		exec_error(err, cmd, ENOENT);
		return ENOENT;
	}
	if (strchr(cmd, '/')) {
		snprintf(path, len, "%s", cmd);
		e = access(path, X_OK) == 0 ? 0 : errno;
	} else {
		/* execvp's default PATH when none is set */
		for (const char *d = dirs ? dirs : "/bin:/usr/bin"; e && d;) {
			const char *end = strchr(d, ':');
			int n = end ? (int)(end - d) : (int)strlen(d);

			snprintf(path, len, "%.*s%s%s", n, d, n ? "/" : "", cmd);
			if (access(path, X_OK) == 0)
				e = 0;
			else if (errno == EACCES)
				e = EACCES; /* as execvp: kept unless found further on */
			d = end ? end + 1 : NULL;
		}
	}
	if (e)
		exec_error(err, cmd, e);
	return e;
}

int dp_target_go(dp_target *t, const char *cmd, dp_error *err)
{
	int e = 0;
	ssize_t n;

	if (write(t->go_fd, "g", 1) != 1) {
		dp_error_set(err, "cannot start '%s': %s", cmd, strerror(errno));
		close(t->go_fd);
		return -1;
	}
	close(t->go_fd);
	do
		n = read(t->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(t->err_fd);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(t->pid, NULL, 0);
		t->exec_errno = e;
		exec_error(err, cmd, e);
		return -1;
	}
	return 0;
}

void dp_target_abort(dp_target *t)
{
	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
		close(t->go_fd);
		close(t->err_fd);
		t->pid = 0;
	}
}

int dp_target_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}
