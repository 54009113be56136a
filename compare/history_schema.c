/* The history's tables, versioned in history_meta ('schema',
 * 'dataprof-history/N'): created on first use, an older version migrated,
 * in one transaction that one writer at a time runs; a newer version is
 * refused, since this dataprof cannot know what it would break. */
#include "history.h"

#include <stdlib.h>
#include <string.h>

/* %1$s: the dialect's id column, %2$s: its text type */
static const char ddl[] =
    "CREATE TABLE IF NOT EXISTS history_meta(key %2$s PRIMARY KEY, value %2$s);"
    "CREATE TABLE IF NOT EXISTS runs("
    " id %1$s,"
    " profile_sha256 %2$s NOT NULL, selection %2$s NOT NULL,"
    " commit_sha %2$s NOT NULL, commit_time %2$s NOT NULL, branch %2$s, label %2$s,"
    " added_at %2$s NOT NULL,"
    " profile %2$s NOT NULL, program %2$s NOT NULL, event %2$s NOT NULL, hostname %2$s,"
    " seconds DOUBLE PRECISION NOT NULL, ginsn DOUBLE PRECISION NOT NULL,"
    " samples_read BIGINT NOT NULL, samples_kept BIGINT NOT NULL, lost BIGINT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS aggregates("
    " run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " attrs %2$s NOT NULL, key %2$s NOT NULL, anchor %2$s NOT NULL,"
    " samples DOUBLE PRECISION NOT NULL, period DOUBLE PRECISION NOT NULL,"
    " weight DOUBLE PRECISION NOT NULL,"
    " period_sq DOUBLE PRECISION NOT NULL, weight_sq DOUBLE PRECISION NOT NULL,"
    " PRIMARY KEY(run_id, attrs, key));"
    "CREATE INDEX IF NOT EXISTS runs_commit ON runs(program, event, commit_sha);";

/* Both: new tables and version 1's. */
static const char indexes[] =
    "CREATE UNIQUE INDEX IF NOT EXISTS runs_identity ON runs(profile_sha256, event, selection);"
    "CREATE INDEX IF NOT EXISTS runs_order ON runs(branch, commit_time);";

/* Version 1 had no identity, selection or commit time. */
static const char from_v1[] = "ALTER TABLE runs ADD COLUMN profile_sha256 %2$s NOT NULL DEFAULT '';"
			      "ALTER TABLE runs ADD COLUMN selection %2$s NOT NULL DEFAULT '';"
			      "ALTER TABLE runs ADD COLUMN commit_time %2$s NOT NULL DEFAULT '';"
			      "UPDATE runs SET commit_time = added_at;";

static int script(dp_store *s, const char *tpl, dp_error *err)
{
	char *sql = dp_asprintf(tpl, s->dialect->id_column, s->dialect->text);
	int rc = dp_store_exec(s, sql, NULL, 0, NULL, NULL, err);

	free(sql);
	return rc < 0 ? -1 : 0;
}

static int schema_row(void *ctx, const dp_store_row *row)
{
	const char *v = dp_store_text(row, 0);
	size_t n = strlen(DP_HISTORY_SCHEMA_NAME);
	char *end;
	long ver = -1;

	if (!strncmp(v, DP_HISTORY_SCHEMA_NAME, n)) {
		ver = strtol(v + n, &end, 10);
		if (end == v + n || *end || ver < 1)
			ver = -1;
	}
	*(long *)ctx = ver;
	return 1;
}

/* 0: no history here; -1 in *ver: history_meta names no version this reads */
static int read_version(dp_store *s, long *ver, dp_error *err)
{
	dp_sval table = dp_sv_text("history_meta");
	int64_t n = 0;

	*ver = 0;
	if (dp_store_int_query(s, s->dialect->has_table, &table, 1, &n, err) < 0)
		return -1;
	if (n && dp_store_exec(s, "SELECT value FROM history_meta WHERE key = 'schema'", NULL, 0,
			       schema_row, ver, err) < 0)
		return -1;
	return 0;
}

static int refuse(dp_store *s, long ver, dp_error *err)
{
	if (ver < 0)
		dp_error_set(err, "%s: history_meta names no schema %sN: not a dataprof history",
			     s->name, DP_HISTORY_SCHEMA_NAME);
	else
		dp_error_set(err,
			     "%s holds history of schema %s%ld, newer than this dataprof's (%s%d): "
			     "use a newer dataprof",
			     s->name, DP_HISTORY_SCHEMA_NAME, ver, DP_HISTORY_SCHEMA_NAME,
			     DP_HISTORY_VERSION);
	return -1;
}

typedef struct legacy {
	int64_t id;
	char sha[68];
} legacy;

static int legacy_row(void *ctx, const dp_store_row *row)
{
	DP_VEC(legacy) *v = ctx;
	dp_buf b = {0};
	legacy l;

	/* no profile to hash: what version 1 knew of the run, its id included
	 * (the same file added twice was two runs then) */
	for (int i = 0; i < 9; i++)
		dp_buf_add(&b, dp_store_text(row, i), strlen(dp_store_text(row, i)) + 1);
	l.id = dp_store_int(row, 0);
	memcpy(l.sha, "v1-", 3);
	dp_history_sha256(b.p, b.len, l.sha + 3);
	dp_buf_free(&b);
	dp_vec_push(v, l);
	return 0;
}

static int migrate_v1(dp_store *s, dp_error *err)
{
	DP_VEC(legacy) v = {0};
	int rc = -1;

	if (script(s, from_v1, err) < 0 ||
	    dp_store_exec(s,
			  "SELECT id, commit_sha, added_at, profile, program, event, hostname, "
			  "seconds, samples_read FROM runs",
			  NULL, 0, legacy_row, &v, err) < 0)
		goto out;
	for (size_t i = 0; i < v.n; i++) {
		dp_sval a[2] = {dp_sv_text(v.v[i].sha), dp_sv_int(v.v[i].id)};

		if (dp_store_exec(s, "UPDATE runs SET profile_sha256 = $1 WHERE id = $2", a, 2,
				  NULL, NULL, err) < 0)
			goto out;
	}
	rc = 0;
out:
	dp_vec_free(&v);
	return rc;
}

static int upgrade(dp_store *s, long ver, dp_error *err)
{
	char name[64];
	dp_sval a;

	if ((ver == 0 ? script(s, ddl, err) : migrate_v1(s, err)) < 0 ||
	    script(s, indexes, err) < 0)
		return -1;
	snprintf(name, sizeof(name), "%s%d", DP_HISTORY_SCHEMA_NAME, DP_HISTORY_VERSION);
	a = dp_sv_text(name);
	if (dp_store_exec(s,
			  "INSERT INTO history_meta(key, value) VALUES('schema', $1) "
			  "ON CONFLICT DO NOTHING",
			  &a, 1, NULL, NULL, err) < 0 ||
	    dp_store_exec(s, "UPDATE history_meta SET value = $1 WHERE key = 'schema'", &a, 1, NULL,
			  NULL, err) < 0)
		return -1;
	return 0;
}

int dp_history_schema(dp_store *s, bool create, dp_error *err)
{
	long ver;

	if (read_version(s, &ver, err) < 0) {
		dp_error_prefix(err, "not a dataprof history? ");
		return -1;
	}
	if (ver == DP_HISTORY_VERSION)
		return 0;
	if (ver < 0 || ver > DP_HISTORY_VERSION)
		return refuse(s, ver, err);
	if (!ver && !create) {
		dp_error_set(err,
			     "%s holds no dataprof history: 'dataprof history --db ... add' starts "
			     "one",
			     s->name);
		return -1;
	}
	/* again under the lock: another job may have done it meanwhile */
	if (dp_store_begin(s, err) < 0 ||
	    (s->dialect->lock_schema &&
	     dp_store_exec(s, s->dialect->lock_schema, NULL, 0, NULL, NULL, err) < 0) ||
	    read_version(s, &ver, err) < 0)
		goto fail;
	if (ver < 0 || ver > DP_HISTORY_VERSION) {
		dp_store_rollback(s);
		return refuse(s, ver, err);
	}
	if (ver < DP_HISTORY_VERSION && upgrade(s, ver, err) < 0)
		goto fail;
	if (dp_store_commit(s, err) < 0)
		goto fail;
	return 0;
fail:
	dp_store_rollback(s);
	return -1;
}
