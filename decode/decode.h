/* decode/: for each sample, the instruction that caused it, its data
 * address recomputed from the sampled registers, and a verdict.
 *
 *	dp_decoder *d = dp_decoder_open(profile, &opts, &err); // reads side-band records
 *	while (dp_profile_next(profile, &r) > 0)
 *		if (r.kind == DP_R_SAMPLE) dp_decode_sample(d, r.sample, &out);
 *
 * Work per distinct instruction is cached; per sample it is lookups and
 * arithmetic, no allocation. */
#ifndef DP_DECODE_H
#define DP_DECODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dataprof/profile.h"
#include "image.h"
#include "insn_table.h"
#include "maps.h"
#include "verdict.h"

typedef struct dp_decoder dp_decoder;

typedef struct dp_decode_opts {
	const char *symfs;
	bool ignore_build_id;
} dp_decode_opts;

typedef struct dp_decoded {
	dp_verdict verdict;
	dp_reason reason;
	uint64_t ip;		/* as sampled */
	uint64_t insn_ip;	/* runtime address of the causing instruction; 0: none */
	uint64_t data_addr;	/* the address to attribute: exact or verified; 0: none */
	uint64_t computed_addr; /* from the registers, when has_computed */
	uint64_t hw_addr;	/* from the hardware, when has_hw */
	bool has_computed, has_hw, hw_agrees;
	uint8_t access;	   /* DP_ACC_LOAD/STORE of the operand */
	uint8_t size;	   /* bytes accessed */
	uint8_t distance;  /* instructions between the cause and the IP */
	const dp_map *map; /* the IP's mapping */
	dp_image *image;   /* the IP's binary */
	uint64_t ip_vaddr, insn_vaddr;
	const char *function; /* containing the IP */
	uint64_t function_vaddr;
	const dp_func_table *table;
	long insn; /* index in table, -1 */
	int mem;   /* which memory operand of the instruction */
	/* This (binary, IP, event kind)'s number in the decoder, 1, 2, ... in
	 * the order first seen; 0 when it is not cached (kept for one sample).
	 * A later stage indexes its own per-instruction work by it. */
	uint32_t insn_key;
} dp_decoded;

typedef struct dp_decode_stats {
	uint64_t samples;
	uint64_t by_event_verdict[64][DP_V_COUNT]; /* events beyond 63 count in 63 */
	uint64_t by_reason[DP_RS_COUNT];
	uint64_t hw_compared, hw_agreed; /* exact samples whose address was also computed */
	uint64_t functions_decoded, instructions_cached;
} dp_decode_stats;

/* Reads the profile's side-band records (a pass of its own) and is ready. */
dp_decoder *dp_decoder_open(dp_profile *p, const dp_decode_opts *o, dp_error *err);
/* The same in steps, for callers that share one side-band pass between
 * stages: new, observe each non-sample record, ready. */
dp_decoder *dp_decoder_new(dp_profile *p, const dp_decode_opts *o, dp_error *err);
void dp_decoder_observe(dp_decoder *d, const dp_record *r);
void dp_decoder_ready(dp_decoder *d);
void dp_decoder_free(dp_decoder *d);

void dp_decode_sample(dp_decoder *d, const dp_sample *s, dp_decoded *out);

const dp_decode_stats *dp_decoder_stats(const dp_decoder *d);
/* Adds the sample counts of another decoder of the same profile (a
 * parallel report's worker) to d's. */
void dp_decoder_add_stats(dp_decoder *d, const dp_decoder *other);
/* The causing instruction's text, or "" */
void dp_decoded_insn_text(dp_decoder *d, const dp_decoded *x, char *buf, size_t len);
/* The bytes of the causing instruction as hex, or "" */
void dp_decoded_insn_bytes(const dp_decoded *x, char *buf, size_t len);
/* Binaries that could not be used, with why, and how many samples that cost. */
typedef struct dp_image_problem {
	const char *path;
	dp_reason reason;
	char message[512];
	uint64_t samples;
} dp_image_problem;
size_t dp_decoder_problems(const dp_decoder *d, const dp_image_problem **out);
dp_maps *dp_decoder_maps(dp_decoder *d);
/* The binary behind any file mapping (code or data), with its bias set in
 * the map; NULL if it cannot be opened or the mapping is not a file. */
dp_image *dp_decoder_map_image(dp_decoder *d, dp_map *m);
/* d's image of the binary another decoder of the same profile opened as
 * other (a parallel report's part: image ids differ between decoders); NULL
 * when d cannot open it. */
dp_image *dp_decoder_image_like(dp_decoder *d, const dp_image *other);
/* The decoded instructions of the function of im holding vaddr (an ELF
 * virtual address), built once and kept with the image; NULL where no
 * function is known there. */
const dp_func_table *dp_decoder_function_table(dp_decoder *d, dp_image *im, uint64_t vaddr);
/* The thread pointer (fs base) of tid, when the profile recorded it. */
bool dp_decoder_fs_base(const dp_decoder *d, uint32_t tid, uint64_t *fs);

/* Prints the per-event verdict table (like perf --type-stat) to f. */
void dp_decode_print_summary(const dp_decoder *d, const dp_profile *p, FILE *f);

#endif
