/* dataprof dump: each record of a profile as read, one line. */
#include "dump.h"
#include "dataprof/data_src.h"
#include "../profile/perf_record.h"

#include <inttypes.h>
#include <sys/wait.h>

static dp_profile_format st_format(const dp_profile *p)
{
	return dp_profile_status(p)->format;
}

const char *dp_dump_event_name(const dp_profile *p, uint32_t ev)
{
	size_t nev;
	const dp_event_info *e = dp_profile_events(p, &nev);

	return ev < nev && e[ev].name ? e[ev].name : "?";
}

void dp_dump_time(FILE *f, const dp_record *r)
{
	if (r->has_time)
		fprintf(f, " %" PRIu64 ".%09" PRIu64, r->time / 1000000000u, r->time % 1000000000u);
	else
		fprintf(f, " -");
}

/* A perf.data file keeps its metadata, events and build-ids in its header,
 * not in records: print them first. */
void dp_dump_perf_header(FILE *f, const dp_profile *p)
{
	static const char *const keys[] = {"hostname", "kernel",       "arch",	"cpu",	  "cpuid",
					   "ncpus",    "perf_version", "clock", "cmdline"};
	const dp_build_id *bid;
	size_t nev, nbid = dp_profile_build_ids(p, &bid);
	const dp_event_info *e = dp_profile_events(p, &nev);

	fprintf(f, "# perf.data, %s mode\n", st_format(p) == DP_FMT_PERF_PIPE ? "pipe" : "file");
	for (size_t i = 0; i < DP_ARRAY_LEN(keys); i++)
		if (dp_profile_meta(p, keys[i]))
			fprintf(f, "# %s = %s\n", keys[i], dp_profile_meta(p, keys[i]));
	for (size_t i = 0; i < nev; i++)
		fprintf(f,
			"# event #%zu %s type %u config 0x%llx sample_type 0x%llx ip %s class %s\n",
			i, e[i].name, e[i].attr.type, (unsigned long long)e[i].attr.config,
			(unsigned long long)e[i].attr.sample_type,
			dp_ip_semantics_name(e[i].ip_sem), dp_event_class_name(e[i].evclass));
	for (size_t i = 0; i < nbid; i++) {
		fprintf(f, "# build-id ");
		for (unsigned k = 0; k < bid[i].size; k++)
			fprintf(f, "%02x", bid[i].id[k]);
		fprintf(f, " pid %d %s %s\n", bid[i].pid,
			bid[i].cpumode == PERF_RECORD_MISC_KERNEL ? "kernel" : "user",
			bid[i].filename);
	}
}

/* -r, -g, -b: the registers, the call chain and the branch stack */
static void print_sample_stacks(FILE *f, const dp_sample *s, const dp_dump_opts *o)
{
	if (o->regs && s->regs_user.abi) {
		fprintf(f, " regs");
		for (unsigned i = 0; i < DP_MAX_REGS; i++)
			if (s->regs_user.mask & (1ull << i))
				fprintf(f, " %s=0x%" PRIx64, dp_perf_reg_name(i),
					s->regs_user.regs[i]);
	}
	if (o->callchain && s->callchain_nr) {
		fprintf(f, " callchain");
		for (uint32_t i = 0; i < s->callchain_nr; i++)
			fprintf(f, " 0x%" PRIx64, s->callchain[i]);
	}
	if (s->sample_type & PERF_SAMPLE_BRANCH_STACK) {
		fprintf(f, " brstack %" PRIu64, s->branch_nr);
		for (uint64_t i = 0; o->branches && i < s->branch_nr; i++) {
			const struct perf_branch_entry *b = &s->branches[i];
			char pred = b->predicted ? 'P' : '-';

			fprintf(f, " 0x%" PRIx64 "/0x%" PRIx64 "/%c", (uint64_t)b->from,
				(uint64_t)b->to, b->mispred ? 'M' : pred);
		}
	}
}

static void print_sample(FILE *f, const dp_profile *p, const dp_sample *s, const dp_dump_opts *o)
{
	uint64_t st = s->sample_type;

	fprintf(f, " %s pid %u/%u cpu %u ip 0x%" PRIx64 " %s", dp_dump_event_name(p, s->event),
		s->pid, s->tid, s->cpu, s->ip,
		(s->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ? "kernel"
										     : "user");
	if (st & PERF_SAMPLE_ADDR)
		fprintf(f, " addr 0x%" PRIx64, s->addr);
	if (st & PERF_SAMPLE_PERIOD)
		fprintf(f, " period %" PRIu64, s->period);
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		fprintf(f, " weight %" PRIu64, s->weight);
	if (st & PERF_SAMPLE_DATA_SRC) {
		char lvl[64], tlb[64];

		dp_data_src_level(s->data_src, lvl, sizeof(lvl));
		dp_data_src_tlb(s->data_src, tlb, sizeof(tlb));
		fprintf(f, " data_src 0x%" PRIx64 " [%s, %s, tlb %s]", s->data_src,
			dp_data_src_op(s->data_src), lvl, tlb);
	}
	print_sample_stacks(f, s, o);
}

static void print_mmap(FILE *f, const dp_mmap_info *m)
{
	fprintf(f, " pid %u/%u [0x%" PRIx64 "-0x%" PRIx64 ") pgoff 0x%" PRIx64 " %c%c%c %s", m->pid,
		m->tid, m->start, m->start + m->len, m->pgoff, m->prot & 1 ? 'r' : '-',
		m->prot & 2 ? 'w' : '-', m->prot & 4 ? 'x' : '-', m->exec ? "exec" : "data");
	if (m->build_id_size) {
		fprintf(f, " build-id ");
		for (unsigned i = 0; i < m->build_id_size; i++)
			fprintf(f, "%02x", m->build_id[i]);
	}
	fprintf(f, " %s", m->filename);
}

static void print_event(FILE *f, const dp_profile *p, uint32_t ev)
{
	size_t n;
	const dp_event_info *e = dp_profile_events(p, &n);

	if (ev < n)
		fprintf(f, " #%u %s type %u config 0x%llx %s %llu ip %s class %s", ev, e[ev].name,
			e[ev].attr.type, (unsigned long long)e[ev].attr.config,
			e[ev].attr.freq ? "freq" : "period",
			(unsigned long long)e[ev].attr.sample_period,
			dp_ip_semantics_name(e[ev].ip_sem), dp_event_class_name(e[ev].evclass));
}

static void print_finish(FILE *f, const struct dp_rec_finish *fin)
{
	fprintf(f, " samples %" PRIu64 " lost %" PRIu64 " throttles %" PRIu64, fin->samples,
		fin->lost, fin->throttles);
	if (fin->flags & DP_FINISH_SWITCHED) /* no exit status yet */
		fprintf(f, " switched (the recording goes on in the next file)");
	else if (fin->flags & DP_FINISH_DETACHED)
		fprintf(f, " detached");
	else if (WIFEXITED(fin->wait_status))
		fprintf(f, " exit %d", WEXITSTATUS(fin->wait_status));
	else if (WIFSIGNALED(fin->wait_status))
		fprintf(f, " killed by signal %d", WTERMSIG(fin->wait_status));
	if (fin->flags & DP_FINISH_INTERRUPTED)
		fprintf(f, " interrupted");
	if (fin->flags & DP_FINISH_DISK_FULL)
		fprintf(f, " disk-full");
}

static void print_alloc(FILE *f, const struct dp_rec_alloc *a)
{
	static const char *const kinds[] = {"?", "malloc", "calloc", "realloc", "aligned", "mmap"};

	fprintf(f, " pid %u/%u %s 0x%" PRIx64 " size %" PRIu64 " site", a->pid, a->tid,
		a->kind < 6 ? kinds[a->kind] : "?", a->addr, a->size);
	for (uint32_t i = 0; i < a->nframes; i++)
		fprintf(f, " 0x%" PRIx64, a->frames[i]);
}

static void print_reading(FILE *f, const dp_record *r)
{
	fprintf(f, " sensors #%u-#%u (%u ns):", r->reading.first,
		r->reading.first + r->reading.n - 1, r->reading.duration);
	for (uint32_t i = 0; i < r->reading.n; i++) {
		if (r->reading.values[i] == DP_READING_NONE)
			fprintf(f, " -");
		else
			fprintf(f, " %" PRIu64, r->reading.values[i]);
	}
}

/* Each mark as id@time+overhead; times relative to the record's first mark. */
static void print_marks(FILE *f, const dp_record *r)
{
	fprintf(f, " pid %u/%u app 0x%08x %u marks:", r->pid, r->tid, r->marker.app, r->marker.n);
	for (uint32_t i = 0; i < r->marker.n; i++) {
		const struct dp_mark *m = &r->marker.marks[i];

		fprintf(f, " 0x%x@+%" PRIu64 "+%" PRIu64 "%s", m->id, m->time - r->time,
			m->end - m->time, m->flags & DP_MARK_FLUSHED ? "(flushed)" : "");
	}
}

static void print_marker_name(FILE *f, const dp_record *r)
{
	if (r->marker_name.id == DP_MARKER_APP)
		fprintf(f, " pid %u app 0x%08x is %s", r->pid, r->marker_name.app,
			r->marker_name.name);
	else
		fprintf(f, " pid %u app 0x%08x marker 0x%08x is %s", r->pid, r->marker_name.app,
			r->marker_name.id, r->marker_name.name);
}

static void print_other(FILE *f, const dp_profile *p, const dp_record *r)
{
	const char *name = dp_perf_record_type_name(r->type);

	if (name && st_format(p) != DP_FMT_DPROF)
		fprintf(f, " %s size %u", name, r->size);
	else
		fprintf(f, " type 0x%x size %u", r->type, r->size);
}

/* The records whose fields are one line of their own. */
static void print_simple(FILE *f, const dp_record *r)
{
	switch (r->kind) {
	case DP_R_COMM:
		fprintf(f, " pid %u/%u %s%s", r->pid, r->tid, r->comm.comm,
			r->comm.exec ? " (exec)" : "");
		break;
	case DP_R_FORK:
	case DP_R_EXIT:
		fprintf(f, " pid %u/%u parent %u/%u", r->task.pid, r->task.tid, r->task.ppid,
			r->task.ptid);
		break;
	case DP_R_LOST:
	case DP_R_LOST_SAMPLES:
		fprintf(f, " %" PRIu64 " lost", r->lost.count);
		break;
	case DP_R_THROTTLE:
	case DP_R_UNTHROTTLE:
		fprintf(f, " id %" PRIu64, r->throttle.id);
		break;
	case DP_R_META:
		fprintf(f, " %s = %s", r->meta.key, r->meta.value);
		break;
	case DP_R_THREAD:
		fprintf(f, " pid %u/%u fs_base 0x%" PRIx64 " gs_base 0x%" PRIx64, r->pid, r->tid,
			r->thread->fs_base, r->thread->gs_base);
		break;
	case DP_R_WARNING:
		fprintf(f, " %s", r->warning);
		break;
	case DP_R_SENSOR:
		fprintf(f, " #%u %s %s %s", r->sensor.id, r->sensor.name,
			r->sensor.kind == DP_SENSOR_COUNTER ? "counter" : "gauge", r->sensor.unit);
		break;
	case DP_R_FREE:
		fprintf(f, " pid %u/%u 0x%" PRIx64 "%s", r->free_rec->pid, r->free_rec->tid,
			r->free_rec->addr,
			r->free_rec->kind == DP_ALLOC_MMAP	? " (munmap)"
			: r->free_rec->kind == DP_ALLOC_REALLOC ? " (realloc)"
								: "");
		break;
	case DP_R_AUX:
		fprintf(f, " offset 0x%" PRIx64 " size %" PRIu64 " flags 0x%" PRIx64, r->aux.offset,
			r->aux.size, r->aux.flags);
		break;
	default:
		break;
	}
}

void dp_dump_record(FILE *f, const dp_profile *p, const dp_record *r, const dp_dump_opts *o)
{
	fprintf(f, "%s0x%08" PRIx64, r->decompressed ? "z" : "", r->offset);
	dp_dump_time(f, r);
	fprintf(f, " %s", dp_record_kind_name(r->kind));
	switch (r->kind) {
	case DP_R_SAMPLE:
		print_sample(f, p, r->sample, o);
		break;
	case DP_R_MMAP:
		print_mmap(f, &r->mmap);
		break;
	case DP_R_EVENT:
		print_event(f, p, r->event);
		break;
	case DP_R_FINISH:
		print_finish(f, r->finish);
		break;
	case DP_R_ALLOC:
		print_alloc(f, r->alloc);
		break;
	case DP_R_READING:
		print_reading(f, r);
		break;
	case DP_R_MARKER:
		print_marks(f, r);
		break;
	case DP_R_MARKER_NAME:
		print_marker_name(f, r);
		break;
	case DP_R_OTHER:
		print_other(f, p, r);
		break;
	default:
		print_simple(f, r);
		break;
	}
	fputc('\n', f);
}
