#include "page.h"
#include "assets.h"

#include <string.h>

const struct dp_asset *dp_view_asset(const char *name)
{
	for (const struct dp_asset *a = dp_assets; a->name; a++)
		if (!strcmp(a->name, name))
			return a;
	return NULL;
}

void dp_view_put(FILE *f, const char *name)
{
	const struct dp_asset *a = dp_view_asset(name);

	if (a)
		fwrite(a->data, 1, a->len, f);
}

/* Every embedded file whose name starts with prefix and ends with suffix, in
 * the order CMakeLists.txt lists them (the scripts depend on that order). */
void dp_view_put_all(FILE *f, const char *prefix, const char *suffix)
{
	size_t np = strlen(prefix), ns = strlen(suffix);

	for (const struct dp_asset *a = dp_assets; a->name; a++) {
		size_t n = strlen(a->name);
		if (n >= np + ns && !strncmp(a->name, prefix, np) &&
		    !strcmp(a->name + n - ns, suffix)) {
			fprintf(f, "/* %s */\n", a->name);
			fwrite(a->data, 1, a->len, f);
		}
	}
}

bool dp_view_slot_is(const char *name, size_t n, const char *want)
{
	return n == strlen(want) && !strncmp(name, want, n);
}

/* A template's text with its slots filled; head: the shared <head>,
 * whose last line break is the one after its slot in the page. */
static void put_template(const struct dp_asset *tpl, bool head, FILE *f, dp_view_slot_fn slot,
			 void *ctx)
{
	const char *p = (const char *)tpl->data, *end = p + tpl->len;

	if (head && end > p && end[-1] == '\n')
		end--;
	/* the template's slots: <!--dp:NAME--> */
	while (p < end) {
		const char *at = memmem(p, (size_t)(end - p), "<!--dp:", 7), *close;

		if (!at) {
			fwrite(p, 1, (size_t)(end - p), f);
			break;
		}
		fwrite(p, 1, (size_t)(at - p), f);
		close = memmem(at, (size_t)(end - at), "-->", 3);
		if (!close)
			break;
		if (!head && dp_view_slot_is(at + 7, (size_t)(close - at - 7), "head"))
			put_template(dp_view_asset("head.html"), true, f, slot, ctx);
		else
			slot(ctx, at + 7, (size_t)(close - at - 7), f);
		p = close + 3;
	}
}

int dp_view_template_write(const char *name, FILE *f, dp_view_slot_fn slot, void *ctx,
			   dp_error *err)
{
	const struct dp_asset *tpl = dp_view_asset(name);

	if (!tpl || !dp_view_asset("head.html")) {
		dp_error_set(err, "view: the page template %s is missing from this build",
			     tpl ? "head.html" : name);
		return -1;
	}
	put_template(tpl, false, f, slot, ctx);
	if (ferror(f)) {
		dp_error_set(err, "view: writing the page failed");
		return -1;
	}
	return 0;
}

static void view_slot(void *ctx, const char *name, size_t n, FILE *f)
{
	if (dp_view_slot_is(name, n, "generator") || dp_view_slot_is(name, n, "title")) {
		fputs("dataprof view", f);
	} else if (dp_view_slot_is(name, n, "css")) {
		fputs("<style>\n", f);
		dp_view_put(f, "vendor/uplot/uPlot.min.css");
		dp_view_put_all(f, "", "view.css");
		fputs("</style>", f);
	} else if (dp_view_slot_is(name, n, "data")) {
		fputs("<script type=\"application/json\" id=\"dp-data\">", f);
		dp_view_model_json(ctx, f);
		fputs("</script>", f);
	} else if (dp_view_slot_is(name, n, "js")) {
		fputs("<script>\n", f);
		dp_view_put(f, "vendor/uplot/uPlot.iife.min.js");
		/* the page's files share one scope, in their order */
		fputs("\n</script>\n<script>\n(function () {\n\"use strict\";\n", f);
		dp_view_put_all(f, "js/", ".js");
		fputs("})();\n</script>", f);
	}
}

int dp_view_page_write(dp_view_model *m, FILE *f, dp_error *err)
{
	return dp_view_template_write("page.html", f, view_slot, m, err);
}
