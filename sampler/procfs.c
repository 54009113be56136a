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

bool dp_parse_cpu_list(const char *text, dp_int_vec *out)
{
	const char *p = text;

	out->n = 0;
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				goto bad;
		}
		if (b > 65535)
			goto bad;
		for (long i = a; i <= b; i++)
			dp_vec_push(out, (int)i);
		if (*end != ',' && *end && *end != '\n')
			goto bad;
		p = *end == ',' ? end + 1 : end;
	}
	if (out->n)
		return true;
bad:
	out->n = 0;
	return false;
}

int dp_online_cpus(dp_int_vec *out)
{
	char *s = dp_read_file("/sys/devices/system/cpu/online", NULL);

	out->n = 0;
	if (!s) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		for (int i = 0; i < n; i++)
			dp_vec_push(out, i);
		return out->n ? 0 : -1;
	}
	dp_parse_cpu_list(s, out);
	free(s);
	return out->n ? 0 : -1;
}

int dp_perf_paranoid(int fallback)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = fallback;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = fallback;
		fclose(f);
	}
	return v;
}

int dp_all_processes(dp_int_vec *out)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	out->n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (pid > 0 && !*end)
			dp_vec_push(out, (int)pid);
	}
	closedir(d);
	return 0;
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
