/* A binary that ran: one ELF file (executable, library, vdso), opened once
 * and shared by every process that mapped it. Addresses inside an image are
 * its ELF virtual addresses; a mapping's bias turns them into runtime
 * addresses. Its Dwfl module gives decode the symbols and CFI, and annotate
 * (which keeps its own per-image state) the DWARF. */
#ifndef DP_IMAGE_H
#define DP_IMAGE_H

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"
#include "verdict.h"

typedef struct dp_symbol {
	uint64_t addr, size;
	const char *name;
	bool synthetic; /* bounds from CFI, no symbol */
} dp_symbol;

typedef struct dp_segment {
	uint64_t vaddr, memsz, offset, filesz;
	uint32_t flags;
} dp_segment;

struct dp_func_table;

typedef struct dp_image {
	int id;
	char *path; /* as recorded */
	char *file; /* what was opened */
	uint8_t build_id[20];
	uint8_t build_id_size;
	int fd;
	Elf *elf;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Half type; /* ET_EXEC, ET_DYN */
	bool is_vdso;
	DP_VEC(dp_segment) segs;
	DP_VEC(dp_symbol) syms;	    /* functions, sorted by address */
	DP_VEC(dp_symbol) cfi_syms; /* functions found from CFI only, sorted */
	DP_VEC(char *) owned_names;
	DP_VEC(struct dp_func_table *) tables; /* per symbol, lazily; index = syms index */
	DP_VEC(struct dp_func_table *) cfi_tables;
	bool fdes_read; /* cfi_syms holds every FDE (dp_image_read_fdes) */
} dp_image;

typedef struct dp_image_opts {
	const char *symfs;  /* look for binaries under this root first */
	const char *kernel; /* the recording machine's kernel release, for the vdso */
	bool ignore_build_id;
} dp_image_opts;

/* Opens the binary recorded as path (with its build-id, if recorded).
 * Returns NULL with a reason and a one-line explanation in err. */
dp_image *dp_image_open(const char *path, const uint8_t *build_id, size_t build_id_size,
			const dp_image_opts *o, dp_reason *why, dp_error *err);
void dp_image_free(dp_image *im);

/* Whether the image is a program rather than a library: not position-
 * independent, or asking for an interpreter (a PIE executable). */
bool dp_image_is_program(const dp_image *im);

/* The bias of a mapping of this image (start, file offset). */
bool dp_image_bias(const dp_image *im, uint64_t map_start, uint64_t pgoff, uint64_t *bias);

/* Reads len bytes of the file image at vaddr; returns bytes read. */
size_t dp_image_read(const dp_image *im, uint64_t vaddr, void *buf, size_t len);

/* The function containing vaddr (symbol table, else CFI), or NULL.
 * *table_slot receives where its instruction table is cached. Both stay
 * valid until the next call: a function found by CFI is added to im. */
const dp_symbol *dp_image_function(dp_image *im, uint64_t vaddr,
				   struct dp_func_table ***table_slot);

/* The FDEs of im's .eh_frame into cfi_syms, sorted, named by address
 * (image_fde.c): the functions of code without symbols. */
void dp_image_read_fdes(dp_image *im);

#endif
