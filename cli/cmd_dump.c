/* dataprof dump: every record of a profile, one line each, like perf script -D. */
#include "cli.h"
#include "dataprof/data_src.h"
#include "dataprof/profile.h"
#include "util.h"
#include "../profile/perf_record.h"
#include "../decode/decode.h"
#include "../annotate/annotate.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

typedef struct dump_opts {
	bool regs, callchain, branches, summary_only, decoded, annotated;
	const char *symfs;
	dp_decoder *dec;
	dp_annotator *ann;
} dump_opts;

static void usage(FILE *f)
{
	cli_usage(f, 21,
		  "usage: dataprof dump [OPTIONS] [FILE]\n\n"
		  "Prints every record of a profile (dataprof.dprof by default) or of a\n"
		  "perf.data file, one line each: offset (z0x...: in the data decompressed\n"
		  "from perf's compressed records), time, type and fields.\n\n"
		  "@input\n"
		  "  -r, --regs         print the sampled registers\n"
		  "  -g, --callchain    print call chains\n"
		  "  -b, --branches     print branch stacks, newest first: FROM/TO/M\n"
		  "                     (M mispredicted, P predicted, - not known)\n"
		  "  -s, --summary      print only the summary\n"
		  "  -d, --decoded      one line per sample: the causing instruction, its\n"
		  "                     data address (computed and hardware) and the verdict\n"
		  "  -a, --annotated    one line per sample: function, source line, data object,\n"
		  "                     type and member path, and why any is missing\n"
		  "@symfs\n"
		  "@help\n");
}

static dp_profile_format st_format(const dp_profile *p)
{
	return dp_profile_status(p)->format;
}

/* A perf.data file keeps its metadata, events and build-ids in its header,
 * not in records: print them first. */
static void print_perf_header(const dp_profile *p)
{
	static const char *const keys[] = {"hostname", "kernel", "arch", "cpu", "cpuid",
					   "ncpus", "perf_version", "clock", "cmdline"};
	const dp_build_id *bid;
	size_t nev, nbid = dp_profile_build_ids(p, &bid);
	const dp_event_info *e = dp_profile_events(p, &nev);

	printf("# perf.data, %s mode\n", st_format(p) == DP_FMT_PERF_PIPE ? "pipe" : "file");
	for (size_t i = 0; i < DP_ARRAY_LEN(keys); i++)
		if (dp_profile_meta(p, keys[i]))
			printf("# %s = %s\n", keys[i], dp_profile_meta(p, keys[i]));
	for (size_t i = 0; i < nev; i++)
		printf("# event #%zu %s type %u config 0x%llx sample_type 0x%llx ip %s class %s\n",
		       i, e[i].name, e[i].attr.type, (unsigned long long)e[i].attr.config,
		       (unsigned long long)e[i].attr.sample_type, dp_ip_semantics_name(e[i].ip_sem),
		       dp_event_class_name(e[i].evclass));
	for (size_t i = 0; i < nbid; i++) {
		printf("# build-id ");
		for (unsigned k = 0; k < bid[i].size; k++)
			printf("%02x", bid[i].id[k]);
		printf(" pid %d %s %s\n", bid[i].pid,
		       bid[i].cpumode == PERF_RECORD_MISC_KERNEL ? "kernel" : "user", bid[i].filename);
	}
}

static void print_time(const dp_record *r)
{
	if (r->has_time)
		printf(" %" PRIu64 ".%09" PRIu64, r->time / 1000000000u, r->time % 1000000000u);
	else
		printf(" -");
}

static void print_sample(const dp_profile *p, const dp_sample *s, const dump_opts *o)
{
	size_t nev;
	const dp_event_info *ev = dp_profile_events(p, &nev);
	uint64_t st = s->sample_type;

	printf(" %s pid %u/%u cpu %u ip 0x%" PRIx64 " %s",
	       s->event < nev && ev[s->event].name ? ev[s->event].name : "?", s->pid, s->tid,
	       s->cpu, s->ip, (s->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL
				      ? "kernel"
				      : "user");
	if (st & PERF_SAMPLE_ADDR)
		printf(" addr 0x%" PRIx64, s->addr);
	if (st & PERF_SAMPLE_PERIOD)
		printf(" period %" PRIu64, s->period);
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		printf(" weight %" PRIu64, s->weight);
	if (st & PERF_SAMPLE_DATA_SRC) {
		char lvl[64], tlb[64];

		dp_data_src_level(s->data_src, lvl, sizeof(lvl));
		dp_data_src_tlb(s->data_src, tlb, sizeof(tlb));
		printf(" data_src 0x%" PRIx64 " [%s, %s, tlb %s]", s->data_src,
		       dp_data_src_op(s->data_src), lvl, tlb);
	}
	if (o->regs && s->regs_user.abi) {
		printf(" regs");
		for (unsigned i = 0; i < DP_MAX_REGS; i++)
			if (s->regs_user.mask & (1ull << i))
				printf(" %s=0x%" PRIx64, dp_perf_reg_name(i), s->regs_user.regs[i]);
	}
	if (o->callchain && s->callchain_nr) {
		printf(" callchain");
		for (uint32_t i = 0; i < s->callchain_nr; i++)
			printf(" 0x%" PRIx64, s->callchain[i]);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		printf(" brstack %" PRIu64, s->branch_nr);
		for (uint64_t i = 0; o->branches && i < s->branch_nr; i++) {
			const struct perf_branch_entry *b = &s->branches[i];
			char pred = b->predicted ? 'P' : '-';

			printf(" 0x%" PRIx64 "/0x%" PRIx64 "/%c", (uint64_t)b->from,
			       (uint64_t)b->to, b->mispred ? 'M' : pred);
		}
	}
}

static void print_decoded(const dp_profile *p, const dp_record *r, const dump_opts *o)
{
	const dp_sample *s = r->sample;
	size_t nev;
	const dp_event_info *ev = dp_profile_events(p, &nev);
	dp_decoded x;
	char text[128], bytes[64];

	dp_decode_sample(o->dec, s, &x);
	printf("0x%08" PRIx64, r->offset);
	print_time(r);
	printf(" %s %u/%u ip 0x%" PRIx64, s->event < nev && ev[s->event].name ? ev[s->event].name : "?",
	       s->pid, s->tid, s->ip);
	if (x.function)
		printf(" %s+0x%" PRIx64, x.function, x.ip_vaddr - x.function_vaddr);
	else if (x.map)
		printf(" %s", x.map->name);
	if (x.insn >= 0) {
		dp_decoded_insn_text(o->dec, &x, text, sizeof(text));
		dp_decoded_insn_bytes(&x, bytes, sizeof(bytes));
		printf(" | insn 0x%" PRIx64 " [%s] %s", x.insn_ip, bytes, text);
		if (x.distance)
			printf(" (-%u)", x.distance);
	}
	printf(" |");
	if (x.has_computed)
		printf(" addr 0x%" PRIx64, x.computed_addr);
	if (x.has_hw)
		printf(" hw 0x%" PRIx64 "%s", x.hw_addr,
		       x.has_computed ? (x.hw_agrees ? " (agrees)" : " (DIFFERS)") : "");
	printf(" %s", dp_verdict_name(x.verdict));
	if (x.reason)
		printf(" (%s)", dp_reason_name(x.reason));
	putchar('\n');
}

static void print_annotated(const dp_profile *p, const dp_record *r, const dump_opts *o)
{
	const dp_sample *s = r->sample;
	const dp_strtab *st = dp_annotator_strings(o->ann);
	size_t nev;
	const dp_event_info *ev = dp_profile_events(p, &nev);
	dp_decoded x;
	dp_annotation a;

	dp_decode_sample(o->dec, s, &x);
	dp_annotate(o->ann, s, &x, &a);
	printf("0x%08" PRIx64, r->offset);
	print_time(r);
	printf(" %s %u/%u %s", s->event < nev && ev[s->event].name ? ev[s->event].name : "?",
	       s->pid, s->tid, a.function ? dp_strtab_get(st, a.function) : "?");
	if (a.inline_chain)
		printf(" [%s]", dp_strtab_get(st, a.inline_chain));
	if (a.line)
		printf(" %s", dp_strtab_get(st, a.line));
	printf(" | %s", dp_verdict_name(x.verdict));
	if (x.data_addr)
		printf(" 0x%" PRIx64, x.data_addr);
	printf(" | %s", dp_object_kind_name(a.obj_kind));
	if (a.object)
		printf(" %s+0x%" PRIx64, dp_strtab_get(st, a.object),
		       x.data_addr && a.obj_addr ? x.data_addr - a.obj_addr : 0);
	if (a.obj_reason)
		printf(" (%s)", dp_annot_reason_name(a.obj_reason));
	printf(" | %s", a.type ? dp_strtab_get(st, a.type) : "-");
	if (a.member)
		printf(" %s", dp_strtab_get(st, a.member));
	if (a.type_reason)
		printf(" (%s)", dp_annot_reason_name(a.type_reason));
	putchar('\n');
}

static void print_reading(const dp_record *r)
{
	printf(" sensors #%u-#%u (%u ns):", r->reading.first, r->reading.first + r->reading.n - 1,
	       r->reading.duration);
	for (uint32_t i = 0; i < r->reading.n; i++) {
		if (r->reading.values[i] == DP_READING_NONE)
			printf(" -");
		else
			printf(" %" PRIu64, r->reading.values[i]);
	}
}

/* Each mark as id@time+overhead; times relative to the record's first mark. */
static void print_marks(const dp_record *r)
{
	printf(" pid %u/%u app 0x%08x %u marks:", r->pid, r->tid, r->marker.app, r->marker.n);
	for (uint32_t i = 0; i < r->marker.n; i++) {
		const struct dp_mark *m = &r->marker.marks[i];

		printf(" 0x%x@+%" PRIu64 "+%" PRIu64 "%s", m->id, m->time - r->time,
		       m->end - m->time, m->flags & DP_MARK_FLUSHED ? "(flushed)" : "");
	}
}

static void print_record(const dp_profile *p, const dp_record *r, const dump_opts *o)
{
	if (o->annotated) {
		if (r->kind == DP_R_SAMPLE)
			print_annotated(p, r, o);
		return;
	}
	if (o->decoded) {
		if (r->kind == DP_R_SAMPLE)
			print_decoded(p, r, o);
		return;
	}
	printf("%s0x%08" PRIx64, r->decompressed ? "z" : "", r->offset);
	print_time(r);
	printf(" %s", dp_record_kind_name(r->kind));
	switch (r->kind) {
	case DP_R_SAMPLE:
		print_sample(p, r->sample, o);
		break;
	case DP_R_MMAP: {
		const dp_mmap_info *m = &r->mmap;

		printf(" pid %u/%u [0x%" PRIx64 "-0x%" PRIx64 ") pgoff 0x%" PRIx64 " %c%c%c %s",
		       m->pid, m->tid, m->start, m->start + m->len, m->pgoff,
		       m->prot & 1 ? 'r' : '-', m->prot & 2 ? 'w' : '-', m->prot & 4 ? 'x' : '-',
		       m->exec ? "exec" : "data");
		if (m->build_id_size) {
			printf(" build-id ");
			for (unsigned i = 0; i < m->build_id_size; i++)
				printf("%02x", m->build_id[i]);
		}
		printf(" %s", m->filename);
		break;
	}
	case DP_R_COMM:
		printf(" pid %u/%u %s%s", r->pid, r->tid, r->comm.comm, r->comm.exec ? " (exec)" : "");
		break;
	case DP_R_FORK:
	case DP_R_EXIT:
		printf(" pid %u/%u parent %u/%u", r->task.pid, r->task.tid, r->task.ppid,
		       r->task.ptid);
		break;
	case DP_R_LOST:
	case DP_R_LOST_SAMPLES:
		printf(" %" PRIu64 " lost", r->lost.count);
		break;
	case DP_R_THROTTLE:
	case DP_R_UNTHROTTLE:
		printf(" id %" PRIu64, r->throttle.id);
		break;
	case DP_R_META:
		printf(" %s = %s", r->meta.key, r->meta.value);
		break;
	case DP_R_EVENT: {
		size_t n;
		const dp_event_info *e = dp_profile_events(p, &n);

		if (r->event < n)
			printf(" #%u %s type %u config 0x%llx %s %llu ip %s class %s", r->event,
			       e[r->event].name, e[r->event].attr.type,
			       (unsigned long long)e[r->event].attr.config,
			       e[r->event].attr.freq ? "freq" : "period",
			       (unsigned long long)e[r->event].attr.sample_period,
			       dp_ip_semantics_name(e[r->event].ip_sem),
			       dp_event_class_name(e[r->event].evclass));
		break;
	}
	case DP_R_FINISH: {
		const struct dp_rec_finish *f = r->finish;

		printf(" samples %" PRIu64 " lost %" PRIu64 " throttles %" PRIu64, f->samples,
		       f->lost, f->throttles);
		if (f->flags & DP_FINISH_SWITCHED) /* no exit status yet */
			printf(" switched (the recording goes on in the next file)");
		else if (f->flags & DP_FINISH_DETACHED)
			printf(" detached");
		else if (WIFEXITED(f->wait_status))
			printf(" exit %d", WEXITSTATUS(f->wait_status));
		else if (WIFSIGNALED(f->wait_status))
			printf(" killed by signal %d", WTERMSIG(f->wait_status));
		if (f->flags & DP_FINISH_INTERRUPTED)
			printf(" interrupted");
		if (f->flags & DP_FINISH_DISK_FULL)
			printf(" disk-full");
		break;
	}
	case DP_R_THREAD:
		printf(" pid %u/%u fs_base 0x%" PRIx64 " gs_base 0x%" PRIx64, r->pid, r->tid,
		       r->thread->fs_base, r->thread->gs_base);
		break;
	case DP_R_WARNING:
		printf(" %s", r->warning);
		break;
	case DP_R_ALLOC: {
		static const char *const kinds[] = {"?", "malloc", "calloc", "realloc", "aligned",
						    "mmap"};
		const struct dp_rec_alloc *a = r->alloc;

		printf(" pid %u/%u %s 0x%" PRIx64 " size %" PRIu64 " site", a->pid, a->tid,
		       a->kind < 6 ? kinds[a->kind] : "?", a->addr, a->size);
		for (uint32_t i = 0; i < a->nframes; i++)
			printf(" 0x%" PRIx64, a->frames[i]);
		break;
	}
	case DP_R_SENSOR:
		printf(" #%u %s %s %s", r->sensor.id, r->sensor.name,
		       r->sensor.kind == DP_SENSOR_COUNTER ? "counter" : "gauge", r->sensor.unit);
		break;
	case DP_R_READING:
		print_reading(r);
		break;
	case DP_R_MARKER:
		print_marks(r);
		break;
	case DP_R_MARKER_NAME:
		if (r->marker_name.id == DP_MARKER_APP)
			printf(" pid %u app 0x%08x is %s", r->pid, r->marker_name.app,
			       r->marker_name.name);
		else
			printf(" pid %u app 0x%08x marker 0x%08x is %s", r->pid, r->marker_name.app,
			       r->marker_name.id, r->marker_name.name);
		break;
	case DP_R_FREE:
		printf(" pid %u/%u 0x%" PRIx64 "%s", r->free_rec->pid, r->free_rec->tid,
		       r->free_rec->addr, r->free_rec->kind == DP_ALLOC_MMAP ? " (munmap)" : "");
		break;
	case DP_R_AUX:
		printf(" offset 0x%" PRIx64 " size %" PRIu64 " flags 0x%" PRIx64, r->aux.offset,
		       r->aux.size, r->aux.flags);
		break;
	case DP_R_OTHER: {
		const char *name = dp_perf_record_type_name(r->type);

		if (name && st_format(p) != DP_FMT_DPROF)
			printf(" %s size %u", name, r->size);
		else
			printf(" type 0x%x size %u", r->type, r->size);
		break;
	}
	}
	putchar('\n');
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
	    CLI_OPT_INPUT,
	    {"regs", no_argument, 0, 'r'},
	    {"callchain", no_argument, 0, 'g'},
	    {"branches", no_argument, 0, 'b'},
	    {"summary", no_argument, 0, 's'},
	    {"decoded", no_argument, 0, 'd'},
	    CLI_OPT_SYMFS,
	    {"annotated", no_argument, 0, 'a'},
	    CLI_OPT_HELP,
	    {0, 0, 0, 0},
	};
	cli_common co;
	const char *path;
	dump_opts o = {0};
	dp_error err = {{0}};
	dp_profile *p;
	dp_record r;
	int c, rc;

	cli_common_init(&co, "dump", usage);
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:rgbsdah", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			o.regs = true;
			break;
		case 'g':
			o.callchain = true;
			break;
		case 'b':
			o.branches = true;
			break;
		case 's':
			o.summary_only = true;
			break;
		case 'd':
			o.decoded = true;
			break;
		case 'a':
			o.annotated = o.decoded = true;
			break;
		default:
			if ((rc = cli_common_opt(&co, c)) != CLI_OPT_TAKEN)
				return rc;
		}
	}
	if (cli_common_profile(&co, argc, argv) < 0)
		return 2;
	path = co.input;
	o.symfs = co.symfs;
	p = dp_profile_open(path, &err);
	if (!p) {
		cli_error("%s", err.msg);
		return 1;
	}
	if (o.decoded) {
		dp_decode_opts dopts = {o.symfs, false};

		o.dec = dp_decoder_open(p, &dopts, &err);
		if (!o.dec) {
			cli_error("%s", err.msg);
			dp_profile_close(p);
			return 1;
		}
		if (o.annotated)
			o.ann = dp_annotator_open(o.dec, p, &err);
	}
	if (!o.summary_only && !o.decoded && st_format(p) != DP_FMT_DPROF)
		print_perf_header(p);
	while ((rc = dp_profile_next(p, &r)) > 0) {
		if (o.decoded && o.summary_only && r.kind == DP_R_SAMPLE) {
			dp_decoded x;
			dp_annotation an;
			dp_decode_sample(o.dec, r.sample, &x);
			if (o.ann)
				dp_annotate(o.ann, r.sample, &x, &an);
		} else if (!o.summary_only) {
			print_record(p, &r, &o);
		}
	}

	const dp_read_status *st = dp_profile_status(p);
	size_t nev;
	const dp_event_info *ev = dp_profile_events(p, &nev);

	printf("# %" PRIu64 " records, %" PRIu64 " samples", st->records, st->samples);
	for (size_t i = 0; i < nev; i++)
		printf("%s%s %" PRIu64, i ? ", " : " (", ev[i].name ? ev[i].name : "?",
		       ev[i].samples);
	printf("%s, %" PRIu64 " lost, %" PRIu64 " throttled, %" PRIu64 " unknown, %" PRIu64
	       " bad samples",
	       nev ? ")" : "", st->lost + st->lost_samples, st->throttles, st->unknown_records,
	       st->bad_samples);
	if (st->readings)
		printf(", %" PRIu64 " counter readings", st->readings);
	if (st->marks)
		printf(", %" PRIu64 " marks", st->marks);
	putchar('\n');
	if (o.dec) {
		dp_decode_print_summary(o.dec, p, stdout);
		if (o.ann) {
			dp_annotate_print_summary(o.ann, stdout);
			dp_annotator_free(o.ann);
		}
		dp_decoder_free(o.dec);
	}
	if (rc < 0)
		cli_error("%s: %s", path, st->error);
	else if (st->truncated_at)
		cli_error("warning: '%s' ends inside a record at offset %" PRIu64
			  ": the recording was cut short; every record before it was read",
			  path, st->truncated_at);
	else if (!st->finished && st->format == DP_FMT_DPROF)
		cli_error("warning: '%s' has no end record: the recorder did not finish (killed?); "
			  "every record in it was read",
			  path);
	dp_profile_close(p);
	return rc < 0 ? 1 : 0;
}
