#include "self_profile.h"

#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profile/writer.h"
#include "profile/writer_timeline.h"
#include "sampler/synth.h"
#include "tests/unit/synth_records.h"

#define ID 7

static void sample(dp_writer *w, const struct perf_event_attr *a, uint64_t ip, uint64_t addr,
		   uint64_t t)
{
	struct synth_pf_sample s;

	(void)a; /* the layout of IDENTIFIER|IP|TID|TIME|ADDR|CPU|PERIOD */
	memset(&s, 0, sizeof(s));
	s.h.type = PERF_RECORD_SAMPLE;
	s.h.misc = PERF_RECORD_MISC_USER;
	s.h.size = sizeof(s);
	s.id = ID;
	s.ip = ip;
	s.pid = (uint32_t)getpid();
	s.tid = (uint32_t)syscall(SYS_gettid);
	s.time = t;
	s.addr = addr;
	s.period = 1;
	dp_writer_add(w, &s, sizeof(s));
}

static void marks(dp_writer *w, uint64_t t0, uint64_t t1)
{
	struct dp_rec_marker mk;
	struct dp_mark m[2];
	unsigned char rec[sizeof(mk) + sizeof(m)];
	struct {
		struct dp_rec_marker_name r;
		char name[8];
	} nm;

	memset(&mk, 0, sizeof(mk));
	mk.h.type = DP_REC_MARKER;
	mk.h.size = sizeof(rec);
	mk.pid = (uint32_t)getpid();
	mk.tid = (uint32_t)syscall(SYS_gettid);
	mk.app = 1;
	mk.n = 2;
	m[0] = (struct dp_mark){1, 0, t0, t0 + 10};
	m[1] = (struct dp_mark){2, 0, t1, t1 + 10};
	memcpy(rec, &mk, sizeof(mk));
	memcpy(rec + sizeof(mk), m, sizeof(m));
	dp_writer_add(w, rec, sizeof(rec));
	for (uint32_t id = 1; id <= 2; id++) {
		memset(&nm, 0, sizeof(nm));
		nm.r.h.type = DP_REC_MARKER_NAME;
		nm.r.h.size = sizeof(nm);
		nm.r.pid = mk.pid;
		nm.r.app = 1;
		nm.r.id = id;
		memcpy(nm.name, id == 1 ? "begin" : "end", id == 1 ? 6 : 4);
		dp_writer_add(w, &nm, sizeof(nm));
	}
}

int self_profile_write(const char *path, const self_sample *s, size_t n, uint64_t heap,
		       uint64_t heap_size, uint64_t site)
{
	struct perf_event_attr a;
	dp_writer w;
	dp_error err;
	uint64_t id = ID, t0 = dp_now_ns(), v[2];
	struct dp_rec_alloc al;
	unsigned char rec[sizeof(al) + 8];

	a = synth_page_fault_attr();
	a.sample_period = 1;
	a.mmap = a.mmap2 = a.comm = a.task = 1;
	if (dp_writer_open(&w, path, t0, 0, &err) < 0)
		return -1;
	dp_writer_add_meta(&w, "command", "fuzz");
	dp_writer_add_event(&w, 0, "page-faults", &a, DP_IP_EXACT, DP_EVC_MEMORY, &id, 1);
	dp_writer_add_sensor(&w, 0, DP_SENSOR_COUNTER, "events", "proc/vmstat/pgfault");
	dp_synth_process(&w, getpid(), &a, id, NULL);
	memset(&al, 0, sizeof(al));
	al.h.type = DP_REC_ALLOC;
	al.h.size = sizeof(rec);
	al.time = dp_now_ns();
	al.pid = (uint32_t)getpid();
	al.tid = (uint32_t)syscall(SYS_gettid);
	al.addr = heap;
	al.size = heap_size;
	al.kind = DP_ALLOC_MALLOC;
	al.nframes = 1;
	memcpy(rec, &al, sizeof(al));
	memcpy(rec + sizeof(al), &site, 8);
	dp_writer_add(&w, rec, sizeof(rec));
	v[0] = 100;
	dp_writer_add_reading(&w, dp_now_ns(), 1000, 0, v, 1);
	uint64_t t = dp_now_ns() + 1000;
	marks(&w, t, t + 1000 * n + 1000);
	for (size_t i = 0; i < n; i++)
		sample(&w, &a, s[i].ip, s[i].addr, t + 500 + 1000 * i);
	v[0] = 200;
	dp_writer_add_reading(&w, t + 1000 * n + 2000, 1000, 0, v, 1);
	return dp_writer_close(&w);
}
