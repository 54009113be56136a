#include "encode.h"

void dp_varint_put(dp_buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	dp_buf_add(b, tmp, n);
}

void dp_base64_json(FILE *f, const dp_buf *b)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = (const unsigned char *)b->p;
	char out[4096];
	size_t i = 0, o = 0;

	fputc('"', f);
	for (; i + 3 <= b->len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		out[o++] = tab[v >> 18];
		out[o++] = tab[(v >> 12) & 63];
		out[o++] = tab[(v >> 6) & 63];
		out[o++] = tab[v & 63];
		if (o == sizeof(out)) {
			fwrite(out, 1, o, f);
			o = 0;
		}
	}
	fwrite(out, 1, o, f);
	if (i < b->len) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < b->len ? (uint32_t)p[i + 1] << 8 : 0);

		fputc(tab[v >> 18], f);
		fputc(tab[(v >> 12) & 63], f);
		fputc(i + 1 < b->len ? tab[(v >> 6) & 63] : '=', f);
		fputc('=', f);
	}
	fputc('"', f);
}

void dp_varint_column_json(FILE *f, const char *name, size_t n, const dp_buf *b)
{
	fprintf(f, "\"n%s\":%zu,\"%s\":", name, n, name);
	dp_base64_json(f, b);
}
