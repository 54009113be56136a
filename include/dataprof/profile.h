/* Reading a profile: dataprof's raw profile (.dprof) or a perf.data file,
 * through one interface. Records come in file order; each carries the
 * parsed fields of the kernel record it came from.
 *
 *	dp_profile *p = dp_profile_open("dataprof.dprof", &err);
 *	dp_record r;
 *	while (dp_profile_next(p, &r) > 0)
 *		if (r.kind == DP_R_SAMPLE) use(r.sample);
 *	if (dp_profile_status(p)->truncated_at) ...
 *	dp_profile_close(p);
 *
 * Pointers inside a record (names, call chains, raw data) stay valid until
 * the profile is closed.
 */
#ifndef DATAPROF_PROFILE_H
#define DATAPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "format.h"

typedef struct dp_profile dp_profile;

/* Registers are indexed by the kernel's perf register numbers
 * (PERF_REG_X86_AX...); regs_mask says which were captured. */
#define DP_MAX_REGS 64

typedef struct dp_regs {
	uint64_t abi;  /* PERF_SAMPLE_REGS_ABI_*; 0: none captured */
	uint64_t mask; /* bit n set: regs[n] is valid */
	uint64_t regs[DP_MAX_REGS];
} dp_regs;

typedef struct dp_sample {
	uint32_t event; /* index into dp_profile_events() */
	uint32_t cpu;
	uint32_t pid, tid;
	uint16_t misc; /* PERF_RECORD_MISC_*: user/kernel, exact IP */
	uint64_t time;
	uint64_t ip;
	uint64_t addr;
	uint64_t id, stream_id;
	uint64_t period;
	uint64_t weight;           /* WEIGHT, or WEIGHT_STRUCT's first field */
	uint32_t weight2, weight3; /* WEIGHT_STRUCT: instruction latency, ... */
	uint64_t data_src;         /* union perf_mem_data_src */
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size, code_page_size;
	uint32_t callchain_nr;
	const uint64_t *callchain;
	uint32_t raw_size;
	const void *raw;
	uint64_t branch_nr;
	const struct perf_branch_entry *branches;
	uint64_t branch_hw_idx; /* with PERF_SAMPLE_BRANCH_HW_INDEX */
	uint64_t stack_user_size;
	const void *stack_user;
	uint64_t read_size;
	const void *read; /* PERF_SAMPLE_READ values, as the kernel laid them out */
	uint64_t aux_size;
	const void *aux; /* PERF_SAMPLE_AUX: a snapshot of the AUX area */
	dp_regs regs_user;
	dp_regs regs_intr;
	uint64_t sample_type; /* which of the fields above are valid */
} dp_sample;

typedef struct dp_mmap_info {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	uint8_t build_id_size;
	uint8_t build_id[20];
	bool exec; /* false for data mappings (mmap_data) */
	const char *filename;
} dp_mmap_info;

enum dp_record_kind {
	DP_R_SAMPLE,
	DP_R_MMAP, /* MMAP and MMAP2 */
	DP_R_COMM,
	DP_R_FORK,
	DP_R_EXIT,
	DP_R_LOST,         /* kernel dropped records: lost = count */
	DP_R_LOST_SAMPLES, /* hardware/driver dropped samples */
	DP_R_THROTTLE,
	DP_R_UNTHROTTLE,
	DP_R_META,
	DP_R_EVENT,
	DP_R_FINISH,
	DP_R_THREAD,
	DP_R_WARNING,
	DP_R_ALLOC, /* a heap block (record --heap) */
	DP_R_FREE,
	DP_R_AUX,   /* new data in the AUX area (hardware trace, AUX samples) */
	DP_R_SENSOR,      /* a system counter's description */
	DP_R_READING,     /* values of system counters at one time */
	DP_R_MARKER,      /* code marks of one thread */
	DP_R_MARKER_NAME, /* the name of a marker or of an application */
	DP_R_OTHER, /* a record this reader keeps but does not interpret */
};

typedef struct dp_record {
	enum dp_record_kind kind;
	uint32_t type; /* raw record type */
	uint16_t misc;
	uint32_t size;
	uint64_t offset; /* where it starts in the file, or in the decompressed stream */
	bool decompressed; /* from inside perf's zstd-compressed records (perf record -z) */
	/* from the record or its sample_id trailer, when present */
	uint64_t time;
	uint32_t pid, tid, cpu;
	bool has_time;
	union {
		const dp_sample *sample;
		dp_mmap_info mmap;
		struct {
			const char *comm;
			bool exec;
		} comm;
		struct {
			uint32_t pid, ppid, tid, ptid;
		} task; /* FORK and EXIT */
		struct {
			uint64_t id, count;
		} lost;
		struct {
			uint64_t id, stream_id;
		} throttle;
		struct {
			uint64_t offset, size, flags; /* flags: PERF_AUX_FLAG_* */
		} aux;
		struct {
			const char *key, *value;
		} meta;
		uint32_t event; /* DP_R_EVENT: the index */
		const struct dp_rec_finish *finish;
		const struct dp_rec_thread *thread;
		const struct dp_rec_alloc *alloc;
		const struct dp_rec_free *free_rec;
		const char *warning;
		struct {
			uint32_t id;
			enum dp_sensor_kind kind;
			const char *unit, *name;
		} sensor;
		struct {
			uint32_t first, n; /* values of sensors first..first+n-1 */
			uint32_t duration; /* ns the collection took */
			const uint64_t *values; /* DP_READING_NONE: no value */
		} reading;
		struct {
			uint32_t app, n;
			const struct dp_mark *marks; /* time order, one thread (pid, tid) */
		} marker;
		struct {
			uint32_t app, id; /* id DP_MARKER_APP: the application's name */
			const char *name;
		} marker_name;
		const void *other; /* the whole record */
	};
} dp_record;

typedef struct dp_event_info {
	uint32_t index;
	const char *name;
	struct perf_event_attr attr;
	enum dp_ip_semantics ip_sem;
	enum dp_event_class evclass;
	uint64_t samples; /* filled while reading */
} dp_event_info;

/* A build-id perf recorded for a binary that samples hit (perf.data's
 * HEADER_BUILD_ID feature and BUILD_ID records): the decode stage finds the
 * binary by it. Raw profiles carry build-ids in their MMAP2 records. */
typedef struct dp_build_id {
	int32_t pid;          /* perf's machine: -1 the host, else a guest's pid */
	uint16_t cpumode;     /* PERF_RECORD_MISC_KERNEL, _USER, _GUEST_*: whose binary */
	uint8_t size;         /* bytes of id: 20 (SHA-1) or 16 (MD5) */
	uint8_t id[20];
	const char *filename; /* as perf names it: a path, "[kernel.kallsyms]", "[vdso]" */
} dp_build_id;

/* A system counter, from its SENSOR record. */
typedef struct dp_sensor_info {
	uint32_t id;
	enum dp_sensor_kind kind;
	const char *unit;
	const char *name; /* NULL: an id no SENSOR record described */
} dp_sensor_info;

typedef enum dp_profile_format {
	DP_FMT_DPROF,
	DP_FMT_PERF_FILE,
	DP_FMT_PERF_PIPE,
} dp_profile_format;

/* Counts a reader keeps as it goes. */
typedef struct dp_read_status {
	dp_profile_format format;
	uint64_t records;
	uint64_t samples;
	uint64_t lost;          /* sum of LOST counts */
	uint64_t lost_samples;  /* sum of LOST_SAMPLES counts */
	uint64_t throttles;
	uint64_t unknown_records; /* types (and perf.data features) skipped by size */
	uint64_t bad_samples;     /* samples that did not parse: skipped, counted */
	uint64_t readings;        /* READING records */
	uint64_t marks;           /* code marks, over all MARKER records */
	uint64_t truncated_at;    /* != 0: the file ends inside the record at this offset */
	bool finished;            /* a FINISH record was seen, or perf completed its file
				   header: the recorder ended normally */
	char error[512];          /* set when reading stopped on corrupt data */
} dp_read_status;

struct dp_error;

/* Opens a raw profile or a perf.data file, file or pipe mode (detected from
 * its first bytes; docs/perf-data.md). path "-" reads stdin. Returns NULL
 * with a one-line message in err.
 * path may also name several files of one series (record --switch-output)
 * to be read as one profile, in the series' order: a glob pattern, or paths
 * and patterns separated by DP_PROFILE_SPEC_SEP (the CLI's repeated -i). */
#define DP_PROFILE_SPEC_SEP "\n"
dp_profile *dp_profile_open(const char *path, struct dp_error *err);
/* The bytes of the files path names, as dp_profile_open would open them;
 * false when one is not a regular file (standard input, a pipe) or none
 * exists: such input is read once, by one reader. */
bool dp_profile_spec_bytes(const char *path, uint64_t *bytes);
void dp_profile_close(dp_profile *p);

/* 1: a record; 0: the end (or a truncated tail: see status); -1: corrupt
 * data, message in status->error. */
int dp_profile_next(dp_profile *p, dp_record *r);
/* Back to the first record, for a second pass. */
void dp_profile_rewind(dp_profile *p);
/* For a pass over the side-band records only: samples are skipped unread. */
void dp_profile_skip_samples(dp_profile *p, bool skip);
/* For a reader that takes its heap blocks from another's (a parallel
 * report's parts): heap records, and the PACKED records that hold them,
 * are passed over unread. */
void dp_profile_skip_heap(dp_profile *p, bool skip);
/* A pass over the side-band records only, from the first: observe(ctx, r)
 * for each; then back to the first record, samples read again. */
void dp_profile_side_band(dp_profile *p, void (*observe)(void *ctx, const dp_record *r), void *ctx);

/* For readers working in parallel, each on its own dp_profile of the same
 * file: the samples, counted in file order in chunks of chunk, are this
 * reader's when chunk index % parts == part; the others are skipped
 * unparsed. Takes effect from the next rewind; parts <= 1: every sample. */
void dp_profile_share_samples(dp_profile *p, unsigned part, unsigned parts, uint64_t chunk);
/* The sample records met since the rewind, this reader's and the others'
 * it skipped: the last sample given is number this - 1 of the file's (when
 * the reader has not sought). */
uint64_t dp_profile_samples_met(const dp_profile *p);
/* Adds the sample counts (status, per event) that another reader of the
 * same file made of its share to p's; with records, its counts of the other
 * records too (readers that each read part of the file: dp_profile_seek). */
void dp_profile_add_counts(dp_profile *p, const dp_profile *other, bool records);

/* A map of the file for readers in parallel, made by the next side-band
 * pass (dp_profile_skip_samples) after dp_profile_index: where the
 * side-band records are, and where every chunk-th sample starts. Another
 * reader of the same file seeks to those instead of walking all of it. */
typedef struct dp_profile_map {
	const uint64_t *side, *chunks;
	size_t nside, nchunks;
	/* a stored index's (dp_profile_stored_index): the samples in all, and
	 * where a series' files restart the count, each chunk's first
	 * sample (NULL: chunk c starts at sample c * chunk) */
	const uint64_t *seq;
	uint64_t samples;
	bool stored; /* the file's own index: it says where records start */
} dp_profile_map;
void dp_profile_index(dp_profile *p, uint64_t chunk);
/* false when there is none, or the file cannot be read from an offset (a
 * perf.data compressed with -z decompresses as one stream). Valid until
 * p is closed or indexed again. */
bool dp_profile_index_get(const dp_profile *p, dp_profile_map *m);
/* The map a finished raw profile carries in its index (format.h,
 * DP_REC_INDEX), chunks of DP_INDEX_CHUNK samples: as a side-band pass with
 * dp_profile_index(p, DP_INDEX_CHUNK) would make it, without the pass.
 * false when the file has none, or one that disagrees with it, a series
 * one of whose files has none, or perf.data. Valid until p is closed. */
bool dp_profile_stored_index(const dp_profile *p, dp_profile_map *m);
/* The map the file gives without a side-band pass: its stored index, or
 * for perf.data (and a series of them) the one made by the walk that
 * opening it takes anyway (m->stored false: nothing to check it against).
 * false without (a perf.data compressed with -z). */
bool dp_profile_own_map(const dp_profile *p, dp_profile_map *m);
/* How dp_profile_open_with opens a profile (all zero: as dp_profile_open). */
typedef struct dp_profile_open_opts {
	/* another reader of the profile, open already, whose own map this is
	 * (NULL: none): a perf.data file's opening walk then reads only the
	 * records it names as side band (the description records are among
	 * them) and takes its chunks, instead of every record of the file */
	const dp_profile_map *beside;
	/* without beside, how many threads the opening walk of a large
	 * perf.data file may use (0 or 1: the caller's alone); the map it
	 * makes says where chunks start (seq), which then may hold fewer
	 * samples than chunk */
	unsigned threads;
} dp_profile_open_opts;
dp_profile *dp_profile_open_with(const char *path, const dp_profile_open_opts *o,
				 struct dp_error *err);
/* The position of the next record (of the PACKED record being read, while
 * inside one), and reading from such a position. */
uint64_t dp_profile_tell(const dp_profile *p);
void dp_profile_seek(dp_profile *p, uint64_t pos);

const dp_read_status *dp_profile_status(const dp_profile *p);
/* The samples the kernel dropped (LOST and LOST_SAMPLES records), per event
 * and CPU as their trailers say: event DP_LOST_NO_EVENT and cpu -1 where a
 * record does not say. The counts add up to status's lost + lost_samples. */
#define DP_LOST_NO_EVENT UINT32_MAX
typedef struct dp_lost_count {
	uint32_t event; /* index in dp_profile_events() */
	int32_t cpu;
	uint64_t count;
} dp_lost_count;
const dp_lost_count *dp_profile_lost(const dp_profile *p, size_t *n);
const dp_event_info *dp_profile_events(const dp_profile *p, size_t *n);
/* Sensors by id (the index); entries without a name were never described. */
const dp_sensor_info *dp_profile_sensors(const dp_profile *p, size_t *n);
/* Metadata: "cmdline", "hostname", "kernel", "arch", "cpu", "ncpus",
 * "clock", "version" (dataprof's)... perf.data files give "perf_version" and
 * "cpuid" instead of "version" (docs/perf-data.md). NULL when absent. */
const char *dp_profile_meta(const dp_profile *p, const char *key);
/* The bytes of record r as they stand in a raw profile (r->size of them),
 * or NULL (a perf.data file, a record unpacked from a PACKED one). */
const void *dp_profile_record_bytes(const dp_profile *p, const dp_record *r);
/* The build-ids of a perf.data file, in file order; 0 for a raw profile. */
size_t dp_profile_build_ids(const dp_profile *p, const dp_build_id **ids);
const struct dp_file_header *dp_profile_header(const dp_profile *p);

const char *dp_record_kind_name(enum dp_record_kind k);
const char *dp_ip_semantics_name(enum dp_ip_semantics s);
const char *dp_event_class_name(enum dp_event_class c);

#endif
