/* Source files for annotate: located, read whole once, split into lines. */
#include <stdbool.h>

#include "source.h"
#include "hashmap.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sv_file {
	char *path;	       /* as DWARF names it */
	char *data;	       /* NULL: not found */
	char *why;	       /* when not found */
	DP_VEC(size_t) starts; /* offset of each line */
	size_t size;
} sv_file;

struct dp_sv_sources {
	const char *dir;
	unsigned strip;
	dp_hashmap by_hash; /* hash of path -> index in files */
	DP_VEC(sv_file) files;
};

dp_sv_sources *dp_sv_sources_new(const char *source_dir, unsigned prefix_strip)
{
	dp_sv_sources *s = dp_calloc(1, sizeof(*s));

	s->dir = source_dir;
	s->strip = prefix_strip;
	dp_hashmap_init(&s->by_hash, 16);
	return s;
}

void dp_sv_sources_free(dp_sv_sources *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->files.n; i++) {
		free(s->files.v[i].path);
		free(s->files.v[i].data);
		free(s->files.v[i].why);
		dp_vec_free(&s->files.v[i].starts);
	}
	dp_vec_free(&s->files);
	dp_hashmap_free(&s->by_hash);
	free(s);
}

/* path without its first n components ("/a/b/c.c", 1 -> "b/c.c") */
static const char *strip(const char *path, unsigned n)
{
	while (n--) {
		while (*path == '/')
			path++;
		const char *slash = strchr(path, '/');
		if (!slash)
			return path;
		path = slash;
	}
	return path;
}

static char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	dp_buf b = {0};
	char chunk[65536];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		dp_buf_add(&b, chunk, n);
	fclose(f);
	dp_buf_add(&b, "", 1);
	*size = b.len - 1;
	return b.p;
}

static void load(dp_sv_sources *s, sv_file *f)
{
	const char *rel = strip(f->path, s->strip);
	char *tried[2] = {NULL, NULL};
	int e = ENOENT;

	if (s->dir) {
		const char *base = strrchr(f->path, '/');

		while (*rel == '/')
			rel++;
		tried[0] = dp_asprintf("%s/%s", s->dir, rel);
		/* a flat copy of the sources: the base name alone */
		if (!s->strip && base)
			tried[1] = dp_asprintf("%s/%s", s->dir, base + 1);
	} else {
		tried[0] = dp_strdup(rel);
	}
	for (int i = 0; i < 2 && tried[i] && !f->data; i++) {
		f->data = slurp(tried[i], &f->size);
		if (!f->data && i == 0)
			e = errno;
	}
	if (!f->data)
		f->why = dp_asprintf("%s: %s", tried[0], strerror(e));
	else
		for (size_t o = 0; o < f->size; o++)
			if (!o || f->data[o - 1] == '\n')
				dp_vec_push(&f->starts, o);
	free(tried[0]);
	free(tried[1]);
}

static sv_file *find(dp_sv_sources *s, const char *path)
{
	uint64_t h = dp_hash_bytes(path, strlen(path), 0x5eed), v;
	sv_file f;

	/* a collision probes the next hash, as the string table does */
	while (dp_hashmap_get(&s->by_hash, h, &v)) {
		if (!strcmp(s->files.v[v].path, path))
			return &s->files.v[v];
		h++;
	}
	memset(&f, 0, sizeof(f));
	f.path = dp_strdup(path);
	dp_vec_push(&s->files, f);
	dp_hashmap_put(&s->by_hash, h, s->files.n - 1);
	load(s, &s->files.v[s->files.n - 1]);
	return &s->files.v[s->files.n - 1];
}

bool dp_sv_source_line(dp_sv_sources *s, const char *path, unsigned n, const char **text,
		       size_t *len, const char **why)
{
	sv_file *f = find(s, path);
	size_t start, end;

	if (!f->data) {
		*why = f->why;
		return false;
	}
	if (!n || n > f->starts.n) {
		*why = "the file is shorter than DWARF says: another version of it?";
		return false;
	}
	start = f->starts.v[n - 1];
	end = n < f->starts.n ? f->starts.v[n] : f->size;
	while (end > start && (f->data[end - 1] == '\n' || f->data[end - 1] == '\r'))
		end--;
	*text = f->data + start;
	*len = end - start;
	return true;
}
