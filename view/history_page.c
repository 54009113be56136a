#include "history_page.h"
#include "page.h"

#include <stdlib.h>
#include <string.h>

typedef struct page_ctx {
	const dp_history_model *m;
	const char *db;
} page_ctx;

/* "</script>" in a key would end the data block early */
static void json_safe(const dp_history_model *m, const char *db, FILE *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	dp_history_model_json(m, db, mem);
	fclose(mem);
	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '<' && i + 1 < len && buf[i + 1] == '/')
			fputs("<\\", f);
		else
			fputc(buf[i], f);
	}
	free(buf);
}

static void slot(void *ctx, const char *name, size_t n, FILE *f)
{
	page_ctx *c = ctx;

	if (n == 3 && !strncmp(name, "css", 3)) {
		fputs("<style>\n", f);
		dp_view_put(f, "vendor/uplot/uPlot.min.css");
		dp_view_put(f, "history/history.css");
		fputs("</style>", f);
	} else if (n == 4 && !strncmp(name, "data", 4)) {
		fputs("<script type=\"application/json\" id=\"dp-history\">", f);
		json_safe(c->m, c->db, f);
		fputs("</script>", f);
	} else if (n == 2 && !strncmp(name, "js", 2)) {
		fputs("<script>\n", f);
		dp_view_put(f, "vendor/uplot/uPlot.iife.min.js");
		fputs("\n</script>\n<script>\n", f);
		dp_view_put(f, "history/history.js");
		fputs("</script>", f);
	}
}

int dp_history_page_write(const dp_history_model *m, const char *db, FILE *f, dp_error *err)
{
	page_ctx c = {m, db};

	return dp_view_template_write("history/page.html", f, slot, &c, err);
}
