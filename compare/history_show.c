/* dataprof history show: each key's value in the newest commits, oldest
 * first, with the steps beyond noise marked. Each step is a diff of one
 * commit's runs against the one before (so lines that moved are followed),
 * and the trend a diff of the first shown against the last. The same model
 * feeds the text, the CSV and the trend page (history_page.c in view/). */
#include "history.h"
#include "csv.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>

static const char *const metric_names[] = {"samples", "period", "weight"};

/* A diff of commit a's runs against commit b's. */
static int step(dp_history *h, const dp_history_show_opts *o, const dp_history_sel *sel,
		const char *a, const char *b, dp_diff_result *r, dp_error *err)
{
	dp_diff_init(r, &o->diff);
	if (dp_history_load(h, a, sel, &r->tab, &r->base, err) < 0 ||
	    dp_history_load(h, b, sel, &r->tab, &r->new_, err) < 0 || dp_diff_compute(r, err) < 0) {
		dp_diff_free(r);
		return -1;
	}
	return 0;
}

static const dp_diff_row *with_key(const dp_diff_result *r, const char *key, bool new_side)
{
	for (size_t i = 0; i < r->rows.n; i++) {
		const dp_diff_row *row = &r->rows.v[i];

		if ((new_side ? row->nkey : row->bkey) >= 0 &&
		    !strcmp(dp_diff_key_text(r, row, new_side), key))
			return row;
	}
	return NULL;
}

static size_t sort_n;

static int by_newest(const void *a, const void *b)
{
	const dp_history_key *x = a, *y = b;
	double vx = x->have[sort_n - 1] ? x->v[sort_n - 1] : -1;
	double vy = y->have[sort_n - 1] ? y->v[sort_n - 1] : -1;

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* One key's values back through the steps, following it as it was named. */
static void follow(const dp_history_model *m, const dp_diff_row *row, dp_history_key *t)
{
	size_t n = m->commits.n;
	int metric = m->o->diff.metric;
	const dp_diff_result *last = &m->steps[n - 1];

	t->v = dp_calloc(n, sizeof(double));
	t->have = dp_calloc(n, sizeof(bool));
	t->sig = dp_calloc(n, sizeof(bool));
	t->gone = row->nkey < 0;
	t->key = dp_diff_key_text(last, row, !t->gone);
	if (row->nkey >= 0) {
		t->v[n - 1] = row->c[metric].new_;
		t->have[n - 1] = true;
	}
	if (n > 1) {
		t->sig[n - 1] = row->c[metric].significant;
		if (row->bkey >= 0) {
			t->v[n - 2] = row->c[metric].base;
			t->have[n - 2] = true;
		}
	}
	for (size_t i = n - 1; i > 1 && row->bkey >= 0; i--) {
		const dp_diff_row *prev =
		    with_key(&m->steps[i - 1], dp_diff_key_text(&m->steps[i], row, false), true);

		if (!prev)
			break;
		t->sig[i - 1] = prev->c[metric].significant;
		if (prev->bkey >= 0) {
			t->v[i - 2] = prev->c[metric].base;
			t->have[i - 2] = true;
		}
		row = prev;
	}
}

int dp_history_model_build(dp_history *h, const dp_history_show_opts *o, dp_history_model *m,
			   dp_error *err)
{
	dp_history_sel sel;
	size_t n;

	memset(m, 0, sizeof(*m));
	m->o = o;
	m->program = o->program ? dp_strdup(o->program) : NULL;
	m->event = o->event ? dp_strdup(o->event) : NULL;
	dp_history_by_text(&o->diff.by, m->by, sizeof(m->by));
	sel = (dp_history_sel){m->by, m->program, m->event, o->branch};
	if (dp_history_newest(h, &sel, &m->program, &m->event, err) < 0)
		return -1;
	sel.program = m->program;
	sel.event = m->event;
	if (dp_history_commit_list(h, &sel, NULL, o->last ? o->last : 10, &m->commits, err) < 0)
		return -1;
	if (!(n = m->commits.n)) {
		dp_error_set(err, "%s holds no run of %s (%s) stored by %s", dp_history_name(h),
			     m->program, m->event, m->by);
		return -1;
	}
	/* step i: commit i-1 against commit i; one commit: itself */
	m->steps = dp_calloc(n, sizeof(*m->steps));
	for (size_t i = n > 1 ? 1 : 0; i < n; i++)
		if (step(h, o, &sel, m->commits.v[i ? i - 1 : 0].sha, m->commits.v[i].sha,
			 &m->steps[i], err) < 0)
			return -1;
	if (n > 2) {
		if (step(h, o, &sel, m->commits.v[0].sha, m->commits.v[n - 1].sha, &m->trend, err) <
		    0)
			return -1;
		m->have_trend = true;
	}
	const dp_diff_result *last = &m->steps[n - 1];
	const dp_diff_result *tr = m->have_trend ? &m->trend : n > 1 ? last : NULL;
	for (size_t k = 0; k < last->rows.n; k++) {
		const dp_diff_row *row = &last->rows.v[k];
		dp_history_key t;

		memset(&t, 0, sizeof(t));
		follow(m, row, &t);
		if (tr && tr != last)
			t.trend = row->nkey >= 0 ? with_key(tr, t.key, true) : NULL;
		else if (tr)
			t.trend = row;
		dp_vec_push(&m->keys, t);
	}
	sort_n = n;
	if (m->keys.n > 1)
		qsort(m->keys.v, m->keys.n, sizeof(dp_history_key), by_newest);
	return 0;
}

void dp_history_model_free(dp_history_model *m)
{
	for (size_t i = 0; i < m->keys.n; i++) {
		free(m->keys.v[i].v);
		free(m->keys.v[i].have);
		free(m->keys.v[i].sig);
	}
	dp_vec_free(&m->keys);
	if (m->have_trend)
		dp_diff_free(&m->trend);
	for (size_t i = 0; m->steps && i < m->commits.n; i++)
		if (m->steps[i].o)
			dp_diff_free(&m->steps[i]);
	free(m->steps);
	dp_history_commits_free(&m->commits);
	free(m->program);
	free(m->event);
	memset(m, 0, sizeof(*m));
}

static void print_text(const dp_history_model *m, FILE *f, const char *path)
{
	const dp_history_show_opts *o = m->o;
	const dp_history_commit *c = m->commits.v;
	size_t n = m->commits.n, top = o->diff.top ? o->diff.top : 20;
	char buf[32], label[32];

	fprintf(f, "# dataprof history of %s, event %s, in %s\n", m->program, m->event, path);
	fprintf(f, "# %s %s, by %s; the last %zu commit%s, oldest first\n",
		metric_names[o->diff.metric], dp_diff_per_text(o->diff.per), o->diff.by_text, n,
		n == 1 ? "" : "s");
	fprintf(f,
		"# *: beyond noise from the commit before (%g%%, shared among the keys); "
		"trend: the first shown to the last\n# columns: commit/runs\n#",
		o->diff.confidence * 100);
	for (size_t i = 0; i < n; i++) {
		snprintf(label, sizeof(label), "%.8s/%d", c[i].sha, c[i].runs);
		fprintf(f, "%10s ", label);
	}
	fprintf(f, "    trend   %s\n", o->diff.by_text);
	for (size_t k = 0; k < m->keys.n && k < top; k++) {
		const dp_history_key *t = &m->keys.v[k];

		fputs(" ", f);
		for (size_t i = 0; i < n; i++) {
			if (t->have[i])
				dp_diff_fmt_num(t->v[i], false, buf, sizeof(buf));
			else
				snprintf(buf, sizeof(buf), "-");
			fprintf(f, "%10s%c", buf, t->sig[i] ? '*' : ' ');
		}
		if (t->trend)
			dp_diff_fmt_change(&t->trend->c[o->diff.metric], buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "-");
		fprintf(f, "  %8s%c  %s%s\n", buf,
			t->trend && t->trend->c[o->diff.metric].significant ? '*' : ' ', t->key,
			t->gone ? " (gone)" : "");
	}
	if (m->keys.n > top)
		fprintf(f, "  (%zu more; --top shows more)\n", m->keys.n - top);
}

static void print_csv(const dp_history_model *m, FILE *f)
{
	const dp_history_commit *c = m->commits.v;

	/* every commit of every key: one whose runs have no sample of it has 0
	 * (a member that went away at c3 is the change to see, not a missing
	 * row) */
	fprintf(f, "commit,runs,key,value,beyond_noise\n");
	for (size_t k = 0; k < m->keys.n; k++)
		for (size_t i = 0; i < m->commits.n; i++) {
			const dp_history_key *t = &m->keys.v[k];

			dp_csv_field(f, c[i].sha, true);
			fprintf(f, ",%d,", c[i].runs);
			dp_csv_field(f, t->key, true);
			fprintf(f, ",%.10g,%d\n", t->have[i] ? t->v[i] : 0, t->sig[i]);
		}
}

int dp_history_show(dp_history *h, const dp_history_show_opts *o, FILE *f, dp_error *err)
{
	dp_history_model m;
	int rc = dp_history_model_build(h, o, &m, err);

	if (!rc) {
		if (o->csv)
			print_csv(&m, f);
		else
			print_text(&m, f, dp_history_name(h));
	}
	dp_history_model_free(&m);
	return rc;
}

/* s in single quotes for a POSIX shell */
static void shell_word(dp_buf *b, const char *s)
{
	dp_buf_puts(b, "'");
	for (; *s; s++)
		if (*s == '\'')
			dp_buf_puts(b, "'\\''");
		else
			dp_buf_add(b, s, 1);
	dp_buf_puts(b, "'");
}

/* The command that shows this step again: check of the commit against the
 * one before, from the history alone (the profiles may be long gone). */
static void step_command(const dp_history_model *m, const char *db, size_t i, FILE *f)
{
	const dp_history_show_opts *o = m->o;
	dp_buf b = {0};

	dp_buf_puts(&b, "dataprof history --db ");
	shell_word(&b, db);
	dp_buf_puts(&b, " check --commit ");
	shell_word(&b, m->commits.v[i].sha);
	dp_buf_puts(&b, " --baseline ");
	shell_word(&b, m->commits.v[i - 1].sha);
	dp_buf_printf(&b, " --by %s --metric %s --per %s --program ", m->by,
		      metric_names[o->diff.metric], dp_diff_per_name(o->diff.per));
	shell_word(&b, m->program);
	dp_buf_puts(&b, " --event ");
	shell_word(&b, m->event);
	if (o->branch) {
		dp_buf_puts(&b, " --branch ");
		shell_word(&b, o->branch);
	}
	dp_json_str(f, b.p);
	dp_buf_free(&b);
}

static void step_json(const dp_history_model *m, const char *db, size_t i, FILE *f)
{
	const dp_diff_result *r = &m->steps[i];
	int metric = m->o->diff.metric;
	size_t top = m->o->diff.top ? m->o->diff.top : 20, shown = 0;
	char fmt[64], key[1024];

	fprintf(f, "{\"index\":%zu,\"base\":", i);
	dp_json_str(f, m->commits.v[i - 1].sha);
	dp_json_key_str(f, ",\"new\":", m->commits.v[i].sha);
	fprintf(f, ",\"significant\":%zu,\"command\":", r->nsignificant);
	step_command(m, db, i, f);
	fputs(",\"rows\":[", f);
	/* the changes beyond noise come first */
	for (size_t k = 0; k < r->rows.n && shown < top; k++) {
		const dp_diff_row *row = &r->rows.v[k];
		const dp_rate_cmp *c = &row->c[metric];

		if (!c->significant)
			break;
		fputs(shown++ ? ",{\"key\":" : "{\"key\":", f);
		dp_json_str(f, dp_diff_fmt_key(r, row, key, sizeof(key)));
		dp_json_key_num(f, ",\"base\":", c->base);
		dp_json_key_num(f, ",\"new\":", c->new_);
		dp_json_key_str(f, ",\"change\":", dp_diff_fmt_change(c, fmt, sizeof(fmt)));
		dp_json_key_str(f,
				",\"interval\":", dp_diff_fmt_interval(c, NULL, fmt, sizeof(fmt)));
		fprintf(f, ",\"direction\":\"%s\"}", c->delta > 0 ? "up" : "down");
	}
	fputs("]}", f);
}

void dp_history_model_json(const dp_history_model *m, const char *db, FILE *f)
{
	const dp_history_show_opts *o = m->o;
	size_t top = o->diff.top ? o->diff.top : 20, shown = 0;
	bool first = true;

	dp_json_key_str(f, "{\"schema\":\"dataprof-history-page/1\",\"program\":", m->program);
	dp_json_key_str(f, ",\"event\":", m->event);
	dp_json_key_str(f, ",\"by\":", m->by);
	fprintf(f, ",\"metric\":\"%s\",\"per\":\"%s\",\"per_text\":\"%s\",\"confidence\":%g",
		metric_names[o->diff.metric], dp_diff_per_name(o->diff.per),
		dp_diff_per_text(o->diff.per), o->diff.confidence);
	dp_json_key_str_or_null(f, ",\"branch\":", o->branch);
	fputs(",\"commits\":[", f);
	for (size_t i = 0; i < m->commits.n; i++) {
		fputs(i ? ",{\"sha\":" : "{\"sha\":", f);
		dp_json_str(f, m->commits.v[i].sha);
		dp_json_key_str(f, ",\"time\":", m->commits.v[i].time);
		fprintf(f, ",\"runs\":%d}", m->commits.v[i].runs);
	}
	/* the largest keys, and every key with a step beyond noise */
	fputs("],\"keys\":[", f);
	for (size_t k = 0; k < m->keys.n; k++) {
		const dp_history_key *t = &m->keys.v[k];
		bool any = false;

		for (size_t i = 0; i < m->commits.n; i++)
			any |= t->sig[i];
		if (shown >= top && !any)
			continue;
		fputs(shown++ ? ",{\"key\":" : "{\"key\":", f);
		dp_json_str(f, t->key);
		fprintf(f, ",\"gone\":%s,\"values\":[", t->gone ? "true" : "false");
		for (size_t i = 0; i < m->commits.n; i++) {
			fputs(i ? "," : "", f);
			if (t->have[i])
				dp_json_num(f, t->v[i]);
			else
				fputs("null", f);
		}
		fputs("],\"beyond_noise\":[", f);
		for (size_t i = 0; i < m->commits.n; i++)
			fprintf(f, "%s%s", i ? "," : "", t->sig[i] ? "true" : "false");
		fputs("]}", f);
	}
	fputs("],\"steps\":[", f);
	for (size_t i = 1; i < m->commits.n; i++) {
		if (!m->steps[i].nsignificant)
			continue;
		fputs(first ? "" : ",", f);
		first = false;
		step_json(m, db, i, f);
	}
	fputs("]}", f);
}
