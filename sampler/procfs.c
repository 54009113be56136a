#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *dp_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	dp_buf b = {0};

	if (fd < 0)
		return NULL;
	for (;;) {
		dp_buf_reserve(&b, 4096);
		ssize_t n = read(fd, b.p + b.len, b.cap - b.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		b.len += (size_t)n;
		b.p[b.len] = 0;
	}
	close(fd);
	if (!b.p)
		b.p = dp_strdup("");
	if (len)
		*len = b.len;
	return b.p;
}

int dp_online_cpus(dp_int_vec *out)
{
	char *s = dp_read_file("/sys/devices/system/cpu/online", NULL), *p;

	out->n = 0;
	if (!s) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		for (int i = 0; i < n; i++)
			dp_vec_push(out, i);
		return out->n ? 0 : -1;
	}
	for (p = s; *p && *p != '\n';) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long i = a; i <= b; i++)
			dp_vec_push(out, (int)i);
		p = *end == ',' ? end + 1 : end;
	}
	free(s);
	return out->n ? 0 : -1;
}

int dp_process_threads(pid_t pid, dp_int_vec *out)
{
	char path[64];
	DIR *d;
	struct dirent *de;

	out->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *end;
		long t = strtol(de->d_name, &end, 10);

		if (*end == 0 && t > 0)
			dp_vec_push(out, (int)t);
	}
	closedir(d);
	return out->n ? 0 : -1;
}

void dp_cpu_model(char *out, size_t len)
{
	char *s = dp_read_file("/proc/cpuinfo", NULL), *p;

	snprintf(out, len, "unknown");
	if (!s)
		return;
	p = strstr(s, "model name");
	if (p && (p = strchr(p, ':'))) {
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
	}
	free(s);
}
