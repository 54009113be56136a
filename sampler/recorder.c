#include "recorder.h"
#include "procfs.h"
#include "ring.h"
#include "live_procs.h"
#include "synth.h"
#include "target.h"
#include "agent_sink.h"
#include "../agent/chan_ring.h"
#include "branch_stack.h"
#include "privilege.h"
#include "probe.h"
#include "out_series.h"
#include "../profile/writer.h"
#include "hashmap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef DATAPROF_VERSION
#define DATAPROF_VERSION "0"
#endif

#define DEFAULT_FREQ  4000 /* perf record's default */
#define DEFAULT_PAGES 128  /* 512 KiB per CPU: within perf_event_mlock_kb for a normal user */
#define POLL_MS	      100  /* drain at least this often, so a killed recorder loses little */
#define GRACE_NS      3000000000ull

typedef struct rec_event {
	dp_event_spec *spec;
	struct perf_event_attr attr;
	DP_VEC(int) fds;
	DP_VEC(uint64_t) ids;
	uint64_t samples;
} rec_event;

typedef struct recorder {
	const dp_record_opts *o;
	dp_writer w;
	rec_event *ev;
	size_t nev;
	dp_int_vec cpus;
	dp_ring *rings;
	dp_hashmap id2ev;
	uint64_t samples, lost, throttles;
	bool no_build_id, weight_plain;
	/* --switch-output: the series, the processes whose names and mappings
	 * each new file needs, and what the file being written held when it
	 * began */
	bool switching, switch_now;
	dp_out_series series;
	dp_live_procs live;
	uint64_t t0, t0_real, next_switch;
	uint64_t bytes_before; /* written to the earlier files of the series */
	uint64_t file_samples0, file_lost0, file_throttles0;
	int sigfd, pidfd;
	dp_target target;
	dp_agent_sink agent;
	size_t agent_got;  /* bytes the last drain read from the agent */
	dp_collector coll; /* system counters */
	pid_t child;	   /* what we wait for: the target, or -p's command */
	pid_t attached;	   /* -p; -1 with -a: events not tied to a process of ours */
	uint64_t deadline; /* --duration: when to stop; 0: none */
	int child_status;
	bool child_done, target_gone, interrupted, disk_full;
	int interrupts;
	uint64_t grace_until;
	int escalation;
} recorder;

static long perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
			    unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

static bool is_count_event(const struct perf_event_attr *a)
{
	/* software events that count happenings rather than time: sample each one */
	return a->type == PERF_TYPE_SOFTWARE && a->config != PERF_COUNT_SW_CPU_CLOCK &&
	       a->config != PERF_COUNT_SW_TASK_CLOCK;
}

static void build_attr(recorder *r, size_t i)
{
	const dp_record_opts *o = r->o;
	const dp_event_spec *s = &o->events[i];
	struct perf_event_attr *a = &r->ev[i].attr;
	size_t ring =
	    (o->mmap_pages ? o->mmap_pages : DEFAULT_PAGES) * (size_t)sysconf(_SC_PAGESIZE);

	*a = s->attr;
	a->size = sizeof(*a);
	a->disabled = 1;
	a->enable_on_exec = o->pid == 0 && !o->system_wide;
	a->inherit = !o->system_wide; /* a CPU's event sees every task already */
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(ring / 4);
	if (!s->has_period) {
		a->freq = 0;
		if (o->period) {
			a->sample_period = o->period;
		} else if (o->freq) {
			a->freq = 1;
			a->sample_freq = o->freq;
		} else if (s->is_breakpoint || is_count_event(a)) {
			a->sample_period = 1;
		} else {
			a->freq = 1;
			a->sample_freq = DEFAULT_FREQ;
		}
	}
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	if (!o->no_regs) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user = DP_X86_REGS_MASK;
	}
	if (s->evclass != DP_EVC_NONE && s->evclass != DP_EVC_TIME)
		a->sample_type |= PERF_SAMPLE_ADDR;
	if (s->is_hardware) {
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		a->sample_type |= r->weight_plain ? PERF_SAMPLE_WEIGHT : PERF_SAMPLE_WEIGHT_STRUCT;
	}
	if (o->callchain) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->sample_max_stack = o->callchain_max;
	}
	if (o->branch_mode) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = o->branch_mode;
	}
	if (i == 0) {
		/* one event tracks the address space and tasks for all */
		a->mmap = 1;
		a->mmap2 = 1;
		a->mmap_data = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->build_id = !r->no_build_id;
	}
}

/* Opens one event instance, stepping down through features older kernels lack. */
static int open_one(recorder *r, size_t i, pid_t pid, int cpu)
{
	for (;;) {
		long fd = perf_event_open(&r->ev[i].attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd >= 0)
			return (int)fd;
		if (errno == EINVAL && r->ev[i].attr.build_id) {
			r->no_build_id = true;
			r->ev[i].attr.build_id = 0;
			continue;
		}
		if (errno == EINVAL && (r->ev[i].attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT)) {
			r->weight_plain = true;
			r->ev[i].attr.sample_type &= ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT;
			r->ev[i].attr.sample_type |= PERF_SAMPLE_WEIGHT;
			continue;
		}
		return -1;
	}
}

/* -a needs more than sampling one's own programs: say exactly what. */
static void system_wide_error(int cpu, const dp_event_spec *s, int en, dp_error *err)
{
	int level = dp_perf_paranoid(2);

	if (en == EACCES || en == EPERM)
		dp_error_set(
		    err,
		    "recording every process (-a, -C) needs CAP_PERFMON (or root) or "
		    "kernel.perf_event_paranoid 0 or lower (it is %d): as root run 'sysctl "
		    "kernel.perf_event_paranoid=0', or record a command or -p PID instead",
		    level);
	else if (en == ENODEV || en == ENXIO)
		dp_error_set(err, "CPU %d cannot be sampled (%s): give online CPUs with -C", cpu,
			     strerror(en));
	else
		dp_event_open_error(s, en, err);
}

static int open_events(recorder *r, const dp_int_vec *tids, dp_error *err)
{
	size_t pages = r->o->mmap_pages ? r->o->mmap_pages : DEFAULT_PAGES;

	r->rings = dp_calloc(r->cpus.n, sizeof(*r->rings));
	for (size_t i = 0; i < r->nev; i++) {
		rec_event *e = &r->ev[i];
		size_t opened_threads = 0;

		for (size_t t = 0; t < tids->n; t++) {
			size_t ok = 0;

			for (size_t c = 0; c < r->cpus.n; c++) {
				int fd = open_one(r, i, tids->v[t], r->cpus.v[c]);
				uint64_t id;

				if (fd < 0) {
					if (errno == ESRCH && r->o->pid)
						break; /* the thread exited meanwhile */
					if (r->o->branch_mode && errno != ESRCH)
						dp_branch_open_error(e->spec, r->o->branch_mode,
								     errno, err);
					else if (r->o->pid)
						dp_attach_error(r->o->pid, e->spec, errno, err);
					else if (r->o->system_wide)
						system_wide_error(r->cpus.v[c], e->spec, errno,
								  err);
					else
						dp_event_open_error(e->spec, errno, err);
					return -1;
				}
				dp_vec_push(&e->fds, fd);
				if (!r->rings[c].base) {
					if (dp_ring_map(&r->rings[c], fd, pages) < 0) {
						dp_error_set(err,
							     "cannot map a %zu KiB ring buffer: %s "
							     "(lower -m, or raise "
							     "kernel.perf_event_mlock_kb)",
							     pages * (size_t)sysconf(_SC_PAGESIZE) /
								 1024,
							     strerror(errno));
						return -1;
					}
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->rings[c].fd) <
					   0) {
					dp_error_set(err,
						     "cannot share the ring buffer of CPU %d: %s",
						     r->cpus.v[c], strerror(errno));
					return -1;
				}
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0) {
					dp_error_set(err, "cannot read the ID of event '%s': %s",
						     e->spec->name, strerror(errno));
					return -1;
				}
				dp_vec_push(&e->ids, id);
				dp_hashmap_put(&r->id2ev, id, i);
				ok++;
			}
			if (ok)
				opened_threads++;
		}
		if (!opened_threads) {
			dp_error_set(err, "process %d has no threads left to profile",
				     (int)r->o->pid);
			return -1;
		}
	}
	return 0;
}

static void close_events(recorder *r)
{
	for (size_t i = 0; i < r->nev; i++) {
		for (size_t k = 0; k < r->ev[i].fds.n; k++)
			close(r->ev[i].fds.v[k]);
		r->ev[i].fds.n = 0;
	}
	if (r->rings)
		for (size_t c = 0; c < r->cpus.n; c++)
			dp_ring_unmap(&r->rings[c]);
}

static void ioctl_all(recorder *r, unsigned long req)
{
	for (size_t i = 0; i < r->nev; i++)
		for (size_t k = 0; k < r->ev[i].fds.n; k++)
			ioctl(r->ev[i].fds.v[k], req, 0);
}

static void on_record(void *ctx, const void *rec, size_t size)
{
	recorder *r = ctx;
	const struct perf_event_header *h = rec;

	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		uint64_t id, ev;

		r->samples++;
		memcpy(&id, (const uint8_t *)rec + sizeof(*h), 8); /* IDENTIFIER comes first */
		if (dp_hashmap_get(&r->id2ev, id, &ev))
			r->ev[ev].samples++;
		break;
	}
	case PERF_RECORD_LOST: {
		uint64_t n;

		memcpy(&n, (const uint8_t *)rec + sizeof(*h) + 8, 8);
		r->lost += n;
		break;
	}
	case PERF_RECORD_THROTTLE:
		r->throttles++;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		uint32_t ids[3]; /* pid, ppid, tid */

		/* a process begins (pid != ppid) or ends (its leader: pid == tid);
		 * a thread's FORK or EXIT leaves its process as it was */
		memcpy(ids, (const uint8_t *)rec + sizeof(*h), sizeof(ids));
		if (r->switching && ids[0] == ids[2] &&
		    (h->type == PERF_RECORD_EXIT || ids[0] != ids[1]))
			dp_live_procs_set_alive(&r->live, ids[0], h->type == PERF_RECORD_FORK);
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (r->switching)
			dp_live_procs_add_map(&r->live, rec, size);
		break;
	case PERF_RECORD_COMM:
		if (r->switching && (h->misc & PERF_RECORD_MISC_COMM_EXEC))
			dp_live_procs_exec(&r->live, rec, size);
		break;
	}
	dp_writer_add(&r->w, rec, size);
}

static void drain(recorder *r)
{
	for (size_t c = 0; c < r->cpus.n; c++)
		dp_ring_drain(&r->rings[c], on_record, r);
	if (!r->disk_full) {
		r->agent_got = dp_agent_sink_drain(&r->agent, &r->w);
		dp_collector_drain(&r->coll, &r->w);
	}
	if (dp_writer_flush(&r->w) < 0 && !r->disk_full) {
		r->disk_full = true;
		fprintf(stderr,
			"dataprof: cannot write '%s' (%s): recording stopped; the file keeps the "
			"%llu bytes written so far\n",
			r->w.path, strerror(r->w.failed_errno), (unsigned long long)r->w.written);
		ioctl_all(r, PERF_EVENT_IOC_DISABLE);
	}
}

static void write_header_meta(recorder *r)
{
	const dp_record_opts *o = r->o;
	struct utsname u;
	char cpu[256], buf[64];
	dp_buf cmd = {0};

	dp_writer_add_meta(&r->w, "version", DATAPROF_VERSION);
	dp_writer_add_meta(&r->w, "cmdline", o->cmdline ? o->cmdline : "");
	for (size_t i = 0; o->argv && o->argv[i]; i++)
		dp_buf_printf(&cmd, "%s%s", i ? " " : "", o->argv[i]);
	dp_writer_add_meta(&r->w, "command", cmd.p ? cmd.p : "");
	dp_buf_free(&cmd);
	if (o->pid) {
		snprintf(buf, sizeof(buf), "%d", (int)o->pid);
		dp_writer_add_meta(&r->w, "attach_pid", buf);
	}
	if (o->system_wide)
		dp_writer_add_meta(&r->w, "system_wide", o->cpu_list ? o->cpu_list : "all");
	if (uname(&u) == 0) {
		dp_writer_add_meta(&r->w, "hostname", u.nodename);
		dp_writer_add_meta(&r->w, "kernel", u.release);
		dp_writer_add_meta(&r->w, "arch", u.machine);
	}
	dp_cpu_model(cpu, sizeof(cpu));
	dp_writer_add_meta(&r->w, "cpu", cpu);
	snprintf(buf, sizeof(buf), "%zu", r->cpus.n);
	dp_writer_add_meta(&r->w, "ncpus", buf);
	snprintf(buf, sizeof(buf), "%ld", sysconf(_SC_PAGESIZE));
	dp_writer_add_meta(&r->w, "page_size", buf);
	dp_writer_add_meta(&r->w, "clock", "CLOCK_MONOTONIC");
	dp_writer_add_meta(&r->w, "hw_pmu", dp_have_hw_pmu() ? "yes" : "no");
	if (o->alloc_fn)
		dp_writer_add_meta(&r->w, "alloc_fn", o->alloc_fn);
	if (r->switching) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)r->series.index);
		dp_writer_add_meta(&r->w, "series", r->series.id);
		dp_writer_add_meta(&r->w, "series_index", buf);
	}
}

static void write_events(recorder *r)
{
	for (size_t i = 0; i < r->nev; i++) {
		rec_event *e = &r->ev[i];

		dp_writer_add_event(&r->w, (uint32_t)i, e->spec->name, &e->attr, e->spec->ip_sem,
				    e->spec->evclass, e->ids.v, e->ids.n);
	}
}

static void on_signal(recorder *r, const struct signalfd_siginfo *si)
{
	if (si->ssi_signo == SIGUSR2) { /* --switch-output=signal */
		r->switch_now = true;
		return;
	}
	if (si->ssi_signo == SIGCHLD) {
		int st;
		pid_t p;

		while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
			if (p == r->child) {
				r->child_done = true;
				r->child_status = st;
			}
		}
		return;
	}
	/* SIGINT, SIGTERM, SIGHUP */
	r->interrupted = true;
	r->interrupts++;
	if (r->attached || !r->child || r->child_done)
		return;
	if (r->interrupts > 1) {
		kill(r->child, SIGKILL);
		return;
	}
	/* A Ctrl-C from the terminal reached the whole process group already;
	 * a signal sent to the recorder alone is passed on. */
	if (si->ssi_code == SI_USER || si->ssi_code == SI_QUEUE)
		kill(r->child, (int)si->ssi_signo);
	r->grace_until = dp_now_ns() + GRACE_NS;
}

static void escalate(recorder *r)
{
	if (!r->interrupted || r->attached || r->child_done || !r->grace_until)
		return;
	if (dp_now_ns() < r->grace_until)
		return;
	kill(r->child, r->escalation++ ? SIGKILL : SIGTERM);
	r->grace_until = dp_now_ns() + GRACE_NS;
}

/* A file's beginning: header, metadata, events and sensors. Every file of
 * a series has the recording's start, so that their times line up. */
static int begin_file(recorder *r, dp_error *err)
{
	const char *path = r->switching ? dp_out_series_next(&r->series) : r->o->output;

	if (dp_writer_open(&r->w, path, r->t0, r->t0_real, err) < 0)
		return -1;
	r->file_samples0 = r->samples;
	r->file_lost0 = r->lost;
	r->file_throttles0 = r->throttles;
	write_header_meta(r);
	write_events(r);
	dp_collector_write_sensors(&r->coll, &r->w);
	return 0;
}

static void synth_processes(recorder *r);
static void finish(recorder *r, bool switched);

/* The names and mappings of the processes running now, which the kernel
 * told of in earlier files: each file of a series is read alone too. */
static void synth_live(recorder *r)
{
	if (r->o->system_wide || r->o->pid) {
		synth_processes(r);
		return;
	}
	dp_live_procs_synth(&r->live, &r->w, &r->ev[0].attr, r->ev[0].ids.v[0]);
}

/* --switch-output: the file ends complete (heap records, FINISH), the next
 * one begins with what a reader needs before the samples that follow. */
static void switch_file(recorder *r)
{
	dp_error err = {{0}};

	r->switch_now = false;
	if (r->o->switch_ns)
		r->next_switch = dp_now_ns() + r->o->switch_ns;
	finish(r, true);
	r->bytes_before += r->w.written;
	if (dp_writer_close(&r->w) < 0)
		fprintf(stderr, "dataprof: cannot write '%s' (%s)\n", r->series.last,
			strerror(r->w.failed_errno));
	dp_out_series_done(&r->series);
	if (begin_file(r, &err) < 0) {
		/* nothing more can be kept: stop as on a full disk */
		fprintf(stderr, "dataprof: %s: recording stopped\n", err.msg);
		memset(&r->w, 0, sizeof(r->w));
		r->w.fd = -1;
		r->w.failed = true;
		r->w.path = dp_strdup(r->series.last);
		r->disk_full = true;
		ioctl_all(r, PERF_EVENT_IOC_DISABLE);
		return;
	}
	if (r->nev)
		synth_live(r);
	dp_writer_flush(&r->w);
}

static bool switch_due(const recorder *r)
{
	if (!r->switching || r->disk_full)
		return false;
	return r->switch_now || (r->o->switch_bytes && r->w.written >= r->o->switch_bytes) ||
	       (r->next_switch && dp_now_ns() >= r->next_switch);
}

static void run_loop(recorder *r)
{
	size_t np = r->cpus.n + 3;
	struct pollfd *pfd = dp_calloc(np, sizeof(*pfd));

	for (size_t c = 0; c < r->cpus.n; c++) {
		pfd[c].fd = r->rings[c].base ? r->rings[c].fd : -1; /* none: counters only */
		pfd[c].events = POLLIN;
	}
	pfd[r->cpus.n].fd = r->sigfd;
	pfd[r->cpus.n].events = POLLIN;
	pfd[r->cpus.n + 1].fd = r->agent.rfd; /* -1: ignored by poll */
	pfd[r->cpus.n + 1].events = POLLIN;
	pfd[r->cpus.n + 2].fd = r->pidfd;
	pfd[r->cpus.n + 2].events = POLLIN;
	for (uint64_t rest_until = 0;;) {
		/* the agent's pipe left out of poll a while after it flowed
		 * (dp_agent_sink_can_rest): its batches then come many a read */
		bool rest = rest_until && dp_now_ns() < rest_until;
		int n;

		int ring_ms = dp_agent_sink_poll_ms(&r->agent);

		pfd[r->cpus.n + 1].fd = rest ? -1 : r->agent.rfd;
		n = poll(pfd, np, rest ? 1 : ring_ms >= 0 ? ring_ms : POLL_MS);
		if (n < 0 && errno != EINTR)
			break;
		drain(r);
		rest_until = r->agent_got && dp_agent_sink_can_rest(&r->agent)
				 ? dp_now_ns() + DP_AGENT_REST_NS
				 : 0;
		if (pfd[r->cpus.n].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				on_signal(r, &si);
		}
		if (r->pidfd >= 0 && (pfd[r->cpus.n + 2].revents & (POLLIN | POLLHUP)))
			r->target_gone = true;
		if (switch_due(r))
			switch_file(r);
		if (r->child_done || r->target_gone)
			break;
		if (r->deadline && dp_now_ns() >= r->deadline)
			break;
		if (r->interrupted && r->attached)
			break;
		escalate(r);
	}
	free(pfd);
}

static int setup_signals(recorder *r, sigset_t *old, dp_error *err)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (r->o->switch_signal)
		sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, old);
	signal(SIGPIPE, SIG_IGN);
	/* a file-size limit must end the recording cleanly (EFBIG), not kill it */
	signal(SIGXFSZ, SIG_IGN);
	r->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r->sigfd < 0) {
		dp_error_set(err, "signalfd: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A breakpoint that gave nothing: say whether this kernel fires breakpoints
 * at all (some VMs accept them and never do) or the address went untouched;
 * in the profile too. Once, whatever the number of such events. */
static void warn_silent_breakpoints(recorder *r)
{
	dp_probe_result probe;
	bool probed = false;

	for (size_t i = 0; i < r->nev; i++) {
		const dp_event_spec *e = r->ev[i].spec;
		char *msg;

		if (!e->is_breakpoint || r->ev[i].samples || r->disk_full)
			continue;
		if (!probed)
			dp_probe_run(DP_PROBE_BREAKPOINT, &probe);
		probed = true;
		if (!probe.ok)
			msg = dp_asprintf(
			    "event '%s' gave no sample: hardware breakpoints do not "
			    "fire on this machine (a probe: %s); here use -e page-faults "
			    "or sim: events ('dataprof doctor' says what works)",
			    e->name, probe.detail);
		else
			msg = dp_asprintf("event '%s' gave no sample: nothing touched 0x%llx while "
					  "it ran (breakpoints do fire here); check the address: a "
					  "PIE program or a library loads at a random base",
					  e->name, (unsigned long long)r->ev[i].attr.bp_addr);
		fprintf(stderr, "dataprof: warning: %s\n", msg);
		dp_writer_add_warning(&r->w, dp_now_ns(), msg);
		free(msg);
	}
}

/* The FINISH of the file being written: the last one, or with switched one
 * of a series that goes on (its counts are the file's own). */
static void finish(recorder *r, bool switched)
{
	struct dp_rec_finish f;

	if (!r->disk_full)
		dp_agent_sink_flush(&r->agent, &r->w, !switched);
	memset(&f, 0, sizeof(f));
	f.time = dp_now_ns();
	f.wait_status = r->attached || switched ? -1 : r->child_status;
	f.flags = switched ? DP_FINISH_SWITCHED
			   : (r->interrupted ? DP_FINISH_INTERRUPTED : 0) |
				 (r->attached ? DP_FINISH_DETACHED : 0) |
				 (r->disk_full ? DP_FINISH_DISK_FULL : 0);
	f.samples = r->samples - r->file_samples0;
	f.lost = r->lost - r->file_lost0;
	f.throttles = r->throttles - r->file_throttles0;
	f.bytes = r->w.written;
	if (r->disk_full) {
		/* the cut-back partial record may have left room for this one */
		f.h.type = DP_REC_FINISH;
		f.h.size = sizeof(f);
		dp_writer_last(&r->w, &f, sizeof(f));
		return;
	}
	dp_writer_add_dp(&r->w, DP_REC_FINISH, (const uint8_t *)&f + sizeof(f.h),
			 sizeof(f) - sizeof(f.h));
	dp_writer_flush(&r->w);
}

static void print_summary(const recorder *r, const dp_record_opts *o)
{
	const dp_heap_pack *hp = &r->agent.pack;

	if (o->quiet)
		return;
	fprintf(stderr, "[ dataprof record: %llu samples", (unsigned long long)r->samples);
	if (r->nev > 1) {
		fprintf(stderr, " (");
		for (size_t i = 0; i < r->nev; i++)
			fprintf(stderr, "%s%s %llu", i ? ", " : "", r->ev[i].spec->name,
				(unsigned long long)r->ev[i].samples);
		fprintf(stderr, ")");
	}
	if (r->coll.open)
		fprintf(stderr, ", %llu counter readings", (unsigned long long)r->coll.readings);
	if (hp->raw)
		fprintf(stderr, ", heap records %.1f KiB packed into %.1f KiB",
			(double)hp->raw / 1024.0, (double)hp->packed / 1024.0);
	if (r->switching)
		fprintf(stderr, ", %llu lost, %.1f KiB written to %llu files '%s.*'",
			(unsigned long long)r->lost,
			(double)(r->bytes_before + r->w.written) / 1024.0,
			(unsigned long long)r->series.index, o->output);
	else
		fprintf(stderr, ", %llu lost, %.1f KiB written to '%s'",
			(unsigned long long)r->lost, (double)r->w.written / 1024.0, o->output);
	if (r->series.removed)
		fprintf(stderr, ", the oldest %llu removed (--max-files)",
			(unsigned long long)r->series.removed);
	fprintf(stderr, " ]\n");
	if (r->lost)
		fprintf(stderr,
			"dataprof: warning: the kernel dropped %llu samples (ring buffers full); "
			"use a larger -m or a lower -F/-c rate\n",
			(unsigned long long)r->lost);
	if (r->throttles)
		fprintf(stderr,
			"dataprof: warning: sampling was throttled %llu times "
			"(kernel.perf_event_max_sample_rate); use a lower rate\n",
			(unsigned long long)r->throttles);
}

typedef DP_VEC(char *) env_vec;

/* The command's extra environment: the caller's, plus the agent channel. */
static int make_agent_env(recorder *r, const dp_record_opts *o, env_vec *env, dp_error *err)
{
	if (dp_agent_sink_open(&r->agent, err) < 0)
		return -1;
	for (size_t i = 0; o->env && o->env[i]; i++)
		dp_vec_push(env, dp_strdup(o->env[i]));
	dp_vec_push(env, dp_asprintf("%s=%d", DP_AGENT_FD_ENV, r->agent.wfd));
	if (r->agent.ring_fd >= 0)
		dp_vec_push(env, dp_asprintf("%s=%d", DP_AGENT_RING_ENV, r->agent.ring_fd));
	/* ticks where the TSC is a paravirtual clock's base and agrees across
	 * CPUs: a third of a clock_gettime, twice per allocation */
	if (!getenv("DATAPROF_MARKER_CLOCK") && dp_agent_ticks_probe())
		dp_vec_push(env, dp_strdup("DATAPROF_MARKER_CLOCK=tsc"));
	dp_vec_push(env, NULL);
	return 0;
}

/* The system counters of the target (--counters), read from the start. */
static int open_counters(recorder *r, const dp_int_vec *tids, dp_error *err)
{
	dp_source_ctx ctx = {"/proc", r->attached ? r->attached : r->target.pid, tids->v, tids->n,
			     !r->attached};

	if (!r->o->counters)
		return 0;
	return dp_collector_open(&r->coll, &ctx, r->o->counters,
				 r->o->interval_ns ? r->o->interval_ns : 100000000ull, err);
}

/* -C: the CPUs asked for, each one online. */
static int pick_cpus(dp_int_vec *cpus, const char *list, dp_error *err)
{
	dp_int_vec want = {0};
	int rc = 0;

	if (!dp_parse_cpu_list(list, &want)) {
		dp_error_set(err, "-C '%s' is not a CPU list: write 0,2 or 0-3", list);
		rc = -1;
	}
	for (size_t i = 0; !rc && i < want.n; i++) {
		size_t k = 0;

		while (k < cpus->n && cpus->v[k] != want.v[i])
			k++;
		if (k == cpus->n) {
			dp_error_set(
			    err, "-C: CPU %d is not online (see /sys/devices/system/cpu/online)",
			    want.v[i]);
			rc = -1;
		}
	}
	if (!rc) {
		cpus->n = 0;
		for (size_t i = 0; i < want.n; i++)
			dp_vec_push(cpus, want.v[i]);
	}
	dp_vec_free(&want);
	return rc;
}

/* The mappings and names of what is already running: -p's process, or with
 * -a every process (one that exits meanwhile is simply not there). */
static void synth_processes(recorder *r)
{
	dp_int_vec pids = {0};

	if (!r->o->system_wide) {
		dp_synth_process(&r->w, r->o->pid, &r->ev[0].attr, r->ev[0].ids.v[0], NULL);
		return;
	}
	dp_all_processes(&pids);
	for (size_t i = 0; i < pids.n; i++)
		if (pids.v[i] != getpid())
			dp_synth_process(&r->w, pids.v[i], &r->ev[0].attr, r->ev[0].ids.v[0], NULL);
	dp_vec_free(&pids);
}

int dp_record_run(const dp_record_opts *o, dp_record_result *res, dp_error *err)
{
	recorder r;
	dp_int_vec tids = {0};
	env_vec env = {0};
	sigset_t oldmask;
	struct timespec rt;
	uint64_t t0 = dp_now_ns();
	int rc = -1;
	bool launched = false;

	memset(&r, 0, sizeof(r));
	memset(res, 0, sizeof(*res));
	r.o = o;
	r.sigfd = r.pidfd = -1;
	r.agent.rfd = r.agent.wfd = -1;
	r.nev = o->nevents;
	r.ev = dp_calloc(r.nev, sizeof(*r.ev));
	dp_hashmap_init(&r.id2ev, 64);
	dp_live_procs_init(&r.live);
	r.switching = o->switch_bytes || o->switch_ns || o->switch_signal;
	if (r.switching)
		dp_out_series_init(&r.series, o->output, o->max_files);
	for (size_t i = 0; i < r.nev; i++)
		r.ev[i].spec = &o->events[i];
	if (dp_online_cpus(&r.cpus) < 0) {
		dp_error_set(err, "cannot find the online CPUs");
		goto out;
	}
	if (o->cpu_list && pick_cpus(&r.cpus, o->cpu_list, err) < 0)
		goto out;
	if (setup_signals(&r, &oldmask, err) < 0)
		goto out;

	if (o->system_wide) {
		r.attached = -1;
		dp_vec_push(&tids, -1); /* per CPU, every task */
	} else if (o->pid) {
		r.attached = o->pid;
		if (dp_process_threads(o->pid, &tids) < 0) {
			dp_error_set(err, "no process %d to attach to (%s)", (int)o->pid,
				     strerror(errno));
			goto out_sig;
		}
		r.pidfd = (int)syscall(SYS_pidfd_open, o->pid, 0);
	} else {
		char why[128];

		/* the kernel closes the events of a program that gains IDs at exec */
		if (dp_exec_gains_ids(o->argv[0], why, sizeof(why)))
			fprintf(stderr,
				"dataprof: warning: '%s' is %s: the kernel does not let you "
				"profile it, nothing of it will be recorded\n",
				o->argv[0], why);
		if (o->agent && make_agent_env(&r, o, &env, err) < 0)
			goto out_sig;
		int keep[] = {r.agent.wfd, r.agent.ring_fd};

		if (dp_target_fork(&r.target, o->argv, env.v ? env.v : o->env, keep, 2, err) < 0)
			goto out_sig;
		dp_agent_sink_close_writer(&r.agent);
		launched = true;
		r.child = r.target.pid;
		dp_vec_push(&tids, r.target.pid);
		dp_live_procs_set_alive(&r.live, (uint32_t)r.target.pid, true);
	}

	if (open_counters(&r, &tids, err) < 0)
		goto out_events;
	r.coll.on_reading = o->on_reading;
	r.coll.on_reading_ctx = o->on_reading_ctx;
	for (size_t i = 0; i < r.nev; i++)
		build_attr(&r, i);
	if (open_events(&r, &tids, err) < 0)
		goto out_events;

	clock_gettime(CLOCK_REALTIME, &rt);
	r.t0 = t0;
	r.t0_real = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
	if (o->switch_ns)
		r.next_switch = dp_now_ns() + o->switch_ns;
	if (begin_file(&r, err) < 0)
		goto out_events;
	if (dp_collector_start(&r.coll, err) < 0)
		goto out_writer;
	if (o->pid || o->system_wide) {
		if (r.nev)
			synth_processes(&r);
		dp_writer_flush(&r.w);
		ioctl_all(&r, PERF_EVENT_IOC_ENABLE);
		if (o->duration_ns)
			r.deadline = dp_now_ns() + o->duration_ns;
		if (o->argv && o->argv[0]) {
			if (dp_target_fork(&r.target, o->argv, o->env, NULL, 0, err) < 0 ||
			    dp_target_go(&r.target, o->argv[0], err) < 0)
				goto out_writer;
			r.child = r.target.pid;
		}
	} else {
		if (dp_writer_flush(&r.w) < 0) {
			dp_error_set(err, "cannot write '%s': %s", r.w.path,
				     strerror(r.w.failed_errno));
			goto out_writer;
		}
		launched = false; /* from here the child is ours to wait for, not to abort */
		if (dp_target_go(&r.target, o->argv[0], err) < 0) {
			dp_unlink_file(r.w.path);
			dp_writer_close(&r.w);
			close_events(&r);
			res->exit_code = r.target.exec_errno == ENOENT ? 127 : 126;
			goto out_sig;
		}
	}

	run_loop(&r);
	if (r.attached)
		ioctl_all(&r, PERF_EVENT_IOC_DISABLE);
	if (!r.disk_full)
		dp_collector_finish(&r.coll, &r.w);
	drain(&r);
	warn_silent_breakpoints(&r);
	finish(&r, false);
	rc = 0;
	res->exit_code = r.attached ? 0 : dp_target_exit_code(r.child_status);
	if (r.disk_full)
		res->exit_code = res->exit_code ? res->exit_code : 1;
	res->samples = r.samples;
	res->lost = r.lost;
	res->throttles = r.throttles;
	res->disk_full = r.disk_full;
	res->interrupted = r.interrupted;
	res->readings = r.coll.readings;
	res->files = r.switching ? r.series.index : 1;
	res->collector_cpu_ns = r.coll.cpu_ns;
	res->collector_wall_ns = r.coll.wall_ns;
out_writer:
	close_events(&r);
	{
		char *path = dp_strdup(r.w.path ? r.w.path : o->output);

		if (dp_writer_close(&r.w) < 0 && rc == 0 && !r.disk_full) {
			dp_error_set(err, "cannot write '%s': %s", path,
				     strerror(r.w.failed_errno));
			rc = -1;
		}
		free(path);
	}
	res->bytes = r.bytes_before + r.w.written; /* the index included */
	if (r.switching && rc == 0) {
		dp_out_series_done(&r.series);
		res->files_removed = r.series.removed;
	}
	if (rc == 0)
		print_summary(&r, o);
	if (rc < 0 && r.child && !r.child_done && !r.attached) {
		kill(r.child, SIGKILL);
		waitpid(r.child, NULL, 0);
	}
	goto out_sig;
out_events:
	close_events(&r);
	if (launched)
		dp_target_abort(&r.target);
out_sig:
	if (r.pidfd >= 0)
		close(r.pidfd);
	if (r.sigfd >= 0)
		close(r.sigfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
out:
	for (size_t i = 0; i < r.nev; i++) {
		dp_vec_free(&r.ev[i].fds);
		dp_vec_free(&r.ev[i].ids);
	}
	free(r.ev);
	free(r.rings);
	dp_vec_free(&r.cpus);
	dp_vec_free(&tids);
	for (size_t i = 0; i + 1 < env.n; i++)
		free(env.v[i]);
	dp_vec_free(&env);
	dp_agent_sink_close(&r.agent);
	dp_collector_close(&r.coll);
	dp_hashmap_free(&r.id2ev);
	dp_live_procs_free(&r.live);
	if (r.switching)
		dp_out_series_free(&r.series);
	return rc;
}
