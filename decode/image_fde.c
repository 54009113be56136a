/* The functions of a binary without symbols, from its .eh_frame: each
 * FDE's [initial_location, initial_location + address_range), read once
 * with dwarf_next_cfi. A CFI row (dwarf_cfi_addrframe, dwarf_frame_info)
 * is not a function: its range depends on the address asked (libdw gives
 * [0xcc1a, 0xcc1b) for 0xcc1a and [0xcc1a, 0xccc7) for 0xcc50 in dash),
 * so functions made from rows depended on the order of lookups, and a
 * parallel report's output on which part met an address first. */
#include "image.h"

#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

/* The size of a value of pointer encoding enc, 0 where it is not fixed
 * (LEB128, or an encoding we do not know). */
static size_t enc_size(unsigned enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	default:
		return 0;
	}
}

static bool read_enc(const uint8_t *p, const uint8_t *end, unsigned enc, uint64_t *v)
{
	size_t n = enc_size(enc);
	uint16_t u16;
	uint32_t u32;

	if (!n || (size_t)(end - p) < n)
		return false;
	switch (enc & 0x0f) {
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		memcpy(&u16, p, 2);
		*v = (enc & 0x0f) == DW_EH_PE_sdata2 ? (uint64_t)(int64_t)(int16_t)u16 : u16;
		return true;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		memcpy(&u32, p, 4);
		*v = (enc & 0x0f) == DW_EH_PE_sdata4 ? (uint64_t)(int64_t)(int32_t)u32 : u32;
		return true;
	default:
		memcpy(v, p, 8);
		return true;
	}
}

/* How the FDEs of the CIE at off encode their addresses (the 'R' of a 'z'
 * augmentation), or -1 where it cannot be told. */
static int cie_encoding(const unsigned char *ident, Elf_Data *d, Dwarf_Off off)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	const char *a;
	const uint8_t *p, *end;

	if (dwarf_next_cfi(ident, d, true, off, &next, &e) != 0 || !dwarf_cfi_cie_p(&e))
		return -1;
	a = e.cie.augmentation;
	if (a[0] != 'z')
		return a[0] ? -1 : DW_EH_PE_absptr;
	p = e.cie.augmentation_data;
	end = p + e.cie.augmentation_data_size;
	for (a++; *a; a++) {
		if (*a == 'R')
			return p < end ? *p : -1;
		if (*a == 'L') {
			p++;
		} else if (*a == 'P') {
			size_t n = p < end ? enc_size(*p) : 0;

			if (!n)
				return -1;
			p += 1 + n;
		} else if (*a != 'S' && *a != 'B') {
			return -1;
		}
	}
	return DW_EH_PE_absptr;
}

static Elf_Scn *eh_frame(Elf *elf, GElf_Shdr *sh)
{
	size_t strndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &strndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh) || sh->sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, strndx, sh->sh_name);
		if (name && !strcmp(name, ".eh_frame"))
			return scn;
	}
	return NULL;
}

static int cmp_sym(const void *a, const void *b)
{
	const dp_symbol *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

/* Every FDE of a well-formed entry whose addresses we can read; the rest
 * (a LEB128 or data-relative encoding, damage) name no function. */
static void read_fdes(dp_image *im, Elf_Scn *scn, const GElf_Shdr *sh, uint64_t bias)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(im->elf, NULL);
	Elf_Data *d = elf_getdata(scn, NULL);
	dp_hashmap enc_of; /* CIE offset -> its encoding + 1 */
	Dwarf_Off next;
	uint64_t v;

	if (!ident || !d || !d->d_buf)
		return;
	dp_hashmap_init(&enc_of, 16);
	for (Dwarf_Off off = 0; off < d->d_size; off = next) {
		Dwarf_CFI_Entry e;
		uint64_t loc, range;
		int enc;

		if (dwarf_next_cfi(ident, d, true, off, &next, &e) != 0 || next <= off)
			break;
		if (dwarf_cfi_cie_p(&e))
			continue;
		if (!dp_hashmap_get(&enc_of, e.fde.CIE_pointer, &v)) {
			v = (uint64_t)(cie_encoding(ident, d, e.fde.CIE_pointer) + 1);
			dp_hashmap_put(&enc_of, e.fde.CIE_pointer, v);
		}
		enc = (int)v - 1;
		if (enc < 0 ||
		    ((enc & 0x70) != DW_EH_PE_absptr && (enc & 0x70) != DW_EH_PE_pcrel) ||
		    !read_enc(e.fde.start, e.fde.end, (unsigned)enc, &loc) ||
		    !read_enc(e.fde.start + enc_size((unsigned)enc), e.fde.end,
			      (unsigned)enc & 0x0f, &range))
			continue;
		if ((enc & 0x70) == DW_EH_PE_pcrel)
			loc += sh->sh_addr + (uint64_t)(e.fde.start - (const uint8_t *)d->d_buf);
		if (!range || loc + bias + range < loc + bias)
			continue;
		dp_symbol s = {loc + bias, range, NULL, true};
		dp_vec_push(&im->cfi_syms, s);
	}
	dp_hashmap_free(&enc_of);
}

void dp_image_read_fdes(dp_image *im)
{
	GElf_Shdr sh;
	Elf_Scn *scn;
	Dwarf_Addr bias = 0;
	size_t n = 0;

	im->fdes_read = true;
	if (!im->elf || !(scn = eh_frame(im->elf, &sh)))
		return;
	if (im->mod)
		dwfl_module_eh_cfi(im->mod, &bias);
	read_fdes(im, scn, &sh, bias);
	if (im->cfi_syms.n > 1)
		qsort(im->cfi_syms.v, im->cfi_syms.n, sizeof(dp_symbol), cmp_sym);
	/* two FDEs at one address (a corrupt or foreign file): the shorter kept */
	for (size_t i = 0; i < im->cfi_syms.n; i++)
		if (!n || im->cfi_syms.v[i].addr != im->cfi_syms.v[n - 1].addr)
			im->cfi_syms.v[n++] = im->cfi_syms.v[i];
	im->cfi_syms.n = n;
	for (size_t i = 0; i < n; i++) {
		char *name = dp_asprintf("[0x%llx]", (unsigned long long)im->cfi_syms.v[i].addr);

		dp_vec_push(&im->owned_names, name);
		im->cfi_syms.v[i].name = name;
		dp_vec_push(&im->cfi_tables, (struct dp_func_table *)NULL);
	}
}
