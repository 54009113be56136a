/* libFuzzer target: arbitrary text as a --where expression (report/expr.c),
 * parsed against a real attribute context and evaluated on real rows. The
 * context is made once from a profile of this process (self_profile.c):
 * samples in its own functions touching one of its globals, a heap block
 * and a stack slot, decoded and annotated from its own ELF and DWARF, with
 * marks (the region attribute) and a counter. It is made again every
 * REBUILD inputs, since parsing interns the values it compares with. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report/attr.h"
#include "report/expr.h"
#include "report/row.h"
#include "self_profile.h"

#define NSAMPLES 12
#define REBUILD  65536

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;
uint64_t fuzz_where_global[64]; /* a global the samples touch */

typedef struct world {
	dp_profile *p;
	dp_decoder *dec;
	dp_annotator *ann;
	dp_row_ctx *rows;
	dp_attr_ctx *attrs;
	dp_sample s[NSAMPLES];
	dp_decoded x[NSAMPLES];
	dp_annotation a[NSAMPLES];
	dp_row r[NSAMPLES];
	size_t n;
	int fd;
} world;

static world W = {.fd = -1};

static void world_free(world *w)
{
	dp_attr_ctx_free(w->attrs);
	dp_row_ctx_free(w->rows);
	dp_annotator_free(w->ann);
	dp_decoder_free(w->dec);
	dp_profile_close(w->p);
	w->attrs = NULL;
	w->rows = NULL;
	w->ann = NULL;
	w->dec = NULL;
	w->p = NULL;
	w->n = 0;
}

static __attribute__((noinline)) int world_make(world *w)
{
	static void *heap;
	volatile uint64_t local[8] = {0};
	char path[64];
	dp_error err;
	dp_record rec;
	dp_decode_opts o = {NULL, false};
	self_sample s[NSAMPLES];

	if (!heap)
		heap = calloc(1, 256);
	if (w->fd < 0 && (w->fd = memfd_create("fuzz_where", MFD_CLOEXEC)) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", w->fd);
	for (int i = 0; i < NSAMPLES; i++) {
		uint64_t code[] = {(uint64_t)(uintptr_t)&world_make,
				   (uint64_t)(uintptr_t)&LLVMFuzzerTestOneInput,
				   (uint64_t)(uintptr_t)&world_free};
		uint64_t data[] = {(uint64_t)(uintptr_t)&fuzz_where_global[i],
				   (uint64_t)(uintptr_t)heap + 8 * (uint64_t)i,
				   (uint64_t)(uintptr_t)&local[i % 8], 0x10};

		s[i].ip = code[i % 3] + (uint64_t)(i / 3);
		s[i].addr = data[i % 4];
	}
	if (self_profile_write(path, s, NSAMPLES, (uint64_t)(uintptr_t)heap, 256,
			       (uint64_t)(uintptr_t)&world_make + 16) < 0)
		return -1;
	if (!(w->p = dp_profile_open(path, &err)) || !(w->dec = dp_decoder_new(w->p, &o, &err)) ||
	    !(w->ann = dp_annotator_new(w->dec, w->p, &err)))
		return -1;
	w->rows = dp_row_ctx_new(w->p, w->dec, w->ann);
	dp_profile_skip_samples(w->p, true);
	while (dp_profile_next(w->p, &rec) > 0) {
		dp_decoder_observe(w->dec, &rec);
		dp_annotator_observe(w->ann, &rec);
		dp_row_ctx_observe(w->rows, &rec);
	}
	dp_profile_skip_samples(w->p, false);
	dp_decoder_ready(w->dec);
	dp_annotator_ready(w->ann, 1);
	dp_row_ctx_ready(w->rows);
	dp_profile_rewind(w->p);
	w->attrs = dp_attr_ctx_new(w->rows, w->ann, w->p);
	while (w->n < NSAMPLES && dp_profile_next(w->p, &rec) > 0) {
		size_t i = w->n;

		if (rec.kind != DP_R_SAMPLE)
			continue;
		w->s[i] = *rec.sample;
		dp_decode_sample(w->dec, &w->s[i], &w->x[i]);
		dp_annotate(w->ann, &w->s[i], &w->x[i], &w->a[i]);
		dp_row_fill(w->rows, &w->s[i], &w->x[i], &w->a[i], &w->r[i]);
		w->n++;
	}
	return w->n == NSAMPLES ? 0 : -1;
}

/* How many rows src keeps. */
static size_t matches(const char *src)
{
	dp_error err;
	dp_expr *e = dp_expr_parse(src, W.attrs, &err);
	size_t n = 0;

	for (size_t i = 0; e && i < W.n; i++)
		n += dp_expr_eval(e, W.attrs, &W.r[i]);
	dp_expr_free(e);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned runs;
	dp_error err;
	dp_expr *e;
	char *src;

	if (!W.attrs || ++runs % REBUILD == 0) {
		world_free(&W);
		if (world_make(&W) < 0) {
			fprintf(stderr, "fuzz_where: cannot make the profile of this process\n");
			abort();
		}
		/* the context is real: this binary's functions, objects and regions */
		if (runs == 0 && (!matches("function=world_make") || !matches("kind=global") ||
				  !matches("object=fuzz_where_global") || !matches("kind=heap") ||
				  !matches("region~'begin*'"))) {
			fprintf(stderr, "fuzz_where: the rows lack functions, objects or regions: "
					"is this binary built with -g?\n");
			abort();
		}
	}
	src = malloc(size + 1);
	memcpy(src, data, size);
	src[size] = 0;
	e = dp_expr_parse(src, W.attrs, &err);
	if (e) {
		for (size_t i = 0; i < W.n; i++)
			sink += dp_expr_eval(e, W.attrs, &W.r[i]);
		dp_expr_free(e);
	} else {
		sink += strlen(err.msg);
	}
	free(src);
	return 0;
}
