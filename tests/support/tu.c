#include "tu.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *tmpdir;

static char *slurp_fds(int ofd, int efd, char **err_out)
{
	size_t ol = 0, oc = 4096, el = 0, ec = 4096;
	char *o = malloc(oc), *e = malloc(ec);
	struct pollfd p[2] = {{ofd, POLLIN, 0}, {efd, POLLIN, 0}};
	int open_n = 2;

	while (open_n > 0) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char **buf = i ? &e : &o;
			size_t *len = i ? &el : &ol, *cap = i ? &ec : &oc;
			if (*cap - *len < 4096) {
				*cap *= 2;
				*buf = realloc(*buf, *cap);
			}
			ssize_t n = read(p[i].fd, *buf + *len, *cap - *len - 1);
			if (n <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
				open_n--;
			} else {
				*len += (size_t)n;
			}
		}
	}
	o[ol] = 0;
	e[el] = 0;
	*err_out = e;
	return o;
}

int tu_run(char *const argv[], tu_result *res)
{
	int op[2], ep[2], st;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (pipe(op) < 0 || pipe(ep) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(op[1], 1);
		dup2(ep[1], 2);
		close(op[0]);
		close(op[1]);
		close(ep[0]);
		close(ep[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot execute %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(op[1]);
	close(ep[1]);
	res->out = slurp_fds(op[0], ep[0], &res->err);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return res->status;
}

int tu_sh(tu_result *res, const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		abort();
	va_end(ap);
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	rc = tu_run(argv, res);
	free(cmd);
	return rc;
}

void tu_result_free(tu_result *res)
{
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
}

const char *tu_tmpdir(void)
{
	if (!tmpdir) {
		const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
		if (asprintf(&tmpdir, "%s/dataprof-test-XXXXXX", base) < 0 || !mkdtemp(tmpdir))
			abort();
	}
	return tmpdir;
}

char *tu_path(const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", tu_tmpdir(), name) < 0)
		abort();
	return p;
}

/* utime + stime of pid in clock ticks, or -1 when it is gone */
static long cpu_ticks(int pid)
{
	char path[64], buf[1024];
	unsigned long ut, st;
	FILE *f;
	char *p;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* after the command name, which may hold spaces: field 3 on */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (long)(ut + st);
}

long tu_wait_cpu(int pid, long ticks)
{
	long t0 = cpu_ticks(pid), t = t0;

	for (int i = 0; i < 1200 && t >= 0 && t - t0 < ticks; i++) {
		usleep(50 * 1000);
		t = cpu_ticks(pid);
	}
	return t < 0 ? -1 : t - t0;
}

int tu_wait_truth_pid(const char *out)
{
	for (;;) {
		tu_result res;
		tu_truth *t = NULL;
		int pid = -1;

		tu_sh(&res, "cat '%s'", out);
		for (size_t i = 0, n = tu_truth_parse(res.out, &t); i < n && pid < 0; i++)
			if (!strcmp(t[i].kind, "pid"))
				pid = (int)tu_truth_u64(&t[i], "pid");
		free(t);
		tu_result_free(&res);
		if (pid >= 0)
			return pid;
		usleep(20 * 1000);
	}
}

const char *tu_wait_cpu_script(void)
{
	static char *path;
	FILE *f;

	if (path)
		return path;
	path = tu_path("wait_cpu.sh");
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs("# sh wait_cpu.sh PID TICKS: until PID burned TICKS more ticks of CPU time\n"
	      "cpu() { awk '{ sub(/.*\\) /, \"\"); print $12 + $13 }' /proc/$1/stat 2>/dev/null || echo -1; }\n"
	      "t0=$(cpu $1); i=0\n"
	      "while [ \"$(cpu $1)\" -ge 0 ] && [ $(($(cpu $1) - t0)) -lt $2 ] && [ $i -lt 1200 ]; do\n"
	      "\tsleep 0.05; i=$((i + 1))\n"
	      "done\n",
	      f);
	fclose(f);
	return path;
}

void tu_cleanup(void)
{
	if (tmpdir && !getenv("DATAPROF_KEEP_TEST_FILES")) {
		char *cmd;
		if (asprintf(&cmd, "rm -rf '%s'", tmpdir) >= 0) {
			if (system(cmd) != 0)
				fprintf(stderr, "could not remove %s\n", tmpdir);
			free(cmd);
		}
	}
	free(tmpdir);
	tmpdir = NULL;
}

/* TRUTH kind key=value key="value with spaces" ... */
static void parse_truth_line(const char *p, const char *end, tu_truth *t)
{
	size_t k = 0;

	memset(t, 0, sizeof(*t));
	while (p < end && *p != ' ' && k + 1 < sizeof(t->kind))
		t->kind[k++] = *p++;
	while (p < end && t->n < 16) {
		while (p < end && *p == ' ')
			p++;
		const char *eq = memchr(p, '=', (size_t)(end - p));
		if (!eq)
			break;
		snprintf(t->key[t->n], sizeof(t->key[0]), "%.*s", (int)(eq - p), p);
		p = eq + 1;
		const char *v = p, *ve;
		if (*p == '"') {
			v = ++p;
			ve = memchr(p, '"', (size_t)(end - p));
			if (!ve)
				ve = end;
			p = ve < end ? ve + 1 : end;
		} else {
			ve = memchr(p, ' ', (size_t)(end - p));
			if (!ve)
				ve = end;
			p = ve;
		}
		snprintf(t->val[t->n], sizeof(t->val[0]), "%.*s", (int)(ve - v), v);
		t->n++;
	}
}

size_t tu_truth_parse(const char *text, tu_truth **out)
{
	size_t n = 0, cap = 16;
	tu_truth *v = calloc(cap, sizeof(*v));
	const char *line = text;

	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);

		if (len > 6 && !strncmp(line, "TRUTH ", 6)) {
			if (n == cap) {
				cap *= 2;
				v = realloc(v, cap * sizeof(*v));
			}
			parse_truth_line(line + 6, line + len, &v[n++]);
		}
		line = eol ? eol + 1 : NULL;
	}
	*out = v;
	return n;
}

const char *tu_truth_get(const tu_truth *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->key[i], key))
			return t->val[i];
	return NULL;
}

uint64_t tu_truth_u64(const tu_truth *t, const char *key)
{
	const char *v = tu_truth_get(t, key);
	return v ? strtoull(v, NULL, 0) : 0;
}

uint64_t tu_elf_symbol(const char *path, const char *name, uint64_t *size)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	uint64_t addr = 0;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn)) && !addr) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s))
				continue;
			n = elf_strptr(e, sh.sh_link, s.st_name);
			if (n && !strcmp(n, name)) {
				addr = s.st_value;
				if (size)
					*size = s.st_size;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return addr;
}

char *tu_fixture(const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", FIXTURE_DIR, name) < 0)
		abort();
	return p;
}

char *tu_data_path(const char *rel)
{
	char *p;

	if (asprintf(&p, "%s/%s", DATA_DIR, rel) < 0)
		abort();
	return p;
}

char *tu_file_read(const char *path, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0, n = 0, got;
	FILE *f = fopen(path, "rb");

	if (!f)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap ? 2 * cap : 1u << 20;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

char *tu_data_read(const char *rel, size_t *len)
{
	char *path = tu_data_path(rel), *buf = tu_file_read(path, len);

	if (!buf)
		fail_msg("test input %s: %s (inputs live in tests/data; see its README.md)", path,
			 strerror(errno));
	free(path);
	return buf;
}

void tu_report_accuracy(const char *what, size_t tp, size_t claimed, size_t relevant)
{
	double prec = claimed ? 100.0 * (double)tp / (double)claimed : 100.0;
	double rec = relevant ? 100.0 * (double)tp / (double)relevant : 100.0;

	printf("ACCURACY %s: precision %.1f%% (%zu/%zu) recall %.1f%% (%zu/%zu)\n", what, prec, tp,
	       claimed, rec, tp, relevant);
	fflush(stdout);
}

void tu_assert_contains(const char *text, ...)
{
	va_list ap;
	const char *want;

	va_start(ap, text);
	while ((want = va_arg(ap, const char *)))
		if (!text || !strstr(text, want)) {
			va_end(ap);
			fail_msg("'%s' not in:\n%s", want, text ? text : "(null)");
		}
	va_end(ap);
}
