#include "history_page.h"
#include "page.h"

#include <string.h>

typedef struct page_ctx {
	const dp_history_model *m;
	const char *db;
} page_ctx;

static void slot(void *ctx, const char *name, size_t n, FILE *f)
{
	page_ctx *c = ctx;

	if (dp_view_slot_is(name, n, "generator")) {
		fputs("dataprof history show --html", f);
	} else if (dp_view_slot_is(name, n, "title")) {
		fputs("dataprof history", f);
	} else if (dp_view_slot_is(name, n, "css")) {
		fputs("<style>\n", f);
		dp_view_put(f, "vendor/uplot/uPlot.min.css");
		dp_view_put(f, "history/history.css");
		fputs("</style>", f);
	} else if (dp_view_slot_is(name, n, "data")) {
		fputs("<script type=\"application/json\" id=\"dp-history\">", f);
		/* its strings escape '<': no "</script>" in a key ends it */
		dp_history_model_json(c->m, c->db, f);
		fputs("</script>", f);
	} else if (dp_view_slot_is(name, n, "js")) {
		fputs("<script>\n", f);
		dp_view_put(f, "vendor/uplot/uPlot.iife.min.js");
		/* the view page's helpers, then the page's own, in one scope */
		fputs("\n</script>\n<script>\n(function () {\n\"use strict\";\n", f);
		dp_view_put(f, "js/util.js");
		dp_view_put(f, "history/history.js");
		fputs("})();\n</script>", f);
	}
}

int dp_history_page_write(const dp_history_model *m, const char *db, FILE *f, dp_error *err)
{
	page_ctx c = {m, db};

	return dp_view_template_write("history/page.html", f, slot, &c, err);
}

int dp_history_page_save(dp_history *h, const dp_history_show_opts *o, const char *db,
			 const char *path, dp_error *err)
{
	dp_history_model m;
	FILE *f;
	int rc = -1;

	if (dp_history_model_build(h, o, &m, err) < 0)
		goto out;
	if (!(f = fopen(path, "w"))) {
		dp_error_set(err, "cannot write %s: %m", path);
		goto out;
	}
	rc = dp_history_page_write(&m, db, f, err);
	if (fclose(f) != 0 && !rc) {
		dp_error_set(err, "cannot write %s: %m", path);
		rc = -1;
	}
out:
	dp_history_model_free(&m);
	return rc < 0 ? -1 : 0;
}
