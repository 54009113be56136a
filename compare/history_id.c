/* What makes a run one run, and when its commit was made.
 *
 * A run's identity is the SHA-256 of its profile's bytes. A recording
 * holds when it began (the file header) and where (META), so two
 * recordings never share it: the same identity is the same file added
 * again -- a CI job retried, a glob that matched a file twice, two jobs
 * adding one artifact -- and the history keeps it once. Not the path (every
 * job writes run1.dprof), not the commit (a mistake to catch, not a new
 * run). A copy with one META value changed is another recording as far as
 * the history can tell, and is stored as one. */
#include "history.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void hex(const unsigned char *md, unsigned n, char out[65])
{
	for (unsigned i = 0; i < n && i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

void dp_history_sha256(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;

	EVP_Digest(data, len, md, &n, EVP_sha256(), NULL);
	hex(md, n, out);
}

int dp_history_identity(const char *path, char out[65], dp_error *err)
{
	unsigned char md[EVP_MAX_MD_SIZE], buf[1 << 16];
	EVP_MD_CTX *ctx;
	unsigned n = 0;
	ssize_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;

	if (fd < 0) {
		dp_error_set(err, "cannot read %s: %m", path);
		return -1;
	}
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		dp_error_set(err, "%s: SHA-256 is not available (OpenSSL)", path);
		goto out;
	}
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		EVP_DigestUpdate(ctx, buf, (size_t)got);
	if (got < 0) {
		dp_error_set(err, "cannot read %s: %m", path);
		goto out;
	}
	EVP_DigestFinal_ex(ctx, md, &n);
	hex(md, n, out);
	rc = 0;
out:
	EVP_MD_CTX_free(ctx);
	close(fd);
	return rc;
}

bool dp_history_time(const char *in, char *out, size_t len)
{
	struct tm tm;
	time_t t;
	const char *p;
	char *end;

	if (*in == '@' || (*in >= '0' && *in <= '9' && !strpbrk(in, "-:T "))) {
		long long v = strtoll(in + (*in == '@'), &end, 10);

		if (end == in + (*in == '@') || *end || v < 0)
			return false;
		t = (time_t)v;
	} else {
		long off = 0;

		memset(&tm, 0, sizeof(tm));
		p = strptime(in, "%Y-%m-%d", &tm);
		if (!p || (*p != 'T' && *p != ' '))
			return false;
		p = strptime(p + 1, "%H:%M:%S", &tm);
		if (!p)
			return false;
		if (*p == '.') /* fractions of a second: not kept */
			while (*++p >= '0' && *p <= '9')
				;
		if (*p == 'Z' && !p[1]) {
			off = 0;
		} else if ((*p == '+' || *p == '-') && strlen(p) >= 3) {
			int hh, mm = 0;

			if (sscanf(p + 1, "%2d:%2d", &hh, &mm) < 1 &&
			    sscanf(p + 1, "%2d%2d", &hh, &mm) < 1)
				return false;
			off = (hh * 60L + mm) * 60 * (*p == '-' ? -1 : 1);
		} else {
			return false;
		}
		t = timegm(&tm) - off;
	}
	if (!gmtime_r(&t, &tm))
		return false;
	return strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0;
}
