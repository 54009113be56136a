/* The raw profile (.dprof) on disk. Documented in docs/format.md.
 *
 * A file is a 64-byte header followed by records. Every record starts with
 * the kernel's struct perf_event_header {u32 type; u16 misc; u16 size} and
 * is a multiple of 8 bytes long. Records the kernel produced (samples,
 * MMAP2, COMM, FORK, EXIT, LOST, THROTTLE...) are stored exactly as the
 * kernel wrote them into the ring buffer; dataprof's own records use types
 * from DP_REC_BASE up. The file is written as the run goes and never
 * rewritten, so any prefix that ends on a record boundary is a valid profile:
 * a reader stops at the first incomplete record and reports its offset.
 * All integers are little-endian; all times are CLOCK_MONOTONIC nanoseconds.
 */
#ifndef DATAPROF_FORMAT_H
#define DATAPROF_FORMAT_H

#include <stdint.h>

#define DP_FILE_MAGIC       "DPROF\r\n\032"
#define DP_FILE_MAGIC_LEN   8
/* 2: PACKED records may hold heap records in the heap codec
 * (DP_PACK_HEAP_CODEC), which a reader of version 1 cannot read.
 * 3: or in its codec 2 (DP_PACK_HEAP_CODEC2), which one of version 2
 * cannot read. */
#define DP_FILE_VERSION	    3
#define DP_FILE_HEADER_SIZE 64

#define DP_ARCH_X86_64 1

struct dp_file_header {
	char magic[DP_FILE_MAGIC_LEN];
	uint32_t version;
	uint32_t header_size;        /* bytes before the first record */
	uint64_t start_time_ns;      /* CLOCK_MONOTONIC when recording began */
	uint64_t start_realtime_ns;  /* CLOCK_REALTIME at the same moment */
	uint32_t arch;               /* DP_ARCH_* of the registers in samples */
	uint32_t flags;              /* none defined yet; readers ignore unknown bits */
	uint8_t reserved[24];
};

/* dataprof's own record types. The kernel's are small integers (< 0x100). */
#define DP_REC_BASE 0x44500000u /* "DP" */
enum dp_rec_type {
	DP_REC_META = DP_REC_BASE + 1,	       /* key\0value\0 */
	DP_REC_EVENT = DP_REC_BASE + 2,	       /* struct dp_rec_event + attr + name */
	DP_REC_EVENT_IDS = DP_REC_BASE + 3,    /* struct dp_rec_event_ids */
	DP_REC_FINISH = DP_REC_BASE + 4,       /* struct dp_rec_finish */
	DP_REC_THREAD = DP_REC_BASE + 5,       /* struct dp_rec_thread */
	DP_REC_ALLOC = DP_REC_BASE + 6,	       /* struct dp_rec_alloc (+ call sites) */
	DP_REC_FREE = DP_REC_BASE + 7,	       /* struct dp_rec_free */
	DP_REC_SENSOR = DP_REC_BASE + 8,       /* struct dp_rec_sensor + name */
	DP_REC_READING = DP_REC_BASE + 9,      /* struct dp_rec_reading + values */
	DP_REC_MARKER = DP_REC_BASE + 10,      /* struct dp_rec_marker + marks */
	DP_REC_MARKER_NAME = DP_REC_BASE + 11, /* struct dp_rec_marker_name + name */
	DP_REC_WARNING = DP_REC_BASE + 12,     /* u64 time, then text\0 */
	DP_REC_SIM_TRUTH = DP_REC_BASE + 13,   /* struct dp_rec_sim_truth */
	DP_REC_PACKED = DP_REC_BASE + 14,      /* struct dp_rec_packed + a zstd frame of records */
	DP_REC_INDEX = DP_REC_BASE + 15,       /* struct dp_rec_index + u64 offsets */
	DP_REC_INDEX_END = DP_REC_BASE + 16,   /* struct dp_rec_index_end: the file's last */
};

/* Where the sampled IP and registers stand relative to the instruction that
 * caused the event (docs/architecture.md: IP semantics). */
enum dp_ip_semantics {
	DP_IP_NONE = 0,        /* not tied to an instruction */
	DP_IP_EXACT = 1,       /* IP is the causing instruction; registers from before it ran (page faults) */
	DP_IP_EXACT_AFTER = 2, /* IP is the causing instruction; registers from after it retired (PEBS) */
	DP_IP_AFTER = 3,       /* the causing instruction retired before IP (traps, interrupts: skid) */
};

/* What kind of instruction can cause the event. */
enum dp_event_class {
	DP_EVC_NONE = 0,   /* not a memory event: verdict no-memory */
	DP_EVC_LOAD = 1,   /* loads only */
	DP_EVC_STORE = 2,  /* stores only */
	DP_EVC_MEMORY = 3, /* any memory access */
	DP_EVC_TIME = 4,   /* time-based (cpu-clock, cycles): the nearest memory access before the IP */
};

struct dp_rec_header {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
};

struct dp_rec_event {
	struct dp_rec_header h;
	uint32_t index;     /* event number in this profile, from 0 */
	uint16_t ip_sem;    /* enum dp_ip_semantics */
	uint16_t evclass;   /* enum dp_event_class */
	uint32_t attr_size; /* bytes of struct perf_event_attr that follow */
	uint32_t name_len;  /* bytes of the name that follow the attr, NUL included */
	/* uint8_t attr[attr_size]; char name[name_len]; padding to 8 */
};

struct dp_rec_event_ids {
	struct dp_rec_header h;
	uint32_t index; /* event */
	uint32_t n;
	uint64_t ids[]; /* the kernel's sample IDs of this event's file descriptors */
};

struct dp_rec_finish {
	struct dp_rec_header h;
	uint64_t time;
	int32_t wait_status;  /* the target's status as waitpid() gave it; -1 if detached */
	uint32_t flags;       /* DP_FINISH_* */
	uint64_t samples;     /* sample records written */
	uint64_t lost;        /* samples the kernel reported lost (LOST records) */
	uint64_t throttles;   /* THROTTLE records */
	uint64_t bytes;       /* bytes of records written before this one */
};
#define DP_FINISH_INTERRUPTED 1u /* stopped by SIGINT/SIGTERM */
#define DP_FINISH_DETACHED    2u /* -p: detached, target still running */
#define DP_FINISH_DISK_FULL   4u /* the output filled up; the record stopped early */
/* --switch-output: the recording goes on in the next file of the series;
 * the counts are this file's */
#define DP_FINISH_SWITCHED 8u

struct dp_rec_thread {
	struct dp_rec_header h;
	uint64_t time;
	uint32_t pid, tid;
	uint64_t fs_base; /* thread pointer: fs-relative operands add it */
	uint64_t gs_base;
};

/* What really happened for the SAMPLE record just before it, from the
 * simulator (record -e sim:... --sim-skid N): the instruction that caused the
 * event and the data it touched, while the sample itself says what a
 * skidding PMU would (the IP and registers N instructions later, no data
 * address). dataprof accuracy compares decode and annotate with it. */
struct dp_rec_sim_truth {
	struct dp_rec_header h;
	uint64_t time; /* the sample's */
	uint32_t pid, tid;
	uint64_t ip;   /* the instruction that caused the event */
	uint64_t addr; /* the data address it accessed */
	uint32_t size; /* bytes accessed */
	uint32_t skid; /* instructions that retired between ip and the sample's IP */
};

/* Heap allocations, from the tracker the target loads (record --heap).
 * frames[] is the allocation call site: return addresses, innermost first. */
struct dp_rec_alloc {
	struct dp_rec_header h;
	uint64_t time;
	uint32_t pid, tid;
	uint64_t addr;
	uint64_t size;
	uint32_t kind; /* DP_ALLOC_* */
	uint32_t nframes;
	uint64_t frames[];
};
enum dp_alloc_kind {
	DP_ALLOC_MALLOC = 1,
	DP_ALLOC_CALLOC = 2,
	DP_ALLOC_REALLOC = 3, /* a new block; the old one gets its FREE */
	DP_ALLOC_ALIGNED = 4, /* aligned_alloc, posix_memalign, memalign, valloc */
	DP_ALLOC_MMAP = 5,    /* anonymous mmap the program made itself */
};

/* Records compressed together (heap ALLOC and FREE records, which record
 * packs as they come): a zstd frame that decompresses to raw_size bytes of
 * complete records, read as if they stood here. With h.misc
 * DP_PACK_HEAP_CODEC or DP_PACK_HEAP_CODEC2, the frame holds those records
 * in the heap codec (profile/heap_codec.h: codec 2 also names a call chain
 * seen before by its place), which decodes to raw_size bytes of records. */
#define DP_PACK_ZSTD	    0u
#define DP_PACK_HEAP_CODEC  1u
#define DP_PACK_HEAP_CODEC2 2u
struct dp_rec_packed {
	struct dp_rec_header h;
	uint32_t raw_size;
	uint32_t packed_size; /* of the frame; zero bytes pad the record to 8 */
};

/* The index a finished file ends with, so that readers in parallel seek
 * to their share instead of walking the whole file first: where every
 * record but the samples starts (the side-band: mappings, threads, heap,
 * marks...) and where every DP_INDEX_CHUNK-th sample starts, in INDEX
 * records of ascending offsets (side-band ones first), then one INDEX_END.
 * The writer adds it at close; a file cut short has none and is walked. A
 * reader trusts it only where it agrees with the file (docs/format.md). */
#define DP_INDEX_CHUNK 1024u
#define DP_INDEX_MAGIC 0x58444e4946505244ull /* "DRPFINDX" */
enum dp_index_what {
	DP_INDEX_SIDE = 1,   /* offsets of side-band records */
	DP_INDEX_CHUNKS = 2, /* offsets of samples 0, DP_INDEX_CHUNK, 2 * DP_INDEX_CHUNK... */
};
struct dp_rec_index {
	struct dp_rec_header h;
	uint32_t what;	/* enum dp_index_what */
	uint32_t count; /* the u64 offsets that follow */
};
struct dp_rec_index_end {
	struct dp_rec_header h;
	uint64_t index_at; /* offset of the first INDEX record */
	uint64_t chunk;	   /* DP_INDEX_CHUNK */
	uint64_t nside, nchunks;
	uint64_t samples; /* sample records in the file */
	uint64_t check;	  /* FNV-1a of the bytes from index_at to here */
	uint64_t magic;	  /* DP_INDEX_MAGIC: the file's last 8 bytes */
};

struct dp_rec_free {
	struct dp_rec_header h;
	uint64_t time;
	uint32_t pid, tid;
	uint64_t addr;
	uint32_t kind; /* DP_ALLOC_MMAP for munmap, DP_ALLOC_REALLOC for realloc's old
			* block (its new one's ALLOC follows in the same thread), else 0 */
	uint32_t reserved;
	uint64_t size; /* munmap length; 0 for free() */
};

/* System counters (record --counters, dataprof stat). A SENSOR record
 * describes one sensor before any READING uses its id; a READING holds the
 * values of one collection, for the sensors first..first+n-1 (a collection
 * of more sensors than one record holds is split into several READINGs with
 * the same time). Counters are stored as 64-bit running totals, wraps
 * already unfolded: a rate is the difference of two readings over their
 * time difference. Gauges are stored as read. Units are base units (ns,
 * bytes), converted from what the kernel shows (ticks, kB). */
enum dp_sensor_kind {
	DP_SENSOR_COUNTER = 1, /* only grows: report its rate */
	DP_SENSOR_GAUGE = 2,   /* a level */
};
#define DP_SENSOR_UNIT_LEN 16
#define DP_READING_NONE    UINT64_MAX /* no value this time (process gone, file unreadable) */

struct dp_rec_sensor {
	struct dp_rec_header h;
	uint32_t id;   /* index of the sensor in READING values, from 0 */
	uint8_t kind;  /* enum dp_sensor_kind */
	uint8_t reserved[3];
	char unit[DP_SENSOR_UNIT_LEN]; /* NUL-terminated: "ns", "bytes", "pages", "events" */
	/* char name[]: source/group/sensor[#instance], NUL-terminated, padded to 8 */
};

struct dp_rec_reading {
	struct dp_rec_header h;
	uint64_t time;     /* CLOCK_MONOTONIC when the collection began */
	uint32_t duration; /* ns the collection took */
	uint32_t first;    /* sensor id of values[0] */
	uint32_t n;
	uint32_t reserved;
	uint64_t values[]; /* n values; DP_READING_NONE where a sensor had none */
};
#define DP_READING_MAX_VALUES ((0xfff8u - sizeof(struct dp_rec_reading)) / 8)

/* Code markers (include/dataprof/markers.h), sent by the marker collector in
 * the target through the agent channel. One MARKER record carries marks of
 * one thread, in the order the thread made them. time and end are
 * CLOCK_MONOTONIC: end - time is the mark's own cost (its overhead), which
 * intervals between marks subtract. */
struct dp_mark {
	uint32_t id;    /* the marker; ids with DP_MARKER_NAMED set come from names */
	uint32_t flags; /* DP_MARK_* */
	uint64_t time;  /* when the mark began */
	uint64_t end;   /* just before it returned */
};
#define DP_MARK_FLUSHED 1u /* this mark found its thread's block full and sent it: the
			    * cost of sending is inside its overhead */

struct dp_rec_marker {
	struct dp_rec_header h;
	uint32_t pid, tid;
	uint32_t app; /* application id: names itself with a MARKER_NAME of id DP_MARKER_APP */
	uint32_t n;   /* marks that follow */
	struct dp_mark marks[];
};
#define DP_MARKER_MAX_MARKS                                                                        \
	((DP_AGENT_BATCH - sizeof(struct dp_rec_marker)) / sizeof(struct dp_mark))

#define DP_MARKER_NAMED 0x80000000u /* ids of markers made by name: a hash of it */
#define DP_MARKER_APP   0xffffffffu /* MARKER_NAME id that names the application */

struct dp_rec_marker_name {
	struct dp_rec_header h;
	uint32_t pid;
	uint32_t app;
	uint32_t id; /* the marker this names, or DP_MARKER_APP */
	uint32_t reserved;
	/* char name[]: NUL-terminated, padded to 8 */
};

/* The agent channel: libraries inside the target (heap tracker, marker
 * collector) write dataprof records to the file descriptor named by this
 * environment variable, in batches of whole records of at most
 * DP_AGENT_BATCH bytes, each batch one write() (atomic on a pipe). */
#define DP_AGENT_FD_ENV "DATAPROF_AGENT_FD"
#define DP_AGENT_BATCH  4096
/* In h.misc of an ALLOC or FREE on the channel only: its time is CPU ticks
 * (rdtsc), which the recorder makes CLOCK_MONOTONIC ns before the record
 * reaches the profile (sampler/agent_ticks.h). */
#define DP_AGENT_TICKS 1u

#endif
