/* annotate/: what a programmer reads for each decoded sample — function,
 * inline chain, file:line, and the data object with its type and member
 * path — from DWARF (libdw), the heap tracker's records and the mappings.
 *
 *	dp_annotator *a = dp_annotator_open(decoder, profile, &err); // reads heap records
 *	dp_decode_sample(decoder, s, &x);
 *	dp_annotate(a, s, &x, &an);
 *
 * Strings are interned: fields are ids into dp_annotator_strings(a).
 * Work is cached per distinct instruction; per sample it is lookups. */
#ifndef DP_ANNOTATE_H
#define DP_ANNOTATE_H

#include <stdint.h>
#include <stdio.h>

#include "../decode/decode.h"
#include "construct.h"
#include "strtab.h"

typedef enum dp_object_kind {
	DP_OBJ_NONE,
	DP_OBJ_GLOBAL,
	DP_OBJ_STATIC,
	DP_OBJ_TLS,
	DP_OBJ_STACK,
	DP_OBJ_HEAP,
	DP_OBJ_MAPPING,	  /* a region known only by its mapping: [heap], [stack], a file's data */
	DP_OBJ_ALLOCATOR, /* the allocator's own data: chunk headers, free lists, arenas */
	DP_OBJ_COUNT,
} dp_object_kind;

const char *dp_object_kind_name(dp_object_kind k);

typedef struct dp_annotation {
	/* code: the causing instruction, or the IP when there is none */
	uint32_t function, inline_chain, file, line; /* line: "file.c:123" */
	uint32_t line_no;
	/* data */
	dp_object_kind obj_kind;
	uint32_t object;    /* "nodes", "work::buf", "heap@objects.c:88", "[stack]" */
	uint32_t site;	    /* heap: the allocation site "objects.c:88" */
	uint32_t site_func; /* heap: the function that allocated */
	uint64_t obj_addr, obj_size;
	uint32_t type;	 /* "struct node" */
	uint32_t member; /* "struct node.next"; 0: the whole object or unknown */
	dp_annot_reason obj_reason, type_reason;
} dp_annotation;

typedef struct dp_annotate_stats {
	uint64_t samples, with_object, with_type, with_member;
	uint64_t obj_reason[DP_AR_COUNT], type_reason[DP_AR_COUNT];
	uint64_t by_kind[DP_OBJ_COUNT];
} dp_annotate_stats;

typedef struct dp_annotator dp_annotator;

dp_annotator *dp_annotator_open(dp_decoder *d, dp_profile *p, dp_error *err);
/* In steps, sharing one side-band pass (see dp_decoder_new). */
dp_annotator *dp_annotator_new(dp_decoder *d, dp_profile *p, dp_error *err);
void dp_annotator_observe(dp_annotator *a, const dp_record *r);
/* After the side-band records: threads may build the heap history (a
 * report's other parts wait for it meanwhile). */
void dp_annotator_ready(dp_annotator *a, unsigned threads);
/* After dp_annotator_ready, for an annotator that observed no heap record:
 * the heap blocks of from (ready) instead, read in place. Parallel readers
 * of one profile unpack and order the heap records once. */
void dp_annotator_share_heap(dp_annotator *a, dp_annotator *from);
void dp_annotator_free(dp_annotator *a);
void dp_annotate(dp_annotator *a, const dp_sample *s, const dp_decoded *x, dp_annotation *out);
const dp_strtab *dp_annotator_strings(const dp_annotator *a);
dp_strtab *dp_annotator_strings_mut(dp_annotator *a);
const dp_annotate_stats *dp_annotator_stats(const dp_annotator *a);
/* Adds another annotator's counts (a parallel report's worker) to a's. */
void dp_annotator_add_stats(dp_annotator *a, const dp_annotator *other);
bool dp_annotator_has_heap(const dp_annotator *a);
/* This annotator's DWARF state of one of its decoder's images (read on
 * first use, freed with the annotator). */
struct dp_image_dwarf *dp_annotator_image_dwarf(dp_annotator *a, dp_image *im);
/* The function (outermost, demangled) at a code address of pid at time t;
 * the symbol when there is no DWARF; the mapping's name when no symbol. */
uint32_t dp_annotate_function_at(dp_annotator *a, uint32_t pid, uint64_t addr, uint64_t t);
/* How much DWARF this annotator has read: it grows with the compilation
 * units and instructions the samples touched, not with the binaries. */
typedef struct dp_dwarf_use {
	size_t images, with_dwarf;
	size_t units_indexed; /* compilation units whose statics were indexed */
	size_t instructions;  /* distinct addresses given a source location */
	size_t frames;	      /* distinct instructions whose stack variables were read */
} dp_dwarf_use;
dp_dwarf_use dp_annotator_dwarf_use(const dp_annotator *a);
void dp_annotate_print_summary(const dp_annotator *a, FILE *f);

#endif
