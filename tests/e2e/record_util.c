#include "record_util.h"
#include "../unit/synth_records.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dataprof/format.h"

#include "tu_feature.h"
#include "util.h"

int rec_run(tu_result *res, const char *profile, const char *opts, const char *cmd)
{
	int rc;

	/* an event this machine does not deliver: the test should have skipped */
	tu_check_events(opts);
	/* Rings of 4 MiB a CPU (an -m in opts still wins): the tests count
	 * samples against the fixtures' truth, and the default 512 KiB, perf's,
	 * fills on a busy 2-CPU machine in a burst of page faults (a fixture
	 * faults 8,000 pages in a few ms) before the recorder is scheduled: the
	 * samples lost then would fail them. Without the privilege to lock that
	 * much (perf_event_mlock_kb), the default. */
	rc = tu_sh(res, "'%s' record -q -o '%s' %s %s -- %s", DATAPROF_BIN, profile,
		   geteuid() == 0 ? "-m 1024" : "", opts, cmd);

	if (rc != 0)
		fprintf(stderr, "record exited %d: %s\n", rc, res->err);
	return rc;
}

size_t rec_each(const char *profile, rec_record_fn fn, void *ctx)
{
	dp_error err = {{0}};
	dp_profile *p = dp_profile_open(profile, &err);
	dp_record r;
	int rc;

	if (!p)
		fail_msg("%s", err.msg);
	while ((rc = dp_profile_next(p, &r)) > 0)
		if (fn)
			fn(ctx, &r);
	assert_int_equal(rc, 0);
	size_t n = dp_profile_status(p)->samples;
	dp_profile_close(p);
	return n;
}

typedef struct id_hits_ctx {
	rec_id_hits *out;
	const tu_truth *t;
	size_t n;
	const char *kind;
	bool by_tid, by_addr;
} id_hits_ctx;

static void id_hits_visit(void *ctx, const dp_record *r)
{
	id_hits_ctx *c = ctx;

	if (r->kind == DP_R_FORK) {
		c->out->forks++;
		c->out->children += r->task.pid != r->task.ppid;
	}
	if (r->kind != DP_R_SAMPLE)
		return;
	for (size_t i = 0; i < c->n; i++) {
		const tu_truth *t = &c->t[i];
		uint64_t want = tu_truth_u64(t, c->by_tid ? "tid" : "pid");

		if (strcmp(t->kind, c->kind) || !want ||
		    want != (c->by_tid ? r->sample->tid : r->sample->pid))
			continue;
		if (!c->by_addr || tu_truth_u64(t, "addr") == r->sample->addr)
			c->out->hits[i]++;
	}
}

void rec_count_id_hits(rec_id_hits *out, const char *profile, const tu_truth *t, size_t n,
		       const char *kind, const char *key, bool by_addr)
{
	id_hits_ctx c = {out, t, n, kind, !strcmp(key, "tid"), by_addr};

	memset(out, 0, sizeof(*out));
	out->hits = calloc(n ? n : 1, sizeof(*out->hits));
	rec_each(profile, id_hits_visit, &c);
}

pid_t rec_start(char **argv, const char *out)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		if (!freopen(out, "w", stdout)) /* fortify: the result is checked */
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

void rec_fixture_truth(rec_truth_run *r, const char *fixture, const char *args, const char *opts,
		       const char *name)
{
	char *fx = tu_fixture(fixture), *cmd = dp_asprintf("'%s' %s", fx, args);

	r->profile = tu_path(name);
	assert_int_equal(rec_run(&r->res, r->profile, opts, cmd), 0);
	r->n = tu_truth_parse(r->res.out, &r->t);
	free(cmd);
	free(fx);
}

void rec_truth_run_free(rec_truth_run *r)
{
	free(r->profile);
	tu_result_free(&r->res);
	free(r->t);
}

char *rec_fixture(const char *fixture, const char *args, const char *opts, const char *name)
{
	rec_truth_run r;
	char *out;

	rec_fixture_truth(&r, fixture, args, opts, name);
	out = r.profile;
	r.profile = NULL;
	rec_truth_run_free(&r);
	return out;
}

void rec_expect_output(const char *want, const char *fmt, ...)
{
	tu_result res;
	char *args;

	REC_VFORMAT(args, fmt);
	tu_sh(&res, "'%s' %s", DATAPROF_BIN, args);
	if (res.status != 0 || !strstr(res.out, want))
		fail_msg("%s: exit %d (want 0), stdout '%s' (want '%s')", args, res.status, res.out,
			 want);
	tu_result_free(&res);
	free(args);
}

void rec_expect_error(unsigned how, const char *want, const char *fmt, ...)
{
	tu_result res;
	char *args;

	REC_VFORMAT(args, fmt);
	tu_sh(&res, "cd '%s' && '%s' %s", how & REC_ERR_TMPDIR ? tu_tmpdir() : ".", DATAPROF_BIN,
	      args);
	const char *nl = strchr(res.err, '\n');
	bool refused = how & REC_ERR_USAGE
			   ? res.status == 1 || res.status == 2
			   : res.status != 0 && !(how & REC_ERR_NOT3 && res.status == 3);
	bool one_line = how & REC_ERR_EOL ? nl && !nl[1] : nl == strrchr(res.err, '\n');
	if (!refused || !strstr(res.err, want) || !one_line)
		fail_msg("%s: exit %d, stderr '%s' (want one line with '%s')", args, res.status,
			 res.err, want);
	tu_result_free(&res);
	free(args);
}

void rec_expect_exit(int status, const char *want, const char *fmt, ...)
{
	tu_result res;
	char *cmd;

	REC_VFORMAT(cmd, fmt);
	tu_sh(&res, "cd '%s' && %s", tu_tmpdir(), cmd);
	if (res.status != status || !strstr(res.err, want))
		fail_msg("%s: exit %d (want %d), stderr '%s' (want '%s')", cmd, res.status, status,
			 res.err, want);
	/* one line */
	assert_non_null(strchr(res.err, '\n'));
	assert_null(strchr(strchr(res.err, '\n') + 1, '\n'));
	tu_result_free(&res);
	free(cmd);
}

size_t rec_fixture_list(const char *fixture, tu_truth **t)
{
	char *fx = tu_fixture(fixture);
	char *argv[] = {fx, "--list", NULL};
	tu_result res;
	size_t n;

	assert_int_equal(tu_run(argv, &res), 0);
	n = tu_truth_parse(res.out, t);
	tu_result_free(&res);
	free(fx);
	return n;
}

void rec_write_exec_mmap(dp_writer *w, uint32_t pid, uint64_t start, uint64_t len, const char *path,
			 uint64_t id)
{
	struct {
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t id;
	} trailer = {pid, pid, 100, 0, 0, id};
	dp_buf b = {0};

	synth_exec_mmap2(&b, pid, start, len, path);
	dp_buf_add(&b, &trailer, sizeof(trailer));
	((struct perf_event_header *)b.p)->size = (uint16_t)b.len;
	dp_writer_add(w, b.p, b.len);
	dp_buf_free(&b);
}

void rec_copy_tagged(const char *src, const char *dst, const char *key, const char *value)
{
	size_t len, hdr, klen = strlen(key) + 1, vlen = strlen(value) + 1;
	uint32_t size = (uint32_t)DP_ALIGN(8 + klen + vlen, 8);
	char *data, *rec = calloc(1, size);
	FILE *in = fopen(src, "rb"), *out;
	struct {
		uint32_t type;
		uint16_t misc, size;
	} h = {DP_REC_META, 0, (uint16_t)size};

	if (!in || !rec)
		fail_msg("cannot read %s", src);
	fseek(in, 0, SEEK_END);
	len = (size_t)ftell(in);
	rewind(in);
	data = malloc(len ? len : 1);
	if (!data || len < DP_FILE_HEADER_SIZE || fread(data, 1, len, in) != len)
		fail_msg("%s: not a profile", src);
	fclose(in);
	hdr = ((const struct dp_file_header *)data)->header_size;
	if (hdr < DP_FILE_HEADER_SIZE || hdr > len)
		fail_msg("%s: not a profile", src);
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, key, klen);
	memcpy(rec + 8 + klen, value, vlen);
	if (!(out = fopen(dst, "wb")))
		fail_msg("cannot write %s", dst);
	/* META records come first, before any kernel record: right after the header */
	fwrite(data, 1, hdr, out);
	fwrite(rec, 1, size, out);
	fwrite(data + hdr, 1, len - hdr, out);
	if (fclose(out) != 0)
		fail_msg("cannot write %s", dst);
	free(data);
	free(rec);
}

bool rec_have_sim(const char **why)
{
	char *dir = dp_strdup(DATAPROF_BIN), *tool;
	bool ok;

	*strrchr(dir, '/') = 0;
	tool = dp_asprintf("%s/valgrind/dpsim-amd64-linux", dir);
	ok = access(tool, X_OK) == 0;
	*why = ok ? NULL : "dataprof was built without its Valgrind tool (DATAPROF_SIM)";
	free(tool);
	free(dir);
	if (ok && system("valgrind --version >/dev/null 2>&1") != 0) {
		*why = "valgrind is not installed";
		ok = false;
	}
	return ok;
}

unsigned long rec_csv_samples(const char *csv, const char *key)
{
	char *copy = dp_strdup(csv), *save = NULL;
	unsigned long n = 0;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char k[256];
		unsigned long v;

		if (sscanf(l, "1,%255[^,],%lu,", k, &v) == 2 && !strcmp(k, key))
			n = v;
	}
	free(copy);
	return n;
}

typedef struct pf_ctx {
	tu_truth *truth;
	size_t ntruth;
	uint64_t region, region_size;
	bool *seen;
	uint64_t text_lo, text_hi; /* the fixture's executable mapping */
	bool maps_pass;
	rec_pf_result *r;
} pf_ctx;

static void pf_visit(void *ctx, const dp_record *r)
{
	pf_ctx *c = ctx;
	const dp_sample *s;

	if (r->kind == DP_R_MMAP && r->mmap.exec && strstr(r->mmap.filename, "pagetouch")) {
		c->text_lo = r->mmap.start;
		c->text_hi = r->mmap.start + r->mmap.len;
	}
	/* the mapping is found in a pass of its own: each CPU's ring is
	 * written in turn, so it can come after the samples in the file */
	if (r->kind != DP_R_SAMPLE || c->maps_pass)
		return;
	s = r->sample;
	if (s->addr < c->region || s->addr >= c->region + c->region_size)
		return;
	c->r->in_region++;
	c->r->decompressed += r->decompressed;
	if (s->ip >= c->text_lo && s->ip < c->text_hi)
		c->r->exact_ip++;
	for (size_t i = 0; i < c->ntruth; i++) {
		if (strcmp(c->truth[i].kind, "access") ||
		    tu_truth_u64(&c->truth[i], "addr") != s->addr)
			continue;
		c->r->matched += !c->seen[i];
		c->seen[i] = true;
		return;
	}
}

void rec_pf_check(const char *profile, const char *truth_text, rec_pf_result *out)
{
	pf_ctx c = {0};

	memset(out, 0, sizeof(*out));
	c.r = out;
	c.ntruth = tu_truth_parse(truth_text, &c.truth);
	for (size_t i = 0; i < c.ntruth; i++) {
		if (!strcmp(c.truth[i].kind, "region")) {
			c.region = tu_truth_u64(&c.truth[i], "start");
			c.region_size = tu_truth_u64(&c.truth[i], "size");
		}
		out->accesses += !strcmp(c.truth[i].kind, "access");
	}
	c.seen = calloc(c.ntruth + 1, 1);
	c.maps_pass = true;
	rec_each(profile, pf_visit, &c);
	c.maps_pass = false;
	rec_each(profile, pf_visit, &c);
	free(c.seen);
	free(c.truth);
}
