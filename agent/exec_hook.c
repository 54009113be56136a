/* The exec family, in the heap tracker: an exec runs no destructor and
 * keeps no thread, so the calling thread's last batch of records would be
 * lost with the image. It goes out first, and the thread's ring goes back
 * to the recorder; should the exec fail, what the thread sends after goes
 * through the pipe. (Other threads' batches end with them, as at a crash.)
 * The variadic forms build their argument vector and go through the
 * vector forms, which call the next definition (libc's, or another
 * preloaded library's). */
#include <dlfcn.h>
#include <stdarg.h>
#include <unistd.h>

#include "channel.h"

typedef int (*exec_fn)(const char *, char *const[]);
typedef int (*exec_env_fn)(const char *, char *const[], char *const[]);
typedef int (*fexec_fn)(int, char *const[], char *const[]);

#define NEXT(type, name)                                                                           \
	__extension__({                                                                            \
		static type next_;                                                                 \
		if (!next_)                                                                        \
			next_ = (type)dlsym(RTLD_NEXT, name);                                      \
		dp_chan_before_exec();                                                             \
		next_;                                                                             \
	})

int execve(const char *path, char *const argv[], char *const envp[])
{
	return NEXT(exec_env_fn, "execve")(path, argv, envp);
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return NEXT(exec_env_fn, "execvpe")(file, argv, envp);
}

int execv(const char *path, char *const argv[])
{
	return NEXT(exec_fn, "execv")(path, argv);
}

int execvp(const char *file, char *const argv[])
{
	return NEXT(exec_fn, "execvp")(file, argv);
}

int fexecve(int fd, char *const argv[], char *const envp[])
{
	return NEXT(fexec_fn, "fexecve")(fd, argv, envp);
}

/* argv: arg and the arguments after it, up to and with the NULL, on the
 * caller's stack (an exec's arguments are few); ap_ is left after the NULL
 * (execle's envp is next), for the caller to end. */
#define ARGV_OF(argv, arg)                                                                         \
	size_t n_ = 1;                                                                             \
	va_list ap_;                                                                               \
	va_start(ap_, arg);                                                                        \
	while (va_arg(ap_, const char *))                                                          \
		n_++;                                                                              \
	va_end(ap_);                                                                               \
	char *argv[n_ + 1];                                                                        \
	va_start(ap_, arg);                                                                        \
	argv[0] = (char *)arg;                                                                     \
	for (size_t i_ = 1; i_ <= n_; i_++)                                                        \
	argv[i_] = va_arg(ap_, char *)

int execl(const char *path, const char *arg, ...)
{
	ARGV_OF(argv, arg);
	va_end(ap_);
	return execv(path, argv);
}

int execlp(const char *file, const char *arg, ...)
{
	ARGV_OF(argv, arg);
	va_end(ap_);
	return execvp(file, argv);
}

int execle(const char *path, const char *arg, ...)
{
	char **envp;

	ARGV_OF(argv, arg);
	envp = va_arg(ap_, char **);
	va_end(ap_);
	return execve(path, argv, envp);
}
