/* Running a command under dataprof's Valgrind tool (sim/dpsim_main.c) and
 * writing what the tool sends into a raw profile: the header and EVENT
 * records from here, then the tool's records (SAMPLE, MMAP2, COMM, FORK,
 * ALLOC, FREE, META totals) as they come through a pipe, then FINISH. */
#include "sim_events.h"
#include "privilege.h"
#include "procfs.h"
#include "recorder.h"
#include "target.h"
#include "heap_pack.h"
#include "../profile/writer.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef DATAPROF_VERSION
#define DATAPROF_VERSION "0"
#endif

#define SIM_SAMPLE_TYPE                                                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER |         \
	 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)

uint64_t dp_sim_default_period(int kind)
{
	switch (kind) {
	case DPS_INSTRUCTIONS:
		return 100000;
	case DPS_LOADS:
	case DPS_STORES:
	case DPS_MEM:
		return 10000;
	default:
		return 1000;
	}
}

bool dp_sim_have_valgrind(void)
{
	struct stat sb;

	return dp_exec_resolve("valgrind", &sb);
}

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1; /* the command got it too (same terminal): we read on to its end */
}

typedef DP_VEC(char *) str_vec;

static void build_argv(const dp_sim_opts *o, int fd, uint64_t t0, str_vec *av)
{
	const dp_sim_geometry *g = &o->geo;

	dp_vec_push(av, dp_strdup("valgrind"));
	dp_vec_push(av, dp_strdup(o->heap ? "--tool=" DPS_TOOL_HEAP : "--tool=" DPS_TOOL_NAME));
	dp_vec_push(av, dp_strdup("-q"));
	dp_vec_push(av, dp_strdup("--trace-children=yes"));
	dp_vec_push(av, dp_asprintf("--dp-fd=%d", fd));
	dp_vec_push(av, dp_asprintf("--dp-t0=%llu", (unsigned long long)t0));
	if (o->real_clock)
		dp_vec_push(av, dp_strdup("--dp-clock=real"));
	dp_vec_push(av, dp_asprintf("--dp-l1d=%llu,%llu,%llu", (unsigned long long)g->l1d[0],
				    (unsigned long long)g->l1d[1], (unsigned long long)g->l1d[2]));
	dp_vec_push(av, dp_asprintf("--dp-l2=%llu,%llu,%llu", (unsigned long long)g->l2[0],
				    (unsigned long long)g->l2[1], (unsigned long long)g->l2[2]));
	dp_vec_push(av, dp_asprintf("--dp-llc=%llu,%llu,%llu", (unsigned long long)g->llc[0],
				    (unsigned long long)g->llc[1], (unsigned long long)g->llc[2]));
	dp_vec_push(av, dp_asprintf("--dp-dtlb=%llu,%llu", (unsigned long long)g->dtlb[0],
				    (unsigned long long)g->dtlb[1]));
	dp_vec_push(av,
		    dp_asprintf("--dp-lat=%llu,%llu,%llu,%llu,%llu", (unsigned long long)g->lat[0],
				(unsigned long long)g->lat[1], (unsigned long long)g->lat[2],
				(unsigned long long)g->lat[3], (unsigned long long)g->lat[4]));
	if (o->skid)
		dp_vec_push(av, dp_asprintf("--dp-skid=%llu", (unsigned long long)o->skid));
	if (o->heap) {
		dp_vec_push(av, dp_strdup("--dp-heap=yes"));
		dp_vec_push(av,
			    dp_asprintf("--dp-heap-depth=%llu",
					(unsigned long long)(o->heap_depth ? o->heap_depth : 1)));
	}
	for (size_t i = 0; i < o->nevents; i++) {
		const dp_event_spec *e = &o->events[i];
		uint64_t period = e->has_period ? e->attr.sample_period
				  : o->period	? o->period
						: dp_sim_default_period(e->sim_kind);

		dp_vec_push(av, dp_asprintf("--dp-event=%d,%llu,%llu,%llu,%llu", e->sim_kind,
					    (unsigned long long)(o->count_only ? 0 : period),
					    (unsigned long long)(DPS_ID_BASE + i),
					    (unsigned long long)e->attr.config1,
					    (unsigned long long)e->attr.config2));
	}
	dp_vec_push(av, dp_strdup("--"));
	for (size_t i = 0; o->argv[i]; i++)
		dp_vec_push(av, dp_strdup(o->argv[i]));
	dp_vec_push(av, NULL);
}

static void write_meta(dp_writer *w, const dp_sim_opts *o)
{
	const dp_sim_geometry *g = &o->geo;
	struct utsname u;
	char cpu[256], buf[256];
	dp_buf cmd = {0};
	dp_int_vec cpus = {0};

	dp_writer_add_meta(w, "version", DATAPROF_VERSION);
	dp_writer_add_meta(w, "cmdline", o->cmdline ? o->cmdline : "");
	for (size_t i = 0; o->argv[i]; i++)
		dp_buf_printf(&cmd, "%s%s", i ? " " : "", o->argv[i]);
	dp_writer_add_meta(w, "command", cmd.p ? cmd.p : "");
	dp_buf_free(&cmd);
	if (uname(&u) == 0) {
		dp_writer_add_meta(w, "hostname", u.nodename);
		dp_writer_add_meta(w, "kernel", u.release);
		dp_writer_add_meta(w, "arch", u.machine);
	}
	dp_cpu_model(cpu, sizeof(cpu));
	dp_writer_add_meta(w, "cpu", cpu);
	if (dp_online_cpus(&cpus) == 0) {
		snprintf(buf, sizeof(buf), "%zu", cpus.n);
		dp_writer_add_meta(w, "ncpus", buf);
	}
	dp_vec_free(&cpus);
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_PAGESIZE));
	dp_writer_add_meta(w, "page_size", buf);
	dp_writer_add_meta(w, "clock", "simulated");
	dp_writer_add_meta(w, "hw_pmu", "simulated");
	snprintf(buf, sizeof(buf),
		 "l1d=%llu:%llu:%llu,l2=%llu:%llu:%llu,llc=%llu:%llu:%llu,dtlb=%llu:%llu,"
		 "lat=%llu:%llu:%llu:%llu:%llu",
		 (unsigned long long)g->l1d[0], (unsigned long long)g->l1d[1],
		 (unsigned long long)g->l1d[2], (unsigned long long)g->l2[0],
		 (unsigned long long)g->l2[1], (unsigned long long)g->l2[2],
		 (unsigned long long)g->llc[0], (unsigned long long)g->llc[1],
		 (unsigned long long)g->llc[2], (unsigned long long)g->dtlb[0],
		 (unsigned long long)g->dtlb[1], (unsigned long long)g->lat[0],
		 (unsigned long long)g->lat[1], (unsigned long long)g->lat[2],
		 (unsigned long long)g->lat[3], (unsigned long long)g->lat[4]);
	dp_writer_add_meta(w, "sim_cache", buf);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o->skid);
	dp_writer_add_meta(w, "sim_skid", buf);
}

static void write_events(dp_writer *w, const dp_sim_opts *o)
{
	for (size_t i = 0; i < o->nevents; i++) {
		const dp_event_spec *e = &o->events[i];
		struct perf_event_attr a = e->attr;
		uint64_t id = DPS_ID_BASE + i;

		a.size = sizeof(a);
		a.sample_type = SIM_SAMPLE_TYPE;
		a.sample_regs_user = DP_X86_REGS_MASK;
		a.sample_id_all =
		    1; /* the tool ends MMAP2, COMM and FORK with TID TIME CPU IDENTIFIER */
		a.freq = 0;
		if (!e->has_period)
			a.sample_period =
			    o->period ? o->period : dp_sim_default_period(e->sim_kind);
		/* --sim-skid: what a skidding PMU gives, the IP after the cause and no
		 * address; the truth follows each sample (DP_REC_SIM_TRUTH) */
		if (o->skid)
			a.sample_type &= ~(uint64_t)PERF_SAMPLE_ADDR;
		dp_writer_add_event(w, (uint32_t)i, e->name, &a,
				    o->skid && e->ip_sem != DP_IP_NONE ? DP_IP_AFTER : e->ip_sem,
				    e->evclass, &id, 1);
	}
}

/* The tool's records: whole, of the types it sends; the totals summed. */
typedef struct sim_sink {
	const dp_sim_opts *o;
	dp_sim_result *res;
	dp_writer *w;
	dp_buf pending;
	dp_heap_pack pack; /* heap records packed as the agent's are (heap_pack.h) */
	uint64_t last_time;
	bool broken;
} sim_sink;

static bool record_ok(const struct perf_event_header *h)
{
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case DP_REC_ALLOC:
	case DP_REC_FREE:
	case DP_REC_THREAD:
	case DP_REC_META:
	case DP_REC_SIM_TRUTH:
		return true;
	default:
		return false;
	}
}

static void take_total(sim_sink *s, const char *rec, size_t size)
{
	const char *key = rec + 8, *end = rec + size;
	const char *nul = memchr(key, 0, (size_t)(end - key));

	if (!nul || strncmp(key, DPS_META_TOTAL, strlen(DPS_META_TOTAL)))
		return;
	for (int k = 0; k < DPS_NKINDS; k++)
		if (!strcmp(key + strlen(DPS_META_TOTAL), dp_sim_events[k].name) &&
		    memchr(nul + 1, 0, (size_t)(end - nul - 1)))
			s->res->totals[k] += strtoull(nul + 1, NULL, 10);
	s->res->have_totals = true;
}

static void take(sim_sink *s)
{
	size_t off = 0;

	while (s->pending.len - off >= sizeof(struct perf_event_header)) {
		const struct perf_event_header *h = (const void *)(s->pending.p + off);

		if (h->size < sizeof(*h) || (h->size & 7) || !record_ok(h)) {
			s->broken = true;
			break;
		}
		if (s->pending.len - off < h->size)
			break;
		if (h->type == PERF_RECORD_SAMPLE && h->size >= 24) {
			uint64_t id, t;

			memcpy(&id, (const char *)h + 8, 8);
			memcpy(&t, (const char *)h + 32, 8);
			s->res->samples++;
			if (id - DPS_ID_BASE < s->o->nevents)
				s->res->ev_samples[id - DPS_ID_BASE]++;
			s->last_time = DP_MAX(s->last_time, t);
		}
		if (h->type == DP_REC_META)
			take_total(s, (const char *)h, h->size);
		if (h->type == DP_REC_ALLOC || h->type == DP_REC_FREE)
			dp_heap_pack_add(&s->pack, h, h->size, s->w);
		else
			dp_writer_add(s->w, h, h->size);
		off += h->size;
	}
	memmove(s->pending.p, s->pending.p + off, s->pending.len - off);
	s->pending.len -= off;
}

static void read_tool(sim_sink *s, int fd)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		if (s->broken)
			continue;
		dp_buf_add(&s->pending, buf, (size_t)n);
		take(s);
		if (s->broken)
			dp_writer_add_warning(s->w, s->last_time,
					      "the simulator sent malformed data; its records from "
					      "here on were dropped");
		if (s->w->buf.len > (1u << 20))
			dp_writer_flush(s->w);
	}
}

/* The command as Valgrind would start it, checked first: a command not
 * found fails as under a kernel event (exit 127, the same line), and a
 * program the tool cannot run (it is built for x86-64 only: Valgrind
 * would say it failed to start the tool) is named with what to do. */
static int check_command(const dp_sim_opts *o, dp_sim_result *res, dp_error *err)
{
	char path[4096];
	unsigned char h[20];
	int e = dp_target_find(o->argv[0], path, sizeof(path), err), fd;
	ssize_t n;

	if (e) {
		res->exit_code = e == ENOENT ? 127 : 126;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, h, sizeof(h)) : -1;
	if (fd >= 0)
		close(fd);
	/* ELF identification: class at 4, data at 5, e_machine (little-endian) at 18 */
	if (n == (ssize_t)sizeof(h) && !memcmp(h, "\177ELF", 4) &&
	    (h[4] != 2 || h[5] != 1 || (h[18] | h[19] << 8) != 62)) {
		dp_error_set(err,
			     "sim: '%s' is a %s program and dataprof's Valgrind tool runs x86-64 "
			     "programs only: record it with a kernel event (-e cpu-clock, -e "
			     "page-faults)",
			     o->argv[0], h[4] == 1 ? "32-bit" : "non-x86-64");
		return -1;
	}
	return 0;
}

int dp_sim_run(const dp_sim_opts *o, dp_sim_result *res, dp_error *err)
{
	char tool[4096];
	str_vec av = {0};
	char *env[2] = {NULL, NULL};
	struct sigaction sa, old_int, old_term;
	struct timespec rt;
	struct dp_rec_finish f;
	dp_writer w;
	dp_target t;
	sim_sink sink;
	int p[2] = {-1, -1}, status = 0, rc = -1;
	uint64_t t0 = dp_now_ns();

	memset(res, 0, sizeof(*res));
	memset(&w, 0, sizeof(w));
	w.fd = -1;
	res->ev_samples = dp_calloc(o->nevents + 1, sizeof(uint64_t));
	if (!dp_sim_have_valgrind()) {
		dp_error_set(err, "sim: events need Valgrind, which is not on PATH: install the "
				  "Debian package 'valgrind' (apt-get install valgrind)");
		return -1;
	}
	snprintf(tool, sizeof(tool), "%s/%s-amd64-linux", o->tool_dir ? o->tool_dir : "",
		 DPS_TOOL_NAME);
	if (!o->tool_dir || access(tool, X_OK) < 0) {
		dp_error_set(err,
			     "sim: events need dataprof's Valgrind tool, which is not installed "
			     "with this dataprof (built with -DDATAPROF_SIM=OFF, or Valgrind's "
			     "headers were missing: install 'valgrind' and rebuild)");
		return -1;
	}
	if (check_command(o, res, err) < 0)
		return -1;
	clock_gettime(CLOCK_REALTIME, &rt);
	if (dp_writer_open(&w, o->output, t0,
			   (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec, err) < 0)
		return -1;
	write_meta(&w, o);
	write_events(&w, o);
	if (dp_writer_flush(&w) < 0) {
		dp_error_set(err, "cannot write '%s': %s", o->output, strerror(w.failed_errno));
		goto out;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		dp_error_set(err, "cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	build_argv(o, p[1], t0, &av);
	env[0] = dp_asprintf("VALGRIND_LIB=%s", o->tool_dir);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (dp_target_fork(&t, av.v, env, &p[1], 1, err) < 0)
		goto out_sig;
	close(p[1]);
	p[1] = -1;
	if (dp_target_go(&t, "valgrind", err) < 0) {
		res->exit_code = t.exec_errno == ENOENT ? 127 : 126;
		goto out_sig;
	}
	memset(&sink, 0, sizeof(sink));
	sink.o = o;
	sink.res = res;
	sink.w = &w;
	sink.last_time = t0;
	dp_heap_pack_init(&sink.pack);
	read_tool(&sink, p[0]);
	dp_heap_pack_flush(&sink.pack, &w);
	res->heap_raw = sink.pack.raw;
	res->heap_packed = sink.pack.packed;
	dp_heap_pack_free(&sink.pack);
	dp_buf_free(&sink.pending);
	while (waitpid(t.pid, &status, 0) < 0 && errno == EINTR)
		;
	res->exit_code = dp_target_exit_code(status);
	memset(&f, 0, sizeof(f));
	f.time = sink.last_time; /* simulated: two runs write the same file */
	f.wait_status = status;
	f.flags = interrupted ? DP_FINISH_INTERRUPTED : 0;
	f.samples = res->samples;
	f.bytes = w.written + w.buf.len;
	dp_writer_add_dp(&w, DP_REC_FINISH, (const uint8_t *)&f + sizeof(f.h),
			 sizeof(f) - sizeof(f.h));
	rc = 0;
out_sig:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out:
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	res->bytes = w.written + w.buf.len;
	if (dp_writer_close(&w) < 0 && rc == 0) {
		dp_error_set(err, "cannot write '%s': %s", o->output, strerror(w.failed_errno));
		rc = -1;
	}
	if (rc < 0 && strcmp(o->output, "-"))
		dp_unlink_file(o->output);
	for (size_t i = 0; i < av.n; i++)
		free(av.v[i]);
	dp_vec_free(&av);
	free(env[0]);
	return rc;
}
