#include "page.h"
#include "assets.h"

#include <string.h>

static const struct dp_asset *asset(const char *name)
{
	for (const struct dp_asset *a = dp_assets; a->name; a++)
		if (!strcmp(a->name, name))
			return a;
	return NULL;
}

static void put(FILE *f, const struct dp_asset *a)
{
	fwrite(a->data, 1, a->len, f);
}

/* Every embedded file whose name starts with prefix and ends with suffix, in
 * the order CMakeLists.txt lists them (the scripts depend on that order). */
static void put_all(FILE *f, const char *prefix, const char *suffix)
{
	size_t np = strlen(prefix), ns = strlen(suffix);

	for (const struct dp_asset *a = dp_assets; a->name; a++) {
		size_t n = strlen(a->name);
		if (n >= np + ns && !strncmp(a->name, prefix, np) &&
		    !strcmp(a->name + n - ns, suffix)) {
			fprintf(f, "/* %s */\n", a->name);
			put(f, a);
		}
	}
}

int dp_view_page_write(dp_view_model *m, FILE *f, dp_error *err)
{
	const struct dp_asset *tpl = asset("page.html");
	const char *p, *end;

	if (!tpl) {
		dp_error_set(err, "view: the page template is missing from this build");
		return -1;
	}
	p = (const char *)tpl->data;
	end = p + tpl->len;
	/* the template's slots: <!--dp:NAME--> */
	while (p < end) {
		const char *slot = memmem(p, (size_t)(end - p), "<!--dp:", 7), *close;

		if (!slot) {
			fwrite(p, 1, (size_t)(end - p), f);
			break;
		}
		fwrite(p, 1, (size_t)(slot - p), f);
		close = memmem(slot, (size_t)(end - slot), "-->", 3);
		if (!close)
			break;
		size_t n = (size_t)(close - slot - 7);
		if (n == 3 && !strncmp(slot + 7, "css", 3)) {
			fputs("<style>\n", f);
			put(f, asset("vendor/uplot/uPlot.min.css"));
			put_all(f, "", "view.css");
			fputs("</style>", f);
		} else if (n == 4 && !strncmp(slot + 7, "data", 4)) {
			fputs("<script type=\"application/json\" id=\"dp-data\">", f);
			dp_view_model_json(m, f);
			fputs("</script>", f);
		} else if (n == 2 && !strncmp(slot + 7, "js", 2)) {
			fputs("<script>\n", f);
			put(f, asset("vendor/uplot/uPlot.iife.min.js"));
			/* the page's files share one scope, in their order */
			fputs("\n</script>\n<script>\n(function () {\n\"use strict\";\n", f);
			put_all(f, "js/", ".js");
			fputs("})();\n</script>", f);
		}
		p = close + 3;
	}
	if (ferror(f)) {
		dp_error_set(err, "view: writing the page failed");
		return -1;
	}
	return 0;
}
