#include "image.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static char *debuginfo_path;
static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

static bool build_id_of(Elf *e, uint8_t *out, uint8_t *len)
{
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(e, &p);

	if (n <= 0)
		return false;
	*len = (uint8_t)DP_MIN(n, 20);
	memcpy(out, p, *len);
	return true;
}

/* Our own vdso, when the profile was recorded on this kernel: the same image. */
static int vdso_fd(const char *kernel)
{
	struct utsname u;
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	FILE *maps;
	char line[256];
	uint64_t start = 0, end = 0;
	int fd;

	if (!base || uname(&u) < 0 || (kernel && strcmp(kernel, u.release)))
		return -1;
	maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return -1;
	while (fgets(line, sizeof(line), maps)) {
		if (strstr(line, "[vdso]")) {
			sscanf(line, "%lx-%lx", &start, &end);
			break;
		}
	}
	fclose(maps);
	if (start != base || end <= start)
		return -1;
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, (const void *)start, end - start) != (ssize_t)(end - start)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int cmp_sym(const void *a, const void *b)
{
	const dp_symbol *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address, the longest-lived name first: sized before sizeless */
	return (y->size > 0) - (x->size > 0);
}

static void load_symbols(dp_image *im)
{
	int n = dwfl_module_getsymtab(im->mod);

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name =
		    dwfl_module_getsym_info(im->mod, i, &sym, &addr, &shndx, NULL, NULL);
		int t = GELF_ST_TYPE(sym.st_info);

		if (!name || (t != STT_FUNC && t != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
			continue;
		dp_symbol s = {addr, sym.st_size, name, false};
		dp_vec_push(&im->syms, s);
	}
	if (im->syms.n > 1)
		qsort(im->syms.v, im->syms.n, sizeof(dp_symbol), cmp_sym);
	/* one symbol per address; sizeless ones extend to the next */
	size_t out = 0;
	for (size_t i = 0; i < im->syms.n; i++) {
		if (out && im->syms.v[out - 1].addr == im->syms.v[i].addr)
			continue;
		im->syms.v[out++] = im->syms.v[i];
	}
	im->syms.n = out;
	for (size_t i = 0; i + 1 < im->syms.n; i++)
		if (!im->syms.v[i].size)
			im->syms.v[i].size = im->syms.v[i + 1].addr - im->syms.v[i].addr;
	im->tables.v = dp_calloc(im->syms.n ? im->syms.n : 1, sizeof(*im->tables.v));
	im->tables.n = im->tables.cap = im->syms.n;
}

static bool load_segments(dp_image *im)
{
	size_t n;

	if (elf_getphdrnum(im->elf, &n) < 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(im->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		dp_segment s = {ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, ph.p_flags};
		dp_vec_push(&im->segs, s);
	}
	return im->segs.n > 0;
}

static int try_open(const char *file, const uint8_t *bid, size_t bid_size, bool check,
		    dp_reason *why, uint8_t *got, uint8_t *got_size)
{
	struct stat sb;
	int fd;
	Elf *e;
	bool same;

	/* Paths come from the profile, which may come from anywhere: only a
	 * regular file is opened. A FIFO would block report forever, and a
	 * device may act on being opened. */
	if (stat(file, &sb) < 0) {
		*why = DP_RS_NO_BINARY;
		return -1;
	}
	fd = S_ISREG(sb.st_mode) ? open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) : -1;
	if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		if (fd >= 0)
			close(fd);
		*why = S_ISREG(sb.st_mode) ? DP_RS_NO_BINARY : DP_RS_NOT_ELF;
		return -1;
	}
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		*why = DP_RS_NOT_ELF;
		return -1;
	}
	*got_size = 0;
	build_id_of(e, got, got_size);
	same = !check || !bid_size || (*got_size == bid_size && !memcmp(got, bid, bid_size));
	elf_end(e);
	if (!same) {
		close(fd);
		*why = DP_RS_BUILD_ID;
		return -1;
	}
	return fd;
}

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

dp_image *dp_image_open(const char *path, const uint8_t *bid, size_t bid_size,
			const dp_image_opts *o, dp_reason *why, dp_error *err)
{
	dp_image *im = dp_calloc(1, sizeof(*im));
	uint8_t got[20], got_size = 0;
	char *file = NULL;
	int fd = -1;
	dp_reason first = DP_RS_NO_BINARY;

	elf_version(EV_CURRENT);
	im->path = dp_strdup(path);
	im->fd = -1;
	if (!strcmp(path, "[vdso]")) {
		fd = vdso_fd(o ? o->kernel : NULL);
		im->is_vdso = true;
		if (fd < 0) {
			*why = DP_RS_NO_BINARY;
			dp_error_set(err,
				     "[vdso]: recorded on another kernel; its code is not here");
			goto fail;
		}
		file = dp_strdup("[vdso]");
	} else {
		/* the recorded path (under --symfs first), then perf's build-id cache */
		const char *home = getenv("HOME");
		char idhex[41];
		char *cands[3] = {0};
		size_t nc = 0;

		if (o && o->symfs)
			cands[nc++] = dp_asprintf("%s/%s", o->symfs, path);
		cands[nc++] = dp_strdup(path);
		if (bid_size && home) {
			hex(bid, bid_size, idhex);
			cands[nc++] =
			    dp_asprintf("%s/.debug/.build-id/%.2s/%s/elf", home, idhex, idhex + 2);
		}
		for (size_t i = 0; i < nc && fd < 0; i++) {
			dp_reason r;

			fd = try_open(cands[i], bid, bid_size, !(o && o->ignore_build_id), &r, got,
				      &got_size);
			if (fd >= 0)
				file = dp_strdup(cands[i]);
			else if (i == 0 || r == DP_RS_BUILD_ID)
				first = r == DP_RS_BUILD_ID ? r : first;
		}
		for (size_t i = 0; i < nc; i++)
			free(cands[i]);
		if (fd < 0) {
			*why = first;
			dp_error_set(err,
				     first == DP_RS_BUILD_ID
					 ? "%s: changed since recording (build-id differs); "
					   "give the original with --symfs"
					 : "%s: not found; give its location with --symfs",
				     path);
			goto fail;
		}
	}
	im->file = file;
	im->fd = fd;
	im->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!im->elf || elf_kind(im->elf) != ELF_K_ELF || !load_segments(im)) {
		*why = DP_RS_NOT_ELF;
		dp_error_set(err, "%s: not an ELF file dataprof can read", path);
		goto fail;
	}
	GElf_Ehdr eh;
	if (gelf_getehdr(im->elf, &eh))
		im->type = eh.e_type;
	build_id_of(im->elf, im->build_id, &im->build_id_size);
	im->dwfl = dwfl_begin(&dwfl_callbacks);
	dwfl_report_begin(im->dwfl);
	im->mod = dwfl_report_elf(im->dwfl, path, im->is_vdso ? "[vdso]" : file, dup(fd), 0, false);
	dwfl_report_end(im->dwfl, NULL, NULL);
	if (!im->mod) {
		*why = DP_RS_NOT_ELF;
		dp_error_set(err, "%s: %s", path, dwfl_errmsg(-1));
		goto fail;
	}
	load_symbols(im);
	return im;
fail:
	dp_image_free(im);
	return NULL;
}

void dp_image_free(dp_image *im)
{
	if (!im)
		return;
	if (im->dwfl)
		dwfl_end(im->dwfl);
	if (im->elf)
		elf_end(im->elf);
	if (im->fd >= 0)
		close(im->fd);
	free(im->path);
	free(im->file);
	dp_vec_free(&im->segs);
	dp_vec_free(&im->syms);
	dp_vec_free(&im->cfi_syms);
	dp_vec_free_each(&im->owned_names, free);
	/* tables are freed by their owner (insn_table.c) before the image */
	free(im->tables.v);
	free(im->cfi_tables.v);
	free(im);
}

bool dp_image_is_program(const dp_image *im)
{
	size_t nph;

	if (im->type == ET_EXEC)
		return true;
	if (!im->elf || elf_getphdrnum(im->elf, &nph) < 0)
		return false;
	for (size_t k = 0; k < nph; k++) {
		GElf_Phdr ph;

		if (gelf_getphdr(im->elf, (int)k, &ph) && ph.p_type == PT_INTERP)
			return true;
	}
	return false;
}

bool dp_image_bias(const dp_image *im, uint64_t map_start, uint64_t pgoff, uint64_t *bias)
{
	if (im->type == ET_EXEC) {
		*bias = 0;
		return true;
	}
	for (size_t i = 0; i < im->segs.n; i++) {
		const dp_segment *s = &im->segs.v[i];
		uint64_t page_off = s->offset & ~0xfffull;

		if (pgoff >= page_off && pgoff < s->offset + DP_MAX(s->filesz, 1)) {
			/* file offset pgoff sits at map_start */
			*bias = map_start - pgoff + s->offset - s->vaddr;
			return true;
		}
	}
	return false;
}

size_t dp_image_read(const dp_image *im, uint64_t vaddr, void *buf, size_t len)
{
	for (size_t i = 0; i < im->segs.n; i++) {
		const dp_segment *s = &im->segs.v[i];

		if (vaddr >= s->vaddr && vaddr < s->vaddr + s->filesz) {
			size_t n = DP_MIN(len, s->vaddr + s->filesz - vaddr);
			ssize_t r = pread(im->fd, buf, n, (off_t)(s->offset + (vaddr - s->vaddr)));

			return r > 0 ? (size_t)r : 0;
		}
	}
	return 0;
}

static const dp_symbol *find_in(const dp_symbol *v, size_t n, uint64_t vaddr, size_t *idx)
{
	size_t lo = DP_PARTITION_POINT(n, i, v[i].addr <= vaddr);

	if (lo == 0)
		return NULL;
	if (vaddr - v[lo - 1].addr >= v[lo - 1].size)
		return NULL;
	*idx = lo - 1;
	return &v[lo - 1];
}

const dp_symbol *dp_image_function(dp_image *im, uint64_t vaddr, struct dp_func_table ***table_slot)
{
	size_t idx;
	const dp_symbol *s = find_in(im->syms.v, im->syms.n, vaddr, &idx);

	if (s) {
		*table_slot = &im->tables.v[idx];
		return s;
	}
	/* no symbol: the FDE of .eh_frame still bounds the function */
	if (!im->fdes_read)
		dp_image_read_fdes(im);
	s = find_in(im->cfi_syms.v, im->cfi_syms.n, vaddr, &idx);
	if (!s)
		return NULL;
	*table_slot = &im->cfi_tables.v[idx];
	return s;
}
