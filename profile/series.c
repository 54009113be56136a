/* Several files read as one profile: the series `record --switch-output`
 * writes, named one by one, by a glob pattern, or both. Each file is opened
 * and checked whole (dp_profile_open_file); then the first in the series'
 * order keeps the reader and the others lend it their bytes as segments,
 * read one after the other. */
#include "reader_impl.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

typedef DP_VEC(char *) path_vec;

static bool is_pattern(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* spec's paths: separated by DP_PROFILE_SPEC_SEP; a pattern that names no
 * existing file is expanded, in name order. */
static int expand(const char *spec, path_vec *out, dp_error *err)
{
	char *copy = dp_strdup(spec), *save = NULL;
	int rc = 0;

	for (char *s = strtok_r(copy, DP_PROFILE_SPEC_SEP, &save); s && !rc;
	     s = strtok_r(NULL, DP_PROFILE_SPEC_SEP, &save)) {
		struct stat sb;
		glob_t g;

		if (!is_pattern(s) || stat(s, &sb) == 0) {
			dp_vec_push(out, dp_strdup(s));
			continue;
		}
		if (glob(s, 0, NULL, &g) != 0) {
			dp_error_set(err,
				     "no file matches '%s' (record a series with 'dataprof record "
				     "--switch-output')",
				     s);
			rc = -1;
			continue;
		}
		for (size_t i = 0; i < g.gl_pathc; i++)
			dp_vec_push(out, dp_strdup(g.gl_pathv[i]));
		globfree(&g);
	}
	free(copy);
	if (!rc && !out->n) {
		dp_error_set(err, "no profile named");
		rc = -1;
	}
	return rc;
}

typedef struct part {
	dp_profile *p;
	uint64_t index;
} part;

static int by_index(const void *a, const void *b)
{
	const part *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* Every file must be a dataprof profile of one series, each part once. */
static int check_parts(part *v, size_t n, dp_error *err)
{
	const char *series = NULL, *first = NULL;

	for (size_t i = 0; i < n; i++) {
		dp_profile *p = v[i].p;
		const char *s = dp_profile_meta(p, "series"),
			   *ix = dp_profile_meta(p, "series_index");

		if (p->fmt != DP_FMT_DPROF) {
			dp_error_set(
			    err,
			    "'%s' is a perf.data file: only dataprof's own profiles are read "
			    "several at once (a series of 'dataprof record --switch-output'); "
			    "give one perf.data file",
			    p->path);
			return -1;
		}
		if (!s || !ix || !dp_parse_u64(ix, &v[i].index)) {
			dp_error_set(
			    err,
			    "'%s' is not a file of a series: several files are read as one "
			    "profile only when 'dataprof record --switch-output' wrote them "
			    "(to compare recordings: dataprof diff)",
			    p->path);
			return -1;
		}
		if (series && strcmp(s, series)) {
			dp_error_set(err,
				     "'%s' and '%s' come from two recordings: read each alone, or "
				     "compare them with dataprof diff",
				     first, p->path);
			return -1;
		}
		series = s;
		first = first ? first : p->path;
	}
	qsort(v, n, sizeof(*v), by_index);
	for (size_t i = 1; i < n; i++)
		if (v[i].index == v[i - 1].index) {
			dp_error_set(
			    err, "'%s' and '%s' are the same part of one recording: name it once",
			    v[i - 1].p->path, v[i].p->path);
			return -1;
		}
	return 0;
}

/* The reader of v[0] takes every file's bytes as its segments. */
static dp_profile *join(part *v, size_t n)
{
	dp_profile *p = v[0].p;
	uint64_t base = 0;
	DP_VEC(dp_profile *) files = {0};

	for (size_t i = 0; i < n; i++)
		dp_vec_push(&files, v[i].p);
	dp_profile_join_index(p, files.v, n);
	dp_vec_free(&files);
	for (size_t i = 0; i < n; i++) {
		dp_profile *q = v[i].p;

		/* the segments are plain mappings, given back as they are left */
		dp_win_off(&q->win);
		dp_profile_seg s = {q->map, q->owned, q->data, q->size, q->first, base};

		dp_vec_push(&p->segs, s);
		base += q->size;
		if (i) {
			q->map = NULL;
			q->owned = NULL;
			dp_profile_close(q);
		}
	}
	p->map = NULL; /* the segments own the bytes now */
	p->owned = NULL;
	dp_profile_seg_enter(p, 0);
	return p;
}

dp_profile *dp_profile_open(const char *spec, dp_error *err)
{
	static const dp_profile_open_opts plain;

	return dp_profile_open_with(spec, &plain, err);
}

dp_profile *dp_profile_open_with(const char *spec, const dp_profile_open_opts *o, dp_error *err)
{
	path_vec paths = {0};
	DP_VEC(part) parts = {0};
	dp_profile *p = NULL;
	dp_profile_open_opts one = {NULL, o->threads};

	if (expand(spec, &paths, err) < 0)
		goto out;
	if (paths.n == 1) {
		p = dp_profile_open_file_with(paths.v[0], o, err);
		goto out;
	}
	for (size_t i = 0; i < paths.n; i++) {
		part x = {NULL, 0};

		if (!strcmp(paths.v[i], "-")) {
			dp_error_set(err, "standard input cannot be read with other files");
			goto fail;
		}
		/* (another reader's map is the whole series': each file is
		 * walked, by as many threads as asked) */
		if (!(x.p = dp_profile_open_file_with(paths.v[i], &one, err)))
			goto fail;
		dp_vec_push(&parts, x);
	}
	if (check_parts(parts.v, parts.n, err) < 0)
		goto fail;
	p = join(parts.v, parts.n);
	goto out;
fail:
	for (size_t i = 0; i < parts.n; i++)
		dp_profile_close(parts.v[i].p);
out:
	dp_vec_free_each(&paths, free);
	dp_vec_free(&parts);
	return p;
}

bool dp_profile_spec_bytes(const char *spec, uint64_t *bytes)
{
	path_vec paths = {0};
	dp_error err = {{0}};
	bool ok = expand(spec, &paths, &err) == 0;

	*bytes = 0;
	for (size_t i = 0; i < paths.n; i++) {
		struct stat sb;

		if (ok && (stat(paths.v[i], &sb) < 0 || !S_ISREG(sb.st_mode)))
			ok = false;
		else if (ok)
			*bytes += (uint64_t)sb.st_size;
		free(paths.v[i]);
	}
	dp_vec_free(&paths);
	return ok;
}

void dp_profile_seg_enter(dp_profile *p, size_t k)
{
	const dp_profile_seg *s = &p->segs.v[k];

	/* the file left behind is read again only on a rewind */
	dp_profile_give_back(p, p->dropped, p->size);
	p->seg = k;
	p->map = s->map;
	p->owned = s->owned;
	p->data = s->data;
	p->size = s->size;
	p->first = s->first;
	p->base = s->base;
	p->pos = s->first;
	p->dropped = 0;
	p->inner_len = p->inner_pos = 0;
}

size_t dp_profile_seg_find(const dp_profile *p, uint64_t pos)
{
	/* the last segment that begins at or before pos (the first begins at 0) */
	size_t n = DP_PARTITION_POINT(p->segs.n, i, p->segs.v[i].base <= pos);

	return n ? n - 1 : 0;
}

void dp_profile_segs_free(dp_profile *p)
{
	if (!p->segs.n)
		return;
	for (size_t i = 0; i < p->segs.n; i++) {
		if (p->segs.v[i].map)
			munmap(p->segs.v[i].map, p->segs.v[i].size);
		free(p->segs.v[i].owned);
	}
	dp_vec_free(&p->segs);
	p->map = NULL;
	p->owned = NULL;
}
