/* dataprof history check: a commit's runs (stored, or profiles not stored
 * yet) against a rolling baseline -- the runs of the last N commits of its
 * branch before it, or of a named commit or branch -- compared as diff
 * compares two sets of runs: the same statistics, --fail-if, text, JSON and
 * Markdown. The baseline's runs are pooled; with runs of several commits
 * the noise between runs is measured, commit to commit included. */
#include "history.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>

typedef struct target {
	char *program, *event, *branch;
	int n;
	bool branches; /* runs on more than one branch */
} target;

static int target_row(void *ctx, const dp_store_row *row)
{
	target *t = ctx;
	const char *branch = dp_store_null(row, 2) ? NULL : dp_store_text(row, 2);

	if (t->n && (strcmp(t->program, dp_store_text(row, 0)) ||
		     strcmp(t->event, dp_store_text(row, 1)))) {
		t->n++;
		return 0;
	}
	if (!t->n) {
		t->program = dp_strdup(dp_store_text(row, 0));
		t->event = dp_strdup(dp_store_text(row, 1));
		t->branch = branch ? dp_strdup(branch) : NULL;
		t->n = 1;
	} else if (!branch || !t->branch || strcmp(branch, t->branch)) {
		t->branches = true;
	}
	return 0;
}

/* The program, event and branch of a stored commit's runs. */
static int stored_target(dp_history *h, const dp_history_check_opts *o, const char *commit,
			 const char *by, target *t, dp_error *err)
{
	dp_sval a[5] = {dp_sv_text(commit), dp_sv_text(o->program), dp_sv_text(o->event),
			dp_sv_text(o->branch), dp_sv_text(by)};

	if (dp_store_exec(
		dp_history_store(h),
		"SELECT DISTINCT r.program, r.event, r.branch FROM runs r WHERE "
		"r.commit_sha = $1 AND ($2 IS NULL OR r.program = $2) AND ($3 IS NULL OR "
		"r.event = $3) AND ($4 IS NULL OR r.branch = $4) AND EXISTS (SELECT 1 FROM "
		"aggregates a WHERE a.run_id = r.id AND a.attrs = $5) ORDER BY 1, 2, 3",
		a, 5, target_row, t, err) < 0)
		return -1;
	if (!t->n) {
		dp_error_set(err,
			     "%s holds no run of commit %s stored by %s%s%s: add its runs first",
			     dp_history_name(h), commit, by, o->branch ? " on branch " : "",
			     o->branch ? o->branch : "");
		return -1;
	}
	if (t->n > 1) {
		dp_error_set(err,
			     "commit %s has runs of several programs or events (%s, %s and more): "
			     "--program and --event choose",
			     commit, t->program, t->event);
		return -1;
	}
	return 0;
}

/* The profiles' program and event: one of each. */
static int profile_target(const dp_diff_result *r, target *t, dp_error *err)
{
	const dp_run *first = &r->new_.runs.v[0];

	for (size_t i = 1; i < r->new_.runs.n; i++) {
		const dp_run *x = &r->new_.runs.v[i];

		if (strcmp(x->program, first->program) || strcmp(x->event, first->event)) {
			dp_error_set(err,
				     "%s is a profile of '%s' (%s) but %s is of '%s' (%s): check "
				     "runs of one program and event",
				     x->path, x->program, x->event, first->path, first->program,
				     first->event);
			return -1;
		}
	}
	t->program = dp_strdup(first->program);
	t->event = dp_strdup(first->event);
	t->n = 1;
	return 0;
}

static int64_t count_runs(dp_history *h, const dp_history_sel *sel, const char *commit)
{
	dp_sval a[5] = {dp_sv_text(sel->program), dp_sv_text(sel->event), dp_sv_text(sel->branch),
			dp_sv_text(sel->by), dp_sv_text(commit)};
	int64_t n = 0;

	dp_store_int_query(
	    dp_history_store(h),
	    "SELECT count(*) FROM runs r WHERE r.program = $1 AND r.event = $2 AND "
	    "($3 IS NULL OR r.branch = $3) AND ($5 IS NULL OR r.commit_sha = $5) AND "
	    "EXISTS (SELECT 1 FROM aggregates a WHERE a.run_id = r.id AND a.attrs = $4)",
	    a, 5, &n, NULL);
	return n;
}

static int64_t branch_runs(dp_history *h, const char *branch)
{
	dp_sval a = dp_sv_text(branch);
	int64_t n = 0;

	dp_store_int_query(dp_history_store(h), "SELECT count(*) FROM runs WHERE branch = $1", &a,
			   1, &n, NULL);
	return n;
}

/* The baseline's commits: a commit named, or the last n of a branch (before
 * the checked commit when it is on it). */
static int baseline(dp_history *h, const dp_history_check_opts *o, const char *commit,
		    dp_history_sel *sel, dp_history_commits *out, dp_error *err)
{
	size_t n = o->baseline_commits ? o->baseline_commits : 5;
	char *named = NULL;

	if (o->baseline) {
		if (dp_history_commit_find(h, o->baseline, &named, err) < 0)
			return -1;
		if (named) {
			dp_history_commit c = {named, dp_strdup(""), 0, 0};

			c.runs = (int)count_runs(h, sel, named);
			if (!c.runs) {
				dp_error_set(err,
					     "--baseline %s: %s holds no run of commit %s of %s "
					     "(%s) stored by %s",
					     o->baseline, dp_history_name(h), named, sel->program,
					     sel->event, sel->by);
				free(c.sha);
				free(c.time);
				return -1;
			}
			dp_vec_push(out, c);
			return 0;
		}
		if (!branch_runs(h, o->baseline)) {
			dp_error_set(err,
				     "--baseline %s: %s holds no commit and no branch of that name",
				     o->baseline, dp_history_name(h));
			return -1;
		}
		sel->branch = o->baseline;
	}
	if (commit && !count_runs(h, sel, commit))
		commit = NULL; /* not on that branch: its newest commits */
	return dp_history_commit_list(h, sel, commit, n, out, err);
}

static void describe(const dp_history_check_opts *o, const char *commit, const dp_history_sel *sel,
		     const dp_history_commits *base, char *buf, size_t len)
{
	size_t k = 0;

	if (commit)
		k = (size_t)snprintf(buf, len, "dataprof history check of %.12s against ", commit);
	else
		k = (size_t)snprintf(buf, len, "dataprof history check of %zu profile%s against ",
				     o->nprofiles, o->nprofiles == 1 ? "" : "s");
	if (k >= len)
		return;
	if (o->baseline && base->n == 1 && (!sel->branch || strcmp(sel->branch, o->baseline)))
		snprintf(buf + k, len - k, "commit %.12s", base->v[0].sha);
	else if (!base->n)
		snprintf(buf + k, len - k, "no baseline");
	else if (base->n == 1)
		snprintf(buf + k, len - k, "the last commit%s%s (%.12s)", sel->branch ? " of " : "",
			 sel->branch ? sel->branch : "", base->v[0].sha);
	else
		snprintf(buf + k, len - k, "the last %zu commits%s%s (%.8s..%.8s)", base->n,
			 sel->branch ? " of " : "", sel->branch ? sel->branch : "", base->v[0].sha,
			 base->v[base->n - 1].sha);
}

static void json_head(FILE *f, const dp_history_check_opts *o, const char *commit,
		      const dp_history_sel *sel, const dp_history_commits *base)
{
	dp_json_key_str_or_null(f, "{\"schema\":\"dataprof-history-check/1\",\"commit\":", commit);
	fputs(",\"profiles\":[", f);
	for (size_t i = 0; i < o->nprofiles; i++) {
		fputs(i ? "," : "", f);
		dp_json_str(f, o->profiles[i]);
	}
	dp_json_key_str(f, "],\"program\":", sel->program);
	dp_json_key_str(f, ",\"event\":", sel->event);
	dp_json_key_str_or_null(f, ",\"baseline\":{\"branch\":", sel->branch);
	fputs(",\"commits\":[", f);
	for (size_t i = 0; i < base->n; i++) {
		fputs(i ? "," : "", f);
		dp_json_str(f, base->v[i].sha);
	}
	fputs("]}", f);
}

/* No earlier commit to compare with: the first of a branch. */
static void no_baseline(const dp_history_check_opts *o, const char *title,
			const dp_history_sel *sel, const dp_history_commits *base,
			const char *commit, FILE *f)
{
	const char *why = "no earlier commit holds runs of it stored by";

	switch (o->format) {
	case DP_HF_JSON:
		json_head(f, o, commit, sel, base);
		fputs(",\"failed\":false,\"diff\":null}\n", f);
		break;
	case DP_HF_MARKDOWN:
		fprintf(f,
			"#### %s: %s, %s\n\nNothing compared: %s `%s`%s%s; the next commits will "
			"compare with this one.\n",
			title, sel->program, sel->event, why, sel->by, sel->branch ? " on " : "",
			sel->branch ? sel->branch : "");
		break;
	default:
		fprintf(f, "# %s: %s, event %s\n# nothing compared: %s %s%s%s\n", title,
			sel->program, sel->event, why, sel->by, sel->branch ? " on branch " : "",
			sel->branch ? sel->branch : "");
	}
}

/* A baseline is missing because the history holds another program's runs
 * there: the profiles are not what the branch's runs are of. */
static int other_program(dp_history *h, const dp_history_sel *sel, dp_error *err)
{
	dp_history_sel any = {sel->by, NULL, NULL, sel->branch};
	char *program = NULL, *event = NULL;
	dp_error ignore;

	if (dp_history_newest(h, &any, &program, &event, &ignore) < 0)
		return 0;
	dp_error_set(err,
		     "the profiles are of '%s' (%s) but %s holds no run of it%s%s to compare with "
		     "(its newest is of '%s' (%s)): --program, --event or --baseline choose",
		     sel->program, sel->event, dp_history_name(h), sel->branch ? " on branch " : "",
		     sel->branch ? sel->branch : "", program, event);
	free(program);
	free(event);
	return -1;
}

int dp_history_check(dp_history *h, const dp_history_check_opts *o, FILE *f, bool *failed,
		     dp_error *err)
{
	dp_diff_opts d = o->diff;
	dp_diff_result r;
	dp_history_commits base = {0};
	dp_history_sel sel;
	target t;
	char by[256], title[256], *commit = NULL;
	int rc = -1;

	*failed = false;
	memset(&t, 0, sizeof(t));
	dp_history_by_text(&o->diff.by, by, sizeof(by));
	d.title = title;
	snprintf(title, sizeof(title), "dataprof history check");
	if (dp_diff_start(&r, &d, err) < 0)
		return -1;
	if (o->commit && dp_history_commit_find(h, o->commit, &commit, err) < 0)
		goto out;
	if (o->nprofiles) {
		if (o->commit && !commit)
			commit = dp_strdup(o->commit); /* not stored (yet) */
		if (dp_diff_read_runs(o->profiles, o->nprofiles, &r, &r.new_, err) < 0 ||
		    profile_target(&r, &t, err) < 0)
			goto out;
		if (o->program && strcmp(o->program, t.program)) {
			dp_error_set(err, "%s is a profile of '%s', not of '%s' (--program)",
				     r.new_.runs.v[0].path, t.program, o->program);
			goto out;
		}
	} else {
		if (!commit) {
			dp_error_set(err,
				     "%s holds no run of commit %s: add its runs first, or give "
				     "the profiles to check",
				     dp_history_name(h), o->commit);
			goto out;
		}
		if (stored_target(h, o, commit, by, &t, err) < 0)
			goto out;
	}
	sel = (dp_history_sel){by, t.program, t.event,
			       o->branch    ? o->branch
			       : t.branches ? NULL
					    : t.branch};
	if (!o->nprofiles && dp_history_load(h, commit, &sel, &r.tab, &r.new_, err) < 0)
		goto out;
	if (baseline(h, o, commit, &sel, &base, err) < 0)
		goto out;
	describe(o, commit, &sel, &base, title, sizeof(title));
	if (!base.n) {
		if (o->nprofiles && other_program(h, &sel, err) < 0)
			goto out;
		no_baseline(o, title, &sel, &base, commit, f);
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < base.n; i++)
		if (dp_history_load(h, base.v[i].sha, &sel, &r.tab, &r.base, err) < 0)
			goto out;
	if (dp_diff_compute(&r, err) < 0)
		goto out;
	switch (o->format) {
	case DP_HF_JSON:
		json_head(f, o, commit, &sel, &base);
		fprintf(f, ",\"failed\":%s,\"diff\":", r.failed ? "true" : "false");
		dp_diff_json(&r, f);
		fputs("}\n", f);
		break;
	case DP_HF_MARKDOWN:
		dp_diff_markdown(&r, f);
		break;
	default:
		dp_diff_text(&r, f);
	}
	*failed = r.failed;
	rc = 0;
out:
	dp_diff_free(&r);
	dp_history_commits_free(&base);
	free(commit);
	free(t.program);
	free(t.event);
	free(t.branch);
	return rc;
}
