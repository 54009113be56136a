/* The heap tracker: an LD_PRELOAD library that `dataprof record --heap`
 * puts into the target. It records every allocation at or above a size
 * threshold (DATAPROF_HEAP_MIN, bytes, default 0: all) with its call site,
 * and every free, into the profile through the agent channel. The call
 * site is the caller of malloc plus the return addresses found on the
 * stack just above it (stack_scan below), so that annotate can step past
 * allocator wrappers offline; DATAPROF_HEAP_DEPTH > 1 unwinds exactly
 * instead (slow). glibc's
 * __libc_* entry points do the real work, so no dlsym bootstrap is needed.
 * Each thread also reports its thread pointer (fs base) once, which decode
 * uses for %fs-relative (TLS) addresses. */
#include <dlfcn.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unwind.h>
#include <asm/prctl.h>

#include "chan_ring.h"
#include "channel.h"
#include "mark_clock.h"

#define MAX_DEPTH  16
#define SCAN_WORDS 64 /* stack words looked at above malloc's return address */
#define SCAN_KEEP  4  /* return addresses kept from them */
#define MAX_RANGES 256

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);

static size_t min_size;
static int depth = 1;
static int enabled; /* the channel is there */
/* times are CPU ticks (DP_AGENT_TICKS), where they are the kernel's clock
 * too: a third of a clock_gettime, once per allocation (a FREE in the ring
 * has none) */
static uint16_t time_misc;
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
/* preloaded, never dlopen'ed: its thread variables can be in the static TLS
 * block, reached without a call to __tls_get_addr on every allocation */
#define TLS __thread __attribute__((tls_model("initial-exec")))

static TLS int busy; /* inside a hook: allocations of our own are not recorded */
static TLS int thread_seen;
/* the ids, asked of the kernel once per thread (and again after fork):
 * two system calls per allocation would cost more than the allocation */
static TLS uint32_t my_pid, my_tid;
static TLS uintptr_t known_caller; /* the last caller found in a loaded object */

/* The executable segments of the loaded objects, sorted: a stack word is a
 * return address only if it points into one, just after a call. */
static struct range {
	uintptr_t lo, hi;
} ranges[MAX_RANGES];
static int nranges;
static uintptr_t ranges_lo, ranges_hi;
static int scan = 1;

static int add_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	Dl_info self;

	(void)size;
	(void)arg;
	/* the tracker's own code calls nobody's allocations: a word pointing
	 * into it is a stale one (left by the hooks below the program's frames) */
	if (dladdr((void *)add_object, &self) && self.dli_fbase &&
	    (uintptr_t)self.dli_fbase == info->dlpi_addr)
		return 0;
	for (int i = 0; i < info->dlpi_phnum && nranges < MAX_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			ranges[nranges].lo = info->dlpi_addr + ph->p_vaddr;
			ranges[nranges].hi = ranges[nranges].lo + ph->p_memsz;
			nranges++;
		}
	}
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void load_ranges(void)
{
	nranges = 0;
	dl_iterate_phdr(add_object, NULL);
	qsort(ranges, (size_t)nranges, sizeof(ranges[0]), cmp_range);
	ranges_lo = nranges ? ranges[0].lo : 0;
	ranges_hi = nranges ? ranges[nranges - 1].hi : 0;
}

static int in_code(uintptr_t v)
{
	int lo = 0, hi = nranges;

	if (v < ranges_lo || v >= ranges_hi)
		return 0;
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (v < ranges[mid].lo)
			hi = mid;
		else if (v >= ranges[mid].hi)
			lo = mid + 1;
		else
			return v - ranges[mid].lo >= 8; /* room for the call before it */
	}
	return 0;
}

/* Whether the bytes before v end a call instruction: call rel32, or
 * call through a register or memory (ff /2, the usual encodings). */
static int after_call(uintptr_t v)
{
	const unsigned char *b = (const unsigned char *)v;

	if (b[-5] == 0xe8)
		return 1;
	if (b[-2] == 0xff && (b[-1] & 0xf8) == 0xd0) /* call *%reg */
		return 1;
	if (b[-3] == 0xff && ((b[-2] & 0xf8) == 0x50 || b[-2] == 0x14)) /* disp8, sib */
		return 1;
	if (b[-4] == 0xff && b[-3] == 0x54) /* sib + disp8 */
		return 1;
	if (b[-6] == 0xff && (b[-5] == 0x15 || (b[-5] & 0xf8) == 0x90)) /* rip, disp32 */
		return 1;
	return b[-7] == 0xff && b[-6] == 0x94; /* sib + disp32 */
}

/* Where the next return address lies above each one, learned: a return
 * address is a call site, whose caller's frame has a fixed layout, so the
 * word that held the next return address above it holds it next time too.
 * Per entry, the address with the distance in its top 16 bits, and the
 * return address last found there, checked then: the same word again
 * needs no check (in_code and after_call were a sixth of the tracker's
 * time). Threads race on them harmlessly: whatever pairing a race leaves,
 * a hint is a return address some check passed.
 * A distance learned from the allocator's own return address (the first
 * hop) is sure; one learned further up may start from a stale word, an old
 * return address left in a caller's frame, and is kept only where no sure
 * one is: a stale copy of pymalloc's arena call once taught 8 words where
 * the caller's return address lies 2 above, and every arena after it lost
 * its creator (Debian's python3.11). The top bit of the key marks a sure
 * distance. */
#define HINT_SURE  (1ull << 63)
#define NEXT_SLOTS 4096
static struct next_hint {
	uint64_t key, ra;
} next_slot[NEXT_SLOTS];

static struct next_hint *next_entry(uintptr_t ra)
{
	return &next_slot[((uint64_t)ra * 0x9e3779b97f4a7c15ull) >> 52];
}

static int is_return_address(uintptr_t v)
{
	return in_code(v) && after_call(v);
}

/* The first return address above word w of slot (w < limit), or 0. */
static int scan_from(const uintptr_t *slot, int w, int limit)
{
	for (; w < limit; w++)
		if (is_return_address(slot[w]))
			return w;
	return 0;
}

/* Return addresses on the stack above malloc's own (at slot): the callers
 * of the allocator's callers, as far as the stack shows them. Each is kept
 * with its distance from slot in words in bits 48-63, which lets annotate
 * check the chain against the call frame information offline. No
 * unwinding: from each return address, the word learned to hold the next
 * one is checked, and the stack is scanned upward only when it does not. */
static int stack_scan(const uintptr_t *slot, uintptr_t ra, uint64_t *out)
{
	int n = 0, w = 0;

	while (n < SCAN_KEEP) {
		struct next_hint *e = next_entry(ra);
		uint64_t key = __atomic_load_n(&e->key, __ATOMIC_RELAXED);
		uint64_t hint = __atomic_load_n(&e->ra, __ATOMIC_RELAXED);
		bool mine = (key & 0xffffffffffffull) == ra;
		int d = mine ? (int)(key >> 48 & 0x7fff) : 0, next = 0;

		if (d && w + d <= SCAN_WORDS &&
		    (slot[w + d] == hint || is_return_address(slot[w + d]))) {
			next = w + d;
		} else if ((next = scan_from(slot, w + 1, SCAN_WORDS + 1)) &&
			   (w == 0 || !mine || !(key & HINT_SURE))) {
			__atomic_store_n(&e->key,
					 (uint64_t)ra | ((uint64_t)(next - w) << 48) |
					     (w == 0 ? HINT_SURE : 0),
					 __ATOMIC_RELAXED);
			mine = true;
		} else {
			mine = false; /* a stale start: the sure hint stays */
		}
		if (!next)
			break;
		if (mine && slot[next] != hint)
			__atomic_store_n(&e->ra, (uint64_t)slot[next], __ATOMIC_RELAXED);
		w = next;
		ra = slot[w];
		out[n++] = (uint64_t)ra | ((uint64_t)w << 48);
	}
	return n;
}

/* A thread's recent chains by where its allocator's return address lies
 * (slot) and what it is: where the stack holds the same words at the
 * chain's places again, the scan would find the chain again (it reads the
 * words that its hints name), and is not run. */
#define MEMO_SLOTS 64
static TLS struct chain_memo {
	uintptr_t slot, caller;
	uint64_t n, frames[SCAN_KEEP];
} memo[MEMO_SLOTS];

static int scan_memo(const uintptr_t *slot, uintptr_t caller, uint64_t *out)
{
	struct chain_memo *m =
	    &memo[(((uint64_t)(uintptr_t)slot ^ caller) * 0x9e3779b97f4a7c15ull) >> 58];
	int n;

	if (m->slot == (uintptr_t)slot && m->caller == caller) {
		bool same = true;

		for (uint64_t i = 0; same && i < m->n; i++)
			same = slot[m->frames[i] >> 48] == (m->frames[i] & 0xffffffffffffull);
		if (same) {
			for (uint64_t i = 0; i < m->n; i++)
				out[i] = m->frames[i];
			return (int)m->n;
		}
	}
	n = stack_scan(slot, caller, out);
	m->slot = (uintptr_t)slot;
	m->caller = caller;
	m->n = (uint64_t)n;
	for (int i = 0; i < n; i++)
		m->frames[i] = out[i];
	return n;
}

/* The child of fork: one thread, with new ids, to be reported again. */
static void forked_child(void)
{
	my_pid = my_tid = 0;
	thread_seen = 0;
}

__attribute__((constructor)) static void heap_init(void)
{
	const char *v;

	busy = 1;
	v = secure_getenv("DATAPROF_HEAP_MIN");
	if (v)
		min_size = strtoul(v, NULL, 0);
	v = secure_getenv("DATAPROF_HEAP_DEPTH");
	if (v) {
		depth = atoi(v);
		depth = depth < 1 ? 1 : depth > MAX_DEPTH ? MAX_DEPTH : depth;
	}
	v = secure_getenv("DATAPROF_HEAP_SCAN");
	if (v)
		scan = atoi(v) != 0;
	load_ranges();
	real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	real_munmap = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
	enabled = dp_chan_fd() >= 0;
	if (enabled)
		pthread_atfork(NULL, NULL, forked_child);
	time_misc = enabled && dp_clock_uses_ticks() ? DP_AGENT_TICKS : 0;
	busy = 0;
}

__attribute__((destructor)) static void heap_fini(void)
{
	dp_chan_close();
}

static uint64_t now(void)
{
	return time_misc ? dp_clock_ticks() : dp_clock_mono();
}

static uint32_t tid(void)
{
	if (!my_tid)
		my_tid = (uint32_t)syscall(SYS_gettid);
	return my_tid;
}

static uint32_t pid(void)
{
	if (!my_pid)
		my_pid = (uint32_t)getpid();
	return my_pid;
}

static void report_thread(void)
{
	struct dp_rec_thread t;
	unsigned long fs = 0, gs = 0;

	thread_seen = 1;
	memset(&t, 0, sizeof(t));
	syscall(SYS_arch_prctl, ARCH_GET_FS, &fs);
	syscall(SYS_arch_prctl, ARCH_GET_GS, &gs);
	t.h.type = DP_REC_THREAD;
	t.h.size = sizeof(t);
	t.time = dp_chan_now();
	t.pid = pid();
	t.tid = tid();
	t.fs_base = fs;
	t.gs_base = gs;
	dp_chan_put(&t, sizeof(t));
}

typedef struct unwind_ctx {
	uint64_t *frames;
	int n, skip, max;
} unwind_ctx;

static _Unwind_Reason_Code unwind_one(struct _Unwind_Context *uc, void *arg)
{
	unwind_ctx *c = arg;
	uintptr_t ip = _Unwind_GetIP(uc);

	if (!ip)
		return _URC_END_OF_STACK;
	if (c->skip > 0) {
		c->skip--;
		return _URC_NO_REASON;
	}
	c->frames[c->n++] = ip;
	return c->n < c->max ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/* This thread's half of its ring's chain table (chan_ring.h), for the
 * ring it took epoch-th. */
static TLS struct dp_ring_chain chains[DP_RING_CHAINS];
static TLS uint32_t chains_epoch;

/* An ALLOC in this thread's ring, as chan_ring.h has it: the thread is
 * the ring's, the frames the chain table's where it has them. */
static void put_ring_alloc(void *p, size_t size, uint32_t kind, uint64_t time,
			   const uint64_t *frames, int n, uint32_t epoch)
{
	struct dp_ring_alloc *a;
	uint64_t ref = 0;
	unsigned at = 0;
	size_t frame_bytes = (size_t)n * 8;

	_Static_assert(sizeof(*a) == 32, "struct dp_ring_alloc has no padding");
	if (epoch != chains_epoch) {
		memset(chains, 0, sizeof(chains)); /* the recorder's is empty too */
		chains_epoch = epoch;
	}
	if (n <= DP_RING_CHAIN_FRAMES) {
		struct dp_ring_chain *c = &chains[at = dp_ring_chain_at(frames, (unsigned)n)];

		bool same = c->n == (uint64_t)n;

		/* (a few words: no call to memcmp) */
		for (int i = 0; same && i < n; i++)
			same = c->frames[i] == frames[i];
		if (same) {
			ref = DP_RING_CHAIN_REF;
			frame_bytes = 0;
		} else {
			c->n = (uint64_t)n;
			memcpy(c->frames, frames, frame_bytes);
		}
		at++;
	}
	a = dp_chan_reserve(sizeof(*a) + frame_bytes);
	if (!a)
		return;
	a->h.type = DP_RING_REC_ALLOC;
	a->h.misc = (uint16_t)(time_misc | at << 8);
	a->h.size = (uint16_t)(sizeof(*a) + frame_bytes);
	a->time = time;
	a->addr = (uint64_t)(uintptr_t)p;
	a->size_kind_n =
	    (uint64_t)size | (uint64_t)(kind & 0xff) << DP_RING_SIZE_BITS | (uint64_t)n << 56 | ref;
	if (frame_bytes)
		memcpy(a->frames, frames, frame_bytes);
}

/* caller: the return address into the code that called the allocator;
 * slot: where it is on the stack (the hook's frame address + 8), or NULL */
static void record_alloc(void *p, size_t size, uint32_t kind, void *caller, void *slot)
{
	struct dp_rec_alloc *a;
	uint64_t frames[MAX_DEPTH], time;
	uint32_t epoch;
	int n = 1;

	if (!enabled || !p || busy || size < min_size)
		return;
	busy = 1;
	if (!thread_seen)
		report_thread();
	/* read before the scan: the counter's read (tens of cycles) overlaps it */
	time = now();
	frames[0] = (uint64_t)(uintptr_t)caller;
	if (depth > 1) {
		/* unwinding from here: skip this function and the hook */
		unwind_ctx c = {frames, 0, 2, depth};
		_Unwind_Backtrace(unwind_one, &c);
		n = c.n ? c.n : 1;
		if (!c.n)
			frames[0] = (uint64_t)(uintptr_t)caller;
	} else if (scan && slot) {
		static unsigned misses;

		/* a library loaded since (now and then: code outside every
		 * object, a JIT's, would reload on every call); a thread's
		 * allocations mostly come from one place, checked once */
		if ((uintptr_t)caller != known_caller) {
			if (in_code((uintptr_t)caller))
				known_caller = (uintptr_t)caller;
			else if (!(misses++ & 1023))
				load_ranges();
		}
		n += scan_memo(slot, (uintptr_t)caller, frames + 1);
	}
	if ((epoch = dp_chan_on_ring()) && !((uint64_t)size >> DP_RING_SIZE_BITS)) {
		put_ring_alloc(p, size, kind, time, frames, n, epoch);
		busy = 0;
		return;
	}
	/* written where it is sent from: every field, no padding between */
	_Static_assert(sizeof(*a) == 48, "struct dp_rec_alloc has no padding");
	a = dp_chan_reserve(sizeof(*a) + (size_t)n * 8);
	if (a) {
		a->h.type = DP_REC_ALLOC;
		a->h.misc = time_misc;
		a->h.size = (uint16_t)(sizeof(*a) + (size_t)n * 8);
		a->time = time;
		a->pid = pid();
		a->tid = tid();
		a->addr = (uint64_t)(uintptr_t)p;
		a->size = size;
		a->kind = kind;
		a->nframes = (uint32_t)n;
		memcpy(a->frames, frames, (size_t)n * 8);
	}
	busy = 0;
}

/* Whether the live block p may have been recorded: one smaller than the
 * threshold was not (its usable size is at least what was asked), and its
 * free is not recorded either. */
static int maybe_recorded(void *p)
{
	return p && (!min_size || malloc_usable_size(p) >= min_size);
}

static void record_free(void *p, uint32_t kind, size_t size)
{
	struct dp_rec_free *f;

	if (!enabled || !p || busy)
		return;
	busy = 1;
	if (!size && dp_chan_on_ring()) {
		struct dp_ring_free *r = dp_chan_reserve(sizeof(*r));

		_Static_assert(sizeof(*r) == 16, "struct dp_ring_free has no padding");
		if (r) {
			r->h.type = DP_RING_REC_FREE;
			r->h.misc = (uint16_t)((kind & 0xff) << 8); /* no time, no clock flag */
			r->h.size = sizeof(*r);
			r->addr = (uint64_t)(uintptr_t)p; /* chan_ring.h */
		}
		busy = 0;
		return;
	}
	_Static_assert(sizeof(*f) == 48, "struct dp_rec_free has no padding");
	f = dp_chan_reserve(sizeof(*f));
	if (f) {
		f->h.type = DP_REC_FREE;
		f->h.misc = time_misc;
		f->h.size = sizeof(*f);
		f->time = now();
		f->pid = pid();
		f->tid = tid();
		f->addr = (uint64_t)(uintptr_t)p;
		f->kind = kind;
		f->reserved = 0;
		f->size = size;
	}
	busy = 0;
}

#define CALLER __builtin_return_address(0)
/* the return address's place: the hooks keep a frame pointer */
#define SLOT ((char *)__builtin_frame_address(0) + sizeof(void *))

void *malloc(size_t n)
{
	void *p = __libc_malloc(n);
	record_alloc(p, n, DP_ALLOC_MALLOC, CALLER, SLOT);
	return p;
}

void *calloc(size_t n, size_t size)
{
	void *p = __libc_calloc(n, size);
	record_alloc(p, n * size, DP_ALLOC_CALLOC, CALLER, SLOT);
	return p;
}

void *realloc(void *old, size_t n)
{
	int was = enabled && maybe_recorded(old);
	void *p = __libc_realloc(old, n);

	if (was && (p || !n))
		record_free(old, DP_ALLOC_REALLOC, 0);
	record_alloc(p, n, DP_ALLOC_REALLOC, CALLER, SLOT);
	return p;
}

void free(void *p)
{
	if (enabled && maybe_recorded(p))
		record_free(p, 0, 0);
	__libc_free(p);
}

void *aligned_alloc(size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);
	record_alloc(p, n, DP_ALLOC_ALIGNED, CALLER, SLOT);
	return p;
}

void *memalign(size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);
	record_alloc(p, n, DP_ALLOC_ALIGNED, CALLER, SLOT);
	return p;
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	p = __libc_memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	record_alloc(p, n, DP_ALLOC_ALIGNED, CALLER, SLOT);
	return 0;
}

void *valloc(size_t n)
{
	void *p = __libc_valloc(n);
	record_alloc(p, n, DP_ALLOC_ALIGNED, CALLER, SLOT);
	return p;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = real_mmap ? real_mmap(addr, len, prot, flags, fd, off)
			    : (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);

	if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && !(prot & PROT_EXEC))
		record_alloc(p, len, DP_ALLOC_MMAP, CALLER, SLOT);
	return p;
}

/* Programs built with _FILE_OFFSET_BITS=64 (CPython, gnulib's) call mmap64,
 * the same function in a 64-bit glibc: without it their mappings (pymalloc's
 * arenas) went unseen. */
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
    __attribute__((alias("mmap")));

/* C++: operator new is where the allocation site is decided. The caller of
 * operator new is the site; the malloc inside it is ours and not recorded. */
typedef void *(*new_fn)(size_t);
typedef void (*delete_fn)(void *);

static void *cxx_new(const char *sym, new_fn *real, size_t n, void *caller, void *slot)
{
	void *p;

	if (!*real) {
		busy++;
		*real = (new_fn)dlsym(RTLD_NEXT, sym);
		busy--;
		if (!*real)
			abort(); /* no libstdc++: nothing could have called us */
	}
	busy++;
	p = (*real)(n); /* may throw: busy is reset below only on return */
	busy--;
	record_alloc(p, n, DP_ALLOC_MALLOC, caller, slot);
	return p;
}

static new_fn real_new, real_new_array;

void *_Znwm(size_t n)
{
	return cxx_new("_Znwm", &real_new, n, CALLER, SLOT);
}

void *_Znam(size_t n)
{
	return cxx_new("_Znam", &real_new_array, n, CALLER, SLOT);
}

int munmap(void *addr, size_t len)
{
	record_free(addr, DP_ALLOC_MMAP, len);
	return real_munmap ? real_munmap(addr, len) : (int)syscall(SYS_munmap, addr, len);
}

/* A process that leaves by _exit (a forked child, typically) runs no
 * destructors: its thread's last batch is sent here, or it would be lost. */
typedef void (*exit_fn)(int);

void _exit(int status)
{
	exit_fn real = (exit_fn)dlsym(RTLD_NEXT, "_exit");

	dp_chan_close();
	if (real)
		real(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

void _Exit(int status)
{
	_exit(status);
}
