#include "spool.h"

#include <stdio.h>
#include <stdlib.h>

#include "util.h"

struct dp_spool {
	FILE *f;
	bool failed;
};

dp_spool *dp_spool_new(void)
{
	FILE *f = tmpfile();
	dp_spool *s;

	if (!f)
		return NULL;
	s = dp_calloc(1, sizeof(*s));
	s->f = f;
	return s;
}

void dp_spool_add(dp_spool *s, uint64_t seq, const void *data, uint32_t len)
{
	if (s->failed || fwrite(&seq, 8, 1, s->f) != 1 || fwrite(&len, 4, 1, s->f) != 1 ||
	    fwrite(data, 1, len, s->f) != len)
		s->failed = true;
}

void dp_spool_free(dp_spool *s)
{
	if (!s)
		return;
	fclose(s->f);
	free(s);
}

/* The head of a spool being read back. */
typedef struct head {
	FILE *f;
	uint64_t seq;
	uint32_t len;
} head;

static bool next_head(head *h)
{
	return fread(&h->seq, 8, 1, h->f) == 1 && fread(&h->len, 4, 1, h->f) == 1;
}

int dp_spool_merge(dp_spool *const *v, size_t n,
		   void (*fn)(void *ctx, const void *data, uint32_t len), void *ctx)
{
	head *in = dp_calloc(n ? n : 1, sizeof(*in));
	dp_buf b = {0};
	size_t live = 0;
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		if (v[i]->failed || fflush(v[i]->f) != 0) {
			rc = -1;
			goto out;
		}
		rewind(v[i]->f);
		in[live].f = v[i]->f;
		if (next_head(&in[live]))
			live++;
	}
	/* each spool is in order: the next record is the least of the heads
	 * (parts are few: a scan) */
	while (live) {
		size_t k = 0;

		for (size_t i = 1; i < live; i++)
			if (in[i].seq < in[k].seq)
				k = i;
		b.len = 0;
		dp_buf_reserve(&b, in[k].len);
		if (fread(b.p, 1, in[k].len, in[k].f) != in[k].len) {
			rc = -1;
			break;
		}
		fn(ctx, b.p, in[k].len);
		if (!next_head(&in[k]))
			in[k] = in[--live];
	}
out:
	dp_buf_free(&b);
	free(in);
	return rc;
}
