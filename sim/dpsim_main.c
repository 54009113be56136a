/* dpsim: dataprof's Valgrind tool. Runs the program on a simulated data-cache
 * hierarchy (L1d, L2, LLC, dTLB: sim_cache.c), counts loads, stores, misses
 * per level and instructions, and writes perf-format records (SAMPLE, MMAP2,
 * COMM, FORK) and dataprof's own (ALLOC, FREE, META totals) to the file
 * descriptor dataprof gives it (--dp-fd), in batches of whole records. The
 * samples look like a precise PMU's: the exact instruction and data
 * address, the registers before the instruction ran, data_src and a
 * modelled latency as weight. Time is simulated: instructions plus modelled
 * latency at 1 GHz, from --dp-t0. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_replacemalloc.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"
#include "libvex_guest_amd64.h"

#ifndef offsetof
#define offsetof(t, m) __builtin_offsetof(t, m)
#endif

#include "dataprof/format.h"
#include "sim_abi.h"
#include "sim_cache.h"

/* perf's record types and sample fields (linux/perf_event.h), spelled out:
 * the tool is built without the C library's headers. */
#define REC_MMAP2      10
#define REC_COMM       3
#define REC_FORK       7
#define REC_SAMPLE     9
#define MISC_USER      2
#define MISC_COMM_EXEC 0x2000
#define MISC_MMAP_DATA 0x2000
#define REGS_ABI_64    2
#define NREGS	       20 /* sample_regs_user 0xff0fff */

#define BATCH DP_AGENT_BATCH

/* ---- options ---- */

typedef struct sim_event {
	UInt kind;
	ULong period; /* 0: count only */
	ULong left;   /* events to the next sample */
	ULong id;
	Addr lo, hi; /* :watch=: only accesses touching [lo, hi); hi 0: all */
} sim_event;

static Int out_fd = -1;
static sim_event events[DPS_MAX_EVENTS];
static UInt nevents;
static ULong geo[4][3] = {
    {32768, 8, 64}, {1048576, 16, 64}, {33554432, 16, 64}, {64, 4, 0}}; /* l1d l2 llc dtlb */
static ULong lat[5] = {4, 14, 50, 200, 30}; /* L1 L2 LLC RAM, dTLB miss: cycles */
static ULong t0_ns;
static Bool real_clock; /* --dp-clock=real: the host's clock, not simulated time */
static ULong skid;
static Bool heap_on;
static Bool replace_malloc; /* --dp-heap=yes seen before the options are parsed */
static ULong heap_depth = 1;

/* "a,b,c" into up to n numbers; False on anything else. */
static Bool parse_list(const HChar *s, ULong *v, UInt n)
{
	for (UInt i = 0; i < n; i++) {
		HChar *end;
		Long x = VG_(strtoll10)(s, &end);

		if (end == s || x < 0)
			return False;
		v[i] = (ULong)x;
		s = end;
		if (i + 1 < n) {
			if (*s != ',')
				return False;
			s++;
		}
	}
	return *s == 0;
}

/* The options that take a fixed number of numbers: the cache levels'
 * geometry (size, ways, line; the dTLB's entries, ways) and the latencies. */
static const struct list_opt {
	const HChar *name;
	ULong *v;
	UInt n;
} list_opts[] = {
    {"--dp-l1d", geo[0], 3},  {"--dp-l2", geo[1], 3}, {"--dp-llc", geo[2], 3},
    {"--dp-dtlb", geo[3], 2}, {"--dp-lat", lat, 5},
};

/* True if arg is one of list_opts, as VG_STR_CLO would match it ("NAME=",
 * its name not a literal here); *ok: whether its value parsed. */
static Bool list_option(const HChar *arg, Bool *ok)
{
	for (UInt i = 0; i < sizeof(list_opts) / sizeof(list_opts[0]); i++) {
		const struct list_opt *o = &list_opts[i];
		SizeT len = VG_(strlen)(o->name);

		if (VG_(check_clom)(cloP, arg, o->name,
				    VG_STREQN(len, arg, o->name) && arg[len] == '=')) {
			*ok = parse_list(arg + len + 1, o->v, o->n);
			return True;
		}
	}
	return False;
}

static Bool process_cmd_line_option(const HChar *arg)
{
	const HChar *s;
	Long num = 0;
	Bool ok;

	if VG_INT_CLO (arg, "--dp-fd", num)
		out_fd = (Int)num;
	else if VG_STR_CLO (arg, "--dp-event", s) {
		ULong v[5];

		if (nevents == DPS_MAX_EVENTS || !parse_list(s, v, 5) || v[0] >= DPS_NKINDS)
			return False;
		events[nevents].lo = v[3];
		events[nevents].hi = v[3] + v[4];
		events[nevents].kind = (UInt)v[0];
		events[nevents].period = v[1];
		events[nevents].left = v[1];
		events[nevents].id = v[2];
		nevents++;
	} else if (list_option(arg, &ok))
		return ok;
	else if VG_INT_CLO (arg, "--dp-t0", num)
		t0_ns = (ULong)num;
	else if VG_XACT_CLO (arg, "--dp-clock=real", real_clock, True) {
	} else if VG_INT_CLO (arg, "--dp-skid", num)
		skid = (ULong)num;
	else if VG_BOOL_CLO (arg, "--dp-heap", heap_on) {
	} else if VG_INT_CLO (arg, "--dp-heap-depth", num)
		heap_depth = (ULong)num;
	else
		return VG_(replacement_malloc_process_cmd_line_option)(arg);
	return True;
}

static void print_usage(void)
{
	VG_(printf)
	("    --dp-fd=N  --dp-event=KIND,PERIOD,ID  --dp-l1d=SIZE,WAYS,LINE\n"
	 "    --dp-l2=...  --dp-llc=...  --dp-dtlb=ENTRIES,WAYS  --dp-lat=L1,L2,LLC,RAM,TLB\n"
	 "    --dp-t0=NS  --dp-skid=N  --dp-heap=yes|no  --dp-heap-depth=N\n"
	 "    (dataprof record -e sim:... sets these)\n");
}

static void print_debug_usage(void)
{
}

/* ---- output ---- */

static UChar obuf[BATCH];
static UInt olen;

static void out_flush(void)
{
	if (olen && out_fd >= 0) {
		Int w = VG_(write)(out_fd, obuf, olen);
		if (w != (Int)olen)
			VG_(umsg)("dpsim: write fd %d: %d\n", out_fd, w);
	}
	olen = 0;
}

/* Room for a record of size bytes (a multiple of 8, at most BATCH). */
static UChar *out_reserve(UInt size)
{
	UChar *p;

	if (olen + size > BATCH)
		out_flush();
	p = obuf + olen;
	olen += size;
	VG_(memset)(p, 0, size);
	return p;
}

static void put32(UChar **p, UInt v)
{
	VG_(memcpy)(*p, &v, 4);
	*p += 4;
}

static void put64(UChar **p, ULong v)
{
	VG_(memcpy)(*p, &v, 8);
	*p += 8;
}

static void put_header(UChar **p, UInt type, UShort misc, UShort size)
{
	put32(p, type);
	VG_(memcpy)(*p, &misc, 2);
	VG_(memcpy)(*p + 2, &size, 2);
	*p += 4;
}

static UInt round8(UInt n)
{
	return (n + 7) & ~7u;
}

static void out_meta(const HChar *key, const HChar *value)
{
	UInt kl = VG_(strlen)(key) + 1, vl = VG_(strlen)(value) + 1;
	UInt size = round8(8 + kl + vl);
	UChar *p = out_reserve(size);

	put_header(&p, DP_REC_META, 0, (UShort)size);
	VG_(memcpy)(p, key, kl);
	VG_(memcpy)(p + kl, value, vl);
}

/* ---- simulated state ---- */

static Int my_pid;
static ULong sim_time(void);

/* The sample_id trailer of non-sample records (sample_id_all): TID, TIME,
 * CPU, IDENTIFIER; the identifier of the first event. */
#define TRAILER 32
static void put_trailer(UChar *p)
{
	put32(&p, (UInt)my_pid);
	put32(&p, (UInt)VG_(gettid)());
	put64(&p, sim_time());
	put64(&p, 0);
	put64(&p, nevents ? events[0].id : DPS_ID_BASE);
}

static dps_cache l1d, l2, llc, dtlb;

/* Memory the mapping says is in huge pages: MAP_HUGETLB (its page size
 * from the flags) and MADV_HUGEPAGE (2 MiB: transparent huge pages, which
 * the kernel gives such a range where it can). A huge page takes one entry
 * of the dTLB, tagged apart from the 4 KiB pages. Few ranges: a list. */
#define MAX_HUGE	    256
#define HUGE_TAG	    (1ull << 62)
#define VKI_MAP_HUGETLB	    0x40000
#define VKI_MADV_HUGEPAGE   14
#define VKI_MADV_NOHUGEPAGE 15
struct huge_range {
	Addr lo, hi;
	UInt shift;
};
static struct huge_range huge[MAX_HUGE];
static UInt nhuge, huge_last;
static Addr huge_lo, huge_hi; /* around them all: most accesses are outside */

static void huge_bounds(void)
{
	huge_lo = ~(Addr)0;
	huge_hi = 0;
	for (UInt i = 0; i < nhuge; i++) {
		huge_lo = huge[i].lo < huge_lo ? huge[i].lo : huge_lo;
		huge_hi = huge[i].hi > huge_hi ? huge[i].hi : huge_hi;
	}
	huge_last = 0;
}

static void huge_remove(Addr lo, Addr hi)
{
	for (UInt i = 0; i < nhuge;) {
		struct huge_range r = huge[i];

		if (r.hi <= lo || r.lo >= hi) {
			i++;
			continue;
		}
		huge[i] = huge[--nhuge];
		if (r.lo < lo && nhuge < MAX_HUGE)
			huge[nhuge++] = (struct huge_range){r.lo, lo, r.shift};
		if (r.hi > hi && nhuge < MAX_HUGE)
			huge[nhuge++] = (struct huge_range){hi, r.hi, r.shift};
	}
	huge_bounds();
}

/* The whole huge pages of [lo, hi). */
static void huge_add(Addr lo, Addr hi, UInt shift)
{
	Addr page = (Addr)1 << shift;

	lo = (lo + page - 1) & ~(page - 1);
	hi &= ~(page - 1);
	if (lo >= hi)
		return;
	huge_remove(lo, hi);
	if (nhuge < MAX_HUGE)
		huge[nhuge++] = (struct huge_range){lo, hi, shift};
	huge_bounds();
}

/* The key of addr's page in the dTLB: the range that held the last huge
 * access is tried first. */
static inline Addr tlb_key(Addr addr)
{
	if (LIKELY(addr - huge_lo >= huge_hi - huge_lo))
		return addr; /* none, or outside them all */
	for (UInt k = 0; k < nhuge; k++) {
		UInt i = k ? k - (k <= huge_last) : huge_last;

		if (addr - huge[i].lo < huge[i].hi - huge[i].lo) {
			huge_last = i;
			return HUGE_TAG | (addr >> huge[i].shift) << 12;
		}
	}
	return addr;
}
static Bool have_l2;
static ULong counts[DPS_NKINDS];
static ULong reported[DPS_NKINDS]; /* of counts, written out before an exec */
static ULong extra_cycles;	   /* modelled latency beyond one cycle per instruction */

/* Simulated: one cycle per instruction plus the latency beyond it, at
 * 1 GHz from the recording's start; or the host's monotonic clock, the
 * axis of kernel events, markers and counters (and the recorder's t0). */
static ULong sim_time(void)
{
	if (real_clock) {
		struct vki_timespec ts;

		VG_(clock_gettime)(&ts, VKI_CLOCK_MONOTONIC);
		return (ULong)ts.tv_sec * 1000000000ull + (ULong)ts.tv_nsec;
	}
	return t0_ns + counts[DPS_INSTRUCTIONS] + extra_cycles;
}

static void out_comm(Bool exec)
{
	const HChar *name = VG_(args_the_exename) ? VG_(args_the_exename) : "?";
	const HChar *slash = VG_(strrchr)(name, '/');
	HChar comm[16];
	UInt n, size;
	UChar *p;

	VG_(strncpy)(comm, slash ? slash + 1 : name, 15);
	comm[15] = 0;
	n = VG_(strlen)(comm) + 1;
	size = round8(8 + 8 + n) + TRAILER;
	p = out_reserve(size);
	put_header(&p, REC_COMM, MISC_USER | (exec ? MISC_COMM_EXEC : 0), (UShort)size);
	put32(&p, (UInt)my_pid);
	put32(&p, (UInt)VG_(gettid)());
	VG_(memcpy)(p, comm, n);
	put_trailer(p + round8(n));
}

/* The tool's own file (dpsim-amd64-linux, dpsimheap-amd64-linux). */
static Bool is_tool_file(const HChar *name)
{
	const HChar *b = VG_(strrchr)(name, '/');
	SizeT n = VG_(strlen)(name);

	b = b ? b + 1 : name;
	return VG_(strncmp)(b, DPS_TOOL_NAME, 5) == 0 && n > 12 &&
	       VG_(strcmp)(name + n - 12, "-amd64-linux") == 0;
}

/* The client segments reported so far: start -> last byte reported. */
typedef struct seen_seg {
	struct seen_seg *next;
	UWord key; /* segment start */
	Addr last;
} seen_seg;
static VgHashTable *seen_segs;

static void mark_seen(Addr start, Addr last)
{
	seen_seg *n;

	if (!seen_segs)
		seen_segs = VG_(HT_construct)("dpsim.segs");
	n = VG_(HT_lookup)(seen_segs, start);
	if (!n) {
		n = VG_(malloc)("dpsim.seg", sizeof(*n));
		n->key = start;
		n->last = last;
		VG_(HT_add_node)(seen_segs, n);
	} else if (last > n->last) {
		n->last = last;
	}
}

/* One MMAP2 record per client segment in [a, a+len) (a file maps as several
 * segments: each gets its own record with its file offset, as the kernel
 * reports them). */
static void out_mmap(Addr a, SizeT len)
{
	Addr end = a + len;

	while (a < end) {
		NSegment const *seg = VG_(am_find_nsegment)(a);
		const HChar *name = "//anon";
		UInt n, size, prot;
		Addr s, e;
		UChar *p;

		if (!seg)
			return;
		s = seg->start > a ? seg->start : a;
		e = seg->end + 1 < end ? seg->end + 1 : end;
		if (seg->kind == SkFileC && VG_(am_get_filename)(seg))
			name = VG_(am_get_filename)(seg);
		/* the tool's own pages are no part of the program */
		if ((seg->kind == SkFileC || seg->kind == SkAnonC || seg->kind == SkShmC) &&
		    !is_tool_file(name)) {
			n = VG_(strlen)(name) + 1;
			if (n > 2048)
				n = 2048;
			size = round8(8 + 64 + n) + TRAILER;
			prot = (seg->hasR ? 1 : 0) | (seg->hasW ? 2 : 0) | (seg->hasX ? 4 : 0);
			p = out_reserve(size);
			put_header(&p, REC_MMAP2, MISC_USER | (seg->hasX ? 0 : MISC_MMAP_DATA),
				   (UShort)size);
			put32(&p, (UInt)my_pid);
			put32(&p, (UInt)my_pid);
			put64(&p, s);
			put64(&p, e - s);
			put64(&p, seg->kind == SkFileC ? (ULong)seg->offset + (s - seg->start) : 0);
			put32(&p, (UInt)(seg->dev >> 8)); /* major, minor: as stat's st_dev */
			put32(&p, (UInt)(seg->dev & 0xff));
			put64(&p, seg->ino);
			put64(&p, 0);
			put32(&p, prot);
			put32(&p, seg->kind == SkAnonC ? 0x22 : 0x2); /* MAP_PRIVATE(|ANON) */
			VG_(memcpy)(p, name, n - 1);
			put_trailer(p + round8(n));
			mark_seen(seg->start, e - 1);
		}
		if (seg->end + 1 <= a)
			return;
		a = seg->end + 1;
	}
}

/* Memory the program got without a mapping call the tool sees (brk, the
 * replacement malloc's arena): reported when a sample first points there,
 * so that decode finds every sampled address in a mapping. */
static void ensure_mapped(Addr a)
{
	NSegment const *seg = a ? VG_(am_find_nsegment)(a) : NULL;
	seen_seg *n;

	if (!seg || (seg->kind != SkAnonC && seg->kind != SkFileC && seg->kind != SkShmC))
		return;
	n = seen_segs ? VG_(HT_lookup)(seen_segs, seg->start) : NULL;
	if (!n || n->last < seg->end)
		out_mmap(seg->start, seg->end + 1 - seg->start);
}

static void on_new_mem(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
	out_mmap(a, len);
}

/* ---- samples ---- */

/* perf's PERF_SAMPLE_DATA_SRC encoding of what served the access. */
static ULong data_src(Bool store, UInt level, Bool tlb_miss)
{
	static const ULong lvl[DPS_NLEVELS] = {0x08, 0x20, 0x40, 0x80}; /* L1 L2 L3 LOC_RAM */
	static const ULong num[DPS_NLEVELS] = {1, 2, 3, 0xd};
	ULong op = store ? 4 : 2;
	ULong v = op;

	v |= (lvl[level] | 0x2 /* HIT */) << 5;
	v |= 1ull << 19; /* snoop n/a */
	v |= 1ull << 24; /* lock n/a */
	v |= (tlb_miss ? (0x4 | 0x8 | 0x20) /* L1 miss, walker */ : (0x2 | 0x8)) << 26;
	v |= num[level] << 33;
	return v;
}

/* The registers as perf gives them for sample_regs_user 0xff0fff: AX BX CX
 * DX SI DI BP SP IP FLAGS CS SS, R8..R15. */
static void put_regs(UChar **p, const VexGuestAMD64State *gs, Addr ip)
{
	VexGuestAMD64State g = *gs; /* get_rflags takes it writable */
	ULong flags = LibVEX_GuestAMD64_get_rflags(&g);
	const ULong regs[] = {
	    g.guest_RAX, g.guest_RBX, g.guest_RCX, g.guest_RDX,
	    g.guest_RSI, g.guest_RDI, g.guest_RBP, g.guest_RSP,
	    ip,		 flags,	      0x33,	   0x2b, /* CS, SS: x86-64 Linux's user selectors */
	    g.guest_R8,	 g.guest_R9,  g.guest_R10, g.guest_R11,
	    g.guest_R12, g.guest_R13, g.guest_R14, g.guest_R15,
	};

	/* SAMPLE_SIZE counts NREGS of them */
	_Static_assert(sizeof(regs) / sizeof(regs[0]) == NREGS, "sample_regs_user");
	put64(p, REGS_ABI_64);
	for (UInt i = 0; i < NREGS; i++)
		put64(p, regs[i]);
}

/* A THREAD record the first time a thread samples: its thread pointer,
 * which decode adds to %fs-relative operands (TLS). */
static VgHashTable *threads_seen;

static void note_thread(ULong fs_base)
{
	UWord tid = (UWord)VG_(gettid)();
	struct seen_thread {
		struct seen_thread *next;
		UWord key;
	} * n;
	UChar *p;

	if (!threads_seen)
		threads_seen = VG_(HT_construct)("dpsim.threads");
	if (VG_(HT_lookup)(threads_seen, tid))
		return;
	n = VG_(malloc)("dpsim.thread", sizeof(*n));
	n->key = tid;
	VG_(HT_add_node)(threads_seen, n);
	p = out_reserve(sizeof(struct dp_rec_thread));
	put_header(&p, DP_REC_THREAD, 0, sizeof(struct dp_rec_thread));
	put64(&p, sim_time());
	put32(&p, (UInt)my_pid);
	put32(&p, (UInt)tid);
	put64(&p, fs_base);
	put64(&p, 0);
}

/* IDENTIFIER IP TID TIME [ADDR] CPU PERIOD REGS_USER WEIGHT DATA_SRC: no ADDR
 * with --dp-skid, as a skidding PMU gives none. */
#define SAMPLE_SIZE (8 + 8 * 7 + 8 + 8 * NREGS + 8 + 8)

static void out_sample(const sim_event *e, Addr ip, Addr addr, ULong weight, ULong dsrc)
{
	ThreadId tid = VG_(get_running_tid)();
	UInt size = SAMPLE_SIZE - (skid ? 8 : 0);
	VexGuestAMD64State g;
	UChar *p;

	VG_(get_shadow_regs_area)(tid, (UChar *)&g, 0, 0, sizeof(g));
	ensure_mapped(addr);
	note_thread(g.guest_FS_CONST);
	p = out_reserve(size);

	put_header(&p, REC_SAMPLE, MISC_USER, (UShort)size);
	put64(&p, e->id);
	put64(&p, ip);
	put32(&p, (UInt)my_pid);
	put32(&p, (UInt)VG_(gettid)());
	put64(&p, sim_time());
	if (!skid)
		put64(&p, addr);
	put64(&p, 0); /* cpu 0 */
	put64(&p, e->period);
	put_regs(&p, &g, ip);
	put64(&p, weight);
	put64(&p, dsrc);
}

/* A sample waiting for its skid to pass (Valgrind runs one thread at a
 * time; the instructions of other threads do not count). */
static struct pending {
	Bool on;
	ThreadId tid;
	ULong left;
	const sim_event *e;
	Addr ip, addr;
	UInt size;
	ULong weight, dsrc;
} pend;
static ULong skid_dropped; /* events that came while one was pending */

static void out_truth(Addr sample_ip)
{
	UChar *p = out_reserve(sizeof(struct dp_rec_sim_truth));

	put_header(&p, DP_REC_SIM_TRUTH, 0, sizeof(struct dp_rec_sim_truth));
	put64(&p, sim_time());
	put32(&p, (UInt)my_pid);
	put32(&p, (UInt)VG_(gettid)());
	put64(&p, pend.ip);
	put64(&p, pend.addr);
	put32(&p, pend.size);
	put32(&p, (UInt)skid);
	(void)sample_ip;
}

static void take_sample(const sim_event *e, Addr ip, Addr addr, UInt size, ULong weight, ULong dsrc)
{
	if (!skid) {
		out_sample(e, ip, addr, weight, dsrc);
		return;
	}
	if (pend.on) {
		skid_dropped++;
		return;
	}
	pend =
	    (struct pending){True, VG_(get_running_tid)(), skid, e, ip, addr, size, weight, dsrc};
}

/* One simulated access. Returns nothing: counts, models latency, samples. */
static VG_REGPARM(3) void on_access(Addr addr, UWord size_store, Addr ip)
{
	UWord size = size_store >> 1;
	Bool store = size_store & 1;
	UInt level = DPS_LVL_L1;
	Bool tlb_miss = False, hit[DPS_NKINDS];
	ULong weight;

	counts[store ? DPS_STORES : DPS_LOADS]++;
	counts[DPS_MEM]++;
	if (dps_cache_access(&dtlb, tlb_key(addr), size)) {
		tlb_miss = True;
		counts[DPS_DTLB_MISS]++;
	}
	if (dps_cache_access(&l1d, addr, size)) {
		counts[DPS_L1D_MISS]++;
		level = DPS_LVL_L2;
		if (!have_l2 || dps_cache_access(&l2, addr, size)) {
			if (have_l2)
				counts[DPS_L2_MISS]++;
			level = DPS_LVL_LLC;
			if (dps_cache_access(&llc, addr, size)) {
				counts[DPS_LLC_MISS]++;
				level = DPS_LVL_RAM;
			}
		}
	}
	weight = lat[level] + (tlb_miss ? lat[4] : 0);
	extra_cycles += weight > 1 ? weight - 1 : 0;
	if (!nevents)
		return;
	hit[DPS_LOADS] = !store;
	hit[DPS_STORES] = store;
	hit[DPS_MEM] = True;
	hit[DPS_L1D_MISS] = level >= DPS_LVL_L2;
	hit[DPS_L2_MISS] = have_l2 && level >= DPS_LVL_LLC;
	hit[DPS_LLC_MISS] = level >= DPS_LVL_RAM;
	hit[DPS_DTLB_MISS] = tlb_miss;
	hit[DPS_INSTRUCTIONS] = False;
	for (UInt i = 0; i < nevents; i++) {
		sim_event *e = &events[i];

		if (!e->period || !hit[e->kind] ||
		    (e->hi && (addr >= e->hi || addr + size <= e->lo)) || --e->left)
			continue;
		e->left = e->period;
		take_sample(e, ip, addr, (UInt)size, weight, data_src(store, level, tlb_miss));
	}
}

/* sim:instructions sampling: one call per instruction. */
static VG_REGPARM(1) void on_insn(Addr ip)
{
	counts[DPS_INSTRUCTIONS]++;
	if (pend.on && pend.tid == VG_(get_running_tid)() && !--pend.left) {
		/* skid instructions retired since the cause: the sample lands here,
		 * with the registers as they are now */
		pend.on = False;
		out_sample(pend.e, ip, pend.addr, pend.weight, pend.dsrc);
		out_truth(ip);
	}
	for (UInt i = 0; i < nevents; i++) {
		sim_event *e = &events[i];

		if (e->kind != DPS_INSTRUCTIONS || !e->period || --e->left)
			continue;
		e->left = e->period;
		out_sample(e, ip, 0, 1,
			   0x1 | (1ull << 5) | (1ull << 19) | (1ull << 24) | (1ull << 26) |
			       (0xfull << 33));
	}
}

/* ---- instrumentation ---- */

static Bool per_insn_calls; /* sim:instructions sampled: a call per instruction */

/* The dirty call for one access, declared to read the integer registers so
 * that VEX writes them back before it: the sample's registers are then
 * those before the instruction ran. */
static IRStmt *access_call(IRExpr *addr, UInt size, Bool store, Addr ip, IRExpr *guard)
{
	IRExpr **args = mkIRExprVec_3(addr, mkIRExpr_HWord((HWord)(size << 1 | store)),
				      mkIRExpr_HWord((HWord)ip));
	IRDirty *d = unsafeIRDirty_0_N(3, "dpsim_access", VG_(fnptr_to_fnentry)(&on_access), args);

	d->nFxState = 1;
	d->fxState[0].fx = Ifx_Read;
	d->fxState[0].offset = offsetof(VexGuestAMD64State, guest_RAX);
	d->fxState[0].size =
	    offsetof(VexGuestAMD64State, guest_DFLAG) - offsetof(VexGuestAMD64State, guest_RAX);
	d->fxState[0].nRepeats = 0;
	d->fxState[0].repeatLen = 0;
	if (guard)
		d->guard = guard;
	return IRStmt_Dirty(d);
}

static void add_icount(IRSB *sb, UInt n)
{
	IRTemp t1, t2;

	if (!n || per_insn_calls)
		return;
	t1 = newIRTemp(sb->tyenv, Ity_I64);
	t2 = newIRTemp(sb->tyenv, Ity_I64);
	addStmtToIRSB(
	    sb, IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64,
					     mkIRExpr_HWord((HWord)&counts[DPS_INSTRUCTIONS]))));
	addStmtToIRSB(sb, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1),
							IRExpr_Const(IRConst_U64(n)))));
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord((HWord)&counts[DPS_INSTRUCTIONS]),
				       IRExpr_RdTmp(t2)));
}

static Bool is_gpr_put(const IRStmt *st)
{
	return st->tag == Ist_Put &&
	       st->Ist.Put.offset >= (Int)offsetof(VexGuestAMD64State, guest_RAX) &&
	       st->Ist.Put.offset <= (Int)offsetof(VexGuestAMD64State, guest_R15);
}

/* The accesses one statement makes, as calls. */
typedef struct acc {
	IRExpr *addr;
	UInt size;
	Bool store;
	IRExpr *guard;
} acc;

static UInt accesses_of(IRSB *in, const IRStmt *st, acc *a)
{
	IRTypeEnv *te = in->tyenv;
	UInt n = 0;

	switch (st->tag) {
	case Ist_WrTmp:
		if (st->Ist.WrTmp.data->tag == Iex_Load) {
			IRExpr *ld = st->Ist.WrTmp.data;

			a[n++] =
			    (acc){ld->Iex.Load.addr, sizeofIRType(ld->Iex.Load.ty), False, NULL};
		}
		break;
	case Ist_Store:
		a[n++] = (acc){st->Ist.Store.addr,
			       sizeofIRType(typeOfIRExpr(te, st->Ist.Store.data)), True, NULL};
		break;
	case Ist_StoreG: {
		IRStoreG *sg = st->Ist.StoreG.details;

		a[n++] = (acc){sg->addr, sizeofIRType(typeOfIRExpr(te, sg->data)), True, sg->guard};
		break;
	}
	case Ist_LoadG: {
		IRLoadG *lg = st->Ist.LoadG.details;
		IRType ty = Ity_INVALID, wide;

		typeOfIRLoadGOp(lg->cvt, &wide, &ty);
		a[n++] = (acc){lg->addr, sizeofIRType(ty), False, lg->guard};
		break;
	}
	case Ist_CAS: {
		IRCAS *cas = st->Ist.CAS.details;
		UInt sz = sizeofIRType(typeOfIRExpr(te, cas->dataLo)) * (cas->dataHi ? 2 : 1);

		a[n++] = (acc){cas->addr, sz, False, NULL};
		a[n++] = (acc){cas->addr, sz, True, NULL};
		break;
	}
	case Ist_LLSC:
		if (!st->Ist.LLSC.storedata)
			a[n++] =
			    (acc){st->Ist.LLSC.addr,
				  sizeofIRType(typeOfIRTemp(te, st->Ist.LLSC.result)), False, NULL};
		else
			a[n++] = (acc){st->Ist.LLSC.addr,
				       sizeofIRType(typeOfIRExpr(te, st->Ist.LLSC.storedata)), True,
				       NULL};
		break;
	case Ist_Dirty: {
		IRDirty *d = st->Ist.Dirty.details;

		if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
			a[n++] = (acc){d->mAddr, (UInt)d->mSize, False, NULL};
		if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
			a[n++] = (acc){d->mAddr, (UInt)d->mSize, True, NULL};
		break;
	}
	default:
		break;
	}
	return n;
}

/* bt, bts, btr and btc with a register operand: VEX computes them by
 * storing the register 288 bytes below the stack pointer and working on
 * memory there (guest_amd64_toIR.c, dis_bt_G_E), accesses the processor
 * never makes. Their calls are left out, so that no sample and no count
 * comes from them (Cachegrind counts them: this is where the totals may
 * part). The code is readable here: it was just translated from there. */
static Bool vex_scratch_bt(Addr ip, UInt len)
{
	const UChar *b = (const UChar *)ip;
	UInt k = 0;

	while (k < len && (b[k] == 0x66 || b[k] == 0x67 || b[k] == 0xf0 || b[k] == 0xf2 ||
			   b[k] == 0xf3 || b[k] == 0x2e || b[k] == 0x36 || b[k] == 0x3e ||
			   b[k] == 0x26 || b[k] == 0x64 || b[k] == 0x65))
		k++;
	if (k < len && (b[k] & 0xf0) == 0x40) /* REX */
		k++;
	if (k + 3 > len || b[k] != 0x0f)
		return False;
	if (b[k + 1] != 0xa3 && b[k + 1] != 0xab && b[k + 1] != 0xb3 && b[k + 1] != 0xbb)
		return False;
	return (b[k + 2] >> 6) == 3; /* ModRM mod 11: a register */
}

/* Is every temp of e defined before statement index lim (of this SB)? */
static Bool defined_before(IRSB *in, IRExpr *e, Int lim, const Int *defat)
{
	if (!e)
		return True;
	if (e->tag == Iex_RdTmp)
		return defat[e->Iex.RdTmp.tmp] < lim;
	return isIRAtom(e);
}

static IRSB *dpsim_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			      const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
			      IRType gWordTy, IRType hWordTy)
{
	IRSB *out = deepCopyIRSBExceptStmts(in);
	Int *defat = VG_(malloc)("dpsim.defat", (in->tyenv->types_used + 1) * sizeof(Int));
	Int i = 0, n = in->stmts_used;
	UInt pending = 0; /* instructions not yet added to the count */

	for (Int t = 0; t < in->tyenv->types_used; t++)
		defat[t] = -1; /* temps read before any WrTmp: none in flat IR, but be safe */
	for (Int k = 0; k < n; k++)
		if (in->stmts[k]->tag == Ist_WrTmp)
			defat[in->stmts[k]->Ist.WrTmp.tmp] = k;
		else if (in->stmts[k]->tag == Ist_LoadG)
			defat[in->stmts[k]->Ist.LoadG.details->dst] = k;
		else if (in->stmts[k]->tag == Ist_CAS)
			defat[in->stmts[k]->Ist.CAS.details->oldLo] = k;
		else if (in->stmts[k]->tag == Ist_LLSC)
			defat[in->stmts[k]->Ist.LLSC.result] = k;
		else if (in->stmts[k]->tag == Ist_Dirty &&
			 in->stmts[k]->Ist.Dirty.details->tmp != IRTemp_INVALID)
			defat[in->stmts[k]->Ist.Dirty.details->tmp] = k;

	while (i < n && in->stmts[i]->tag != Ist_IMark)
		addStmtToIRSB(out, in->stmts[i++]);
	while (i < n) {
		/* one guest instruction: [i, j) */
		IRStmt *mark = in->stmts[i];
		Addr ip = (Addr)mark->Ist.IMark.addr;
		Int j = i + 1, first_put = -1;

		while (j < n && in->stmts[j]->tag != Ist_IMark)
			j++;
		for (Int k = i + 1; k < j; k++)
			if (is_gpr_put(in->stmts[k])) {
				first_put = k;
				break;
			}
		Bool scratch = vex_scratch_bt(ip, mark->Ist.IMark.len);

		addStmtToIRSB(out, mark);
		pending++;
		if (per_insn_calls) {
			IRDirty *d =
			    unsafeIRDirty_0_N(1, "dpsim_insn", VG_(fnptr_to_fnentry)(&on_insn),
					      mkIRExprVec_1(mkIRExpr_HWord((HWord)ip)));

			d->nFxState = 1;
			d->fxState[0].fx = Ifx_Read;
			d->fxState[0].offset = offsetof(VexGuestAMD64State, guest_RAX);
			d->fxState[0].size = offsetof(VexGuestAMD64State, guest_DFLAG) -
					     offsetof(VexGuestAMD64State, guest_RAX);
			d->fxState[0].nRepeats = 0;
			d->fxState[0].repeatLen = 0;
			addStmtToIRSB(out, IRStmt_Dirty(d));
		}
		/* Calls go before the access, or before the instruction's first
		 * write of an integer register (push, call, pop...) when the
		 * address is known by then: the registers then are those before
		 * the instruction, as a precise PMU or a page fault gives them. */
		Int emitted = i + 1;
		for (Int k = i + 1; k < j; k++) {
			acc a[2];
			UInt na = scratch ? 0 : accesses_of(in, in->stmts[k], a);

			if (!na)
				continue;
			Int at = k;
			if (first_put >= 0 && first_put < k) {
				Bool early = True;

				for (UInt q = 0; q < na; q++)
					early = early &&
						defined_before(in, a[q].addr, first_put, defat) &&
						defined_before(in, a[q].guard, first_put, defat);
				if (early)
					at = first_put;
			}
			if (at < emitted)
				at = emitted;
			while (emitted < at)
				addStmtToIRSB(out, in->stmts[emitted++]);
			add_icount(out, pending);
			pending = 0;
			for (UInt q = 0; q < na; q++)
				addStmtToIRSB(out, access_call(a[q].addr, a[q].size, a[q].store, ip,
							       a[q].guard));
		}
		while (emitted < j) {
			IRStmt *st = in->stmts[emitted++];

			if (st->tag == Ist_Exit) {
				add_icount(out, pending);
				pending = 0;
			}
			addStmtToIRSB(out, st);
		}
		i = j;
	}
	add_icount(out, pending);
	VG_(free)(defat);
	return out;
}

/* ---- heap (dp_rec_alloc, as the --heap agent writes them) ---- */

static void out_alloc(ThreadId tid, Addr a, SizeT size, UInt kind)
{
	Addr ips[17];
	UInt n, keep, first = 0, rec_size;
	UChar *p;

	if (!heap_on || !a)
		return;
	n = VG_(get_StackTrace)(tid, ips, (UInt)(heap_depth + 1 > 17 ? 17 : heap_depth + 1), NULL,
				NULL, 0);
	/* ips[0] is inside the replacement malloc (vgpreload): the call site
	 * starts at its caller */
	first = n > 1 ? 1 : n;
	keep = n - first;
	if (keep > heap_depth)
		keep = (UInt)heap_depth;
	rec_size = sizeof(struct dp_rec_alloc) + 8 * keep;
	p = out_reserve(rec_size);
	put_header(&p, DP_REC_ALLOC, 0, (UShort)rec_size);
	put64(&p, sim_time());
	put32(&p, (UInt)my_pid);
	put32(&p, (UInt)VG_(gettid)());
	put64(&p, a);
	put64(&p, size);
	put32(&p, kind);
	put32(&p, keep);
	/* Valgrind gives a caller's frame as its call instruction's address
	 * (the return address - 1): the record keeps return addresses, as the
	 * agent's does */
	for (UInt k = 0; k < keep; k++)
		put64(&p, ips[first + k] + 1);
}

/* kind: DP_ALLOC_REALLOC for realloc's old block (its new block's ALLOC
 * came just before, from the same thread), else 0 */
static void out_free(Addr a, UInt kind)
{
	UChar *p;

	if (!heap_on || !a)
		return;
	p = out_reserve(sizeof(struct dp_rec_free));
	put_header(&p, DP_REC_FREE, 0, sizeof(struct dp_rec_free));
	put64(&p, sim_time());
	put32(&p, (UInt)my_pid);
	put32(&p, (UInt)VG_(gettid)());
	put64(&p, a);
	put32(&p, kind);
}

/* Block sizes, for realloc's copy and malloc_usable_size. */
typedef struct block {
	struct block *next;
	UWord key; /* address */
	SizeT size;
} block;
static VgHashTable *blocks;

static void *new_block(ThreadId tid, SizeT size, SizeT align, Bool zero, UInt kind)
{
	void *p = VG_(cli_malloc)(align, size);
	block *b;

	if (!p)
		return NULL;
	if (zero)
		VG_(memset)(p, 0, size);
	b = VG_(malloc)("dpsim.block", sizeof(*b));
	b->key = (UWord)p;
	b->size = size;
	VG_(HT_add_node)(blocks, b);
	out_alloc(tid, (Addr)p, size, kind);
	return p;
}

static void del_block(ThreadId tid, void *p, UInt kind)
{
	block *b = VG_(HT_remove)(blocks, (UWord)p);

	if (!b)
		return;
	out_free((Addr)p, kind);
	VG_(free)(b);
	VG_(cli_free)(p);
}

static void *h_malloc(ThreadId tid, SizeT n)
{
	return new_block(tid, n, VG_(clo_alignment), False, DP_ALLOC_MALLOC);
}
static void *h_memalign(ThreadId tid, SizeT align, SizeT n)
{
	return new_block(tid, n, align, False, DP_ALLOC_ALIGNED);
}
static void *h_new_aligned(ThreadId tid, SizeT n, SizeT align)
{
	return new_block(tid, n, align, False, DP_ALLOC_ALIGNED);
}
static void *h_calloc(ThreadId tid, SizeT m, SizeT n)
{
	if (n && m > (SizeT)-1 / n)
		return NULL;
	return new_block(tid, m * n, VG_(clo_alignment), True, DP_ALLOC_CALLOC);
}
static void h_free(ThreadId tid, void *p)
{
	del_block(tid, p, 0);
}
static void h_free_aligned(ThreadId tid, void *p, SizeT align)
{
	del_block(tid, p, 0);
}
static void *h_realloc(ThreadId tid, void *old, SizeT n)
{
	block *b;
	void *p;

	if (!old)
		return h_malloc(tid, n);
	b = VG_(HT_lookup)(blocks, (UWord)old);
	if (!b)
		return NULL;
	p = new_block(tid, n, VG_(clo_alignment), False, DP_ALLOC_REALLOC);
	if (p) {
		VG_(memcpy)(p, old, b->size < n ? b->size : n);
		del_block(tid, old, DP_ALLOC_REALLOC);
	}
	return p;
}
static SizeT h_usable(ThreadId tid, void *p)
{
	block *b = VG_(HT_lookup)(blocks, (UWord)p);

	return b ? b->size : 0;
}

/* ---- life cycle ---- */

static void at_fork_pre(ThreadId tid)
{
	out_flush();
}

static void at_fork_child(ThreadId tid)
{
	Int parent = my_pid;
	UChar *p;

	my_pid = VG_(getpid)();
	for (UInt k = 0; k < DPS_NKINDS; k++)
		counts[k] = reported[k] = 0;
	p = out_reserve(32 + TRAILER);
	put_header(&p, REC_FORK, MISC_USER, 32 + TRAILER);
	put32(&p, (UInt)my_pid);
	put32(&p, (UInt)parent);
	put32(&p, (UInt)my_pid);
	put32(&p, (UInt)parent);
	put64(&p, sim_time());
	put_trailer(p);
}

static void dpsim_post_clo_init(void)
{
	static dps_cache *const c[4] = {&l1d, &l2, &llc, &dtlb};

	geo[3][2] = 4096; /* TLB entries map 4 KiB pages */
	geo[3][0] *= 4096;
	for (UInt k = 0; k < 4; k++) {
		if (k == 1 && !geo[1][0])
			continue; /* no L2 */
		if (!dps_cache_geometry_ok(geo[k][0], geo[k][1], geo[k][2])) {
			VG_(fmsg)("dpsim: impossible cache geometry (level %u)\n", k);
			VG_(exit)(125);
		}
		dps_cache_init(c[k], geo[k][0], geo[k][1], geo[k][2],
			       VG_(malloc)("dpsim.tags",
					   8 * dps_cache_words(geo[k][0], geo[k][1], geo[k][2])));
	}
	have_l2 = geo[1][0] != 0;
	for (UInt k = 0; k < nevents; k++)
		if (events[k].kind == DPS_INSTRUCTIONS && events[k].period)
			per_insn_calls = True;
	if (skid)
		per_insn_calls = True; /* the skid is counted in instructions */
	/* The registers a sample carries must be those of the program at that
	 * point: VEX otherwise drops writes of registers that a later
	 * instruction of the block overwrites before the tool's calls see them.
	 * Exact samples need them at each memory access, skidding ones at each
	 * instruction. */
	VG_(clo_vex_control).iropt_register_updates_default = VG_(clo_px_file_backed) =
	    per_insn_calls ? VexRegUpdAllregsAtEachInsn : VexRegUpdAllregsAtMemAccess;
	my_pid = VG_(getpid)();
	blocks = VG_(HT_construct)("dpsim.blocks");
	VG_(atfork)(at_fork_pre, NULL, at_fork_child);
	out_comm(True);
}

/* The counts not yet written, as META records the recorder adds up. */
static void out_totals(void)
{
	static const HChar *const names[DPS_NKINDS] = {"loads",	    "stores",	   "mem",
						       "l1d-miss",  "l2-miss",	   "llc-miss",
						       "dtlb-miss", "instructions"};

	for (UInt k = 0; k < DPS_NKINDS; k++) {
		HChar key[64], val[32];

		VG_(sprintf)(key, "%s%s", DPS_META_TOTAL, names[k]);
		VG_(sprintf)(val, "%llu", counts[k] - reported[k]);
		out_meta(key, val);
		reported[k] = counts[k];
	}
	out_flush();
}

/* An exec replaces this tool with a fresh one and never reaches fini: the
 * counts so far are written before it (an exec that fails writes the rest
 * at exit). The tool sees the syscall before Valgrind's own wrapper, which
 * is where the exec happens. */
static void pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs)
{
	(void)tid, (void)args, (void)nargs;
	if (sysno == __NR_execve || sysno == __NR_execveat)
		out_totals();
}

/* Mappings and advice that say where huge pages are. */
static void post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs, SysRes res)
{
	(void)tid, (void)nargs;
	if (sr_isError(res))
		return;
	if (sysno == __NR_mmap) {
		Addr lo = sr_Res(res), hi = lo + args[1];

		huge_remove(lo, hi); /* a fixed mapping replaces what was there */
		if (args[3] & VKI_MAP_HUGETLB) {
			/* the page size in the flags' top bits; 0: the default, 2 MiB */
			UInt shift =
			    (UInt)(args[3] >> 26 & 0x3f) ? (UInt)(args[3] >> 26 & 0x3f) : 21;

			huge_add(lo, hi + ((1ull << shift) - 1), shift); /* its length rounds up */
		}
	} else if (sysno == __NR_munmap) {
		huge_remove(args[0], args[0] + args[1]);
	} else if (sysno == __NR_madvise && args[2] == VKI_MADV_HUGEPAGE) {
		huge_add(args[0], args[0] + args[1], 21);
	} else if (sysno == __NR_madvise && args[2] == VKI_MADV_NOHUGEPAGE) {
		huge_remove(args[0], args[0] + args[1]);
	}
}

static void dpsim_fini(Int exitcode)
{
	out_totals();
}

static void dpsim_pre_clo_init(void)
{
	VG_(details_name)("dpsim");
	VG_(details_version)(NULL);
	VG_(details_description)("dataprof's simulated memory events");
	VG_(details_copyright_author)("dataprof");
	VG_(details_bug_reports_to)("dataprof");
	VG_(details_avg_translation_sizeB)(500);
	VG_(basic_tool_funcs)(dpsim_post_clo_init, dpsim_instrument, dpsim_fini);
	VG_(needs_command_line_options)(process_cmd_line_option, print_usage, print_debug_usage);
	VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
	/* The malloc replacement only with --heap: it places blocks otherwise than
	 * the program's own malloc, and so moves its misses (docs/sim.md). The
	 * needs are declared before the options are parsed: look ahead. */
	for (Word i = 0; i < VG_(sizeXA)(VG_(args_for_valgrind)); i++) {
		const HChar *a = *(HChar **)VG_(indexXA)(VG_(args_for_valgrind), i);

		if (VG_(strcmp)(a, "--dp-heap=yes") == 0)
			replace_malloc = True;
	}
	if (replace_malloc)
		VG_(needs_malloc_replacement)
	(h_malloc, h_malloc, h_new_aligned, h_malloc, h_new_aligned, h_memalign, h_calloc, h_free,
	 h_free, h_free_aligned, h_free, h_free_aligned, h_realloc, h_usable, 0);
	VG_(track_new_mem_startup)(on_new_mem);
	VG_(track_new_mem_mmap)(on_new_mem);
}

VG_DETERMINE_INTERFACE_VERSION(dpsim_pre_clo_init)
