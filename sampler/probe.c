#include "probe.h"
#include "procfs.h"
#include "ring.h"
#include "recorder.h"
#include "../profile/perf_record.h"

#include <errno.h>
#include <stdarg.h>
#include <grp.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

#define RING_PAGES   16
#define SPIN_CPU_NS  20000000ull   /* CPU time the clock probes burn */
#define SPIN_WALL_NS 2000000000ull /* and the wall time they give up after */
/* Writes to a watched word, in rounds with the CPU given up between them:
 * on one VM breakpoints fired for all but now and then (once, 1 of 4),
 * and a test that counts on them must then skip, not fail one run in
 * twenty. Every write must give its sample. */
#define BP_TOUCHES 16
#define BP_ROUND   4

static const struct {
	const char *key, *question, *events;
} probes[DP_PROBE_COUNT] = {
    [DP_PROBE_PAGE_FAULTS] = {"page-faults", "page-fault samples carry the faulting address",
			      "page-faults"},
    [DP_PROBE_CPU_CLOCK] = {"cpu-clock", "cpu-clock samples in user mode carry the registers",
			    "cpu-clock"},
    [DP_PROBE_TASK_CLOCK] = {"task-clock", "task-clock counts the thread's CPU time", "task-clock"},
    [DP_PROBE_BREAKPOINT] = {"breakpoint", "hardware data breakpoints fire on each access",
			     "mem:ADDR (data breakpoints)"},
    [DP_PROBE_PMU] = {"pmu", "a hardware PMU counts cycles",
		      "cycles, instructions, cache and precise memory events"},
    [DP_PROBE_UNPRIVILEGED] = {"unprivileged",
			       "a user without privileges can sample its own programs",
			       "record and stat as an ordinary user"},
    [DP_PROBE_BRANCH_STACK] = {"branch-stack", "cycles samples carry a branch stack (LBR)",
			       "record -b, -j (annotate's hottest ranges)"},
};

const char *dp_probe_key(dp_probe_id id)
{
	return id < DP_PROBE_COUNT ? probes[id].key : "?";
}

const char *dp_probe_question(dp_probe_id id)
{
	return id < DP_PROBE_COUNT ? probes[id].question : "?";
}

const char *dp_probe_events(dp_probe_id id)
{
	return id < DP_PROBE_COUNT ? probes[id].events : "?";
}

int dp_probe_find(const char *key)
{
	for (int i = 0; i < DP_PROBE_COUNT; i++)
		if (!strcmp(probes[i].key, key))
			return i;
	return -1;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Burns about ns of this thread's CPU time (or gives up after
 * SPIN_WALL_NS of wall time on a starved machine); returns the CPU time
 * spent. */
static uint64_t spin_cpu(uint64_t ns)
{
	uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), w0 = clock_ns(CLOCK_MONOTONIC), c;
	volatile uint64_t x = 0;

	do {
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i * i;
		c = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	} while (c - c0 < ns && clock_ns(CLOCK_MONOTONIC) - w0 < SPIN_WALL_NS);
	(void)x;
	return c - c0;
}

static void base_attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->disabled = 1;
	a->exclude_kernel = 1; /* what an unprivileged user gets, and what dataprof records */
	a->exclude_hv = 1;
}

static void fail(dp_probe_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(dp_probe_result *res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->detail, sizeof(res->detail), fmt, ap);
	va_end(ap);
	res->ok = false;
}

static int open_self(struct perf_event_attr *a, dp_probe_result *res)
{
	int fd = (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		fail(res, "perf_event_open refused it: %s", strerror(errno));
	return fd;
}

/* The samples a probe's ring holds. */
typedef struct probe_samples {
	const struct perf_event_attr *attr;
	size_t n, bad;
	uint64_t want_addr; /* count those at this address */
	size_t at_addr, user_regs;
	size_t with_branches; /* samples with a branch stack of at least one entry */
	uint64_t first_addr;
} probe_samples;

static void on_sample(void *ctx, const void *rec, size_t size)
{
	probe_samples *p = ctx;
	const struct perf_event_header *h = rec;
	dp_sample s;

	if (h->type != PERF_RECORD_SAMPLE)
		return;
	if (dp_perf_parse_sample(p->attr, rec, size, &s) < 0) {
		p->bad++;
		return;
	}
	if (!p->n)
		p->first_addr = s.addr;
	p->n++;
	p->at_addr += p->want_addr && s.addr == p->want_addr;
	p->with_branches += s.branch_nr > 0;
	p->user_regs += (s.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER &&
			s.regs_user.abi != PERF_SAMPLE_REGS_ABI_NONE && s.ip &&
			s.regs_user.mask == DP_X86_REGS_MASK;
}

/* Opens a as a sampling event on this thread, runs trigger(arg) with it
 * enabled and reads what its ring holds. Returns 0, or -1 (res says why). */
static int sample_self(struct perf_event_attr *a, void (*trigger)(void *), void *arg,
		       probe_samples *out, dp_probe_result *res)
{
	dp_ring ring;
	int fd = open_self(a, res);

	memset(&ring, 0, sizeof(ring));
	out->attr = a;
	if (fd < 0)
		return -1;
	if (dp_ring_map(&ring, fd, RING_PAGES) < 0) {
		fail(res, "cannot map its ring buffer: %s", strerror(errno));
		close(fd);
		return -1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	trigger(arg);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	dp_ring_drain(&ring, on_sample, out);
	dp_ring_unmap(&ring);
	close(fd);
	return 0;
}

/* ---- page faults ---- */

static void touch_page(void *arg)
{
	*(volatile char *)arg = 1;
}

static void probe_page_faults(dp_probe_result *res)
{
	struct perf_event_attr a;
	probe_samples s = {0};
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED) {
		fail(res, "cannot map a page to touch: %s", strerror(errno));
		return;
	}
	base_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
	s.want_addr = (uint64_t)(uintptr_t)(page + 104);
	if (sample_self(&a, touch_page, page + 104, &s, res) == 0) {
		if (s.at_addr)
			snprintf(res->detail, sizeof(res->detail),
				 "the first write to a fresh page gave a sample at its exact "
				 "address (%zu sample%s in all)",
				 s.n, s.n == 1 ? "" : "s");
		else
			fail(res, "a write to a fresh page gave %zu samples, none at its address",
			     s.n);
		res->ok = s.at_addr > 0;
	}
	munmap(page, 4096);
}

/* ---- cpu-clock ---- */

static void burn(void *arg)
{
	*(uint64_t *)arg = spin_cpu(SPIN_CPU_NS);
}

static void probe_cpu_clock(dp_probe_result *res)
{
	struct perf_event_attr a;
	probe_samples s = {0};
	uint64_t cpu = 0, period = 100000; /* 100 us of CPU time */

	base_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER;
	a.sample_regs_user = DP_X86_REGS_MASK;
	if (sample_self(&a, burn, &cpu, &s, res) < 0)
		return;
	res->ok = s.user_regs > 0;
	if (res->ok)
		snprintf(res->detail, sizeof(res->detail),
			 "%zu samples with user registers in %.1f ms of CPU time (%.0f%% of "
			 "one per %llu us)",
			 s.user_regs, cpu / 1e6,
			 100.0 * (double)s.user_regs * (double)period / (double)cpu,
			 (unsigned long long)(period / 1000));
	else
		fail(res, "%zu samples in %.1f ms of CPU time, none in user mode with registers",
		     s.n, cpu / 1e6);
}

/* ---- task-clock ---- */

static void probe_task_clock(dp_probe_result *res)
{
	struct perf_event_attr a;
	uint64_t before = 0, after = 0, cpu;
	double ratio;
	int fd;

	base_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	fd = open_self(&a, res);
	if (fd < 0)
		return;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	if (read(fd, &before, 8) != 8) {
		fail(res, "cannot read the count: %s", strerror(errno));
		close(fd);
		return;
	}
	cpu = spin_cpu(SPIN_CPU_NS);
	if (read(fd, &after, 8) != 8) {
		fail(res, "cannot read the count: %s", strerror(errno));
		close(fd);
		return;
	}
	close(fd);
	ratio = cpu ? (double)(after - before) / (double)cpu : 0;
	/* both are this thread's CPU time, read a few instructions apart */
	res->ok = ratio > 0.9 && ratio < 1.1;
	snprintf(res->detail, sizeof(res->detail),
		 "%.2f ms counted over %.2f ms of the thread's CPU time (%.1f%%)",
		 (after - before) / 1e6, cpu / 1e6, 100 * ratio);
}

/* ---- hardware breakpoints ---- */

static volatile uint64_t bp_word;

static void touch_bp(void *arg)
{
	(void)arg;
	for (int i = 0; i < BP_TOUCHES; i++) {
		if (i && !(i % BP_ROUND))
			sched_yield();
		bp_word += 1; /* a read and a write: at least one trap each time */
	}
}

static void probe_breakpoint(dp_probe_result *res)
{
	struct perf_event_attr a;
	probe_samples s = {0};

	base_attr(&a, PERF_TYPE_BREAKPOINT, 0);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uint64_t)(uintptr_t)&bp_word;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR;
	s.want_addr = a.bp_addr;
	if (sample_self(&a, touch_bp, NULL, &s, res) < 0)
		return;
	res->ok = s.at_addr >= BP_TOUCHES;
	if (res->ok)
		snprintf(res->detail, sizeof(res->detail),
			 "%d writes to a watched word gave %zu "
			 "samples at its address",
			 BP_TOUCHES, s.at_addr);
	else if (!s.n)
		fail(res,
		     "the kernel accepted a breakpoint and never fired it: %d writes to the "
		     "watched word gave 0 samples",
		     BP_TOUCHES);
	else
		fail(res, "%d writes to a watched word gave %zu samples, %zu at its address",
		     BP_TOUCHES, s.n, s.at_addr);
}

/* ---- a hardware PMU ---- */

static void probe_pmu(dp_probe_result *res)
{
	struct perf_event_attr a;
	uint64_t count = 0;
	int fd;

	base_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fail(res, "cycles cannot be opened (%s): a VM without PMU passthrough?",
		     strerror(errno));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	spin_cpu(SPIN_CPU_NS / 10);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, 8) != 8)
		count = 0;
	close(fd);
	res->ok = count > 0;
	if (res->ok)
		snprintf(res->detail, sizeof(res->detail),
			 "%llu cycles counted in 2 ms of CPU time", (unsigned long long)count);
	else
		fail(res, "cycles opened but counted nothing");
}

/* ---- branch stacks (LBR) ---- */

static void burn_short(void *arg)
{
	*(uint64_t *)arg = spin_cpu(SPIN_CPU_NS / 4);
}

/* A PMU may count cycles and still have no branch stack (no LBR, or one a
 * hypervisor does not pass through): samples must come with entries. */
static void probe_branch_stack(dp_probe_result *res)
{
	struct perf_event_attr a;
	probe_samples s = {0};
	uint64_t cpu = 0;

	base_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	a.sample_period = 200000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	if (sample_self(&a, burn_short, &cpu, &s, res) < 0)
		return;
	res->ok = s.with_branches > 0;
	if (res->ok)
		snprintf(res->detail, sizeof(res->detail),
			 "%zu of %zu cycles samples in %.1f ms of CPU time carried a branch stack",
			 s.with_branches, s.n, (double)cpu / 1e6);
	else
		fail(res,
		     "cycles opened with a branch stack, but %zu samples in %.1f ms of CPU "
		     "time carried none",
		     s.n, (double)cpu / 1e6);
}

/* ---- unprivileged use ---- */


static void probe_unprivileged(dp_probe_result *res)
{
	int paranoid = dp_perf_paranoid(99), status = 0;
	pid_t pid = fork();

	if (pid < 0) {
		fail(res, "cannot fork to try: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		struct perf_event_attr a;
		int fd;

		/* root tries as nobody; anyone else as themselves */
		if (geteuid() == 0 &&
		    (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0))
			_exit(100);
		base_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
		a.sample_period = 1000000;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		_exit(fd < 0 ? (errno & 0x7f) : 0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 100) {
		fail(res, "could not become an ordinary user to try (perf_event_paranoid %d)",
		     paranoid);
		return;
	}
	res->ok = WEXITSTATUS(status) == 0;
	if (res->ok)
		snprintf(
		    res->detail, sizeof(res->detail),
		    "perf_event_paranoid %d: an ordinary user samples its own programs in user "
		    "space",
		    paranoid);
	else
		fail(res,
		     "perf_event_paranoid %d: an ordinary user is refused (%s); lower it "
		     "(sysctl kernel.perf_event_paranoid=2) or grant CAP_PERFMON",
		     paranoid, strerror(WEXITSTATUS(status)));
}

void dp_probe_run(dp_probe_id id, dp_probe_result *res)
{
	memset(res, 0, sizeof(*res));
	switch (id) {
	case DP_PROBE_PAGE_FAULTS:
		probe_page_faults(res);
		break;
	case DP_PROBE_CPU_CLOCK:
		probe_cpu_clock(res);
		break;
	case DP_PROBE_TASK_CLOCK:
		probe_task_clock(res);
		break;
	case DP_PROBE_BREAKPOINT:
		probe_breakpoint(res);
		break;
	case DP_PROBE_PMU:
		probe_pmu(res);
		break;
	case DP_PROBE_UNPRIVILEGED:
		probe_unprivileged(res);
		break;
	case DP_PROBE_BRANCH_STACK:
		probe_branch_stack(res);
		break;
	default:
		fail(res, "no such probe");
	}
}
